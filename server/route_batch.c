/*
 * POST /v1/predict/batch: an array of up to WC_SERVER_BATCH_MAX_ITEMS
 * inference requests, answered in order against one parameter set. Each
 * item gets its own prediction or its own error; a bad item does not fail
 * the batch. Item errors carry `index` and a `field` pointer into the
 * whole batch document ("/3/tp"), so it can be resolved as is. POST
 * /v1/predict/finetune/batch is the same over fine-tuning requests.
 */
#include "requests_internal.h"
#include "routes_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The draws the most expensive served set makes each item pay for: its
 * power law's, and for capacity answers the larger of the law's and the
 * capacity section's (predict/capacity.c pairs them, cycling the shorter).
 * Items may name any profile. */
void
wc__batch_draws(const wc_profiles *pf, double *law, double *cap)
{
	*law = *cap = 1.0;
	for (int k = 0; k < pf->n; k++)
		wc__state_draws(pf->st[k], law, cap);
}

void
wc__state_draws(const wc_state *st, double *law, double *cap)
{
	const wc_params *p = wc_predictor_params(st->pred);
	double d = p->n_draws, c = p->capacity.draws.n > p->n_draws ? p->capacity.draws.n : p->n_draws;
	*law = d > *law ? d : *law;
	*cap = c > *cap ? c : *cap;
}

/* An inference request's charge in law evaluations (server/server.h):
 * what each kind really costs, measured per draw (docs/http-api.md, "POST
 * /v1/predict/batch"). `capacity` 0 none, 1 closed loop, 2 open loop;
 * `capped` 1 a power_cap_w, 2 the board's limit where it can bind
 * (wc__item_limit_binds), either charged by the answers its clock costs
 * (a series' by each count whose clock is settled,
 * WC_SERIES_CLOCK_SETTLES): the limit settles as a cap does. */
double
wc__inference_work(double samples, int series, int capacity, int capped, double law, double cap, const char **kind)
{
	static const char *const kinds[3][3] = {
		{ "concurrency", "closed-loop capacity", "open-loop capacity" },
		{ "concurrency with power_cap_w", "closed-loop capacity with power_cap_w",
		  "open-loop capacity with power_cap_w" },
		{ "concurrency at the board's limit", "closed-loop capacity at the board's limit",
		  "open-loop capacity at the board's limit" },
	};
	static const char *const series_kinds[3] = { "running_series", "running_series with power_cap_w",
		                                      "running_series at the board's limit" };
	double work = (samples + WC_SERVER_BATCH_CHARGE_ITEM) * law;
	if (capacity)
		work += cap * (capacity == 2 ? WC_SERVER_BATCH_CHARGE_OPEN : WC_SERVER_BATCH_CHARGE_CLOSED);
	capped = capped < 0 || capped > 2 ? 1 : capped;
	if (capped && series) /* each settled count of the series costs a cap's clock */
		work += WC_SERVER_BATCH_CHARGE_CAP_EVAL * (double)WC_CLOCK_CAP_EVALS *
		        fmin(samples, (double)WC_SERIES_CLOCK_SETTLES);
	else if (capped)
		work += WC_SERVER_BATCH_CHARGE_CAP_EVAL *
		        (capacity == 2 ? 3.0 * (2.0 * WC_CLOCK_CAP_EVALS + 2.0) : (double)WC_CLOCK_CAP_EVALS);
	*kind = series && !capacity ? series_kinds[capped] : kinds[capped][capacity];
	return work;
}

int
wc__item_limit_binds(const wc_inference_item *it)
{
	wc_error err;
	if (!it->ok)
		return 0; /* refused by its profile or its parser: settles nothing */
	const wc_state *st = it->st;
	const wc_inference_query *q = &it->r.q;
	double n = q->config.running, fit = NAN;
	for (size_t i = 0; i < q->series_len; i++)
		n = i ? fmax(n, q->running_series[i]) : q->running_series[i];
	/* with token lengths the KV cache holds the count (an open loop
	 * runs up to its engine limit, else up to what fits); a
	 * configuration that cannot load is refused before any settle */
	if (wc_predict_memory_check(wc_predictor_params(st->pred), &q->config, &fit, &err) != WC_OK)
		return 0;
	n = it->r.want_capacity && q->config.request_rate > 0.0 && !(n > 0.0) ? fit : wc_predict_running_held(n, fit);
	int binds = 0; /* no bound known, or no answer at it: charged */
	return !isfinite(n) || wc_predict_limit_may_bind(st->pred, q, n, &binds, &err) != WC_OK || binds;
}

/* One item's charge: an inference item's by its fields as sent (capacity
 * answers are asked by either token field: the parser refuses one without
 * the other, after this count, so the ask is charged), and by whether the
 * board's limit can settle its clock when no cap does (`parsed` NULL: not
 * asked); a fine-tuning item is its samples x draws. */
double
wc__item_work(const json_t *item, int inference, const wc_profiles *pf, wc_inference_item **parsed,
              double law, double cap, const char **kind)
{
	const json_t *series = json_object_get(item, "running_series");
	double samples = json_is_array(series) ? (double)json_array_size(series) : 1.0;
	if (!inference) {
		*kind = json_is_array(series) ? "running_series" : "concurrency";
		return samples * law;
	}
	/* a series has no capacity answers (docs/http-api.md, "POST
	 * /v1/predict/inference"): its lengths are charged nothing more */
	int capacity = !json_is_array(series) && (json_object_get(item, "input_tokens") || json_object_get(item, "output_tokens"))
	                       ? (json_object_get(item, "rate") ? 2 : 1)
	                       : 0;
	int capped = json_object_get(item, "power_cap_w") != NULL ? 1 : 0;
	if (!capped && parsed) {
		if (!*parsed)
			*parsed = wc__inference_item_parse(item, pf);
		/* out of memory: charged as if it bound */
		capped = !*parsed || wc__item_limit_binds(*parsed) ? 2 : 0;
	}
	return wc__inference_work(samples, json_is_array(series), capacity, capped, law, cap, kind);
}

void
wc__item_over_budget(wc_api_error *e, const char *at, const char *kind, const char *who, double work)
{
	char field[48], need[32], budget[32];
	snprintf(field, sizeof field, "%s%s", at, strcmp(kind, "running_series") == 0 ? "/running_series" : "");
	/* in full: a rounded need reads as the budget it exceeds */
	wc_api_error_set(e, 413, "work_budget_exceeded", field,
	                 "%s: needs %s law evaluations, more than the budget of %s a request or batch may "
	                 "take; send fewer samples", who, wc_api_num_text(need, work),
	                 wc_api_num_text(budget, WC_SERVER_BATCH_WORK_MAX));
}

/* The batch's work, counted on the request as sent, before any item is
 * computed, so a refused batch costs nothing but its parse. 1 with `res`
 * holding the 413, naming the first item past the budget. `parsed` (NULL
 * for fine-tuning items) gets the inference items parsed for their charge,
 * which their answers take (one parse an item). */
static int
batch_work_refused(const wc_profiles *pf, const json_t *body, wc_inference_item **parsed, wc_response *res)
{
	double law, cap, work = 0.0, first = 0.0, alone = 0.0;
	size_t i, over = 0, whole = 0;
	const json_t *item;
	const char *kind = "", *over_kind = "", *alone_kind = "";
	int refused = 0;
	wc__batch_draws(pf, &law, &cap);
	json_array_foreach(body, i, item) {
		double w = wc__item_work(item, parsed != NULL, pf, parsed ? &parsed[i] : NULL, law, cap, &kind);
		work += w;
		if (!refused && work > WC_SERVER_BATCH_WORK_MAX) {
			refused = 1;
			over = i;
			first = w;
			over_kind = kind;
		}
		if (!(alone > 0.0) && w > WC_SERVER_BATCH_WORK_MAX) {
			alone = w;
			whole = i;
			alone_kind = kind;
		}
	}
	if (!refused)
		return 0;
	char field[32];
	wc_api_error e;
	/* An item over the budget by itself passes in no split: it is told
	 * what a single request of it is told (docs/http-api.md, "POST
	 * /v1/predict/batch"). */
	if (alone > 0.0) {
		char who[64];
		snprintf(field, sizeof field, "/%zu", whole);
		snprintf(who, sizeof who, "item %zu (%s) alone", whole, alone_kind);
		wc__item_over_budget(&e, field, alone_kind, who, alone);
		wc_response_error(res, &e);
		return 1;
	}
	snprintf(field, sizeof field, "/%zu", over);
	char need[32], budget[32], charged[32];
	/* in full: a rounded need reads as the budget it exceeds */
	wc_api_error_set(&e, 413, "work_budget_exceeded", field,
	                 "the batch needs %s law evaluations, more than the budget of %s per batch; it passes "
	                 "the budget at item %zu (%s, charged %s); split it there", wc_api_num_text(need, work),
	                 wc_api_num_text(budget, WC_SERVER_BATCH_WORK_MAX), over, over_kind,
	                 wc_api_num_text(charged, first));
	wc_response_error(res, &e);
	return 1;
}

void
wc_answer_batch_of(const wc_profiles *pf, const char *text, size_t len, wc_item_answer_fn answer,
                   const char *what, wc_response *res)
{
	json_t *body = NULL, *results = NULL, *root = NULL;
	wc_inference_item **parsed = NULL; /* the batch's: each item's, freed once answered */
	wc_api_error e;
	size_t n = 0, failed = 0;

	if (wc_request_parse_json(text, len, &body, res) != 0)
		return;
	if (!json_is_array(body)) {
		wc_api_error_set(&e, 422, "wrong_type", "", "expected a JSON array of %s requests", what);
		wc_response_error(res, &e);
		goto done;
	}
	if ((n = json_array_size(body)) > WC_SERVER_BATCH_MAX_ITEMS) {
		wc_api_error_set(&e, 422, "too_many_items", "",
		                 "a batch holds at most %d items, got %zu", WC_SERVER_BATCH_MAX_ITEMS, n);
		wc_response_error(res, &e);
		goto done;
	}
	/* inference items are parsed once, for their charge and their answer */
	if (answer == wc_inference_answer && !(parsed = calloc(n ? n : 1, sizeof *parsed)))
		goto oom;
	if (batch_work_refused(pf, body, parsed, res))
		goto done;
	if (!(results = json_array()))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		json_t *item;
		if (!parsed) {
			item = answer(json_array_get(body, i), pf, &e);
		} else if (parsed[i] || (parsed[i] = wc__inference_item_parse(json_array_get(body, i), pf))) {
			item = wc__inference_item_answer(parsed[i], &e);
			wc__inference_item_free(parsed[i]);
			parsed[i] = NULL;
		} else {
			item = NULL;
			wc_api_error_set(&e, 500, "internal", NULL, "out of memory");
		}
		if (!item) {
			char prefix[32];
			json_t *err;
			snprintf(prefix, sizeof prefix, "/%zu", i);
			/* Every item error names its place, even "the whole item". */
			e.has_field = 1;
			err = wc_api_error_json(&e, prefix);
			if (!err)
				goto oom;
			json_object_set_new(err, "index", json_integer((json_int_t)i));
			item = json_pack("{s:o}", "error", err);
			failed++;
		}
		if (!item || json_array_append_new(results, item) != 0)
			goto oom;
	}
	root = json_pack("{s:s,s:I,s:I,s:o}", "params_version", wc_profiles_find(pf, NULL)->version,
	                 "count", (json_int_t)n, "failed", (json_int_t)failed, "results", results);
	results = NULL; /* stolen by json_pack, also on failure */
	if (!root)
		goto oom;
	wc_response_json(res, 200, root);
	goto done;
oom:
	wc_api_error_set(&e, 500, "internal", NULL, "out of memory answering the batch");
	wc_response_error(res, &e);
done:
	for (size_t i = 0; parsed && i < n; i++)
		wc__inference_item_free(parsed[i]);
	free(parsed);
	json_decref(results);
	json_decref(body);
}

void
wc_route_predict_batch(wc_request *req, wc_response *res)
{
	wc_route_batch_of(req, res, wc_inference_answer, "inference");
}

void
wc_route_batch_of(wc_request *req, wc_response *res, wc_item_answer_fn answer, const char *what)
{
	char *body;
	size_t len;

	if (wc_request_read_body(req, req->srv->max_batch_body, &body, &len, res) != 0)
		return;
	wc_answer_batch_of(req->profiles, body, len, answer, what, res);
	free(body);
}

void
wc_answer_predict_batch(const wc_profiles *pf, const char *text, size_t len, wc_response *res)
{
	wc_answer_batch_of(pf, text, len, wc_inference_answer, "inference", res);
}

/*
 * POST /v1/predict/inference's answer for one parsed item (also each item
 * of POST /v1/predict/batch): the capacity answers when asked, the power,
 * and the predictor's messages and warnings named by the request's own
 * fields (docs/http-api.md, "Errors").
 */
#include "server_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The predictor's messages start with the field ("tp: ...",
 * "running_series/3: ..."); anything else concerns the whole item. */
static void
predictor_error(const wc_inference_query *q, const wc_error *err, wc_api_error *e)
{
	char field[64] = "";
	size_t n = strcspn(err->msg, ": ");
	static const char *const fields[] = { "platform", "tp", "active_params_b", "running", "running_series",
	                                      "dt_s", "sm_clock_mhz", "concurrency", "input_tokens",
	                                      "output_tokens", "rate", "model", "architecture", "power_cap_w",
	                                      "gpu_memory_utilization", "price_per_kwh", "grams_co2_per_kwh", NULL };
	if (err->msg[n] == ':' && n + 1 < sizeof field) {
		for (const char *const *f = fields; *f; f++) {
			size_t fl = strlen(*f);
			if (strncmp(err->msg, *f, fl) == 0 && (err->msg[fl] == ':' || err->msg[fl] == '/')) {
				field[0] = '/';
				memcpy(field + 1, err->msg, n);
				field[n + 1] = '\0';
				/* The law's "running" is the request's concurrency,
				 * or the mean of its series. */
				if (strcmp(field, "/running") == 0)
					strcpy(field, q->series_len ? "/running_series" : "/concurrency");
				break;
			}
		}
	}
	if (err->code == WC_ENOMEM)
		wc_api_error_set(e, 500, "internal", NULL, "%s", err->msg);
	else
		wc_api_error_set(e, 422, "invalid_value", field, "%s", err->msg);
}

/* The capacity answers when asked (the running count of an open loop
 * comes from them), and the largest concurrency that fits. */
static int
capacity_answer(wc_inference_request *r, const wc_state *st, wc_capacity_prediction *cap, double *max_fit,
                char *no_cap, size_t no_cap_len, wc_api_error *e)
{
	wc_error err;
	if (r->want_capacity &&
	    wc_predict_capacity_settled(st->pred, &r->q, r->price_per_kwh, r->grams_co2_per_kwh, cap, &err) != WC_OK) {
		if (!wc_predict_capacity_absent(&err)) {
			predictor_error(&r->q, &err, e);
			return -1;
		}
		snprintf(no_cap, no_cap_len, "%s", err.msg); /* the power alone, said */
		r->want_capacity = 0;
	}
	if (!r->want_capacity) {
		if (wc_predict_memory_check(wc_predictor_params(st->pred), &r->q.config, max_fit, &err) != WC_OK) {
			predictor_error(&r->q, &err, e);
			return -1;
		}
		return 0;
	}
	*max_fit = cap->max_concurrency_fit;
	wc_predict_take_running(&r->q, cap); /* the headline's power is the capacity answer's */
	return 0;
}

wc_inference_item *
wc__inference_item_parse(const json_t *item, const wc_profiles *pf)
{
	/* On the heap: handler stacks are small (server_internal.h). */
	wc_inference_item *it = calloc(1, sizeof *it);
	if (!it)
		return NULL;
	/* The profile the item names answers it (one lookup; a non-object
	 * gets the default and is refused by the parser). */
	it->ok = (it->st = wc_profiles_select(pf, item, &it->e)) != NULL &&
	         wc_inference_request_parse(item, it->st, &it->r, &it->e) == 0;
	return it;
}

void
wc__inference_item_free(wc_inference_item *it)
{
	if (it)
		free(it->r.series);
	free(it);
}

json_t *
wc_inference_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e)
{
	wc_inference_item *it = wc__inference_item_parse(item, pf);
	json_t *out = NULL;
	if (!it)
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
	else
		out = wc__inference_item_answer(it, e);
	wc__inference_item_free(it);
	return out;
}

json_t *
wc__inference_item_answer(wc_inference_item *it, wc_api_error *e)
{
	wc_inference_request *r = &it->r;
	const wc_state *st = it->st;
	wc_inference_prediction *pred = NULL;
	wc_capacity_prediction *cap = NULL;
	wc_error err;
	double max_fit = NAN;
	json_t *out = NULL;

	if (!it->ok) {
		*e = it->e;
		return NULL;
	}
	/* On the heap: handler stacks are small (server_internal.h). */
	if (!(pred = malloc(sizeof *pred)) || (r->want_capacity && !(cap = malloc(sizeof *cap)))) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		goto done;
	}
	if (r->power_cap_w > 0 && r->q.config.sm_clock_mhz > 0) {
		wc_api_error_set(e, 422, "conflicting_fields", "/power_cap_w",
		                 "power_cap_w: give either power_cap_w or sm_clock_mhz, not both");
		goto done;
	}
	r->q.power_cap_w = r->power_cap_w;
	if (wc_predict_settle_clock(st->pred, &r->q, &err) != WC_OK) {
		predictor_error(&r->q, &err, e);
		goto done;
	}
	char no_cap[WC_ERROR_MSG_MAX] = "";
	if (capacity_answer(r, st, cap, &max_fit, no_cap, sizeof no_cap, e) != 0)
		goto done;
	if (wc_predict_inference(st->pred, &r->q, pred, &err) != WC_OK) {
		predictor_error(&r->q, &err, e);
		goto done;
	}
	if (no_cap[0])
		wc_predict_note_no_capacity(pred, no_cap, cap);
	if (r->want_capacity) /* one quantity, one line (docs/capacity.md, "Warnings") */
		wc_predict_join_span_lines(pred, cap);
	/* Fields that enter only the capacity answers: an answer without them
	 * says each one it was given is ignored, and why (docs/http-api.md,
	 * "POST /v1/predict/inference"). */
	if (!r->want_capacity)
		wc_predict_note_ignored(pred->warnings, &pred->n_warnings, r->price_per_kwh, r->grams_co2_per_kwh,
		                        r->q.config.expert_parallel, !no_cap[0] ? WC_IGNORED_NO_LENGTHS
		                        : r->q.series_len ? WC_IGNORED_SERIES : WC_IGNORED_NO_LEVEL);
	/* Finite inputs can still overflow (tp x a huge clock factor); JSON
	 * has no infinity, so say so instead of answering without a number. */
	if (!isfinite(pred->power.node_power_w) || !isfinite(pred->power.per_gpu_power_w) ||
	    !isfinite(pred->power.dynamic_w) || !isfinite(pred->power.idle_power_w)) {
		wc_api_error_set(e, 422, "invalid_value", "",
		                 "the law gives a non-finite power for this configuration");
		goto done;
	}
	if (!(out = wc_inference_json(&r->q, pred, r->want_capacity ? cap : NULL, max_fit, st->version)))
		wc_api_error_set(e, 500, "internal", NULL, "out of memory rendering the answer");
done:
	free(cap);
	free(pred);
	return out;
}

/*
 * POST /v1/predict/flexibility: a configuration and a load in (the fields
 * of /v1/predict/inference with input_tokens and output_tokens, plus
 * `sweep` "clock" or "power_cap" and `steps`), the power-flexibility sweep
 * out (the object `wattcast predict flexibility --json` prints;
 * docs/http-api.md).
 */
#include "render_internal.h"
#include "requests_internal.h"
#include "routes_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* `sweep` and `steps` out of `item` (removed, so the inference parser
 * sees only its own fields). */
static int
sweep_fields(json_t *item, int *by_cap, int *steps, wc_api_error *e)
{
	const json_t *v = json_object_get(item, "sweep");
	const char *want = "\"clock\" or \"power_cap\"";
	double n = WC_FLEX_DEFAULT_STEPS;
	*by_cap = 0;
	/* refused as every other field is: a wrong JSON type as `wrong_type`,
	 * a value out of range with the value sent (docs/http-api.md, "Errors") */
	if (v && !json_is_string(v))
		return wc_api_wrong_type(e, "/sweep", want, v);
	if (v) {
		const char *got = json_string_value(v);
		if (strcmp(got, "clock") != 0 && strcmp(got, "power_cap") != 0) {
			wc_api_error_set(e, 422, "invalid_value", "/sweep", "sweep: expected %s, got \"%.*s\"", want,
			                 (int)wc_utf8_prefix(got, 40), got);
			return -1;
		}
		*by_cap = strcmp(got, "power_cap") == 0;
	}
	if (wc_api_bounded(item, "", "steps", 1, 2, 0, WC_FLEX_MAX_STEPS, &n, e) < 0)
		return -1;
	*steps = (int)n;
	json_object_del(item, "sweep");
	json_object_del(item, "steps");
	return 0;
}

/* A sweep may not do more than a batch may (docs/http-api.md, "POST
 * /v1/predict/flexibility"): it answers the unconstrained point and each
 * step at the set's draws, and under `power_cap` settles each step's cap as
 * an item with power_cap_w does; charged as steps + 2 such items (the
 * board's limit, the top state and the power floor's scan within the 2).
 * A clock sweep also answers the knee's and the energy optimum's caps
 * (whether each holds its step): 2 items with power_cap_w more.
 * 1 with `e` set (413 on /steps) when over. */
static int
sweep_work_refused(const wc_state *st, const json_t *item, int by_cap, int steps, wc_api_error *e)
{
	double law = 1.0, cap = 1.0;
	const char *kind;
	wc__state_draws(st, &law, &cap);
	const int loops = json_object_get(item, "rate") ? 2 : 1;
	const char *capped_kind;
	double one = wc__inference_work(1.0, 0, loops, by_cap, law, cap, &kind);
	double checks = by_cap ? 0.0 : 2.0 * wc__inference_work(1.0, 0, loops, 1, law, cap, &capped_kind);
	double work = (steps + 2) * one + checks;
	if (work <= WC_SERVER_BATCH_WORK_MAX)
		return 0;
	char need[32], budget[32], fewer[48] = "a set of fewer draws sweeps";
	int fit = (int)floor((WC_SERVER_BATCH_WORK_MAX - checks) / one) - 2;
	if (fit >= 2)
		snprintf(fewer, sizeof fewer, "ask at most %d steps", fit);
	/* in full: a rounded need reads as the budget it exceeds */
	wc_api_error_set(e, 413, "work_budget_exceeded", "/steps",
	                 "steps: a sweep of %d steps (%s, each %s) needs %s law evaluations, more than the budget of %s a "
	                 "request or batch may take; %s", steps, by_cap ? "power_cap" : "clock", kind,
	                 wc_api_num_text(need, work), wc_api_num_text(budget, WC_SERVER_BATCH_WORK_MAX), fewer);
	return 1;
}

/* A series is refused before its fields are read (docs/http-api.md,
 * "POST /v1/predict/flexibility"): the sweep's throughput is at one
 * concurrency or rate, so asking first for the series' dt_s, then
 * refusing the series, sent a client to fix what would never be
 * answered. A series beside a concurrency or a rate is left to the
 * parser's two-loads refusal, as on every route. 1 with `e` set. */
static int
series_refused(const json_t *item, wc_api_error *e)
{
	if (!json_object_get(item, "running_series") || json_object_get(item, "concurrency") ||
	    json_object_get(item, "rate"))
		return 0;
	wc_api_error_set(e, 422, "invalid_value", "/running_series",
	                 "running_series: the sweep needs throughput at one concurrency or rate; a series has neither");
	return 1;
}

/* How the item's other load fares once its series is left out: 1 when
 * the sweep would take it (or another field is refused first), else 0
 * with its refusal in `why`. The sweep's lengths, when the item has none,
 * are set as any -- the default workload's (wc_envelope_workload_init,
 * docs/http-api.md, "POST /v1/forecast/envelope") -- so that a concurrency
 * of 0 is judged as with them (the sweep needs them). The parse and the
 * capacity answer's check of the load decide (a concurrency of 0 passes the one, not the other), not a
 * copy of their rules; an error path, charged one capacity answer. */
static int
load_kept(const json_t *item, const wc_state *st, wc_api_error *why)
{
	json_t *rest = json_deep_copy(item);
	wc_inference_request r;
	wc_capacity_prediction *cp = malloc(sizeof *cp);
	wc_error err;
	int kept = 1;
	if (!rest || !st || !cp) {
		json_decref(rest);
		free(cp);
		return 1;
	}
	json_object_del(rest, "running_series");
	json_object_del(rest, "dt_s");
	wc_envelope_workload dflt;
	wc_envelope_workload_init(&dflt);
	if (!json_object_get(rest, "input_tokens"))
		json_object_set_new(rest, "input_tokens", json_integer((json_int_t)dflt.input.mean));
	if (!json_object_get(rest, "output_tokens"))
		json_object_set_new(rest, "output_tokens", json_integer((json_int_t)dflt.output.mean));
	if (wc_inference_request_parse(rest, st, &r, why) != 0) {
		kept = strcmp(why->field, "/concurrency") != 0 && strcmp(why->field, "/rate") != 0;
	} else {
		r.q.want_interval = 0;
		if (wc_predict_capacity(st->pred, &r.q, NAN, NAN, cp, &err) != WC_OK &&
		    (strncmp(err.msg, "concurrency:", 12) == 0 || strncmp(err.msg, "rate:", 5) == 0)) {
			wc_api_error_set(why, 422, "invalid_value", err.msg[0] == 'r' ? "/rate" : "/concurrency", "%s",
			                 err.msg);
			kept = 0;
		}
	}
	free(r.series);
	free(cp);
	json_decref(rest);
	return kept;
}

/* The shared parser's refusals of a missing load, of a stray dt_s and of
 * a series beside another load named running_series, which this route
 * refuses (series_refused): here they name the loads the sweep takes, a concurrency > 0 or a rate
 * (docs/http-api.md, "POST /v1/predict/flexibility"). Reworded after the
 * parse, so that an unknown field (a misspelt concurrency) is still
 * refused first, as on every route. */
static void
load_reworded(const json_t *item, const wc_state *st, wc_api_error *e)
{
	if (!json_is_object(item) || !e->code)
		return;
	/* A series beside a concurrency or a rate: the parser's two-loads
	 * refusal said to give one of them, but the series alone is refused
	 * too (series_refused): only the series is to go. Keeping the other
	 * load is advised only where it would be taken (a concurrency of 0
	 * or null is not): else its own refusal follows. */
	if (json_object_get(item, "running_series")) {
		wc_api_error other;
		if (strcmp(e->code, "conflicting_fields") != 0 || strcmp(e->field, "/running_series") != 0)
			return;
		if (load_kept(item, st, &other))
			wc_api_error_set(e, 422, "conflicting_fields", "/running_series",
			                 "running_series: the sweep takes no series (it needs throughput at one "
			                 "concurrency or rate, which a series has not); leave it out and keep %s",
			                 json_object_get(item, "rate") ? "rate" : "concurrency");
		else
			wc_api_error_set(e, 422, "conflicting_fields", "/running_series",
			                 "running_series: the sweep takes no series (it needs throughput at one "
			                 "concurrency or rate); leave it out, and %s", other.message);
		return;
	}
	if (strcmp(e->code, "missing_field") == 0 && strcmp(e->field, "/concurrency") == 0)
		wc_api_error_set(e, 422, "missing_field", "/concurrency",
		                 "concurrency: required, > 0 (or give rate): the sweep needs throughput");
	else if (strcmp(e->code, "conflicting_fields") == 0 && strcmp(e->field, "/dt_s") == 0)
		wc_api_error_set(e, 422, "conflicting_fields", "/dt_s",
		                 "dt_s: the step of a running_series, which the sweep does not take; leave it out");
}

static json_t *
flexibility_answer(json_t *item, const wc_profiles *pf, wc_api_error *e)
{
	wc_inference_request r;
	const wc_state *st;
	wc_error err;
	json_t *out = NULL;
	int by_cap = 0, steps = WC_FLEX_DEFAULT_STEPS;
	memset(&r, 0, sizeof r);
	if (!(st = wc_profiles_select(pf, item, e)) || (json_is_object(item) && series_refused(item, e)) ||
	    (json_is_object(item) && sweep_fields(item, &by_cap, &steps, e)) ||
	    (json_is_object(item) && sweep_work_refused(st, item, by_cap, steps, e)) ||
	    wc_inference_request_parse(item, st, &r, e) != 0) {
		load_reworded(item, st, e);
		goto done;
	}
	if (!r.want_capacity) {
		wc_api_error_set(e, 422, "missing_field", "/output_tokens",
		                 "output_tokens: required (with input_tokens): the sweep needs throughput");
		goto done;
	}
	/* The sweep sets the clock itself, by clock or by cap: either field
	 * conflicts with it alike (docs/http-api.md). */
	if (r.power_cap_w > 0 || r.q.config.sm_clock_mhz > 0) {
		const char *name = r.power_cap_w > 0 ? "power_cap_w" : "sm_clock_mhz";
		wc_api_error_set(e, 422, "conflicting_fields", r.power_cap_w > 0 ? "/power_cap_w" : "/sm_clock_mhz",
		                 "%s: the sweep sets the clock itself; leave it out", name);
		goto done;
	}
	/* On the heap: handler stacks are small. */
	wc_flexibility *f = malloc(sizeof *f);
	if (!f) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		goto done;
	}
	if (wc_predict_flexibility(st->pred, &r.q, by_cap, steps, f, &err) != WC_OK) {
		const char *colon = strchr(err.msg, ':');
		char field[64] = "/";
		if (colon && colon - err.msg < 60)
			memcpy(field + 1, err.msg, (size_t)(colon - err.msg));
		wc_api_error_set(e, err.code == WC_ENOMEM ? 500 : 422, err.code == WC_ENOMEM ? "internal" : "invalid_value",
		                 colon ? field : "", "%s", err.msg);
	} else {
		wc_predict_note_ignored(f->warnings, &f->n_warnings, r.price_per_kwh, r.grams_co2_per_kwh, 0,
		                        WC_IGNORED_SWEEP);
		if (!(out = wc_flexibility_json(&r.q, f, st->version)))
			wc_api_error_set(e, 500, "internal", NULL, "out of memory rendering the answer");
	}
	free(f);
done:
	free(r.series);
	return out;
}

void
wc_route_predict_flexibility(wc_request *req, wc_response *res)
{
	json_t *body = NULL, *answer;
	wc_api_error e;

	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		return;
	if ((answer = flexibility_answer(body, req->profiles, &e)) != NULL)
		wc_response_json(res, 200, answer);
	else
		wc_response_error(res, &e);
	json_decref(body);
}

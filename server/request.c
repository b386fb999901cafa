/*
 * One inference request object -> a wc_inference_query, strictly:
 * unknown fields, wrong types and invalid values are refused with 422 and
 * the JSON pointer of the offending field; an unknown model name is 404.
 * The same function serves POST /v1/predict/inference and each item of
 * POST /v1/predict/batch (whose errors prefix the item's index).
 *
 * Fields: platform, tp (integer >= 1), active_params_b | model,
 * concurrency | running_series + dt_s, weights, kv_cache, sm_clock_mhz;
 * for the capacity answers input_tokens, output_tokens, rate (open loop;
 * concurrency is then the engine's cap), price_per_kwh, grams_co2_per_kwh
 * and architecture (explicit facts, alone or over the catalog's); profile
 * (the parameter set to answer from; absent = the default); engine (the
 * serving stack, absent = vllm).
 */
#include "requests_internal.h"

#include "data/data.h"
#include "models/catalog.h"
#include "models/grow.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_fields[] = {
	"platform", "tp", "active_params_b", "model", "concurrency", "running_series",
	"dt_s", "weights", "kv_cache", "sm_clock_mhz", "input_tokens", "output_tokens", "rate",
	"price_per_kwh", "grams_co2_per_kwh", "architecture", "profile", "power_cap_w", "gpu_memory_utilization", "expert_parallel",
	"engine", NULL,
};

/* A number field; `min_excl` / `min_incl` is the lower bound. Absent = 1. */
static int
get_number(const json_t *obj, const char *name, double min, int inclusive, double *out,
           wc_api_error *e)
{
	char field[64] = "";
	const json_t *v = json_object_get(obj, name);
	if (!v)
		return 1;
	wc_json_pointer_append(field, sizeof field, name);
	if (!json_is_number(v))
		return wc_api_wrong_type(e, field, "a number", v);
	double x = json_number_value(v);
	if (!isfinite(x)) /* not reachable from JSON text; kept for safety */
		return wc_api_invalid(e, field, x, "must be finite");
	if (inclusive ? x < min : x <= min)
		return wc_api_invalid_json(e, field, v, x, "must be %s %g", inclusive ? ">=" : ">", min);
	*out = x;
	return 0;
}

/* gpu_memory_utilization: any number read, then the one range check
 * (WC_GMU_IN_RANGE), so 0 and -1 are refused in the words 0.05 is. */
static int
get_gmu(const json_t *obj, double *out, wc_api_error *e)
{
	double x;
	int rc = get_number(obj, "gpu_memory_utilization", -INFINITY, 1, &x, e);
	if (rc != 0)
		return rc;
	if (!WC_GMU_IN_RANGE(x))
		return wc_api_invalid_json(e, "/gpu_memory_utilization", json_object_get(obj, "gpu_memory_utilization"), x,
		                           WC_GMU_RANGE_TEXT);
	*out = x;
	return 0;
}

static int
get_precision(const json_t *obj, const char *name, int allow_int4, wc_precision *out,
              wc_api_error *e)
{
	char field[64] = "";
	const json_t *v = json_object_get(obj, name);
	if (!v)
		return 0;
	wc_json_pointer_append(field, sizeof field, name);
	const char *want = allow_int4 ? "one of \"bf16\", \"fp8\", \"int4\"" : "one of \"bf16\", \"fp8\"";
	if (!json_is_string(v))
		return wc_api_wrong_type(e, field, want, v);
	if (wc_precision_from_name(json_string_value(v), out) != WC_OK ||
	    (!allow_int4 && *out == WC_PREC_INT4)) {
		const char *got = json_string_value(v);
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected %s, got \"%.*s\"", name,
		                 want, (int)wc_utf8_prefix(got, 40), got);
		return -1;
	}
	return 0;
}

static int
parse_tp(const json_t *obj, wc_inference_query *q, wc_api_error *e)
{
	const json_t *v = json_object_get(obj, "tp");
	/* Absent: one GPU, as the CLI's --tp defaults (docs/http-api.md). */
	if (!v) {
		q->config.tp = 1;
		return 0;
	}
	/* 2.0 is the integer 2 (as in JSON Schema); 1.5 is not an integer. */
	double x;
	if (wc_api_whole(e, "/tp", v, &x) != 0)
		return -1;
	if (x < 1 || x > WC_LAW_MAX_TP)
		return wc_api_invalid_json(e, "/tp", v, x, "must be between 1 and %d", WC_LAW_MAX_TP);
	q->config.tp = (int)x;
	return 0;
}

static int
parse_model(const json_t *obj, wc_inference_request *r, wc_api_error *e)
{
	wc_inference_query *q = &r->q;
	const json_t *model = json_object_get(obj, "model");
	int have_active = json_object_get(obj, "active_params_b") != NULL;
	if (model && have_active && !json_is_string(model))
		return wc_api_wrong_type(e, "/model", "a string", model);
	if (!model && !have_active) {
		wc_api_error_set(e, 422, "missing_field", "/active_params_b",
		                 "active_params_b: required (or give a catalog model name in model)");
		return -1;
	}
	if (have_active) {
		if (get_number(obj, "active_params_b", 0, 0, &q->config.active_params_b, e) < 0)
			return -1;
		/* Past the largest sane model the weights' bytes overflow and
		 * the memory check blamed /tp with "inf GB" (models/limits.h). */
		if (q->config.active_params_b < WC_MODEL_MIN_PARAMS_B || q->config.active_params_b > WC_MODEL_MAX_PARAMS_B)
			return wc_api_invalid_json(e, "/active_params_b", json_object_get(obj, "active_params_b"),
			                           q->config.active_params_b, "must be between %g and %g B",
			                           WC_MODEL_MIN_PARAMS_B, WC_MODEL_MAX_PARAMS_B);
		/* A model of the user's own beside its size: the name finds the
		 * set's model terms as written (docs/calibration.md). */
		wc_error me;
		int rc = model ? wc_model_name_custom(json_string_value(model), q->config.active_params_b, &q->config, &me)
		               : WC_OK;
		if (rc != WC_OK) {
			wc_api_error_set(e, 422, rc == WC_ERANGE ? "invalid_value" : "conflicting_fields", "/model", "%s",
			                 me.msg);
			return -1;
		}
		return 0;
	}
	if (!json_is_string(model))
		return wc_api_wrong_type(e, "/model", "a string", model);
	/* A precision suffix sets the weights, parsed first (docs/capacity.md, "Model names"). */
	const char *name = json_string_value(model);
	const json_t *w = json_object_get(obj, "weights");
	wc_error me;
	int rc = wc_model_name_apply(name, w && !json_is_null(w), &q->config, &me);
	if (rc == WC_ENOTFOUND)
		wc_api_unknown_model(e, name, "give its active_params_b beside it");
	else if (rc != WC_OK)
		wc_api_error_set(e, 422, "conflicting_fields", "/weights", "%s", me.msg);
	else
		r->arch = *wc_model_lookup(name);
	r->have_arch = rc == WC_OK;
	return rc == WC_OK ? 0 : -1;
}

/* "architecture": explicit facts, over the catalog model's when one was
 * named; without one they must describe the model completely. */
static int
parse_architecture(const json_t *obj, wc_inference_request *r, wc_api_error *e)
{
	static const char *const ints[] = { "layers", "kv_heads", "head_dim", "d_model", "attention_heads",
	                                    "experts", "experts_per_token", "cache_layers", "sliding_window", NULL };
	const json_t *a = json_object_get(obj, "architecture");
	const char *key;
	const json_t *v;
	if (!a)
		return 0;
	if (!json_is_object(a))
		return wc_api_wrong_type(e, "/architecture", "an object", a);
	wc_arch_facts f;
	wc_arch_facts_init(&f);
	json_object_foreach((json_t *)a, key, v) {
		char field[64] = "/architecture";
		wc_json_pointer_append(field, sizeof field, key);
		int i = 0;
		while (ints[i] && strcmp(ints[i], key) != 0)
			i++;
		if (ints[i]) {
			/* 5120.0 is the integer 5120, as tp's 2.0 (docs/http-api.md);
			 * 1.5 is not, and says so with its value */
			double x;
			if (wc_api_whole(e, field, v, &x) != 0)
				return -1;
			/* the CLI's range: a d_model of 0 over a catalog model
			 * erased its hidden size, and a prompt was then refused as
			 * missing it (docs/http-api.md, "Errors") */
			const int lo = wc_arch_fact_min(i);
			if (x < lo || x > WC_MODEL_MAX_ARCH_INT)
				return wc_api_invalid_json(e, field, v, x, "must be between %d and %d", lo, WC_MODEL_MAX_ARCH_INT);
			f.ints[i] = (long)x;
		} else if (strcmp(key, "total_params_b") == 0) {
			if (!json_is_number(v))
				return wc_api_wrong_type(e, field, "a number", v);
			if (!(json_number_value(v) > 0))
				return wc_api_invalid_json(e, field, v, json_number_value(v), "must be > 0");
			if (json_number_value(v) < WC_MODEL_MIN_PARAMS_B || json_number_value(v) > WC_MODEL_MAX_PARAMS_B)
				return wc_api_invalid_json(e, field, v, json_number_value(v), "must be between %g and %g B",
				                           WC_MODEL_MIN_PARAMS_B, WC_MODEL_MAX_PARAMS_B);
			f.total_params_b = json_number_value(v);
		} else {
			wc_api_error_set(e, 422, "unknown_field", field, "architecture: unknown field \"%.*s\" (layers, "
			                 "kv_heads, head_dim, d_model, attention_heads, total_params_b, experts, "
			                 "experts_per_token, cache_layers, sliding_window)",
			                 (int)wc_utf8_prefix(key, 32), key);
			return -1;
		}
	}
	wc_model_info_with_facts(r->have_arch ? &r->arch : NULL, r->q.config.model, r->q.config.active_params_b, &f,
	                         &r->arch);
	r->have_arch = 1;
	/* a fact never sent is missing, not 0 (docs/http-api.md, "Errors"):
	 * the three together, as the CLI's --layers --kv-heads --head-dim */
	int miss = wc_arch_facts_missing(&r->arch, &f);
	if (miss >= 0) {
		char field[64] = "/architecture";
		wc_json_pointer_append(field, sizeof field, ints[miss]);
		wc_api_error_set(e, 422, "missing_field", field,
		                 "architecture/%s: required: layers, kv_heads and head_dim are all needed for a model "
		                 "the catalog does not have", ints[miss]);
		return -1;
	}
	wc_error err;
	const int missing = wc_predict_moe_facts_check(&r->arch, &err) != WC_OK;
	if (missing || wc_arch_facts_shape_check(&r->arch, &f, &err) != WC_OK) {
		/* the message starts "architecture/<the fact>:" (or
		 * "active_params_b:", which set the shape's size) */
		char field[64];
		snprintf(field, sizeof field, "/%.*s", (int)strcspn(err.msg, ":"), err.msg);
		wc_api_error_set(e, 422, missing ? "missing_field" : "invalid_value", field, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* The capacity fields; the answer includes the capacity block when
 * output_tokens is given (input_tokens is then required too). */
static int
parse_capacity_fields(const json_t *obj, wc_inference_request *r, wc_api_error *e)
{
	wc_config *c = &r->q.config;
	int have_in = json_object_get(obj, "input_tokens") != NULL, have_out = json_object_get(obj, "output_tokens") != NULL;
	if (have_in != have_out) {
		wc_api_error_set(e, 422, "missing_field", have_in ? "/output_tokens" : "/input_tokens",
		                 "%s: required with %s", have_in ? "output_tokens" : "input_tokens",
		                 have_in ? "input_tokens" : "output_tokens");
		return -1;
	}
	/* a prompt of at least one token: vLLM serves no empty one (as a
	 * request log's input count, docs/formats/telemetry.md) */
	if (have_in && (get_number(obj, "input_tokens", 1, 1, &c->input_tokens, e) < 0 ||
	                get_number(obj, "output_tokens", 1, 1, &c->output_tokens, e) < 0))
		return -1;
	if (get_number(obj, "rate", 0, 0, &c->request_rate, e) < 0 ||
	    get_number(obj, "power_cap_w", 0, 0, &r->power_cap_w, e) < 0 ||
	    get_gmu(obj, &c->gpu_memory_utilization, e) < 0 ||
	    get_number(obj, "price_per_kwh", 0, 1, &r->price_per_kwh, e) < 0 ||
	    get_number(obj, "grams_co2_per_kwh", 0, 1, &r->grams_co2_per_kwh, e) < 0)
		return -1;
	/* the predictor's one rule, for every route that takes them: the
	 * flexibility sweep takes them too and uses neither (docs/http-api.md,
	 * "Limits") */
	wc_error err;
	if (wc_predict_money_check(r->price_per_kwh, r->grams_co2_per_kwh, &err) != WC_OK) {
		const int price = err.msg[0] == 'p'; /* the value as sent (docs/http-api.md, "Errors") */
		return wc_api_refused_value(e, price ? "/price_per_kwh" : "/grams_co2_per_kwh",
		                            json_object_get(obj, price ? "price_per_kwh" : "grams_co2_per_kwh"),
		                            price ? r->price_per_kwh : r->grams_co2_per_kwh, err.msg);
	}
	/* The capacity answers' limits (models/limits.h) are checked here,
	 * where the value is still the one sent: the predictor's own check
	 * printed it with %g, and 1000001 read "1e+06", the limit itself. */
	if (c->input_tokens > WC_CAPACITY_MAX_TOKENS)
		return wc_api_invalid_json(e, "/input_tokens", json_object_get(obj, "input_tokens"), c->input_tokens,
		                           "must be a number from 1 to %g", WC_CAPACITY_MAX_TOKENS);
	if (c->output_tokens > WC_CAPACITY_MAX_TOKENS)
		return wc_api_invalid_json(e, "/output_tokens", json_object_get(obj, "output_tokens"), c->output_tokens,
		                           "must be a number from 1 to %g", WC_CAPACITY_MAX_TOKENS);
	/* 0 is the absent rate; a positive one below the bound answered
	 * null energies. */
	if (c->request_rate > WC_CAPACITY_MAX_RATE || (c->request_rate > 0 && c->request_rate < WC_CAPACITY_MIN_RATE))
		return wc_api_invalid_json(e, "/rate", json_object_get(obj, "rate"), c->request_rate,
		                           "must be at least %g and at most %g requests/s", WC_CAPACITY_MIN_RATE,
		                           WC_CAPACITY_MAX_RATE);
	/* A power per GPU: above any board it is a typo or a unit slip, not
	 * a cap (docs/capacity.md, "Clocks and power caps"). */
	if (r->power_cap_w > WC_GPU_MAX_POWER_W)
		return wc_api_invalid_json(e, "/power_cap_w", json_object_get(obj, "power_cap_w"), r->power_cap_w,
		                           "must be at most %g W per GPU (above any GPU board)", WC_GPU_MAX_POWER_W);
	const json_t *ep = json_object_get(obj, "expert_parallel");
	if (ep && !json_is_boolean(ep))
		return wc_api_wrong_type(e, "/expert_parallel", "true or false", ep);
	c->expert_parallel = ep && json_is_true(ep);
	if (c->request_rate > 0 && !have_out) {
		wc_api_error_set(e, 422, "missing_field", "/output_tokens",
		                 "output_tokens: required with rate (the open loop needs the service time)");
		return -1;
	}
	r->want_capacity = have_out;
	if (r->want_capacity && !r->have_arch) {
		wc_api_error_set(e, 422, "missing_architecture", "/model",
		                 "model: the capacity answers need the architecture: give a catalog model name, or "
		                 "architecture {layers, kv_heads, head_dim, ...} with active_params_b");
		return -1;
	}
	/* a fact the answer needs and the request lacks: a missing field,
	 * as layers, kv_heads and head_dim are (docs/http-api.md, "Errors") */
	if (r->have_arch && wc_predict_prefill_facts_check(&r->arch, c->input_tokens, &err) != WC_OK) {
		wc_api_error_set(e, 422, "missing_field", "/architecture/attention_heads", "%s", err.msg);
		return -1;
	}
	return 0;
}

/* The time-weighted mean load the predictor takes from a series
 * (wc_load_histogram_build): samples within their bound (at most 10^6
 * of them, each at most WC_RUN_MAX_RUNNING, so their sum is finite) and
 * a finite dt_s can still overflow it, and the predictor would then
 * blame "running", a field the request does not contain. */
static int
series_mean_finite(const char *at, const double *s, size_t n, double dt_s, wc_api_error *e)
{
	char field[96];
	double sum_dt = 0.0, sum_w = 0.0;
	for (size_t i = 0; i < n; i++) {
		sum_dt += dt_s * s[i];
		sum_w += dt_s;
	}
	if (!isfinite(sum_dt) || !isfinite(sum_w)) {
		char got[32];
		snprintf(field, sizeof field, "%s/dt_s", at);
		wc_api_error_set(e, 422, "invalid_value", field,
		                 "%s: %s s over %zu samples overflows a double (mean load not finite)",
		                 field + 1, wc_api_num_text(got, dt_s), n);
		return -1;
	}
	return 0;
}

int
wc__api_series_parse(const json_t *obj, const char *at, double **series, size_t *len, double *dt_s,
                     wc_api_error *e)
{
	char field[96];
	const json_t *ser = json_object_get(obj, "running_series");
	const json_t *dt = json_object_get(obj, "dt_s");
	snprintf(field, sizeof field, "%s/running_series", at);
	if (!json_is_array(ser))
		return wc_api_wrong_type(e, field, "an array of numbers", ser);
	size_t n = json_array_size(ser);
	if (n == 0 || n > WC_SERIES_MAX) {
		wc_api_error_set(e, 422, "invalid_value", field, "%s: needs 1 to %d samples, got %zu", field + 1,
		                 WC_SERIES_MAX, n);
		return -1;
	}
	snprintf(field, sizeof field, "%s/dt_s", at);
	if (!dt) {
		wc_api_error_set(e, 422, "missing_field", field, "%s: required with running_series (seconds per "
		                 "sample)", field + 1);
		return -1;
	}
	if (!json_is_number(dt))
		return wc_api_wrong_type(e, field, "a number", dt);
	*dt_s = json_number_value(dt);
	if (!(*dt_s > 0))
		return wc_api_invalid_json(e, field, dt, *dt_s, "must be > 0");
	double *s = wc_alloc_array(n, sizeof *s);
	if (!s) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		return -1;
	}
	*series = s;
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(ser, i);
		snprintf(field, sizeof field, "%s/running_series/%zu", at, i);
		if (!json_is_number(v))
			return wc_api_wrong_type(e, field, "a number", v);
		s[i] = json_number_value(v);
		if (!(s[i] >= 0))
			return wc_api_invalid_json(e, field, v, s[i], "must be >= 0");
		/* a sample is a running count: the concurrency's bound (models/limits.h) */
		if (s[i] > WC_RUN_MAX_RUNNING)
			return wc_api_invalid_json(e, field, v, s[i], "must be at most %g requests at once",
			                           WC_RUN_MAX_RUNNING);
	}
	if (series_mean_finite(at, s, n, *dt_s, e) < 0)
		return -1;
	*len = n;
	return 0;
}

/* running_series (with dt_s) into a malloc'd array the caller frees. */
static int
parse_series(const json_t *obj, wc_inference_query *q, double **series, wc_api_error *e)
{
	size_t n = 0;
	if (wc__api_series_parse(obj, "", series, &n, &q->dt_s, e) < 0)
		return -1;
	q->running_series = *series;
	q->series_len = n;
	return 0;
}

static int
parse_load(const json_t *obj, wc_inference_query *q, double **series, wc_api_error *e)
{
	int open_loop = json_object_get(obj, "rate") != NULL;
	const json_t *conc = json_object_get(obj, "concurrency");
	const json_t *ser = json_object_get(obj, "running_series");
	const json_t *dt = json_object_get(obj, "dt_s");
	if (conc && ser) {
		wc_api_error_set(e, 422, "conflicting_fields", "/running_series",
		                 "running_series: give exactly one of concurrency and running_series");
		return -1;
	}
	/* a series is the load and so is an open loop's rate: two loads, as
	 * concurrency with a series (docs/http-api.md, "Errors"); the
	 * predictor's refusal said the rate was missing */
	if (open_loop && ser) {
		wc_api_error_set(e, 422, "conflicting_fields", "/running_series",
		                 "running_series: give at most one of rate and running_series (each is the load)");
		return -1;
	}
	if (!conc && !ser) {
		if (open_loop)
			return 0; /* the running count follows from the rate */
		wc_api_error_set(e, 422, "missing_field", "/concurrency",
		                 "concurrency: required (or give running_series with dt_s, or rate)");
		return -1;
	}
	if (conc) {
		if (dt) {
			wc_api_error_set(e, 422, "conflicting_fields", "/dt_s",
			                 "dt_s: only meaningful with running_series");
			return -1;
		}
		if (get_number(obj, "concurrency", 0, 1, &q->config.running, e) < 0)
			return -1;
		/* 0 is idle; a positive concurrency below the bound answered
		 * null energies; above it, one range whatever fields come with
		 * it (models/limits.h; docs/http-api.md, "Limits") */
		if (q->config.running > 0 && q->config.running < WC_CAPACITY_MIN_CONCURRENCY)
			return wc_api_invalid_json(e, "/concurrency", json_object_get(obj, "concurrency"), q->config.running,
			                           "must be 0 (idle) or at least %g requests at once",
			                           WC_CAPACITY_MIN_CONCURRENCY);
		if (q->config.running > WC_CAPACITY_MAX_CONCURRENCY)
			return wc_api_invalid_json(e, "/concurrency", json_object_get(obj, "concurrency"), q->config.running,
			                           "must be at most %g requests at once", WC_CAPACITY_MAX_CONCURRENCY);
		/* with rate it is the engine's limit on running requests (vLLM's
		 * max_num_seqs), a whole number: a limit of 0 runs nothing (not
		 * the absent limit it was taken for) and one of 0.5 was answered
		 * as half a request running (docs/http-api.md, "Limits") */
		double lim = q->config.running;
		if (json_number_value(json_object_get(obj, "rate")) > 0 && !(lim >= 1 && lim == floor(lim)))
			return wc_api_invalid_json(e, "/concurrency", json_object_get(obj, "concurrency"), lim,
			                           "with rate it is the engine's limit on running requests: a whole number "
			                           ">= 1, or leave it out for none");
		return 0;
	}
	return parse_series(obj, q, series, e);
}

/* A locked clock the board cannot run at is refused: the law would
 * extrapolate its clock factor far outside anything measured
 * (docs/http-api.md, "Limits"). The board is the level's, or the
 * catalog's for a platform answered from its datasheet (no level);
 * levels the catalog does not know keep only the > 0 check. */
static int
check_clock(const wc_params *p, const char *platform, const json_t *v, double mhz, wc_api_error *e)
{
	const wc_level *lvl = wc_params_level(p, platform);
	const wc_platform_info *pi = wc_platform_board(platform, lvl ? lvl->s_shared_with : NULL);
	if (wc_platform_clock_in_range(pi, mhz))
		return 0;
	double lo = pi->min_sm_clock_mhz > 0 ? pi->min_sm_clock_mhz : 0.0;
	char got[32];
	wc_api_error_set(e, 422, "invalid_value", "/sm_clock_mhz",
	                 "sm_clock_mhz: %s MHz is outside the %s's clock range %g-%g MHz "
	                 "(platform catalog)", wc_api_value_text(got, v, mhz), pi->name, lo, pi->max_sm_clock_mhz);
	return -1;
}

/* The configuration fields every route shares (wc_config_request_parse). */
static int
parse_config_fields(const json_t *item, const wc_state *st, wc_inference_request *r, wc_api_error *e)
{
	const wc_params *p = wc_predictor_params(st->pred);
	wc_inference_query *q = &r->q;
	const json_t *v = json_object_get(item, "platform");
	if (!v) {
		wc_api_error_set(e, 422, "missing_field", "/platform", "platform: required");
		return -1;
	}
	if (!json_is_string(v))
		return wc_api_wrong_type(e, "/platform", "a string", v);
	/* A platform the set has no level for is answered from its datasheet
	 * when the catalog knows it (docs/fitting.md), under its name. */
	if (!(q->config.platform = wc_params_platform(p, json_string_value(v)))) {
		char msg[WC_ERROR_MSG_MAX];
		wc_params_unknown_platform(p, "platform", '"', json_string_value(v), "GET /v1/platforms", msg);
		wc_api_error_set(e, 422, "unknown_platform", "/platform", "%s", msg);
		return -1;
	}
	if (parse_tp(item, q, e) < 0 || get_precision(item, "weights", 1, &q->config.weights, e) < 0 ||
	    parse_model(item, r, e) < 0 || parse_architecture(item, r, e) < 0 ||
	    get_precision(item, "kv_cache", 0, &q->config.kv, e) < 0)
		return -1;
	/* the serving stack: the answer names it, and warns another than the
	 * calibrated one (docs/capacity.md, "Serving stacks") */
	if ((v = json_object_get(item, "engine"))) {
		wc_error ee;
		if (!json_is_string(v))
			return wc_api_wrong_type(e, "/engine", "a string", v);
		if (wc_engine_parse(json_string_value(v), &q->config.engine, &ee) != WC_OK) {
			wc_api_error_set(e, 422, "invalid_value", "/engine", "%s", ee.msg);
			return -1;
		}
	}
	v = json_object_get(item, "sm_clock_mhz");
	if (v && !json_is_null(v) &&
	    (get_number(item, "sm_clock_mhz", 0, 0, &q->config.sm_clock_mhz, e) < 0 ||
	     check_clock(p, q->config.platform, v, q->config.sm_clock_mhz, e) < 0))
		return -1;
	return 0;
}

int
wc_inference_request_parse(const json_t *item, const wc_state *st, wc_inference_request *r,
                           wc_api_error *e)
{
	wc_inference_query *q = &r->q;

	memset(r, 0, sizeof *r);
	r->price_per_kwh = r->grams_co2_per_kwh = NAN;
	q->config = (wc_config)WC_CONFIG_INIT;
	q->want_interval = 1;
	q->prefill_profile = st->prefill_profile;
	if (!json_is_object(item)) {
		wc_api_error_set(e, 422, "wrong_type", "", "expected a JSON object, got %s",
		                 wc_json_type_name(item));
		return -1;
	}
	/* A sweep's fields are named, not called unknown: the flexibility
	 * route takes them out before it parses the rest here. */
	static const char *const sweep_fields[] = { "steps", "sweep" };
	for (size_t i = 0; i < sizeof sweep_fields / sizeof sweep_fields[0]; i++)
		if (json_object_get(item, sweep_fields[i])) {
			char field[16];
			snprintf(field, sizeof field, "/%s", sweep_fields[i]);
			wc_api_error_set(e, 422, "unknown_field", field, "%s belongs to POST /v1/predict/flexibility (a "
			                 "sweep of clocks or power caps), not this route", sweep_fields[i]);
			return -1;
		}
	if (wc_api_check_fields(item, "", known_fields, NULL, e) < 0)
		return -1;

	if (parse_config_fields(item, st, r, e) < 0 || parse_load(item, q, &r->series, e) < 0 ||
	    parse_capacity_fields(item, r, e) < 0)
		return -1;
	if (r->have_arch)
		q->config.arch = &r->arch;
	return 0;
}

int
wc_config_request_parse(const json_t *item, const wc_state *st, wc_config *c, wc_api_error *e)
{
	/* The request lives on the heap: CivetWeb's worker stacks are small. */
	wc_inference_request *r = calloc(1, sizeof *r);
	if (!r) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		return -1;
	}
	r->q.config = *c;
	int rc = parse_config_fields(item, st, r, e);
	if (rc == 0) {
		*c = r->q.config;
		/* Catalog entries are static; r->arch (with explicit facts) is not. */
		c->arch = c->model ? wc_model_lookup(c->model) : NULL;
	}
	free(r);
	return rc;
}

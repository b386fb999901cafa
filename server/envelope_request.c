/*
 * Envelope and budget requests (docs/http-api.md): one JSON object into a
 * configuration, a workload and simulation options, strictly -- unknown
 * fields, wrong types and values out of range are 422 with the JSON
 * pointer of the field. The work bound (413) is charged by the route
 * (route_envelope.c) once the power map is bound.
 */
#include "requests_internal.h"

#include "data/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/limits.h"

static int
fail(wc_api_error *e, int status, const char *code, const char *field, const char *msg)
{
	wc_api_error_set(e, status, code, field, "%s: %s", field + 1, msg);
	return -1;
}

static int
number(const json_t *obj, const char *at, const char *name, double lo, int open, double hi, double *out,
       wc_api_error *e)
{
	return wc_api_bounded(obj, at, name, 0, lo, open, hi, out, e);
}

static int
integer(const json_t *obj, const char *at, const char *name, double lo, double hi, double *out,
        wc_api_error *e)
{
	return wc_api_bounded(obj, at, name, 1, lo, 0, hi, out, e);
}

/* An array of 1..max numbers in [lo, hi] (null entries: NaN when
 * `nullable`, else refused); malloc'd into *out. */
static int
numbers(const json_t *v, const char *field, size_t max, double lo, double hi, int nullable, double **out,
        size_t *n, wc_api_error *e)
{
	if (!json_is_array(v))
		return wc_api_wrong_type(e, field, "an array of numbers", v);
	size_t m = json_array_size(v);
	if (m == 0 || m > max) {
		wc_api_error_set(e, 422, "invalid_value", field, "%s: needs 1 to %zu values, got %zu", field + 1, max, m);
		return -1;
	}
	double *a = wc_alloc_array(m, sizeof *a);
	if (!a) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		return -1;
	}
	*out = a;
	for (size_t i = 0; i < m; i++) {
		const json_t *x = json_array_get(v, i);
		char f[sizeof e->field];
		snprintf(f, sizeof f, "%s/%zu", field, i);
		if (nullable && json_is_null(x)) {
			a[i] = NAN;
			continue;
		}
		if (!json_is_number(x))
			return wc_api_wrong_type(e, f, nullable ? "a number or null" : "a number", x);
		a[i] = json_number_value(x);
		if (!(a[i] >= lo && a[i] <= hi))
			return wc_api_invalid_json(e, f, x, a[i], "must be between %g and %g", lo, hi);
	}
	*n = m;
	return 0;
}

void
wc_envelope_request_free(wc_envelope_request *r)
{
	free(r->arrival_s);
	free(r->arrival_in);
	free(r->arrival_out);
	free(r->series);
	free(r->in_values);
	free(r->out_values);
	free(r->profile_until);
	free(r->profile_rate);
	memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ lengths */

static int
length(const json_t *w, const char *name, wc_length_dist *d, double **values, wc_api_error *e)
{
	char field[64];
	const json_t *v = json_object_get(w, name);
	snprintf(field, sizeof field, "/workload/%s", name);
	if (!v)
		return 0;
	if (json_is_number(v)) {
		d->kind = WC_LENGTH_FIXED;
		d->mean = json_number_value(v);
		/* The bound as the array form states it, and the value as sent
		 * (docs/http-api.md, "Envelopes"): a length past the maximum is
		 * not one "below 1". */
		if (!(d->mean >= 1 && d->mean <= WC_ENVELOPE_MAX_TOKENS))
			return wc_api_invalid_json(e, field, v, d->mean, "must be a number of tokens between 1 and %g",
			                           WC_ENVELOPE_MAX_TOKENS);
		return 0;
	}
	if (json_is_array(v)) {
		d->kind = WC_LENGTH_EMPIRICAL;
		return numbers(v, field, WC_SERIES_MAX, 1, WC_ENVELOPE_MAX_TOKENS, 0, values, &d->n_values, e) < 0
		       ? -1 : (d->values = *values, 0);
	}
	if (!json_is_object(v))
		return wc_api_wrong_type(e, field, "a number, {\"mean\", \"sd\"} or an array of lengths", v);
	static const char *const keys[] = { "mean", "sd", NULL };
	if (wc_api_check_fields(v, field, keys, NULL, e) < 0)
		return -1;
	d->kind = WC_LENGTH_LOGNORMAL;
	int rm = number(v, field, "mean", 1, 0, WC_ENVELOPE_MAX_TOKENS, &d->mean, e);
	int rs = rm < 0 ? -1 : number(v, field, "sd", 0, 0, wc_envelope_length_max_sd(WC_ENVELOPE_MAX_TOKENS), &d->sd, e);
	if (rm < 0 || rs < 0)
		return -1;
	char f[80];
	if (rm == 1 || rs == 1) {
		snprintf(f, sizeof f, "%s/%s", field, rm == 1 ? "mean" : "sd");
		return fail(e, 422, "missing_field", f, "required for a lognormal length");
	}
	/* the library's bound on sd given the mean (wc_envelope_length_max_sd),
	 * said of sd itself with the value as sent (docs/http-api.md,
	 * "Envelopes"); the library's own refusal named only the length */
	if (d->sd > wc_envelope_length_max_sd(d->mean)) {
		snprintf(f, sizeof f, "%s/sd", field);
		return wc_api_invalid_json(e, f, json_object_get(v, "sd"), d->sd, "must be at most %g times the mean, %s",
		                           WC_ENVELOPE_MAX_LENGTH_CV, WC_NUM_TEXT(wc_envelope_length_max_sd(d->mean)));
	}
	return 0;
}

/* ---------------------------------------------------------- workload */

/* Which fields each workload type takes (besides `type`). */
static const char *const closed_keys[] = { "type", "concurrency", "think_s", "input_tokens", "output_tokens", NULL };
static const char *const open_keys[] = { "type", "rate", "burstiness", "rate_profile", "input_tokens",
	                                 "output_tokens", NULL };
static const char *const replay_keys[] = { "type", "arrivals", "input_tokens", "output_tokens", NULL };
static const char *const series_keys[] = { "type", "running_series", "dt_s", NULL };

static int
rate_profile(const json_t *w, wc_envelope_request *r, wc_api_error *e)
{
	const json_t *p = json_object_get(w, "rate_profile"), *step;
	size_t i, n = json_array_size(p);
	if (!json_is_array(p))
		return wc_api_wrong_type(e, "/workload/rate_profile", "an array of {\"until_s\", \"rate\"}", p);
	if (n == 0 || n > 1000)
		return fail(e, 422, "invalid_value", "/workload/rate_profile", "needs 1 to 1000 steps");
	r->profile_until = wc_alloc_array(n, sizeof(double));
	r->profile_rate = wc_alloc_array(n, sizeof(double));
	if (!r->profile_until || !r->profile_rate)
		return fail(e, 500, "internal", "/workload", "out of memory");
	json_array_foreach(p, i, step) {
		static const char *const keys[] = { "until_s", "rate", NULL };
		char at[64];
		snprintf(at, sizeof at, "/workload/rate_profile/%zu", i);
		if (!json_is_object(step))
			return wc_api_wrong_type(e, at, "an object {\"until_s\", \"rate\"}", step);
		if (wc_api_check_fields(step, at, keys, NULL, e) < 0)
			return -1;
		int ru = number(step, at, "until_s", 0, 1, WC_ENVELOPE_MAX_HORIZON_S, &r->profile_until[i], e);
		int rr = ru < 0 ? -1 : number(step, at, "rate", 0, 0, 1e6, &r->profile_rate[i], e);
		if (ru < 0 || rr < 0)
			return -1;
		if (ru == 1 || rr == 1) {
			snprintf(at + strlen(at), sizeof at - strlen(at), "/%s", ru == 1 ? "until_s" : "rate");
			return fail(e, 422, "missing_field", at, "required in every step");
		}
		if (i > 0 && !(r->profile_until[i] > r->profile_until[i - 1])) {
			snprintf(at + strlen(at), sizeof at - strlen(at), "/until_s");
			return fail(e, 422, "invalid_value", at, "must increase from step to step");
		}
	}
	r->w.n_profile = n;
	r->w.profile_until_s = r->profile_until;
	r->w.profile_rate = r->profile_rate;
	return 0;
}

/* A replayed log's token counts by the one rule every reader of a log
 * applies (wc_request_log_check_token), with the counts the CLI's
 * --replay takes: 12.5 is no count of a request, refused here as the CLI
 * refuses it in requests.json (docs/http-api.md, "Envelopes"); null is
 * a missing count, drawn from the lengths. */
static int
token_counts(const double *v, size_t n, int input, const char *field, wc_api_error *e)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	char why[120];
	opt.max_tokens = WC_ENVELOPE_MAX_TOKENS;
	opt.min_input_tokens = WC_ENVELOPE_MIN_INPUT_TOKENS;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]) && !wc_request_log_check_token(&opt, input, v[i], why, sizeof why)) {
			char f[sizeof e->field];
			snprintf(f, sizeof f, "%s/%zu", field, i);
			wc_api_error_set(e, 422, "invalid_value", f, "%s: %s", f + 1, why);
			return -1;
		}
	return 0;
}

static int
arrivals(const json_t *w, wc_envelope_request *r, wc_api_error *e)
{
	static const char *const keys[] = { "t_s", "input_tokens", "output_tokens", NULL };
	const json_t *a = json_object_get(w, "arrivals");
	size_t n = 0, m;
	if (!a)
		return fail(e, 422, "missing_field", "/workload/arrivals", "required for a replay");
	if (!json_is_object(a))
		return wc_api_wrong_type(e, "/workload/arrivals", "an object {\"t_s\", \"input_tokens\", \"output_tokens\"}", a);
	if (wc_api_check_fields(a, "/workload/arrivals", keys, NULL, e) < 0)
		return -1;
	const json_t *t = json_object_get(a, "t_s");
	if (!t)
		return fail(e, 422, "missing_field", "/workload/arrivals/t_s", "required (arrival times, s)");
	if (json_is_array(t) && json_array_size(t) == 0)
		return fail(e, 422, "invalid_value", "/workload/arrivals/t_s", "empty replay log (no request to replay)");
	if (numbers(t, "/workload/arrivals/t_s", WC_SERIES_MAX, 0, WC_ENVELOPE_MAX_HORIZON_S, 0, &r->arrival_s, &n, e) < 0)
		return -1;
	for (size_t i = 1; i < n; i++)
		if (r->arrival_s[i] < r->arrival_s[i - 1]) {
			char f[64];
			snprintf(f, sizeof f, "/workload/arrivals/t_s/%zu", i);
			return fail(e, 422, "invalid_value", f, "arrival times must not decrease");
		}
	double **dst[2] = { &r->arrival_in, &r->arrival_out };
	for (int j = 0; j < 2; j++) {
		const json_t *v = json_object_get(a, keys[j + 1]);
		char f[64];
		snprintf(f, sizeof f, "/workload/arrivals/%s", keys[j + 1]);
		/* 0 output tokens: a request that ended at its prefill, as the CLI
		 * replays it (docs/envelopes.md, "Workloads") */
		if (v && numbers(v, f, WC_SERIES_MAX, j ? 0 : WC_ENVELOPE_MIN_INPUT_TOKENS, WC_ENVELOPE_MAX_TOKENS, 1,
		                 dst[j], &m, e) < 0)
			return -1;
		if (v && m != n)
			return fail(e, 422, "invalid_value", f, "needs one value (or null) per arrival");
		if (v && token_counts(*dst[j], m, !j, f, e) < 0)
			return -1;
	}
	r->w.n_arrivals = n;
	r->w.arrival_s = r->arrival_s;
	r->w.arrival_input = r->arrival_in;
	r->w.arrival_output = r->arrival_out;
	return 0;
}

static int
series(const json_t *w, wc_envelope_request *r, wc_api_error *e)
{
	const json_t *s = json_object_get(w, "running_series");
	if (!s)
		return fail(e, 422, "missing_field", "/workload/running_series", "required for an n(t) workload");
	if (numbers(s, "/workload/running_series", WC_SERIES_MAX, 0, WC_ENVELOPE_MAX_RUNNING, 0, &r->series,
	            &r->w.series_len, e) < 0)
		return -1;
	r->w.series_running = r->series;
	return number(w, "/workload", "dt_s", 0, 1, 3600, &r->w.series_dt_s, e) < 0 ? -1 : 0;
}

static int
by_type(const json_t *w, wc_envelope_request *r, wc_api_error *e)
{
	double x;
	int rc;
	switch (r->w.kind) {
	case WC_ENVELOPE_CLOSED:
		if ((rc = integer(w, "/workload", "concurrency", 1, WC_ENVELOPE_MAX_RUNNING, &r->w.concurrency, e)) == 1)
			return fail(e, 422, "missing_field", "/workload/concurrency", "required for a closed loop");
		return rc < 0 || number(w, "/workload", "think_s", 0, 0, 86400, &r->w.think_s, e) < 0 ? -1 : 0;
	case WC_ENVELOPE_POISSON:
	case WC_ENVELOPE_BURSTY:
		if (json_object_get(w, "rate") && json_object_get(w, "rate_profile"))
			return fail(e, 422, "conflicting_fields", "/workload/rate_profile", "give one of rate and rate_profile");
		if (json_object_get(w, "burstiness") && r->w.kind != WC_ENVELOPE_BURSTY)
			return fail(e, 422, "conflicting_fields", "/workload/burstiness", "only for a bursty workload");
		if (json_object_get(w, "rate_profile"))
			rc = rate_profile(w, r, e);
		else if ((rc = number(w, "/workload", "rate", 0, 1, 1e6, &r->w.rate, e)) == 1)
			return fail(e, 422, "missing_field", "/workload/rate", "required (requests/s), or give rate_profile");
		if (rc < 0)
			return -1;
		rc = number(w, "/workload", "burstiness", WC_ENVELOPE_MIN_BURSTINESS, 0, WC_ENVELOPE_MAX_BURSTINESS, &x, e);
		if (rc == 0)
			r->w.burstiness = x;
		return rc < 0 ? -1 : 0;
	case WC_ENVELOPE_REPLAY:
		return arrivals(w, r, e);
	default:
		return series(w, r, e);
	}
}

static int
workload(const json_t *body, wc_envelope_request *r, wc_api_error *e)
{
	const json_t *w = json_object_get(body, "workload"), *t;
	if (!w)
		return fail(e, 422, "missing_field", "/workload", "required (type and load)");
	if (!json_is_object(w))
		return wc_api_wrong_type(e, "/workload", "an object", w);
	if (!(t = json_object_get(w, "type")))
		return fail(e, 422, "missing_field", "/workload/type", "required: closed, poisson, bursty, replay or n_series");
	if (!json_is_string(t))
		return wc_api_wrong_type(e, "/workload/type", "a string", t);
	if (wc_envelope_kind_from_name(json_string_value(t), &r->w.kind) != WC_OK)
		return fail(e, 422, "invalid_value", "/workload/type", "expected closed, poisson, bursty, replay or n_series");
	static const char *const all_keys[] = { "type", "concurrency", "think_s", "rate", "burstiness",
		                                "rate_profile", "input_tokens", "output_tokens", "arrivals",
		                                "running_series", "dt_s", NULL };
	const char *const *keys = r->w.kind == WC_ENVELOPE_CLOSED ? closed_keys
	                        : r->w.kind == WC_ENVELOPE_REPLAY ? replay_keys
	                        : r->w.kind == WC_ENVELOPE_SERIES ? series_keys : open_keys;
	if (wc_api_check_fields(w, "/workload", all_keys, NULL, e) < 0)
		return -1;
	if (wc_api_check_fields(w, "/workload", keys, NULL, e) < 0) {
		char field[sizeof e->field];
		snprintf(field, sizeof field, "%s", e->field);
		wc_api_error_set(e, 422, "conflicting_fields", field, "%s: not a field of a %s workload",
		                 field + 1, json_string_value(t));
		return -1;
	}
	if (by_type(w, r, e) < 0 || length(w, "input_tokens", &r->w.input, &r->in_values, e) < 0 ||
	    length(w, "output_tokens", &r->w.output, &r->out_values, e) < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------- the request */

static const char *const common_keys[] = {
	"platform", "tp", "model", "active_params_b", "weights", "kv_cache", "sm_clock_mhz", "idle_power_w",
	"workload", "max_running", "horizon_s", "warmup_s", "seed", "response", "profile", "service", "engine", NULL,
};
/* A plan judges the aggregate on budget_bin_s means and computes no band
 * or trace metrics: bin_s and sample_s are an envelope's alone, unknown to
 * the plan rather than dropped unsaid (the CLI refuses --bin and --sample
 * with --budget alike). */
static const char *const envelope_keys[] = { "replicas", "bin_s", "sample_s", "fleet", "include_bins", NULL };
static const char *const budget_keys[] = { "budget_w", "stat", "max_fleet", "fleet_mode", "budget_bin_s", NULL };

/* A default bin (1 s) longer than a short horizon the client may ask for
 * (down to one 50 ms grid step) fits it, and a default cadence samples it
 * twice where it can (`within`); a value the client gave is checked as
 * given. */
static void
default_within(const json_t *body, const char *key, double horizon_s, double (*within)(double, double),
               double *bin_s)
{
	if (!json_object_get(body, key))
		*bin_s = within(*bin_s, horizon_s);
}

static int
known_top(const json_t *body, int budget, wc_api_error *e)
{
	return wc_api_check_fields(body, "", common_keys, budget ? budget_keys : envelope_keys, e);
}

static int
response(const json_t *body, const wc_state *st, wc_envelope_request *r, wc_api_error *e)
{
	static const char *const keys[] = { "tau_s", "hold_s", "decay_s", "prefill_ratio", NULL };
	const json_t *v = json_object_get(body, "response");
	wc_response_effective(&wc_predictor_params(st->pred)->response, &r->resp);
	r->resp_source = wc_predictor_params(st->pred)->response.present &&
	                 wc_predictor_params(st->pred)->response.fitted ? "fitted" : "assumed";
	r->resp.tau_s.value = wc_response_tau_for(&r->resp, r->c.platform);
	/* the hold neither fitted nor given: one that moves mean_w is said
	 * (docs/envelopes.md, "Assumed response") */
	r->o.hold_assumed = !(wc_predictor_params(st->pred)->response.present &&
	                      wc_predictor_params(st->pred)->response.fitted) && !json_object_get(v, "hold_s");
	if (!v)
		return 0;
	if (!json_is_object(v))
		return wc_api_wrong_type(e, "/response", "an object", v);
	if (wc_api_check_fields(v, "/response", keys, NULL, e) < 0 ||
	    number(v, "/response", "tau_s", 0, 0, WC_RESPONSE_MAX_TAU_S, &r->resp.tau_s.value, e) < 0 ||
	    number(v, "/response", "hold_s", 0, 0, WC_RESPONSE_MAX_HOLD_S, &r->resp.hold_s.value, e) < 0 ||
	    number(v, "/response", "decay_s", 0, 0, WC_RESPONSE_MAX_DECAY_S, &r->resp.decay_s.value, e) < 0 ||
	    number(v, "/response", "prefill_ratio", 0, 0, WC_RESPONSE_MAX_PREFILL_RATIO,
	           &r->resp.prefill_ratio.value, e) < 0)
		return -1;
	if (json_object_size(v) > 0)
		r->resp_source = "request";
	return 0;
}

/* "service": which service times (absent = auto). The profile is chosen
 * by the route (wc_profiles_select) before the body is parsed. */
static int
service(const json_t *body, wc_envelope_request *r, wc_api_error *e)
{
	const json_t *v = json_object_get(body, "service");
	r->service = WC_SERVICE_AUTO;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return wc_api_wrong_type(e, "/service", "\"auto\", \"capacity\" or \"standin\"", v);
	if (wc_service_choice_from_name(json_string_value(v), &r->service) != WC_OK)
		return fail(e, 422, "invalid_value", "/service", "expected \"auto\", \"capacity\" or \"standin\"");
	return 0;
}

static int
options(const json_t *body, wc_envelope_request *r, wc_api_error *e)
{
	wc_envelope_options *o = &r->o;
	double x;
	if (integer(body, "", "max_running", 1, WC_ENVELOPE_MAX_RUNNING, &x, e) < 0)
		return -1;
	o->max_running = json_object_get(body, "max_running") ? (int)x : o->max_running;
	if (number(body, "", "horizon_s", WC_ENVELOPE_GRID_S, 0, WC_HTTP_MAX_HORIZON_S, &o->horizon_s, e) < 0 ||
	    number(body, "", "warmup_s", 0, 0, WC_HTTP_MAX_HORIZON_S, &o->warmup_s, e) < 0 ||
	    number(body, "", "sample_s", WC_ENVELOPE_GRID_S, 0, 60, &o->sample_s, e) < 0)
		return -1;
	/* the envelope's own bin_s is read later */
	default_within(body, "bin_s", o->horizon_s, wc_envelope_bin_within, &o->bin_s);
	default_within(body, "sample_s", o->horizon_s, wc_envelope_sample_within, &o->sample_s);
	if (wc_api_seed(body, "seed", &o->seed, e) < 0)
		return -1;
	o->tau_s = r->resp.tau_s.value;
	o->hold_s = r->resp.hold_s.value;
	o->decay_s = r->resp.decay_s.value;
	return 0;
}

/* The fleet mode at `key` of `obj` (absent: unchanged). */
static int
fleet_mode(const json_t *obj, const char *key, const char *field, wc_envelope_request *r, wc_api_error *e)
{
	static const char want[] = "\"independent\", \"round_robin\" or \"least_loaded\"";
	const json_t *m = json_object_get(obj, key);
	if (!m)
		return 0;
	if (!json_is_string(m))
		return wc_api_wrong_type(e, field, want, m);
	const char *got = json_string_value(m);
	if (wc_fleet_mode_from_name(got, &r->o.fleet_mode) != WC_OK) {
		/* the value quoted, as every other enum's refusal (request.c) */
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected %s, got \"%.*s\"", field + 1, want,
		                 (int)wc_utf8_prefix(got, 40), got);
		return -1;
	}
	return 0;
}

static int
envelope_fields(const json_t *body, wc_envelope_request *r, wc_api_error *e)
{
	static const char *const fleet_keys[] = { "size", "mode", NULL };
	double x;
	int rc;
	if ((rc = integer(body, "", "replicas", 1, WC_HTTP_MAX_REPLICAS, &x, e)) < 0)
		return -1;
	if (rc == 0)
		r->o.replicas = (int)x;
	if (number(body, "", "bin_s", WC_ENVELOPE_GRID_S, 0, WC_HTTP_MAX_HORIZON_S, &r->o.bin_s, e) < 0)
		return -1;
	const json_t *b = json_object_get(body, "include_bins");
	if (b && !json_is_boolean(b))
		return wc_api_wrong_type(e, "/include_bins", "true or false", b);
	r->include_bins = !b || json_is_true(b);
	const json_t *f = json_object_get(body, "fleet");
	if (!f)
		return 0;
	if (!json_is_object(f))
		return wc_api_wrong_type(e, "/fleet", "an object {\"size\", \"mode\"}", f);
	if (wc_api_check_fields(f, "/fleet", fleet_keys, NULL, e) < 0 ||
	    (rc = integer(f, "/fleet", "size", 1, WC_HTTP_MAX_FLEET, &x, e)) < 0)
		return -1;
	if (rc == 1)
		return fail(e, 422, "missing_field", "/fleet/size", "required (servers in the fleet)");
	r->o.fleet_size = (int)x;
	return fleet_mode(f, "mode", "/fleet/mode", r, e);
}

static int
budget_fields(const json_t *body, wc_envelope_request *r, wc_api_error *e)
{
	double x;
	int rc;
	r->bo = (wc_budget_options){ 0, WC_BUDGET_P95, 1000, 1.0 };
	if ((rc = number(body, "", "budget_w", 0, 1, WC_BUDGET_MAX_W, &r->bo.budget_w, e)) < 0)
		return -1;
	if (rc == 1)
		return fail(e, 422, "missing_field", "/budget_w", "required (the feed's limit, W)");
	const json_t *s = json_object_get(body, "stat");
	if (s && (!json_is_string(s) || (strcmp(json_string_value(s), "p95") && strcmp(json_string_value(s), "max"))))
		return fail(e, 422, json_is_string(s) ? "invalid_value" : "wrong_type", "/stat", "expected \"p95\" or \"max\"");
	r->bo.stat = s && strcmp(json_string_value(s), "max") == 0 ? WC_BUDGET_MAX : WC_BUDGET_P95;
	if ((rc = integer(body, "", "max_fleet", 1, WC_HTTP_MAX_PLAN_FLEET, &x, e)) < 0)
		return -1;
	if (rc == 0)
		r->bo.max_fleet = (int)x;
	if (number(body, "", "budget_bin_s", WC_ENVELOPE_GRID_S, 0, WC_HTTP_MAX_HORIZON_S, &r->bo.bin_s, e) < 0)
		return -1;
	default_within(body, "budget_bin_s", r->o.horizon_s, wc_envelope_bin_within, &r->bo.bin_s);
	return fleet_mode(body, "fleet_mode", "/fleet_mode", r, e);
}

/* A field the run would not use -- max_running or service with an
 * explicit n(t), a fleet's mode on one server -- refused by the library's
 * rule, the CLI's flags' too, rather than dropped unsaid
 * (docs/http-api.md, "POST /v1/forecast/envelope"). */
static int
unused_fields(const json_t *body, const wc_envelope_request *r, int budget, wc_api_error *e)
{
	static const char *const fields[][3] = {
		{ "max_running", "/max_running", "does not apply to an n_series workload" },
		{ "service", "/service", "does not apply to an n_series workload" },
		{ "fleet_mode", "/fleet/mode", "applies to a fleet of size > 1" },
	};
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
		/* "auto" is the default, which the planner page always sends */
		const json_t *v = k == 2 ? json_object_get(json_object_get(body, "fleet"), "mode")
		                : k == 1 && r->service == WC_SERVICE_AUTO ? NULL : json_object_get(body, fields[k][0]);
		const char *why = v ? wc_envelope_option_unused(fields[k][0], r->w.kind, budget, r->o.fleet_size) : NULL;
		if (why) {
			wc_api_error_set(e, 422, "conflicting_fields", fields[k][1], "%s: %s (%s)", fields[k][1] + 1,
			                 fields[k][2], why);
			return -1;
		}
	}
	return 0;
}

int
wc_envelope_request_parse(const json_t *body, const wc_state *st, int budget, wc_envelope_request *r,
                          wc_api_error *e)
{
	wc_error err;
	memset(r, 0, sizeof *r);
	r->c = (wc_config)WC_CONFIG_INIT;
	wc_envelope_workload_init(&r->w);
	wc_envelope_options_init(&r->o);
	r->o.threads = 2;
	if (!json_is_object(body)) {
		wc_api_error_set(e, 422, "wrong_type", "", "expected a JSON object, got %s", wc_json_type_name(body));
		return -1;
	}
	/* idle_power_w: a number > 0 up to any board's bound here, then held
	 * to 1 W and the board's limit when the configuration binds
	 * (wc_params_check_idle, docs/http-api.md "POST /v1/forecast/envelope") */
	if (known_top(body, budget, e) < 0 || wc_config_request_parse(body, st, &r->c, e) < 0 ||
	    number(body, "", "idle_power_w", 0, 1, WC_GPU_MAX_POWER_W, &r->c.idle_power_w, e) < 0 ||
	    workload(body, r, e) < 0 || response(body, st, r, e) < 0 || service(body, r, e) < 0 ||
	    options(body, r, e) < 0 ||
	    (budget ? budget_fields(body, r, e) : envelope_fields(body, r, e)) < 0 ||
	    unused_fields(body, r, budget, e) < 0)
		return -1;
	/* a replay is the requests it replays, before the horizon's end: its
	 * lengths, limits and checks are theirs (docs/envelopes.md, "Engine") */
	wc_envelope_workload_window(&r->w, r->o.horizon_s);
	/* the fleet's rule before any work bound: no max_fleet makes it valid */
	if (wc_envelope_workload_check(&r->w, &err) != WC_OK || wc_envelope_options_check(&r->o, &err) != WC_OK ||
	    (budget && wc_envelope_budget_check(&r->bo, &r->o, &err) != WC_OK) ||
	    wc_envelope_fleet_check(&r->w, &r->o, budget, &err) != WC_OK) {
		wc_envelope_library_error(&err, budget, e);
		return -1;
	}
	return 0;
}

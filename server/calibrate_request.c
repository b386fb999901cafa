/*
 * The body of POST /v1/calibrate (docs/http-api.md) read and checked into
 * the calibration's inputs: a runs table and the options. The route reads
 * it to refuse a bad body with the field at fault before anything runs;
 * the worker process that estimates (`wattcast calibrate --http-worker`,
 * cli/calibrate_worker.c) reads the same body through
 * wc_calibrate_request_read, so both see the very same doubles.
 *
 * Body: {"runs": [row, ...] (1..WC_SERVER_CALIBRATE_MAX_RUNS), "scope",
 * "profile" (the base; default the first), "model", "platform",
 * "idle_power_w", "run_scatter", "bootstrap", "seed", "name"}; a row has
 * the runs-table columns platform, tp, model, active_params_b (or a
 * catalog model), running and/or running_series + dt_s (the n(t) series a
 * table's n_series names), mean_power_w, idle_power_w, weights, kv_cache,
 * sm_clock_mhz, run_id.
 */
#include "requests_internal.h"
#include "models/limits.h"

#include "data/data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const body_fields[] = { "runs", "scope", "profile", "model", "platform",
	"idle_power_w", "run_scatter", "bootstrap", "seed", "name", "relative_to", NULL };
static const char *const row_fields[] = { "run_id", "platform", "tp", "model", "active_params_b",
	"running", "running_series", "dt_s", "mean_power_w", "idle_power_w", "weights", "kv_cache",
	"sm_clock_mhz", NULL };

static int
unknown_key(const json_t *obj, const char *const *known, const char *prefix, wc_api_error *e)
{
	return wc_api_check_fields(obj, prefix, known, NULL, e);
}

/* A number field of row `i` (absent: `*out` unchanged, 1). */
static int
row_number(const json_t *row, size_t i, const char *name, double min, int required, double *out,
           wc_api_error *e)
{
	char field[64];
	const json_t *v = json_object_get(row, name);
	snprintf(field, sizeof field, "/runs/%zu/%s", i, name);
	if (!v || json_is_null(v)) {
		if (required)
			wc_api_error_set(e, 422, "missing_field", field, "runs/%zu/%s: required%s", i, name,
			                 strcmp(name, "mean_power_w") == 0
			                         ? " (the measured mean power of the group, W): calibration needs measured runs"
			                 : strcmp(name, "running") == 0 ? " (or running_series with dt_s: the run's n(t))" : "");
		return required ? -1 : 1;
	}
	if (!json_is_number(v)) {
		wc_api_error_set(e, 422, "wrong_type", field, "runs/%zu/%s: expected a number, got %s", i, name,
		                 wc_json_type_name(v));
		return -1;
	}
	*out = json_number_value(v);
	/* A zero minimum is exclusive (a power, a clock) except for the
	 * running count; any other minimum (tp >= 1) is inclusive. The
	 * message states the rule that was applied. */
	int exclusive = min == 0 && strcmp(name, "running") != 0;
	if (!(*out >= min) || (exclusive && *out == min)) {
		wc_api_error_set(e, 422, "invalid_value", field, "runs/%zu/%s: must be %s %g, got %s", i, name,
		                 exclusive ? ">" : ">=", min, wc_api_value_text((char[32]){ 0 }, v, *out));
		return -1;
	}
	return 0;
}

/* A string of 1 to cap - 1 bytes at `field`: another type is
 * wrong_type, a string that is empty or too long a wrong value of the
 * right type, invalid_value (docs/http-api.md, "Errors"). Each is a name
 * the calibrated set may hold (a level, a model's term, the set's label,
 * the default label built from the platform), which is printed on one
 * line: a control character is refused here, before the worker runs, as
 * the set's label is (wc_text_control_at; docs/formats/params-file.md). */
static int
text_value(const json_t *v, const char *field, size_t cap, wc_api_error *e)
{
	if (!json_is_string(v))
		return wc_api_wrong_type(e, field, "a string", v);
	size_t n = json_string_length(v), at = n < cap ? wc_text_control_at(json_string_value(v)) : 0;
	if (n > 0 && n < cap && at == 0)
		return 0;
	if (at > 0)
		wc_api_error_set(e, 422, "invalid_value", field, "%s: control character at byte %zu", field + 1, at);
	else if (n == 0)
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected a non-empty string, got \"\"", field + 1);
	else
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected at most %zu bytes, got %zu",
		                 field + 1, cap - 1, n);
	return -1;
}

static int
row_string(const json_t *row, size_t i, const char *name, int required, char *out, size_t cap,
           wc_api_error *e)
{
	char field[64];
	const json_t *v = json_object_get(row, name);
	snprintf(field, sizeof field, "/runs/%zu/%s", i, name);
	if (!v) {
		if (required)
			wc_api_error_set(e, 422, "missing_field", field, "runs/%zu/%s: required", i, name);
		return required ? -1 : 1;
	}
	if (text_value(v, field, cap, e) < 0)
		return -1;
	snprintf(out, cap, "%s", json_string_value(v));
	return 0;
}

static int
row_precision(const json_t *row, size_t i, const char *name, wc_precision *out, wc_api_error *e)
{
	char buf[16];
	int rc = row_string(row, i, name, 0, buf, sizeof buf, e);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (wc_precision_from_name(buf, out) != WC_OK || (strcmp(name, "kv_cache") == 0 && *out == WC_PREC_INT4)) {
		char field[64];
		snprintf(field, sizeof field, "/runs/%zu/%s", i, name);
		wc_api_error_set(e, 422, "invalid_value", field, "runs/%zu/%s: unknown precision \"%s\"", i, name, buf);
		return -1;
	}
	return 0;
}

/* The run's n(t) series, read as /v1/predict/inference reads one
 * (wc__api_series_parse) and held as a runs table holds the series its
 * n_series names (wc_series_read): the calibration reads the series'
 * time-weighted load levels, not the mean `running` (docs/calibration.md),
 * so an item without one could not be calibrated as the CLI calibrates
 * the same run. With a series, `running` may be left out. */
static int
row_series(const json_t *row, size_t i, wc_run *r, wc_api_error *e)
{
	char at[32];
	double *s = NULL, dt_s = 0;
	size_t n = 0;
	if (!json_object_get(row, "running_series")) {
		if (!json_object_get(row, "dt_s"))
			return 0;
		snprintf(at, sizeof at, "/runs/%zu/dt_s", i);
		wc_api_error_set(e, 422, "conflicting_fields", at, "%s: only meaningful with running_series", at + 1);
		return -1;
	}
	snprintf(at, sizeof at, "/runs/%zu", i);
	int rc = wc__api_series_parse(row, at, &s, &n, &dt_s, e);
	if (rc == 0 && wc_load_histogram_build(s, NULL, dt_s, n, &r->series, NULL) != WC_OK) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		rc = -1;
	}
	free(s);
	return rc;
}

/* Row i of "runs" into `r`; NULL-free checks in runs-table order. */
static int
parse_row(const json_t *row, size_t i, wc_run *r, wc_api_error *e)
{
	char prefix[32];
	double tp = 1;
	snprintf(prefix, sizeof prefix, "/runs/%zu", i);
	wc_run_init(r);
	if (!json_is_object(row)) {
		wc_api_error_set(e, 422, "wrong_type", prefix, "runs/%zu: expected an object", i);
		return -1;
	}
	if (unknown_key(row, row_fields, prefix, e) < 0)
		return -1;
	snprintf(r->run_id, sizeof r->run_id, "runs/%zu", i);
	if (row_string(row, i, "run_id", 0, r->run_id, sizeof r->run_id, e) < 0 ||
	    row_string(row, i, "platform", 1, r->platform, sizeof r->platform, e) < 0 ||
	    row_number(row, i, "tp", 1, 1, &tp, e) < 0 ||
	    row_string(row, i, "model", 1, r->model, sizeof r->model, e) < 0 ||
	    row_series(row, i, r, e) < 0 ||
	    row_number(row, i, "running", 0, !r->series.len, &r->running, e) < 0 ||
	    row_number(row, i, "mean_power_w", 0, 1, &r->mean_power_w, e) < 0 ||
	    row_number(row, i, "idle_power_w", 0, 0, &r->idle_power_w, e) < 0 ||
	    row_number(row, i, "sm_clock_mhz", 0, 0, &r->sm_clock_mhz, e) < 0 ||
	    row_precision(row, i, "weights", &r->weights, e) < 0 ||
	    row_precision(row, i, "kv_cache", &r->kv, e) < 0)
		return -1;
	if (tp != floor(tp) || tp > WC_LAW_MAX_TP) {
		snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "/tp");
		/* the value as sent, as every bound's (docs/http-api.md, "Errors") */
		wc_api_error_set(e, 422, "invalid_value", prefix, "runs/%zu/tp: expected an integer 1 to %d, got %s", i,
		                 WC_LAW_MAX_TP, wc_api_value_text((char[32]){ 0 }, json_object_get(row, "tp"), tp));
		return -1;
	}
	r->tp = (int)tp;
	if (!isfinite(r->sm_clock_mhz))
		r->sm_clock_mhz = 0;
	const wc_model_info *m = wc_model_lookup(r->model);
	/* a JSON null is absent, as for every optional field */
	const json_t *size = json_object_get(row, "active_params_b");
	if (!m && (!size || json_is_null(size))) {
		/* A name the catalog lacks is a model of one's own only with its
		 * size: without one it is more likely a typo, named as every route
		 * that takes a model names it (docs/http-api.md, "Errors"), before
		 * active_params_b is asked for. */
		char field[64];
		snprintf(field, sizeof field, "/runs/%zu/model", i);
		return wc_api_unknown_model_at(e, field, r->model, "give its active_params_b beside it");
	}
	int have = row_number(row, i, "active_params_b", 0, !m, &r->active_params_b, e);
	if (have < 0)
		return -1;
	if (have > 0)
		r->active_params_b = m->active_params_b;
	/* The bounds a runs table's reader applies to the CLI's calibration
	 * runs (wc_run_out_of_bounds). */
	char why[160];
	const char *bad = wc_run_out_of_bounds(r, why, sizeof why);
	if (bad) {
		double x = strcmp(bad, "running") == 0 ? r->running
		           : strcmp(bad, "active_params_b") == 0 ? r->active_params_b
		           : strcmp(bad, "mean_power_w") == 0 ? r->mean_power_w
		           : strcmp(bad, "idle_power_w") == 0 ? r->idle_power_w
		           : strcmp(bad, "throughput_tok_s") == 0 ? r->throughput_tok_s
		           : strcmp(bad, "energy_per_token_j") == 0 ? r->energy_per_token_j : r->sm_clock_mhz;
		char field[64];
		snprintf(field, sizeof field, "/runs/%zu/%s", i, bad);
		return wc_api_invalid_json(e, field, json_object_get(row, bad), x, "%s", why);
	}
	return 0;
}

/* Run ids are unique, as a runs table's are (docs/formats/runs-table.md):
 * refusals name a run by its id, and two runs of one id could not be told
 * apart. Row i without a run_id is named runs/i; an earlier row that took
 * that name is the one refused then. */
static int
unique_id(const json_t *runs, const wc_runs_table *t, size_t i, const wc_run *r, wc_api_error *e)
{
	char field[64];
	for (size_t j = 0; j < t->n_runs; j++) {
		if (strcmp(t->runs[j].run_id, r->run_id) != 0)
			continue;
		if (json_object_get(json_array_get(runs, i), "run_id")) {
			snprintf(field, sizeof field, "/runs/%zu/run_id", i);
			wc_api_error_set(e, 422, "invalid_value", field, "runs/%zu/run_id: duplicate run_id '%.*s' (first "
			                 "at runs/%zu)", i, (int)wc_utf8_prefix(r->run_id, 40), r->run_id, j);
		} else {
			snprintf(field, sizeof field, "/runs/%zu/run_id", j);
			wc_api_error_set(e, 422, "invalid_value", field, "runs/%zu/run_id: '%s' is the name of runs/%zu, "
			                 "which has no run_id (a run without one is named runs/INDEX)", j, r->run_id, i);
		}
		return -1;
	}
	return 0;
}

static int
parse_runs(const json_t *body, wc_runs_table **out, wc_api_error *e)
{
	const json_t *runs = json_object_get(body, "runs");
	wc_run r;
	*out = NULL;
	if (!runs) {
		wc_api_error_set(e, 422, "missing_field", "/runs", "runs: required (the calibration runs)");
		return -1;
	}
	/* Another type (null, an object) is wrong_type; an array of the wrong
	 * size a wrong value of the right type (docs/http-api.md, "Errors"). */
	if (!json_is_array(runs))
		return wc_api_wrong_type(e, "/runs", "an array of run rows", runs);
	if (json_array_size(runs) == 0 || json_array_size(runs) > WC_SERVER_CALIBRATE_MAX_RUNS) {
		wc_api_error_set(e, 422, "invalid_value", "/runs", "runs: expected an array of 1 to %d rows",
		                 WC_SERVER_CALIBRATE_MAX_RUNS);
		return -1;
	}
	if (!(*out = wc_runs_new())) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < json_array_size(runs); i++) {
		/* the row's series is copied into the table, and freed here */
		int rc = parse_row(json_array_get(runs, i), i, &r, e) < 0 || unique_id(runs, *out, i, &r, e) < 0 ? -1 : 0;
		if (rc == 0 && wc_runs_append(*out, &r, NULL) != WC_OK) {
			wc_api_error_set(e, 500, "internal", NULL, "out of memory");
			rc = -1;
		}
		wc_load_histogram_free(&r.series);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A string option into `out` (`cap` bytes; "" when absent). */
static int
option_string(const json_t *body, const char *name, char *out, size_t cap, wc_api_error *e)
{
	const json_t *v = json_object_get(body, name);
	char field[32];
	if (!v)
		return 0;
	snprintf(field, sizeof field, "/%s", name);
	if (text_value(v, field, cap, e) < 0)
		return -1;
	snprintf(out, cap, "%s", json_string_value(v));
	return 0;
}

static int
option_number(const json_t *body, const char *name, double min, double max, int integer, double *out,
              wc_api_error *e)
{
	const json_t *v = json_object_get(body, name);
	char field[32];
	if (!v)
		return 0;
	snprintf(field, sizeof field, "/%s", name);
	if (!json_is_number(v) || (integer && json_number_value(v) != floor(json_number_value(v)))) {
		wc_api_error_set(e, 422, "wrong_type", field, "%s: expected %s", name, integer ? "an integer" : "a number");
		return -1;
	}
	*out = json_number_value(v);
	if (!(*out >= min && *out <= max) || (min == 0 && *out == 0 && !integer)) {
		wc_api_error_set(e, 422, "invalid_value", field, "%s: must be %s %g and at most %g, got %s", name,
		                 integer || min > 0 ? ">=" : ">", min, max, wc_api_value_text((char[32]){ 0 }, v, *out));
		return -1;
	}
	return 0;
}

/* The options of the body into `r`; the replicates' default from the
 * draws of `base`. */
static int
parse_options(const json_t *body, const wc_params *base, wc_calibrate_request *r, wc_api_error *e)
{
	char scope[WC_NAME_MAX] = "";
	double boot = -2;
	if (option_string(body, "scope", scope, sizeof scope, e) < 0 ||
	    option_string(body, "model", r->model, sizeof r->model, e) < 0 ||
	    option_string(body, "platform", r->platform, sizeof r->platform, e) < 0 ||
	    option_string(body, "name", r->name, sizeof r->name, e) < 0 ||
	    option_string(body, "relative_to", r->relative_to, sizeof r->relative_to, e) < 0 ||
	    option_number(body, "idle_power_w", 0, WC_GPU_MAX_POWER_W, 0, &r->idle_power_w, e) < 0 ||
	    option_number(body, "run_scatter", WC_RUN_SCATTER_MIN, WC_RUN_SCATTER_MAX, 0, &r->run_scatter, e) < 0 ||
	    option_number(body, "bootstrap", 0, WC_HTTP_CALIBRATE_MAX_DRAWS, 1, &boot, e) < 0 ||
	    wc_api_seed(body, "seed", &r->seed, e) < 0)
		return -1;
	if (boot == 1) { /* one replicate is no spread: the CLI's rule (cli/args.c) */
		wc_api_error_set(e, 422, "invalid_value", "/bootstrap", "bootstrap: must be 0 or at least 2");
		return -1;
	}
	/* The API's two scopes (server/openapi.json): the worker turns them
	 * into the calibration's (wc_calibrate_scope_from_name). */
	r->platform_scope = strcmp(scope, "platform") == 0;
	if (scope[0] && !r->platform_scope && strcmp(scope, "model") != 0) {
		wc_api_error_set(e, 422, "invalid_value", "/scope", "scope: expected \"model\" or \"platform\", got \"%.*s\"",
		                 (int)wc_utf8_prefix(scope, 20), scope);
		return -1;
	}
	/* A new level relative to another needs the new one named: said of
	 * the option before the runs are read, as the CLI says it of its
	 * flags (the library's refusal began "platform:", which names the
	 * runs' platforms here). */
	const char *ref = r->relative_to, *plat = r->platform;
	if (ref[0] && r->platform_scope && (!plat[0] || strcmp(plat, ref) == 0)) {
		wc_api_error_set(e, 422, plat[0] ? "invalid_value" : "missing_field", "/platform", "platform: relative_to "
		                 "needs the new platform named here, other than '%.*s'", (int)wc_utf8_prefix(ref, 40), ref);
		return -1;
	}
	/* Absent: as many replicates as the base has draws, at most the cap. */
	int base_draws = base->n_draws > 0 ? base->n_draws : 1000;
	r->replicates = boot == -2 ? (base_draws < WC_HTTP_CALIBRATE_MAX_DRAWS ? base_draws : WC_HTTP_CALIBRATE_MAX_DRAWS)
	                : boot == 0 ? -1 : (int)boot;
	return 0;
}

void
wc_calibrate_request_clear(wc_calibrate_request *r)
{
	wc_runs_free(r->runs);
	memset(r, 0, sizeof *r);
}

int
wc__calibrate_request_parse(const json_t *body, const wc_params *base, wc_calibrate_request *out,
                            wc_api_error *e)
{
	memset(out, 0, sizeof *out);
	if (!json_is_object(body)) {
		wc_api_error_set(e, 422, "wrong_type", "", "expected a JSON object with \"runs\"");
		return -1;
	}
	if (unknown_key(body, body_fields, "", e) < 0 || parse_options(body, base, out, e) < 0 ||
	    parse_runs(body, &out->runs, e) < 0) {
		wc_calibrate_request_clear(out);
		return -1;
	}
	return 0;
}

int
wc_calibrate_request_read(const char *text, size_t len, const wc_params *base, wc_calibrate_request *out,
                          wc_error *err)
{
	json_error_t jerr;
	wc_api_error e;
	json_t *body = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	memset(out, 0, sizeof *out);
	if (!body) {
		int line, column; /* 1-based, as every JSON refusal's (wc_json_error_at) */
		char why[WC_JSON_ERROR_TEXT_MAX];
		wc_json_error_at(&jerr, text, len, &line, &column);
		return wc_error_set(err, WC_EINVAL, "calibration request: %d:%d: %s", line, column,
		                    wc_json_error_text(&jerr, why, sizeof why));
	}
	int rc = wc__calibrate_request_parse(body, base, out, &e);
	json_decref(body);
	if (rc < 0)
		return wc_error_set(err, e.status == 500 ? WC_ENOMEM : WC_EINVAL, "%s", e.message);
	return WC_OK;
}

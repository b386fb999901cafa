/*
 * POST /v1/calibrate (docs/http-api.md): a small runs table as JSON rows
 * and the calibration's options in; the calibrated parameter file out,
 * not installed (installing it stays the operator's: save the file, send
 * SIGHUP). The estimation runs on the route's own deep stack (stack.c;
 * CivetWeb's workers have about 15 KiB left), and never on the
 * prediction path.
 *
 * Body: {"runs": [row, ...] (1..WC_SERVER_CALIBRATE_MAX_RUNS), "scope",
 * "profile" (the base; default the first), "model", "platform",
 * "idle_power_w", "run_scatter", "bootstrap", "seed", "name"}; a row has
 * the runs-table columns platform, tp, model, active_params_b (or a
 * catalog model), running, mean_power_w, idle_power_w, weights, kv_cache,
 * sm_clock_mhz, run_id.
 */
#include "server_internal.h"
#include "models/limits.h"

#include "data/data.h"
#include "fit/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const body_fields[] = { "runs", "scope", "profile", "model", "platform",
	"idle_power_w", "run_scatter", "bootstrap", "seed", "name", "relative_to", NULL };
/* The body's fields, as the calibration's refusals and warnings name the
 * options here: the library's own words are the CLI's flags
 * (docs/http-api.md, "POST /v1/calibrate"). */
static const wc_calibrate_words json_words = { "scope \"model\"", "scope \"platform\"", "platform",
	                                       "idle_power_w", "run_scatter", "relative_to", "bootstrap",
	                                       "leave those runs out of runs" };
static const char *const row_fields[] = { "run_id", "platform", "tp", "model", "active_params_b",
	"running", "mean_power_w", "idle_power_w", "weights", "kv_cache", "sm_clock_mhz", NULL };

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
			                         ? " (the measured mean power of the group, W): calibration needs measured runs" : "");
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
		wc_api_error_set(e, 422, "invalid_value", field, "runs/%zu/%s: must be %s %g, got %g", i, name,
		                 exclusive ? ">" : ">=", min, *out);
		return -1;
	}
	return 0;
}

/* A string of 1 to cap - 1 bytes at `field`: another type is
 * wrong_type, a string that is empty or too long a wrong value of the
 * right type, invalid_value (docs/http-api.md, "Errors"). */
static int
text_value(const json_t *v, const char *field, size_t cap, wc_api_error *e)
{
	if (!json_is_string(v))
		return wc_api_wrong_type(e, field, "a string", v);
	size_t n = json_string_length(v);
	if (n > 0 && n < cap)
		return 0;
	if (n == 0)
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected a non-empty string, got \"\"", field + 1);
	else
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected at most %zu characters, got %zu",
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
	    row_number(row, i, "running", 0, 1, &r->running, e) < 0 ||
	    row_number(row, i, "mean_power_w", 0, 1, &r->mean_power_w, e) < 0 ||
	    row_number(row, i, "idle_power_w", 0, 0, &r->idle_power_w, e) < 0 ||
	    row_number(row, i, "sm_clock_mhz", 0, 0, &r->sm_clock_mhz, e) < 0 ||
	    row_precision(row, i, "weights", &r->weights, e) < 0 ||
	    row_precision(row, i, "kv_cache", &r->kv, e) < 0)
		return -1;
	if (tp != floor(tp) || tp > WC_LAW_MAX_TP) {
		snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "/tp");
		wc_api_error_set(e, 422, "invalid_value", prefix, "runs/%zu/tp: expected an integer 1 to %d", i,
		                 WC_LAW_MAX_TP);
		return -1;
	}
	r->tp = (int)tp;
	if (!isfinite(r->sm_clock_mhz))
		r->sm_clock_mhz = 0;
	const wc_model_info *m = wc_model_lookup(r->model);
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
		double v = strcmp(bad, "running") == 0 ? r->running
		           : strcmp(bad, "active_params_b") == 0 ? r->active_params_b
		           : strcmp(bad, "mean_power_w") == 0 ? r->mean_power_w
		           : strcmp(bad, "idle_power_w") == 0 ? r->idle_power_w : r->sm_clock_mhz;
		char field[64];
		snprintf(field, sizeof field, "/runs/%zu/%s", i, bad);
		return wc_api_invalid(e, field, v, "%s", why);
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
		if (parse_row(json_array_get(runs, i), i, &r, e) < 0 || unique_id(runs, *out, i, &r, e) < 0)
			return -1;
		if (wc_runs_append(*out, &r, NULL) != WC_OK) {
			wc_api_error_set(e, 500, "internal", NULL, "out of memory");
			return -1;
		}
	}
	return 0;
}

typedef struct {
	const wc_params *base;
	const wc_runs_table *t;
	wc_calibrate_options o;
	wc_calibrate_result *res;
	wc_error err;
} cal_task;

/* A refusal's field: the run it names ("run 'ID'"), else the option. */
static void
refusal(const wc_runs_table *t, const wc_error *err, wc_api_error *e)
{
	char field[64] = "";
	const char *q = strstr(err->msg, "run '");
	size_t n = strcspn(err->msg, ":");
	for (size_t i = 0; q && i < t->n_runs; i++) {
		size_t len = strlen(t->runs[i].run_id);
		if (strncmp(q + 5, t->runs[i].run_id, len) == 0 && q[5 + len] == '\'') {
			snprintf(field, sizeof field, "/runs/%zu/%.*s", i, (int)n, err->msg);
			break;
		}
	}
	if (!field[0] && (strncmp(err->msg, "runs:", 5) == 0 || strncmp(err->msg, "platform:", 9) == 0))
		snprintf(field, sizeof field, "/runs");
	else if (!field[0] && strncmp(err->msg, "idle_power_w:", 13) == 0)
		snprintf(field, sizeof field, "/idle_power_w");
	else if (!field[0] && strncmp(err->msg, "relative_to:", 12) == 0)
		snprintf(field, sizeof field, "/relative_to");
	if (err->code == WC_ENOMEM)
		wc_api_error_set(e, 500, "internal", NULL, "%s", err->msg);
	else
		wc_api_error_set(e, 422, "calibration_refused", field, "%s", err->msg);
}

static int
option_string(const json_t *body, const char *name, const char **out, wc_api_error *e)
{
	const json_t *v = json_object_get(body, name);
	char field[32];
	if (!v)
		return 0;
	snprintf(field, sizeof field, "/%s", name);
	if (text_value(v, field, WC_NAME_MAX, e) < 0)
		return -1;
	*out = json_string_value(v);
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
		wc_api_error_set(e, 422, "invalid_value", field, "%s: must be %s %g and at most %g, got %g", name,
		                 integer ? ">=" : ">", min, max, *out);
		return -1;
	}
	return 0;
}

/* The options of the body into `c->o` (strings borrowed from `body`). */
static int
parse_options(const json_t *body, cal_task *c, const char **name, wc_api_error *e)
{
	const char *scope = NULL;
	double boot = -2;
	uint64_t seed = 0;
	if (option_string(body, "scope", &scope, e) < 0 || option_string(body, "model", &c->o.model, e) < 0 ||
	    option_string(body, "platform", &c->o.platform, e) < 0 || option_string(body, "name", name, e) < 0 ||
	    option_string(body, "relative_to", &c->o.relative_to, e) < 0 ||
	    option_number(body, "idle_power_w", 0, WC_GPU_MAX_POWER_W, 0, &c->o.idle_power_w, e) < 0 ||
	    option_number(body, "run_scatter", 0, 10, 0, &c->o.run_scatter, e) < 0 ||
	    option_number(body, "bootstrap", 0, WC_HTTP_CALIBRATE_MAX_DRAWS, 1, &boot, e) < 0 ||
	    wc_api_seed(body, "seed", &seed, e) < 0)
		return -1;
	if (boot == 1) { /* one replicate is no spread: the CLI's rule (cli/args.c) */
		wc_api_error_set(e, 422, "invalid_value", "/bootstrap", "bootstrap: must be 0 or at least 2");
		return -1;
	}
	if (scope && wc_calibrate_scope_from_name(scope, &c->o.scope) != WC_OK) {
		wc_api_error_set(e, 422, "invalid_value", "/scope", "scope: expected \"model\" or \"platform\", got \"%.*s\"",
		                 (int)wc_utf8_prefix(scope, 20), scope);
		return -1;
	}
	/* A new level relative to another needs the new one named: said of
	 * the option before the runs are read, as the CLI says it of its
	 * flags (the library's refusal began "platform:", which names the
	 * runs' platforms here). */
	const char *ref = c->o.relative_to, *plat = c->o.platform;
	if (ref && c->o.scope == WC_CALIBRATE_PLATFORM && (!plat || strcmp(plat, ref) == 0)) {
		wc_api_error_set(e, 422, plat ? "invalid_value" : "missing_field", "/platform", "platform: relative_to "
		                 "needs the new platform named here, other than '%.*s'", (int)wc_utf8_prefix(ref, 40), ref);
		return -1;
	}
	/* Absent: as many replicates as the base has draws, at most the cap. */
	int base_draws = c->base->n_draws > 0 ? c->base->n_draws : 1000;
	c->o.replicates = boot == -2 ? (base_draws < WC_HTTP_CALIBRATE_MAX_DRAWS ? base_draws : WC_HTTP_CALIBRATE_MAX_DRAWS)
	                  : boot == 0 ? -1 : (int)boot;
	c->o.seed = seed;
	c->o.threads = 1;
	c->o.words = &json_words;
	return 0;
}

static json_t *
number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* {"params_version", "name", "scope", "runs", "run_scatter", "estimates",
 * "warnings", "params": the parameter file, draws included}. */
static json_t *
answer(const cal_task *c, wc_api_error *e)
{
	const wc_calibrate_result *r = c->res;
	char version[17];
	json_error_t jerr;
	wc_error err = { .code = WC_ENOMEM };
	char *dump = wc_params_dump(&r->params, 1, &err);
	json_t *file = dump ? json_loads(dump, JSON_DECODE_ANY, &jerr) : NULL;
	json_t *est = json_array(), *warn = json_array();
	free(dump);
	if (!file || !est || !warn || wc_params_fingerprint(&r->params, version, &err) != WC_OK) {
		json_decref(file);
		json_decref(est);
		json_decref(warn);
		/* The writer refuses a value beyond its documented range (a
		 * shift of 224 in z from a size the bounds let through): the
		 * calibration's result, not the server, is at fault. */
		if (!dump && err.code != WC_ENOMEM)
			wc_api_error_set(e, 422, "calibration_refused", NULL, "the calibrated set cannot be written: %s",
			                 err.msg);
		else
			wc_api_error_set(e, 500, "internal", NULL, "out of memory rendering the calibration");
		return NULL;
	}
	for (int i = 0; i < r->n_estimates; i++) {
		const wc_calibrate_estimate *x = &r->estimates[i];
		json_array_append_new(est, json_pack("{s:s,s:o,s:o,s:i}", "parameter", x->label, "value",
		                                     number_or_null(x->value.value), "ci95",
		                                     isfinite(x->value.lo) ? json_pack("[ff]", x->value.lo, x->value.hi)
		                                                           : json_null(), "runs", x->runs));
	}
	/* Few draws: the ci95 are their range, as `wattcast calibrate` warns
	 * (docs/http-api.md, the route's warnings name the body's fields). */
	if (c->o.replicates > 0 && c->o.replicates < WC_BOOTSTRAP_MIN_95) {
		char few[WC_WARNING_LEN];
		int k = snprintf(few, sizeof few, "bootstrap: %d draws: ", c->o.replicates);
		snprintf(few + k, sizeof few - (size_t)k, WC_BOOTSTRAP_FEW_TEXT, WC_BOOTSTRAP_MIN_95);
		json_array_append_new(warn, json_string(few));
	}
	for (int i = 0; i < r->n_warnings; i++)
		json_array_append_new(warn, json_string(r->warnings[i]));
	return json_pack("{s:s,s:s,s:s,s:i,s:f,s:o,s:o,s:o}", "params_version", version, "name",
	                 r->params.name, "scope", wc_calibrate_scope_name(c->o.scope), "runs", r->n_runs,
	                 "run_scatter", r->run_scatter, "estimates", est, "warnings", warn, "params", file);
}

void
wc_route_calibrate(wc_request *req, wc_response *res)
{
	json_t *body = NULL, *out = NULL;
	wc_runs_table *t = NULL;
	wc_calibrate_result *result = calloc(1, sizeof *result);
	cal_task c = { .o = WC_CALIBRATE_OPTIONS_INIT, .res = result };
	const char *name = NULL;
	wc_api_error e;

	if (!result) {
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory");
		wc_response_error(res, &e);
		return;
	}
	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		goto done;
	if (!json_is_object(body)) {
		wc_api_error_set(&e, 422, "wrong_type", "", "expected a JSON object with \"runs\"");
		goto refuse;
	}
	const wc_state *st = wc_profiles_select(req->profiles, body, &e);
	if (!st || unknown_key(body, body_fields, "", &e) < 0)
		goto refuse;
	c.base = wc_predictor_params(st->pred);
	if (parse_options(body, &c, &name, &e) < 0 || parse_runs(body, &t, &e) < 0)
		goto refuse;
	c.t = t;
	/* on the route's own deep stack (router.c, stack.c) */
	if (wc_calibrate(c.base, c.t, &c.o, c.res, &c.err) != WC_OK) {
		refusal(t, &c.err, &e);
		goto refuse;
	}
	if (name)
		snprintf(result->params.name, sizeof result->params.name, "%s", name);
	/* the base fit's record stays whole (docs/calibration.md, "Provenance") */
	snprintf(result->params.calibration.fitted_on, sizeof result->params.calibration.fitted_on,
	         "POST /v1/calibrate");
	wc_utc_now(result->params.calibration.created_utc);
	if ((out = answer(&c, &e)) != NULL) {
		/* All 17 digits: `params` is the file to save and serve, and its
		 * params_version is of those exact values (answers elsewhere
		 * round to 10, docs/http-api.md). */
		char *text = json_dumps(out, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_COMPACT);
		json_decref(out);
		wc_response_text(res, 200, text, text ? strlen(text) : 0);
		goto done;
	}
refuse:
	wc_response_error(res, &e);
done:
	wc_calibrate_result_clear(result);
	free(result);
	wc_runs_free(t);
	json_decref(body);
}

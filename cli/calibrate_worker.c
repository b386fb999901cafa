/*
 * `wattcast calibrate --http-worker FOLDER`: the process POST
 * /v1/calibrate estimates in (docs/architecture.md, "The calibration
 * worker"), started by the server (server/calibrate_spawn.c), never by a
 * user, so it is in no help text. FOLDER (private, the server's) holds
 * base.json, the served base with its draws, and body.json, the request's
 * body, which is read here through the very checks the route made
 * (wc_calibrate_request_read). The answer goes to FOLDER/answer.json:
 * the route's JSON (docs/http-api.md, "POST /v1/calibrate"), or
 * {"error": {"kind", "message"}} -- kind "refused" (the library's
 * refusal, which the server maps onto the body's field), "unwritable",
 * "out_of_memory" or "failed". The exit status is 0 whenever answer.json
 * was written.
 */
#include "cli_calibrate.h"
#include "data/data.h"
#include "fit/fit.h"
#include "models/limits.h"
#include "server/server.h"
#include "validation/accuracy.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

/* The body's fields, as the calibration's refusals and warnings name the
 * options here: the library's own words are the CLI's flags
 * (docs/http-api.md, "POST /v1/calibrate"). */
static const wc_calibrate_words json_words = { "scope \"model\"", "scope \"platform\"", "platform",
	                                       "idle_power_w", "run_scatter", "relative_to", "bootstrap",
	                                       "leave those runs out of runs" };

static json_t *
number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* {"params_version", "name", "scope", "runs", "run_scatter", "estimates",
 * "warnings", "params": the parameter file, draws included}; NULL with
 * `kind` and `err` set. */
static json_t *
answer(const wc_calibrate_options *o, const wc_calibrate_result *r, const char **kind, wc_error *err)
{
	char version[17];
	json_error_t jerr;
	err->code = WC_ENOMEM;
	snprintf(err->msg, sizeof err->msg, "out of memory rendering the calibration");
	char *dump = wc_params_dump(&r->params, 1, err);
	json_t *file = dump ? json_loads(dump, JSON_DECODE_ANY, &jerr) : NULL;
	json_t *est = json_array(), *warn = json_array();
	free(dump);
	if (!file || !est || !warn || wc_params_fingerprint(&r->params, version, err) != WC_OK) {
		json_decref(file);
		json_decref(est);
		json_decref(warn);
		if (!dump && err->code != WC_ENOMEM) {
			*kind = "unwritable";
			char why[WC_ERROR_MSG_MAX];
			snprintf(why, sizeof why, "%s", err->msg);
			wc_error_set(err, WC_EINVAL, "the calibrated set cannot be written: %s", why);
		} else {
			*kind = "out_of_memory";
			wc_error_set(err, WC_ENOMEM, "out of memory rendering the calibration");
		}
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
	if (o->replicates > 0 && o->replicates < WC_BOOTSTRAP_MIN_95) {
		char few[WC_WARNING_LEN];
		int k = snprintf(few, sizeof few, "bootstrap: %d draws: ", o->replicates);
		snprintf(few + k, sizeof few - (size_t)k, WC_BOOTSTRAP_FEW_TEXT, WC_BOOTSTRAP_MIN_95);
		json_array_append_new(warn, json_string(few));
	}
	for (int i = 0; i < r->n_warnings; i++)
		json_array_append_new(warn, json_string(r->warnings[i]));
	return json_pack("{s:s,s:s,s:s,s:i,s:f,s:o,s:o,s:o}", "params_version", version, "name",
	                 r->params.name, "scope", wc_calibrate_scope_name(o->scope), "runs", r->n_runs,
	                 "run_scatter", r->run_scatter, "estimates", est, "warnings", warn, "params", file);
}

/* The options of the checked request, for the library. */
static void
options(const wc_calibrate_request *q, wc_calibrate_options *o)
{
	*o = (wc_calibrate_options)WC_CALIBRATE_OPTIONS_INIT;
	o->scope = q->platform_scope ? WC_CALIBRATE_PLATFORM : WC_CALIBRATE_MODEL;
	o->model = q->model[0] ? q->model : NULL;
	o->platform = q->platform[0] ? q->platform : NULL;
	o->relative_to = q->relative_to[0] ? q->relative_to : NULL;
	o->idle_power_w = q->idle_power_w;
	o->run_scatter = q->run_scatter;
	o->replicates = q->replicates;
	o->seed = q->seed;
	o->threads = 1;
	o->words = &json_words;
	/* the misses named are the answers' (docs/calibration.md), as the CLI's */
	o->score = wc_validate_score_runs;
}

/* Calibrate as the route asked; the answer, or NULL with `kind` and
 * `err` set. */
static json_t *
calibrate(const char *dir, const char **kind, wc_error *err)
{
	char path[600], *text = NULL;
	size_t len = 0;
	wc_params base = WC_PARAMS_INIT;
	wc_calibrate_request q;
	wc_calibrate_options o;
	wc_calibrate_result *r = calloc(1, sizeof *r);
	json_t *out = NULL;
	memset(&q, 0, sizeof q);
	*kind = "failed";
	if (!r) {
		*kind = "out_of_memory";
		wc_error_set(err, WC_ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(path, sizeof path, "%s/base.json", dir);
	if (wc_params_load_file(path, &base, err) != WC_OK)
		goto done;
	snprintf(path, sizeof path, "%s/body.json", dir);
	if (wc_read_file(path, (size_t)1 << 31, &text, &len, err) != WC_OK ||
	    wc_calibrate_request_read(text, len, &base, &q, err) != WC_OK)
		goto done;
	options(&q, &o);
	if (wc_calibrate(&base, q.runs, &o, r, err) != WC_OK) {
		*kind = err->code == WC_ENOMEM ? "out_of_memory" : "refused";
		goto done;
	}
	cli_calibrate_model_notes(q.runs, 1, r);
	if (q.name[0])
		snprintf(r->params.name, sizeof r->params.name, "%s", q.name);
	/* the base fit's record stays whole (docs/calibration.md, "Provenance") */
	snprintf(r->params.calibration.fitted_on, sizeof r->params.calibration.fitted_on, "POST /v1/calibrate");
	wc_utc_now(r->params.calibration.created_utc);
	out = answer(&o, r, kind, err);
done:
	wc_calibrate_result_clear(r);
	free(r);
	wc_calibrate_request_clear(&q);
	wc_params_clear(&base);
	free(text);
	return out;
}

int
cli_calibrate_http_worker(int argc, char **argv)
{
	const char *cmd = "calibrate --http-worker";
	const char *kind = "failed";
	char path[600];
	wc_error err = { .code = WC_OK };
	if (argc != 3)
		return cli_usage_error(cmd, "expected the folder the server made (internal: started by POST "
		                       "/v1/calibrate)");
	/* A server killed outright (SIGKILL, the OOM killer) cannot reap
	 * this process: it is killed with it rather than compute for no
	 * one (Linux's parent-death signal; the server's worker thread that
	 * started it lives as long as the server). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	gsl_set_error_handler_off();
	/* One replicate at a time, as the route always ran it: no BLAS pool. */
	wc_linalg_pin_single_thread();
	json_t *out = calibrate(argv[2], &kind, &err);
	if (!out)
		out = json_pack("{s:{s:s,s:s}}", "error", "kind", kind, "message", err.msg);
	/* All 17 digits: `params` is the file to save and serve, and its
	 * params_version is of those exact values (answers elsewhere round to
	 * 10, docs/http-api.md). */
	char *text = out ? json_dumps(out, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_COMPACT) : NULL;
	json_decref(out);
	snprintf(path, sizeof path, "%s/answer.json", argv[2]);
	if (!text)
		return cli_fail(cmd, "out of memory");
	int rc = wc_write_file_atomic(path, text, strlen(text), &err);
	free(text);
	return rc == WC_OK ? CLI_OK : cli_fail(cmd, "%s", err.msg);
}

/*
 * POST /v1/calibrate (docs/http-api.md): a small runs table as JSON rows
 * and the calibration's options in; the calibrated parameter file out,
 * not installed (installing it stays the operator's: save the file, send
 * SIGHUP). The body is checked here (calibrate_request.c), so a bad one
 * is refused at once; the estimation runs in a process of its own,
 * `wattcast calibrate --http-worker` (cli/calibrate_worker.c;
 * calibrate_spawn.c), so that nothing on the request path calls fit/
 * (docs/architecture.md, "The calibration worker"). The worker is given
 * the served base (with its draws, data/'s writer: 17 digits, the same
 * doubles back) and the body (17 digits); it answers the route's JSON, or
 * the library's refusal, which is mapped here onto the field at fault.
 */
#include "requests_internal.h"
#include "routes_internal.h"
#include "models/limits.h"

#include "data/data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* A refusal's field: the run it names ("run 'ID'"), else the option.
 * The library names a run's n(t) by the runs table's column n_series;
 * the body's field is running_series, and a refusal names the body's
 * fields, never the CLI's (docs/http-api.md, "Errors"). */
static void
refusal(const wc_runs_table *t, const char *msg, int out_of_memory, wc_api_error *e)
{
	char field[64] = "", renamed[WC_ERROR_MSG_MAX];
	if (strncmp(msg, "n_series:", 9) == 0) {
		snprintf(renamed, sizeof renamed, "running_series:%s", msg + 9);
		msg = renamed;
	}
	const char *q = strstr(msg, "run '");
	size_t n = strcspn(msg, ":");
	for (size_t i = 0; q && i < t->n_runs; i++) {
		size_t len = strlen(t->runs[i].run_id);
		if (strncmp(q + 5, t->runs[i].run_id, len) == 0 && q[5 + len] == '\'') {
			snprintf(field, sizeof field, "/runs/%zu/%.*s", i, (int)n, msg);
			break;
		}
	}
	if (!field[0] && (strncmp(msg, "runs:", 5) == 0 || strncmp(msg, "platform:", 9) == 0))
		snprintf(field, sizeof field, "/runs");
	else if (!field[0] && strncmp(msg, "idle_power_w:", 13) == 0)
		snprintf(field, sizeof field, "/idle_power_w");
	else if (!field[0] && strncmp(msg, "relative_to:", 12) == 0)
		snprintf(field, sizeof field, "/relative_to");
	if (out_of_memory)
		wc_api_error_set(e, 500, "internal", NULL, "%s", msg);
	else
		wc_api_error_set(e, 422, "calibration_refused", field, "%s", msg);
}

/* The worker's inputs into `dir`: the base parameter file and the body. */
static int
write_inputs(const char *dir, const wc_params *base, const json_t *body, wc_api_error *e)
{
	char path[600];
	wc_error err;
	snprintf(path, sizeof path, "%s/base.json", dir);
	if (wc_params_save_file(path, base, &err) != WC_OK) {
		wc_api_error_set(e, 500, err.code == WC_ENOMEM ? "internal" : "calibration_failed", NULL,
		                 "calibration: the base cannot be handed to the worker: %s", err.msg);
		return -1;
	}
	snprintf(path, sizeof path, "%s/body.json", dir);
	if (json_dump_file(body, path, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0) {
		wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: the request cannot be handed to the "
		                 "worker (%.80s)", dir);
		return -1;
	}
	return 0;
}

/* Why the worker gave no answer: its exit, and the first line it wrote
 * to stderr (worker.err), if any. */
static void
worker_failed(const char *dir, int status, wc_api_error *e)
{
	char path[600], *text = NULL, how[48];
	size_t len = 0;
	wc_error err;
	snprintf(path, sizeof path, "%s/worker.err", dir);
	if (wc_read_file(path, 1 << 16, &text, &len, &err) == WC_OK)
		text[strcspn(text, "\n")] = '\0';
	if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
	wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: the worker %s without an answer%s%.140s",
	                 how, text && text[0] ? ": " : "", text ? text : "");
	wc_utf8_repair(e->message);
	free(text);
}

/* The worker's answer (answer.json) onto `res`: the calibration as it
 * wrote it (17 digits), or its refusal mapped onto the body's field. */
static int
take_answer(const char *dir, int status, const wc_runs_table *t, wc_response *res, wc_api_error *e)
{
	char path[600], *text = NULL;
	size_t len = 0;
	wc_error err;
	json_error_t jerr;
	snprintf(path, sizeof path, "%s/answer.json", dir);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    wc_read_file(path, WC_SERVER_CALIBRATE_MAX_ANSWER, &text, &len, &err) != WC_OK) {
		worker_failed(dir, status, e);
		return -1;
	}
	json_t *v = json_loadb(text, len, 0, &jerr);
	const json_t *fail = json_object_get(v, "error");
	const char *kind = json_string_value(json_object_get(fail, "kind"));
	const char *msg = json_string_value(json_object_get(fail, "message"));
	int rc = -1;
	if (!json_is_object(v) || (fail && (!kind || !msg)) || (!fail && !json_object_get(v, "params_version")))
		wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: the worker's answer is not one "
		                 "(%d:%d: %s)", jerr.line, jerr.column, v ? "unknown shape" : jerr.text);
	else if (fail && strcmp(kind, "refused") == 0)
		refusal(t, msg, 0, e);
	else if (fail && strcmp(kind, "out_of_memory") == 0)
		refusal(t, msg, 1, e);
	else if (fail && strcmp(kind, "unwritable") == 0)
		/* The writer refuses a value beyond its documented range (a
		 * shift of 224 in z from a size the bounds let through): the
		 * calibration's result, not the server, is at fault. */
		wc_api_error_set(e, 422, "calibration_refused", NULL, "%s", msg);
	else if (fail)
		wc_api_error_set(e, 500, "calibration_failed", NULL, "%s", msg);
	else {
		wc_response_text(res, 200, text, len);
		text = NULL;
		rc = 0;
	}
	json_decref(v);
	free(text);
	return rc;
}

void
wc_route_calibrate(wc_request *req, wc_response *res)
{
	json_t *body = NULL;
	wc_calibrate_request cr;
	char dir[512] = "";
	int status = 0;
	wc_api_error e;

	memset(&cr, 0, sizeof cr);
	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		goto done;
	if (!json_is_object(body)) {
		wc_api_error_set(&e, 422, "wrong_type", "", "expected a JSON object with \"runs\"");
		goto refuse;
	}
	const wc_state *st = wc_profiles_select(req->profiles, body, &e);
	if (!st)
		goto refuse;
	const wc_params *base = wc_predictor_params(st->pred);
	if (wc__calibrate_request_parse(body, base, &cr, &e) < 0)
		goto refuse;
	if (!req->srv->calibrate_worker) {
		wc_api_error_set(&e, 503, "calibration_unavailable", NULL, "calibration is not available: no worker "
		                 "configured (wattcast serve runs calibrations in a process of its own)");
		goto refuse;
	}
	if (wc__calibrate_dir_make(dir, sizeof dir, &e) < 0 || write_inputs(dir, base, body, &e) < 0 ||
	    wc__calibrate_spawn(req->srv, dir, &status, &e) < 0 || take_answer(dir, status, cr.runs, res, &e) < 0)
		goto refuse;
	goto done;
refuse:
	wc_response_error(res, &e);
done:
	if (dir[0])
		wc__calibrate_dir_remove(dir);
	wc_calibrate_request_clear(&cr);
	json_decref(body);
}

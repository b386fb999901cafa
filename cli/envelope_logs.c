/*
 * `wattcast envelope`, its input files read through data/: a request log
 * replayed (--replay) or drawn from (--input-tokens / --output-tokens
 * empirical:FILE), both through one reader here, and an n(t) series
 * (--n-series). A refusal names the row: file:line:column (or the JSON
 * path), the column and the value (docs/cli.md, "envelope").
 */
#include "cli_envelope.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"

/* --------------------------------------------------- request logs */

/* The reader's words (bad lines, failed and repeated requests), kept
 * until its answer tells whether they are the reason of a refusal or
 * warnings. */
typedef struct {
	const char *flag, *path;
	char (*msg)[WC_WARNING_LEN];
	size_t n, cap;
} log_words;

static void
keep_word(const char *msg, void *payload)
{
	log_words *b = payload;
	char named[WC_WARNING_LEN];
	cli_flag_message(named, sizeof named, b->flag, b->path, msg);
	/* out of memory: the refusal or the answer still stands without it */
	(void)wc_warnings_keep(&b->msg, &b->n, &b->cap, named);
}

void
cli_envelope_keep_warning(cli_envelope_inputs *in, const char *msg)
{
	/* out of memory: printed; an answer without it is still the answer */
	(void)wc_warnings_keep(&in->warnings, &in->n_warnings, &in->cap_warnings, msg);
}

/* Read the request log `path` for `flag`, with the token counts an
 * envelope simulates (a count outside them is a bad cell, named with its
 * column and value, as any bad cell: docs/formats/telemetry.md). A
 * refusal prints each bad line and why, whatever --quiet; a log read
 * with a few bad lines says them as warnings, kept in `in` for --json's
 * "warnings". A log without a request is refused as a file (exit 1),
 * whatever its form. */
static int
read_log(const char *cmd, const char *flag, const char *path, cli_envelope_inputs *in, wc_request_log **out)
{
	wc_telemetry_options t = WC_TELEMETRY_OPTIONS_INIT;
	log_words words = { flag, path, NULL, 0, 0 };
	wc_error err;
	t.warn = keep_word;
	t.warn_payload = &words;
	t.max_tokens = WC_ENVELOPE_MAX_TOKENS;
	t.min_input_tokens = WC_ENVELOPE_MIN_INPUT_TOKENS;
	int rc = wc_request_log_read(path, &t, out, &err);
	for (size_t i = 0; i < words.n; i++) {
		if (rc != WC_OK || !cli_quiet())
			fprintf(stderr, "wattcast %s: %s%s\n", cmd, rc != WC_OK ? "" : "warning: ", words.msg[i]);
		if (rc == WC_OK)
			cli_envelope_keep_warning(in, words.msg[i]);
	}
	free(words.msg);
	if (rc != WC_OK) {
		char msg[WC_ERROR_MSG_MAX];
		cli_flag_message(msg, sizeof msg, flag, path, err.msg);
		return cli_fail(cmd, "%s", msg);
	}
	if ((*out)->n == 0) {
		wc_request_log_free(*out);
		*out = NULL;
		return cli_fail(cmd, "%s: %s: no requests", flag, path);
	}
	return CLI_OK;
}

/* One logged request, for sorting by arrival (ties keep the log's order). */
typedef struct {
	double t, in, out;
	size_t at;
} logged_request;

static int
by_arrival(const void *pa, const void *pb)
{
	const logged_request *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* Requests of the log without a token count are drawn from the length
 * distribution (docs/envelopes.md, "replay"): said, with how many and
 * from what, since it can change the tokens served several times over; a
 * length flag that fills nothing is said too, as --measured says it. */
static void
warn_missing(const char *cmd, const char *path, size_t missing, size_t n, const char *field, const char *flag,
             const char *spec, const wc_length_dist *d, cli_envelope_inputs *in)
{
	char from[160];
	if (missing == 0) {
		if (spec && n > 0)
			fprintf(stderr, "wattcast %s: note: --replay %s: every request has its %s; %s is not used\n", cmd,
			        path, field, flag);
		return;
	}
	if (spec)
		snprintf(from, sizeof from, "%s %.100s", flag, spec);
	else
		snprintf(from, sizeof from, "the default %s %g", flag, d->mean);
	char msg[WC_WARNING_LEN];
	int k = snprintf(msg, sizeof msg, "--replay ");
	wc_error_format_path(msg + k, sizeof msg - (size_t)k, path, ": %zu of %zu requests %s no %s; drawn from %s",
	                     missing, n, missing == 1 ? "has" : "have", field, from);
	fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
	cli_envelope_keep_warning(in, msg); /* --json's "warnings" too, as the readers' */
}

int
cli_read_replay(const char *cmd, const char *path, wc_envelope_workload *w, double horizon_s, const char *input_spec,
                const char *output_spec, cli_envelope_inputs *in)
{
	wc_request_log *log = NULL;
	if (read_log(cmd, "--replay", path, in, &log) != CLI_OK)
		return CLI_FAIL;
	size_t n = log->n, unsorted = 0, no_in = 0, no_out = 0;
	int finite = 1; /* a time that is not finite is refused by the workload's check */
	logged_request *req = wc_alloc_array(n, sizeof *req);
	in->arrival_s = wc_alloc_array(n, sizeof(double));
	in->arrival_in = wc_alloc_array(n, sizeof(double));
	in->arrival_out = wc_alloc_array(n, sizeof(double));
	if (!req || !in->arrival_s || !in->arrival_in || !in->arrival_out) {
		free(req);
		wc_request_log_free(log);
		return cli_fail(cmd, "out of memory");
	}
	/* Logs are written as requests complete, not as they arrive: replay
	 * them in arrival order, as `validate envelope` reads a run folder. */
	for (size_t i = 0; i < n; i++) {
		req[i] = (logged_request){ log->arrival[i], log->input_tokens[i], log->output_tokens[i], i };
		unsorted += i > 0 && log->arrival[i] < log->arrival[i - 1];
		finite &= isfinite(log->arrival[i]);
	}
	wc_request_log_free(log);
	if (unsorted && finite) {
		qsort(req, n, sizeof *req, by_arrival);
		fprintf(stderr, "wattcast %s: note: --replay %s: the log is not in arrival order (%zu request%s "
		        "before an earlier one); replayed sorted by arrival\n", cmd, path, unsorted,
		        unsorted == 1 ? "" : "s");
	}
	/* Times from the first arrival. */
	for (size_t i = 0; i < n; i++) {
		in->arrival_s[i] = req[i].t - req[0].t;
		in->arrival_in[i] = req[i].in;
		in->arrival_out[i] = req[i].out;
	}
	in->n_arrivals = n;
	free(req);
	w->n_arrivals = n;
	w->n_logged = 0;
	w->arrival_s = in->arrival_s;
	w->arrival_input = in->arrival_in;
	w->arrival_output = in->arrival_out;
	/* the requests replayed, those before the horizon's end: the lengths
	 * the rest lack are never drawn (docs/envelopes.md, "Engine") */
	wc_envelope_workload_window(w, horizon_s);
	/* every count the replay lacks is filled, a log without the column
	 * too (the reader counts only a column's blanks): it said "every
	 * request has its input_tokens" of a log with none */
	for (size_t i = 0; i < w->n_arrivals; i++) {
		no_in += !isfinite(in->arrival_in[i]);
		no_out += !isfinite(in->arrival_out[i]);
	}
	warn_missing(cmd, path, no_in, w->n_arrivals, "input_tokens", "--input-tokens", input_spec, &w->input, in);
	warn_missing(cmd, path, no_out, w->n_arrivals, "output_tokens", "--output-tokens", output_spec, &w->output, in);
	return CLI_OK;
}

int
cli_read_lengths(const char *cmd, const char *flag, const char *path, int output, cli_envelope_inputs *in)
{
	wc_request_log *log = NULL;
	if (read_log(cmd, flag, path, in, &log) != CLI_OK)
		return CLI_FAIL;
	double *v = wc_alloc_array(log->n, sizeof *v);
	size_t m = 0;
	/* a draw is at least one token: a logged output of 0 (a request that
	 * ended at its prefill) is no length to draw (docs/envelopes.md) */
	for (size_t i = 0; v && i < log->n; i++) {
		double x = output ? log->output_tokens[i] : log->input_tokens[i];
		if (isfinite(x) && x >= 1)
			v[m++] = x;
	}
	wc_request_log_free(log);
	if (!v)
		return cli_fail(cmd, "out of memory");
	if (m == 0) {
		free(v);
		return cli_fail(cmd, "%s: %s has no %s token counts", flag, path, output ? "output" : "input");
	}
	free(output ? in->out_values : in->in_values);
	*(output ? &in->out_values : &in->in_values) = v;
	*(output ? &in->n_out_values : &in->n_in_values) = m;
	return CLI_OK;
}

/* ---------------------------------------------------------- n(t) */

int
cli_read_series(const char *cmd, const char *path, cli_envelope_inputs *in, wc_envelope_workload *w)
{
	double *t = NULL, *v = NULL;
	size_t n = 0, *line = NULL;
	wc_error err;
	if (wc_series_read_samples(path, WC_ENVELOPE_MAX_RUNNING, &t, &v, &line, &n, &err) != WC_OK) {
		/* the flag's bytes come off the path's room, as predict's
		 * --running-series (docs/architecture.md, "Errors") */
		char msg[WC_ERROR_MSG_MAX];
		cli_flag_message(msg, sizeof msg, "--n-series", path, err.msg);
		return cli_fail(cmd, "%s", msg);
	}
	/* Each sample holds from its own time, until the next and the last
	 * for the median step: the holds predict's average weighs it by
	 * (wc_series_holds; docs/formats/runs-table.md, "n(t) series files").
	 * On a grid of the closest spacing, a sample off that grid moved by up
	 * to a step, and the means with it. The closest spacing keeps its
	 * bound; the samples are at most WC_SERIES_MAX, the HTTP series' bound
	 * (a grid of that spacing held no more): both named at their lines. */
	size_t at = 1;
	double dt = INFINITY;
	for (size_t i = 1; i < n; i++)
		if (t[i] - t[i - 1] < dt) {
			dt = t[i] - t[i - 1];
			at = i;
		}
	int rc = CLI_OK;
	if (dt > WC_ENVELOPE_MAX_SERIES_DT_S)
		rc = cli_fail_flag_path(cmd, "--n-series", path, ": lines %zu and %zu are %g s apart, the file's closest; "
		                        "its samples must be at most %g s apart",
		                        line[at - 1], line[at], dt, WC_ENVELOPE_MAX_SERIES_DT_S);
	else if (n > WC_SERIES_MAX)
		rc = cli_fail_flag_path(cmd, "--n-series", path, ":%zu:1: more than %d samples", line[WC_SERIES_MAX],
		                        WC_SERIES_MAX);
	else if (!(in->series_hold = wc_alloc_array(n, sizeof(double))) || wc_series_holds(t, n, in->series_hold) != WC_OK)
		rc = cli_fail(cmd, "out of memory");
	free(line);
	free(t);
	if (rc != CLI_OK) {
		free(v);
		return rc;
	}
	in->series = v;
	w->series_running = in->series;
	w->series_hold = in->series_hold;
	w->series_len = n;
	return CLI_OK;
}

/*
 * requests.csv, a per-request log in a plain CSV
 * (`arrival_s,completion_s[,first_token_s,input_tokens,output_tokens,
 * errors,success]`) for any load generator: read line by line through the
 * telemetry line reader, its bad lines named file:line:column as the other
 * telemetry CSVs' are (docs/formats/telemetry.md, "Request logs", "Bad
 * lines"). The JSON form and the checks both forms share are in
 * data/request_log.c.
 */
#include "data_internal.h"
#include "request_log_internal.h"
#include "telemetry_internal.h"

#include <math.h>
#include "models/grow.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REQ_MAX_FIELDS WC_REQUESTS_COLUMNS_MAX

enum { RC_ARRIVAL, RC_COMPLETION, RC_FIRST, RC_INPUT, RC_OUTPUT, RC_ERRORS, RC_SUCCESS, RC_COUNT };
/* The last two are text: a load generator's failure flags. */
static const char *const csv_names[RC_COUNT] = { "arrival_s", "completion_s", "first_token_s",
	                                         "input_tokens", "output_tokens", "errors", "success" };

/* A line naming `arrival_s` is a header. */
static int
is_header(wc__csv_field *f, int nf)
{
	for (int i = 0; i < nf; i++)
		if (strcmp(f[i].text, csv_names[RC_ARRIVAL]) == 0)
			return 1;
	return 0;
}

/* Find the CSV's columns (col[c] = -1 when absent); arrival and
 * completion are required. */
static int
csv_header(const char *path, size_t line_no, const wc__csv_field *f, int nf, int *col, wc_error *err)
{
	for (int c = 0; c < RC_COUNT; c++) {
		col[c] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(f[i].text, csv_names[c]) == 0)
				col[c] = i;
	}
	if (col[RC_ARRIVAL] < 0 || col[RC_COMPLETION] < 0)
		return wc_error_set_path(err, WC_EPARSE, path, ":%zu: header needs 'arrival_s' and 'completion_s'", line_no);
	return WC_OK;
}

/* A data line's values (NAN for absent optional ones; v[RC_ERRORS] 1
 * when the request failed: a non-empty `errors`, a false `success`) and
 * the byte column of each cell's value in at[] (0: no such column); 0
 * after reporting a bad line, at its cell. The failure flags are read
 * first: a failed request is left out whatever its other cells hold, as
 * requests.json's with an `errors` entry is (one rule for both forms,
 * docs/formats/telemetry.md, "Request logs") -- a load generator leaves
 * a failed request's completion blank, and that blank cell made the run
 * refused. */
static int
csv_values(wc__bad_lines *bad, size_t line_no, wc__csv_field *f, const int *col, double *v, int *at)
{
	for (int c = 0; c < RC_COUNT; c++) {
		v[c] = NAN;
		at[c] = 0;
	}
	for (int c = RC_ERRORS; c <= RC_SUCCESS; c++) {
		if (col[c] < 0)
			continue;
		size_t fl = strlen(f[col[c]].text);
		const char *s = wc__trim(f[col[c]].text, &fl);
		at[c] = wc__csv_cell_column(&f[col[c]], s);
		if (c == RC_ERRORS) {
			v[RC_ERRORS] = fl > 0;
			continue;
		}
		int no = (fl == 5 && strncasecmp(s, "false", 5) == 0) || (fl == 1 && s[0] == '0');
		if (!no && !(fl == 4 && strncasecmp(s, "true", 4) == 0) && !(fl == 1 && s[0] == '1')) {
			wc__bad_cell(bad, line_no, at[c], "success: expected True or False, got '%.*s'",
			             (int)(fl > 40 ? 40 : fl), s);
			return 0;
		}
		v[RC_ERRORS] = v[RC_ERRORS] == 1 || no;
	}
	if (v[RC_ERRORS] == 1)
		return 1;
	for (int c = 0; c < RC_ERRORS; c++) {
		if (col[c] < 0)
			continue;
		size_t fl = strlen(f[col[c]].text);
		const char *s = wc__trim(f[col[c]].text, &fl);
		at[c] = wc__csv_cell_column(&f[col[c]], s);
		/* blank, N/A or NaN (Python's csv writer): unknown, as a JSON
		 * null (docs/formats/telemetry.md, "Missing cells") */
		if (wc__is_missing(s, fl) && c != RC_ARRIVAL && c != RC_COMPLETION)
			continue;
		if (wc__parse_number(s, fl, &v[c]) != 0) {
			wc__bad_cell(bad, line_no, at[c], "%s: expected a number, got '%.*s'", csv_names[c],
			             (int)(fl > 40 ? 40 : fl), s);
			return 0;
		}
		if ((c == RC_INPUT || c == RC_OUTPUT) && !wc__request_log_is_token_count(bad->opt, c == RC_INPUT, v[c])) {
			/* the cell as written: %g rounds 44.0000001 to a whole 44 */
			double lo, hi;
			wc__request_log_token_range(bad->opt, c == RC_INPUT, &lo, &hi);
			wc__bad_cell(bad, line_no, at[c], "%s = %.*s is no token count (a whole number, %g "
			             "to %g)", csv_names[c], (int)(fl > 40 ? 40 : fl), s, lo, hi);
			return 0;
		}
	}
	return 1;
}

/* A request's times, judged each on its own unit before any two are
 * compared: a time in milliseconds (or micro-, nanoseconds) beside the
 * row's seconds is that cell's error, not a completion before its
 * arrival; a first row all of whose times are of another unit is the
 * file's when the next row's arrival is too (wc__request_log_other_unit),
 * else that row's bad line. Then the span from the log's
 * first arrival, then the order (docs/formats/telemetry.md, "Times in
 * another unit"). 1 when they are usable; 0 after reporting a bad line,
 * at its cell; -1 with the file's error in err. */
/* The first data line all of whose times are of another unit, held
 * until the next line with times says whether that unit is the log's
 * (both of it: refused) or the line's slip (a bad line, as any later
 * one): wc__request_log_other_unit, the rule requests.json shares. */
typedef struct {
	int held, judged;
	size_t line_no;
	int col, at;        /* its leftmost time of another unit, and where */
	double t, arrival;
	int arrival_at;
} csv_first;

/* The held first line is a bad line at its leftmost time's cell. */
static void
first_bad(wc__bad_lines *bad, csv_first *h)
{
	char why[160];
	wc_prom_time_other_unit(h->t, why, sizeof why);
	wc__bad_cell(bad, h->line_no, h->at, "%s: %s: another unit than seconds?", csv_names[h->col], why);
	h->held = 0;
}

/* The held first line against `next`, the next line's arrival (NaN at
 * the end): -1 with the file's error in err when the unit is the log's. */
static int
first_judge(wc__bad_lines *bad, csv_first *h, double next, wc_error *err)
{
	char where[64];
	if (!h->held)
		return 0;
	snprintf(where, sizeof where, ":%zu:%d", h->line_no, h->arrival_at);
	if (wc__request_log_other_unit(h->arrival, next, bad->path, where, err) != WC_OK)
		return -1;
	first_bad(bad, h);
	return 0;
}

static int
csv_times(wc__bad_lines *bad, const wc_request_log *log, csv_first *h, size_t line_no, const double *v,
          const int *at, wc_error *err)
{
	static const int times[] = { RC_ARRIVAL, RC_FIRST, RC_COMPLETION };
	int other = -1, n_other = 0, n_times = 0;
	char why[160];
	for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
		int c = times[k];
		if (isnan(v[c]))
			continue;
		n_times++;
		if (wc_prom_time_other_unit(v[c], why, sizeof why)) {
			n_other++;
			other = other < 0 || at[c] < at[other] ? c : other; /* the leftmost */
		}
	}
	if (h->held && !isnan(v[RC_ARRIVAL]) && first_judge(bad, h, v[RC_ARRIVAL], err) < 0)
		return -1;
	if (log->n == 0 && !h->judged && n_times > 0) {
		h->judged = 1;
		if (n_other > 0 && n_other == n_times) {
			*h = (csv_first){ 1, 1, line_no, other, at[other], v[other], v[RC_ARRIVAL], at[RC_ARRIVAL] };
			return 0;
		}
	}
	if (other >= 0) {
		wc_prom_time_other_unit(v[other], why, sizeof why);
		wc__bad_cell(bad, line_no, at[other], "%s: %s: another unit than seconds?", csv_names[other], why);
		return 0;
	}
	if (log->n > 0) {
		double first = log->arrival[0] - bad->opt->epoch_offset_s;
		int c = -1;
		if (wc__request_log_time_odd(v[RC_ARRIVAL], first, 0, why, sizeof why))
			c = RC_ARRIVAL;
		else if (v[RC_COMPLETION] - v[RC_ARRIVAL] > WC__REQ_MAX_SPAN_S)
			wc__request_log_far(v[c = RC_COMPLETION], first, why, sizeof why);
		if (c >= 0) {
			wc__bad_cell(bad, line_no, at[c], "%s: %s", csv_names[c], why);
			return 0;
		}
	}
	if (v[RC_COMPLETION] < v[RC_ARRIVAL]) {
		wc__bad_cell(bad, line_no, at[RC_COMPLETION], "completion_s: completion before arrival (by %.3g s)",
		             v[RC_ARRIVAL] - v[RC_COMPLETION]);
		return 0;
	}
	/* a first token outside its request's span: the times of two
	 * requests or two columns mixed, which would put its prefill or
	 * its decode where no request was */
	if (v[RC_FIRST] < v[RC_ARRIVAL] || v[RC_FIRST] > v[RC_COMPLETION]) {
		int early = v[RC_FIRST] < v[RC_ARRIVAL];
		wc__bad_cell(bad, line_no, at[RC_FIRST], "first_token_s: first token %s (by %.3g s)",
		             early ? "before arrival" : "after completion",
		             early ? v[RC_ARRIVAL] - v[RC_FIRST] : v[RC_FIRST] - v[RC_COMPLETION]);
		return 0;
	}
	return 1;
}

/* Room for one more request in every array of the log. */
static int
log_reserve(wc_request_log *log, size_t *cap, const char *path, wc_error *err)
{
	if (log->n < *cap)
		return WC_OK;
	size_t nc = wc_next_capacity(*cap, *cap + 1, 1024, SIZE_MAX);
	double **arrs[5] = { &log->arrival, &log->first_token, &log->completion,
		             &log->input_tokens, &log->output_tokens };
	for (int k = 0; k < 5; k++) {
		double *nb = nc ? wc_resize_array(*arrs[k], nc, sizeof(double)) : NULL;
		if (!nb)
			return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		*arrs[k] = nb;
	}
	*cap = nc;
	return WC_OK;
}

int
wc__request_log_read_csv(const char *path, const wc_telemetry_options *opt, wc_request_log **out, wc_error *err)
{
	wc__line_reader lr;
	wc__bad_lines bad = { .path = path, .opt = opt };
	wc__csv_field f[REQ_MAX_FIELDS];
	wc_request_log *log = NULL;
	int col[RC_COUNT], n_cols = 0, header = 0, rc;
	size_t cap = 0, data_lines = 0, failed = 0;
	if ((rc = wc__lr_open(&lr, path, opt, err)) != WC_OK)
		return rc;
	if (!(log = wc__request_log_alloc(1024))) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	cap = 1024;
	csv_first first = { 0 };
	const char *reason = NULL;
	int nf;
	while ((nf = wc__lr_next_record(&lr, &bad, header, &data_lines, f, REQ_MAX_FIELDS, &reason,
	                                err)) != 0) {
		if (nf < 0 && nf != WC__CSV_BAD) {
			rc = nf;
			goto done;
		}
		if (!header) {
			if ((rc = csv_header(path, lr.line_no, f, nf, col, err)) != WC_OK)
				goto done;
			n_cols = nf;
			header = 1;
			continue;
		}
		data_lines++;
		if (nf > 0 && is_header(f, nf)) {
			/* a header again (a logger restarted, appending): not a data
			 * line; other columns or order re-map the lines after it */
			int was[RC_COUNT], n_was = n_cols, same;
			memcpy(was, col, sizeof was);
			data_lines--;
			if ((rc = csv_header(path, lr.line_no, f, nf, col, err)) != WC_OK)
				goto done;
			n_cols = nf;
			same = n_was == n_cols && memcmp(was, col, sizeof was) == 0;
			if (!same)
				wc__warn(opt, path, ":%zu: a header again, naming other columns or another order than the "
				         "first: the lines after it are read by it", lr.line_no);
			continue;
		}
		if (nf != n_cols) {
			/* at the column where its fields ran out or over, as
			 * engine.csv's and power.csv's (wc__csv_field_count_column) */
			if (nf == WC__CSV_BAD)
				wc__bad_cell(&bad, lr.line_no, lr.stop, "%s", reason);
			else
				wc__bad_cell(&bad, lr.line_no, wc__csv_field_count_column(f, nf, n_cols, lr.stop),
				             "expected %d fields, found %d", n_cols, nf);
			continue;
		}
		double v[RC_COUNT];
		int at[RC_COUNT], ok;
		if (!csv_values(&bad, lr.line_no, f, col, v, at))
			continue;
		if (v[RC_ERRORS] == 1) {
			failed++;
			continue;
		}
		if ((ok = csv_times(&bad, log, &first, lr.line_no, v, at, err)) < 0) {
			rc = WC_EINVAL;
			goto done;
		}
		if (!ok)
			continue;
		if ((rc = log_reserve(log, &cap, path, err)) != WC_OK)
			goto done;
		size_t k = log->n++;
		log->arrival[k] = v[RC_ARRIVAL] + opt->epoch_offset_s;
		log->completion[k] = v[RC_COMPLETION] + opt->epoch_offset_s;
		log->first_token[k] = v[RC_FIRST] + opt->epoch_offset_s;
		log->input_tokens[k] = v[RC_INPUT];
		log->output_tokens[k] = v[RC_OUTPUT];
	}
	if (first_judge(&bad, &first, NAN, err) < 0) {
		rc = WC_EINVAL;
		goto done;
	}
	if ((rc = wc__bad_lines_finish(&bad, data_lines, err)) != WC_OK)
		goto done;
	wc__request_log_warn_failed(path, opt, failed, data_lines);
	wc__request_log_warn_repeats(log, path, opt);
	wc__request_log_count_missing(log, col[RC_INPUT] >= 0, col[RC_OUTPUT] >= 0);
	*out = log;
	log = NULL;
done:
	wc_request_log_free(log);
	wc__lr_close(&lr);
	return rc;
}

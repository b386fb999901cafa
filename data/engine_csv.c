/*
 * vLLM engine counters sampled into a CSV: a `timestamp` column (Unix
 * epoch seconds) and one column per Prometheus sample
 * (num_requests_running = n(t) of SPEC §1, token and iteration counters,
 * prefill/decode time sums for the phase split of TokenPowerBench).
 * Streamed line by line (CRLF or LF) into columns; unknown columns are
 * ignored, absent ones stay NULL.
 */
#include "data_internal.h"
#include "telemetry_internal.h"

#include <math.h>
#include "models/grow.h"
#include <stdlib.h>
#include <string.h>

#define ENG_MAX_FIELDS 256

static const char *const column_names[WC_ENG_COLUMNS] = {
	"num_requests_running", "num_requests_waiting", "gpu_cache_usage_perc",
	"prompt_tokens_total", "generation_tokens_total", "iteration_tokens_total_sum",
	"iteration_tokens_total_count", "request_prefill_time_seconds_sum",
	"request_decode_time_seconds_sum", "num_preemptions_total",
};

const char *
wc_engine_column_name(wc_engine_column c)
{
	return c >= 0 && c < WC_ENG_COLUMNS ? column_names[c] : "?";
}

int
wc_engine_column_is_counter(wc_engine_column c)
{
	return c >= WC_ENG_PROMPT_TOKENS && c < WC_ENG_COLUMNS;
}

void
wc_engine_free(wc_engine_log *e)
{
	if (!e)
		return;
	free(e->t);
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		free(e->col[c]);
	free(e);
}

/* Map a header name (optionally "vllm:"-prefixed) to a column; -1 = the
 * timestamp, -2 = not ours. */
static int
header_column(const char *name)
{
	if (strncmp(name, "vllm:", 5) == 0)
		name += 5;
	if (strcmp(name, "timestamp") == 0)
		return -1;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (strcmp(name, column_names[c]) == 0)
			return c;
	return -2;
}

static int
grow(wc_engine_log *e, size_t *cap, size_t max_rows, const char *path, wc_error *err)
{
	if (e->n < *cap)
		return WC_OK;
	if (e->n >= max_rows)
		return wc_error_set(err, WC_ERANGE, "%s: more than %zu rows", path, max_rows);
	size_t nc = wc_next_capacity(*cap, e->n + 1, 1024, max_rows);
	double *nt = nc ? wc_resize_array(e->t, nc, sizeof *nt) : NULL;
	if (!nt)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
	e->t = nt;
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c])
			continue;
		double *nv = wc_resize_array(e->col[c], nc, sizeof *nv);
		if (!nv)
			return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
		e->col[c] = nv;
	}
	*cap = nc;
	return WC_OK;
}

int
wc_engine_read(const char *path, const wc_telemetry_options *opt, size_t max_rows,
               wc_engine_log **out, wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	wc__line_reader lr;
	wc__bad_lines bad = { path, opt ? opt : &defaults, 0, 0 };
	wc__csv_field *f = NULL;
	wc_engine_log *e = NULL;
	int map[ENG_MAX_FIELDS], n_cols = 0, time_col = -1, header = 0, rc;
	double raw_prev[WC_ENG_COLUMNS], reset_add[WC_ENG_COLUMNS];
	size_t cap = 0;
	*out = NULL;
	if (!opt)
		opt = &defaults;
	if (max_rows == 0)
		max_rows = (size_t)1 << 24;
	if ((rc = wc__lr_open(&lr, path, err)) != WC_OK)
		return rc;
	f = malloc(ENG_MAX_FIELDS * sizeof *f);
	e = calloc(1, sizeof *e);
	if (!f || !e) {
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
		goto done;
	}
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		raw_prev[c] = reset_add[c] = 0.0;
	const char *reason = NULL;
	int nf;
	while ((nf = wc__lr_next_record(&lr, &bad, header, &e->data_lines, f, ENG_MAX_FIELDS, &reason,
	                                err)) != 0) {
		if (nf < 0 && nf != WC__CSV_BAD) {
			rc = nf;
			goto done;
		}
		if (!header) {
			for (int i = 0; i < nf; i++) {
				size_t fl = strlen(f[i].text);
				char *name = wc__trim(f[i].text, &fl);
				name[fl] = '\0';
				map[i] = header_column(name);
				if (map[i] == -1)
					time_col = i;
				else if (map[i] >= 0 && !e->col[map[i]])
					e->col[map[i]] = malloc(sizeof(double)); /* grown with the rows */
				else if (map[i] >= 0)
					map[i] = -2; /* a repeated column: first one wins */
			}
			for (int c = 0; c < WC_ENG_COLUMNS; c++)
				for (int i = 0; i < nf; i++)
					if (map[i] == c && !e->col[c]) {
						rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
						goto done;
					}
			if (time_col < 0) {
				rc = wc_error_set(err, WC_EPARSE, "%s:%zu: no 'timestamp' column in the header",
				                  path, lr.line_no);
				goto done;
			}
			n_cols = nf;
			header = 1;
			continue;
		}
		e->data_lines++;
		if (nf != n_cols) {
			if (nf == WC__CSV_BAD)
				wc__bad_line(&bad, lr.line_no, "%s", reason);
			else
				wc__bad_line(&bad, lr.line_no, "expected %d fields, found %d", n_cols, nf);
			continue;
		}
		double row[WC_ENG_COLUMNS], t = NAN;
		int ok = 1;
		for (int c = 0; c < WC_ENG_COLUMNS; c++)
			row[c] = NAN;
		for (int i = 0; i < nf && ok; i++) {
			if (map[i] == -2)
				continue;
			size_t fl = strlen(f[i].text);
			const char *v = wc__trim(f[i].text, &fl);
			double x;
			if (wc__is_missing(v, fl)) {
				if (i == time_col) {
					wc__bad_line(&bad, lr.line_no, "no timestamp");
					ok = 0;
				}
				continue;
			}
			if (wc__parse_number(v, fl, &x) != 0) {
				wc__bad_line(&bad, lr.line_no, "%s: expected a number, got '%.*s'",
				             i == time_col ? "timestamp" : wc_engine_column_name((wc_engine_column)map[i]),
				             (int)(fl > 40 ? 40 : fl), v);
				ok = 0;
			} else if (i == time_col) {
				t = x + opt->epoch_offset_s;
			} else {
				row[map[i]] = x;
			}
		}
		if (!ok)
			continue;
		if (e->n > 0 && !(t > e->t[e->n - 1])) {
			wc__bad_line(&bad, lr.line_no, "timestamp %.3f is not after the previous row's", t);
			continue;
		}
		if ((rc = grow(e, &cap, max_rows, path, err)) != WC_OK)
			goto done;
		e->t[e->n] = t;
		for (int c = 0; c < WC_ENG_COLUMNS; c++) {
			if (!e->col[c])
				continue;
			double x = row[c];
			if (wc_engine_column_is_counter((wc_engine_column)c) && isfinite(x)) {
				/* Prometheus counters restart at 0 with the server: a
				 * drop continues from the last value seen. */
				if (x < raw_prev[c])
					reset_add[c] += raw_prev[c];
				raw_prev[c] = x;
				x += reset_add[c];
			}
			e->col[c][e->n] = x;
		}
		e->n++;
	}
	e->bad_lines = bad.bad;
	if ((rc = wc__bad_lines_finish(&bad, e->data_lines, err)) != WC_OK)
		goto done;
	/* Fill missing values of a present column from the sample before (a
	 * gauge holds, a counter has not moved). */
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c])
			continue;
		double last = NAN;
		for (size_t i = 0; i < e->n; i++) {
			if (isnan(e->col[c][i]))
				e->col[c][i] = last;
			else
				last = e->col[c][i];
		}
	}
	*out = e;
	e = NULL;
	rc = WC_OK;
done:
	free(f);
	wc_engine_free(e);
	wc__lr_close(&lr);
	return rc;
}

double
wc_engine_value_at(const wc_engine_log *e, wc_engine_column c, double t)
{
	if (!e || e->n == 0 || c < 0 || c >= WC_ENG_COLUMNS || !e->col[c] || isnan(t))
		return NAN;
	const double *v = e->col[c];
	/* Last sample at or before t (binary search). */
	size_t lo = 0, hi = e->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (!wc_engine_column_is_counter(c) || t <= e->t[0] || lo + 1 >= e->n)
		return v[lo];
	double a = v[lo], b = v[lo + 1];
	if (isnan(a) || isnan(b))
		return isnan(a) ? b : a;
	return a + (b - a) * (t - e->t[lo]) / (e->t[lo + 1] - e->t[lo]);
}

/*
 * vLLM (SGLang, TGI) engine counters sampled into a CSV: a `timestamp` column
 * (epoch s) and one column per Prometheus sample (num_requests_running = the
 * law's n(t), token and iteration counters, prefill/decode time sums for the
 * phase split). Streamed line by line into columns; unknown columns are
 * ignored, absent ones stay NULL.
 */
#include "engine_csv_internal.h"

#include <math.h>
#include <stdio.h>
#include "models/grow.h"
#include <stdlib.h>
#include <string.h>

int
wc_engine_column_is_counter(wc_engine_column c)
{
	return c >= WC_ENG_PROMPT_TOKENS && c < WC_ENG_COLUMNS;
}

const double *
wc_engine_live(const wc_engine_log *e, wc_engine_column c)
{
	return e && c >= 0 && c < WC_ENG_COLUMNS && !e->at_end[c] ? e->col[c] : NULL;
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

static int
grow(wc_engine_log *e, wc__engine_counters *set, size_t **line, int **cell, size_t *cap, size_t max_rows,
     const char *path, wc_error *err)
{
	if (e->n < *cap)
		return WC_OK;
	if (e->n >= max_rows)
		return wc_error_set_path(err, WC_ERANGE, path, ": more than %zu rows", max_rows);
	size_t nc = wc_next_capacity(*cap, e->n + 1, 1024, max_rows);
	double *nt = nc ? wc_resize_array(e->t, nc, sizeof *nt) : NULL;
	if (!nt)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	e->t = nt;
	size_t *nl = wc_resize_array(*line, nc, sizeof *nl);
	if (!nl)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	*line = nl;
	int *nc_cell = wc_resize_array(*cell, nc, sizeof *nc_cell);
	if (!nc_cell)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	*cell = nc_cell;
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c])
			continue;
		double *nv = wc_resize_array(e->col[c], nc, sizeof *nv);
		if (!nv)
			return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		e->col[c] = nv;
	}
	if (wc__engine_counters_grow(set, nc) != WC_OK)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	*cap = nc;
	return WC_OK;
}

/* The first time read decides whether the column holds times at all:
 * unreadable there, the file is refused in one error naming the forms
 * taken (epoch seconds, or RFC 3339 with a zone through the Prometheus
 * path's parser; docs/formats/telemetry.md, "Timestamps"), not line by
 * line; a number of another unit there (Date.now()'s milliseconds) is
 * refused naming the unit, at its cell as requests.csv's first arrival
 * ("Clocks and UTC offsets"). 1 with a time in *x; 0 after reporting a bad
 * line; -1 with the file's error in r->time_err. */
static int
read_time(eng_reader *r, const wc__csv_field *fd, const char *v, size_t fl, size_t line_no, double *x)
{
	char why[160];
	if (wc__parse_number(v, fl, x) == 0 || wc__parse_zoned_time(v, fl, x, NULL, 0) == 0) {
		if (!r->timed && wc_prom_time_other_unit(*x + r->opt->epoch_offset_s, why, sizeof why)) {
			wc_error_format_path(r->time_err, sizeof r->time_err, r->path, ":%zu:%d: the first timestamp is not "
			                     "epoch seconds: %s; convert them to seconds", line_no,
			                     wc__csv_cell_column(fd, v), why);
			return -1;
		}
		r->timed = 1;
		return 1;
	}
	if (!r->timed) {
		wc_error_format_path(r->time_err, sizeof r->time_err, r->path, ":%zu:%d: timestamp '%.*s': expected epoch "
		         "seconds or RFC 3339 with Z or an offset", line_no, wc__csv_cell_column(fd, v),
		         (int)(fl > 40 ? 40 : fl), v);
		return -1;
	}
	wc__bad_cell(r->bad, line_no, wc__csv_cell_column(fd, v), "timestamp: expected a number, got '%.*s'",
	             (int)(fl > 40 ? 40 : fl), v);
	return 0;
}

/* Parse one data line's fields into `row` (NAN where missing) and `*t`.
 * Returns 0 after reporting a bad line, 1 otherwise, -1 for a first
 * timestamp that is none (read_time). */
static int
parse_line(eng_reader *r, wc__csv_field *f, int nf, size_t line_no,
           double row[WC_ENG_COLUMNS], double *t)
{
	int ok = 1, part[WC_ENG_COLUMNS] = { 0 };
	unsigned char got[ENG_MAX_FIELDS] = { 0 }; /* a field's cell read in this row */
	*t = NAN;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		row[c] = NAN;
	wc__engine_counters_clear_row(&r->counters);
	for (int j = 0; j < nf && ok == 1; j++) {
		/* A field standing in for another (one engine's series under a
		 * restarted process) is read as that one where it has no cell. */
		int i = r->map[j] == -2 && r->join[j] >= 0 && r->map[r->join[j]] >= 0 ? r->join[j] : j;
		if (r->map[i] == -2 || got[i])
			continue;
		size_t fl = strlen(f[j].text);
		const char *v = wc__trim(f[j].text, &fl);
		double x;
		/* A NaN is an unknown sample, gauge or counter, as a blank cell
		 * is and as the Prometheus readers take it: Python and Prometheus
		 * write `nan` / `NaN` for a gauge they did not have; wc__is_missing
		 * is the one rule (docs/formats/telemetry.md, "Missing cells"). */
		if (wc__is_missing(v, fl)) {
			if (i == r->time_col) {
				wc__bad_cell(r->bad, line_no, wc__csv_cell_column(&f[j], v), "no timestamp");
				ok = 0;
			}
			continue;
		}
		got[i] = 1;
		if (i == r->time_col) {
			r->time_at = wc__csv_cell_column(&f[j], v);
			if ((ok = read_time(r, &f[j], v, fl, line_no, &x)) == 1)
				*t = x + r->opt->epoch_offset_s;
		} else if (wc__parse_number(v, fl, &x) != 0) {
			wc__bad_cell(r->bad, line_no, wc__csv_cell_column(&f[j], v), "%s: expected a number, got '%.*s'",
			             wc_engine_column_name((wc_engine_column)r->map[i]), (int)(fl > 40 ? 40 : fl), v);
			ok = 0;
		} else if (r->map[i] >= 0) {
			wc_engine_column c = (wc_engine_column)r->map[i];
			if (wc_engine_column_is_counter(c) && !(x >= 0.0 && x <= WC_ENGINE_MAX_COUNTER)) {
				wc__bad_cell(r->bad, line_no, wc__csv_cell_column(&f[j], v), "%s = %.10g is no counter value "
				             "(0 to %.0e)", wc_engine_column_name(c), x, WC_ENGINE_MAX_COUNTER);
				ok = 0;
			}
			row[c] = r->sum[i] && !isnan(row[c]) ? row[c] + x : x;
			part[c]++;
			if (r->counter[i] >= 0)
				r->counters.s[r->counter[i]].row = x;
		}
	}
	/* Summed series: unknown unless every one has its cell; a cache's
	 * usage is the engines' mean. */
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (r->n_series[c] > 1)
			row[c] = part[c] < r->n_series[c] ? NAN : c == WC_ENG_CACHE_USAGE ? row[c] / part[c] : row[c];
	return ok;
}

/* Put a parsed row as read in the slot past the rows (row e->n), kept
 * when `keep` (the rows one more); counters are checked once all are in
 * (settle_counters). */
static int
append_row(eng_reader *r, const double row[WC_ENG_COLUMNS], double t, size_t line_no, int keep, wc_error *err)
{
	wc_engine_log *e = r->e;
	int rc;
	if ((rc = grow(e, &r->counters, &r->line, &r->cell, &r->cap, r->max_rows, r->path, err)) != WC_OK)
		return rc;
	wc__engine_counters_append(&r->counters, e->n);
	e->t[e->n] = t;
	r->line[e->n] = line_no;
	r->cell[e->n] = r->time_at;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (e->col[c])
			e->col[c][e->n] = row[c];
	if (keep)
		e->n++;
	return WC_OK;
}

/* An unfinished last line (no newline: the log was cut while being
 * written) that does not parse, or whose counters fall below the row
 * before (a number cut short), is half a row, not a malformed one: dropped
 * with a warning and left out of the bad-line share, as power.csv's is
 * (docs/formats/telemetry.md, "A log still being written"). 1 when it was
 * dropped. */
static int
drop_unfinished(eng_reader *r, wc__csv_field *f, int nf, size_t line_no)
{
	wc_engine_log *e = r->e;
	double row[WC_ENG_COLUMNS], t;
	int whole = 0;
	if (nf == r->n_cols) {
		wc__bad_lines kept = *r->bad;
		r->bad->opt = NULL; /* counted, not shown: undone below */
		whole = parse_line(r, f, nf, line_no, row, &t) == 1 && (e->n == 0 || t > e->t[e->n - 1]);
		*r->bad = kept;
		whole = whole && !(e->n > 0 && wc__engine_counters_fell(&r->counters, e->n - 1));
	}
	if (whole)
		return 0;
	wc__warn(r->opt, r->path, ":%zu: " WC_UNFINISHED_LINE_DROPPED, line_no);
	return 1;
}

/* The held-back lines, once a line with the header's field count shows
 * the header right: bad lines, said in one warning. */
static void
held_lines(eng_reader *r)
{
	size_t n = r->held;
	r->held = 0;
	if (n == 0 || !r->opt->warn || (int)r->bad->shown >= r->opt->max_warnings)
		return;
	r->bad->shown += n; /* all said in this one */
	wc__warn(r->opt, r->path, ":%zu:%d: expected %d fields, found %d (to line %zu)", r->held_first,
	         r->held_column, r->n_cols, r->held_nf, r->held_last);
}

/* No data line has the header's field count, all have one other count:
 * the header is what is wrong -- per-line errors and a hint to allow
 * more bad lines would point away from it (docs/formats/telemetry.md,
 * "engine.csv"). */
static int
wrong_header(const eng_reader *r, wc_error *err)
{
	/* one field holding another separator: the data lines are what is
	 * wrong (a locale's ';'), not the comma-separated header */
	if (r->held_nf == 1 && r->held_sep)
		return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu: the data lines are separated by '%s', the header by ',' "
		                    "(%zu lines); write every line with commas; nothing read", r->held_first,
		                    r->held_sep == ';' ? ";" : "\\t", r->held);
	return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu: the header has %d fields, every data line %d (%zu "
	                    "lines): the header is wrong (a name with an unquoted comma?); nothing read", r->header_line,
	                         r->n_cols, r->held_nf, r->held);
}

/* A line with a field `timestamp` is a header again (a logger restarted
 * appending to the file). The same columns: skipped. Others, or another
 * order: the lines after it are read by it, said at its line
 * (docs/formats/telemetry.md, "engine.csv"); read by the old header they
 * took the waiting requests for n(t) and prompt tokens for generated ones.
 * One that leaves out a series the rows before it had -- a column, or
 * one engine of a column adding engines up -- ends the log at the row
 * before it: the column's value is unknown from there on, and held flat
 * it made the engine drop to 0 running and count no more tokens (a real
 * run split into two engines read 5.36 running for 8.07). */
static int
repeated_header(eng_reader *r, wc__csv_field *f, int nf, size_t line_no, wc_error *err)
{
	int map[ENG_MAX_FIELDS], join[ENG_MAX_FIELDS], n_cols = r->n_cols, rc, same = 1;
	unsigned char sum[ENG_MAX_FIELDS];
	size_t first = r->header_line, n_old = r->n_read, left;
	eng_series *old = r->read;
	char name[96], without[WC_ENG_COLUMNS][64];
	memcpy(map, r->map, sizeof map);
	memcpy(sum, r->sum, sizeof sum);
	memcpy(join, r->join, sizeof join);
	memcpy(without, r->e->engine_without, sizeof without);
	r->e->data_lines--; /* not a data line */
	r->read = NULL;
	r->n_read = 0;
	if ((rc = wc__engine_map_header(r, f, nf, line_no, err)) != WC_OK) {
		free(old);
		return rc;
	}
	for (int i = 0; i < n_cols; i++)
		same = same && n_cols == r->n_cols && map[i] == r->map[i] && sum[i] == r->sum[i] && join[i] == r->join[i];
	left = r->e->n > 0 ? wc__engine_series_left_out(r, old, n_old, name, sizeof name) : 0;
	free(old);
	if (left > 0) {
		char more[48] = "";
		if (left > 1)
			snprintf(more, sizeof more, " (and %zu more series)", left - 1);
		r->ended = 1;
		/* no line is read by it: the engines it names are none the rows had */
		memcpy(r->e->engine_without, without, sizeof without);
		wc__warn(r->opt, r->path, ":%zu: a header again, leaving out %s%s that line %zu's named: unknown "
		         "from here on, so the log ends at line %zu", line_no, name, more, first,
		         r->line[r->e->n - 1]);
	} else if (!same) {
		wc__warn(r->opt, r->path, ":%zu: a header again, naming other columns or another order than line %zu's: "
		         "the lines after it are read by it", line_no, first);
	}
	return WC_OK;
}

static int
is_header(wc__csv_field *f, int nf)
{
	for (int i = 0; i < nf; i++) {
		size_t fl = strlen(f[i].text);
		const char *v = wc__trim(f[i].text, &fl);
		if (fl == 9 && strncmp(v, "timestamp", 9) == 0)
			return 1;
	}
	return 0;
}

/* One data line (nf fields, or WC__CSV_BAD with `reason`; its split
 * stopped at column `stop`, wc__csv_split_to): counted, then appended or
 * reported as bad. A field count other than the header's names the
 * column as power.csv's does (wc__csv_field_count_column). */
static int
data_line(eng_reader *r, wc__csv_field *f, int nf, const char *reason, size_t line_no, int stop,
          int unfinished, wc_error *err)
{
	wc_engine_log *e = r->e;
	double row[WC_ENG_COLUMNS], t;
	const int column = wc__csv_field_count_column(f, nf, r->n_cols, stop);
	e->data_lines++;
	if (unfinished && drop_unfinished(r, f, nf, line_no))
		return WC_OK;
	if (nf > 0 && is_header(f, nf)) {
		wc__engine_clock_drop_held(r); /* its columns may change */
		return repeated_header(r, f, nf, line_no, err);
	}
	if (nf != r->n_cols) {
		if (nf == WC__CSV_BAD) {
			wc__bad_cell(r->bad, line_no, stop, "%s", reason);
		} else if (!r->matched && (r->held == 0 || nf == r->held_nf)) {
			wc__bad_lines_count(r->bad, line_no); /* a bad line, said later (held_lines) */
			if (!r->held && nf == 1)
				r->held_sep = strchr(f[0].text, ';') ? ';' : strchr(f[0].text, '\t') ? '\t' : '\0';
			r->held_column = r->held ? r->held_column : column;
			r->held_first = r->held ? r->held_first : line_no;
			r->held_last = line_no;
			r->held_nf = nf;
			r->held++;
		} else {
			wc__bad_cell(r->bad, line_no, column, "expected %d fields, found %d", r->n_cols, nf);
		}
		return WC_OK;
	}
	if (!r->matched) {
		r->matched = 1;
		held_lines(r);
	}
	int ok = parse_line(r, f, nf, line_no, row, &t);
	if (ok < 0)
		return wc_error_set(err, WC_EPARSE, "%s", r->time_err);
	if (!ok)
		return WC_OK;
	switch (wc__engine_clock_judge(r, t, line_no)) {
	case WC__CLOCK_HOLD:
		r->held_row = 1;
		return append_row(r, row, t, line_no, 0, err);
	case WC__CLOCK_SKIP:
		return WC_OK;
	case WC__CLOCK_KEEP:
		break;
	}
	return append_row(r, row, t, line_no, 1, err);
}

/* Fill missing values of a present column from the sample before (a
 * gauge holds, a counter has not moved). Before a gauge's first value
 * nothing is held: it is unknown there, not 0 (wc_engine_first_row; a
 * counter has not started there, wc__engine_settle). */
static void
fill_missing(wc_engine_log *e)
{
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
}

int
wc_engine_read(const char *path, const wc_telemetry_options *opt, size_t max_rows,
               wc_engine_log **out, wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	wc__line_reader lr;
	wc__bad_lines bad = { .path = path, .opt = opt ? opt : &defaults };
	wc__csv_field *f = NULL;
	wc_engine_log *e = NULL;
	eng_reader r = { .path = path, .bad = &bad, .time_col = -1 };
	int header = 0, rc;
	*out = NULL;
	if (!opt)
		opt = &defaults;
	if (max_rows == 0)
		max_rows = (size_t)1 << 24;
	r.opt = opt;
	r.max_rows = max_rows;
	if ((rc = wc__lr_open(&lr, path, opt, err)) != WC_OK)
		return rc;
	lr.long_header_hint = ", such as histograms' *_bucket series";
	f = wc_alloc_array(ENG_MAX_FIELDS, sizeof *f);
	e = calloc(1, sizeof *e);
	if (!f || !e) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	r.e = e;
	const char *reason = NULL;
	int nf;
	while ((nf = wc__lr_next_record(&lr, &bad, header, &e->data_lines, f, ENG_MAX_FIELDS, &reason,
	                                err)) != 0) {
		if (nf < 0 && nf != WC__CSV_BAD) {
			rc = nf;
			goto done;
		}
		if (!header) {
			if ((rc = wc__engine_map_header(&r, f, nf, lr.line_no, err)) != WC_OK)
				goto done;
			header = 1;
			continue;
		}
		if ((rc = data_line(&r, f, nf, reason, lr.line_no, lr.stop, lr.unfinished, err)) != WC_OK)
			goto done;
		if (r.ended)
			break; /* a header leaving a series out: repeated_header */
	}
	wc__engine_clock_end(&r);
	if (!r.matched && r.held > 0 && r.held == bad.bad) {
		rc = wrong_header(&r, err);
		goto done;
	}
	held_lines(&r);
	wc__engine_settle(e, &r.counters, r.line, path, opt, &bad);
	e->bad_lines = bad.bad;
	e->bad_counted = wc__bad_lines_counted(&bad);
	/* the rows kept on both sides of every bad line: the kept rows'
	 * lines (r.line) after the glitches were dropped (settle) */
	e->bad_inside = bad.bad > 0 && e->n >= 2 && r.line && bad.lo_line > r.line[0] && bad.hi_line < r.line[e->n - 1];
	if ((rc = wc__bad_lines_finish(&bad, e->data_lines, err)) != WC_OK)
		goto done;
	fill_missing(e);
	wc__engine_warn_gaps(e, r.line, path, opt);
	*out = e;
	e = NULL;
	rc = WC_OK;
done:
	free(f);
	free(r.line);
	free(r.cell);
	free(r.read);
	wc__engine_counters_free(&r.counters);
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

size_t
wc_engine_first_row(const wc_engine_log *e, wc_engine_column c)
{
	size_t i = 0;
	if (!e || c < 0 || c >= WC_ENG_COLUMNS || !e->col[c])
		return e ? e->n : 0;
	while (i < e->n && isnan(e->col[c][i]))
		i++;
	return i;
}

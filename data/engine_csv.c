/*
 * vLLM (SGLang, TGI) engine counters sampled into a CSV: a `timestamp` column
 * (epoch s) and one column per Prometheus sample (num_requests_running = the
 * law's n(t), token and iteration counters, prefill/decode time sums for the
 * phase split). Streamed line by line into columns; unknown columns are
 * ignored, absent ones stay NULL.
 */
#include "data_internal.h"
#include "engine_log_internal.h"
#include "telemetry_internal.h"

#include <math.h>
#include <stdio.h>
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

/* Other names of the columns (docs/formats/telemetry.md): vLLM's newer cache
 * gauge, SGLang's and TGI's gauges (TGI's token histograms, counted at a
 * request's end, are no counter of vLLM's). */
static const struct {
	const char *name;
	wc_engine_column col;
} aliases[] = {
	{ "kv_cache_usage_perc", WC_ENG_CACHE_USAGE },
	{ "num_running_reqs", WC_ENG_RUNNING },
	{ "num_queue_reqs", WC_ENG_WAITING },
	{ "token_usage", WC_ENG_CACHE_USAGE },
	{ "tgi_batch_current_size", WC_ENG_RUNNING },
	{ "tgi_queue_size", WC_ENG_WAITING },
};

/* Map a header name (optionally "vllm:"- or "sglang:"-prefixed) to a
 * column; -1 = the timestamp, -2 = not ours. A scraper that copies the
 * exposition's series name keeps its label block
 * (`vllm:num_requests_running{engine="0",model_name="..."}`): the metric
 * is matched by its name, the labels ignored (docs/formats/telemetry.md,
 * "engine.csv"). */
static int
header_column(const char *name)
{
	if (strncmp(name, "vllm:", 5) == 0)
		name += 5;
	else if (strncmp(name, "sglang:", 7) == 0)
		name += 7;
	size_t len = strcspn(name, "{");
	if (name[len] == '{' && name[strlen(name) - 1] != '}')
		return -2; /* an unclosed label block is no metric name */
	if (len == 9 && strncmp(name, "timestamp", len) == 0)
		return -1;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strlen(aliases[i].name) == len && strncmp(name, aliases[i].name, len) == 0)
			return aliases[i].col;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (strlen(column_names[c]) == len && strncmp(name, column_names[c], len) == 0)
			return c;
	return -2;
}

static int
grow(wc_engine_log *e, size_t **line, size_t *cap, size_t max_rows, const char *path, wc_error *err)
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
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c])
			continue;
		double *nv = wc_resize_array(e->col[c], nc, sizeof *nv);
		if (!nv)
			return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		e->col[c] = nv;
	}
	*cap = nc;
	return WC_OK;
}

/* What the reader carries from line to line: the header's column map and
 * the counter-reset bookkeeping. The log and the field buffer are owned by
 * wc_engine_read. */
typedef struct {
	const char *path;
	const wc_telemetry_options *opt;
	wc__bad_lines *bad;
	wc_engine_log *e;
	int map[ENG_MAX_FIELDS], n_cols, time_col;
	unsigned char sum[ENG_MAX_FIELDS]; /* a field added to its column's first */
	int n_series[WC_ENG_COLUMNS];      /* fields read into each column */
	char labels[WC_ENG_COLUMNS][WC_TELEMETRY_LINE_MAX]; /* the first field's */
	size_t *line;          /* each row's line number, for the counter checks */
	size_t cap, max_rows;
	size_t header_line;
	int timed;             /* a time was read */
	char time_err[WC_ERROR_MSG_MAX];
	/* Data lines whose field count differs from the header's, one count
	 * for all, before any line had the header's: held back, since when
	 * no line ever has it the header is what is wrong (wrong_header). */
	size_t held, held_first, held_last;
	int held_nf, matched;
	char held_sep; /* ';' or '\t' in the first held line of one field */
} eng_reader;

/* Allocate column c when absent, its cells of the rows read so far
 * unknown (a header later in the file may name it first). */
static int
add_column(eng_reader *r, int c)
{
	wc_engine_log *e = r->e;
	if (e->col[c])
		return 1;
	if (!(e->col[c] = wc_alloc_array(r->cap ? r->cap : 1, sizeof(double))))
		return 0;
	for (size_t i = 0; i < e->n; i++)
		e->col[c][i] = NAN;
	return 1;
}

/* One header field's name, label block and all, into buf: an unquoted
 * label block holds commas (`name{a="0",b="x"}`), so the fields from one
 * with an open '{' to the one closing it are joined back (*j advanced). */
static int
header_name(eng_reader *r, wc__csv_field *f, int nf, int *j, size_t line_no, char *buf, wc_error *err)
{
	int col = *j;
	size_t fl = strlen(f[col].text), len;
	char *name = wc__trim(f[col].text, &fl);
	name[fl] = '\0';
	snprintf(buf, WC_TELEMETRY_LINE_MAX, "%s", name);
	if (strchr(name, '{') && !strchr(name, '}')) {
		do {
			if (++*j >= nf)
				return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu:%d: header: the label block of '%.60s' "
				                    "is not closed", line_no, f[col].column, name);
			len = strlen(buf);
			snprintf(buf + len, WC_TELEMETRY_LINE_MAX - len, ",%s", f[*j].text);
		} while (!strchr(f[*j].text, '}'));
	}
	return WC_OK;
}

/* Map the header's fields to columns and allocate the columns present.
 * Two fields of one metric are one column: their labels tell whether
 * they add up (data-parallel engines), repeat one count (ranks: the
 * lowest is read; the same labels: the first), or are refused (another
 * label: two servers?) -- docs/formats/telemetry.md, "engine.csv". */
static int
map_header(eng_reader *r, wc__csv_field *f, int nf, size_t line_no, wc_error *err)
{
	char buf[WC_TELEMETRY_LINE_MAX], key[64];
	int k = 0;
	r->time_col = -1;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		r->n_series[c] = 0;
	for (int j = 0; j < nf; j++, k++) {
		int col = j, rc;
		if ((rc = header_name(r, f, nf, &j, line_no, buf, err)) != WC_OK)
			return rc;
		int c = r->map[k] = header_column(buf);
		char *lab = strchr(buf, '{');
		r->sum[k] = 0;
		if (lab && strrchr(lab, '}'))
			*strrchr(lab++, '}') = '\0';
		else
			lab = NULL;
		if (c == -1 && r->time_col >= 0)
			r->map[k] = -2; /* a repeated timestamp: the first one wins too */
		else if (c == -1)
			r->time_col = k;
		if (c < 0)
			continue;
		if (r->n_series[c]++ == 0) {
			snprintf(r->labels[c], sizeof r->labels[c], "%s", lab ? lab : "");
			if (!add_column(r, c))
				return wc_error_set_path(err, WC_ENOMEM, r->path, ": out of memory");
			continue;
		}
		switch (wc_engine_labels_compare(r->labels[c], lab ? lab : "", key, sizeof key)) {
		case WC_ENGINE_LABELS_SUMMED:
			r->sum[k] = 1;
			break;
		case WC_ENGINE_LABELS_SUMMED_RANK: /* its engine's own field, read or not, is not known */
		case WC_ENGINE_LABELS_OTHER:
			return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu:%d: header: %s twice, its labels differing in "
			                    "'%s' (two servers?): keep one server's columns; nothing read",
			                    line_no, f[col].column, wc_engine_column_name((wc_engine_column)c), key);
		case WC_ENGINE_LABELS_REPEATED: /* one engine's ranks, no other engine's yet: the lowest read */
			if (r->n_series[c] == 2 && wc_engine_labels_rank_below(lab ? lab : "", r->labels[c])) {
				for (int i = 0; i < k; i++)
					r->map[i] = r->map[i] == c ? -2 : r->map[i];
				snprintf(r->labels[c], sizeof r->labels[c], "%s", lab ? lab : "");
				r->n_series[c]--;
				break;
			}
			/* fall through */
		default: /* a repeated column (or a rank above): the first one wins */
			r->map[k] = -2;
			r->n_series[c]--;
		}
	}
	if (r->time_col < 0)
		return wc_error_set_path(err, WC_EPARSE, r->path, ":%zu: no 'timestamp' column in the header", line_no);
	r->n_cols = k;
	r->header_line = line_no;
	return WC_OK;
}

/* The 1-based byte column where a cell's value starts, past the blanks
 * wc__trim skipped: a one-cell reason names it as power.csv's and
 * requests.csv's do (docs/formats/telemetry.md, "Bad lines"). */
static int
cell_column(const wc__csv_field *fd, const char *v)
{
	return fd->column + (int)(v - fd->text);
}

/* The first time read decides whether the column holds times at all:
 * unreadable there, the file is refused in one error naming the forms
 * taken (epoch seconds, or RFC 3339 with a zone through the Prometheus
 * path's parser; docs/formats/telemetry.md, "Timestamps"), not line by
 * line. 1 with a time in *x; 0 after reporting a bad line; -1 with the
 * file's error in r->time_err. */
static int
read_time(eng_reader *r, const wc__csv_field *fd, const char *v, size_t fl, size_t line_no, double *x)
{
	if (wc__parse_number(v, fl, x) == 0 || wc__parse_zoned_time(v, fl, x, NULL, 0) == 0) {
		r->timed = 1;
		return 1;
	}
	if (!r->timed) {
		wc_error_format_path(r->time_err, sizeof r->time_err, r->path, ":%zu:%d: timestamp '%.*s': expected epoch "
		         "seconds or RFC 3339 with Z or an offset", line_no, cell_column(fd, v),
		         (int)(fl > 40 ? 40 : fl), v);
		return -1;
	}
	wc__bad_cell(r->bad, line_no, cell_column(fd, v), "timestamp: expected a number, got '%.*s'",
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
	*t = NAN;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		row[c] = NAN;
	for (int i = 0; i < nf && ok == 1; i++) {
		if (r->map[i] == -2)
			continue;
		size_t fl = strlen(f[i].text);
		const char *v = wc__trim(f[i].text, &fl);
		double x;
		/* A NaN is an unknown sample, gauge or counter, as a blank cell
		 * is and as the Prometheus readers take it: Python and Prometheus
		 * write `nan` / `NaN` for a gauge they did not have; wc__is_missing
		 * is the one rule (docs/formats/telemetry.md, "Missing cells"). */
		if (wc__is_missing(v, fl)) {
			if (i == r->time_col) {
				wc__bad_cell(r->bad, line_no, cell_column(&f[i], v), "no timestamp");
				ok = 0;
			}
			continue;
		}
		if (i == r->time_col) {
			if ((ok = read_time(r, &f[i], v, fl, line_no, &x)) == 1)
				*t = x + r->opt->epoch_offset_s;
		} else if (wc__parse_number(v, fl, &x) != 0) {
			wc__bad_cell(r->bad, line_no, cell_column(&f[i], v), "%s: expected a number, got '%.*s'",
			             wc_engine_column_name((wc_engine_column)r->map[i]), (int)(fl > 40 ? 40 : fl), v);
			ok = 0;
		} else if (r->map[i] >= 0) {
			wc_engine_column c = (wc_engine_column)r->map[i];
			if (wc_engine_column_is_counter(c) && !(x >= 0.0 && x <= WC_ENGINE_MAX_COUNTER)) {
				wc__bad_cell(r->bad, line_no, cell_column(&f[i], v), "%s = %.10g is no counter value "
				             "(0 to %.0e)", wc_engine_column_name(c), x, WC_ENGINE_MAX_COUNTER);
				ok = 0;
			}
			row[c] = r->sum[i] && !isnan(row[c]) ? row[c] + x : x;
			part[c]++;
		}
	}
	/* Summed series: unknown unless every one has its cell; a cache's
	 * usage is the engines' mean. */
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (r->n_series[c] > 1)
			row[c] = part[c] < r->n_series[c] ? NAN : c == WC_ENG_CACHE_USAGE ? row[c] / part[c] : row[c];
	return ok;
}

/* Append a parsed row as read; counters are checked once all are in
 * (settle_counters). */
static int
append_row(eng_reader *r, const double row[WC_ENG_COLUMNS], double t, size_t line_no, wc_error *err)
{
	wc_engine_log *e = r->e;
	int rc;
	if ((rc = grow(e, &r->line, &r->cap, r->max_rows, r->path, err)) != WC_OK)
		return rc;
	e->t[e->n] = t;
	r->line[e->n] = line_no;
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (e->col[c])
			e->col[c][e->n] = row[c];
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
		for (int c = WC_ENG_PROMPT_TOKENS; whole && e->n > 0 && c < WC_ENG_COLUMNS; c++)
			if (e->col[c] && row[c] < e->col[c][e->n - 1])
				whole = 0;
	}
	if (whole)
		return 0;
	wc__warn(r->opt, r->path, ":%zu: unfinished last line (no newline: the log was still being written); "
	         "dropped", line_no);
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
	wc__warn(r->opt, r->path, ":%zu: expected %d fields, found %d (to line %zu)", r->held_first,
	         r->n_cols, r->held_nf, r->held_last);
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
 * took the waiting requests for n(t) and prompt tokens for generated ones. */
static int
repeated_header(eng_reader *r, wc__csv_field *f, int nf, size_t line_no, wc_error *err)
{
	int map[ENG_MAX_FIELDS], n_cols = r->n_cols, rc, same = 1;
	unsigned char sum[ENG_MAX_FIELDS];
	size_t first = r->header_line;
	memcpy(map, r->map, sizeof map);
	memcpy(sum, r->sum, sizeof sum);
	r->e->data_lines--; /* not a data line */
	if ((rc = map_header(r, f, nf, line_no, err)) != WC_OK)
		return rc;
	for (int i = 0; i < n_cols; i++)
		same = same && n_cols == r->n_cols && map[i] == r->map[i] && sum[i] == r->sum[i];
	if (!same)
		wc__warn(r->opt, r->path, ":%zu: a header again, naming other columns or another order than line %zu's: "
		         "the lines after it are read by it", line_no, first);
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

/* One data line (nf fields, or WC__CSV_BAD with `reason`): counted, then
 * appended or reported as bad. */
static int
data_line(eng_reader *r, wc__csv_field *f, int nf, const char *reason, size_t line_no,
          int unfinished, wc_error *err)
{
	wc_engine_log *e = r->e;
	double row[WC_ENG_COLUMNS], t;
	e->data_lines++;
	if (unfinished && drop_unfinished(r, f, nf, line_no))
		return WC_OK;
	if (nf > 0 && is_header(f, nf))
		return repeated_header(r, f, nf, line_no, err);
	if (nf != r->n_cols) {
		if (nf == WC__CSV_BAD) {
			wc__bad_line(r->bad, line_no, "%s", reason);
		} else if (!r->matched && (r->held == 0 || nf == r->held_nf)) {
			r->bad->bad++; /* a bad line, said later (held_lines) */
			if (!r->held && nf == 1)
				r->held_sep = strchr(f[0].text, ';') ? ';' : strchr(f[0].text, '\t') ? '\t' : '\0';
			r->held_first = r->held ? r->held_first : line_no;
			r->held_last = line_no;
			r->held_nf = nf;
			r->held++;
		} else {
			wc__bad_line(r->bad, line_no, "expected %d fields, found %d", r->n_cols, nf);
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
	if (e->n > 0 && !(t > e->t[e->n - 1])) {
		wc__bad_line(r->bad, line_no, "timestamp %.3f is not after the previous row's", t);
		return WC_OK;
	}
	return append_row(r, row, t, line_no, err);
}

/* Fill missing values of a present column from the sample before (a
 * gauge holds, a counter has not moved). */
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
	if ((rc = wc__lr_open(&lr, path, err)) != WC_OK)
		return rc;
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
			if ((rc = map_header(&r, f, nf, lr.line_no, err)) != WC_OK)
				goto done;
			header = 1;
			continue;
		}
		if ((rc = data_line(&r, f, nf, reason, lr.line_no, lr.unfinished, err)) != WC_OK)
			goto done;
	}
	if (!r.matched && r.held > 0 && r.held == bad.bad) {
		rc = wrong_header(&r, err);
		goto done;
	}
	held_lines(&r);
	wc__engine_settle(e, r.line, path, opt, &bad);
	e->bad_lines = bad.bad;
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

/*
 * The runs table (docs/formats/runs-table.md): one CSV row per run or run segment, the input
 * of every fit. Reading is strict and precise about where a problem is
 * (file:line:column and the reason), because these tables are edited by
 * hand; columns wattcast does not know are kept verbatim so a rewrite
 * loses nothing.
 */
#include "data/data.h"
#include "data/runs_table.h"
#include "models/catalog.h"
#include "models/limits.h"

#include "data/fileio.h"
#include "data_internal.h"
#include "runs_table_internal.h"
#include "models/grow.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS_MAX_FIELDS 512

/* active_params_b may be left out for a catalog model (parse_row). */
static const column_id required_columns[] = { COL_RUN_ID, COL_PLATFORM, COL_TP, COL_MODEL, COL_POWER };

void
wc_run_init(wc_run *run)
{
	memset(run, 0, sizeof *run);
	run->tp = 1;
	run->active_params_b = run->total_params_b = run->running = NAN;
	run->mean_power_w = run->idle_power_w = NAN;
	run->input_tokens = run->output_tokens = run->throughput_tok_s = NAN;
	run->energy_per_token_j = NAN;
	run->weights = run->kv = WC_PREC_BF16;
}

void
wc_run_config(const wc_run *r, wc_config *c)
{
	*c = (wc_config)WC_CONFIG_INIT;
	c->platform = r->platform;
	c->tp = r->tp;
	c->active_params_b = r->active_params_b;
	c->running = r->series.len ? r->series.mean : isfinite(r->running) ? r->running : 0.0;
	c->weights = r->weights;
	c->kv = r->kv;
	c->sm_clock_mhz = r->sm_clock_mhz;
	c->idle_power_w = isfinite(r->idle_power_w) ? r->idle_power_w : 0.0;
	c->model = r->model;
	c->arch = wc_model_lookup(r->model);
	c->input_tokens = isfinite(r->input_tokens) && r->input_tokens > 0 ? r->input_tokens : 0.0;
	c->output_tokens = isfinite(r->output_tokens) && r->output_tokens > 0 ? r->output_tokens : 0.0;
	c->set = r->set[0] ? r->set : NULL;
}

void
wc_run_running_span(const wc_run *r, double *lo, double *hi)
{
	*lo = *hi = r->running;
	if (!r->series.len)
		return;
	*lo = INFINITY;
	*hi = 0;
	for (size_t j = 0; j < r->series.len; j++)
		if (r->series.running[j] > 0) {
			*lo = fmin(*lo, r->series.running[j]);
			*hi = fmax(*hi, r->series.running[j]);
		}
}

wc_runs_table *
wc_runs_new(void)
{
	return calloc(1, sizeof(wc_runs_table));
}

void
wc_runs_free(wc_runs_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_runs; i++)
		wc_load_histogram_free(&t->runs[i].series);
	wc__extra_clear(&t->extra, t->n_runs);
	free(t->runs);
	free(t);
}

static int
copy_series(wc_run *dst, const wc_run *src, wc_error *err)
{
	dst->series.running = dst->series.weight = NULL;
	if (src->series.len == 0)
		return WC_OK;
	dst->series.running = wc_alloc_array(src->series.len, sizeof(double));
	dst->series.weight = wc_alloc_array(src->series.len, sizeof(double));
	if (!dst->series.running || !dst->series.weight) {
		wc_load_histogram_free(&dst->series);
		return wc_error_set(err, WC_ENOMEM, "runs table: out of memory");
	}
	memcpy(dst->series.running, src->series.running, src->series.len * sizeof(double));
	memcpy(dst->series.weight, src->series.weight, src->series.len * sizeof(double));
	return WC_OK;
}

/* Append without copying the series (the table takes the arrays). */
static int
append_owned(wc_runs_table *t, const wc_run *run, wc_error *err)
{
	wc_run *nr = wc_grow(t->runs, &t->cap_runs, t->n_runs + 1, sizeof *nr, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "runs table: out of memory");
	t->runs = nr;
	if (wc__extra_add_row(&t->extra, t->n_runs) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "runs table: out of memory");
	t->runs[t->n_runs] = *run;
	/* Every run enters a table here (file, HTTP body, simulation): its
	 * platform is stored as the catalog spells a board, so "NVIDIA L40S"
	 * and "l40s" are one level (docs/formats/runs-table.md). */
	const wc_platform_info *pi = wc_platform_lookup(run->platform);
	if (pi)
		snprintf(t->runs[t->n_runs].platform, sizeof t->runs[t->n_runs].platform, "%s", pi->name);
	t->n_runs++;
	return WC_OK;
}

int
wc_runs_append(wc_runs_table *t, const wc_run *run, wc_error *err)
{
	wc_run copy = *run;
	int rc = copy_series(&copy, run, err);
	if (rc == WC_OK && (rc = append_owned(t, &copy, err)) != WC_OK)
		wc_load_histogram_free(&copy.series);
	return rc;
}

/* ------------------------------------------------------------------ read */

typedef struct {
	const char *path;
	int line;
	wc_error *err;
} reader;

static int
cell_error(reader *rd, const wc__csv_field *f, const char *column, const char *fmt, const char *arg)
{
	char reason[192];
	snprintf(reason, sizeof reason, fmt, arg);
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column '%s': %s", rd->line,
	                         f->column, column, reason);
}

static int
is_blank(const char *s)
{
	return s[strspn(s, " \t")] == '\0';
}

/* Finite number; blank -> NaN when optional. */
static int
parse_number(reader *rd, const wc__csv_field *f, const char *column, int required, double *out)
{
	if (is_blank(f->text)) {
		if (required)
			return cell_error(rd, f, column, "%s", "value is required");
		*out = NAN;
		return WC_OK;
	}
	if (wc_parse_decimal(f->text, out) != 0)
		return cell_error(rd, f, column, "expected a number, got '%s'", f->text);
	return WC_OK;
}

/* A number > 0, or blank (NaN) when optional. */
static int
parse_positive(reader *rd, const wc__csv_field *f, const char *column, int required,
               const char *reason, double *out)
{
	int rc = parse_number(rd, f, column, required, out);
	if (rc == WC_OK && *out <= 0)
		return cell_error(rd, f, column, reason, f->text);
	return rc;
}

static int
copy_text(reader *rd, const wc__csv_field *f, const char *column, char *out, size_t cap)
{
	char why[64];
	if (wc__text_refused(f->text, cap, why, sizeof why))
		return cell_error(rd, f, column, "%s", why);
	strcpy(out, f->text);
	return WC_OK;
}

/* Required text columns must not be blank. */
static int
parse_text(reader *rd, const wc__csv_field *f, column_id c, wc_run *run)
{
	const char *name = wc__runs_column_names[c];
	switch (c) {
	case COL_RUN_ID:
	case COL_PLATFORM:
	case COL_MODEL:
		if (is_blank(f->text))
			return cell_error(rd, f, name, "%s", "value is required");
		if (c == COL_RUN_ID)
			return copy_text(rd, f, name, run->run_id, sizeof run->run_id);
		if (c == COL_PLATFORM)
			return copy_text(rd, f, name, run->platform, sizeof run->platform);
		return copy_text(rd, f, name, run->model, sizeof run->model);
	case COL_SERIES: return copy_text(rd, f, name, run->n_series, sizeof run->n_series);
	case COL_SET: return copy_text(rd, f, name, run->set, sizeof run->set);
	case COL_EXCLUDE: return copy_text(rd, f, name, run->exclude, sizeof run->exclude);
	default: return WC_OK;
	}
}

/* Columns whose values come from a list of names (models/law.h,
 * models/catalog.h); blank is the default. */
static int
parse_named(reader *rd, const wc__csv_field *f, column_id c, wc_run *run)
{
	const char *name = wc__runs_column_names[c];
	const char *text = is_blank(f->text) ? "" : f->text;
	switch (c) {
	case COL_WEIGHTS:
	case COL_KV: {
		wc_precision *dst = c == COL_WEIGHTS ? &run->weights : &run->kv;
		if (!text[0]) {
			*dst = WC_PREC_BF16;
		} else if (wc_precision_from_name(text, dst) != WC_OK ||
		           (c == COL_KV && *dst == WC_PREC_INT4)) {
			return cell_error(rd, f, name, c == COL_KV ? "expected bf16 or fp8, got '%s'"
			                                           : "expected bf16, fp8 or int4, got '%s'", f->text);
		}
		return WC_OK;
	}
	case COL_ARCH:
	case COL_WORKLOAD: {
		int bad = c == COL_ARCH ? wc_architecture_from_name(text, &run->architecture) != WC_OK
		                        : wc_workload_from_name(text, &run->workload) != WC_OK;
		char reason[128];
		if (!bad)
			return WC_OK;
		snprintf(reason, sizeof reason, "expected %s (or blank), got '%%s'",
		         c == COL_ARCH ? wc_architecture_choices() : wc_workload_choices());
		return cell_error(rd, f, name, reason, f->text);
	}
	default: return WC_OK;
	}
}

/* Numeric columns with their bounds. */
static int
parse_numeric(reader *rd, const wc__csv_field *f, column_id c, wc_run *run)
{
	const char *name = wc__runs_column_names[c];
	double v;
	int rc;
	switch (c) {
	case COL_TP:
		if ((rc = parse_number(rd, f, name, 1, &v)) != WC_OK)
			return rc;
		if (v < 1 || v != floor(v) || v > WC_LAW_MAX_TP) {
			char why[192];
			snprintf(why, sizeof why, "tp must be a whole number from 1 to %d, got '%s'", WC_LAW_MAX_TP, f->text);
			return cell_error(rd, f, name, "%s", why);
		}
		run->tp = (int)v;
		return WC_OK;
	case COL_ACTIVE:
		return parse_positive(rd, f, name, 0, "active params must be > 0, got '%s'",
		                      &run->active_params_b);
	case COL_TOTAL: return parse_positive(rd, f, name, 0, "must be > 0, got '%s'", &run->total_params_b);
	case COL_POWER:
		return parse_positive(rd, f, name, 1, "mean power must be > 0, got '%s'", &run->mean_power_w);
	case COL_IDLE:
		return parse_positive(rd, f, name, 0, "idle power must be > 0, got '%s'", &run->idle_power_w);
	case COL_RUNNING:
		if ((rc = parse_number(rd, f, name, 0, &run->running)) == WC_OK && run->running < 0)
			return cell_error(rd, f, name, "must be >= 0, got '%s'", f->text);
		return rc;
	case COL_CLOCK:
		if ((rc = parse_positive(rd, f, name, 0, "must be > 0 (blank = not locked), got '%s'", &v)) ==
		    WC_OK)
			run->sm_clock_mhz = isnan(v) ? 0.0 : v;
		return rc;
	case COL_INPUT: return parse_number(rd, f, name, 0, &run->input_tokens);
	case COL_OUTPUT: return parse_number(rd, f, name, 0, &run->output_tokens);
	case COL_TPUT: return parse_number(rd, f, name, 0, &run->throughput_tok_s);
	case COL_EPT: return parse_number(rd, f, name, 0, &run->energy_per_token_j);
	default: return WC_OK;
	}
}

/* The field of the row in column `c` (one the row has). */
static int
cell_of(const int *col_of, int n, column_id c)
{
	int i = 0;
	while (i < n - 1 && col_of[i] != (int)c)
		i++;
	return i;
}

static int
parse_row(reader *rd, const wc__csv_field *fields, const int *col_of, int n, wc_run *run,
          const char **extras)
{
	int rc = WC_OK;
	for (int i = 0; i < n && rc == WC_OK; i++) {
		int c = col_of[i];
		if (c < 0) {
			extras[-c - 1] = fields[i].text;
			continue;
		}
		if ((rc = parse_text(rd, &fields[i], (column_id)c, run)) == WC_OK &&
		    (rc = parse_named(rd, &fields[i], (column_id)c, run)) == WC_OK)
			rc = parse_numeric(rd, &fields[i], (column_id)c, run);
	}
	/* A catalog model's size is known: the cell (or the column) may be
	 * left out; any other model needs it (docs/formats/runs-table.md). */
	const wc_model_info *m = rc == WC_OK && !(run->active_params_b > 0) ? wc_model_lookup(run->model) : NULL;
	if (m && m->active_params_b > 0)
		run->active_params_b = m->active_params_b;
	else if (rc == WC_OK && !(run->active_params_b > 0)) {
		/* with the catalog entry the name is likely a typo of, as every
		 * route's refusal of an unknown model (wc_model_suggest) */
		const wc_model_info *typo = wc_model_suggest(run->model);
		char other[160]; /* or why the entry it starts with is not it */
		wc_model_name_other(run->model, other, sizeof other);
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column 'active_params_b': value is required (model "
		                         "'%s' is not in the catalog%s%s%s%s%s)", rd->line,
		                         run->column[COL_ACTIVE] > 0 ? run->column[COL_ACTIVE] : 1, run->model,
		                         typo ? ": did you mean " : "", typo ? typo->name : "", typo ? "?" : "", other[0] ? ": " : "", other);
	}
	/* The bounds any run obeys (wc_run_out_of_bounds), checked once the
	 * row's tp and platform are known; named at the offending cell. */
	char why[160];
	const char *bad = rc == WC_OK ? wc_run_out_of_bounds(run, why, sizeof why) : NULL;
	if (bad) {
		int c = 0;
		while (c < COL_COUNT - 1 && strcmp(wc__runs_column_names[c], bad) != 0)
			c++;
		const wc__csv_field *f = &fields[cell_of(col_of, n, (column_id)c)];
		char reason[192];
		snprintf(reason, sizeof reason, "%s, got '%s'", why, f->text);
		return cell_error(rd, f, bad, "%s", reason);
	}
	return rc;
}

/* Series files are relative to the table's folder. */
static int
load_series(reader *rd, wc_run *run, int series_col)
{
	char *copy = strdup(rd->path), full[1024];
	if (!copy)
		return wc_error_set(rd->err, WC_ENOMEM, "out of memory");
	if (run->n_series[0] == '/')
		snprintf(full, sizeof full, "%s", run->n_series);
	else
		snprintf(full, sizeof full, "%s/%s", dirname(copy), run->n_series);
	free(copy);
	wc_error serr;
	int rc = wc_series_read(full, &run->series, &serr);
	if (rc != WC_OK) {
		/* Two paths: the series by its cell, by the one rule in the room
		 * the table's path and words leave (docs/architecture.md, "Errors"). */
		const char *text = wc_error_path_text(serr.msg, full);
		if (!text)
			return wc_error_set_path(rd->err, rc, rd->path, ":%d:%d: column 'n_series': %s", rd->line,
			                         series_col, serr.msg);
		char words[64], inner[WC_ERROR_MSG_MAX];
		int n = snprintf(words, sizeof words, ":%d:%d: column 'n_series': ", rd->line, series_col);
		size_t table = strlen(rd->path), used = (n < 0 ? 0 : (size_t)n) + (table < 96 ? table : 96);
		size_t room = used + 16 < sizeof inner ? sizeof inner - used : 16;
		wc_error_format_path(inner, room, run->n_series, "%s", text);
		return wc_error_set_path(rd->err, rc, rd->path, "%s%s", words, inner);
	}
	return WC_OK;
}

/* Header: map each field to a documented column (col_of[i] >= 0) or an
 * extra (col_of[i] = -(its index + 1)), and insist on the required ones. */
static int
map_header(reader *rd, wc_runs_table *t, wc__csv_field *fields, int n, int *col_of)
{
	int have[COL_COUNT] = { 0 }, rc;
	wc__csv_trim_fields(fields, n);
	for (int i = 0; i < n; i++) {
		const char *name = fields[i].text;
		int c;
		for (c = 0; c < COL_COUNT && strcmp(name, wc__runs_column_names[c]) != 0; c++)
			;
		if (c < COL_COUNT) {
			if (have[c])
				return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: duplicate column '%s'",
				                         rd->line, fields[i].column, name);
			have[c] = 1;
			col_of[i] = c;
		} else {
			if (wc__extra_index(&t->extra, name) >= 0 || name[0] == '\0')
				return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: %s column '%s'",
				                         rd->line, fields[i].column,
				                         name[0] ? "duplicate" : "empty name for", name);
			if ((rc = wc__extra_add(&t->extra, t->n_runs, name)) != WC_OK)
				return wc_error_set(rd->err, rc, "runs table: out of memory");
			col_of[i] = -(int)t->extra.n;
		}
	}
	for (size_t k = 0; k < sizeof required_columns / sizeof required_columns[0]; k++)
		if (!have[required_columns[k]])
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: missing required column '%s'",
			                         rd->line, wc__runs_column_names[required_columns[k]]);
	if (!have[COL_RUNNING] && !have[COL_SERIES])
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path,
		                         ":%d:1: missing required column 'running' (or 'n_series')",
		                         rd->line);
	return WC_OK;
}

/* One data row: parse, check against the rows before, load its series
 * and append it (the table then owns the series) with its extras.
 * `extras` is scratch space for at least n pointers. */
static int
read_run(reader *rd, wc_runs_table *t, const wc__csv_field *fields, const int *col_of, int n,
         const char **extras)
{
	wc_run run;
	int rc;
	wc_run_init(&run);
	run.line = rd->line;
	for (int i = 0; i < n; i++)
		if (col_of[i] >= 0)
			run.column[col_of[i]] = fields[i].column;
	memset(extras, 0, (size_t)n * sizeof *extras);
	if ((rc = parse_row(rd, fields, col_of, n, &run, extras)) != WC_OK)
		return rc;
	/* The timing extras the capacity fit reads obey their bounds here, at
	 * their cell, as the documented columns do (docs/formats/runs-table.md). */
	for (int i = 0; i < n; i++) {
		char why[128];
		const char *bad = col_of[i] < 0 ? wc_run_timing_extra_bad(t->extra.names[-col_of[i] - 1],
		                                                          fields[i].text, why, sizeof why)
		                                : NULL;
		if (bad)
			return cell_error(rd, &fields[i], bad, "%s", why);
	}
	if (isnan(run.running) && run.n_series[0] == '\0')
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: one of 'running' and 'n_series' is required",
		                         rd->line);
	for (size_t i = 0; i < t->n_runs; i++)
		if (strcmp(t->runs[i].run_id, run.run_id) == 0)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: duplicate run_id '%s' (first on line %d)",
			                         rd->line, run.run_id, t->runs[i].line);
	if (run.n_series[0]) {
		int series_col = 1;
		for (int i = 0; i < n; i++)
			if (col_of[i] == COL_SERIES)
				series_col = fields[i].column;
		if ((rc = load_series(rd, &run, series_col)) != WC_OK)
			return rc;
	}
	if ((rc = append_owned(t, &run, rd->err)) != WC_OK) {
		wc_load_histogram_free(&run.series);
		return rc;
	}
	for (size_t j = 0; j < t->extra.n; j++)
		if (extras[j] && wc__extra_put(&t->extra, t->n_runs - 1, j, extras[j]) != WC_OK)
			return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
	wc__run_note_gauge(t, t->n_runs - 1);
	return WC_OK;
}

int
wc_runs_read_buffer(const char *buf, size_t len, const char *path, wc_runs_table **out,
                    wc_error *err)
{
	reader rd = { path, 0, err };
	wc_runs_table *t = wc_runs_new();
	wc__csv_field *fields = wc_alloc_array(RUNS_MAX_FIELDS, sizeof *fields);
	int *col_of = wc_alloc_array(RUNS_MAX_FIELDS, sizeof *col_of);
	const char **extras = wc_alloc_zeroed(RUNS_MAX_FIELDS, sizeof *extras);
	wc__csv_lines it;
	int n_header = 0, rc = WC_OK, n;
	const char *reason = NULL;
	*out = NULL;
	wc__csv_lines_init(&it, buf, len);
	if (!t || !fields || !col_of || !extras) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	snprintf(t->path, sizeof t->path, "%s", path);
	wc_sha256_hex(buf, len, t->sha256);
	while ((n = wc__csv_lines_next(&it, fields, RUNS_MAX_FIELDS, &reason)) != 0) {
		rd.line = it.line;
		if (n == WC_ENOMEM || n == WC__CSV_BAD) {
			rc = n == WC_ENOMEM ? wc_error_set_path(err, WC_ENOMEM, path, ": out of memory")
			                    : wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: %s", rd.line, it.stop, reason);
			goto done;
		}
		if (n_header == 0) {
			if ((rc = map_header(&rd, t, fields, n, col_of)) != WC_OK)
				goto done;
			n_header = n;
			continue;
		}
		if (n != n_header) {
			rc = wc__csv_field_count_refuse(err, path, rd.line, fields, n, n_header, it.stop);
			goto done;
		}
		if ((rc = read_run(&rd, t, fields, col_of, n, extras)) != WC_OK)
			goto done;
	}
	if (n_header == 0)
		rc = wc_error_set_path(err, WC_EPARSE, path, ":1:1: no header row (empty table)");
	if (rc == WC_OK && wc_runs_text_synthetic(buf, len))
		for (size_t i = 0; i < t->n_runs; i++)
			t->runs[i].synthetic = 1;
done:
	wc__csv_lines_free(&it);
	free(fields);
	free(col_of);
	free(extras);
	if (rc != WC_OK) {
		wc_runs_free(t);
		return rc;
	}
	*out = t;
	return WC_OK;
}

int
wc_runs_read(const char *path, wc_runs_table **out, wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, WC_RUNS_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK) {
		*out = NULL;
		return rc;
	}
	rc = wc_runs_read_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

size_t
wc_runs_excluded(const wc_runs_table *t)
{
	size_t n = 0;
	for (size_t i = 0; t && i < t->n_runs; i++)
		n += t->runs[i].exclude[0] != '\0';
	return n;
}

size_t
wc_runs_excluded_why(const wc_runs_table *t, char *buf, size_t cap)
{
	size_t n = wc_runs_excluded(t), first = 0;
	if (cap)
		buf[0] = '\0';
	while (n && t->runs[first].exclude[0] == '\0')
		first++;
	/* the count and one row's reason, quoted short: the reasons of a
	 * table's excluded rows are mostly one (docs/formats/runs-table.md) */
	if (n)
		wc_excluded_say(n, "run", t->runs[first].run_id, t->runs[first].exclude, buf, cap);
	return n;
}

void
wc_excluded_say(size_t n, const char *noun, const char *id, const char *why, char *buf, size_t cap)
{
	if (cap)
		buf[0] = '\0';
	if (n && cap >= 4) /* the id whole: a cut is the note's, with "..." */
		wc_error_format(buf, cap, "%zu %s(s) excluded, neither fitted nor predicted: a non-empty `exclude` (%s's: "
		                "'%.60s')", n, noun, id, why);
}

int
wc_runs_excluded_note(size_t n_rows, size_t n_excluded, char *buf, size_t cap)
{
	if (cap)
		buf[0] = '\0';
	if (n_rows == 0 || n_excluded < n_rows)
		return 0;
	/* `0`, `false` or `no` in an exclude column reads as "keep" to many
	 * and excludes here: the message says so (docs/formats/runs-table.md) */
	snprintf(buf, cap, "all %zu row(s) carry a non-empty `exclude`, and any non-empty value excludes a row "
	         "(`0`, `false` and `no` too)", n_rows);
	return 1;
}

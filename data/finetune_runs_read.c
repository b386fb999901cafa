/*
 * Reading a fine-tuning runs table (docs/formats/finetune-runs.md),
 * strictly and precise about where a problem is -- file:line:column, the
 * column and the reason -- because these tables are written by hand as
 * often as by `wattcast ingest`. A model found in the catalog supplies
 * params_b, layers and d_model (and the attention shape) left blank.
 */
#include "data/data.h"
#include "finetune_runs_internal.h"
#include "models/grow.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/fileio.h"
#include "data_internal.h"

#define FT_MAX_FIELDS 512

static const wc__ft_column required_columns[] = {
	FT_COL_RUN_ID, FT_COL_PLATFORM, FT_COL_GPUS, FT_COL_MODEL, FT_COL_METHOD, FT_COL_BATCH,
	FT_COL_SEQ, FT_COL_ACCUM, FT_COL_CKPT, FT_COL_ENERGY, FT_COL_STEP,
};

typedef struct {
	const char *path;
	int line;
	wc_error *err;
	int col_at[FT_COL_COUNT]; /* character column of each field in this row */
	/* Each cell's text as written, for the rules across cells: a refusal
	 * quotes the value as given, not as "%g" reprints it ("1e9", not
	 * "1e+09"; docs/architecture.md, "Errors"). Points into the row's
	 * fields, alive while the row is read. */
	const char *text_at[FT_COL_COUNT];
} reader;

static int
cell_error(reader *rd, int column_pos, wc__ft_column c, const char *fmt, const char *arg)
{
	char reason[192];
	snprintf(reason, sizeof reason, fmt, arg);
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column '%s': %s", rd->line,
	                         column_pos, wc__ft_column_names[c], reason);
}

static int
is_blank(const char *s)
{
	return s[strspn(s, " \t")] == '\0';
}

/* A finite number > 0, or NaN for a blank optional cell. */
static int
positive(reader *rd, const wc__csv_field *f, wc__ft_column c, int required, double *out)
{
	if (is_blank(f->text)) {
		*out = NAN;
		return required ? cell_error(rd, f->column, c, "%s", "value is required") : WC_OK;
	}
	if (wc_parse_decimal(f->text, out) != 0)
		return cell_error(rd, f->column, c, "expected a number, got '%s'", f->text);
	if (!(*out > 0))
		return cell_error(rd, f->column, c, "must be > 0, got '%s'", f->text);
	return WC_OK;
}

/* A whole number >= `min`; blank gives `*out` = `blank` unless required. */
static int
whole(reader *rd, const wc__csv_field *f, wc__ft_column c, int required, int min, int blank,
      int *out)
{
	double v;
	if (is_blank(f->text)) {
		*out = blank;
		return required ? cell_error(rd, f->column, c, "%s", "value is required") : WC_OK;
	}
	if (wc_parse_decimal(f->text, &v) != 0 || v != floor(v) || v < min || v > WC_FT_MAX_INT) {
		char why[64];
		snprintf(why, sizeof why, "must be a whole number >= %d, got '%%s'", min);
		return cell_error(rd, f->column, c, why, f->text);
	}
	*out = (int)v;
	return WC_OK;
}

static int
text(reader *rd, const wc__csv_field *f, wc__ft_column c, int required, char *out, size_t cap)
{
	if (required && is_blank(f->text))
		return cell_error(rd, f->column, c, "%s", "value is required");
	char why[64]; /* bytes, as a runs table's (docs/formats/finetune-runs.md) */
	if (wc__text_refused(f->text, cap, why, sizeof why))
		return cell_error(rd, f->column, c, "%s", why);
	strcpy(out, f->text);
	return WC_OK;
}

static int
boolean(reader *rd, const wc__csv_field *f, wc__ft_column c, int *out)
{
	static const char *const yes[] = { "true", "yes", "1" }, *const no[] = { "false", "no", "0" };
	for (int i = 0; i < 3; i++) {
		if (strcasecmp(f->text, yes[i]) == 0)
			return *out = 1, WC_OK;
		if (strcasecmp(f->text, no[i]) == 0)
			return *out = 0, WC_OK;
	}
	return cell_error(rd, f->column, c, "expected true or false, got '%s'", f->text);
}

/* One cell into `run`. */
static int
parse_cell(reader *rd, const wc__csv_field *f, wc__ft_column c, wc_ft_run *run)
{
	wc_ft_config *k = &run->config;
	rd->col_at[c] = f->column;
	rd->text_at[c] = f->text;
	switch (c) {
	case FT_COL_RUN_ID: return text(rd, f, c, 1, run->run_id, sizeof run->run_id);
	case FT_COL_PLATFORM: return text(rd, f, c, 1, run->platform, sizeof run->platform);
	case FT_COL_MODEL: return text(rd, f, c, 1, run->model, sizeof run->model);
	case FT_COL_SET: return text(rd, f, c, 0, run->set, sizeof run->set);
	case FT_COL_EXCLUDE: return text(rd, f, c, 0, run->exclude, sizeof run->exclude);
	case FT_COL_GPUS: return whole(rd, f, c, 1, 1, 1, &k->gpus);
	case FT_COL_DP: return whole(rd, f, c, 0, 1, 0, &k->data_parallel);
	case FT_COL_LAYERS: return whole(rd, f, c, 0, 1, 0, &k->layers);
	case FT_COL_DMODEL: return whole(rd, f, c, 0, 1, 0, &k->d_model);
	case FT_COL_RANK: return whole(rd, f, c, 0, 1, 0, &k->lora_rank);
	case FT_COL_BATCH: return whole(rd, f, c, 1, 1, 0, &k->micro_batch);
	case FT_COL_SEQ: return whole(rd, f, c, 1, 1, 0, &k->seq_len);
	case FT_COL_ACCUM: return whole(rd, f, c, 1, 1, 1, &k->grad_accum);
	case FT_COL_CKPT: return boolean(rd, f, c, &k->checkpointing);
	case FT_COL_PARAMS: return positive(rd, f, c, 0, &k->params_b);
	case FT_COL_ENERGY: return positive(rd, f, c, 1, &run->energy_per_step_j);
	case FT_COL_STEP: return positive(rd, f, c, 1, &run->step_s);
	case FT_COL_TOKENS: return positive(rd, f, c, 0, &k->tokens_per_step);
	case FT_COL_METHOD:
		if (wc_ft_method_from_name(f->text, &k->method) != WC_OK)
			return cell_error(rd, f->column, c, "expected full, lora or qlora, got '%s'", f->text);
		return WC_OK;
	case FT_COL_COUNT: break;
	}
	return WC_OK;
}

/* The model's size and shape: the row's values, the catalog's for blanks. */
static int
complete_model(reader *rd, wc_ft_run *run)
{
	wc_ft_config *k = &run->config;
	const wc_model_info *m = wc_model_lookup(run->model);
	if (m) {
		wc_ft_config cat = *k;
		wc_ft_config_from_model(&cat, m);
		if (isnan(k->params_b))
			k->params_b = cat.params_b;
		if (k->layers == 0)
			k->layers = cat.layers;
		if (k->d_model == 0)
			k->d_model = cat.d_model;
		k->attention_heads = cat.attention_heads;
		k->kv_heads = cat.kv_heads;
		k->head_dim = cat.head_dim;
		/* the entry itself, as the catalog path keeps it: the FLOPs read
		 * its attention width and window where the row's shape is its own
		 * (wc_ft_flops_compute), one rule for a table and a query */
		k->model = cat.model;
	}
	const wc__ft_column need[] = { FT_COL_PARAMS, FT_COL_LAYERS, FT_COL_DMODEL };
	const int missing[] = { isnan(k->params_b), k->layers == 0, k->d_model == 0 };
	for (int i = 0; i < 3; i++)
		if (missing[i])
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path,
			                         ":%d:%d: column '%s': value is required (model '%s' is not in the catalog)",
			                         rd->line, rd->col_at[need[i]] ? rd->col_at[need[i]] : 1,
			                         wc__ft_column_names[need[i]], run->model);
	return WC_OK;
}

/* Rules across cells, reported at the cell they concern. */
static int
check_row(reader *rd, wc_ft_run *run)
{
	wc_ft_config *k = &run->config;
	int rc;
	if (k->method != WC_FT_FULL && k->lora_rank == 0)
		return cell_error(rd, rd->col_at[FT_COL_RANK] ? rd->col_at[FT_COL_RANK] : 1, FT_COL_RANK,
		                  "value is required for %s", wc_ft_method_name(k->method));
	if (k->method == WC_FT_FULL && k->lora_rank != 0)
		return cell_error(rd, rd->col_at[FT_COL_RANK], FT_COL_RANK, "%s",
		                  "only for lora and qlora (leave it blank for full)");
	/* A step's energy bounded as a run's power is (models/limits.h): at
	 * most 5 kW per GPU over the step, and a step of at most a day; beyond,
	 * a unit slip or a summed counter, not a measurement (1e300 J was
	 * frozen as e0 = 9e299 J per GPU). At least 1 W per GPU over the step,
	 * below any GPU at work: 0.00001 J for 947 J made the fit refuse the
	 * table as degenerate, 0.01 J fitted e0 -537 J
	 * (docs/formats/finetune-runs.md). The cells quoted as written. */
	char why[192];
	double e_max = k->gpus * WC_GPU_MAX_POWER_W * run->step_s;
	double e_min = k->gpus * WC_GPU_MIN_POWER_W * run->step_s;
	if (run->step_s > WC_RUN_MAX_TIME_S) {
		snprintf(why, sizeof why, "must be at most %g s (a day), got '%s'", WC_RUN_MAX_TIME_S,
		         rd->text_at[FT_COL_STEP]);
		return cell_error(rd, rd->col_at[FT_COL_STEP], FT_COL_STEP, "%s", why);
	}
	if (run->energy_per_step_j > e_max || run->energy_per_step_j < e_min) {
		int high = run->energy_per_step_j > e_max;
		snprintf(why, sizeof why, "must be at %s %g J (%g W per GPU of its %d over its step_s %g s, %s), "
		         "got '%s'", high ? "most" : "least", high ? e_max : e_min,
		         high ? WC_GPU_MAX_POWER_W : WC_GPU_MIN_POWER_W, k->gpus, run->step_s,
		         high ? "above any GPU board" : "below any GPU at work", rd->text_at[FT_COL_ENERGY]);
		return cell_error(rd, rd->col_at[FT_COL_ENERGY], FT_COL_ENERGY, "%s", why);
	}
	if ((rc = complete_model(rd, run)) != WC_OK)
		return rc;
	wc_error e;
	if (wc_ft_config_check(k, &e) != WC_OK) {
		/* The message starts with the field, which is the column. */
		for (int c = 0; c < FT_COL_COUNT; c++) {
			size_t n = strlen(wc__ft_column_names[c]);
			if (strncmp(e.msg, wc__ft_column_names[c], n) == 0 && e.msg[n] == ':')
				return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column '%s': %s",
				                         rd->line, rd->col_at[c] ? rd->col_at[c] : 1,
				                         wc__ft_column_names[c], e.msg + n + 2);
		}
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: %s", rd->line, e.msg);
	}
	return WC_OK;
}

/* Header: documented columns (col_of >= 0) or extras (-(index + 1)). */
static int
map_header(reader *rd, wc_ft_table *t, wc__csv_field *fields, int n, int *col_of)
{
	int have[FT_COL_COUNT] = { 0 }, rc;
	wc__csv_trim_fields(fields, n);
	for (int i = 0; i < n; i++) {
		const char *name = fields[i].text;
		int c = 0;
		while (c < FT_COL_COUNT && strcmp(name, wc__ft_column_names[c]) != 0)
			c++;
		if (c < FT_COL_COUNT && have[c])
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: duplicate column '%s'",
			                         rd->line, fields[i].column, name);
		if (c < FT_COL_COUNT) {
			have[c] = 1;
			col_of[i] = c;
			continue;
		}
		if (!name[0] || wc__extra_index(&t->extra, name) >= 0)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: %s column '%s'", rd->line,
			                         fields[i].column, name[0] ? "duplicate" : "empty name for", name);
		if ((rc = wc__extra_add(&t->extra, t->n_runs, name)) != WC_OK)
			return wc_error_set(rd->err, rc, "fine-tuning runs table: out of memory");
		col_of[i] = -(int)t->extra.n;
	}
	for (size_t k = 0; k < sizeof required_columns / sizeof required_columns[0]; k++)
		if (!have[required_columns[k]])
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: missing required column '%s'",
			                         rd->line, wc__ft_column_names[required_columns[k]]);
	return WC_OK;
}

/* One data row: cells, cross-cell rules, uniqueness, then append with its
 * extras. */
static int
read_row(reader *rd, wc_ft_table *t, const wc__csv_field *fields, const int *col_of, int n)
{
	wc_ft_run run;
	int rc;
	wc_ft_run_init(&run);
	run.config.params_b = NAN;
	run.line = rd->line;
	memset(rd->col_at, 0, sizeof rd->col_at);
	memset(rd->text_at, 0, sizeof rd->text_at);
	for (int i = 0; i < n; i++)
		if (col_of[i] >= 0 && (rc = parse_cell(rd, &fields[i], (wc__ft_column)col_of[i], &run)))
			return rc;
	if ((rc = check_row(rd, &run)) != WC_OK)
		return rc;
	for (size_t i = 0; i < t->n_runs; i++)
		if (strcmp(t->runs[i].run_id, run.run_id) == 0)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: duplicate run_id '%s' (first on line %d)",
			                         rd->line, rd->col_at[FT_COL_RUN_ID], run.run_id,
			                         t->runs[i].line);
	if ((rc = wc__ft_table_push(t, &run, rd->err)) != WC_OK)
		return rc;
	for (int i = 0; i < n; i++) {
		if (col_of[i] >= 0 || is_blank(fields[i].text))
			continue;
		if (wc__extra_put(&t->extra, t->n_runs - 1, (size_t)(-col_of[i] - 1), fields[i].text) != WC_OK)
			return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
	}
	return WC_OK;
}

/* The lines after the header; `n_header` fields each. */
static int
read_lines(reader *rd, wc_ft_table *t, wc__csv_lines *it, wc__csv_field *fields, int *col_of)
{
	const char *reason = NULL;
	int n, n_header = 0, rc;
	while ((n = wc__csv_lines_next(it, fields, FT_MAX_FIELDS, &reason)) != 0) {
		rd->line = it->line;
		if (n == WC_ENOMEM)
			return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
		if (n == WC__CSV_BAD)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: %s", rd->line, it->stop, reason);
		if (n_header == 0) {
			if ((rc = map_header(rd, t, fields, n, col_of)) != WC_OK)
				return rc;
			n_header = n;
		} else if (n != n_header) {
			return wc__csv_field_count_refuse(rd->err, rd->path, rd->line, fields, n, n_header, it->stop);
		} else if ((rc = read_row(rd, t, fields, col_of, n)) != WC_OK) {
			return rc;
		}
	}
	if (n_header == 0)
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":1:1: no header row (empty table)");
	return WC_OK;
}

int
wc_ft_table_read_buffer(const char *buf, size_t len, const char *path, wc_ft_table **out,
                        wc_error *err)
{
	reader rd = { path, 0, err, { 0 }, { NULL } };
	wc_ft_table *t = wc_ft_table_new();
	wc__csv_field *fields = wc_alloc_array(FT_MAX_FIELDS, sizeof *fields);
	int *col_of = wc_alloc_array(FT_MAX_FIELDS, sizeof *col_of);
	wc__csv_lines it;
	int rc;
	*out = NULL;
	wc__csv_lines_init(&it, buf, len);
	if (!t || !fields || !col_of) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	} else {
		snprintf(t->path, sizeof t->path, "%s", path);
		wc_sha256_hex(buf, len, t->sha256);
		rc = read_lines(&rd, t, &it, fields, col_of);
	}
	wc__csv_lines_free(&it);
	free(fields);
	free(col_of);
	if (rc != WC_OK) {
		wc_ft_table_free(t);
		return rc;
	}
	*out = t;
	return WC_OK;
}

int
wc_ft_table_read(const char *path, wc_ft_table **out, wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, WC_FINETUNE_RUNS_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK) {
		*out = NULL;
		return rc;
	}
	rc = wc_ft_table_read_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

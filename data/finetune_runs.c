/*
 * Fine-tuning runs tables (data/finetune_runs.h,
 * docs/formats/finetune-runs.md): the table in memory, its extra columns
 * (kept verbatim so a rewrite loses nothing) and the writer. The strict
 * reader is finetune_runs_read.c.
 */
#include "finetune_runs_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_internal.h"
#include "models/grow.h"

const char *const wc__ft_column_names[FT_COL_COUNT] = {
	"run_id", "platform", "gpus", "data_parallel", "model", "params_b", "layers", "d_model",
	"method", "lora_rank", "micro_batch", "seq_len", "grad_accum", "checkpointing",
	"energy_per_step_j", "step_s", "tokens_per_step", "set", "exclude",
};

void
wc_ft_run_init(wc_ft_run *r)
{
	memset(r, 0, sizeof *r);
	r->config = (wc_ft_config)WC_FT_CONFIG_INIT;
	r->energy_per_step_j = r->step_s = NAN;
}

wc_ft_table *
wc_ft_table_new(void)
{
	return calloc(1, sizeof(wc_ft_table));
}

void
wc_ft_table_free(wc_ft_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_runs * t->n_extra; i++)
		free(t->extra_values[i]);
	for (size_t j = 0; j < t->n_extra; j++)
		free(t->extra_names[j]);
	free(t->extra_values);
	free(t->extra_names);
	free(t->runs);
	free(t);
}

long
wc__ft_table_extra_index(const wc_ft_table *t, const char *name)
{
	for (size_t j = 0; j < t->n_extra; j++)
		if (strcmp(t->extra_names[j], name) == 0)
			return (long)j;
	return -1;
}

/* The value matrix re-laid out with one more (blank) column. */
int
wc__ft_table_add_extra(wc_ft_table *t, const char *name, wc_error *err)
{
	size_t k = t->n_extra;
	int ok = 1;
	size_t cells = wc_size_mul(t->cap_runs ? t->cap_runs : 1, k + 1, &ok);
	char **values = ok ? calloc(cells, sizeof *values) : NULL;
	char **names = wc_resize_array(t->extra_names, k + 1, sizeof *names);
	char *copy = strdup(name);
	if (names)
		t->extra_names = names;
	if (!values || !names || !copy) {
		free(values);
		free(copy);
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
	}
	for (size_t r = 0; r < t->n_runs; r++)
		for (size_t j = 0; j < k; j++)
			values[r * (k + 1) + j] = t->extra_values[r * k + j];
	free(t->extra_values);
	t->extra_values = values;
	t->extra_names[k] = copy;
	t->n_extra = k + 1;
	return WC_OK;
}

int
wc__ft_table_push(wc_ft_table *t, const wc_ft_run *run, wc_error *err)
{
	size_t old_cap = t->cap_runs;
	wc_ft_run *nr = wc_grow(t->runs, &t->cap_runs, t->n_runs + 1, sizeof *nr, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
	t->runs = nr;
	if (t->n_extra > 0 && t->cap_runs != old_cap) {
		/* Rows keep n_extra values each; grow the matrix with the rows. */
		int ok = 1;
		size_t cells = wc_size_mul(t->cap_runs, t->n_extra, &ok);
		char **nv = ok ? wc_resize_array(t->extra_values, cells, sizeof *nv) : NULL;
		if (!nv)
			return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
		t->extra_values = nv;
	}
	for (size_t j = 0; j < t->n_extra; j++)
		t->extra_values[t->n_runs * t->n_extra + j] = NULL;
	t->runs[t->n_runs++] = *run;
	return WC_OK;
}

int
wc_ft_table_append(wc_ft_table *t, const wc_ft_run *run, wc_error *err)
{
	return wc__ft_table_push(t, run, err);
}

int
wc_ft_table_set_extra(wc_ft_table *t, size_t row, const char *column, const char *value,
                      wc_error *err)
{
	if (row >= t->n_runs)
		return wc_error_set(err, WC_EINVAL, "fine-tuning runs table: row %zu out of range", row);
	for (int c = 0; c < FT_COL_COUNT; c++)
		if (strcmp(column, wc__ft_column_names[c]) == 0)
			return wc_error_set(err, WC_EINVAL, "fine-tuning runs table: '%s' is a documented column",
			                    column);
	long j = wc__ft_table_extra_index(t, column);
	int rc;
	if (j < 0) {
		if ((rc = wc__ft_table_add_extra(t, column, err)) != WC_OK)
			return rc;
		j = (long)t->n_extra - 1;
	}
	char *copy = strdup(value ? value : "");
	if (!copy)
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
	char **slot = &t->extra_values[row * t->n_extra + (size_t)j];
	free(*slot);
	*slot = copy;
	return WC_OK;
}

const char *
wc_ft_table_get_extra(const wc_ft_table *t, size_t row, const char *column)
{
	long j = wc__ft_table_extra_index(t, column);
	if (j < 0 || row >= t->n_runs)
		return NULL;
	const char *v = t->extra_values[row * t->n_extra + (size_t)j];
	return v ? v : "";
}

/* ----------------------------------------------------------------- write */

/* Optional columns are written when some row uses them. */
static int
column_used(const wc_ft_table *t, wc__ft_column c)
{
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_ft_run *r = &t->runs[i];
		switch (c) {
		case FT_COL_DP: if (r->config.data_parallel > 0) return 1; break;
		case FT_COL_TOKENS: if (!isnan(r->config.tokens_per_step)) return 1; break;
		case FT_COL_SET: if (r->set[0]) return 1; break;
		case FT_COL_EXCLUDE: if (r->exclude[0]) return 1; break;
		default: return 1;
		}
	}
	return c != FT_COL_DP && c != FT_COL_TOKENS && c != FT_COL_SET && c != FT_COL_EXCLUDE;
}

static void
put_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.12g", v);
}

static void
put_cell(FILE *f, const wc_ft_run *r, wc__ft_column c)
{
	const wc_ft_config *k = &r->config;
	switch (c) {
	case FT_COL_RUN_ID: wc__csv_put(f, r->run_id); break;
	case FT_COL_PLATFORM: wc__csv_put(f, r->platform); break;
	case FT_COL_GPUS: fprintf(f, "%d", k->gpus); break;
	case FT_COL_DP: if (k->data_parallel > 0) fprintf(f, "%d", k->data_parallel); break;
	case FT_COL_MODEL: wc__csv_put(f, r->model); break;
	case FT_COL_PARAMS: put_number(f, k->params_b); break;
	case FT_COL_LAYERS: fprintf(f, "%d", k->layers); break;
	case FT_COL_DMODEL: fprintf(f, "%d", k->d_model); break;
	case FT_COL_METHOD: fputs(wc_ft_method_name(k->method), f); break;
	case FT_COL_RANK: if (k->method != WC_FT_FULL) fprintf(f, "%d", k->lora_rank); break;
	case FT_COL_BATCH: fprintf(f, "%d", k->micro_batch); break;
	case FT_COL_SEQ: fprintf(f, "%d", k->seq_len); break;
	case FT_COL_ACCUM: fprintf(f, "%d", k->grad_accum); break;
	case FT_COL_CKPT: fputs(k->checkpointing ? "true" : "false", f); break;
	case FT_COL_ENERGY: put_number(f, r->energy_per_step_j); break;
	case FT_COL_STEP: put_number(f, r->step_s); break;
	case FT_COL_TOKENS: put_number(f, k->tokens_per_step); break;
	case FT_COL_SET: wc__csv_put(f, r->set); break;
	case FT_COL_EXCLUDE: wc__csv_put(f, r->exclude); break;
	case FT_COL_COUNT: break;
	}
}

static void
put_comment(FILE *f, const char *comment)
{
	for (const char *p = comment; p && *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(f, "# %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

int
wc_ft_table_write(const char *path, const wc_ft_table *t, const char *comment, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int used[FT_COL_COUNT], first = 1;
	if (!f)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
	put_comment(f, comment);
	for (int c = 0; c < FT_COL_COUNT; c++)
		if ((used[c] = column_used(t, (wc__ft_column)c))) {
			fprintf(f, "%s%s", first ? "" : ",", wc__ft_column_names[c]);
			first = 0;
		}
	for (size_t j = 0; j < t->n_extra; j++) {
		fputc(',', f);
		wc__csv_put(f, t->extra_names[j]);
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->n_runs; i++) {
		first = 1;
		for (int c = 0; c < FT_COL_COUNT; c++) {
			if (!used[c])
				continue;
			if (!first)
				fputc(',', f);
			first = 0;
			put_cell(f, &t->runs[i], (wc__ft_column)c);
		}
		for (size_t j = 0; j < t->n_extra; j++) {
			const char *v = t->extra_values[i * t->n_extra + j];
			fputc(',', f);
			wc__csv_put(f, v ? v : "");
		}
		fputc('\n', f);
	}
	return wc__memstream_write_atomic(path, f, &buf, &len, err);
}

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
	wc__extra_clear(&t->extra, t->n_runs);
	free(t->runs);
	free(t);
}

int
wc__ft_table_push(wc_ft_table *t, const wc_ft_run *run, wc_error *err)
{
	wc_ft_run *nr = wc_grow(t->runs, &t->cap_runs, t->n_runs + 1, sizeof *nr, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
	t->runs = nr;
	if (wc__extra_add_row(&t->extra, t->n_runs) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
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
	if (wc__extra_set(&t->extra, t->n_runs, row, column, value) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "fine-tuning runs table: out of memory");
	return WC_OK;
}

const char *
wc_ft_table_get_extra(const wc_ft_table *t, size_t row, const char *column)
{
	return wc__extra_get(&t->extra, t->n_runs, row, column);
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
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	put_comment(f, comment);
	for (int c = 0; c < FT_COL_COUNT; c++)
		if ((used[c] = column_used(t, (wc__ft_column)c))) {
			fprintf(f, "%s%s", first ? "" : ",", wc__ft_column_names[c]);
			first = 0;
		}
	wc__extra_write_names(f, &t->extra);
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
		wc__extra_write_row(f, &t->extra, i);
		fputc('\n', f);
	}
	return wc__memstream_write_atomic(path, f, &buf, &len, err);
}

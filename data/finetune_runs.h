/*
 * Fine-tuning runs tables (docs/formats/finetune-runs.md): one CSV row per
 * fine-tuning run with its configuration, its measured energy per
 * optimizer step and its step time -- the input of `wattcast fit
 * finetune` and `wattcast validate finetune`, and what `wattcast ingest`
 * writes for fine-tuning run folders. A table is created by
 * wc_ft_table_read or wc_ft_table_new and freed with wc_ft_table_free.
 */
#ifndef WC_DATA_FINETUNE_RUNS_H
#define WC_DATA_FINETUNE_RUNS_H

#include <stddef.h>

#include "data/extra_columns.h"
#include "models/finetune_law.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One fine-tuning run. */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	char model[WC_MODEL_NAME_MAX];
	wc_ft_config config;        /* size and shape completed from the catalog */
	double energy_per_step_j;   /* all GPUs of the job, checkpoint saves excluded */
	double step_s;              /* seconds per optimizer step */
	char set[48];
	char exclude[128];          /* non-empty = left out of fits (the reason) */
	int line;                   /* line in the source file (1-based); 0 = built */
} wc_ft_run;

typedef struct {
	char path[512];
	wc_ft_run *runs;
	size_t n_runs, cap_runs;
	wc_extra_columns extra;     /* columns wattcast does not know, kept verbatim */
	char sha256[65];            /* of the file's bytes */
} wc_ft_table;

/** A run with every number unknown (NaN) and the configuration's defaults. */
void wc_ft_run_init(wc_ft_run *r);

/** Read a table: header row, `#` comments, strict cells. Errors name
 *  file:line:column, the column and the reason ("runs.csv:4:31: column
 *  'micro_batch': must be a whole number >= 1, got '-2'"). Caller frees
 *  with wc_ft_table_free. */
int wc_ft_table_read(const char *path, wc_ft_table **out, wc_error *err);
int wc_ft_table_read_buffer(const char *buf, size_t len, const char *path, wc_ft_table **out,
                            wc_error *err);

wc_ft_table *wc_ft_table_new(void);
void wc_ft_table_free(wc_ft_table *t);
/** Append a copy of `run` (its extras blank). */
int wc_ft_table_append(wc_ft_table *t, const wc_ft_run *run, wc_error *err);
/** Set extra column `column` of row `row` (added, blank elsewhere, when new). */
int wc_ft_table_set_extra(wc_ft_table *t, size_t row, const char *column, const char *value,
                          wc_error *err);
/** An extra value, or NULL when the column is absent (borrowed). */
const char *wc_ft_table_get_extra(const wc_ft_table *t, size_t row, const char *column);

/** Write as CSV atomically: the documented columns, then the extras. A
 *  `comment` (may hold newlines) comes first as `#` lines. */
int wc_ft_table_write(const char *path, const wc_ft_table *t, const char *comment, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/* Private to data/: the columns of a fine-tuning runs table, shared by its
 * reader (finetune_runs_read.c) and writer (finetune_runs.c). */
#ifndef WC_DATA_FINETUNE_RUNS_INTERNAL_H
#define WC_DATA_FINETUNE_RUNS_INTERNAL_H

#include "data/finetune_runs.h"

typedef enum {
	FT_COL_RUN_ID, FT_COL_PLATFORM, FT_COL_GPUS, FT_COL_DP, FT_COL_MODEL, FT_COL_PARAMS,
	FT_COL_LAYERS, FT_COL_DMODEL, FT_COL_METHOD, FT_COL_RANK, FT_COL_BATCH, FT_COL_SEQ,
	FT_COL_ACCUM, FT_COL_CKPT, FT_COL_ENERGY, FT_COL_STEP, FT_COL_TOKENS, FT_COL_SET,
	FT_COL_EXCLUDE, FT_COL_COUNT
} wc__ft_column;

/** Column names in file order (docs/formats/finetune-runs.md). */
extern const char *const wc__ft_column_names[FT_COL_COUNT];

/** Append `run` with room for its extras (all blank). */
int wc__ft_table_push(wc_ft_table *t, const wc_ft_run *run, wc_error *err);

#endif

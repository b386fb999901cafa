/*
 * Mixed table inputs (data/table_inputs.c): any mix of runs tables,
 * periods tables (recognised by their `period_s` column) and raw
 * ML.ENERGY configuration tables (recognised by `avg_batch_size` and
 * `model_id`, imported as `wattcast import mlenergy` does), merged into
 * one runs table and one periods table, as the capacity model's fit and
 * validation take them (docs/capacity.md).
 */
#ifndef WC_DATA_TABLE_INPUTS_H
#define WC_DATA_TABLE_INPUTS_H

#include <stddef.h>

#include "data/periods.h"
#include "data/runs_table.h"

/** Read the `n` files at `paths` and merge them: `*runs` and `*periods`
 *  are created here and are the caller's, also on failure (free them with
 *  wc_runs_free and wc_periods_free, both NULL-safe here). Errors name the
 *  file. */
int wc_table_inputs_read(char *const *paths, size_t n, wc_runs_table **runs,
                         wc_periods_table **periods, wc_error *err);

/** The fingerprint of several input files: the SHA-256 (hex) of their
 *  own hashes, in order (at most the first 16; unreadable files count as
 *  absent). */
void wc_table_inputs_fingerprint(char *const *paths, size_t n, char out[65]);

#endif

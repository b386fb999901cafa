/*
 * Imports of other tables into runs tables (docs/formats/runs-table.md):
 * the ML.ENERGY Leaderboard configuration table, and any CSV with renamed
 * columns. Tables returned through `**out` are freed with wc_runs_free.
 */
#ifndef WC_DATA_IMPORT_H
#define WC_DATA_IMPORT_H

#include "data/runs_table.h"
#include "data/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Convert the ML.ENERGY Leaderboard v3 configuration table (columns as
 *  published: task, model_id, gpu_model, num_gpus, avg_batch_size,
 *  avg_power_watts, ...) into a runs table: one row per configuration,
 *  tp = num_gpus (the GPUs summed in avg_power_watts), running =
 *  avg_batch_size, weights from weight_precision (bfloat16 -> bf16, fp8,
 *  mxfp4 -> int4: 4-bit weights), set = task; the source's other columns
 *  are kept as extras. No idle power is published: P0 comes from the
 *  fit's prior or is fitted. Caller frees `*out`. */
int wc_import_mlenergy(const char *path, wc_runs_table **out, wc_error *err);
/** Same, from the bytes of the file (`len` of them, as wc_read_file
 *  returns them: any UTF-8 BOM already skipped); `path` names it in
 *  messages and in the table. */
int wc_import_mlenergy_buffer(const char *buf, size_t len, const char *path, wc_runs_table **out,
                              wc_error *err);
/** wc_import_mlenergy, and one warning to `warn` (may be NULL) naming
 *  the rows that repeat an earlier row in full, by line number: almost
 *  always a copy-paste slip (kept, numbered as "#2" repeats). */
int wc_import_mlenergy_warn(const char *path, wc_runs_table **out, wc_warn_fn warn, void *payload,
                            wc_error *err);
int wc_import_mlenergy_buffer_warn(const char *buf, size_t len, const char *path, wc_runs_table **out,
                                   wc_warn_fn warn, void *payload, wc_error *err);
/** Read any CSV as a runs table after renaming its header columns
 *  (`src[i]` becomes `dst[i]`); unmapped columns stay as extras. Errors
 *  keep the source file's line and column. Caller frees `*out`. */
int wc_import_csv(const char *path, const char *const *src, const char *const *dst, int n_map,
                  wc_runs_table **out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

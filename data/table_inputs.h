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
#include "models/capacity_model.h"

/** The longest label of the inputs (the merged runs table's `path`): what
 *  capacity.provenance's calibrated_on holds. */
#define WC_INPUTS_LABEL_MAX sizeof(((wc_capacity_params *)0)->calibrated_on)

/** Read the `n` files at `paths` and merge them: `*runs` and `*periods`
 *  are created here and are the caller's, also on failure (free them with
 *  wc_runs_free and wc_periods_free, both NULL-safe here). Errors name the
 *  file. The merged runs table's `path` names every input ("a.csv, b.csv")
 *  or, when they do not fit in WC_INPUTS_LABEL_MAX, the first and how many
 *  more ("a.csv and 16 more (17 inputs)"). */
int wc_table_inputs_read(char *const *paths, size_t n, wc_runs_table **runs,
                         wc_periods_table **periods, wc_error *err);

/** Read one runs table at `path`, or a raw ML.ENERGY configuration table
 *  imported on the fly as `wattcast import mlenergy` does (the same
 *  recognition as wc_table_inputs_read): what every command taking one
 *  runs table reads (docs/cli.md). `*out` as wc_runs_read leaves it. */
int wc_table_inputs_read_runs(const char *path, wc_runs_table **out, wc_error *err);

/** The label of `n` inputs into `out`: every one, comma-separated, when
 *  they fit in min(cap, WC_INPUTS_LABEL_MAX), else the first and how many
 *  more -- never the first alone as if it were all. What a record's
 *  `calibrated_on` / `fitted_on` holds (docs/formats/params-file.md). */
void wc_inputs_label(char *const *paths, size_t n, char *out, size_t cap);

/** The fingerprint of several input files: the SHA-256 (hex) of their
 *  own hashes (hex, concatenated in order; an unreadable file adds "-"),
 *  over all of them. "" when out of memory. */
void wc_table_inputs_fingerprint(char *const *paths, size_t n, char out[65]);

/** A run id given twice among the `n` ids `id(i, payload)` (borrowed
 *  from them) into *repeated, or NULL when each is given once; n log n.
 *  `where` (or NULL) gets the two indices holding it, the lower first, so
 *  a refusal can name both places. WC_ENOMEM only. The one rule behind
 *  every "each run once" check. */
int wc_runs_repeated_id(size_t n, const char *(*id)(size_t i, const void *payload), const void *payload,
                        const char **repeated, size_t where[2], wc_error *err);

#endif

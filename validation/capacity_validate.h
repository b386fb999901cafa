/*
 * Held-out accuracy of the capacity model (docs/validation.md, "Capacity"):
 * leave one model out over the runs tables' rows (throughput and energy
 * per output token, per platform: the power law and the capacity model
 * are both refitted without the model), and leave one out over the
 * periods tables' rows (each period predicted from a fit on the others).
 */
#ifndef WC_VALIDATION_CAPACITY_H
#define WC_VALIDATION_CAPACITY_H

#include "data/per_run.h"
#include "fit/capacity_fit.h"
#include "validation/accuracy.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A row a fold could not predict, and why (the fold's own reason: the
 *  refit that failed and its message, the level or input length the fold's
 *  fit lacks, ...). */
#define WC_CAPACITY_SKIPS_NAMED 32
typedef struct {
	char run_id[96];
	char reason[224];
} wc_capacity_skip;

typedef struct {
	wc_heldout_report throughput;  /* leave one model out, one set per platform */
	wc_heldout_report energy;      /* energy per output token, same folds */
	wc_heldout_report periods;     /* leave one period out, one set per platform */
	/* the skipped rows of each (throughput, energy, periods), the first
	 * WC_CAPACITY_SKIPS_NAMED named; the report's `skipped` counts all */
	int n_named[3];
	wc_capacity_skip named[3][WC_CAPACITY_SKIPS_NAMED];
	/* periods rows with an earlier twin (wc_fit_period_twins: a table
	 * given twice, a row repeated), held out with it; the first pair's ids */
	int period_twins;
	char period_twin[2][96];
} wc_capacity_report;

/** `runs` is the table the capacity rows of `d` came from (their
 *  source_index; may be NULL when `d` holds periods only); `power` the
 *  options of the power-law fit of each fold (its prior gives P0). */
int wc_validate_capacity(const wc_runs_table *runs, const wc_capacity_data *d,
                         const wc_capacity_fit_options *co, const wc_fit_options *power,
                         wc_capacity_report *out, wc_per_run *per_run, wc_error *err);

/** What a fold holds out: one model (wc_validate_capacity: runs-table rows
 *  leave each model out, periods each period), or one platform (every row
 *  of the platform, runs tables and periods; its rows are predicted through
 *  the datasheet transfer of wc_capacity_bind_any, docs/capacity.md
 *  "Platforms without a capacity level"; energy per output token with the
 *  power of `power->prior` whose level for the platform is replaced by its
 *  datasheet transfer, the shared slopes as fitted). */
typedef enum { WC_CAPACITY_FOLDS_MODEL = 0, WC_CAPACITY_FOLDS_PLATFORM } wc_capacity_folds;
int wc_validate_capacity_folds(const wc_runs_table *runs, const wc_capacity_data *d,
                               const wc_capacity_fit_options *co, const wc_fit_options *power,
                               wc_capacity_folds folds, wc_capacity_report *out, wc_per_run *per_run,
                               wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The law's held-out error of mean power, measured on a runs table
 * (docs/intervals.md): the "prediction_error" section a parameter file
 * carries, so that its 95 % intervals cover runs nobody fitted.
 */
#ifndef WC_VALIDATION_INTERVALS_H
#define WC_VALIDATION_INTERVALS_H

#include "data/runs_table.h"
#include "fit/fit.h"
#include "validation/capacity_validate.h"
#include "validation/finetune_validate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Compute the section from the runs of `t` (excluded runs and runs
 *  outside base->use take no part). `folds`:
 *   "model"    refit `base` leaving each model (with its variants) out and
 *              predict it -- for answers about unseen models;
 *   "workload" the same, one `set` at a time -- for unseen workloads;
 *   "frozen"   predict every run with `frozen`, which never saw them (the
 *              built-in profiles on measured tables); groups are models.
 *  Residuals are log(measured / predicted); one pooled stratum, plus one
 *  per platform that holds at least WC_PE_MIN_GROUPS groups. `data`
 *  (may be NULL) says where the runs came from. WC_EINVAL when too few
 *  runs could be predicted for a 95 % quantile. */
int wc_validate_pred_error(const wc_runs_table *t, const wc_fit_options *base, const wc_params *frozen,
                           const char *folds, const char *data, wc_pred_error *out, wc_error *err);
/** The same, and why runs went unpredicted into why[0..cap) (the
 *  held-out report's reason, as `validate lomo` prints it; "" when none
 *  was, or none is known). */
int wc_validate_pred_error_why(const wc_runs_table *t, const wc_fit_options *base, const wc_params *frozen,
                               const char *folds, const char *data, wc_pred_error *out, char *why, size_t cap,
                               wc_error *err);

/** The capacity model's held-out error, leave one model out as `validate
 *  capacity` (docs/intervals.md): out[WC_PEQ_LATENCY] from the throughput
 *  residuals (the same |log residual| as latency's) and
 *  out[WC_PEQ_ENERGY_TOKEN] from energy per output token's (needs
 *  `runs`, for the power law). out has WC_PEQ_COUNT entries; the others
 *  are left as they are. */
int wc_validate_capacity_pred_error(const wc_runs_table *runs, const wc_capacity_data *d,
                                    const wc_capacity_fit_options *co, const wc_fit_options *power,
                                    const char *data, wc_pred_error *out, wc_error *err);

/** The fine-tuning law's held-out error of energy per step, each level of
 *  each sweep held out as `validate finetune` does (the compute law
 *  refitted on every other run; folds "level"): into
 *  out[WC_PEQ_FT_STEP]. */
int wc_validate_finetune_pred_error(const wc_ft_table *t, const char *data, wc_pred_error *out,
                                    wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

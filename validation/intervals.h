/*
 * The law's held-out error of mean power, measured on a runs table
 * (docs/intervals.md): the "prediction_error" section a parameter file
 * carries, so that its 95 % intervals cover runs nobody fitted.
 */
#ifndef WC_VALIDATION_INTERVALS_H
#define WC_VALIDATION_INTERVALS_H

#include "data/runs_table.h"
#include "fit/fit.h"

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

#ifdef __cplusplus
}
#endif
#endif

/* Private to validation/: scoring a frozen law on one run. */
#ifndef WC_VALIDATION_INTERNAL_H
#define WC_VALIDATION_INTERNAL_H

#include "data/per_run.h"
#include "predict/predict.h"
#include "validation/validation.h"

/** Residual of the law on a run in the fit's metric, model minus data in
 *  log(P̄ − G·P0) (P0: the run's measured idle, else the level's). NaN when
 *  the run cannot be scored (unknown level, P̄ <= G·P0, law error). */
double wc__log_residual(const wc_params *p, const wc_run *run);

/** Summarise signed errors (% of measured, + = overprediction) overall and
 *  per set name, sets in order of first appearance (heldout.c). `skipped`
 *  is copied into the report. */
int wc__accuracy_summary(const double *err_pct, const char (*sets)[48], size_t m, int skipped,
                         wc_heldout_report *out, wc_error *err);

/** Why a held-out analysis left runs unpredicted, one sentence for every
 *  report that must say it (docs/cli.md, "fit intervals"; lomo.c): `failed`
 *  refits that failed for `unfit` runs with the first one's `why` ("without
 *  'M': fit: ..."), then what left the others out, the first of the
 *  NULL-ended wordings `rest` (longest first; NULL or "" = none) that fits:
 *  "1 refit(s) failed (31 runs; without 'Qwen3-32B': ...), the rest's level
 *  had no training run". `failed` 0: `rest` alone. Each reason stays whole
 *  within `cap` (`why` is left out whole before a wording is cut). */
void wc__skip_reason(char *buf, size_t cap, int failed, int unfit, const char *why, const char *const *rest);

/* wc__predict_run's flags */
enum { WC__RUN_INTERVAL = 1,  /* the row gets the 95 % interval */
       WC__RUN_DATASHEET = 2  /* a catalog board without a level is answered
                               * by its datasheet transfer, as predict does */ };
/** Predict run `r` with a frozen law (predict_run.c): its configuration,
 *  its n(t) histogram when it has one, its measured idle in place of P0
 *  when it has one. `*pred` is the group's mean power; when `row` is not
 *  NULL it is filled for --per-run output (warnings too). An unknown
 *  platform (without WC__RUN_DATASHEET, any platform the set has no level
 *  for: the held-out scores are the fit's) or an invalid configuration is
 *  an error. */
int wc__predict_run(const wc_predictor *pr, const wc_run *r, double *pred, wc_per_run_row *row, int flags,
                    wc_error *err);

/** Where the P0 of an answer for `c` came from, for --per-run's p0_source
 *  (docs/validation.md, "Per-run output"): "run" (c's own idle_power_w),
 *  "term:SOURCE" (its model term's p0_w, wc_params_find_p0), else
 *  `level_prefix` and the level's P0 source, `no_level` without a level. */
void wc__p0_source(const wc_params *p, const wc_config *c, const char *level_prefix, const char *no_level, char *buf,
                   size_t cap);

/** The rows of `t` whose frozen power `p`'s capacity section moves, that
 *  section fitted on this very table (its provenance input_sha256 is
 *  `t`'s) or on the row's run (wc_capacity_fitted_on_run), marked 1 in `mark` (n_runs bytes, left as they are otherwise);
 *  their count (heldout_capacity.c; docs/validation.md, "Frozen-law
 *  accuracy"). */
size_t wc__capacity_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *mark);
/** What the section sets in those rows' power: "prefill share" (the
 *  prefill-aware form) or "input length" (the prompt-share term). */
const char *wc__capacity_sets(const wc_params *p);

/** Two estimates the same to 1e-6 relative (both NaN alike): the one
 *  tolerance by which a refit, a recalibration or a recomputed interval
 *  is known to give a set's own numbers (heldout.c). */
int wc__near(double a, double b);
/** `input` then `text` into buf[0..cap), the path giving way in its
 *  middle so the text arrives whole (heldout.c; docs/architecture.md,
 *  "Errors"). */
void wc__path_then(char *buf, size_t cap, const char *input, const char *text);

/* heldout_rows.c: rows a set saw, by their hashes (docs/validation.md,
 * "Frozen-law accuracy"). wc__same_run_spread marks every row of a run
 * one of whose rows is marked (a run's `#seg<k>` pieces: wc_run_same_run).
 * wc__fit_rows_in marks the rows the law was fitted on (schema 19: by
 * content, or by run for pieces) and counts the marked rows.
 * wc__calibration_rows_in marks those among the calibration's row hashes
 * and the other pieces of their runs: returns the rows found by hash,
 * into *with_pieces the rows marked. */
void wc__same_run_spread(const wc_runs_table *t, unsigned char *mark);
size_t wc__fit_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *used);
size_t wc__calibration_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *mark, size_t *with_pieces);

/** Cross-conformal 95 % intervals (intervals.c): each row's lo/hi from the
 *  held-out residuals of the other groups' rows of the same quantity
 *  (group = the row's fold when `by_fold`, else its model), pooled or per
 *  platform as the section is (docs/intervals.md). */
int wc__pe_cross_intervals(wc_per_run *rows, int by_fold, wc_error *err);
/** Does row r's interval count toward coverage of `quantity` (NULL = any):
 *  finite ends and that quantity? Then its width relative to its estimate
 *  into *rel_width and whether it holds the measured value into *covers:
 *  the one rule of the pooled, per-set and per-load coverage (intervals.c). */
int wc__coverage_row(const wc_per_run_row *r, const char *quantity, double *rel_width, int *covers);
/** Coverage of the rows' intervals (of `quantity`; NULL = any) and their
 *  median relative width into `out`'s overall row and each set row
 *  (matched by the rows' `set`). */
int wc__coverage_summary(const wc_per_run *rows, const char *quantity, wc_heldout_report *out,
                         wc_error *err);
/** Coverage and median relative width of the rows' intervals (of
 *  `quantity`; NULL = any) in bands of their running count into `out`'s
 *  load_bands (coverage_load.c; docs/intervals.md, "Coverage by load"):
 *  none when fewer than two bands of WC_LOAD_BAND_MIN_ROWS rows. Called by
 *  wc__coverage_summary. */
int wc__coverage_by_load(const wc_per_run *rows, const char *quantity, wc_heldout_report *out, wc_error *err);

/** The section of held-out errors from `rows` (of `quantity`; NULL =
 *  any): pooled, and each platform with enough groups; WC_EINVAL when too
 *  few residuals, saying how many and, from `rep` (NULL = none), how many
 *  runs were not predicted and why. */
int wc__pe_from_rows(const wc_per_run *rows, int by_fold, const char *quantity, const char *folds,
                     const char *data, const wc_heldout_report *rep, wc_pred_error *out, wc_error *err);

/** Leave one model (lomo.c) or one workload `set` out, as
 *  wc_validate_lomo; per-run folds are "<fold_prefix><held-out key>" and
 *  `*groups` (may be NULL) counts the groups held out. */
int wc__validate_lomo_groups(const wc_runs_table *t, const wc_fit_options *base, const char *fold_prefix,
                             wc_heldout_report *out, int *groups, wc_per_run *per_run, wc_error *err);
int wc__validate_lowo_groups(const wc_runs_table *t, const wc_fit_options *base, const char *fold_prefix,
                             wc_heldout_report *out, int *groups, wc_per_run *per_run, wc_error *err);

#endif

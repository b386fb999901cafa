/*
 * Accuracy of a law on runs it did not see (docs/validation.md, "Frozen-law
 * accuracy" and "Leave one model out"). Reports are plain values.
 */
#ifndef WC_VALIDATION_ACCURACY_H
#define WC_VALIDATION_ACCURACY_H

#include "data/per_run.h"
#include "data/runs_table.h"
#include "fit/fit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_HELDOUT_SETS_MAX 32

typedef struct {
	char set[48];                  /* "" for the overall row */
	int n;
	double median_abs_err_pct;
	double share_within_5pct;      /* 0..1 */
	double bias_pct;               /* mean signed error, + = overprediction */
	int n_interval;                /* rows with a 95 % interval */
	double coverage_95;            /* share of them whose measured value is
	                                * inside it (0..1); NaN without */
	double median_rel_width;       /* median (hi - lo) / predicted; NaN without */
} wc_accuracy;

/* Coverage by load (docs/intervals.md, "Coverage by load"): the rows
 * with an interval cut at the quantiles of their running count into at
 * most WC_LOAD_BANDS bands of equal count, none under
 * WC_LOAD_BAND_MIN_ROWS rows (fewer rows, fewer bands; under two, none). A
 * pooled 95 % can hide a band far under it. */
#define WC_LOAD_BANDS 4
#define WC_LOAD_BAND_MIN_ROWS 20

typedef struct {
	double running_lo, running_hi; /* the band's smallest and largest running */
	int n_interval;
	double coverage_95;            /* 0..1 */
	double median_rel_width;
} wc_load_band;

typedef struct {
	wc_accuracy overall;
	int n_load_bands;              /* 0: too few rows with an interval and a load */
	wc_load_band load_bands[WC_LOAD_BANDS];
	int n_sets;
	wc_accuracy sets[WC_HELDOUT_SETS_MAX];
	int skipped;                   /* rows whose platform the law lacks */
	int sets_not_shown, runs_not_shown; /* beyond WC_HELDOUT_SETS_MAX: in
	                                * `overall` only (said by the caller) */
	char skip_reason[WC_ERROR_MSG_MAX]; /* the first skipped row's, "" none */
	wc_law_terms_notes law_terms;  /* structure terms the refits left out */
} wc_heldout_report;

/** Accuracy of a frozen law on every row of `t` (excluded rows included:
 *  held-out sets are usually excluded from the fit), overall and per
 *  `set` value (rows without one form the set "unlabelled"). Each run is
 *  predicted as `wattcast predict` would, with its measured idle power
 *  in place of P0 when it has one. `per_run` (may be NULL) receives one
 *  row per predicted run. */
/** Runs scored as validate heldout scores them (predict_run.c): node_w[i]
 *  is run i's mean power as `p` answers it, the clock settled under the
 *  board's power limit, NaN when it has no answer (a platform without a
 *  level). Calibrate names the runs its result misses by these
 *  (docs/calibration.md); the signature is wc_calibrate_score_fn's, `ctx`
 *  unused. Fails only when `p` cannot answer at all. */
int wc_validate_score_runs(void *ctx, const wc_params *p, const wc_run *const *runs, int n, double *node_w,
                           wc_error *err);
int wc_validate_heldout(const wc_params *p, const wc_runs_table *t, wc_heldout_report *out,
                        wc_per_run *per_run, wc_error *err);
/** The same, with a run on a catalog board the law has no level for
 *  answered by the board's datasheet transfer, as `predict` answers it
 *  (docs/validation.md): the zero-shot accuracy on a new board. */
int wc_validate_heldout_datasheet(const wc_params *p, const wc_runs_table *t, wc_heldout_report *out,
                                  wc_per_run *per_run, wc_error *err);
/** A run a frozen-law score skipped: its id and why, whole (the report's
 *  `skip_reason` holds the first, cut to one line). */
typedef void (*wc_heldout_skip_fn)(const char *run_id, const char *why, void *payload);
/** wc_validate_heldout (wc_validate_heldout_datasheet with `datasheet`)
 *  calling `each` (may be NULL) for every run it skips, in the table's
 *  order: what `validate heldout` says of each (docs/validation.md,
 *  "Frozen-law accuracy"). */
int wc_validate_heldout_each(const wc_params *p, const wc_runs_table *t, int datasheet, wc_heldout_report *out,
                             wc_per_run *per_run, wc_heldout_skip_fn each, void *payload, wc_error *err);
/** The rows of a table whose frozen scores are in-sample, by what saw
 *  them: `law` those the set's law was fitted on, `calibration` those its
 *  calibration used on what it estimated, `capacity` those whose power
 *  the set's capacity section moves (its prefill share or input length),
 *  that section fitted on this very table, `rows` any of them (a row may
 *  be several); all 0 when the table is held out. */
typedef struct {
	size_t law, calibration, capacity, rows;
	size_t idle; /* rows whose idle set a level's P0 (wc_heldout_level_note) */
} wc_in_sample_rows;

/** 1 when capacity section `cap` records having been fitted on the run
 *  of `platform` and `run_id` (its provenance run_hashes, schema 16,
 *  wc_run_id_hash; a segment's row `<run>#seg<k>` is its run's, either
 *  side): service times or a prefill share it gives that run
 *  are in-sample. The one rule of `validate heldout` and `validate
 *  envelope` (docs/validation.md, "Envelopes"). */
int wc_capacity_fitted_on_run(const wc_capacity_params *cap, const char *platform, const char *run_id);

/** 1, and in `buf` a warning naming `input`, when `t` holds rows `p` was
 *  fitted or calibrated on (the very table, or rows that refit or
 *  recalibrate to the set's own parameters, or rows among its
 *  calibration's row hashes), or is the very table its capacity section
 *  was fitted on and that section moves some rows' power: a frozen score
 *  of them is in-sample, not held out. All are looked for, and the
 *  warning names each that holds
 *  (docs/validation.md, "Frozen-law accuracy"). Into `*rows` (may be
 *  NULL) the counts, zero when it returns 0. */
int wc_heldout_in_sample(const wc_params *p, const wc_runs_table *t, const char *input, char *buf,
                         size_t cap, wc_in_sample_rows *rows);
/** What wc_heldout_in_sample (its counts `seen`) leaves unsaid, 1 and in
 *  `buf` a warning naming `input` when there is some: rows of `t` whose
 *  measured idle set a level's P0 (provenance idle_row_hashes, their
 *  count into *idle_rows, may be NULL) -- that P0 is in-sample for them,
 *  the law held out; or, with nothing found in-sample, a set before
 *  schema 19 that records no rows, for which a subset of its own rows
 *  cannot be told from held-out ones (docs/validation.md, "Frozen-law
 *  accuracy"). */
int wc_heldout_level_note(const wc_params *p, const wc_runs_table *t, const wc_in_sample_rows *seen,
                          const char *input, char *buf, size_t cap, size_t *idle_rows);
/** 1, and in `buf` a warning naming `input`, when `p`'s prediction_error
 *  was measured on the runs of `t` as `validate heldout` scores them:
 *  recomputed on `t` as it was (folds frozen; with `datasheet`, and a row
 *  on a board `p` has no level for, its datasheet stratum leaving each
 *  platform out), it gives the set's strata again. The interval coverage
 *  of such a score is in-sample: its quantile is these very residuals'
 *  (docs/validation.md, "Frozen-law accuracy"). */
int wc_heldout_interval_in_sample(const wc_params *p, const wc_runs_table *t, int datasheet, const char *input,
                                  char *buf, size_t cap);

/* ------------------------------------------------- leave one model out */

/** Leave-one-model-out accuracy: for each model (variants such as
 *  "-Instruct-2507", "-FP8" or "-Thinking" are grouped with their base
 *  model through the catalog, so a held-out model has no twin in the
 *  training runs), fit `base` on the other models' runs and predict the
 *  held-out ones. Reported like heldout, with one set per platform; runs
 *  that cannot be predicted (their level has no other model) are counted
 *  in `skipped`. Excluded runs take no part. `per_run` (may be NULL)
 *  receives one row per predicted run, its fold naming the held-out
 *  model. */
int wc_validate_lomo(const wc_runs_table *t, const wc_fit_options *base, wc_heldout_report *out,
                     wc_per_run *per_run, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

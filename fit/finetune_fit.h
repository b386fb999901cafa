/*
 * Fitting the fine-tuning law (docs/finetune.md, "Fitting") on a
 * fine-tuning runs table: the compute-energy law E_step = e0 + kappa F by
 * LAPACK least squares with standard errors, R^2 and bootstrap intervals
 * (replicate r resamples runs from PCG stream (seed, r); bit-identical for
 * any thread count), the sweeps the table holds, and the per-factor
 * relations fitted on them.
 *
 * Ownership: wc_ft_sweeps and wc_ft_fit_result own their arrays and are
 * released with wc_ft_sweeps_clear / wc_ft_fit_result_clear. Tables are
 * borrowed.
 */
#ifndef WC_FIT_FINETUNE_H
#define WC_FIT_FINETUNE_H

#include <stddef.h>
#include <stdint.h>

#include "models/warnings.h"
#include "data/finetune_runs.h"
#include "fit/fit.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A run's derived numbers; `ok` = 0 when its configuration is refused. */
typedef struct {
	int ok;
	wc_ft_flops flops;
	double energy_per_token_j;
} wc_ft_run_facts;

/** FLOPs and energy per token of row `row`. */
int wc_ft_run_facts_of(const wc_ft_run *run, wc_ft_run_facts *out, wc_error *err);

/* ----------------------------------------------------------- sweeps */

/** A sweep: runs of one platform sharing every factor but one. */
typedef struct {
	wc_ft_relation_kind kind;
	size_t n_rows;
	size_t *rows;            /* table rows, in table order */
	int n_levels;
	double *levels;          /* distinct values of the factor, ascending */
	wc_ft_config base;       /* the fixed factors (the swept field: the first run's) */
	char platform[WC_NAME_MAX];
} wc_ft_sweep;

typedef struct {
	int n;
	wc_ft_sweep *sweeps;     /* ordered by kind, then by first row */
} wc_ft_sweeps;

/** The sweeps of the runs `use` keeps (NULL = every run without
 *  `exclude`): groups with at least terms + 1 levels of the factor. A run
 *  may belong to one sweep of each kind (a shared base point). */
int wc_ft_find_sweeps(const wc_ft_table *t, const unsigned char *use, wc_ft_sweeps *out,
                      wc_error *err);
void wc_ft_sweeps_clear(wc_ft_sweeps *s);
/** Index of the sweep of `kind` with the most levels (then runs), or -1. */
int wc_ft_sweeps_best(const wc_ft_sweeps *s, wc_ft_relation_kind kind);

/* ------------------------------------------------------------- fits */

/** A linear least-squares fit of relative residuals (docs/finetune.md,
 *  "Fitting"): coefficients, their standard errors, R^2 on the natural
 *  scale, and the span of x. */
typedef struct {
	int terms;
	double coef[3], se[3];
	double r2;
	double rms_rel;          /* sd of the relative residuals, n - p dof; NaN when n <= p */
	int n;                   /* runs */
	int levels;              /* distinct x */
	double x_lo, x_hi;
} wc_ft_linear_fit;

/** The compute law on the rows `use` keeps (NULL = every run without
 *  `exclude`): coef = {e0 per GPU, kappa}, E_step = G e0 + kappa F with F
 *  in TFLOP. Needs three runs and two distinct F. */
int wc_ft_fit_compute(const wc_ft_table *t, const unsigned char *use, wc_ft_linear_fit *out,
                      wc_error *err);
/** Relation `kind` on `rows` (e_tok against its factor). Needs one run
 *  more than terms and `terms` distinct levels. */
int wc_ft_fit_relation(const wc_ft_table *t, wc_ft_relation_kind kind, const size_t *rows,
                       size_t n_rows, wc_ft_linear_fit *out, wc_error *err);

typedef struct {
	wc_finetune_params section; /* the fitted law (sources "fitted") */
	wc_ft_linear_fit compute;
	wc_ft_linear_fit relation[WC_FT_REL_COUNT];
	int has_relation[WC_FT_REL_COUNT];
	wc_ft_sweeps sweeps;
	int n_used, n_excluded;
	int boot_failed;            /* bootstrap replicates left out */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_ft_fit_result;

/** Fit the compute law and every relation the table's sweeps support, with
 *  `bo->replicates` bootstrap draws of (e0, kappa) when bo is given and
 *  replicates >= 2. Caller clears `out` (zero it first). */
int wc_fit_finetune(const wc_ft_table *t, const wc_bootstrap_options *bo, wc_ft_fit_result *out,
                    wc_error *err);
void wc_ft_fit_result_clear(wc_ft_fit_result *r);

/* ------------------------------------- calibration from one or a few runs */

/** `wattcast calibrate finetune` (docs/finetune.md, "Calibrating from one
 *  run"). Start from WC_FT_CALIBRATE_OPTIONS_INIT. */
typedef struct {
	wc_ft_cal_mode mode;     /* scale (default) or kappa (e0 held) */
	const unsigned char *use; /* NULL = every run without `exclude` */
	/** Replicates of the draws: 0 = as many as the base has draws (1000
	 *  when it has none); -1 = none (point estimate only). */
	int replicates;
	uint64_t seed;
	/** sd of log E_step of one run around the law; 0 = the base's
	 *  residual_rms (0.1, assumed, when it records none), raised to the
	 *  runs' own scatter when more runs than one give a larger one. */
	double run_scatter;
} wc_ft_calibrate_options;

#define WC_FT_CALIBRATE_OPTIONS_INIT                                             \
	{ .mode = WC_FT_CAL_SCALE, .use = NULL, .replicates = 0, .seed = 0,       \
	  .run_scatter = 0.0 }

#define WC_FT_CAL_RUNS_SHOWN 16

/** One calibration run, for reports. */
typedef struct {
	char run_id[96];
	double measured_j, base_j, calibrated_j;   /* E_step */
} wc_ft_calibrate_run;

typedef struct {
	wc_finetune_params section;  /* the calibrated law (sources "calibrated") */
	int n_runs;
	double run_scatter;          /* the one the draws used */
	char scatter_source[64];     /* "--run-scatter", "the base's residual RMS", ... */
	int replicates, failed;      /* asked for; left out (kappa <= 0) */
	double base_ratio;           /* measured / base energy, geometric mean over the runs */
	int n_shown;
	wc_ft_calibrate_run shown[WC_FT_CAL_RUNS_SHOWN];
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_ft_calibrate_result;

/** Rescale `base`'s compute law to the runs of `t`. Refusals (WC_EINVAL
 *  with the reason): a base without a fine-tuning law, no calibration
 *  run, and in kappa mode a held e0 that leaves no energy for the FLOPs.
 *  `out` is the caller's to clear (also on failure). */
int wc_ft_calibrate(const wc_finetune_params *base, const wc_ft_table *t,
                    const wc_ft_calibrate_options *o, wc_ft_calibrate_result *out, wc_error *err);
void wc_ft_calibrate_result_clear(wc_ft_calibrate_result *r);

#ifdef __cplusplus
}
#endif
#endif

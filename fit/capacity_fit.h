/*
 * Calibrating the capacity model (docs/capacity.md, "Observations and fitting"): one
 * observation model for every source -- runs tables (Little's-law
 * latency from throughput, inter-token latency, time to first token) and
 * periods tables (batch-turnover periods) -- fitted by GSL
 * multifit_nlinear (LM, finite-difference Jacobian) in log space, with
 * bootstrap intervals by resampling rows (replicate r on PCG stream
 * (seed, r): bit-identical for any thread count); and the affine
 * request-energy decomposition E(N) = E_fixed + N E_step.
 *
 * Ownership: wc_capacity_data and wc_capacity_fit_result own their arrays
 * (release with the *_clear functions); inputs are borrowed. Call
 * gsl_set_error_handler_off() once at start-up.
 */
#ifndef WC_FIT_CAPACITY_H
#define WC_FIT_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "models/warnings.h"
#include "data/periods.h"
#include "data/runs_table.h"
#include "fit/fit.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------- the evidence */

/** One measured configuration, whatever its source. Measurements that the
 *  source does not give are NaN. */
typedef struct {
	char id[WC_RUN_ID_HASHED + 1]; /* its run id, as wc_run_id_hash reads it */
	char platform[WC_NAME_MAX];
	char model[WC_MODEL_NAME_MAX]; /* as written in the source */
	char model_key[WC_MODEL_NAME_MAX]; /* catalog base model (leave-one-model-out) */
	char set[48];              /* workload label; "" = unlabelled */
	int tp;
	double expert_parallel;    /* the source's expert-parallel degree; NaN = not given */
	double running, input_tokens, output_tokens; /* input NaN = unknown */
	wc_precision weights, kv;
	wc_capacity_arch arch;
	double active_params_b;
	int from_periods;          /* 1: a periods-table row */
	size_t source_index;       /* row in its table */
	char exclude[128];
	/* observations (NaN = not measured) */
	double latency_s;          /* running x output / throughput, or the period */
	double itl_s;              /* median inter-token latency ~ t_dec */
	double ttft_s;             /* time to first token ~ t_pre + t_dec */
	/* what held-out reports compare (NaN = not measured) */
	double throughput_tok_s, energy_per_token_j, mean_power_w;
} wc_capacity_row;

typedef struct {
	wc_capacity_row *rows;
	size_t n_rows, cap_rows;
	int n_skipped;             /* rows without architecture, platform or observation */
	int n_notes;
	char notes[WC_WARNINGS_MAX][WC_WARNING_LEN];
	char sha256[65];           /* of the inputs (SHA-256 of their hashes) */
} wc_capacity_data;

#define WC_CAPACITY_DATA_INIT                                                    \
	{ .rows = NULL, .n_rows = 0, .cap_rows = 0, .n_skipped = 0, .n_notes = 0, \
	  .notes = { { 0 } }, .sha256 = "" }

/** Add a runs table's rows: architecture from the catalog by `model`,
 *  platform facts from the catalog, latency = running x output_tokens /
 *  throughput_tok_s, ITL from the extra column `itl_s` or `median_itl_ms`
 *  (ML.ENERGY), TTFT from `ttft_s`. Rows that give no usable observation
 *  are skipped and counted (a note says why). Excluded rows are kept,
 *  flagged, for held-out reports. */
int wc_capacity_data_add_runs(wc_capacity_data *d, const wc_runs_table *t, wc_error *err);
/** Why wc_capacity_data_add_runs leaves run i of `t` out without a note
 *  (no evidence about time), or -1 when it does not; and the reason in
 *  words, for callers that name such runs (`validate capacity`). */
enum { WC_CAPACITY_UNTIMED_RUNNING, WC_CAPACITY_UNTIMED_OUTPUT, WC_CAPACITY_UNTIMED_OBSERVED,
       WC_CAPACITY_UNTIMED_COUNT };
int wc_capacity_run_untimed(const wc_runs_table *t, size_t i);
const char *wc_capacity_untimed_reason(int why);
/** Add a periods table's rows (the period is the latency). */
int wc_capacity_data_add_periods(wc_capacity_data *d, const wc_periods_table *t, wc_error *err);
void wc_capacity_data_clear(wc_capacity_data *d);
/** Are periods rows `a` and `b` twins: equal in every measured field
 *  (platform, TP, running, input and output tokens, precisions, `set`, the
 *  period), whatever their ids and model names -- the rule of
 *  wc_fit_twin_models for a periods row (fit/twins.c). A row is its own
 *  twin. Leave one out holds twins out together (docs/validation.md,
 *  "Capacity"). */
int wc_fit_period_twins(const wc_capacity_row *a, const wc_capacity_row *b);

/* ------------------------------------------------------------- fit */

typedef struct {
	/** 1: a value per level; 0: one value shared by every level. */
	int per_level[WC_CAP_KINDS];
	/** Rows to fit (length n_rows; NULL = every row not excluded). */
	const unsigned char *use;
	/** Multiplicity per row (bootstrap); NULL = 1. */
	const double *weight;
	int max_iter;
	/** Start (fit coordinates, length = parameters; optional). */
	const double *start;
	size_t start_len;
	/** 1 (the default): Huber-weighted (iteratively reweighted) least
	 *  squares, so that a few runs no bytes-and-FLOPs model explains do
	 *  not pull every other prediction; 0: plain least squares (how the
	 *  `paper` profile's section was fitted). Chosen by held-out scores,
	 *  docs/capacity.md "Robust fit". */
	int robust;
	/** 1: each model counts once -- every row of a model (its catalog
	 *  base name) weighs 1 / (that model's rows in the fit), scaled to a
	 *  mean of 1 over the rows, in the fit, Huber's scale and weights, the
	 *  bootstrap (multiplicity x weight) and, through Kish's effective
	 *  count, the standard errors; 0: every row counts once
	 *  (docs/capacity.md, "Each model counts once"). */
	int model_weights;
} wc_capacity_fit_options;

/** Defaults: eta and t0 per level; t1, etac and tau shared; robust. */
#define WC_CAPACITY_FIT_OPTIONS_INIT                                              \
	{ .per_level = { 1, 1, 0, 0, 0 }, .use = NULL, .weight = NULL, .max_iter = 500, \
	  .start = NULL, .start_len = 0, .robust = 1, .model_weights = 0 }

typedef struct {
	wc_capacity_params params;  /* the fitted section */
	int converged, gsl_status, niter;
	int n_rows, n_obs, n_params;
	double n_eff;               /* Kish's effective count of the observations
	                             * (n_obs when every row weighs the same) */
	double rms;                 /* of the log residuals */
	char (*names)[WC_LABEL_MAX]; /* n_params labels */
	double *x;                  /* natural values */
	double *u;                  /* fit coordinates */
	double *se_log;             /* standard error of log(value) */
	double *row_residual;       /* per data row: log(model / measured latency
	                             * or period); NaN when not fitted */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_capacity_fit_result;

/** Fit the capacity model. A kind that the rows cannot identify is fixed
 *  and said so: t1 at 0 where every row has the same running count, tau
 *  at 0 where no row has tp > 1. A level's own overhead (t0, t1, tau) that
 *  its rows run to an edge of its domain, where other levels' rows
 *  identify theirs, is held at their median (source "assumed", a
 *  warning) and the fit solved again without it (docs/capacity.md, "What
 *  the rows cannot identify"). Errors only when nothing can be fitted. */
int wc_fit_capacity(const wc_capacity_data *d, const wc_capacity_fit_options *o,
                    wc_capacity_fit_result *out, wc_error *err);
/** Bootstrap: resample rows B times, refit from the point estimate, store
 *  the draws in `point->params.draws` and 2.5 / 97.5 percentiles as each
 *  parameter's ci95. A robust fit's replicates keep each observation's
 *  Huber weight at the point estimate (docs/capacity.md, "Robust fit"). */
int wc_fit_capacity_bootstrap(const wc_capacity_data *d, const wc_capacity_fit_options *o,
                              const wc_bootstrap_options *bo, wc_capacity_fit_result *point,
                              wc_error *err);
void wc_capacity_fit_result_clear(wc_capacity_fit_result *r);
/** Standard error of a parameter's log above which the rows do not
 *  identify it: the fit's curvature along it is zero but for rounding
 *  (a level's one row gave 8.6e14; the weakly identified but real ones
 *  of the same fit, 68 and 82). */
#define WC_CAPACITY_UNIDENTIFIED_SE_LOG 1e6
/** Whether parameter k of `r` (its names[k]) is not identified by the
 *  rows: its standard error not finite or above the bound above. Such a
 *  parameter gets no interval (a bootstrap of those rows, however narrow,
 *  does not say what it could be) and is printed "not identified"
 *  (docs/capacity.md, "What the rows cannot identify"). */
int wc_capacity_fit_unidentified(const wc_capacity_fit_result *r, int k);
/** The same for the parameter named `name` ("eta[H100]"); 0 when it is
 *  not one of r's fitted parameters. */
int wc_capacity_fit_named_unidentified(const wc_capacity_fit_result *r, const char *name);

/* -------------------------------------------------- request energy */

#define WC_REQUEST_ENERGY_POINTS 64

/** One (model, platform, tp, batch, context) group that sweeps the output
 *  length N. */
typedef struct {
	char model[WC_MODEL_NAME_MAX];
	char platform[48];
	int tp;
	double batch, context;
	int n;                                /* points */
	double N[WC_REQUEST_ENERGY_POINTS];   /* output lengths */
	double E[WC_REQUEST_ENERGY_POINTS];   /* measured batch energy E(N), J */
	double residual_pct[WC_REQUEST_ENERGY_POINTS]; /* (fit - measured) / measured */
	double e_fixed_j, e_step_j;           /* E(N) = e_fixed + N e_step */
	double e_step_per_request_mj;         /* e_step / batch, mJ */
} wc_request_energy_group;

/** Least-squares line E = e_fixed + N e_step through n >= 2 points whose
 *  longest output is at least WC_REQUEST_ENERGY_SPREAD times the shortest
 *  (two lengths 0.27 tokens apart gave E_fixed = -61.7 MJ); fills
 *  residual_pct. */
#define WC_REQUEST_ENERGY_SPREAD 1.2
int wc_fit_request_energy(wc_request_energy_group *g, wc_error *err);
/** Group a runs table's rows by (model, platform, tp, running = batch,
 *  input_tokens = context; rows without input_tokens are left out: their
 *  context is unknown) and fit every group that sweeps the output length.
 *  A row's E(N) is one batch's, energy_per_token_j x running x
 *  output_tokens; the `energy_j` extra, the whole window's energy over many
 *  batches, is not read (docs/capacity.md, "Request energy"). `*out` is
 *  malloc'd. */
int wc_fit_request_energy_runs(const wc_runs_table *t, wc_request_energy_group **out, size_t *n_out,
                               wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Private to fit/: the prepared least-squares problem. Runs are flattened
 * into arrays once (per-run constants and the loaded points of each run's
 * load series), so residual and Jacobian evaluations — thousands per
 * bootstrap — touch no strings and allocate nothing.
 */
#ifndef WC_FIT_INTERNAL_H
#define WC_FIT_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "models/warnings.h"
#include "fit/fit.h"
#include "linalg.h"

/* What each entry of the free parameter vector is. Positive quantities
 * (S, P0, m) are fitted as logs: better conditioned, never negative. */
typedef enum {
	PK_LOG_S, PK_THETA, PK_FLOOR, PK_LOG_P0, PK_DELTA, PK_GAMMA1, PK_GAMMA2, PK_KAPPA,
	PK_TERM_SHIFT, PK_TERM_LOG_FACTOR, PK_LOG_PHI, PK_LAW_TERM
} param_kind;

typedef struct {
	param_kind kind;
	int index; /* level (S, theta, floor, P0) or term; -1 for shared */
} param_slot;

#define FIT_MAX_PARAMS (4 * WC_MAX_LEVELS + 5 + WC_MAX_TERMS + WC_LT_COUNT)

typedef struct {
	wc_form form;
	double clock_ref_mhz;

	/* levels: names/sharing/P0 as they will be written */
	int n_levels;
	wc_level levels[WC_MAX_LEVELS];
	int p_s[WC_MAX_LEVELS];     /* log S parameter a level uses; -1 power-law */
	int p_theta[WC_MAX_LEVELS];
	int p_floor[WC_MAX_LEVELS]; /* -1 unless floor_plus_rise */
	int p_p0[WC_MAX_LEVELS];    /* log P0 when fitted, else -1 */

	/* precision terms: kept ones are parameters, others only recorded */
	int n_terms;
	wc_precision_term terms[WC_MAX_TERMS];
	int p_term[WC_MAX_TERMS];   /* -1 for terms not kept */

	int p_delta, p_gamma1, p_gamma2, p_kappa; /* -1 when absent */
	wc_param kappa_fixed;       /* the prior's kappa when not fitted */
	/* prefill-aware form (docs/inference-law.md): log phi, or -1 when the
	 * form has none or no row knows its prefill share (phi_fixed then) */
	int p_phi;
	wc_param phi_fixed;
	double p_max[WC_MAX_LEVELS]; /* power limit per GPU, NaN = unknown */
	/* structure terms (law_terms.c): parameter of term k, -1 = not fitted */
	int p_lt[WC_LT_COUNT];

	int n_params;
	param_slot slots[FIT_MAX_PARAMS];
	double x0[FIT_MAX_PARAMS];  /* starting point */
	/* Parameters held at a physical bound (bounds.c): their Jacobian
	 * column is zero and the residuals use hold_value, so LM leaves them
	 * where they are; the bootstrap holds them too. */
	unsigned char held[FIT_MAX_PARAMS];
	unsigned char unidentified[FIT_MAX_PARAMS]; /* held because the runs
	                             * cannot identify it (else: at a bound) */
	double hold_value[FIT_MAX_PARAMS];
	int n_held;
	double s_max[WC_MAX_LEVELS]; /* largest S per GPU: limit - P0 (bounds.c) */

	/* rows in the fit (indices into the table), with per-row constants */
	size_t n_rows;
	size_t *row;
	int *lvl;
	double *G, *l_n, *l_f, *y;
	double *p0;                 /* measured idle per GPU, NaN when fitted */
	int *term_w, *term_kv;      /* term index or -1 */
	double *mult;               /* multiplicity (bootstrap weight) */
	double *rho;                /* prefill share of time (0 = none) */
	double *lt_x;               /* WC_LT_COUNT covariates per row (law_terms.c) */
	double *duty;               /* min(mean running, 1): below one request
	                             * the prefill mix is one request's */
	/* loaded points of row i: [off[i], off[i+1]) in ln_pt / w_pt; w is the
	 * share of the run's time (idle steps count in the total, not here) */
	size_t *off;
	double *ln_pt, *w_pt;

	int n_excluded;
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} fit_problem;

/** Row k's prefill share of time and duty cycle, for run `r` (prefill.c). */
void wc__fit_row_prefill(fit_problem *pb, const wc_params *prior, const wc_fit_options *opt, const wc_run *r, size_t k);
/** The capacity section the prefill-aware form takes its shares from
 *  (prefill.c): opt->capacity, else refitted on the runs opt->use keeps
 *  when they carry throughput (`note` then says so), else the prior's.
 *  Empty (present = 0) for other forms. Caller clears `out`. */
int wc__fit_prefill_capacity(const wc_runs_table *t, const wc_fit_options *opt, wc_capacity_params *out,
                         char *note, size_t cap, wc_error *err);

/** The covariates of row `k` (table row `r`) into lt_x, input lengths of
 *  workloads from `cap` (may be NULL) (law_terms.c). */
void wc__fit_law_terms_row(fit_problem *pb, const wc_run *r, size_t k, const wc_capacity_params *cap);
/** Add the structure terms `opt->law_terms` asks for to the parameter
 *  vector, starting at the prior's value (else 0); a term the rows cannot
 *  identify -- no contrast, or a covariate that only one model carries --
 *  is left out with a warning (law_terms.c). */
void wc__fit_law_terms_layout(fit_problem *pb, const wc_runs_table *t, const wc_fit_options *opt,
                          const wc_params *prior);

/** Prepare the problem (problem.c). Caller frees with wc__fit_problem_free. */
int wc__fit_problem_build(const wc_runs_table *t, const wc_fit_options *opt, fit_problem **out,
                      wc_error *err);
void wc__fit_problem_free(fit_problem *pb);

/** Runs left out while the rows are built, by reason (problem_out.c):
 *  above WC_FIT_ROW_POWER_FACTOR x the board limit, at or below G x P0, a
 *  precision setting without a kept term; in all, with the first four
 *  ids, and per level, with the first's table row. */
enum { FIT_OUT_BOUND, FIT_OUT_LOW_POWER, FIT_OUT_NO_TERM, FIT_OUT_KINDS };
typedef struct {
	int n[FIT_OUT_KINDS];
	char ids[FIT_OUT_KINDS][160];
	int level_n[WC_MAX_LEVELS][FIT_OUT_KINDS];
	size_t level_first[WC_MAX_LEVELS][FIT_OUT_KINDS];
} fit_runs_out;
/** 1 when run r's mean power per GPU is above WC_FIT_ROW_POWER_FACTOR x
 *  level L's board limit (docs/fitting.md, "Physical bounds"). */
int wc__fit_row_beyond_bounds(const fit_problem *pb, int L, const wc_run *r);
/** Count table row i (run r, level L) as left out for reason `why`. */
void wc__fit_out_count(fit_runs_out *o, int L, int why, size_t i, const wc_run *r);
/** The fit's warnings naming the runs left out, one per reason. */
void wc__fit_out_warn(fit_problem *pb, const fit_runs_out *o);
/** WC_OK when every level kept a row and some row is in; else the
 *  refusal, which for an empty level carries how many of its runs each
 *  check left out and one id: the warnings naming them die with the
 *  problem (docs/fitting.md, "Runs beyond physical bounds"). */
int wc__fit_levels_used(const fit_problem *pb, const wc_runs_table *t, const fit_runs_out *o, wc_error *err);
/** bounds.c: 1 and the warning in `buf` when level L's rows have no more
 *  distinct loads than its free parameters. */
int wc__fit_bounds_level_support(const fit_problem *pb, int L, char *buf, size_t cap);
void wc__fit_problem_warn(fit_problem *pb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Evaluation state for the GSL callbacks (residuals.c): the problem and
 *  the derivatives cached by the last residual call. One per thread. */
typedef struct fit_eval fit_eval;
fit_eval *wc__fit_eval_new(const fit_problem *pb);
void wc__fit_eval_free(fit_eval *ev);
/** Weigh the residuals and Jacobian rows by `sqrt_w` (borrowed, n_rows;
 *  NULL = unweighted): done here, with the row in cache, GSL's own
 *  weighting cost one BLAS call per row of every Jacobian. */
void wc__fit_eval_weigh(fit_eval *ev, const double *sqrt_w);
/** Residuals (model − data, in log space) and the Jacobian, with the
 *  signature GSL expects; `params` is a fit_eval. */
int wc__fit_residuals(const gsl_vector *x, void *params, gsl_vector *f);
int wc__fit_jacobian(const gsl_vector *x, void *params, gsl_matrix *J);

/** Run LM from `x0` with multiplicities `mult` (length n_rows, NULL = 1)
 *  (solve.c). Writes the solution into `x`. */
typedef struct {
	int gsl_status, info, niter;
	double rcond, rms;
	int weakest;          /* parameter with the largest share of the
	                       * smallest singular direction; -1 if none */
	double se[FIT_MAX_PARAMS]; /* standard errors in fit units (diagnosis) */
	/* 1 = a linear combination of the others' columns of the Jacobian:
	 * the runs cannot identify it at all (held parameters excluded) */
	unsigned char dependent[FIT_MAX_PARAMS];
} fit_solution;
int wc__fit_solve(fit_problem *pb, const double *x0, const double *mult, int max_iter,
              int want_diagnosis, double *x, fit_solution *sol, wc_error *err);

/** A reusable solver for many refits of one problem (bootstrap threads):
 *  the GSL workspace and evaluation state are allocated once. `robust`
 *  selects pivoted QR (the point estimate) over Cholesky (refits). */
typedef struct fit_solver fit_solver;
fit_solver *wc__fit_solver_new(fit_problem *pb, int robust);
void wc__fit_solver_free(fit_solver *s);
/** Refit from `x0` with multiplicities `mult`; steps below `xtol`
 *  (relative) end it. */
int wc__fit_solver_run(fit_solver *s, const double *x0, const double *mult, int max_iter, double xtol,
                   int want_diagnosis, double *x, fit_solution *sol, wc_error *err);
/** Fit coordinates are logs for S, P0 and m: is parameter k one? */
int wc__fit_param_is_log(const fit_problem *pb, int k);

/** Physical bounds of saturating levels (bounds.c, docs/fitting.md):
 *  parameters of `x` beyond theirs are set to the bound and held there.
 *  Returns how many were newly held. */
int wc__fit_bounds_apply(fit_problem *pb, double *x);
/** Hold every parameter the solution `sol` found dependent (the runs
 *  cannot identify it) at its starting value, the prior's where it has
 *  one (bounds.c). Returns how many were newly held. */
int wc__fit_bounds_hold_dependent(fit_problem *pb, const unsigned char *dependent, double *x);
/** Hold δ at its start, unidentified, when no level has runs of two model
 *  sizes: each level's θ then absorbs a size term, and the dependence
 *  test would as soon hold θ and "fit" δ as an offset (bounds.c). */
void wc__fit_bounds_hold_size_slope(fit_problem *pb);
/** Name, in a warning of `out`, the runs whose residual lies far off the
 *  others' (outliers.c, docs/fitting.md); the fit is not changed. */
/** The used rows' content hashes and runs' id hashes into out->params
 *  (fit_rows, fit_runs), out->n_runs and n_pieces, and params.runs the
 *  runs when some are cut into pieces (fit_rows.c). */
int wc__fit_record_rows(const fit_problem *pb, const wc_runs_table *t, const double *mult, wc_fit_result *out,
                        wc_error *err);
void wc__fit_warn_outliers(const wc_runs_table *t, wc_fit_result *out);
/** Hold what the point estimate `p` held (its sources say "bound", or
 *  "assumed" for a parameter of the fit's vector). */
void wc__fit_bounds_hold_from(fit_problem *pb, const wc_params *p);
/** Fill s_max from the platform catalog (bounds.c). */
void wc__fit_bounds_init(fit_problem *pb);
/** Hold every free S of `x` past its bound (P0 + S within the board's
 *  ceiling) there; wc__fit_bounds_apply's first step, and each bootstrap
 *  replicate's. Returns how many were newly held. */
int wc__fit_bounds_hold_s(fit_problem *pb, double *x);
/** A bootstrap draw `x` (fit units) beyond a bound comes back to it: θ to
 *  its range, S to the ceiling (the HC1 widening can push a held
 *  replicate's S past it). */
void wc__fit_bounds_clip(const fit_problem *pb, double *x);
/** 1 and the warning in `buf` when a fitted gamma1 at `x` is <= 0: the
 *  monotone rule holds the law flat in load (bounds.c). */
int wc__fit_bounds_load_slope(const fit_problem *pb, const double *x, char *buf, size_t cap);
/** The warning of a held parameter k (named `name`). */
void wc__fit_bounds_describe(const fit_problem *pb, int k, const char *name, char *buf, size_t cap);

/** Turn a parameter vector into a wc_params (solve.c). */
void wc__fit_problem_to_params(const fit_problem *pb, const double *x, wc_params *out);
/** Name of parameter k, as wc_params_vector_names spells it. */
void wc__fit_param_name(const fit_problem *pb, int k, char *buf, size_t cap);

#endif

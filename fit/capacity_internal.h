/*
 * Private to fit/: the prepared capacity problem (capacity_fit.c) that the
 * point fit and the bootstrap share. Rows are flattened once into
 * observations; residual evaluations touch no strings and allocate
 * nothing.
 */
#ifndef WC_FIT_CAPACITY_INTERNAL_H
#define WC_FIT_CAPACITY_INTERNAL_H

#include <gsl/gsl_vector.h>

#include "models/warnings.h"
#include "fit/capacity_fit.h"

#define CAP_MAX_PARAMS (WC_CAP_KINDS * WC_CAPACITY_MAX_LEVELS + WC_CAPACITY_MAX_WORKLOADS)

enum { CAP_OBS_LATENCY = 0, CAP_OBS_ITL, CAP_OBS_TTFT };

/* What a free parameter is: a kind of a level (level -1 = shared), or the
 * input length of a workload (kind = WC_CAP_KINDS). Fit coordinate u maps
 * into the domain [lo, hi] as log v = log lo + (log hi - log lo) sig(u). */
/* Fewest observations per fitted parameter for Huber's weights: at least
 * as many residual degrees of freedom as parameters (choice; the published
 * periods alone sit at 1.2 per parameter, with the PowerTrace-Sim runs at
 * 2.1, the runs tables at over 50; docs/capacity.md, "Robust fit"). */
#define ROBUST_MIN_OBS_PER_PARAM 2

typedef struct {
	int kind, level, workload;
	double log_lo, log_hi;
} cap_slot;

typedef struct {
	int n_levels;
	wc_capacity_level levels[WC_CAPACITY_MAX_LEVELS];
	wc_capacity_hw hw[WC_CAPACITY_MAX_LEVELS];
	int n_workloads;
	char workloads[WC_CAPACITY_MAX_WORKLOADS][WC_NAME_MAX];
	int per_level[WC_CAP_KINDS];
	/* parameter index of (kind, level), or -1 = fixed at `fixed` */
	int p_kind[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS];
	double fixed[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS];
	/* 1: the rows cannot identify this collective (tau or tau_ep) at the
	 * level, and the other one they can (or neither: tau_ep then follows
	 * tau at 0); its value is the other's (wc__cap_to_params). No row of
	 * the fit uses it, so the residuals need not know. */
	unsigned char tied[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS];
	int p_input[WC_CAPACITY_MAX_WORKLOADS];
	int n_params;
	cap_slot slots[CAP_MAX_PARAMS];
	double u0[CAP_MAX_PARAMS];

	/* rows in the fit and their observations */
	size_t n_rows;
	size_t *row;        /* index into the data */
	int *lvl, *wl;      /* level; workload (-1 = input known) */
	size_t n_obs;
	size_t *obs_row;    /* position in row[] */
	int *obs_kind;
	double *obs_log;    /* log of the measurement */
	const wc_capacity_data *data;
	int robust;         /* Huber-reweighted passes (wc__cap_solve); 0 when
	                     * asked but the observations are too few */
	double *row_w;      /* design weight per row in row[] (each model
	                     * counts once; mean 1); NULL = every row 1 */
	/* Twins (wc_fit_period_twins: one period given k times) are one
	 * observation (docs/capacity.md, "Twins count once"): set[i] numbers
	 * row[i]'s set of twins (0..n_sets); rows of one model in a set are
	 * one row of row[], the rest `merged` (data index, the position in
	 * row[] standing for it); row_share[i] is the part of a copy row[i]
	 * is, a multiplicity (its rows / k), NULL = every share 1. The
	 * bootstrap resamples sets, not rows. */
	size_t *set, n_sets;
	size_t (*merged)[2], n_merged;
	double *row_share;

	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} cap_problem;

/** Number the sets of twins among rows row[0..n) of `d` (periods rows
 *  equal in every measured field, wc_fit_period_twins; any other row a
 *  set of its own) into set[0..n), in order of first row; how many sets
 *  (fit/twins.c). */
size_t wc__cap_twin_sets(const wc_capacity_data *d, const size_t *row, size_t n, size_t *set);
/** Observations counting each set of twins once: the sum of the
 *  observations' shares, rounded (n_obs without twins). */
size_t wc__cap_obs_count(const cap_problem *pb);
int wc__cap_problem_build(const wc_capacity_data *d, const wc_capacity_fit_options *o, cap_problem **out,
                      wc_error *err);
void wc__cap_problem_free(cap_problem *pb);
/** span * sigma(u), sigma(u) = 1 / (1 + e^-u): the share of a
 *  parameter's log domain at fit coordinate u (docs/capacity.md,
 *  "Observations and fitting"), without overflow for any u. The one
 *  place the capacity fit's bounded transform is written. */
double wc__cap_share(double span, double u);
/** Natural value of parameter k at fit coordinate u: exp(log lo +
 *  wc__cap_share(log hi - log lo, u)), inside its bounds for every u. */
double wc__cap_value(const cap_problem *pb, int k, double u);
/** Residuals log(model / measured) at u (GSL signature; params = pb). */
int wc__cap_residuals(const gsl_vector *u, void *params, gsl_vector *f);
/** Huber's weight of each observation's residual at u (the weights a
 * robust fit settles on when u is its estimate); `w` holds n_obs. */
int wc__cap_huber_weights(const cap_problem *pb, const double *u, double *w);
/** LM from u0 with per-row multiplicities `mult` (NULL = 1). `obs_w`
 * (NULL = none) fixes a weight per observation: one weighted pass, no
 * reweighting, even in a robust problem (its bootstrap replicates). */
int wc__cap_solve(const cap_problem *pb, const double *u0, const double *mult, const double *obs_w, int max_iter, double *u,
              int *status, int *niter, double *rms, double *se_u, wc_error *err);
/** A row's weight in a fit: its multiplicity (`mult`, NULL = 1) times
 * its share of its twins (row_share, NULL = 1) times its design weight
 * (row_w, NULL = 1). */
double wc__cap_row_weight(const cap_problem *pb, const double *mult, size_t i);
/** Kish's effective count of the observations, (sum c d)^2 / sum c d^2
 * with c = multiplicity x share the copies a row counts as and d its
 * design weight: the count itself when every design weight is 1 and no
 * row has a twin. */
double wc__cap_effective_count(const cap_problem *pb, const double *mult);
/** Standard error of log(value) of parameter k at coordinate u, from its
 *  coordinate's standard error se_u (the chain rule through the bounded
 *  transform): what fit output, the not-identified test and the hold rule
 *  read. */
double wc__cap_se_log(const cap_problem *pb, int k, double u, double se_u);
/** 1 when a standard error of a log says the rows do not identify the
 *  parameter: not finite or above WC_CAPACITY_UNIDENTIFIED_SE_LOG. The
 *  one place of the test (wc_capacity_fit_unidentified, the hold rule). */
int wc__cap_se_unidentified(double se_log);
/** The section a parameter vector describes (without draws). */
void wc__cap_to_params(const cap_problem *pb, const double *u, wc_capacity_params *out);
void wc__cap_param_name(const cap_problem *pb, int k, char *buf, size_t cap);

/* Holding a level's parameter its rows cannot identify (capacity_hold.c;
 * docs/capacity.md, "What the rows cannot identify"). */
/** 1 when coordinate u is within 0.001 of either end of its sigmoid: the
 *  value sits at an edge of its domain, where the rows did not hold it. */
int wc__cap_at_edge(double u);
/** Fix level L's own parameter of kind k at `value` (source "assumed")
 *  and take its slot out of the problem, renumbering the rest. */
void wc__cap_problem_hold(cap_problem *pb, int k, int L, double value);
/** Every level's own parameter at an edge at u, where other levels' rows
 *  identify the same kind (inside its domain, and not unidentified by
 *  their standard errors se_u, wc__cap_se_unidentified), held at the
 *  median of those, with a warning each; how many (0: the problem is
 *  unchanged). */
int wc__cap_hold_edges(cap_problem *pb, const double *u, const double *se_u);
/** The holds of a fitted section on a freshly built problem of the same
 *  rows (the bootstrap's): every level's own parameter the section has
 *  as "assumed" where the problem has a slot for it; how many. */
int wc__cap_problem_hold_as(cap_problem *pb, const wc_capacity_params *point);

#endif

/*
 * Private to fit/: the pieces of a calibration (calibrate.c sets up the
 * groups and solves the point estimates, calibrate_draws.c runs the
 * replicates and writes the result, calibrate_solve.c solves one group for
 * the point estimate and for each replicate). A group is what one small
 * least-squares problem estimates: one model term (one unknown, the
 * shift) or one new level (log S and theta; theta alone for the
 * power-law forms).
 */
#ifndef WC_FIT_CALIBRATE_INTERNAL_H
#define WC_FIT_CALIBRATE_INTERNAL_H

#include "fit/calibrate.h"

#define CAL_MAX_UNKNOWNS 2

/* One calibration run, bound to the law once. */
typedef struct {
	const wc_run *run;
	wc_law_binding bind;       /* on the base (model scope) or the work set */
	wc_load_histogram h;       /* the run's series, or its single load */
	double one_n, one_w;       /* storage of a single-load histogram */
	/* model scope: P0 per GPU of a run without idle_power_w, its term's
	 * (wc__cal_term_idle); 0 = the level's */
	double idle_w;
	/* index in its group of the first row of the same run (itself when
	 * none before it): segments of one run (`<run>#seg<k>`) are one unit
	 * of run scatter (wc__cal_units) */
	int unit;
	/* its weight in the least squares, 1/k for one of a run's k rows, so
	 * that a run weighs one whatever it is cut into (wc__cal_units;
	 * docs/calibration.md, "Segments") */
	double weight;
} cal_run;

typedef struct {
	wc_calibrate_scope scope;
	char model[WC_MODEL_NAME_MAX]; /* model scope: the model key */
	char level[WC_NAME_MAX];
	int n_runs;                /* rows, segments of a run each one */
	int n_units;               /* runs: rows of one run count once (wc__cal_units) */
	cal_run **runs;            /* borrowed from the run array */
	int p;                     /* unknowns: 1 (shift or theta) or 2 (log S, theta) */
	double prior_mean[CAL_MAX_UNKNOWNS], prior_sd[CAL_MAX_UNKNOWNS];
	double sigma;              /* run scatter used for this group */
	double x[CAL_MAX_UNKNOWNS];  /* point estimate (log S, not S) */
	/* platform scope: the largest S, limit x WC_LEVEL_LIMIT_FACTOR - P0
	 * per GPU, as `fit` bounds it (docs/fitting.md); NaN = none known */
	double s_max;
	int held;                  /* the point's S is held at s_max */
	/* set only on a copy solving theta alone (p = 1) with log S fixed
	 * here (wc__cal_solve_at_bound); 0 on every group */
	int s_fixed;
	double log_s_fixed;
	/* model scope: the mean measured idle of its runs (W per GPU), else
	 * the idle given, which the term records as its P0 (source p0_src);
	 * 0 = neither, the level's P0 */
	double p0_w;
	wc_source p0_src;
} cal_group;

/** Solve `g` with the base parameters of `draw` (NULL = the point) and
 *  measurements perturbed by `noise[i]` (NULL = none), starting from
 *  `x0`; writes the solution into `x`. WC_ENOCONV when the solver fails
 *  or a run's dynamic power is not positive under this draw. */
int wc__cal_solve(const cal_group *g, const double *draw, const double *noise, const double *x0,
                  double *x, wc_error *err);
/** Platform scope: log S in x[0] above the group's s_max is set to it
 *  (the bound `fit` holds S at, docs/fitting.md); 1 when it was. */
int wc__cal_hold_ceiling(const cal_group *g, double *x);
/** The largest S of level `l` (per GPU): the board's ceiling less P0, as
 *  `fit` bounds S (docs/fitting.md); NaN when the board has no limit. */
double wc__cal_s_max(const wc_level *l);
/** The words of the warning that S was held at that bound: written by the
 *  platform calibration, dropped by a relative one, which composes S anew. */
#define WC__CAL_HELD_S "ended above its physical bound"
/** Platform scope, S held (x[0] = log s_max): theta alone solved again
 *  with S fixed there, from x[1], under `draw` and `noise` as
 *  wc__cal_solve takes them; x[1] is replaced. A one-unknown problem, not
 *  a stiff prior on S, so the solver cannot stall at its start. */
int wc__cal_solve_at_bound(const cal_group *g, const double *draw, const double *noise, double *x,
                           wc_error *err);
/** Residual RMS of `g` at `x` (point parameters), in log dynamic power:
 *  over its runs, each weighing one (its rows by cal_run.weight). */
double wc__cal_rms(const cal_group *g, const double *x);
/** Run i's modelled dynamic power of the group (W, all its GPUs) at `x`
 *  with the point parameters, and the measured one (mean power minus the
 *  group's idle): WC_ENOCONV when either is not positive and finite. */
int wc__cal_run_power(const cal_group *g, int i, const double *x, double *model, double *measured);
/** Runs of the model-scope groups measured above their level's ceiling
 *  (the law's saturation, sigma -> 1; calibrate_ceiling.c): two warnings
 *  per such group appended to `out` (the runs with their numbers, and what
 *  the shift could and could not absorb, `w` naming the platform scope).
 *  Returns the runs named. */
int wc__cal_ceiling_warnings(const cal_group *groups, int n_groups, wc_form form,
                             const wc_calibrate_words *w, wc_calibrate_result *out);
/** The words of o->words, else the CLI's flags. */
const wc_calibrate_words *wc__cal_words(const wc_calibrate_options *o);

/* A calibration being set up and solved (calibrate.c), then written
 * (calibrate_draws.c). */
typedef struct {
	const wc_params *base;
	const wc_runs_table *t;    /* the runs' table: where a refused value is */
	wc_params work;            /* platform scope: base + the new level at S = 1, theta = 0 */
	cal_run *runs;
	int n_runs;
	cal_group *groups;
	int n_groups;
	double sigma0;
	wc_calibrate_result *out;
} cal_setup;

/** The runs the result misses by more than 15 % of their mean power, one
 *  warning per group naming them (calibrate_ceiling.c), once the point
 *  estimates are in s->out->params: scored by o->score when given (as the
 *  set answers them), else by the law's own power, uncapped. */
int wc__cal_misses(const cal_setup *s, const wc_calibrate_options *o, wc_error *err);
/** Platform scope: P0 of the new level `name`: the runs' measured idle,
 *  else the option, else the catalog's typical idle, else the estimate
 *  from the power limit (the last two with a warning); refused without
 *  any (calibrate_idle.c). */
int wc__cal_new_level_p0(const cal_setup *s, const wc_calibrate_options *o, const char *name,
                         wc_param *p0, wc_calibrate_result *out, wc_error *err);
/** Model scope: each group's p0_w (its runs' measured idle, else
 *  o->idle_power_w) and its runs' idle_w; refuses an o->idle_power_w not
 *  below the board limit of a group that takes it (calibrate_idle.c). */
int wc__cal_term_idle(const wc_params *base, const wc_calibrate_options *o, cal_group *groups, int n_groups,
                      wc_calibrate_result *out, wc_error *err);

/** The point estimates of the groups into `p`: model terms added (or
 *  replacing the base's term for the same model and level), or the new
 *  level's S and theta. */
int wc__cal_store_points(const cal_setup *s, wc_params *p, wc_error *err);
/** Each group's units (cal_run.unit, n_units): its rows from one run --
 *  the whole run's and its `ingest --segment` pieces, by
 *  wc_run_same_run -- are one run; s->out->n_runs counts runs,
 *  n_pieces rows (docs/calibration.md, "Segments"). */
void wc__cal_units(cal_setup *s);
/** The span of `g`'s runs (active_params_b, running as `fit` takes it,
 *  wc_run_running_span, and tp) with its runs counted (n_units): a new
 *  level's range and a model term's (docs/calibration.md). */
void wc__cal_span(const cal_group *g, wc_range *r);
/** The runs among `n` calibration runs, a run's rows once. */
int wc__cal_count_runs(const cal_run *runs, int n);
/** The replicates (none when o->replicates < 0), then the draws,
 *  intervals and estimates of s->out. */
int wc__cal_draws(cal_setup *s, const wc_calibrate_options *o, wc_error *err);

/** Platform scope with o->relative_to (calibrate_relative.c): two
 *  calibrations on `t` (the new platform, and the reference's runs as a
 *  level of their own) composed with the base's reference level. */
/* One calibration, its record naming its own rows only (wc_calibrate
 * adds the base's). */
int wc__cal_once(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
                 wc_calibrate_result *out, wc_error *err);
int wc__cal_relative(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
                     wc_calibrate_result *out, wc_error *err);

#endif

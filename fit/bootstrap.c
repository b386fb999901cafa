/*
 * Bootstrap intervals (docs/fitting.md): resample runs with replacement, refit from
 * the point estimate, take the 2.5 / 97.5 percentiles of each parameter.
 * The resampling, threads and acceptance rule are the one driver's
 * (fit/boot_internal.h). P0 is measured, not resampled (it is not a parameter unless a
 * level had no idle measurement).
 */
#include "fit_internal.h"
#include "boot_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"
#include "models/interval.h"

/* Interval wider than this in fit units (z-units or e-folds): the data do
 * not pin the parameter down; say so. */
#define WIDE_INTERVAL 4.0

typedef struct {
	fit_problem *pb;
	int max_iter;
} boot_ctx;

/* A thread's own copy of the problem: a replicate holds its S at the
 * ceiling in it, as the point is held, and lets go after. */
typedef struct {
	fit_problem pb;
	fit_solver *s;
} boot_state;

static void *
boot_state_new(const void *ctx)
{
	const boot_ctx *c = ctx;
	boot_state *st = malloc(sizeof *st);
	if (!st)
		return NULL;
	st->pb = *c->pb; /* the rows' arrays are shared, read only */
	if (!(st->s = wc__fit_solver_new(&st->pb, 0))) {
		free(st);
		return NULL;
	}
	return st;
}

static void
boot_state_free(void *state)
{
	boot_state *st = state;
	if (st)
		wc__fit_solver_free(st->s);
	free(st);
}

/* One replicate: refit from the point estimate on the resample. */
static wc__boot_outcome
boot_fit(const void *ctx, void *state, const double *mult, double *x)
{
	const boot_ctx *c = ctx;
	boot_state *st = state;
	const size_t p = (size_t)c->pb->n_params;
	fit_solution sol;
	wc_error err;
	/* Relative steps of 1e-8 are far below the bootstrap's own spread. */
	if (wc__fit_solver_run(st->s, c->pb->x0, mult, c->max_iter, 1e-8, 0, x, &sol, &err) != WC_OK)
		return WC__BOOT_FAILED;
	/* A replicate's S past the board's ceiling is held there and the rest
	 * refitted, as the point estimate's is (docs/fitting.md, "Physical
	 * bounds"): 25 of 200 draws of S[A100] were above it, the largest
	 * 578 W on a 440 W ceiling. */
	if (wc__fit_bounds_hold_s(&st->pb, x) > 0) {
		double x1[FIT_MAX_PARAMS];
		memcpy(x1, x, p * sizeof *x1);
		int rc = wc__fit_solver_run(st->s, x1, mult, c->max_iter, 1e-8, 0, x, &sol, &err);
		memcpy(st->pb.held, c->pb->held, sizeof st->pb.held);
		memcpy(st->pb.hold_value, c->pb->hold_value, sizeof st->pb.hold_value);
		st->pb.n_held = c->pb->n_held;
		if (rc != WC_OK)
			return WC__BOOT_FAILED;
	}
	for (size_t k = 0; k < p; k++)
		if (!isfinite(x[k]))
			return WC__BOOT_FAILED;
	return wc__boot_outcome_of_gsl(sol.gsl_status);
}

/* The converged replicates in natural units, packed at the front of
 * `natural` (B x p); returns how many. */
static int
natural_draws(const fit_problem *pb, size_t runs, int B, const double *draws, const unsigned char *ok,
              double *natural)
{
	const size_t p = (size_t)pb->n_params;
	/* Degrees-of-freedom correction around the point estimate (fit units),
	 * as HC1 does for the sandwich: n runs (a run's pieces one), p
	 * parameters. */
	double n_runs = (double)runs;
	double inflate = n_runs > (double)p ? sqrt(n_runs / (n_runs - (double)p)) : 1.0;
	int n_ok = 0;
	for (int r = 0; r < B; r++) {
		if (!ok[r])
			continue;
		/* A replicate that ran off along a flat direction can be finite in
		 * fit units and still overflow once exponentiated: it failed. */
		int finite = 1;
		double x[FIT_MAX_PARAMS];
		for (size_t k = 0; k < p; k++) {
			x[k] = pb->x0[k] + inflate * (draws[(size_t)r * p + k] - pb->x0[k]);
			if (pb->held[k])
				x[k] = pb->hold_value[k];
		}
		wc__fit_bounds_clip(pb, x);
		for (size_t k = 0; k < p; k++) {
			double v = wc__fit_param_is_log(pb, (int)k) ? exp(x[k]) : x[k];
			natural[(size_t)n_ok * p + k] = v;
			finite &= isfinite(v);
		}
		n_ok += finite;
	}
	return n_ok;
}

/* An interval always contains its estimate and is never zero-width
 * (docs/fitting.md): resamples that all agree say nothing about the
 * spread (no interval, with a warning), and percentiles that miss the
 * estimate (draws run off along a flat direction) are widened to it,
 * with a warning naming the parameter. Returns 0 when there is none. */
static int
interval_honest(wc_fit_result *point, size_t k, double *lo, double *hi)
{
	char msg[WC_ERROR_MSG_MAX];
	double est = point->x[k];
	if (!(*hi > *lo)) {
		wc_params_set_interval_named(&point->params, point->names[k], NAN, NAN);
		wc_error_format(msg, sizeof msg, "%s: every resample gave %.6g; the runs do not vary enough to give it "
		         "an interval (none written)", point->names[k], est);
		WC_WARN(point, "%s", msg);
		point->weak[k] = 1;
		return 0;
	}
	if (est < *lo || est > *hi) {
		wc_error_format(msg, sizeof msg, "%s: the resamples' 95 %% interval [%.4g, %.4g] missed the estimate "
		         "%.4g; widened to contain it (weakly identified)", point->names[k], *lo, *hi, est);
		WC_WARN(point, "%s", msg);
		point->weak[k] = 1;
		*lo = fmin(*lo, est);
		*hi = fmax(*hi, est);
	}
	return 1;
}

/* Percentile intervals of each parameter from the n_ok draws, flagging
 * the very wide ones; `col` is scratch for n_ok values. */
static void
set_intervals(const fit_problem *pb, const double *natural, int n_ok, double *col,
              wc_fit_result *point)
{
	const size_t p = (size_t)pb->n_params;
	for (size_t k = 0; k < p; k++) {
		int m = 0;
		for (int r = 0; r < n_ok; r++)
			col[m++] = natural[(size_t)r * p + k];
		double lo, hi;
		/* The estimate is widened in below, with a warning. */
		wc_interval_from_draws(col, (size_t)m, NAN, &lo, &hi);
		if (pb->held[k]) {
			/* Held at a bound: no interval (the warning says why). */
			wc_params_set_interval_named(&point->params, point->names[k], NAN, NAN);
			continue;
		}
		if (!interval_honest(point, k, &lo, &hi))
			continue;
		wc_params_set_interval_named(&point->params, point->names[k], lo, hi);
		double width = wc__fit_param_is_log(pb, (int)k) ? log(hi / lo) : hi - lo;
		if (!(width <= WIDE_INTERVAL)) {
			char msg[WC_ERROR_MSG_MAX];
			wc_error_format(msg, sizeof msg, "%s: 95 %% interval [%.4g, %.4g] is very wide; "
			         "the runs do not identify it well", point->names[k], lo, hi);
			WC_WARN(point, "%s", msg);
			point->weak[k] = 1;
		}
	}
}

int
wc_fit_bootstrap(const wc_runs_table *t, const wc_fit_options *opt, const wc_bootstrap_options *bo,
                 wc_fit_result *point, wc_error *err)
{
	fit_problem *pb = NULL;
	wc_fit_options o = *opt;
	int rc, B = bo->replicates, T = bo->threads > 0 ? bo->threads : 1;
	if (B < 2)
		return wc_error_set(err, WC_EINVAL, "bootstrap: need at least 2 replicates");
	if (opt->weight)
		return wc_error_set(err, WC_EINVAL, "bootstrap: options must not carry resample weights");
	o.start = point->x;
	o.start_len = (size_t)point->n_free;
	/* The prefill shares of the point estimate (its capacity section). */
	if (wc_form_has_prefill(opt->form) && point->params.capacity.present)
		o.capacity = &point->params.capacity;
	if ((rc = wc__fit_problem_build(t, &o, &pb, err)) != WC_OK)
		return rc;
	wc__fit_bounds_hold_from(pb, &point->params);
	const size_t p = (size_t)pb->n_params;
	if ((int)p != point->n_free) {
		wc__fit_problem_free(pb);
		return wc_error_set(err, WC_EINVAL, "bootstrap: point estimate does not match the problem");
	}
	double *draws = wc_alloc_array((size_t)B * p, sizeof *draws);
	double *natural = wc_alloc_array((size_t)B * p, sizeof *natural);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	unsigned char *ok = wc_alloc_zeroed((size_t)B, 1);
	size_t *unit = wc_alloc_array(pb->n_rows ? pb->n_rows : 1, sizeof *unit);
	if (!draws || !natural || !col || !ok || !unit) {
		rc = wc_error_set(err, WC_ENOMEM, "bootstrap: out of memory");
		goto done;
	}
	boot_ctx ctx = { pb, o.max_iter > 0 ? o.max_iter : 200 };
	wc__boot_spec spec = {
		.what = "bootstrap", .progress = "bootstrap draws", .replicates = B, .threads = T,
		.seed = bo->seed, .n_rows = pb->n_rows, .slot = p, .ctx = &ctx,
		.state_new = boot_state_new, .state_free = boot_state_free, .fit = boot_fit,
	};
	/* a run's pieces are drawn together; a table without pieces draws its
	 * rows as before, bit for bit */
	spec.n_units = wc_runs_units(t, pb->row, pb->n_rows, unit);
	spec.unit = spec.n_units < pb->n_rows ? unit : NULL;
	if ((rc = wc__boot_run(&spec, draws, ok, err)) != WC_OK)
		goto done;
	int n_ok = natural_draws(pb, spec.n_units, B, draws, ok, natural);
	char msg[WC_ERROR_MSG_MAX];
	if ((rc = wc__boot_check_kept("bootstrap", "did not converge", n_ok, B, msg, sizeof msg, err)) != WC_OK)
		goto done;
	if (msg[0])
		WC_WARN(point, "%s", msg);
	set_intervals(pb, natural, n_ok, col, point);
	rc = wc_params_set_draws(&point->params, n_ok, (int)p,
	                         (const char (*)[WC_LABEL_MAX])point->names, natural, err);
	point->params.seed = bo->seed;
	point->params.bootstrap = B;
done:
	free(unit);
	free(draws);
	free(natural);
	free(col);
	free(ok);
	wc__fit_problem_free(pb);
	return rc;
}

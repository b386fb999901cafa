/*
 * Fitting the power response (docs/envelopes.md, "Fitting the response"):
 * the hold over idle gaps and the decay after it, the prefill ratio and a
 * time constant per
 * platform level that make the response kernel (models/response.h),
 * driven by each run's measured n(t) and prefill activity, reproduce its
 * measured power samples, with one scale of the law's dynamic power for
 * all runs (the map's dynamic_scale) profiled out. Least squares
 * in log parameters, each run weighted equally, minimised with GSL's
 * Nelder-Mead simplex; the shared time constant (for platforms without
 * runs) by GSL's Brent minimiser over all runs; intervals from resampling
 * runs with replacement.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot_internal.h"
#include "fit/fit.h"
#include "models/grow.h"
#include "models/limits.h"

/* The fit's vector: [0] log hold, [1] log ratio, [2] log decay, [X_TAU +
 * l] log tau of level l. Values below LOG_MIN behave as zero on a 50 ms
 * grid. */
#define X_TAU 3
#define MAX_X (X_TAU + WC_RESPONSE_MAX_LEVELS)
#define LOG_MIN WC_RESPONSE_LOG_MIN
#define START_HOLD (-2.302585)   /* 0.1 s */
#define START_RATIO (-0.693147)  /* 0.5 */
#define START_TAU (-2.302585)    /* 0.1 s */
#define START_DECAY (-2.302585)  /* 0.1 s */
#define START_STEP 0.5           /* the simplex's first step in each log parameter */
#define SIZE_TOL 1e-3            /* the simplex stops at this size, in log units */

typedef struct {
	const wc_response_run *runs;
	size_t n_runs;
	int n_levels;                 /* distinct platforms ("" counts as one) */
	const char *level_name[WC_RESPONSE_MAX_LEVELS];
	int level_of[4096];           /* per run, when n_runs <= 4096 */
	const double *mult;           /* per run: resample multiplicity (NULL = 1) */
	int shared;                   /* 1: every run takes tau from `shared_u` */
	double shared_u, hold_u, ratio_u, decay_u; /* for the shared-tau fit */
	double max_hold, max_decay;   /* upper bounds of hold_s and decay_s, s */
	double *grid, *filtered, *law; /* scratch of the longest grid */
} problem;

static double
clamp_log(double x, double hi)
{
	return x < LOG_MIN ? LOG_MIN : x > hi ? hi : x;
}

static wc_response_value
value_of(double u, double max)
{
	return (wc_response_value){ exp(clamp_log(u, log(max))), NAN, NAN };
}

/* One part of the modelled per-GPU power per grid bin (bin means) of a
 * run: part 0 is P0 and the prefill increments (starting from the first
 * sample's reading), part 1 the law's dynamic power with its hold
 * (starting from 0). The response is linear, so the model is part 0 plus
 * the run's level factor times part 1. */
static void
simulate_part(const wc_response_run *run, const wc_response_params *r, int part, double *grid,
              double *out)
{
	wc_response_grid g = { run->dt, run->n_grid, grid, NULL, NULL, NULL };
	wc_response_state st;
	double ref = wc_law_point_dynamic(&run->law, WC_RESPONSE_PREFILL_REF_RUNNING);
	memset(grid, 0, run->n_grid * sizeof *grid);
	wc_response_state_init(&st, part == 0 ? run->law.p0 : 0.0,
	                       part == 0 ? r->prefill_ratio.value * ref : 0.0, r->hold_s.value);
	wc_response_state_decay(&st, r->decay_s.value);
	for (size_t k = 0; k < run->n_grid; k++) {
		double pf = run->prefill ? run->prefill[k] / run->dt : 0.0, n = run->running[k];
		/* A prefill while the gauge reads nothing: something runs. */
		if (pf > 0 && n < 1)
			n = 1;
		if (n > 0)
			wc_response_add(&g, &st, (double)k * run->dt, (double)(k + 1) * run->dt, n,
			                part == 1 ? wc_law_point_dynamic(&run->law, n) : 0.0, pf > 1 ? 1 : pf);
	}
	wc_response_finish(&g, &st, (double)run->n_grid * run->dt);
	for (size_t k = 0; k < run->n_grid; k++)
		grid[k] /= run->dt;
	double y0 = part == 1 ? 0.0 : run->n_samples ? run->power_w[0] : run->law.p0;
	wc_response_filter(grid, run->n_grid, run->dt, r->tau_s.value, y0, out);
}

static size_t
sample_bin(const wc_response_run *run, double t)
{
	double k = floor(t / run->dt);
	if (!(k >= 0))
		return 0;
	return k < (double)run->n_grid ? (size_t)k : run->n_grid - 1;
}

/* The run's level factor: the scale of the law's dynamic power that fits
 * its samples best given the rest (least squares, kept in [0, 4]). */
static double
level_factor(const wc_response_run *run, const double *base, const double *law)
{
	double num = 0.0, den = 0.0;
	for (size_t i = 0; i < run->n_samples; i++) {
		size_t k = sample_bin(run, run->t_s[i]);
		num += (run->power_w[i] - base[k]) * law[k];
		den += law[k] * law[k];
	}
	double c = den > 0 ? num / den : 1.0;
	return c < 0 ? 0.0 : c > 4 ? 4.0 : c;
}

/* The model at each sample of `run`: at `scale` when it is finite, else
 * at the run's own level factor (returned in `level`). */
static int
predict_at(const wc_response_run *run, const wc_response_params *r, double scale, double *out, double *level,
           wc_error *err)
{
	size_t n = run->n_grid ? run->n_grid : 1;
	double *grid = wc_alloc_array(n, sizeof *grid), *base = wc_alloc_array(n, sizeof *base);
	double *law = wc_alloc_array(n, sizeof *law);
	int rc = grid && base && law ? WC_OK : wc_error_set(err, WC_ENOMEM, "response: out of memory");
	wc_response_params rl = *r;
	rl.tau_s.value = wc_response_tau_for(r, run->platform);
	if (rc == WC_OK) {
		simulate_part(run, &rl, 0, grid, base);
		simulate_part(run, &rl, 1, grid, law);
		double c = isfinite(scale) ? scale : level_factor(run, base, law);
		for (size_t i = 0; i < run->n_samples; i++) {
			size_t k = sample_bin(run, run->t_s[i]);
			out[i] = base[k] + c * law[k];
		}
		if (level)
			*level = c;
	}
	free(grid);
	free(base);
	free(law);
	return rc;
}

int
wc_response_predict_samples(const wc_response_run *run, const wc_response_params *r, double *out,
                            double *level, wc_error *err)
{
	return predict_at(run, r, NAN, out, level, err);
}

int
wc_response_predict_scaled(const wc_response_run *run, const wc_response_params *r, double *out, wc_error *err)
{
	return predict_at(run, r, wc_response_dynamic_scale(r), out, NULL, err);
}

/* One run's sums at (hold, ratio, decay) = x[0..2] and tau, with y its
 * samples, b the P0-and-prefill part and l the law's part at each:
 * s[0] = sum (y - b)^2, s[1] = sum (y - b) l, s[2] = sum l^2; its sum of
 * squares at a level c is s[0] - 2 c s[1] + c^2 s[2]. */
static void
run_sums(problem *pb, const wc_response_run *run, const double *x, double tau_u, double s[3])
{
	wc_response_params r;
	memset(&r, 0, sizeof r);
	r.hold_s = value_of(x[0], pb->max_hold);
	r.decay_s = value_of(x[2], pb->max_decay);
	r.prefill_ratio = value_of(x[1], WC_RESPONSE_MAX_PREFILL_RATIO);
	r.tau_s = value_of(tau_u, WC_RESPONSE_MAX_TAU_S);
	simulate_part(run, &r, 0, pb->grid, pb->filtered);
	simulate_part(run, &r, 1, pb->grid, pb->law);
	s[0] = s[1] = s[2] = 0.0;
	for (size_t k = 0; k < run->n_samples; k++) {
		size_t b = sample_bin(run, run->t_s[k]);
		double y = run->power_w[k] - pb->filtered[b], l = pb->law[b];
		s[0] += y * y;
		s[1] += y * l;
		s[2] += l * l;
	}
}

static double
ss_at(const double s[3], double c)
{
	return fmax(0.0, s[0] - 2.0 * c * s[1] + c * c * s[2]);
}

/* The sums of every run, each weighted by its multiplicity over its
 * sample count (every run counts the same). */
static void
weighted_sums(problem *pb, const double *x, double tot[3])
{
	double fixed[3] = { pb->hold_u, pb->ratio_u, pb->decay_u }, s[3];
	tot[0] = tot[1] = tot[2] = 0.0;
	for (size_t j = 0; j < pb->n_runs; j++) {
		const wc_response_run *run = &pb->runs[j];
		double w = (pb->mult ? pb->mult[j] : 1.0) / (double)(run->n_samples ? run->n_samples : 1);
		if (!(w > 0))
			continue;
		if (pb->shared)
			run_sums(pb, run, fixed, x[0], s);
		else
			run_sums(pb, run, x, x[X_TAU + pb->level_of[j]], s);
		for (int q = 0; q < 3; q++)
			tot[q] += w * s[q];
	}
}

/* The scale of the law's dynamic power that fits all runs at once (least
 * squares pooled over runs, each weighted equally; kept in [0, 4]): what
 * the map keeps of the law beside the prefill increment, which is part of
 * the law's mean power already (docs/envelopes.md, "Power"). */
static double
pooled_level(const double tot[3])
{
	double c = tot[2] > 0 ? tot[1] / tot[2] : 1.0;
	return c < 0 ? 0.0 : c > WC_RESPONSE_MAX_DYNAMIC_SCALE ? WC_RESPONSE_MAX_DYNAMIC_SCALE : c;
}

/* What the fit minimises: each run's mean square, times its multiplicity,
 * at the pooled level. */
static double
cost(const gsl_vector *xv, void *params)
{
	double tot[3];
	weighted_sums(params, xv->data, tot);
	return ss_at(tot, pooled_level(tot));
}

/* Minimise over `dim` parameters from x0 with GSL's Nelder-Mead simplex. */
static int
solve(problem *pb, const double *x0, int dim, int max_iter, double *x)
{
	gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)dim);
	gsl_vector *start = gsl_vector_alloc((size_t)dim), *step = gsl_vector_alloc((size_t)dim);
	gsl_multimin_function fn = { cost, (size_t)dim, pb };
	int rc = m && start && step ? WC_OK : WC_ENOMEM, status = GSL_CONTINUE;
	for (int k = 0; rc == WC_OK && k < dim; k++) {
		gsl_vector_set(start, (size_t)k, x0[k]);
		gsl_vector_set(step, (size_t)k, START_STEP); /* a factor 1.6 in each parameter */
	}
	if (rc == WC_OK && gsl_multimin_fminimizer_set(m, &fn, start, step) != GSL_SUCCESS)
		rc = WC_ENOCONV;
	for (int it = 0; rc == WC_OK && status == GSL_CONTINUE && it < max_iter * dim; it++) {
		if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), SIZE_TOL);
	}
	if (rc == WC_OK)
		memcpy(x, m->x->data, (size_t)dim * sizeof *x);
	gsl_multimin_fminimizer_free(m);
	gsl_vector_free(start);
	gsl_vector_free(step);
	return rc;
}

static double
shared_cost(double u, void *params)
{
	gsl_vector_view v = gsl_vector_view_array(&u, 1);
	return cost(&v.vector, params);
}

/* The time constant for platforms without runs: one tau for every run,
 * hold, ratio and decay fixed -- the lowest of a grid from 1 ms to 30 s refined
 * by GSL's Brent minimiser inside its bracket. */
static double
solve_shared_tau(problem *pb, const double *x)
{
	enum { N = 24 };
	double lo = log(1e-3), step = (log(30.0) - lo) / (N - 1), best = lo, fbest = INFINITY;
	int kbest = 0;
	pb->shared = 1;
	pb->hold_u = x[0];
	pb->ratio_u = x[1];
	pb->decay_u = x[2];
	for (int k = 0; k < N; k++) {
		double f = shared_cost(lo + k * step, pb);
		if (f < fbest) {
			fbest = f;
			best = lo + k * step;
			kbest = k;
		}
	}
	gsl_function fn = { shared_cost, pb };
	gsl_min_fminimizer *m = kbest > 0 && kbest < N - 1 ? gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent) : NULL;
	if (m && gsl_min_fminimizer_set_with_values(m, &fn, best, fbest, best - step, shared_cost(best - step, pb),
	                                            best + step, shared_cost(best + step, pb)) == GSL_SUCCESS) {
		for (int it = 0; it < 50; it++)
			if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS ||
			    gsl_min_test_interval(gsl_min_fminimizer_x_lower(m), gsl_min_fminimizer_x_upper(m), 1e-3, 0) ==
			            GSL_SUCCESS)
				break;
		best = gsl_min_fminimizer_x_minimum(m);
	}
	gsl_min_fminimizer_free(m);
	pb->shared = 0;
	return best;
}

/* ------------------------------------------------------------ problem */

static int
problem_init(problem *pb, const wc_response_run *runs, size_t n, double linger_max_s, wc_error *err)
{
	size_t longest = 1;
	memset(pb, 0, sizeof *pb);
	pb->runs = runs;
	pb->n_runs = n;
	pb->max_hold = linger_max_s > 0 ? fmin(linger_max_s, WC_RESPONSE_MAX_HOLD_S) : WC_RESPONSE_MAX_HOLD_S;
	pb->max_decay = linger_max_s > 0 ? fmin(linger_max_s, WC_RESPONSE_MAX_DECAY_S) : WC_RESPONSE_MAX_DECAY_S;
	if (n > sizeof pb->level_of / sizeof pb->level_of[0])
		return wc_error_set(err, WC_EINVAL, "runs: at most %zu runs per fit",
		                    sizeof pb->level_of / sizeof pb->level_of[0]);
	for (size_t j = 0; j < n; j++) {
		const char *lv = runs[j].platform ? runs[j].platform : "";
		int l = 0;
		while (l < pb->n_levels && strcmp(pb->level_name[l], lv) != 0)
			l++;
		if (l == pb->n_levels) {
			if (l == WC_RESPONSE_MAX_LEVELS)
				return wc_error_set(err, WC_EINVAL, "runs: more than %d platform levels", WC_RESPONSE_MAX_LEVELS);
			pb->level_name[pb->n_levels++] = lv;
		}
		pb->level_of[j] = l;
		if (runs[j].n_grid > longest)
			longest = runs[j].n_grid;
	}
	pb->grid = wc_alloc_array(longest, sizeof *pb->grid);
	pb->filtered = wc_alloc_array(longest, sizeof *pb->filtered);
	pb->law = wc_alloc_array(longest, sizeof *pb->law);
	if (!pb->grid || !pb->filtered || !pb->law)
		return wc_error_set(err, WC_ENOMEM, "response: out of memory");
	return WC_OK;
}

static void
problem_free(problem *pb)
{
	free(pb->grid);
	free(pb->filtered);
	free(pb->law);
}

static int
check_runs(const wc_response_run *runs, size_t n, wc_error *err)
{
	size_t usable = 0;
	for (size_t j = 0; j < n; j++) {
		const wc_response_run *r = &runs[j];
		if (!(r->dt > 0) || r->n_grid == 0 || !r->running)
			return wc_error_set(err, WC_EINVAL, "%s: needs n(t) on a grid", r->run_id ? r->run_id : "run");
		for (size_t s = 0; s < r->n_samples; s++)
			if (!isfinite(r->t_s[s]) || !isfinite(r->power_w[s]))
				return wc_error_set(err, WC_EINVAL, "%s: power sample %zu is not finite",
				                    r->run_id ? r->run_id : "run", s);
		usable += r->n_samples >= 8;
	}
	if (usable < 2)
		return wc_error_set(err, WC_EINVAL, "runs: the response fit needs at least two runs with power "
		                    "samples, got %zu", usable);
	return WC_OK;
}

/* One fit from `x0`: the joint solution in x (X_TAU + levels values) and
 * the shared log tau. */
static int
fit_once(problem *pb, const double *x0, int max_iter, double *x, double *shared_u, double *scale)
{
	int rc = solve(pb, x0, X_TAU + pb->n_levels, max_iter, x);
	if (rc == WC_OK) {
		double tot[3];
		weighted_sums(pb, x, tot);
		*scale = pooled_level(tot);
		*shared_u = solve_shared_tau(pb, x);
	}
	return rc;
}

/* Does the resample hold a run of level l? */
static int
level_present(const problem *pb, int l)
{
	for (size_t j = 0; j < pb->n_runs; j++)
		if (pb->level_of[j] == l && (!pb->mult || pb->mult[j] > 0))
			return 1;
	return 0;
}

static void
to_response(const problem *pb, const double *x, double shared_u, double scale, wc_response_params *r)
{
	memset(r, 0, sizeof *r);
	r->present = r->fitted = 1;
	r->hold_s = value_of(x[0], pb->max_hold);
	r->prefill_ratio = value_of(x[1], WC_RESPONSE_MAX_PREFILL_RATIO);
	r->decay_s = value_of(x[2], pb->max_decay);
	r->tau_s = value_of(shared_u, WC_RESPONSE_MAX_TAU_S);
	r->dynamic_scale = (wc_response_value){ scale, NAN, NAN };
	r->rms_w = NAN;
	for (int l = 0; l < pb->n_levels; l++) {
		if (!pb->level_name[l][0] || strlen(pb->level_name[l]) >= WC_RESPONSE_NAME_MAX)
			continue;
		wc_response_level *lv = &r->levels[r->n_levels++];
		snprintf(lv->level, sizeof lv->level, "%s", pb->level_name[l]);
		lv->tau_s = value_of(x[X_TAU + l], WC_RESPONSE_MAX_TAU_S);
		for (size_t j = 0; j < pb->n_runs; j++)
			lv->runs += pb->level_of[j] == l;
	}
}

/* RMS per sample over all runs (not weighted by run) at the pooled level. */
static double
rms_of(problem *pb, const double *x, double scale)
{
	double ss = 0.0, cnt = 0.0, s[3];
	for (size_t j = 0; j < pb->n_runs; j++) {
		run_sums(pb, &pb->runs[j], x, x[X_TAU + pb->level_of[j]], s);
		ss += ss_at(s, scale);
		cnt += (double)pb->runs[j].n_samples;
	}
	return cnt > 0 ? sqrt(ss / cnt) : NAN;
}

/* ------------------------------------------------------------ bootstrap */

typedef struct {
	const wc_response_run *runs;
	size_t n_runs;
	const double *x_point;
	int max_iter;
	double linger_max_s;
} boot_ctx;

static void *
boot_state_new(const void *ctx)
{
	const boot_ctx *c = ctx;
	problem *pb = malloc(sizeof *pb);
	if (pb && problem_init(pb, c->runs, c->n_runs, c->linger_max_s, NULL) != WC_OK) {
		problem_free(pb);
		free(pb);
		pb = NULL;
	}
	return pb;
}

static void
boot_state_free(void *state)
{
	problem_free(state);
	free(state);
}

/* One replicate (MAX_X + 2 values: x, then the shared log tau, then the
 * log dynamic scale). The
 * simplex search stops at its size tolerance or its step budget without
 * telling which, so a finished search counts as converged
 * (docs/statistics.md, "Bootstrap"). */
static wc__boot_outcome
boot_fit(const void *ctx, void *state, const double *mult, double *d)
{
	const boot_ctx *c = ctx;
	problem *pb = state;
	pb->mult = mult;
	double scale;
	if (fit_once(pb, c->x_point, c->max_iter, d, &d[MAX_X], &scale) != WC_OK) {
		d[MAX_X] = d[MAX_X + 1] = NAN;
		return WC__BOOT_FAILED;
	}
	d[MAX_X + 1] = log(scale);
	for (int l = 0; l < pb->n_levels; l++)
		if (!level_present(pb, l))
			d[X_TAU + l] = NAN; /* not identified in this resample */
	return WC__BOOT_CONVERGED;
}

/* 2.5 / 97.5 percentiles of column k of the draws (finite ones) into v. */
static void
interval(const double *draws, int B, int k, double max, double *col, wc_response_value *v)
{
	size_t m = 0;
	for (int b = 0; b < B; b++) {
		const double *d = draws + (size_t)b * (MAX_X + 2);
		if (isfinite(d[MAX_X]) && isfinite(d[k]))
			col[m++] = value_of(d[k], max).value;
	}
	double lo, hi;
	if (wc_interval_from_draws(col, m, v->value, &lo, &hi)) {
		v->lo = lo;
		v->hi = hi;
	}
}

int
wc_response_at_bound(double value, double bound)
{
	return bound > 0 && value >= bound * exp(-SIZE_TOL);
}

/* A value at its bound (hold_s, decay_s) in the point fit and in every
 * resample, to the simplex's tolerance, is the bound the fit was given or
 * chose, not an estimate: no interval, which would be a near-zero-width
 * one ([0.05, 0.05]; docs/intervals.md, "The parameters' uncertainty"). */
void
wc_response_bound_intervals(wc_response_params *r, double max_hold, double max_decay)
{
	wc_response_value *v[2] = { &r->hold_s, &r->decay_s };
	double bound[2] = { max_hold, max_decay };
	for (int k = 0; k < 2; k++)
		if (wc_response_at_bound(v[k]->value, bound[k]) && wc_response_at_bound(v[k]->lo, bound[k]))
			v[k]->lo = v[k]->hi = NAN;
}

static int
run_bootstrap(const problem *pb, const wc_response_fit_options *o, const double *x, wc_response_params *out)
{
	int B = o->bootstrap, threads = o->threads < 1 ? 1 : o->threads > B ? B : o->threads, rc = WC_OK;
	double *draws = wc_alloc_array((size_t)B * (MAX_X + 2), sizeof *draws);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	unsigned char *ok = wc_alloc_array((size_t)B, 1);
	boot_ctx ctx = { pb->runs, pb->n_runs, x, o->max_iter, o->linger_max_s };
	wc__boot_spec spec = {
		.what = "response bootstrap", .progress = "response bootstrap draws", .replicates = B,
		.threads = threads, .seed = o->seed, .n_rows = pb->n_runs, .slot = MAX_X + 2, .ctx = &ctx,
		.state_new = boot_state_new, .state_free = boot_state_free, .fit = boot_fit,
	};
	wc_error err;
	if (!draws || !col || !ok)
		rc = WC_ENOMEM;
	if (rc == WC_OK)
		rc = wc__boot_run(&spec, draws, ok, &err);
	if (rc == WC_OK) {
		/* The shared tau is column MAX_X. */
		interval(draws, B, MAX_X, WC_RESPONSE_MAX_TAU_S, col, &out->tau_s);
		interval(draws, B, 0, pb->max_hold, col, &out->hold_s);
		interval(draws, B, 1, WC_RESPONSE_MAX_PREFILL_RATIO, col, &out->prefill_ratio);
		interval(draws, B, 2, pb->max_decay, col, &out->decay_s);
		wc_response_bound_intervals(out, pb->max_hold, pb->max_decay);
		interval(draws, B, MAX_X + 1, WC_RESPONSE_MAX_DYNAMIC_SCALE, col, &out->dynamic_scale);
		for (int i = 0, l = 0; l < pb->n_levels; l++)
			if (pb->level_name[l][0] && i < out->n_levels)
				interval(draws, B, X_TAU + l, WC_RESPONSE_MAX_TAU_S, col, &out->levels[i++].tau_s);
	}
	free(draws);
	free(col);
	free(ok);
	return rc;
}

int
wc_fit_response(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                wc_response_params *out, wc_error *err)
{
	problem pb;
	double x0[MAX_X], x[MAX_X], shared_u = START_TAU, scale = 1.0;
	int rc;
	if ((rc = check_runs(runs, n, err)) != WC_OK)
		return rc;
	if (!(o->linger_max_s >= 0 && o->linger_max_s <= WC_RESPONSE_MAX_DECAY_S))
		return wc_error_set(err, WC_EINVAL, "linger_max_s: must be between 0 (the bounds of hold_s and "
		                    "decay_s) and %g s, got %s", WC_RESPONSE_MAX_DECAY_S, WC_NUM_TEXT(o->linger_max_s));
	if (o->bootstrap < 0 || o->bootstrap > WC_BOOTSTRAP_MAX)
		return wc_error_set(err, WC_EINVAL, "bootstrap: must be between 0 and %d, got %d", WC_BOOTSTRAP_MAX,
		                    o->bootstrap);
	if ((rc = problem_init(&pb, runs, n, o->linger_max_s, err)) != WC_OK) {
		problem_free(&pb);
		return rc;
	}
	/* Below a bound near the start by one simplex step: the first simplex
	 * steps up from x0, and all of them clamped would leave it flat. */
	x0[0] = fmin(START_HOLD, log(pb.max_hold) - START_STEP);
	x0[1] = START_RATIO;
	x0[2] = fmin(START_DECAY, log(pb.max_decay) - START_STEP);
	for (int l = 0; l < pb.n_levels; l++)
		x0[X_TAU + l] = START_TAU;
	rc = fit_once(&pb, x0, o->max_iter > 0 ? o->max_iter : 200, x, &shared_u, &scale);
	if (rc == WC_OK) {
		to_response(&pb, x, shared_u, scale, out);
		out->runs = (int)n;
		out->rms_w = rms_of(&pb, x, scale);
		if (o->bootstrap > 0)
			rc = run_bootstrap(&pb, o, x, out);
	}
	problem_free(&pb);
	if (rc == WC_ENOMEM)
		return wc_error_set(err, WC_ENOMEM, "response: out of memory");
	if (rc != WC_OK)
		return wc_error_set(err, WC_ENOCONV, "response: the fit did not converge");
	return WC_OK;
}

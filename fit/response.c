/*
 * Fitting the power response (docs/envelopes.md, "Fitting the response"):
 * the time constant tau, the hold over idle gaps and the prefill ratio
 * that make the response kernel (models/response.h), driven by each run's
 * measured n(t) and prefill activity, reproduce its measured power
 * samples. Least squares in log parameters, each run weighted equally,
 * minimised with GSL's Nelder-Mead simplex; intervals from resampling
 * runs with replacement.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/grow.h"

/* Parameters in fit units: log tau, log hold, log ratio. Values below
 * these floors behave as zero on a 50 ms grid. */
#define N_PARAMS 3
#define LOG_MIN_S (-9.0)
static const double x_start[N_PARAMS] = { -2.302585, -2.302585, -0.693147 }; /* 0.1 s, 0.1 s, 0.5 */

typedef struct {
	const wc_response_run *runs;
	size_t n_runs, n_res;
	const double *mult;       /* per run: resample multiplicity (NULL = 1) */
	double *grid, *filtered, *law; /* scratch of the longest grid */
} problem;

static double
clamp_log(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

static void
to_response(const double *x, wc_response_params *r)
{
	memset(r, 0, sizeof *r);
	r->present = r->fitted = 1;
	r->tau_s = (wc_response_value){ exp(clamp_log(x[0], LOG_MIN_S, log(WC_RESPONSE_MAX_TAU_S))), NAN, NAN };
	r->hold_s = (wc_response_value){ exp(clamp_log(x[1], LOG_MIN_S, log(WC_RESPONSE_MAX_HOLD_S))), NAN, NAN };
	r->prefill_ratio = (wc_response_value){
		exp(clamp_log(x[2], LOG_MIN_S, log(WC_RESPONSE_MAX_PREFILL_RATIO))), NAN, NAN };
	r->rms_w = NAN;
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
	wc_response_grid g = { run->dt, run->n_grid, grid, NULL, NULL };
	wc_response_state st;
	double ref = wc_law_point_dynamic(&run->law, WC_RESPONSE_PREFILL_REF_RUNNING);
	memset(grid, 0, run->n_grid * sizeof *grid);
	wc_response_state_init(&st, part == 0 ? run->law.p0 : 0.0,
	                       part == 0 ? r->prefill_ratio.value * ref : 0.0, r->hold_s.value);
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

int
wc_response_predict_samples(const wc_response_run *run, const wc_response_params *r, double *out,
                            double *level, wc_error *err)
{
	size_t n = run->n_grid ? run->n_grid : 1;
	double *grid = wc_alloc_array(n, sizeof *grid), *base = wc_alloc_array(n, sizeof *base);
	double *law = wc_alloc_array(n, sizeof *law);
	int rc = grid && base && law ? WC_OK : wc_error_set(err, WC_ENOMEM, "response: out of memory");
	if (rc == WC_OK) {
		simulate_part(run, r, 0, grid, base);
		simulate_part(run, r, 1, grid, law);
		double c = level_factor(run, base, law);
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

/* The weighted sum of squares at x (what the fit minimises). */
static double
cost(const gsl_vector *xv, void *params)
{
	problem *pb = params;
	wc_response_params r;
	double c = 0.0;
	to_response(xv->data, &r);
	for (size_t j = 0; j < pb->n_runs; j++) {
		const wc_response_run *run = &pb->runs[j];
		double w = (pb->mult ? pb->mult[j] : 1.0) / (double)(run->n_samples ? run->n_samples : 1), s = 0.0;
		if (!(w > 0))
			continue;
		simulate_part(run, &r, 0, pb->grid, pb->filtered);
		simulate_part(run, &r, 1, pb->grid, pb->law);
		double f = level_factor(run, pb->filtered, pb->law);
		for (size_t k = 0; k < run->n_samples; k++) {
			size_t b = sample_bin(run, run->t_s[k]);
			double d = pb->filtered[b] + f * pb->law[b] - run->power_w[k];
			s += d * d;
		}
		c += w * s;
	}
	return c;
}

/* Minimise from x0 with GSL's Nelder-Mead simplex (the hold makes the
 * cost kinked where a hold ends on a bin edge, so no derivatives are
 * used); the solution in x. */
static int
solve(problem *pb, const double *x0, int max_iter, double *x)
{
	const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
	gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(T, N_PARAMS);
	gsl_vector *start = gsl_vector_alloc(N_PARAMS), *step = gsl_vector_alloc(N_PARAMS);
	gsl_multimin_function fn = { cost, N_PARAMS, pb };
	int rc = m && start && step ? WC_OK : WC_ENOMEM, status = GSL_CONTINUE;
	for (int k = 0; rc == WC_OK && k < N_PARAMS; k++) {
		gsl_vector_set(start, (size_t)k, x0[k]);
		gsl_vector_set(step, (size_t)k, 0.5); /* a factor 1.6 in each parameter */
	}
	if (rc == WC_OK && gsl_multimin_fminimizer_set(m, &fn, start, step) != GSL_SUCCESS)
		rc = WC_ENOCONV;
	for (int it = 0; rc == WC_OK && status == GSL_CONTINUE && it < max_iter; it++) {
		if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-3);
	}
	if (rc == WC_OK)
		memcpy(x, m->x->data, N_PARAMS * sizeof *x);
	gsl_multimin_fminimizer_free(m);
	gsl_vector_free(start);
	gsl_vector_free(step);
	return rc;
}

static int
problem_init(problem *pb, const wc_response_run *runs, size_t n)
{
	size_t longest = 1;
	memset(pb, 0, sizeof *pb);
	pb->runs = runs;
	pb->n_runs = n;
	for (size_t j = 0; j < n; j++) {
		pb->n_res += runs[j].n_samples;
		if (runs[j].n_grid > longest)
			longest = runs[j].n_grid;
	}
	pb->grid = wc_alloc_array(longest, sizeof *pb->grid);
	pb->filtered = wc_alloc_array(longest, sizeof *pb->filtered);
	pb->law = wc_alloc_array(longest, sizeof *pb->law);
	return pb->grid && pb->filtered && pb->law ? WC_OK : WC_ENOMEM;
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

/* ------------------------------------------------------------ bootstrap */

typedef struct {
	const wc_response_run *runs;
	size_t n_runs;
	const double *x_point;
	const wc_response_fit_options *o;
	double *draws;             /* bootstrap x N_PARAMS */
	unsigned char *ok;
	int tid, threads, rc;
} boot_job;

static void *
boot_work(void *arg)
{
	boot_job *job = arg;
	problem pb;
	double *mult = wc_alloc_array(job->n_runs, sizeof *mult);
	if (!mult || problem_init(&pb, job->runs, job->n_runs) != WC_OK) {
		free(mult);
		job->rc = WC_ENOMEM;
		return NULL;
	}
	pb.mult = mult;
	for (int b = job->tid; b < job->o->bootstrap; b += job->threads) {
		wc_pcg32 rng;
		wc_pcg32_seed(&rng, job->o->seed, (uint64_t)b);
		memset(mult, 0, job->n_runs * sizeof *mult);
		for (size_t k = 0; k < job->n_runs; k++)
			mult[wc_pcg32_bounded(&rng, (uint32_t)job->n_runs)] += 1.0;
		job->ok[b] = solve(&pb, job->x_point, job->o->max_iter, job->draws + (size_t)b * N_PARAMS) == WC_OK;
	}
	problem_free(&pb);
	free(mult);
	return NULL;
}

static int
bootstrap(const wc_response_run *runs, size_t n, const wc_response_fit_options *o, const double *x,
          wc_response_params *out)
{
	int B = o->bootstrap, threads = o->threads < 1 ? 1 : o->threads > B ? B : o->threads;
	double *draws = wc_alloc_array((size_t)B * N_PARAMS, sizeof *draws);
	unsigned char *ok = calloc((size_t)B, 1);
	boot_job *jobs = calloc((size_t)threads, sizeof *jobs);
	pthread_t *th = calloc((size_t)threads, sizeof *th);
	int rc = draws && ok && jobs && th ? WC_OK : WC_ENOMEM;
	for (int t = 0; rc == WC_OK && t < threads; t++)
		jobs[t] = (boot_job){ runs, n, x, o, draws, ok, t, threads, WC_OK };
	for (int t = 1; rc == WC_OK && t < threads; t++)
		if (pthread_create(&th[t], NULL, boot_work, &jobs[t]) != 0)
			jobs[t].threads = -1; /* not started: run below */
	if (rc == WC_OK) {
		boot_work(&jobs[0]);
		for (int t = 1; t < threads; t++) {
			if (jobs[t].threads > 0)
				pthread_join(th[t], NULL);
			else {
				jobs[t].threads = threads;
				boot_work(&jobs[t]);
			}
			if (jobs[t].rc != WC_OK)
				rc = jobs[t].rc;
		}
		if (jobs[0].rc != WC_OK)
			rc = jobs[0].rc;
	}
	/* Percentiles of each parameter over the replicates that converged. */
	wc_response_value *v[N_PARAMS] = { &out->tau_s, &out->hold_s, &out->prefill_ratio };
	double *col = rc == WC_OK ? wc_alloc_array((size_t)B, sizeof *col) : NULL;
	for (int k = 0; col && k < N_PARAMS; k++) {
		size_t m = 0;
		for (int b = 0; b < B; b++)
			if (ok[b]) {
				wc_response_params r;
				to_response(draws + (size_t)b * N_PARAMS, &r);
				col[m++] = k == 0 ? r.tau_s.value : k == 1 ? r.hold_s.value : r.prefill_ratio.value;
			}
		if (m >= 2) {
			gsl_sort(col, 1, m);
			v[k]->lo = fmin(v[k]->value, gsl_stats_quantile_from_sorted_data(col, 1, m, 0.025));
			v[k]->hi = fmax(v[k]->value, gsl_stats_quantile_from_sorted_data(col, 1, m, 0.975));
		}
	}
	free(col);
	free(draws);
	free(ok);
	free(jobs);
	free(th);
	return rc;
}

int
wc_fit_response(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                wc_response_params *out, wc_error *err)
{
	problem pb;
	double x[N_PARAMS];
	int rc;
	if ((rc = check_runs(runs, n, err)) != WC_OK)
		return rc;
	if (o->bootstrap < 0 || o->bootstrap > 100000)
		return wc_error_set(err, WC_EINVAL, "bootstrap: must be between 0 and 100000, got %d", o->bootstrap);
	if (problem_init(&pb, runs, n) != WC_OK) {
		problem_free(&pb);
		return wc_error_set(err, WC_ENOMEM, "response: out of memory");
	}
	rc = solve(&pb, x_start, o->max_iter > 0 ? o->max_iter : 200, x);
	if (rc == WC_OK) {
		/* RMS per sample over all runs (not weighted by run). */
		double ss = 0.0, cnt = 0.0;
		to_response(x, out);
		out->runs = (int)n;
		for (size_t j = 0; j < n; j++) {
			simulate_part(&runs[j], out, 0, pb.grid, pb.filtered);
			simulate_part(&runs[j], out, 1, pb.grid, pb.law);
			double f = level_factor(&runs[j], pb.filtered, pb.law);
			for (size_t s = 0; s < runs[j].n_samples; s++) {
				size_t b = sample_bin(&runs[j], runs[j].t_s[s]);
				double d = pb.filtered[b] + f * pb.law[b] - runs[j].power_w[s];
				ss += d * d;
				cnt += 1;
			}
		}
		out->rms_w = cnt > 0 ? sqrt(ss / cnt) : NAN;
	}
	problem_free(&pb);
	if (rc == WC_ENOMEM)
		return wc_error_set(err, WC_ENOMEM, "response: out of memory");
	if (rc != WC_OK)
		return wc_error_set(err, WC_ENOCONV, "response: the fit did not converge");
	if (o->bootstrap > 0 && (rc = bootstrap(runs, n, o, x, out)) != WC_OK)
		return wc_error_set(err, rc, "response: bootstrap out of memory");
	return WC_OK;
}

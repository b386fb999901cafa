/*
 * Bootstrap intervals of the capacity fit (docs/capacity.md, "Intervals"):
 * resample rows with replacement, refit from the point estimate, keep the
 * draws in natural units and take 2.5 / 97.5 percentiles. Replicate r
 * draws from PCG32 stream (seed, r) and writes slot r, so the draws are
 * bit-identical for any number of threads.
 */
#include "capacity_internal.h"
#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/parallel.h"
#include "models/progress.h"

typedef struct {
	const cap_problem *pb;
	const double *u_point;
	int replicates, threads, thread_id, max_iter;
	uint64_t seed;
	double *draws;      /* replicates x p, fit coordinates */
	unsigned char *ok;
	int error;
} cap_job;

static void *
cap_worker(void *arg)
{
	cap_job *job = arg;
	const cap_problem *pb = job->pb;
	const size_t n = pb->n_rows, p = (size_t)pb->n_params;
	double *mult = wc_alloc_array(n, sizeof *mult);
	if (!mult) {
		job->error = WC_ENOMEM;
		return NULL;
	}
	for (int r = job->thread_id; r < job->replicates; r += job->threads) {
		wc_progress_add(1.0);
		wc_pcg32 rng;
		wc_error err;
		int status = 0, niter = 0;
		wc_pcg32_seed(&rng, job->seed, (uint64_t)r);
		memset(mult, 0, n * sizeof *mult);
		for (size_t k = 0; k < n; k++)
			mult[wc_pcg32_bounded(&rng, (uint32_t)n)] += 1.0;
		double *u = job->draws + (size_t)r * p;
		if (cap_solve(pb, job->u_point, mult, job->max_iter, u, &status, &niter, NULL, NULL, &err) != WC_OK) {
			job->ok[r] = 0;
			continue;
		}
		int good = status == GSL_SUCCESS || status == GSL_ENOPROG || status == GSL_EMAXITER;
		for (size_t k = 0; k < p && good; k++)
			good = isfinite(u[k]);
		job->ok[r] = (unsigned char)good;
	}
	free(mult);
	return NULL;
}

static int
run_jobs(cap_job *jobs, int T, wc_error *err)
{
	wc_progress_begin("capacity bootstrap draws", jobs[0].replicates);
	wc_run_jobs(jobs, sizeof *jobs, T, cap_worker);
	wc_progress_end();
	for (int k = 0; k < T; k++)
		if (jobs[k].error)
			return wc_error_set(err, WC_ENOMEM, "capacity bootstrap: out of memory in a worker");
	return WC_OK;
}

static void
warn(wc_capacity_fit_result *out, const char *msg)
{
	if (out->n_warnings < WC_FIT_WARN_MAX)
		snprintf(out->warnings[out->n_warnings++], WC_ERROR_MSG_MAX, "%s", msg);
}

/* Converged replicates in natural units, packed at the front; count. */
static int
natural_draws(const cap_problem *pb, int B, const double *draws, const unsigned char *ok, double *natural)
{
	const size_t p = (size_t)pb->n_params;
	int n_ok = 0;
	for (int r = 0; r < B; r++) {
		if (!ok[r])
			continue;
		for (size_t k = 0; k < p; k++)
			natural[(size_t)n_ok * p + k] = cap_value(pb, (int)k, draws[(size_t)r * p + k]);
		n_ok++;
	}
	return n_ok;
}

static void
set_intervals(const cap_problem *pb, const double *natural, int n_ok, double *col,
              wc_capacity_fit_result *point)
{
	const size_t p = (size_t)pb->n_params;
	char msg[WC_ERROR_MSG_MAX];
	for (size_t k = 0; k < p; k++) {
		for (int r = 0; r < n_ok; r++)
			col[r] = natural[(size_t)r * p + k];
		double lo, hi;
		wc_param *prm = wc_capacity_param_named(&point->params, point->names[k]);
		if (!wc_interval_from_draws(col, (size_t)n_ok, prm ? prm->value : NAN, &lo, &hi))
			continue; /* every draw the same: no interval rather than a zero-width one */
		if (prm) {
			prm->lo = lo;
			prm->hi = hi;
		}
		/* Wider than a factor e^4 ~ 55: the rows do not pin it down. */
		if (!(log(hi / lo) <= 4.0)) {
			snprintf(msg, sizeof msg, "%s: 95 %% interval [%.4g, %.4g] is very wide; the rows do not "
			         "identify it well", point->names[k], lo, hi);
			warn(point, msg);
		}
	}
}

int
wc_fit_capacity_bootstrap(const wc_capacity_data *d, const wc_capacity_fit_options *o,
                          const wc_bootstrap_options *bo, wc_capacity_fit_result *point, wc_error *err)
{
	cap_problem *pb = NULL;
	int rc, B = bo->replicates, T = bo->threads > 0 ? bo->threads : 1;
	if (B < 2)
		return wc_error_set(err, WC_EINVAL, "bootstrap: need at least 2 replicates");
	if (o->weight)
		return wc_error_set(err, WC_EINVAL, "bootstrap: options must not carry resample weights");
	if ((rc = cap_problem_build(d, o, &pb, err)) != WC_OK)
		return rc;
	const size_t p = (size_t)pb->n_params;
	if ((int)p != point->n_params) {
		cap_problem_free(pb);
		return wc_error_set(err, WC_EINVAL, "bootstrap: point estimate does not match the problem");
	}
	double *draws = wc_alloc_array((size_t)B * p, sizeof *draws), *natural = wc_alloc_array((size_t)B * p, sizeof *natural);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	unsigned char *ok = wc_alloc_zeroed((size_t)B, 1);
	cap_job *jobs = wc_alloc_zeroed((size_t)T, sizeof *jobs);
	if (!draws || !natural || !col || !ok || !jobs) {
		rc = wc_error_set(err, WC_ENOMEM, "capacity bootstrap: out of memory");
		goto done;
	}
	for (int k = 0; k < T; k++)
		jobs[k] = (cap_job){ pb, point->u, B, T, k, o->max_iter > 0 ? o->max_iter : 500, bo->seed, draws, ok, 0 };
	if ((rc = run_jobs(jobs, T, err)) != WC_OK)
		goto done;
	int n_ok = natural_draws(pb, B, draws, ok, natural);
	if (n_ok < 2) {
		rc = wc_error_set(err, WC_ENOCONV, "capacity bootstrap: only %d of %d replicates converged", n_ok, B);
		goto done;
	}
	if (n_ok < B) {
		char msg[WC_ERROR_MSG_MAX];
		snprintf(msg, sizeof msg, "capacity bootstrap: %d of %d replicates failed and were left out", B - n_ok, B);
		warn(point, msg);
	}
	set_intervals(pb, natural, n_ok, col, point);
	rc = wc_draws_set(&point->params.draws, n_ok, (int)p, (const char (*)[WC_NAME_MAX])point->names, natural, err);
	point->params.seed = bo->seed;
	point->params.bootstrap = B;
done:
	free(draws);
	free(natural);
	free(col);
	free(ok);
	free(jobs);
	cap_problem_free(pb);
	return rc;
}

/*
 * Bootstrap of the compute law E_step = e0 + kappa F (docs/finetune.md,
 * "Intervals"): resample runs with replacement, refit, take the 2.5 / 97.5
 * percentiles. Replicate r draws its resample from PCG32 stream (seed, r)
 * and writes slot r, so draws are bit-identical for any thread count.
 * Deviations from the point estimate are scaled by sqrt(n / (n - p)), the
 * degrees-of-freedom correction the inference bootstrap uses too
 * (docs/fitting.md).
 */
#include "finetune_fit_internal.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/parallel.h"
#include "models/progress.h"

typedef struct {
	const wc__ft_design *d;
	int replicates, threads, thread_id;
	uint64_t seed;
	double *draws;       /* replicates x 2 */
	unsigned char *ok;
	int error;
} ft_job;

static void *
ft_worker(void *arg)
{
	ft_job *job = arg;
	const int n = job->d->n;
	double *mult = malloc((size_t)n * sizeof *mult);
	double *scratch = malloc((size_t)n * 3 * sizeof *scratch);
	if (!mult || !scratch) {
		job->error = WC_ENOMEM;
		free(mult);
		free(scratch);
		return NULL;
	}
	for (int r = job->thread_id; r < job->replicates; r += job->threads) {
		wc_progress_add(1.0);
		wc_pcg32 rng;
		wc_pcg32_seed(&rng, job->seed, (uint64_t)r);
		memset(mult, 0, (size_t)n * sizeof *mult);
		for (int k = 0; k < n; k++)
			mult[wc_pcg32_bounded(&rng, (uint32_t)n)] += 1.0;
		job->ok[r] = wc__ft_lstsq(job->d->X, job->d->y, mult, n, 2, scratch,
		                          job->draws + 2 * (size_t)r) == 0;
	}
	free(mult);
	free(scratch);
	return NULL;
}

/* Run the jobs on `T` threads (or this one when a thread cannot start). */
static int
run_jobs(ft_job *jobs, int T)
{
	int rc = WC_OK;
	wc_progress_begin("fine-tuning bootstrap draws", jobs[0].replicates);
	wc_run_jobs(jobs, sizeof *jobs, T, ft_worker);
	wc_progress_end();
	for (int k = 0; k < T; k++)
		if (jobs[k].error)
			rc = WC_ENOMEM;
	return rc;
}

/* Inflate the good replicates around the point estimate, pack them into
 * `natural` (n_ok x 2) and set the intervals. Returns n_ok. */
static int
to_intervals(const wc__ft_design *d, const wc_ft_linear_fit *point, int B, const double *draws,
             const unsigned char *ok, double *natural, double *col, wc_finetune_params *section)
{
	double inflate = d->n > 2 ? sqrt((double)d->n / (d->n - 2)) : 1.0;
	int n_ok = 0;
	for (int r = 0; r < B; r++) {
		if (!ok[r])
			continue;
		for (int j = 0; j < 2; j++)
			natural[2 * n_ok + j] = point->coef[j] + inflate * (draws[2 * r + j] - point->coef[j]);
		n_ok++;
	}
	wc_param *par[2] = { &section->e0, &section->kappa };
	for (int j = 0; j < 2 && n_ok >= 2; j++) {
		for (int r = 0; r < n_ok; r++)
			col[r] = natural[2 * r + j];
		wc_interval_from_draws(col, (size_t)n_ok, point->coef[j], &par[j]->lo, &par[j]->hi);
	}
	return n_ok;
}

int
wc__ft_bootstrap(const wc__ft_design *d, const wc_ft_linear_fit *point,
                 const wc_bootstrap_options *bo, wc_finetune_params *section, int *failed,
                 wc_error *err)
{
	int B = bo->replicates, T = bo->threads > 0 ? bo->threads : 1, rc;
	static const char names[2][WC_NAME_MAX] = { WC_FT_DRAW_E0, WC_FT_DRAW_KAPPA };
	if (B < 2)
		return wc_error_set(err, WC_EINVAL, "bootstrap: need at least 2 replicates");
	if (T > B)
		T = B;
	double *draws = malloc((size_t)B * 2 * sizeof *draws);
	double *natural = malloc((size_t)B * 2 * sizeof *natural);
	double *col = malloc((size_t)B * sizeof *col);
	unsigned char *ok = calloc((size_t)B, 1);
	ft_job *jobs = calloc((size_t)T, sizeof *jobs);
	if (!draws || !natural || !col || !ok || !jobs) {
		rc = wc_error_set(err, WC_ENOMEM, "bootstrap: out of memory");
		goto done;
	}
	for (int k = 0; k < T; k++)
		jobs[k] = (ft_job){ d, B, T, k, bo->seed, draws, ok, 0 };
	if ((rc = run_jobs(jobs, T)) != WC_OK) {
		wc_error_set(err, rc, "bootstrap: out of memory in a worker");
		goto done;
	}
	int n_ok = to_intervals(d, point, B, draws, ok, natural, col, section);
	*failed = B - n_ok;
	if (n_ok < 2) {
		rc = wc_error_set(err, WC_ENOCONV, "bootstrap: only %d of %d replicates could be fitted",
		                  n_ok, B);
		goto done;
	}
	rc = wc_draws_set(&section->draws, n_ok, 2, names, natural, err);
done:
	free(draws);
	free(natural);
	free(col);
	free(ok);
	free(jobs);
	return rc;
}

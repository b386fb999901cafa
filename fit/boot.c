/*
 * The one bootstrap driver (fit/boot_internal.h, docs/statistics.md,
 * "Bootstrap"): resampling, threads and the acceptance rule.
 */
#include "boot_internal.h"
#include "fit/fit.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/parallel.h"
#include "models/pcg32.h"
#include "models/progress.h"

int
wc__boot_accepts(wc__boot_outcome o)
{
	return o == WC__BOOT_CONVERGED || o == WC__BOOT_STATIONARY;
}

wc__boot_outcome
wc__boot_outcome_of_gsl(int gsl_status)
{
	switch (gsl_status) {
	case GSL_SUCCESS:
		return WC__BOOT_CONVERGED;
	case GSL_ENOPROG:
		return WC__BOOT_STATIONARY;
	case GSL_EMAXITER:
		return WC__BOOT_ITER_LIMIT;
	default:
		return WC__BOOT_FAILED;
	}
}

typedef struct {
	const wc__boot_spec *s;
	int thread_id, threads;
	double *draws;
	unsigned char *ok;
	int error;
} boot_job;

static void *
boot_worker(void *arg)
{
	boot_job *job = arg;
	const wc__boot_spec *s = job->s;
	const size_t n = s->n_rows;
	double *mult = wc_alloc_array(n ? n : 1, sizeof *mult);
	double *count = s->unit ? wc_alloc_array(s->n_units ? s->n_units : 1, sizeof *count) : NULL;
	void *state = s->state_new ? s->state_new(s->ctx) : NULL;
	if (!mult || (s->unit && !count) || (s->state_new && !state)) {
		free(mult);
		free(count);
		if (state && s->state_free)
			s->state_free(state);
		job->error = WC_ENOMEM;
		return NULL;
	}
	for (int r = job->thread_id; r < s->replicates; r += job->threads) {
		wc_progress_add(1.0);
		if (s->unit) {
			wc_fit_resample_counts(s->seed, r, s->n_units, count);
			for (size_t i = 0; i < n; i++)
				mult[i] = count[s->unit[i]];
		} else {
			wc_fit_resample_counts(s->seed, r, n, mult);
		}
		double *x = job->draws + (size_t)r * s->slot;
		job->ok[r] = (unsigned char)wc__boot_accepts(s->fit(s->ctx, state, mult, x));
	}
	free(mult);
	free(count);
	if (state && s->state_free)
		s->state_free(state);
	return NULL;
}

int
wc__boot_run(const wc__boot_spec *s, double *draws, unsigned char *ok, wc_error *err)
{
	int T = s->threads > 0 ? s->threads : 1, rc = WC_OK;
	if (T > s->replicates)
		T = s->replicates > 0 ? s->replicates : 1;
	boot_job *jobs = wc_alloc_array((size_t)T, sizeof *jobs);
	if (!jobs)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", s->what);
	for (int k = 0; k < T; k++)
		jobs[k] = (boot_job){ s, k, T, draws, ok, 0 };
	wc_progress_begin(s->progress, s->replicates);
	wc_run_jobs(jobs, sizeof *jobs, T, boot_worker);
	wc_progress_end();
	for (int k = 0; k < T && rc == WC_OK; k++)
		if (jobs[k].error)
			rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory in a worker", s->what);
	free(jobs);
	return rc;
}

int
wc__boot_check_kept(const char *what, const char *failed, int n_ok, int B, char *msg, size_t len,
                    wc_error *err)
{
	msg[0] = '\0';
	if (n_ok < 2)
		return wc_error_set(err, WC_ENOCONV, "%s: only %d of %d replicates converged", what, n_ok, B);
	if (n_ok < B)
		snprintf(msg, len, "%s: %d of %d replicates %s and were left out", what, B - n_ok, B, failed);
	return WC_OK;
}

void
wc_fit_resample_counts(uint64_t seed, int r, size_t n, double *mult)
{
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, seed, (uint64_t)r);
	memset(mult, 0, n * sizeof *mult);
	for (size_t k = 0; k < n; k++)
		mult[wc_pcg32_bounded(&rng, (uint32_t)n)] += 1.0;
}

/*
 * How long power may linger after the engine empties -- the upper bound
 * of the response's hold and decay -- chosen by leaving each run out
 * inside the runs of a fit (docs/envelopes.md, "Fitting the response"):
 * a long decay can absorb the law's error at low load instead of
 * describing the GPU, and the runs given cannot say so from their own
 * in-sample fit, only from runs each fit did not see.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/grow.h"
#include "models/parallel.h"

static const double candidates[WC_RESPONSE_N_LINGER] = WC_RESPONSE_LINGER_CANDIDATES;

typedef struct {
	const wc_response_run *runs;
	size_t n;
	const wc_response_fit_options *o;
	double *mse;          /* [candidate * n + run]: NaN = not a fold */
	int job, jobs, rc;
	wc_error err;
} linger_job;

/* Fit without run i with bound `bound_s` and score run i (NaN when run i
 * has too few samples to score, or the others too few to fit). */
static int
score_fold(const linger_job *j, size_t i, double bound_s, wc_response_run *others, double *mse, wc_error *err)
{
	wc_response_fit_options fo = *j->o;
	wc_response_params r;
	wc_error e2;
	size_t m = 0;
	*mse = NAN;
	if (j->runs[i].n_samples < 8)
		return WC_OK; /* nothing to score it by (wc_fit_response's usable runs) */
	fo.bootstrap = 0;
	fo.threads = 1;
	fo.linger_nested = 0;
	fo.linger_max_s = bound_s;
	for (size_t k = 0; k < j->n; k++)
		if (k != i)
			others[m++] = j->runs[k];
	int rc = wc_fit_response(others, m, &fo, &r, &e2);
	if (rc == WC_EINVAL)
		return WC_OK; /* too few usable runs without run i: not a fold */
	if (rc == WC_OK)
		rc = wc_response_heldout_mse(&j->runs[i], &r, mse, &e2);
	if (rc != WC_OK)
		wc_error_set(err, rc, "response: choosing the bound of hold_s and decay_s: %s", e2.msg);
	return rc;
}

/* Job k scores the (candidate, run) pairs k, k + jobs, ...: each writes
 * its own cells, so the scores do not depend on the thread count. */
static void *
linger_worker(void *arg)
{
	linger_job *j = arg;
	wc_response_run *others = wc_alloc_array(j->n ? j->n : 1, sizeof *others);
	size_t cells = (size_t)WC_RESPONSE_N_LINGER * j->n;
	j->rc = others ? WC_OK : wc_error_set(&j->err, WC_ENOMEM, "response: out of memory");
	for (size_t c = (size_t)j->job; j->rc == WC_OK && c < cells; c += (size_t)j->jobs)
		j->rc = score_fold(j, c % j->n, candidates[c / j->n], others, &j->mse[c], &j->err);
	free(others);
	return NULL;
}

/* Every candidate's mean held-out score over the runs left out in turn;
 * NaN when fewer than two runs could be. */
static int
score_candidates(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                 wc_response_linger_choice *c, wc_error *err)
{
	int jobs = o->threads < 1 ? 1 : o->threads, rc = WC_OK;
	double *mse = wc_alloc_array((size_t)WC_RESPONSE_N_LINGER * (n ? n : 1), sizeof *mse);
	linger_job *job = wc_alloc_zeroed((size_t)jobs, sizeof *job);
	if (!mse || !job)
		rc = wc_error_set(err, WC_ENOMEM, "response: out of memory");
	for (int k = 0; rc == WC_OK && k < jobs; k++)
		job[k] = (linger_job){ .runs = runs, .n = n, .o = o, .mse = mse, .job = k, .jobs = jobs };
	if (rc == WC_OK)
		wc_run_jobs(job, sizeof *job, jobs, linger_worker);
	for (int k = 0; rc == WC_OK && k < jobs; k++)
		if (job[k].rc != WC_OK) {
			*err = job[k].err;
			rc = job[k].rc;
		}
	for (int k = 0; rc == WC_OK && k < WC_RESPONSE_N_LINGER; k++) {
		double sum = 0.0;
		int folds = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(mse[(size_t)k * n + i])) {
				sum += mse[(size_t)k * n + i];
				folds++;
			}
		c->bound_s[k] = candidates[k];
		c->score[k] = folds >= 2 ? sum / folds : NAN;
		c->folds = folds;
	}
	free(mse);
	free(job);
	return rc;
}

int
wc_fit_response_nested(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                       wc_response_params *out, wc_response_linger_choice *choice, wc_error *err)
{
	wc_response_linger_choice c;
	wc_response_fit_options fo = *o;
	memset(&c, 0, sizeof c);
	for (int k = 0; k < WC_RESPONSE_N_LINGER; k++)
		c.bound_s[k] = c.score[k] = NAN;
	c.chosen_s = o->linger_max_s;
	if (o->linger_nested) {
		int rc = score_candidates(runs, n, o, &c, err), best = -1;
		if (rc != WC_OK)
			return rc;
		/* Strictly lower: among equal scores the smallest bound. */
		for (int k = 0; k < WC_RESPONSE_N_LINGER; k++)
			if (isfinite(c.score[k]) && (best < 0 || c.score[k] < c.score[best]))
				best = k;
		/* Fewer than two runs to leave out: no choice, the section's bounds. */
		c.chosen_s = best >= 0 ? candidates[best] : 0.0;
		fo.linger_max_s = c.chosen_s;
	}
	if (choice)
		*choice = c;
	return wc_fit_response(runs, n, &fo, out, err);
}

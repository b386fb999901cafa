/*
 * How closely a fitted response's power follows a run's measured samples
 * (docs/envelopes.md, "Fitting the response"): the mean square error per
 * sample at the response's own dynamic scale, what a run left out of the
 * fit is scored by, and the RMS at the run's own level factor, the per-run
 * check `fit response` prints. One sum of squared errors for both. And
 * what identifies a run the fit saw: a hash of its samples.
 */
#include <math.h>
#include <stdlib.h>

#include "data/fileio.h"
#include "fit/fit.h"
#include "models/grow.h"

/* The mean square error per sample of the response's power at `run`'s
 * samples against the measured ones: at r's own dynamic scale (`scaled`,
 * a held-out run's score) or at the run's level factor (`level`). NaN on
 * failure or without samples. */
static int
mean_square(const wc_response_run *run, const wc_response_params *r, int scaled, double *mse, double *level,
            wc_error *err)
{
	double *pred = wc_alloc_array(run->n_samples ? run->n_samples : 1, sizeof *pred), ss = 0.0;
	int rc = !pred ? wc_error_set(err, WC_ENOMEM, "response: out of memory")
	         : scaled ? wc_response_predict_scaled(run, r, pred, err)
	                  : wc_response_predict_samples(run, r, pred, level, err);
	for (size_t i = 0; rc == WC_OK && i < run->n_samples; i++)
		ss += (pred[i] - run->power_w[i]) * (pred[i] - run->power_w[i]);
	*mse = rc == WC_OK && run->n_samples ? ss / (double)run->n_samples : NAN;
	free(pred);
	return rc;
}

int
wc_response_heldout_mse(const wc_response_run *run, const wc_response_params *r, double *mse, wc_error *err)
{
	return mean_square(run, r, 1, mse, NULL, err);
}

int
wc_response_run_rms(const wc_response_run *run, const wc_response_params *r, double *rms_w, double *level,
                    wc_error *err)
{
	double mse;
	if (level)
		*level = NAN;
	int rc = mean_square(run, r, 0, &mse, level, err);
	*rms_w = sqrt(mse);
	return rc;
}

uint64_t
wc_response_run_hash(const wc_response_run *run)
{
	/* The samples as read (W per GPU): the same run read from another
	 * path, or named by a relative path, gives the same bytes. */
	char hex[65];
	wc_sha256_hex(run->power_w, run->n_samples * sizeof *run->power_w, hex);
	hex[16] = '\0';
	return strtoull(hex, NULL, 16);
}

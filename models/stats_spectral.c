/*
 * Spectral metrics (models/stats.h, docs/trace-metrics.md): the normalised
 * spectral entropy of a uniformly sampled series and its autocovariance by
 * FFT, on GSL's mixed-radix real FFT.
 */
#include "models/stats.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

size_t
wc_stats_smooth_floor(size_t n)
{
	size_t best = 1;
	for (size_t a = 1; a <= n; a *= 2)
		for (size_t b = a; b <= n; b *= 3)
			for (size_t c = b; c <= n; c *= 5)
				if (c > best)
					best = c;
	return best;
}

size_t
wc_stats_smooth_ceil(size_t n)
{
	size_t best = 1;
	while (best < n)
		best *= 2; /* a power of two is an upper bound; look for smaller */
	for (size_t a = 1; a <= best; a *= 2)
		for (size_t b = a; b <= best; b *= 3)
			for (size_t c = b; c <= best; c *= 5)
				if (c >= n && c < best)
					best = c;
	return best;
}

void
wc_stats_fft_clear(wc_stats_fft *f)
{
	gsl_fft_real_wavetable_free(f->wavetable);
	gsl_fft_real_workspace_free(f->workspace);
	free(f->buf);
	memset(f, 0, sizeof *f);
}

/* n doubles of scratch in `f`. */
static int
fft_reserve(wc_stats_fft *f, size_t n, const char *what, wc_error *err)
{
	if (f->cap >= n)
		return WC_OK;
	double *b = wc_resize_array(f->buf, n, sizeof *b);
	if (!b)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory (%zu values)", what, n);
	f->buf = b;
	f->cap = n;
	return WC_OK;
}

/* FFT tables of length n in `f`. */
static int
fft_ready(wc_stats_fft *f, size_t n, const char *what, wc_error *err)
{
	if (f->n == n && f->wavetable && f->workspace)
		return WC_OK;
	gsl_fft_real_wavetable_free(f->wavetable);
	gsl_fft_real_workspace_free(f->workspace);
	f->wavetable = gsl_fft_real_wavetable_alloc(n);
	f->workspace = gsl_fft_real_workspace_alloc(n);
	f->n = n;
	if (!f->wavetable || !f->workspace)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory (FFT of %zu)", what, n);
	return WC_OK;
}

/* Forward real FFT of x (n values) in place, GSL's halfcomplex layout. */
static int
fft_forward(wc_stats_fft *f, double *x, size_t n, const char *what, wc_error *err)
{
	int rc = fft_ready(f, n, what, err);
	if (rc != WC_OK)
		return rc;
	if (gsl_fft_real_transform(x, 1, n, f->wavetable, f->workspace) != GSL_SUCCESS)
		return wc_error_set(err, WC_EINVAL, "%s: FFT of %zu points failed", what, n);
	return WC_OK;
}

/* Remove the mean; 1 if the series is constant (to rounding). */
static int
demean(double *x, size_t n)
{
	double mean = gsl_stats_mean(x, 1, n), dev = 0.0;
	for (size_t i = 0; i < n; i++) {
		x[i] -= mean;
		if (fabs(x[i]) > dev)
			dev = fabs(x[i]);
	}
	return dev <= 1e-12 * fmax(1.0, fabs(mean));
}

/* |X_k|^2 from GSL's halfcomplex layout, k = 0..n/2. */
static double
halfcomplex_power(const double *x, size_t n, size_t k)
{
	if (k == 0)
		return x[0] * x[0];
	if (2 * k == n)
		return x[n - 1] * x[n - 1];
	return x[2 * k - 1] * x[2 * k - 1] + x[2 * k] * x[2 * k];
}

/* Shannon entropy of the periodogram k = 1..m/2 of the transform in buf,
 * over log(m/2); NaN when the spectrum is empty. */
static double
entropy_of_spectrum(const double *buf, size_t m)
{
	size_t nbins = m / 2;
	double total = 0.0, h = 0.0;
	for (size_t k = 1; k <= nbins; k++)
		total += halfcomplex_power(buf, m, k);
	if (!(total > 0))
		return NAN;
	for (size_t k = 1; k <= nbins; k++) {
		double q = halfcomplex_power(buf, m, k) / total;
		if (q > 0)
			h -= q * log(q);
	}
	return h / log((double)nbins);
}

int
wc_stats_spectral_entropy(const double *x, size_t len, wc_stats_fft *f, double *out,
                          wc_error *err)
{
	wc_stats_fft own = { 0 };
	wc_stats_fft *use = f ? f : &own;
	int rc = WC_OK;
	*out = NAN;
	if (len < 8)
		return WC_OK;
	size_t m = wc_stats_smooth_floor(len);
	if ((rc = fft_reserve(use, m, "spectral entropy", err)) != WC_OK)
		goto done;
	memcpy(use->buf, x, m * sizeof *x);
	if (demean(use->buf, m))
		goto done; /* a constant series has no spectrum: NaN */
	if ((rc = fft_forward(use, use->buf, m, "spectral entropy", err)) != WC_OK)
		goto done;
	*out = entropy_of_spectrum(use->buf, m);
done:
	if (!f)
		wc_stats_fft_clear(&own);
	return rc;
}

/* The forward transform in `buf` (n values) turned into the
 * autocovariance: power spectrum in halfcomplex form (imaginary parts 0),
 * then back; Wiener-Khinchin gives sum_j x_j x_{j+k}. */
static int
inverse_power(double *buf, size_t n, wc_error *err)
{
	gsl_fft_halfcomplex_wavetable *hw = NULL;
	gsl_fft_real_workspace *ws = NULL;
	int rc = WC_OK;
	buf[0] = buf[0] * buf[0];
	for (size_t k = 1; 2 * k < n; k++) {
		buf[2 * k - 1] = halfcomplex_power(buf, n, k);
		buf[2 * k] = 0.0;
	}
	if (n % 2 == 0)
		buf[n - 1] = buf[n - 1] * buf[n - 1];
	hw = gsl_fft_halfcomplex_wavetable_alloc(n);
	ws = gsl_fft_real_workspace_alloc(n);
	if (!hw || !ws)
		rc = wc_error_set(err, WC_ENOMEM, "autocovariance: out of memory (FFT of %zu)", n);
	else if (gsl_fft_halfcomplex_inverse(buf, 1, n, hw, ws) != GSL_SUCCESS)
		rc = wc_error_set(err, WC_EINVAL, "autocovariance: inverse FFT of %zu points failed", n);
	gsl_fft_halfcomplex_wavetable_free(hw);
	gsl_fft_real_workspace_free(ws);
	return rc;
}

int
wc_stats_autocovariance(const double *x, size_t len, double **acov, wc_error *err)
{
	*acov = NULL;
	if (len < 2)
		return WC_OK;
	/* Zero padding to >= 2*len makes the circular correlation linear. */
	size_t n = wc_stats_smooth_ceil(2 * len);
	double *buf = wc_alloc_array(n, sizeof *buf);
	wc_stats_fft f = { 0 };
	int rc = WC_OK;
	if (!buf)
		return wc_error_set(err, WC_ENOMEM, "autocovariance: out of memory (%zu values)", n);
	memset(buf, 0, n * sizeof *buf);
	memcpy(buf, x, len * sizeof *buf);
	if (demean(buf, len))
		goto done; /* constant: no autocovariance */
	if ((rc = fft_forward(&f, buf, n, "autocovariance", err)) != WC_OK ||
	    (rc = inverse_power(buf, n, err)) != WC_OK)
		goto done;
	*acov = buf;
	buf = NULL;
done:
	wc_stats_fft_clear(&f);
	free(buf);
	return rc;
}

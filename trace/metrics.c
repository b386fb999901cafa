/*
 * Grid-facing metrics of a power trace (docs/trace-metrics.md): energy (trapezoid), the
 * power distribution (p5/p50/p95/max), the ramping rate on 1-s means, the
 * normalised spectral entropy and the dominant period from the
 * autocorrelation. Plain arrays in, numbers out, so that measured traces
 * (data/ingest) and simulated ones (predict/) share one definition.
 *
 * The trace is read as the piecewise-linear curve through its samples.
 * Every resampling (1-s means, the uniform grid of the spectrum) is an
 * exact bin average of that curve, so it agrees with the trapezoidal energy
 * and needs no assumption about regular sampling. Sorting, quantiles and
 * FFTs are GSL's.
 */
#include "trace/metrics.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include "models/grow.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void
wc_trace_metrics_init(wc_trace_metrics *m)
{
	m->samples = 0;
	m->duration_s = m->energy_j = m->mean_w = NAN;
	m->p5_w = m->p50_w = m->p95_w = m->max_w = NAN;
	m->ramp_w_per_s = m->ramp_p95_w_per_s = NAN;
	m->spectral_entropy = m->period_s = m->grid_s = NAN;
}

double
wc_trace_energy(const double *t, const double *p, size_t n)
{
	double e = 0.0;
	for (size_t i = 1; i < n; i++)
		e += 0.5 * (p[i - 1] + p[i]) * (t[i] - t[i - 1]);
	return e;
}

double
wc_trace_quantile(const double *p, size_t n, double q, double *scratch)
{
	if (n == 0)
		return NAN;
	memcpy(scratch, p, n * sizeof *p);
	gsl_sort(scratch, 1, n);
	return gsl_stats_quantile_from_sorted_data(scratch, 1, n, q);
}

/* ------------------------------------------------------------ bin means */

void
wc_trace_binner_init(wc_trace_binner *b, double width)
{
	memset(b, 0, sizeof *b);
	b->width = width;
}

void
wc_trace_binner_push(wc_trace_binner *b, double t, double p,
                     void (*emit)(double mean, void *payload), void *payload)
{
	if (!b->started) {
		b->t0 = b->t_prev = t;
		b->p_prev = b->ref = p;
		b->started = 1;
		return;
	}
	double ta = b->t_prev, pa = b->p_prev;
	if (t > ta) {
		for (;;) {
			/* Bin ends are recomputed from t0, never accumulated, so
			 * long traces do not drift off the whole seconds. */
			double end = b->t0 + (double)(b->bin + 1) * b->width;
			if (t < end) {
				b->area += (0.5 * (pa + p) - b->ref) * (t - ta);
				break;
			}
			double pe = pa + (p - pa) * ((end - ta) / (t - ta));
			b->area += (0.5 * (pa + pe) - b->ref) * (end - ta);
			emit(b->ref + b->area / b->width, payload);
			b->bin++;
			b->area = 0.0;
			b->ref = pe;
			ta = end;
			pa = pe;
		}
	}
	/* Equal timestamps: a jump of zero width; the curve continues from
	 * the later value, as in the trapezoid sum. */
	b->t_prev = t;
	b->p_prev = p;
}

typedef struct {
	double *out;
	size_t cap, count;
} bin_sink;

static void
bin_sink_emit(double mean, void *payload)
{
	bin_sink *s = payload;
	if (s->count < s->cap)
		s->out[s->count] = mean;
	s->count++;
}

size_t
wc_trace_bin_means(const double *t, const double *p, size_t n, double width, double *out,
                   size_t cap)
{
	wc_trace_binner b;
	bin_sink sink = { out, cap, 0 };
	if (!(width > 0))
		return 0;
	wc_trace_binner_init(&b, width);
	for (size_t i = 0; i < n; i++)
		wc_trace_binner_push(&b, t[i], p[i], bin_sink_emit, &sink);
	return sink.count < cap || cap == 0 ? sink.count : cap;
}

/* ----------------------------------------------------------------- ramp */

int
wc_trace_ramp(const double *means, size_t len, double width, double *mean_out,
              double *p95_out, wc_error *err)
{
	*mean_out = *p95_out = NAN;
	if (len < 2 || !(width > 0))
		return WC_OK;
	size_t nd = len - 1;
	double *d = wc_alloc_array(nd, sizeof *d);
	if (!d)
		return wc_error_set(err, WC_ENOMEM, "ramp: out of memory (%zu values)", nd);
	double sum = 0.0;
	for (size_t k = 0; k < nd; k++) {
		d[k] = fabs(means[k + 1] - means[k]) / width;
		sum += d[k];
	}
	*mean_out = sum / (double)nd;
	gsl_sort(d, 1, nd);
	*p95_out = gsl_stats_quantile_from_sorted_data(d, 1, nd, 0.95);
	free(d);
	return WC_OK;
}

/* ------------------------------------------------------- FFT utilities */

/* Largest / smallest 2^a 3^b 5^c below / above n: GSL's mixed-radix FFT is
 * fast for these factors and O(n*p) for a large prime factor p. */
static size_t
smooth_floor(size_t n)
{
	size_t best = 1;
	for (size_t a = 1; a <= n; a *= 2)
		for (size_t b = a; b <= n; b *= 3)
			for (size_t c = b; c <= n; c *= 5)
				if (c > best)
					best = c;
	return best;
}

static size_t
smooth_ceil(size_t n)
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

/* Forward real FFT in place (GSL halfcomplex layout). */
static int
fft_forward(double *x, size_t n, const char *what, wc_error *err)
{
	gsl_fft_real_wavetable *wt = gsl_fft_real_wavetable_alloc(n);
	gsl_fft_real_workspace *ws = gsl_fft_real_workspace_alloc(n);
	int rc = WC_OK;
	if (!wt || !ws)
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory (FFT of %zu)", what, n);
	else if (gsl_fft_real_transform(x, 1, n, wt, ws) != GSL_SUCCESS)
		rc = wc_error_set(err, WC_EINVAL, "%s: FFT of %zu points failed", what, n);
	gsl_fft_real_wavetable_free(wt);
	gsl_fft_real_workspace_free(ws);
	return rc;
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

/* ------------------------------------------------------ spectral entropy */

int
wc_trace_spectral_entropy(const double *x, size_t len, double *out, wc_error *err)
{
	*out = NAN;
	if (len < 8)
		return WC_OK;
	size_t m = smooth_floor(len), nbins = m / 2;
	double *buf = wc_alloc_array(m, sizeof *buf);
	if (!buf)
		return wc_error_set(err, WC_ENOMEM, "spectral entropy: out of memory (%zu values)", m);
	memcpy(buf, x, m * sizeof *buf);
	int rc = WC_OK;
	if (demean(buf, m))
		goto done; /* a constant trace has no spectrum: NaN */
	if ((rc = fft_forward(buf, m, "spectral entropy", err)) != WC_OK)
		goto done;
	double total = 0.0, h = 0.0;
	for (size_t k = 1; k <= nbins; k++)
		total += halfcomplex_power(buf, m, k);
	if (!(total > 0))
		goto done;
	for (size_t k = 1; k <= nbins; k++) {
		double q = halfcomplex_power(buf, m, k) / total;
		if (q > 0)
			h -= q * log(q);
	}
	*out = h / log((double)nbins);
done:
	free(buf);
	return rc;
}

/* ------------------------------------------------------- dominant period */

/* The forward transform in `buf` (n values) turned into the
 * autocovariance: power spectrum in halfcomplex form (imaginary parts 0),
 * then back; Wiener-Khinchin gives sum_j x_j x_{j+k}. */
static int
autocovariance(double *buf, size_t n, wc_error *err)
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
		rc = wc_error_set(err, WC_ENOMEM, "period: out of memory (FFT of %zu)", n);
	else if (gsl_fft_halfcomplex_inverse(buf, 1, n, hw, ws) != GSL_SUCCESS)
		rc = wc_error_set(err, WC_EINVAL, "period: inverse FFT of %zu points failed", n);
	gsl_fft_halfcomplex_wavetable_free(hw);
	gsl_fft_real_workspace_free(ws);
	return rc;
}

/* The period from the autocovariance `buf` (buf[0] > 0) at lags
 * [kmin, kmax]; NAN when no peak is strong enough. */
static double
period_from_acov(const double *buf, size_t kmin, size_t kmax, double dt)
{
	double r0 = buf[0], best = -INFINITY;
	size_t kbest = 0;
	for (size_t k = kmin; k <= kmax; k++) {
		double r = buf[k] / r0;
		if (r > buf[k - 1] / r0 && r >= buf[k + 1] / r0 && r > best)
			best = r;
	}
	if (best < WC_TRACE_PERIOD_MIN_ACF)
		return NAN;
	/* A periodic trace peaks at every multiple of its period, and when the
	 * period is not a whole number of samples a multiple can come out a
	 * little higher than the period itself: take the first peak that is
	 * nearly as high as the strongest. */
	for (size_t k = kmin; k <= kmax; k++) {
		double r = buf[k] / r0;
		if (r > buf[k - 1] / r0 && r >= buf[k + 1] / r0 &&
		    r >= WC_TRACE_PERIOD_NEAR_BEST * best) {
			kbest = k;
			break;
		}
	}
	/* Parabola through the peak and its neighbours: sub-sample lag. */
	double a = buf[kbest - 1], b = buf[kbest], c = buf[kbest + 1];
	double denom = a - 2.0 * b + c, shift = 0.0;
	if (denom < 0) {
		shift = 0.5 * (a - c) / denom;
		if (shift > 0.5)
			shift = 0.5;
		if (shift < -0.5)
			shift = -0.5;
	}
	return ((double)kbest + shift) * dt;
}

int
wc_trace_dominant_period(const double *x, size_t len, double dt, double min_s, double max_s,
                         double *out, wc_error *err)
{
	*out = NAN;
	if (len < 4 || !(dt > 0) || !(max_s > min_s))
		return WC_OK;
	/* At least two periods must fit in the trace. */
	size_t kmax = (size_t)floor(fmin(max_s / dt, (double)(len / 2)));
	size_t kmin = (size_t)ceil(min_s / dt - 1e-9);
	if (kmin < 1)
		kmin = 1;
	if (kmax < kmin + 1)
		return WC_OK;
	/* Zero padding to >= 2*len makes the circular correlation linear. */
	size_t n = smooth_ceil(2 * len);
	double *buf = wc_alloc_zeroed(n, sizeof *buf);
	int rc = WC_OK;
	if (!buf)
		return wc_error_set(err, WC_ENOMEM, "period: out of memory (%zu values)", n);
	memcpy(buf, x, len * sizeof *buf);
	if (demean(buf, len))
		goto done;
	if ((rc = fft_forward(buf, n, "period", err)) != WC_OK)
		goto done;
	if ((rc = autocovariance(buf, n, err)) != WC_OK)
		goto done;
	if (buf[0] > 0)
		*out = period_from_acov(buf, kmin, kmax, dt);
done:
	free(buf);
	return rc;
}

/* The normalised autocorrelation itself, for callers that weigh several
 * candidate periods (fine-tuning steps against their micro-steps). */
int
wc_trace_autocorrelation(const double *x, size_t len, size_t max_lag, double *acf, wc_error *err)
{
	for (size_t k = 0; k <= max_lag; k++)
		acf[k] = NAN;
	if (len < 2)
		return WC_OK;
	size_t n = smooth_ceil(2 * len);
	double *buf = wc_alloc_zeroed(n, sizeof *buf);
	int rc = WC_OK;
	if (!buf)
		return wc_error_set(err, WC_ENOMEM, "autocorrelation: out of memory (%zu values)", n);
	memcpy(buf, x, len * sizeof *buf);
	if (demean(buf, len))
		goto done; /* constant: no autocorrelation */
	if ((rc = fft_forward(buf, n, "autocorrelation", err)) != WC_OK ||
	    (rc = autocovariance(buf, n, err)) != WC_OK)
		goto done;
	for (size_t k = 0; k <= max_lag && k < len && buf[0] > 0; k++)
		acf[k] = buf[k] / buf[0];
done:
	free(buf);
	return rc;
}

/* -------------------------------------------------------- all of them */

/* Finite samples in time order (equal timestamps allowed). */
static int
check_samples(const double *t, const double *p, size_t n, wc_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(t[i]) || !isfinite(p[i]))
			return wc_error_set(err, WC_EINVAL, "trace: sample %zu is not finite", i);
		if (i > 0 && t[i] < t[i - 1])
			return wc_error_set(err, WC_EINVAL,
			                    "trace: sample %zu goes back in time (%.3f s after %.3f s)",
			                    i, t[i], t[i - 1]);
	}
	return WC_OK;
}

int
wc_trace_metrics_compute(const double *t, const double *p, size_t n, wc_trace_metrics *out,
                         wc_error *err)
{
	double *scratch = NULL, *bins = NULL;
	int rc = WC_OK;
	wc_trace_metrics_init(out);
	out->samples = n;
	if ((rc = check_samples(t, p, n, err)) != WC_OK)
		return rc;
	if (n == 0)
		return WC_OK;
	out->duration_s = t[n - 1] - t[0];
	out->energy_j = wc_trace_energy(t, p, n);
	if (out->duration_s > 0)
		out->mean_w = out->energy_j / out->duration_s;

	scratch = wc_alloc_array(n, sizeof *scratch);
	if (!scratch) {
		rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu samples)", n);
		goto done;
	}
	memcpy(scratch, p, n * sizeof *p);
	gsl_sort(scratch, 1, n);
	out->p5_w = gsl_stats_quantile_from_sorted_data(scratch, 1, n, 0.05);
	out->p50_w = gsl_stats_quantile_from_sorted_data(scratch, 1, n, 0.50);
	out->p95_w = gsl_stats_quantile_from_sorted_data(scratch, 1, n, 0.95);
	out->max_w = scratch[n - 1];
	if (n < 2 || !(out->duration_s > 0))
		goto done;

	/* Ramp on exact 1-s means. Bins are counted before anything walks
	 * them: a far-off timestamp must not cost a bin per second. */
	if (out->duration_s > (double)WC_TRACE_MAX_BINS) {
		rc = wc_error_set(err, WC_ERANGE, "trace: spans %.0f s, more than %zu 1-s means",
		                  out->duration_s, WC_TRACE_MAX_BINS);
		goto done;
	}
	size_t nb = wc_trace_bin_means(t, p, n, 1.0, NULL, 0);
	size_t cap = nb > n ? nb : n;
	bins = wc_alloc_array(cap ? cap : 1, sizeof *bins);
	if (!bins) {
		rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", cap);
		goto done;
	}
	wc_trace_bin_means(t, p, n, 1.0, bins, nb);
	if ((rc = wc_trace_ramp(bins, nb, 1.0, &out->ramp_w_per_s, &out->ramp_p95_w_per_s, err)))
		goto done;

	/* Uniform grid at the median sampling interval for the spectrum. */
	size_t nd = 0;
	for (size_t i = 1; i < n; i++)
		if (t[i] > t[i - 1])
			scratch[nd++] = t[i] - t[i - 1];
	if (nd == 0)
		goto done;
	gsl_sort(scratch, 1, nd);
	out->grid_s = gsl_stats_median_from_sorted_data(scratch, 1, nd);
	if (out->duration_s / out->grid_s > (double)WC_TRACE_MAX_BINS) {
		rc = wc_error_set(err, WC_ERANGE, "trace: spans %.0f s, more than %zu bins of %g s",
		                  out->duration_s, WC_TRACE_MAX_BINS, out->grid_s);
		out->grid_s = NAN;
		goto done;
	}
	size_t ng = wc_trace_bin_means(t, p, n, out->grid_s, NULL, 0);
	if (ng > cap) {
		double *nbuf = wc_resize_array(bins, ng, sizeof *bins);
		if (!nbuf) {
			rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", ng);
			goto done;
		}
		bins = nbuf;
	}
	wc_trace_bin_means(t, p, n, out->grid_s, bins, ng);
	if ((rc = wc_trace_spectral_entropy(bins, ng, &out->spectral_entropy, err)))
		goto done;
	rc = wc_trace_dominant_period(bins, ng, out->grid_s, WC_TRACE_PERIOD_MIN_S,
	                              WC_TRACE_PERIOD_MAX_S, &out->period_s, err);
done:
	free(scratch);
	free(bins);
	return rc;
}

/* ------------------------------------------------ the metric columns */

static const struct {
	wc_trace_metric_column c;
	size_t offset;
} columns[] = {
	{ { "duration_s", "s", "length of the window" }, offsetof(wc_trace_metrics, duration_s) },
	{ { "energy_j", "J", "trapezoidal integral of the trace" }, offsetof(wc_trace_metrics, energy_j) },
	{ { "mean_w", "W", "energy / duration" }, offsetof(wc_trace_metrics, mean_w) },
	{ { "p5_w", "W", "5th percentile of the samples" }, offsetof(wc_trace_metrics, p5_w) },
	{ { "p50_w", "W", "median of the samples" }, offsetof(wc_trace_metrics, p50_w) },
	{ { "p95_w", "W", "95th percentile of the samples" }, offsetof(wc_trace_metrics, p95_w) },
	{ { "max_w", "W", "largest sample" }, offsetof(wc_trace_metrics, max_w) },
	{ { "ramp_w_per_s", "W/s", "mean |dP|/dt between consecutive 1-s means" },
	  offsetof(wc_trace_metrics, ramp_w_per_s) },
	{ { "ramp_p95_w_per_s", "W/s", "p95 of |dP|/dt between consecutive 1-s means" },
	  offsetof(wc_trace_metrics, ramp_p95_w_per_s) },
	{ { "spectral_entropy", "", "normalised Shannon entropy of the power spectrum" },
	  offsetof(wc_trace_metrics, spectral_entropy) },
	{ { "period_s", "s", "dominant autocorrelation period (0.5-120 s)" },
	  offsetof(wc_trace_metrics, period_s) },
};

size_t
wc_trace_metric_column_count(void)
{
	return sizeof columns / sizeof columns[0];
}

const wc_trace_metric_column *
wc_trace_metric_column_at(size_t i)
{
	return i < wc_trace_metric_column_count() ? &columns[i].c : NULL;
}

double
wc_trace_metric_value(const wc_trace_metrics *m, size_t i)
{
	if (i >= wc_trace_metric_column_count())
		return NAN;
	double v;
	memcpy(&v, (const char *)m + columns[i].offset, sizeof v);
	return v;
}

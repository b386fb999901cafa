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
 * and needs no assumption about regular sampling. Quantiles, bin means,
 * ramps and spectra are models/stats.h's, which simulated envelopes use too.
 */
#include "trace/metrics.h"

#include <math.h>
#include "models/grow.h"
#include "models/stats.h"
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

/* ------------------------------------------------------- dominant period */

double
wc_trace_peak_shift(const double *r, size_t max_lag, size_t k)
{
	if (k < 1 || k >= max_lag || !isfinite(r[k - 1]) || !isfinite(r[k]) || !isfinite(r[k + 1]))
		return 0.0;
	/* Parabola through the peak and its neighbours: sub-sample lag. */
	double a = r[k - 1], b = r[k], c = r[k + 1];
	double denom = a - 2.0 * b + c, shift = 0.0;
	if (denom < 0) {
		shift = 0.5 * (a - c) / denom;
		if (shift > 0.5)
			shift = 0.5;
		if (shift < -0.5)
			shift = -0.5;
	}
	return shift;
}

double
wc_trace_peak_read(const double *r, size_t max_lag, size_t k, double off)
{
	/* Linear between the lags beside it: the correlation of the trace
	 * with its shift by a fractional lag, the trace read as the
	 * piecewise-linear curve through its samples. */
	double x = fmin(fmax((double)k + wc_trace_peak_shift(r, max_lag, k) + off, 1.0), (double)max_lag);
	size_t i = (size_t)floor(x);
	double f = x - (double)i;
	return i < max_lag ? (1.0 - f) * r[i] + f * r[i + 1] : r[i];
}

/* The period from the autocovariance `buf` (buf[0] > 0) at lags
 * [kmin, kmax]; NAN when no peak is strong enough. */
static double
period_from_acov(const double *buf, size_t kmin, size_t kmax, double dt)
{
	double r0 = buf[0], best = -INFINITY;
	size_t kbest = 0, kstrong = 0;
	for (size_t k = kmin; k <= kmax; k++) {
		double r = buf[k] / r0;
		if (r > buf[k - 1] / r0 && r >= buf[k + 1] / r0 && r > best) {
			best = r;
			kstrong = k;
		}
	}
	if (best < WC_TRACE_PERIOD_MIN_ACF)
		return NAN;
	/* A periodic trace peaks at every multiple of its period, and when the
	 * period is not a whole number of samples a multiple can come out
	 * higher than the period itself: a period of 15.5 samples is read
	 * half a lag off its top, its double on it. Take the first peak that
	 * is nearly as high as the strongest read at the same distance from
	 * its top (docs/trace-metrics.md). */
	for (size_t k = kmin; k <= kmax; k++) {
		double r = buf[k] / r0;
		if (r > buf[k - 1] / r0 && r >= buf[k + 1] / r0 &&
		    r >= WC_TRACE_PERIOD_NEAR_BEST *
		         wc_trace_peak_read(buf, kmax + 1, kstrong, -wc_trace_peak_shift(buf, kmax + 1, k)) / r0) {
			kbest = k;
			break;
		}
	}
	return ((double)kbest + wc_trace_peak_shift(buf, kmax + 1, kbest)) * dt;
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
	double *acov = NULL;
	int rc = wc_stats_autocovariance(x, len, &acov, err);
	if (rc == WC_OK && acov && acov[0] > 0)
		*out = period_from_acov(acov, kmin, kmax, dt);
	free(acov);
	return rc;
}

/* The normalised autocorrelation itself, for callers that weigh several
 * candidate periods (fine-tuning steps against their micro-steps). */
int
wc_trace_autocorrelation(const double *x, size_t len, size_t max_lag, double *acf, wc_error *err)
{
	for (size_t k = 0; k <= max_lag; k++)
		acf[k] = NAN;
	double *acov = NULL;
	int rc = wc_stats_autocovariance(x, len, &acov, err);
	for (size_t k = 0; k <= max_lag && k < len && acov && acov[0] > 0; k++)
		acf[k] = acov[k] / acov[0];
	free(acov);
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
	return wc_trace_metrics_compute_span(t, p, n, 0, n, out, err);
}

int
wc_trace_metrics_compute_span(const double *t, const double *p, size_t n, size_t s0, size_t ns,
                              wc_trace_metrics *out, wc_error *err)
{
	double *scratch = NULL, *bins = NULL;
	int rc = WC_OK;
	wc_trace_metrics_init(out);
	if (s0 > n || ns > n - s0)
		return wc_error_set(err, WC_EINVAL, "trace: samples %zu..%zu beyond the %zu points", s0, s0 + ns, n);
	out->samples = ns;
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
	/* Of the samples only: a point a cut put on the curve is no sample
	 * (docs/trace-metrics.md, "The metrics"). */
	if (ns > 0) {
		out->p5_w = wc_stats_quantile(p + s0, ns, 0.05, scratch);
		out->p50_w = wc_stats_quantile_sorted(scratch, ns, 0.50);
		out->p95_w = wc_stats_quantile_sorted(scratch, ns, 0.95);
		out->max_w = scratch[ns - 1];
	}
	if (n < 2 || !(out->duration_s > 0))
		goto done;

	/* Ramp on exact 1-s means. Bins are counted before anything walks
	 * them: a far-off timestamp must not cost a bin per second. */
	if (out->duration_s > (double)WC_TRACE_MAX_BINS) {
		rc = wc_error_set(err, WC_ERANGE, "trace: spans %.0f s, more than %zu 1-s means",
		                  out->duration_s, WC_TRACE_MAX_BINS);
		goto done;
	}
	size_t nb = wc_stats_bin_means(t, p, n, 1.0, NULL, 0);
	size_t cap = nb > n ? nb : n;
	bins = wc_alloc_array(cap ? cap : 1, sizeof *bins);
	if (!bins) {
		rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", cap);
		goto done;
	}
	wc_stats_bin_means(t, p, n, 1.0, bins, nb);
	/* The ramps' scratch (nb - 1 values): the sorted samples are done. */
	double *grown = wc_resize_array(scratch, cap ? cap : 1, sizeof *scratch);
	if (!grown) {
		rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", cap);
		goto done;
	}
	scratch = grown;
	wc_stats_ramp(bins, nb, 1.0, scratch, &out->ramp_w_per_s, &out->ramp_p95_w_per_s);

	/* Uniform grid at the median sampling interval for the spectrum. */
	size_t nd = 0;
	for (size_t i = 1; i < n; i++)
		if (t[i] > t[i - 1])
			scratch[nd++] = t[i] - t[i - 1];
	if (nd == 0)
		goto done;
	out->grid_s = wc_stats_median(scratch, nd);
	if (out->duration_s / out->grid_s > (double)WC_TRACE_MAX_BINS) {
		rc = wc_error_set(err, WC_ERANGE, "trace: spans %.0f s, more than %zu bins of %g s",
		                  out->duration_s, WC_TRACE_MAX_BINS, out->grid_s);
		out->grid_s = NAN;
		goto done;
	}
	size_t ng = wc_stats_bin_means(t, p, n, out->grid_s, NULL, 0);
	if (ng > cap) {
		double *nbuf = wc_resize_array(bins, ng, sizeof *bins);
		if (!nbuf) {
			rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", ng);
			goto done;
		}
		bins = nbuf;
	}
	wc_stats_bin_means(t, p, n, out->grid_s, bins, ng);
	if ((rc = wc_stats_spectral_entropy(bins, ng, NULL, &out->spectral_entropy, err)))
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

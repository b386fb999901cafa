/*
 * Trace metrics of a simulated trace, with the definitions of
 * docs/trace-metrics.md that `ingest` applies to measured traces: power
 * percentiles with GSL's interpolation between order statistics, ramp
 * rates between exact 1-s means of the piecewise-linear trace, and the
 * normalised spectral entropy on exact bin means at the sampling
 * interval. predict/ cannot use trace/, so the definitions are applied
 * here to uniformly sampled traces; tests/test_envelope_metrics.c checks
 * that both give the same numbers on the same trace.
 */
#include "envelope_internal.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

double
wc__quantile_select(double *x, size_t n, double q)
{
	if (n == 0)
		return NAN;
	/* gsl_stats_quantile_from_sorted_data: (1-d) x(i) + d x(i+1), i = floor(q(n-1)),
	 * with the order statistics found by selection instead of a sort. */
	double index = q * (double)(n - 1);
	size_t lhs = (size_t)index;
	double delta = index - (double)lhs;
	double a = gsl_stats_select(x, 1, n, lhs);
	if (lhs == n - 1 || delta == 0.0)
		return a;
	/* x(i+1): a again if a repeats, else the smallest value above it. */
	size_t le = 0;
	double b = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (x[i] <= a)
			le++;
		else if (x[i] < b)
			b = x[i];
	}
	if (le >= lhs + 2)
		b = a;
	return (1.0 - delta) * a + delta * b;
}

/* Exact means of the piecewise-linear curve through p[i] at i*dt over
 * whole seconds from t = 0 (complete seconds only), as trace/'s binner. */
static size_t
second_means(const double *p, size_t n, double dt, double *out)
{
	size_t bin = 0, count = 0;
	double area = 0.0, ref = n ? p[0] : 0.0, ta = 0.0, pa = ref;
	for (size_t i = 1; i < n; i++) {
		double t = (double)i * dt, pt = p[i];
		for (;;) {
			double end = (double)(bin + 1);
			if (t < end) {
				area += (0.5 * (pa + pt) - ref) * (t - ta);
				break;
			}
			double pe = pa + (pt - pa) * ((end - ta) / (t - ta));
			area += (0.5 * (pa + pe) - ref) * (end - ta);
			out[count++] = ref + area;
			bin++;
			area = 0.0;
			ref = pe;
			ta = end;
			pa = pe;
		}
		ta = t;
		pa = pt;
	}
	return count;
}

/* Ramp of p[0..n) sampled every dt; `m` holds n*dt + 2 doubles. */
static void
ramp_into(const double *p, size_t n, double dt, double *m, double *mean_out, double *p95_out)
{
	*mean_out = *p95_out = NAN;
	size_t nb = n > 1 ? second_means(p, n, dt, m) : 0;
	if (nb < 2)
		return;
	double sum = 0.0;
	for (size_t k = 0; k + 1 < nb; k++) {
		m[k] = fabs(m[k + 1] - m[k]);
		sum += m[k];
	}
	*mean_out = sum / (double)(nb - 1);
	*p95_out = wc__quantile_select(m, nb - 1, 0.95);
}

void
wc_envelope_ramp(const double *p, size_t n, double dt, double *mean_out, double *p95_out)
{
	*mean_out = *p95_out = NAN;
	double *m = wc_alloc_array((size_t)((double)n * dt) + 2, sizeof *m);
	if (m)
		ramp_into(p, n, dt, m, mean_out, p95_out);
	free(m);
}

/* ------------------------------------------------------ spectral entropy */

/* Largest 2^a 3^b 5^c <= n (GSL's mixed-radix FFT is fast for these). */
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

static double
halfcomplex_power(const double *x, size_t n, size_t k)
{
	if (2 * k == n)
		return x[n - 1] * x[n - 1];
	return x[2 * k - 1] * x[2 * k - 1] + x[2 * k] * x[2 * k];
}

/* FFT tables kept between traces of one length (one worker's). */
static int
fft_tables(wc__stats_ws *ws, size_t m, wc_error *err)
{
	if (ws->fft_n == m && ws->wt && ws->fw)
		return WC_OK;
	gsl_fft_real_wavetable_free(ws->wt);
	gsl_fft_real_workspace_free(ws->fw);
	ws->wt = gsl_fft_real_wavetable_alloc(m);
	ws->fw = gsl_fft_real_workspace_alloc(m);
	ws->fft_n = m;
	if (!ws->wt || !ws->fw)
		return wc_error_set(err, WC_ENOMEM, "spectral entropy: out of memory (FFT of %zu)", m);
	return WC_OK;
}

/* Entropy of the periodogram of x (len values), normalised; NaN when too
 * short or constant. `buf` holds len doubles. */
static int
entropy_of(const double *x, size_t len, double *buf, wc__stats_ws *ws, double *out, wc_error *err)
{
	*out = NAN;
	if (len < 8)
		return WC_OK;
	size_t m = smooth_floor(len), nbins = m / 2;
	double sum = 0.0, dev = 0.0;
	for (size_t i = 0; i < m; i++)
		sum += x[i];
	double mean = sum / (double)m;
	for (size_t i = 0; i < m; i++) {
		buf[i] = x[i] - mean;
		double a = fabs(buf[i]);
		if (a > dev)
			dev = a;
	}
	if (dev <= 1e-12 * fmax(1.0, fabs(mean)))
		return WC_OK;
	int rc = fft_tables(ws, m, err);
	if (rc != WC_OK)
		return rc;
	if (gsl_fft_real_transform(buf, 1, m, ws->wt, ws->fw) != GSL_SUCCESS)
		return wc_error_set(err, WC_EINVAL, "spectral entropy: FFT of %zu points failed", m);
	double total = 0.0, h = 0.0;
	for (size_t k = 1; k <= nbins; k++)
		total += halfcomplex_power(buf, m, k);
	if (!(total > 0))
		return WC_OK;
	for (size_t k = 1; k <= nbins; k++) {
		double q = halfcomplex_power(buf, m, k) / total;
		if (q > 0)
			h -= q * log(q);
	}
	*out = h / log((double)nbins);
	return WC_OK;
}

/* Entropy of the samples p[0..n) on exact means over one sampling
 * interval from the first; `buf` holds 2n doubles. */
static int
entropy_into(const double *p, size_t n, double *buf, wc__stats_ws *ws, double *out, wc_error *err)
{
	*out = NAN;
	if (n < 2)
		return WC_OK;
	for (size_t i = 0; i + 1 < n; i++)
		buf[i] = 0.5 * (p[i] + p[i + 1]);
	return entropy_of(buf, n - 1, buf + (n - 1), ws, out, err);
}

int
wc_envelope_spectral_entropy(const double *p, size_t n, double *out, wc_error *err)
{
	wc__stats_ws ws = { 0 };
	*out = NAN;
	double *buf = n > 1 ? wc_alloc_array(2 * n, sizeof *buf) : NULL;
	if (n > 1 && !buf)
		return wc_error_set(err, WC_ENOMEM, "spectral entropy: out of memory (%zu values)", n);
	int rc = entropy_into(p, n, buf, &ws, out, err);
	wc__stats_ws_clear(&ws);
	free(buf);
	return rc;
}

int
wc__stats_ws_reserve(wc__stats_ws *ws, size_t len)
{
	if (ws->cap >= len)
		return WC_OK;
	double *b = wc_resize_array(ws->buf, 4 * len + 4, sizeof *b);
	if (!b)
		return WC_ENOMEM;
	ws->buf = b;
	ws->cap = len;
	return WC_OK;
}

void
wc__stats_ws_clear(wc__stats_ws *ws)
{
	free(ws->buf);
	gsl_fft_real_wavetable_free(ws->wt);
	gsl_fft_real_workspace_free(ws->fw);
	memset(ws, 0, sizeof *ws);
}

/* ------------------------------------------------------ one trace */

void
wc__bin_means(const double *x, size_t len, size_t stride, size_t n_bins, double *out)
{
	for (size_t b = 0; b < n_bins; b++) {
		size_t a = b * stride, e = a + stride < len ? a + stride : len;
		double s = 0.0;
		for (size_t k = a; k < e; k++)
			s += x[k];
		out[b] = s / (double)(e - a);
	}
}

int
wc__trace_stats_compute(const double *y, size_t len, double dt, size_t stride, wc__stats_ws *ws,
                        wc__trace_stats *out, wc_error *err)
{
	if (wc__stats_ws_reserve(ws, len) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory (%zu samples)", len);
	double energy = 0.0, *samples = ws->buf, *work = ws->buf + len + 1;
	for (size_t k = 0; k < len; k++)
		energy += y[k];
	out->energy_j = energy * dt;
	out->mean_w = len ? energy / (double)len : NAN;
	size_t ns = len ? (len - 1) / stride + 1 : 0;
	double mx = -INFINITY;
	for (size_t j = 0; j < ns; j++) {
		work[j] = samples[j] = y[j * stride];
		if (samples[j] > mx)
			mx = samples[j];
	}
	out->max_w = ns ? mx : NAN;
	out->p5_w = wc__quantile_select(work, ns, 0.05);
	out->p50_w = wc__quantile_select(work, ns, 0.50);
	out->p95_w = wc__quantile_select(work, ns, 0.95);
	ramp_into(samples, ns, dt * (double)stride, work, &out->ramp_w_per_s, &out->ramp_p95_w_per_s);
	return entropy_into(samples, ns, work, ws, &out->spectral_entropy, err);
}

/* ------------------------------------------------- the stat columns */

static const size_t trace_offsets[WC__TRACE_STAT_COUNT] = {
	offsetof(wc__trace_stats, mean_w), offsetof(wc__trace_stats, p5_w),
	offsetof(wc__trace_stats, p50_w), offsetof(wc__trace_stats, p95_w),
	offsetof(wc__trace_stats, max_w), offsetof(wc__trace_stats, ramp_w_per_s),
	offsetof(wc__trace_stats, ramp_p95_w_per_s), offsetof(wc__trace_stats, spectral_entropy),
	offsetof(wc__trace_stats, energy_j), offsetof(wc__trace_stats, energy_per_token_j),
	offsetof(wc__trace_stats, mean_running), offsetof(wc__trace_stats, output_tokens),
};

static const size_t summary_offsets[WC__TRACE_STAT_COUNT] = {
	offsetof(wc_envelope_summary, mean_w), offsetof(wc_envelope_summary, p5_w),
	offsetof(wc_envelope_summary, p50_w), offsetof(wc_envelope_summary, p95_w),
	offsetof(wc_envelope_summary, max_w), offsetof(wc_envelope_summary, ramp_w_per_s),
	offsetof(wc_envelope_summary, ramp_p95_w_per_s), offsetof(wc_envelope_summary, spectral_entropy),
	offsetof(wc_envelope_summary, energy_j), offsetof(wc_envelope_summary, energy_per_token_j),
	offsetof(wc_envelope_summary, mean_running), offsetof(wc_envelope_summary, output_tokens),
};

double
wc__trace_stat_get(const wc__trace_stats *s, int i)
{
	double v;
	memcpy(&v, (const char *)s + trace_offsets[i], sizeof v);
	return v;
}

wc_envelope_stat *
wc__summary_slot(wc_envelope_summary *s, int i)
{
	return (wc_envelope_stat *)(void *)((char *)s + summary_offsets[i]);
}

/*
 * Trace metrics (docs/trace-metrics.md) of a trace pushed one sample at a time, in
 * memory that does not grow with the trace: `wattcast metrics` on a log of
 * any size. Up to `exact_max` samples every sample is kept and the metrics
 * are models/'s exact ones. Beyond that the trace switches to bounded mode:
 * running sums for energy, mean, max and the mean ramp; log-bucket
 * histograms (HDR-style: the exponent and top 12 mantissa bits of the
 * double) for the power and ramp quantiles; and the 1-s means, merged
 * pairwise whenever their buffer fills, for the spectrum and period.
 */
#include "trace/stream.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* Buckets: 2^-7 .. 2^24 (W or W/s: a fleet of a few thousand GPUs) in 31
 * octaves of 4096; relative half-width 2^-13 = 1.2e-4. Below: one bucket
 * standing for 0; above: the top bucket. */
#define SK_BITS 12
#define SK_EMIN 1016
#define SK_EMAX 1047
#define SK_BUCKETS ((size_t)(SK_EMAX - SK_EMIN) << SK_BITS)

typedef struct {
	uint32_t *count;
	size_t zero, n;
} sketch;

static void
sk_add(sketch *s, double x)
{
	s->n++;
	if (!(x >= 0x1p-7)) {
		s->zero++;
		return;
	}
	if (x >= 0x1p24)
		x = 0x1.fffffffffffffp23;
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	unsigned e = (unsigned)(bits >> 52) & 0x7ff;
	size_t m = (size_t)(bits >> (52 - SK_BITS)) & (((size_t)1 << SK_BITS) - 1);
	s->count[((size_t)(e - SK_EMIN) << SK_BITS) + m]++;
}

/* Value standing for the order statistic of rank r (0-based). */
static double
sk_rank(const sketch *s, size_t r)
{
	if (r < s->zero)
		return 0.0;
	r -= s->zero;
	for (size_t b = 0; b < SK_BUCKETS; b++) {
		if (r < s->count[b]) {
			int e = (int)(b >> SK_BITS) + SK_EMIN - 1023;
			double m = (double)(b & (((size_t)1 << SK_BITS) - 1));
			return ldexp(1.0 + (m + 0.5) / (double)(1 << SK_BITS), e);
		}
		r -= s->count[b];
	}
	return NAN;
}

/* GSL's quantile definition (rank q*(n-1), linear between neighbours). */
static double
sk_quantile(const sketch *s, double q)
{
	if (s->n == 0)
		return NAN;
	double h = q * (double)(s->n - 1);
	size_t lo = (size_t)floor(h);
	double a = sk_rank(s, lo), b = lo + 1 < s->n ? sk_rank(s, lo + 1) : a;
	return a + (h - (double)lo) * (b - a);
}

struct wc_trace_stream {
	size_t exact_max, n, cap;
	int exact, early;            /* early: wc_trace_stream_bound left exact mode */
	double t0, t_last, p_last, energy, max;
	double *t, *p;               /* exact mode: every sample */
	wc_stats_binner bin1;        /* 1-s means, always */
	int have_prev;
	double prev_mean, ramp_sum;
	size_t ramp_n;
	sketch power, ramp;          /* bounded mode */
	double *bins;                /* 1-s means, merged by `merge` */
	size_t nbins, merge, acc_n;
	double acc_sum;
};

wc_trace_stream *
wc_trace_stream_new(size_t exact_max)
{
	wc_trace_stream *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->exact_max = exact_max ? exact_max : WC_TRACE_STREAM_EXACT_MAX;
	s->exact = 1;
	s->merge = 1;
	s->max = -INFINITY;
	wc_stats_binner_init(&s->bin1, 1.0);
	s->bins = wc_alloc_array(WC_TRACE_STREAM_BINS_MAX, sizeof *s->bins);
	if (!s->bins) {
		free(s);
		return NULL;
	}
	return s;
}

void
wc_trace_stream_free(wc_trace_stream *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->p);
	free(s->power.count);
	free(s->ramp.count);
	free(s->bins);
	free(s);
}

/* A completed 1-s mean: ramp sums, and the (merging) bin buffer. */
static void
on_second(double mean, void *payload)
{
	wc_trace_stream *s = payload;
	if (s->have_prev) {
		double d = fabs(mean - s->prev_mean);
		s->ramp_sum += d;
		s->ramp_n++;
		if (!s->exact)
			sk_add(&s->ramp, d);
	}
	s->have_prev = 1;
	s->prev_mean = mean;
	s->acc_sum += mean;
	if (++s->acc_n < s->merge)
		return;
	s->bins[s->nbins++] = s->acc_sum / (double)s->acc_n;
	s->acc_sum = 0.0;
	s->acc_n = 0;
	if (s->nbins == WC_TRACE_STREAM_BINS_MAX) {
		for (size_t k = 0; k < s->nbins / 2; k++)
			s->bins[k] = 0.5 * (s->bins[2 * k] + s->bins[2 * k + 1]);
		s->nbins /= 2;
		s->merge *= 2;
	}
}

/* The ramps of the kept samples' 1-s means, one at a time (no array: the
 * span may hold far more seconds than samples). */
typedef struct {
	sketch *ramp;
	int have_prev;
	double prev;
} ramp_feed;

static void
feed_ramp(double mean, void *payload)
{
	ramp_feed *f = payload;
	if (f->have_prev)
		sk_add(f->ramp, fabs(mean - f->prev));
	f->have_prev = 1;
	f->prev = mean;
}

/* Leave exact mode: histogram what was kept, then drop it. */
static int
go_bounded(wc_trace_stream *s, wc_error *err)
{
	s->power.count = wc_alloc_zeroed(SK_BUCKETS, sizeof *s->power.count);
	s->ramp.count = wc_alloc_zeroed(SK_BUCKETS, sizeof *s->ramp.count);
	if (!s->power.count || !s->ramp.count)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	for (size_t i = 0; i < s->n; i++)
		sk_add(&s->power, s->p[i]);
	/* The ramps so far, from the same exact 1-s means the binner saw. */
	wc_stats_binner b;
	ramp_feed feed = { &s->ramp, 0, 0.0 };
	wc_stats_binner_init(&b, 1.0);
	for (size_t i = 0; i < s->n; i++)
		wc_stats_binner_push(&b, s->t[i], s->p[i], feed_ramp, &feed);
	free(s->t);
	free(s->p);
	s->t = s->p = NULL;
	s->exact = 0;
	return WC_OK;
}

int
wc_trace_stream_bound(wc_trace_stream *s, wc_error *err)
{
	if (!s->exact)
		return WC_OK;
	s->early = 1;
	return go_bounded(s, err);
}

int
wc_trace_stream_bound_too_early(const wc_trace_stream *s)
{
	return s->early && s->n <= s->exact_max;
}

int
wc_trace_stream_bound_early(size_t samples, size_t bytes_read, double file_bytes)
{
	if (file_bytes <= 0 || samples != WC_TRACE_STREAM_EARLY_LOOK || bytes_read == 0)
		return 0;
	double expected = (double)samples * file_bytes / (double)bytes_read;
	return expected >= WC_TRACE_STREAM_EARLY_MARGIN * (double)WC_TRACE_STREAM_EXACT_MAX;
}

int
wc_trace_stream_push(wc_trace_stream *s, double t, double p, wc_error *err)
{
	int rc;
	if (!isfinite(t) || !isfinite(p))
		return wc_error_set(err, WC_EINVAL, "trace: sample %zu is not finite", s->n);
	if (s->n > 0 && t < s->t_last)
		return wc_error_set(err, WC_EINVAL, "trace: sample %zu goes back in time", s->n);
	if (s->exact) {
		if (s->n == s->exact_max) {
			if ((rc = go_bounded(s, err)) != WC_OK)
				return rc;
		} else {
			if (s->n == s->cap) {
				size_t cap = wc_next_capacity(s->cap, s->n + 1, 4096, s->exact_max);
				double *nt = cap ? wc_resize_array(s->t, cap, sizeof *nt) : NULL;
				if (nt)
					s->t = nt;
				double *np = nt ? wc_resize_array(s->p, cap, sizeof *np) : NULL;
				if (np)
					s->p = np;
				if (!nt || !np)
					return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
				s->cap = cap;
			}
			s->t[s->n] = t;
			s->p[s->n] = p;
		}
	}
	if (!s->exact)
		sk_add(&s->power, p);
	if (s->n == 0)
		s->t0 = t;
	else
		s->energy += 0.5 * (s->p_last + p) * (t - s->t_last);
	if (p > s->max)
		s->max = p;
	wc_stats_binner_push(&s->bin1, t, p, on_second, s);
	s->t_last = t;
	s->p_last = p;
	s->n++;
	return WC_OK;
}

int
wc_trace_stream_finish(wc_trace_stream *s, wc_trace_metrics *out, int *exact, wc_error *err)
{
	int rc;
	*exact = s->exact;
	if (s->exact) {
		rc = wc_trace_metrics_compute(s->t, s->p, s->n, out, err);
		if (rc != WC_ERANGE)
			return rc;
		/* Too long a span for the exact bins (gaps up to
		 * WC_TELEMETRY_MAX_GAP_S between few samples): the bounded
		 * form, whose memory does not depend on the span. */
		if ((rc = go_bounded(s, err)) != WC_OK)
			return rc;
		*exact = 0;
	}
	wc_trace_metrics_init(out);
	out->samples = s->n;
	out->duration_s = s->t_last - s->t0;
	out->energy_j = s->energy;
	if (out->duration_s > 0)
		out->mean_w = s->energy / out->duration_s;
	out->p5_w = sk_quantile(&s->power, 0.05);
	out->p50_w = sk_quantile(&s->power, 0.50);
	out->p95_w = sk_quantile(&s->power, 0.95);
	out->max_w = s->max;
	if (s->ramp_n > 0) {
		out->ramp_w_per_s = s->ramp_sum / (double)s->ramp_n;
		out->ramp_p95_w_per_s = sk_quantile(&s->ramp, 0.95);
	}
	out->grid_s = (double)s->merge;
	if ((rc = wc_stats_spectral_entropy(s->bins, s->nbins, NULL, &out->spectral_entropy, err)) != WC_OK)
		return rc;
	return wc_trace_dominant_period(s->bins, s->nbins, out->grid_s, WC_TRACE_PERIOD_MIN_S,
	                                WC_TRACE_PERIOD_MAX_S, &out->period_s, err);
}

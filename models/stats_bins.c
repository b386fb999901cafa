/*
 * Bin means of a trace (models/stats.h, docs/trace-metrics.md): exact
 * means of the piecewise-linear curve through the samples over bins of a
 * fixed width, and plain block means of a uniform series.
 */
#include "models/stats.h"

#include <string.h>

void
wc_stats_binner_init(wc_stats_binner *b, double width)
{
	memset(b, 0, sizeof *b);
	b->width = width;
}

void
wc_stats_binner_push(wc_stats_binner *b, double t, double p,
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

static size_t
sink_count(const bin_sink *s)
{
	return s->count < s->cap || s->cap == 0 ? s->count : s->cap;
}

size_t
wc_stats_bin_means(const double *t, const double *p, size_t n, double width, double *out,
                   size_t cap)
{
	wc_stats_binner b;
	bin_sink sink = { out, cap, 0 };
	if (!(width > 0))
		return 0;
	wc_stats_binner_init(&b, width);
	for (size_t i = 0; i < n; i++)
		wc_stats_binner_push(&b, t[i], p[i], bin_sink_emit, &sink);
	return sink_count(&sink);
}

size_t
wc_stats_bin_means_uniform(const double *p, size_t n, double dt, double width, double *out,
                           size_t cap)
{
	wc_stats_binner b;
	bin_sink sink = { out, cap, 0 };
	if (!(width > 0) || !(dt > 0))
		return 0;
	wc_stats_binner_init(&b, width);
	for (size_t i = 0; i < n; i++)
		wc_stats_binner_push(&b, (double)i * dt, p[i], bin_sink_emit, &sink);
	return sink_count(&sink);
}

void
wc_stats_block_means(const double *x, size_t len, size_t stride, size_t n_bins, double *out)
{
	for (size_t b = 0; b < n_bins; b++) {
		size_t a = b * stride, e = a + stride < len ? a + stride : len;
		double s = 0.0;
		for (size_t k = a; k < e; k++)
			s += x[k];
		out[b] = s / (double)(e - a);
	}
}

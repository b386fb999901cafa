/*
 * Power levels of a trace (docs/trace-metrics.md, "Power levels"). The
 * k-means is exact in one dimension: clusters of sorted values are
 * contiguous, so dynamic programming over a histogram of the values finds
 * the partition of least squared error (no start points, no local
 * optimum, deterministic). Its WC_LEVELS_K clusters may cut one wide
 * state into pieces; neighbours closer than WC_LEVELS_SEPARATION pooled
 * standard deviations, and clusters of fewer than the caller's minimum
 * count of values, are merged, the closest pair first.
 */
#include "trace/levels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

typedef struct {
	double cnt, sum, sq;
} moments;

static double
sse(const moments *m)
{
	return m->cnt > 0 ? fmax(0.0, m->sq - m->sum * m->sum / m->cnt) : 0.0;
}

/* Moments of histogram bins [i, j] from prefix sums. */
static moments
range_of(const moments *pre, int i, int j)
{
	moments m = { pre[j + 1].cnt - pre[i].cnt, pre[j + 1].sum - pre[i].sum, pre[j + 1].sq - pre[i].sq };
	return m;
}

/* Exact k-means of the binned values: cluster c covers bins
 * [first[c], first[c+1]). Returns the clusters made (empty bins can make
 * fewer than k non-empty ones). */
static int
kmeans_bins(const moments *pre, int nb, int k, int *first)
{
	static const double inf = INFINITY;
	double cost[WC_LEVELS_K][WC_LEVELS_BINS];
	short from[WC_LEVELS_K][WC_LEVELS_BINS];
	for (int j = 0; j < nb; j++) {
		moments m = range_of(pre, 0, j);
		cost[0][j] = sse(&m);
		from[0][j] = 0;
	}
	for (int c = 1; c < k; c++)
		for (int j = 0; j < nb; j++) {
			cost[c][j] = inf;
			from[c][j] = (short)j;
			for (int i = c; i <= j; i++) {
				moments m = range_of(pre, i, j);
				double v = cost[c - 1][i - 1] + sse(&m);
				if (v < cost[c][j]) {
					cost[c][j] = v;
					from[c][j] = (short)i;
				}
			}
		}
	int kk = k < nb ? k : nb, j = nb - 1;
	for (int c = kk - 1; c >= 0; c--) {
		first[c] = c == 0 ? 0 : from[c][j];
		j = first[c] - 1;
	}
	first[kk] = nb;
	return kk;
}

/* Separation of neighbours a and a+1, in pooled standard deviations
 * (at least `res`, the histogram's resolution). */
static double
separation(const moments *c, int a, double res)
{
	double var = (sse(&c[a]) + sse(&c[a + 1])) / (c[a].cnt + c[a + 1].cnt);
	double gap = c[a + 1].sum / c[a + 1].cnt - c[a].sum / c[a].cnt;
	return gap / fmax(sqrt(var), res);
}

static void
merge(moments *c, int *n, int a)
{
	c[a].cnt += c[a + 1].cnt;
	c[a].sum += c[a + 1].sum;
	c[a].sq += c[a + 1].sq;
	memmove(c + a + 1, c + a + 2, (size_t)(*n - a - 2) * sizeof *c);
	(*n)--;
}

/* Merge until every cluster is big enough and every pair separated. */
static void
merge_close(moments *c, int *n, double res, double min_count)
{
	while (*n > 1) {
		int pick = -1;
		double worst = WC_LEVELS_SEPARATION;
		for (int a = 0; a + 1 < *n; a++) {
			double s = separation(c, a, res);
			int small = c[a].cnt < min_count || c[a + 1].cnt < min_count;
			if (small)
				s = -1.0 / (1.0 + s); /* below any separation: merged first */
			if (s < worst) {
				worst = s;
				pick = a;
			}
		}
		if (pick < 0)
			return;
		merge(c, n, pick);
	}
}

int
wc_trace_power_levels(const double *x, size_t n, size_t min_count, wc_power_levels *out, wc_error *err)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return wc_error_set(err, WC_EINVAL, "levels: no values");
	double lo = x[0], hi = x[0];
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return wc_error_set(err, WC_EINVAL, "levels: value %zu is not finite", i);
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	moments *pre = wc_alloc_array(WC_LEVELS_BINS + 1, sizeof *pre), c[WC_LEVELS_K];
	if (!pre)
		return wc_error_set(err, WC_ENOMEM, "levels: out of memory");
	memset(pre, 0, (WC_LEVELS_BINS + 1) * sizeof *pre);
	double width = (hi - lo) / WC_LEVELS_BINS;
	for (size_t i = 0; i < n; i++) {
		int b = width > 0 ? (int)((x[i] - lo) / width) : 0;
		b = b >= WC_LEVELS_BINS ? WC_LEVELS_BINS - 1 : b;
		pre[b + 1].cnt += 1.0;
		pre[b + 1].sum += x[i];
		pre[b + 1].sq += x[i] * x[i];
	}
	for (int b = 0; b < WC_LEVELS_BINS; b++) {
		pre[b + 1].cnt += pre[b].cnt;
		pre[b + 1].sum += pre[b].sum;
		pre[b + 1].sq += pre[b].sq;
	}
	int first[WC_LEVELS_K + 1] = { 0 }, k = width > 0 ? kmeans_bins(pre, WC_LEVELS_BINS, WC_LEVELS_K, first) : 1, m = 0;
	if (width <= 0) {
		first[0] = 0;
		first[1] = WC_LEVELS_BINS;
	}
	for (int a = 0; a < k; a++) {
		moments r = range_of(pre, first[a], first[a + 1] - 1);
		if (r.cnt > 0)
			c[m++] = r;
	}
	free(pre);
	merge_close(c, &m, width, (double)min_count);
	out->n = m;
	for (int a = 0; a < m; a++) {
		out->level[a] = c[a].sum / c[a].cnt;
		out->sd[a] = sqrt(sse(&c[a]) / c[a].cnt);
		out->share[a] = c[a].cnt / (double)n;
	}
	return WC_OK;
}

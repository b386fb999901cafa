/*
 * The weighted median (models/stats.h, docs/statistics.md, "Weighted
 * median"): the value at which the cumulative weight, values ascending,
 * reaches half the total.
 */
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>

static int
by_value(const void *a, const void *b)
{
	double x = ((const wc_stats_weighted *)a)->v, y = ((const wc_stats_weighted *)b)->v;
	return (x > y) - (x < y);
}

double
wc_stats_weighted_median(wc_stats_weighted *x, size_t n)
{
	if (n == 0)
		return NAN;
	/* The total in the callers' order, before the sort. */
	double total = 0.0;
	for (size_t i = 0; i < n; i++)
		total += x[i].w;
	qsort(x, n, sizeof *x, by_value);
	size_t k = 0;
	double c = x[0].w;
	while (k + 1 < n && c < 0.5 * total * (1 - 1e-12))
		c += x[++k].w;
	/* Half the weight exactly at x[k] (an even count of equal weights):
	 * halfway to the next value, as the plain median. */
	return k + 1 < n && fabs(c - 0.5 * total) <= 1e-12 * total ? 0.5 * (x[k].v + x[k + 1].v) : x[k].v;
}

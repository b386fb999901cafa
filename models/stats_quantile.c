/*
 * Quantiles and ramp rates (models/stats.h, docs/statistics.md): type-7
 * quantiles by sort or by selection, and the ramp of consecutive bin means.
 */
#include "models/stats.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

double
wc_stats_quantile_sorted(const double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	return gsl_stats_quantile_from_sorted_data(v, 1, n, q);
}

void
wc_stats_sort(double *v, size_t n)
{
	if (n > 0)
		gsl_sort(v, 1, n);
}

double
wc_stats_median_sorted(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

double
wc_stats_median(double *v, size_t n)
{
	wc_stats_sort(v, n);
	return wc_stats_median_sorted(v, n);
}

double
wc_stats_quantile(const double *x, size_t n, double q, double *scratch)
{
	if (n == 0)
		return NAN;
	memcpy(scratch, x, n * sizeof *x);
	wc_stats_sort(scratch, n);
	return wc_stats_quantile_sorted(scratch, n, q);
}

double
wc_stats_quantile_select(double *x, size_t n, double q)
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

void
wc_stats_ramp(const double *means, size_t len, double width, double *scratch, double *mean_out,
              double *p95_out)
{
	*mean_out = *p95_out = NAN;
	if (len < 2 || !(width > 0))
		return;
	size_t nd = len - 1;
	double sum = 0.0;
	for (size_t k = 0; k < nd; k++) {
		scratch[k] = fabs(means[k + 1] - means[k]) / width;
		sum += scratch[k];
	}
	*mean_out = sum / (double)nd;
	*p95_out = wc_stats_quantile_select(scratch, nd, 0.95);
}

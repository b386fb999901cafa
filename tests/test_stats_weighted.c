/*
 * The weighted median (models/stats.h, docs/statistics.md, "Weighted
 * median"): hand-worked cases, half the weight exactly at a value, and
 * with equal weights the plain median (wc_stats_median) bit for bit --
 * what the capacity fit's robust scale relies on when rows are not
 * weighted by model.
 */
#include "models/pcg32.h"
#include "models/stats.h"
#include "tests/support/check.h"

#include <math.h>

int
main(void)
{
	/* total 8, half 4: the cumulative weight 1, 2, 3, 8 first reaches it at 10 */
	wc_stats_weighted a[4] = { { 3, 1 }, { 10, 5 }, { 1, 1 }, { 2, 1 } };
	CHECK(wc_stats_weighted_median(a, 4) == 10.0);
	CHECK(a[0].v == 1.0 && a[3].v == 10.0 && a[3].w == 5.0); /* sorted in place, pairs kept */
	/* total 8: 1 (3) then 2 (4 = half) -- halfway to the next value */
	wc_stats_weighted b[4] = { { 4, 2 }, { 2, 1 }, { 1, 3 }, { 3, 2 } };
	CHECK(wc_stats_weighted_median(b, 4) == 2.5);
	wc_stats_weighted one = { 7, 0.25 };
	CHECK(wc_stats_weighted_median(&one, 1) == 7.0);
	CHECK(isnan(wc_stats_weighted_median(b, 0)));

	/* Equal weights: the plain median, odd and even counts, ties included. */
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 5, 1);
	for (size_t n = 1; n <= 41; n++) {
		double v[41];
		wc_stats_weighted x[41];
		for (size_t i = 0; i < n; i++) {
			v[i] = (double)wc_pcg32_bounded(&rng, 12) * 0.37;
			x[i] = (wc_stats_weighted){ v[i], 1.0 };
		}
		CHECK(wc_stats_weighted_median(x, n) == wc_stats_median(v, n));
	}
	return check_report("test_stats_weighted");
}

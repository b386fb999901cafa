/*
 * The count a request of an open loop meets while it runs, E[N^2] / E[N]
 * of the M/M/c count in service (docs/capacity.md, "Closed loop, open
 * loop, energy"), in closed form (wc_load_open_loop_met): the open loop's
 * root solve reads it at every evaluation, and it built and freed the
 * count's histogram each time (20-40 per answer). The closed form and the
 * histogram's sum (wc_load_histogram_met of wc_load_histogram_open_loop)
 * agree to 1e-12 over a grid of mean counts m and limits n_max: no limit,
 * limits far above m, limits a few counts above it and offered loads up to
 * 1 - 1e-9 of the limit, fractional limits, one slot, and the one-point
 * cases (idle, saturated, a window of over WC_POISSON_MAX_COUNTS counts).
 */
#include "models/law.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>

static double
histogram_met(double m, double n_max)
{
	wc_load_histogram h;
	double met = NAN;
	if (wc_load_histogram_open_loop(m, n_max, &h) == WC_OK)
		met = wc_load_histogram_met(&h);
	wc_load_histogram_free(&h);
	return met;
}

static int n_points;
static double worst;

static void
same(double m, double n_max)
{
	const double want = histogram_met(m, n_max), got = wc_load_open_loop_met(m, n_max);
	const double rel = fabs(got - want) / fmax(fabs(want), 1e-300);
	n_points++;
	if (rel > worst)
		worst = rel;
	if (!(rel <= 1e-12) && !(want == got))
		fprintf(stderr, "m %.17g, n_max %.17g: closed form %.17g, histogram %.17g\n", m, n_max, got, want);
	CHECK(rel <= 1e-12 || want == got);
}

int
main(void)
{
	const double ms[] = { 0.0, 1e-12, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.708, 0.999, 1.0, 1.18, 1.5, 2.0, 2.47,
		              3.092950646, 4.39, 6.57, 10.0, 17.3, 37.4, 100.0, 255.5, 1000.0, 3000.0, 6900.0,
		              7100.0, 5e4, 1e6 };
	const double caps[] = { 0.3, 0.999, 1.0, 1.5, 2.0, 2.7, 3.0, 5.0, 8.0, 26.0, 26.9, 64.0, 256.0, 1000.0,
		                1e4, 1e7, INFINITY };
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t j = 0; j < sizeof caps / sizeof caps[0]; j++)
			same(ms[i], caps[j]);
	/* Near the limit: the mass moves to c, E[N^2] / E[N] towards c. */
	const double cs[] = { 1.0, 2.0, 3.0, 7.0, 26.0, 100.0, 1000.0 };
	const double rhos[] = { 0.5, 0.9, 0.99, 0.999, 1.0 - 1e-6, 1.0 - 1e-9 };
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
		for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++)
			same(cs[i] * rhos[j], cs[i]);
	/* A fine sweep of m under two limits, as the root solve walks it. */
	for (double m = 1e-3; m < 40.0; m *= 1.07) {
		same(m, 26.0);
		same(m, 41.5);
	}
	fprintf(stderr, "%d points, the largest relative difference %.3g\n", n_points, worst);
	/* The values the docs give: 1 + m for the Poisson count, 1 for one
	 * slot, the limit where it runs steadily, m alone for a window of over
	 * WC_POISSON_MAX_COUNTS counts. */
	CHECK_NEAR(wc_load_open_loop_met(3.092950646, INFINITY), 4.092950646, 1e-12);
	CHECK_NEAR(wc_load_open_loop_met(0.6, 1.0), 1.0, 1e-12);
	CHECK_NEAR(wc_load_open_loop_met(3.0, 2.0), 2.0, 0.0);
	CHECK_NEAR(wc_load_open_loop_met(1e6, INFINITY), 1e6, 0.0);
	CHECK(isnan(wc_load_open_loop_met(NAN, 2.0)) && isnan(wc_load_open_loop_met(1.0, 0.0)) &&
	      isnan(wc_load_open_loop_met(-1.0, 2.0)));
	return check_report("test_open_loop_met");
}

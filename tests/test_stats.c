/*
 * The statistics module (models/stats.h, docs/statistics.md): type-7
 * quantiles against R's quantile(type = 7) on known arrays, selection equal
 * to sorting (ties included), bin means and ramps of a known curve, the
 * spectral entropy of a pure sine against white noise, the autocovariance
 * against its direct sum, and the one interval-from-draws rule.
 */
#include "models/interval.h"
#include "models/pcg32.h"
#include "models/stats.h"
#include "tests/support/check.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

static void
quantiles_type7(void)
{
	/* R: quantile(c(3, 1, 4, 1, 5, 9, 2, 6), c(.05, .25, .5, .9), type = 7)
	 * = 1.00, 1.75, 3.50, 6.90. */
	double x[8] = { 3, 1, 4, 1, 5, 9, 2, 6 }, s[8];
	CHECK_NEAR(wc_stats_quantile(x, 8, 0.05, s), 1.00, 1e-12);
	CHECK_NEAR(wc_stats_quantile(x, 8, 0.25, s), 1.75, 1e-12);
	CHECK_NEAR(wc_stats_quantile(x, 8, 0.50, s), 3.50, 1e-12);
	CHECK_NEAR(wc_stats_quantile(x, 8, 0.90, s), 6.90, 1e-12);
	CHECK_NEAR(wc_stats_quantile_sorted(s, 8, 1.0), 9.0, 0);
	CHECK_NEAR(wc_stats_quantile_sorted(s, 8, 0.0), 1.0, 0);
	CHECK(x[0] == 3 && x[7] == 6); /* input untouched */
	CHECK(isnan(wc_stats_quantile(x, 0, 0.5, s)));
	CHECK(isnan(wc_stats_quantile_select(x, 0, 0.5)));
	/* R: quantile(1:10, .95, type = 7) = 9.55 */
	double y[10];
	for (int i = 0; i < 10; i++)
		y[i] = 10 - i;
	CHECK_NEAR(wc_stats_quantile_select(y, 10, 0.95), 9.55, 1e-12);
}

static void
selection_equals_sort(void)
{
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 5, 1);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + wc_pcg32_bounded(&rng, 60);
		double x[64], y[64], q = wc_pcg32_uniform(&rng);
		for (size_t i = 0; i < n; i++) /* few distinct values: many ties */
			x[i] = y[i] = (double)wc_pcg32_bounded(&rng, 5);
		gsl_sort(y, 1, n);
		double want = gsl_stats_quantile_from_sorted_data(y, 1, n, q);
		CHECK(wc_stats_quantile_select(x, n, q) == want);
		CHECK(wc_stats_quantile_sorted(y, n, q) == want);
	}
}

static void
bins_and_ramp(void)
{
	/* p = 10 t sampled every 0.25 s on [0, 4]: 1-s means 5, 15, 25, 35. */
	double p[17], t[17], m[8], d[8], mean, p95;
	for (int i = 0; i < 17; i++) {
		t[i] = 0.25 * i;
		p[i] = 10.0 * t[i];
	}
	CHECK_INT((int)wc_stats_bin_means(t, p, 17, 1.0, m, 8), 4);
	CHECK_NEAR(m[0], 5.0, 1e-12);
	CHECK_NEAR(m[3], 35.0, 1e-12);
	CHECK_INT((int)wc_stats_bin_means(t, p, 17, 1.0, NULL, 0), 4);
	CHECK_INT((int)wc_stats_bin_means_uniform(p, 17, 0.25, 1.0, d, 8), 4);
	for (int k = 0; k < 4; k++)
		CHECK(d[k] == m[k]);
	wc_stats_ramp(m, 4, 1.0, m, &mean, &p95); /* in place */
	CHECK_NEAR(mean, 10.0, 1e-12);
	CHECK_NEAR(p95, 10.0, 1e-12);
	wc_stats_ramp(d, 1, 1.0, d, &mean, &p95);
	CHECK(isnan(mean) && isnan(p95));
	double x[5] = { 1, 2, 3, 4, 5 }, b[2];
	wc_stats_block_means(x, 5, 3, 2, b);
	CHECK_NEAR(b[0], 2.0, 0);
	CHECK_NEAR(b[1], 4.5, 0);
}

static void
spectral(void)
{
	enum { N = 3000 };
	static double x[N];
	double h_sine, h_noise, h;
	wc_error err;
	wc_pcg32 rng;
	wc_stats_fft f = { 0 };
	CHECK_INT((int)wc_stats_smooth_floor(3000), 3000);
	CHECK_INT((int)wc_stats_smooth_floor(3001), 3000);
	CHECK_INT((int)wc_stats_smooth_ceil(3001), 3072);
	CHECK_INT((int)wc_stats_smooth_ceil(7), 8);
	for (size_t i = 0; i < N; i++)
		x[i] = 200.0 + 30.0 * sin(2.0 * M_PI * 50.0 * (double)i / N);
	CHECK_INT(wc_stats_spectral_entropy(x, N, &f, &h_sine, &err), WC_OK);
	wc_pcg32_seed(&rng, 9, 3);
	for (size_t i = 0; i < N; i++)
		x[i] = 200.0 + 30.0 * wc_pcg32_normal(&rng);
	CHECK_INT(wc_stats_spectral_entropy(x, N, &f, &h_noise, &err), WC_OK);
	/* One spectral line has entropy 0; a white periodogram about
	 * 1 - (1 - Euler's gamma) / log(N/2) = 0.942. */
	CHECK(h_sine >= 0.0 && h_sine < 1e-6);
	CHECK_NEAR(h_noise, 1.0 - (1.0 - 0.5772156649) / log(N / 2.0), 0.02);
	/* Kept tables give the numbers fresh tables give. */
	CHECK_INT(wc_stats_spectral_entropy(x, N, NULL, &h, &err), WC_OK);
	CHECK(h == h_noise);
	wc_stats_fft_clear(&f);
	CHECK(f.buf == NULL && f.n == 0);

	/* Autocovariance: sum_j (x_j - mean)(x_{j+k} - mean). */
	double s[40], *acov = NULL, mean = 0.0;
	for (int i = 0; i < 40; i++)
		mean += (s[i] = sin(0.7 * i) + 0.1 * i) / 40.0;
	CHECK_INT(wc_stats_autocovariance(s, 40, &acov, &err), WC_OK);
	CHECK(acov != NULL);
	for (int k = 0; acov && k < 40; k += 7) {
		double want = 0.0;
		for (int j = 0; j + k < 40; j++)
			want += (s[j] - mean) * (s[j + k] - mean);
		CHECK_NEAR(acov[k], want, 1e-9);
	}
	free(acov);
	double c[10] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	CHECK_INT(wc_stats_autocovariance(c, 10, &acov, &err), WC_OK);
	CHECK(acov == NULL);
	CHECK_INT(wc_stats_spectral_entropy(c, 10, NULL, &h, &err), WC_OK);
	CHECK(isnan(h));
}

static void
interval_from_draws(void)
{
	/* The 95 % rule is the type-7 quantile above, widened to the estimate. */
	double v[9] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 }, s[9], lo, hi;
	double want_lo = wc_stats_quantile(v, 9, 0.025, s), want_hi = wc_stats_quantile_sorted(s, 9, 0.975);
	CHECK(wc_interval_from_draws(v, 9, 5.0, &lo, &hi));
	CHECK(lo == want_lo && hi == want_hi);
	CHECK_NEAR(lo, 1.2, 1e-12);
	double w[4] = { 1, 2, NAN, 3 };
	CHECK(wc_interval_from_draws(w, 4, 10.0, &lo, &hi));
	CHECK(lo < 10.0 && hi == 10.0);
}

/* GSL's median: the middle value, or the mean of the two middle ones. */
static void
median(void)
{
	double even[] = { 4.0, 1.0, 3.0, 2.0 }, odd[] = { 5.0, 1.0, 3.0 };
	CHECK_NEAR(wc_stats_median(even, 4), 2.5, 0.0);
	CHECK_NEAR(wc_stats_median(odd, 3), 3.0, 0.0);
	CHECK(even[0] == 1.0 && even[3] == 4.0); /* sorted in place */
	CHECK(isnan(wc_stats_median(odd, 0)));
	/* The sorted-input variant is the same rule; GSL alone gives 0 for no
	 * values, the project NaN. */
	double sorted[] = { 1.0, 2.0, 7.0, 10.0 };
	CHECK(wc_stats_median_sorted(sorted, 4) == 4.5);
	CHECK(wc_stats_median_sorted(sorted, 4) == gsl_stats_median_from_sorted_data(sorted, 1, 4));
	CHECK(wc_stats_median_sorted(sorted, 3) == 2.0);
	CHECK(isnan(wc_stats_median_sorted(sorted, 0)));
	double v[] = { 3.0, -1.0, 2.0 };
	wc_stats_sort(v, 3);
	CHECK(v[0] == -1.0 && v[1] == 2.0 && v[2] == 3.0);
	wc_stats_sort(v, 0); /* nothing to sort, nothing read */
}

int
main(void)
{
	quantiles_type7();
	selection_equals_sort();
	bins_and_ramp();
	spectral();
	interval_from_draws();
	median();
	return check_report("test_stats");
}

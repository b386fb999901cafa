/*
 * The envelope's trace metrics (predict/, which cannot use trace/) give
 * the numbers `ingest` gives (trace/metrics.h) on the same trace: ramp
 * rate (mean and p95 between 1-s means) and spectral entropy, at the
 * sampling intervals envelopes use; and quantiles by selection equal
 * GSL's quantiles of the sorted values, ties included.
 */
#include "predict/envelope_internal.h"
#include "predict/predict.h"
#include "trace/metrics.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

static void
compare(double dt, size_t n, uint64_t seed)
{
	double *t = malloc(n * sizeof *t), *p = malloc(n * sizeof *p);
	wc_pcg32 rng;
	wc_trace_metrics m;
	wc_error err;
	wc_pcg32_seed(&rng, seed, 7);
	/* A serving-like trace: a slow swing, steps and prefill spikes. */
	double level = 300;
	for (size_t i = 0; i < n; i++) {
		t[i] = (double)i * dt;
		if (wc_pcg32_uniform(&rng) < 0.02)
			level = 250 + 100 * wc_pcg32_uniform(&rng);
		p[i] = level + 30 * sin(t[i] / 7.0) + (wc_pcg32_uniform(&rng) < 0.05 ? 180 : 0) +
		       5 * wc_pcg32_normal(&rng);
	}
	CHECK_INT(wc_trace_metrics_compute(t, p, n, &m, &err), WC_OK);
	double ramp, ramp95, ent;
	wc_envelope_ramp(p, n, dt, &ramp, &ramp95);
	CHECK_INT(wc_envelope_spectral_entropy(p, n, &ent, &err), WC_OK);
	CHECK_NEAR(ramp, m.ramp_w_per_s, 1e-9 * m.ramp_w_per_s);
	CHECK_NEAR(ramp95, m.ramp_p95_w_per_s, 1e-9 * m.ramp_p95_w_per_s);
	CHECK_NEAR(ent, m.spectral_entropy, 1e-9);
	CHECK(ramp > 1 && ent > 0.1 && ent < 1);
	free(t);
	free(p);
}

static void
quantiles_by_selection(void)
{
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 5, 1);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + wc_pcg32_bounded(&rng, 60);
		double x[64], y[64], q = wc_pcg32_uniform(&rng);
		for (size_t i = 0; i < n; i++) /* few distinct values: many ties */
			x[i] = y[i] = (double)wc_pcg32_bounded(&rng, 5);
		gsl_sort(y, 1, n);
		CHECK_NEAR(wc__quantile_select(x, n, q), gsl_stats_quantile_from_sorted_data(y, 1, n, q), 1e-12);
	}
}

int
main(void)
{
	quantiles_by_selection();
	gsl_set_error_handler_off();
	compare(0.25, 2000, 1);
	compare(0.125, 4001, 2);
	compare(0.05, 12000, 3);
	compare(0.1, 6000, 4);
	compare(1.0, 300, 5);
	/* Too short: NaN in both. */
	double p[3] = { 1, 2, 3 }, ramp, r95, ent;
	wc_error err;
	wc_envelope_ramp(p, 3, 0.25, &ramp, &r95);
	CHECK(isnan(ramp) && isnan(r95));
	CHECK_INT(wc_envelope_spectral_entropy(p, 3, &ent, &err), WC_OK);
	CHECK(isnan(ent));
	return check_report("test_envelope_metrics");
}

/*
 * Trace metrics (docs/trace-metrics.md) against answers known in closed form: a constant
 * trace has no ramp and no spectrum; white noise has a flat spectrum
 * (entropy near 1), a pure sine a single line (near 0); a square wave's
 * period is found within 2 %; a linear step of known height and rise time
 * gives the ramp its 1-s means imply; the trapezoid integrates a
 * piecewise-linear trace exactly.
 */
#include "models/models.h"
#include "trace/trace.h"
#include "tests/support/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static void
fill_time(double *t, size_t n, double dt)
{
	for (size_t i = 0; i < n; i++)
		t[i] = (double)i * dt;
}

static void
test_constant(void)
{
	enum { N = 601 };
	double t[N], p[N];
	wc_trace_metrics m;
	wc_error err;
	fill_time(t, N, 0.1);
	for (size_t i = 0; i < N; i++)
		p[i] = 123.25;
	CHECK_INT(wc_trace_metrics_compute(t, p, N, &m, &err), WC_OK);
	CHECK_INT(m.samples, N);
	CHECK_NEAR(m.duration_s, 60.0, 1e-9);
	CHECK_NEAR(m.energy_j, 123.25 * 60.0, 1e-6);
	CHECK_NEAR(m.mean_w, 123.25, 1e-9);
	CHECK(m.ramp_w_per_s == 0.0);
	CHECK(m.ramp_p95_w_per_s == 0.0);
	CHECK(m.p5_w == 123.25 && m.p50_w == 123.25 && m.p95_w == 123.25 && m.max_w == 123.25);
	CHECK(isnan(m.spectral_entropy)); /* no spectrum to speak of */
	CHECK(isnan(m.period_s));
	CHECK_NEAR(m.grid_s, 0.1, 1e-9);
}

static void
test_quantiles(void)
{
	double v[100], scratch[100];
	for (int i = 0; i < 100; i++)
		v[99 - i] = i + 1; /* descending: the function must sort */
	/* GSL: rank q*(n-1), linear between order statistics. */
	CHECK_NEAR(wc_stats_quantile(v, 100, 0.05, scratch), 5.95, 1e-12);
	CHECK_NEAR(wc_stats_quantile(v, 100, 0.5, scratch), 50.5, 1e-12);
	CHECK_NEAR(wc_stats_quantile(v, 100, 0.95, scratch), 95.05, 1e-12);
	CHECK(v[0] == 100); /* input untouched */
	CHECK(isnan(wc_stats_quantile(v, 0, 0.5, scratch)));
}

static void
test_spectral_entropy(void)
{
	enum { N = 4096 };
	static double x[N];
	double h;
	wc_error err;
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 42, 54);
	for (size_t i = 0; i < N; i++)
		x[i] = 300.0 + 20.0 * wc_pcg32_normal(&rng);
	CHECK_INT(wc_stats_spectral_entropy(x, N, NULL, &h, &err), WC_OK);
	/* Expected for a white periodogram: 1 - (1 - Euler's gamma)/log(K),
	 * K = 2048 bins: 0.945. */
	CHECK(h > 0.92 && h <= 1.0);

	/* A sine with a whole number of cycles: one spectral line. */
	for (size_t i = 0; i < N; i++)
		x[i] = 300.0 + 50.0 * sin(2.0 * PI * 64.0 * (double)i / N);
	CHECK_INT(wc_stats_spectral_entropy(x, N, NULL, &h, &err), WC_OK);
	CHECK(h >= 0.0 && h < 0.01);

	/* A sine that does not fit the window leaks, but stays far from noise. */
	for (size_t i = 0; i < N; i++)
		x[i] = 300.0 + 50.0 * sin(2.0 * PI * 63.4 * (double)i / N);
	CHECK_INT(wc_stats_spectral_entropy(x, N, NULL, &h, &err), WC_OK);
	CHECK(h < 0.3);

	/* Too short or constant: NaN, not an error. */
	CHECK_INT(wc_stats_spectral_entropy(x, 7, NULL, &h, &err), WC_OK);
	CHECK(isnan(h));
}

/* Square wave between 100 and 400 W with period `period`, sampled every
 * `dt` with optional timestamp jitter; the period must come out within 2 %. */
static void
check_square(double period, double dt, double duration, double jitter)
{
	size_t n = (size_t)(duration / dt) + 1;
	double *t = malloc(n * sizeof *t), *p = malloc(n * sizeof *p);
	wc_pcg32 rng;
	wc_trace_metrics m;
	wc_error err;
	wc_pcg32_seed(&rng, 7, 11);
	for (size_t i = 0; i < n; i++) {
		t[i] = (double)i * dt + (i > 0 && i + 1 < n ? jitter * (wc_pcg32_uniform(&rng) - 0.5) : 0);
		p[i] = fmod(t[i], period) < 0.5 * period ? 400.0 : 100.0;
	}
	CHECK_INT(wc_trace_metrics_compute(t, p, n, &m, &err), WC_OK);
	CHECK(fabs(m.period_s - period) <= 0.02 * period);
	if (!(fabs(m.period_s - period) <= 0.02 * period))
		fprintf(stderr, "  square wave %.2f s: found %.4f s\n", period, m.period_s);
	CHECK(m.p5_w == 100.0 && m.max_w == 400.0);
	free(t);
	free(p);
}

static void
test_period(void)
{
	check_square(7.3, 0.1, 300.0, 0.0);
	check_square(2.6, 0.25, 120.0, 0.0);
	check_square(26.4, 0.25, 400.0, 0.02); /* jittered timestamps */
	check_square(1.0, 0.05, 30.0, 0.0);

	/* White noise has no dominant period. */
	enum { N = 2000 };
	static double x[N];
	double per;
	wc_error err;
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 1, 2);
	for (size_t i = 0; i < N; i++)
		x[i] = wc_pcg32_normal(&rng);
	CHECK_INT(wc_trace_dominant_period(x, N, 0.1, 0.5, 120.0, &per, &err), WC_OK);
	CHECK(isnan(per));
	/* A period longer than half the trace cannot be claimed. */
	for (size_t i = 0; i < N; i++)
		x[i] = sin(2.0 * PI * (double)i * 0.1 / 150.0);
	CHECK_INT(wc_trace_dominant_period(x, N, 0.1, 0.5, 120.0, &per, &err), WC_OK);
	CHECK(isnan(per));
}

/* Step of height H with a linear rise of tau seconds from t = 2 s, on a
 * 10-s trace sampled at 100 ms. The 1-s means are P0, P0, P0 + .1H, .3H,
 * .5H, .7H, .9H, then P0 + H: the ramps are 0, .1H, .2H x4, .1H, 0, 0 (W/s),
 * so the mean is H/9 and the p95 (and maximum) is H/tau. */
static void
test_step_ramp(void)
{
	enum { N = 101 };
	const double p0 = 80.0, h = 200.0, tau = 5.0;
	double t[N], p[N], bins[16];
	wc_trace_metrics m;
	wc_error err;
	fill_time(t, N, 0.1);
	for (size_t i = 0; i < N; i++) {
		double u = (t[i] - 2.0) / tau;
		p[i] = p0 + h * (u <= 0 ? 0 : u >= 1 ? 1 : u);
	}
	CHECK_INT(wc_stats_bin_means(t, p, N, 1.0, bins, 16), 10);
	CHECK_NEAR(bins[0], p0, 1e-9);
	CHECK_NEAR(bins[2], p0 + 0.1 * h, 1e-9);
	CHECK_NEAR(bins[4], p0 + 0.5 * h, 1e-9);
	CHECK_NEAR(bins[9], p0 + h, 1e-9);
	CHECK_INT(wc_trace_metrics_compute(t, p, N, &m, &err), WC_OK);
	CHECK_NEAR(m.ramp_w_per_s, h / 9.0, 1e-9);
	CHECK_NEAR(m.ramp_p95_w_per_s, h / tau, 1e-9);
	/* Energy: 2 s at P0, the rise (mean P0 + H/2), 3 s at P0 + H. */
	CHECK_NEAR(m.energy_j, 2 * p0 + tau * (p0 + h / 2) + 3 * (p0 + h), 1e-9);

	/* A 1-s rise filling one bin: the means step .5H then .5H, so both
	 * the 1-s ramp p95 and the steepest ramp are H/2 per second. */
	for (size_t i = 0; i < N; i++)
		p[i] = p0 + h * (t[i] < 4.0 - 1e-9 ? 0 : t[i] > 5.0 - 1e-9 ? 1 : t[i] - 4.0);
	CHECK_INT(wc_trace_metrics_compute(t, p, N, &m, &err), WC_OK);
	CHECK_NEAR(m.ramp_w_per_s, h / 9.0, 1e-6);
	CHECK_NEAR(m.ramp_p95_w_per_s, 0.5 * h, 1e-6);
}

/* Piecewise-linear trace with breakpoints at irregular times, sampled at
 * the breakpoints plus random points on each line: the trapezoid is exact,
 * compared with the integral from the antiderivative of each piece. */
static void
test_energy_exact(void)
{
	enum { PIECES = 40, PER = 7, N = PIECES * PER + 1 };
	double bt[PIECES + 1], bp[PIECES + 1], t[N], p[N];
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 2024, 4);
	bt[0] = 1784415445.621; /* epoch-sized times: the test of cancellation */
	for (int k = 0; k <= PIECES; k++) {
		if (k > 0)
			bt[k] = bt[k - 1] + 0.05 + 2.0 * wc_pcg32_uniform(&rng);
		bp[k] = 60.0 + 500.0 * wc_pcg32_uniform(&rng);
	}
	double expect = 0.0;
	size_t n = 0;
	for (int k = 0; k < PIECES; k++) {
		double dt = bt[k + 1] - bt[k], slope = (bp[k + 1] - bp[k]) / dt;
		expect += bp[k] * dt + 0.5 * slope * dt * dt;
		double u[PER];
		u[0] = 0;
		for (int j = 1; j < PER; j++)
			u[j] = wc_pcg32_uniform(&rng);
		for (int j = 1; j < PER; j++) /* insertion sort: interior points in order */
			for (int i = j; i > 1 && u[i] < u[i - 1]; i--) {
				double tmp = u[i];
				u[i] = u[i - 1];
				u[i - 1] = tmp;
			}
		for (int j = 0; j < PER; j++) {
			t[n] = bt[k] + u[j] * dt;
			p[n] = bp[k] + slope * (t[n] - bt[k]);
			n++;
		}
	}
	t[n] = bt[PIECES];
	p[n] = bp[PIECES];
	n++;
	CHECK_INT(n, N);
	double e = wc_trace_energy(t, p, n);
	CHECK(fabs(e - expect) <= 1e-9 * expect);
	if (!(fabs(e - expect) <= 1e-9 * expect))
		fprintf(stderr, "  energy %.12g vs %.12g\n", e, expect);
}

/* Streaming bins equal the array ones, whatever the sampling. */
typedef struct {
	double v[64];
	size_t n;
} collected;

static void
collect(double mean, void *payload)
{
	collected *c = payload;
	if (c->n < 64)
		c->v[c->n] = mean;
	c->n++;
}

static void
test_binner(void)
{
	enum { N = 200 };
	double t[N], p[N], bins[64];
	wc_pcg32 rng;
	wc_stats_binner b;
	collected c = { { 0 }, 0 };
	wc_pcg32_seed(&rng, 3, 3);
	t[0] = 100.0;
	p[0] = 90;
	for (size_t i = 1; i < N; i++) {
		t[i] = t[i - 1] + (i % 17 == 0 ? 0.0 : 0.05 + 0.4 * wc_pcg32_uniform(&rng));
		p[i] = 90 + 400 * wc_pcg32_uniform(&rng);
	}
	size_t nb = wc_stats_bin_means(t, p, N, 1.0, bins, 64);
	CHECK_INT(nb, (size_t)floor(t[N - 1] - t[0]));
	wc_stats_binner_init(&b, 1.0);
	for (size_t i = 0; i < N; i++)
		wc_stats_binner_push(&b, t[i], p[i], collect, &c);
	CHECK_INT(c.n, nb);
	double sum_bins = 0;
	for (size_t k = 0; k < nb && k < 64; k++) {
		CHECK_NEAR(c.v[k], bins[k], 1e-9);
		sum_bins += bins[k];
	}
	/* Bin means are exact averages: their sum is the energy of whole seconds. */
	double e_whole = 0;
	for (size_t i = 1; i < N && t[i] <= t[0] + (double)nb; i++)
		e_whole += 0.5 * (p[i] + p[i - 1]) * (t[i] - t[i - 1]);
	CHECK(sum_bins >= e_whole - 1e-6); /* the tail of the last whole second adds */
}

static void
test_bad_input(void)
{
	double t[3] = { 0, 1, 0.5 }, p[3] = { 1, 2, 3 };
	wc_trace_metrics m;
	wc_error err;
	CHECK_INT(wc_trace_metrics_compute(t, p, 3, &m, &err), WC_EINVAL);
	CHECK(strstr(err.msg, "sample 2") != NULL);
	t[2] = 2;
	p[1] = NAN;
	CHECK_INT(wc_trace_metrics_compute(t, p, 3, &m, &err), WC_EINVAL);
	/* One sample: a distribution, no duration. */
	p[1] = 2;
	CHECK_INT(wc_trace_metrics_compute(t, p, 1, &m, &err), WC_OK);
	CHECK(m.p50_w == 1 && isnan(m.mean_w) && isnan(m.ramp_w_per_s));
	CHECK_INT(wc_trace_metrics_compute(t, p, 0, &m, &err), WC_OK);
	CHECK(isnan(m.energy_j));
}

/* Bounded mode (a stream past its exact limit) keeps quantiles of large
 * traces -- a fleet's aggregate of hundreds of kW -- within the sketch's
 * relative error, not clamped. */
static void
test_stream_large_values(void)
{
	wc_trace_stream *s = wc_trace_stream_new(16);
	wc_trace_metrics m;
	wc_error err;
	int exact = 1;
	for (int i = 0; i <= 2000; i++)
		CHECK_INT(wc_trace_stream_push(s, 0.1 * i, 400000.0 + 100.0 * i, &err), WC_OK);
	CHECK_INT(wc_trace_stream_finish(s, &m, &exact, &err), WC_OK);
	CHECK(!exact);
	CHECK_NEAR(m.p50_w, 500000.0, 2e-4 * 500000.0);
	CHECK_NEAR(m.p95_w, 590000.0, 2e-4 * 590000.0);
	CHECK_NEAR(m.max_w, 600000.0, 1e-9);
	wc_trace_stream_free(s);
}

/* Metrics of `n` samples of a noisy 12-s duty cycle through a stream of
 * exact limit 1000, bounded early after `bound_at` samples (n + 1 = never). */
static void
stream_metrics(size_t n, size_t bound_at, wc_trace_metrics *m, int *exact, int *too_early)
{
	wc_trace_stream *s = wc_trace_stream_new(1000);
	wc_pcg32 rng;
	wc_error err;
	wc_pcg32_seed(&rng, 5, 5);
	for (size_t i = 0; i <= n; i++) {
		if (i == bound_at)
			CHECK_INT(wc_trace_stream_bound(s, &err), WC_OK);
		if (i == n)
			break;
		double t = 1784415445.0 + 0.1 * (double)i;
		double p = 90.0 + 300.0 * (fmod(0.1 * (double)i, 12.0) < 7.0) + 20.0 * wc_pcg32_normal(&rng);
		CHECK_INT(wc_trace_stream_push(s, t, p, &err), WC_OK);
	}
	*too_early = wc_trace_stream_bound_too_early(s);
	CHECK_INT(wc_trace_stream_finish(s, m, exact, &err), WC_OK);
	wc_trace_stream_free(s);
}

/* Bounding a stream early (before any sample, within the first second,
 * anywhere before its limit, or after it switched by itself) gives the
 * metrics of the stream left alone, to the bit, once the trace runs past
 * the limit; a trace that stays within it says it was bounded too early. */
static void
test_stream_bound_early(void)
{
	wc_trace_metrics plain, early;
	int exact, too_early;
	stream_metrics(20000, 20001, &plain, &exact, &too_early);
	CHECK(!exact && !too_early);
	const size_t at[] = { 0, 1, 7, 500, 999, 1000, 1001, 5000 };
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		stream_metrics(20000, at[k], &early, &exact, &too_early);
		CHECK(!exact && !too_early);
		CHECK(memcmp(&early, &plain, sizeof plain) == 0);
	}
	/* 1000 samples: exact when left alone; bounded early, too early. */
	stream_metrics(1000, 1001, &plain, &exact, &too_early);
	CHECK(exact && !too_early);
	stream_metrics(1000, 10, &early, &exact, &too_early);
	CHECK(!exact && too_early);
	CHECK(early.p50_w != plain.p50_w); /* the histogram's, not the exact one */
	stream_metrics(1001, 10, &early, &exact, &too_early);
	CHECK(!exact && !too_early);
}

int
main(void)
{
	test_stream_bound_early();
	test_stream_large_values();
	test_constant();
	test_quantiles();
	test_spectral_entropy();
	test_period();
	test_step_ramp();
	test_energy_exact();
	test_binner();
	test_bad_input();
	return check_report("test_trace_metrics");
}

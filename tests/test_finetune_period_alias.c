/*
 * Step counting from the trace's period where the samples repeat only
 * every few steps (docs/finetune.md, "Counting steps"), on one-GPU point
 * samples without noise: 10 s at 80 W, the steps, 10 s at 80 W.
 *
 * - Four micro-steps (80 % at 400 W, 20 % at 300 W) and a 5 % optimizer
 *   phase at 250 W in 1.55 s, sampled every 0.1 s: the samples repeat
 *   every 31 (two steps), and folded at a quarter of that (two
 *   micro-steps) they drew a shorter string than at the step: 799.9
 *   steps for 400 (-50 % energy per step), period 0.775 s, no warning.
 *   Also at 0.25 s and with the optimizer phase at 300 W.
 * - 1.3-s steps (85 % at 400 W) sampled every 0.5 s, 2.6 samples a step:
 *   the samples repeat every 13 (five steps) and were counted so (39.9
 *   steps for 200, +400 %), with no word that a step under three samples
 *   draws the same samples; with a 50 % low phase, 120 steps at 2.163 s.
 * - 1.55-s plain steps at 0.25, 0.3 and 0.5 s stay as they were: within
 *   0.5 % and with neither warning.
 * - 1-s steps (70 % at 400 W) sampled every 0.3 s repeat every 10 samples
 *   (three steps) and were counted as 3-s steps (133 for 400, +215 %)
 *   with no word; four 1.55-s micro-step steps at 0.2 s (7.75 samples)
 *   were counted as 6.2-s ones (+300 %) with warnings naming neither the
 *   step nor the count's direction: the aliasing warning names the step.
 * - 1-s steps 80 % high at 0.3 s: one low sample in 10; steps of 1.5 s
 *   (5 samples) were named too, though samples 5 apart differ.
 * - 1.5-s steps at 0.5 s (1 % jitter), exactly three samples: refused
 *   as "not clear" (autocorrelation 0.78; the parabola put them a hair
 *   under three samples); counted.
 */
#include "models/models.h"
#include "trace/trace.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double step_s, dt, low, opt_w;
	int steps, micro;
	int as_floats; /* phases as the tester's generator takes them */
	double noise_w; /* uniform, +-, from a fixed-seed generator */
	double jitter;  /* each step's length off by up to this fraction (with as_floats) */
} shape;

/* Uniform in [-1, 1), fixed for each k. */
static double
uniform_at(unsigned long long k)
{
	k = (k + 1) * 6364136223846793005ULL + 1442695040888963407ULL;
	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 32;
	return 2.0 * (double)(k >> 11) / 9007199254740992.0 - 1.0;
}

/* The power at t (the tester's generator, in whole 0.1-ms ticks so that
 * the phase is exact). */
static double
power_at(const shape *s, double t)
{
	double pre = 10.0;
	if (t < pre || t >= pre + s->step_s * s->steps)
		return 80.0; /* (jittered steps end a little off that: the run's tail) */
	if (s->as_floats) {
		/* Step starts summed in doubles and t = i dt: a sample that
		 * falls on a phase boundary lands either side of it, step by
		 * step, as with the tester's generator. */
		double b = pre, len = s->step_s * (1.0 + s->jitter * uniform_at(0));
		for (unsigned long long k = 1; b + len <= t; k++) {
			b += len;
			len = s->step_s * (1.0 + s->jitter * uniform_at(k));
		}
		return (t - b) / len < s->low ? 400.0 : 200.0;
	}
	long long a = llround(t * 10000) - llround(pre * 10000), b = llround(s->step_s * 10000);
	double ph = (double)(a % b) / (double)b;
	if (!s->micro)
		return ph < s->low ? 400.0 : 200.0;
	if (ph >= 0.95)
		return s->opt_w;
	double m = fmod(ph / 0.95 * s->micro, 1.0);
	return m < 0.8 ? 400.0 : 300.0;
}

/* Analyse the trace; the steps counted and whether a warning holds both
 * `a` and `b`. */
static double
run(const shape *s, const char *a, const char *b, int *said, wc_ft_steps_result *r)
{
	size_t n = (size_t)((20.0 + s->step_s * s->steps) / s->dt);
	double *t = malloc(n * sizeof *t), *p = malloc(n * sizeof *p);
	wc_ft_steps_info in;
	wc_error err = { 0, "" };
	unsigned long long seed = 1;
	for (size_t i = 0; i < n; i++) {
		t[i] = 1784400000.0 + (double)i * s->dt;
		p[i] = power_at(s, (double)i * s->dt);
		if (s->noise_w > 0) {
			p[i] += s->noise_w * uniform_at(seed++ + 1000000);
		}
	}
	wc_ft_steps_info_init(&in);
	in.grad_accum = s->micro ? s->micro : 1;
	CHECK_INT(wc_ft_steps_analyse(t, p, n, &in, r, &err), WC_OK);
	*said = 0;
	for (int i = 0; i < r->n_warnings; i++) {
		*said += strstr(r->warnings[i], a) && strstr(r->warnings[i], b);
		fprintf(stderr, "  warning: %s\n", r->warnings[i]);
	}
	fprintf(stderr, "%.2f s every %.2f s%s: %.2f steps for %d, period %.4f s, %s\n", s->step_s, s->dt,
	        s->micro ? " (micro-steps)" : "", r->steps, s->steps, r->period_s, r->step_source);
	free(t);
	free(p);
	return r->steps;
}

int
main(void)
{
	wc_ft_steps_result r;
	int said;

	/* Micro-steps: counted at the step, the half-step named. */
	shape micro = { 1.55, 0.1, 0, 250.0, 400, 4, 0, 0, 0 };
	CHECK(fabs(run(&micro, "ambiguous", "0.775", &said, &r) / 400.0 - 1) <= 0.01);
	CHECK_INT(said, 1);
	shape micro25 = { 1.55, 0.25, 0, 250.0, 400, 4, 0, 0, 0 };
	CHECK(fabs(run(&micro25, "ambiguous", "0.774", &said, &r) / 400.0 - 1) <= 0.01);
	CHECK_INT(said, 1);
	shape micro_opt = { 1.55, 0.1, 0, 300.0, 400, 4, 0, 0, 0 };
	CHECK(fabs(run(&micro_opt, "period", "", &said, &r) / 400.0 - 1) <= 0.01);

	/* Steps under three samples: said, naming them. */
	shape short13 = { 1.3, 0.5, 0.85, 0, 200, 0, 0, 0, 0 };
	run(&short13, "under 3 samples", "never counted", &said, &r);
	CHECK_INT(said, 1);
	CHECK(fabs(r.period_under_s - 1.3) < 0.01);
	shape half13 = { 1.3, 0.5, 0.5, 0, 200, 0, 0, 0, 0 };
	run(&half13, "under 3 samples", "never counted", &said, &r);
	CHECK_INT(said, 1);
	CHECK(fabs(r.period_under_s - 1.3) < 0.01);

	/* Aliased: the samples repeat every few steps; the step is named. */
	shape three = { 1.0, 0.3, 0.7, 0, 400, 0, 1, 0, 0 };
	run(&three, "aliased", "1.0000 s", &said, &r);
	CHECK_INT(said, 1);
	/* 80 % high: one low sample in the 10 of the repeat. Steps of 1.5 s
	 * (5 samples) would catch it every 5 samples, and were named though
	 * samples 5 apart differ: only the steps whose repeat the samples
	 * keep are named. */
	shape three80 = { 1.0, 0.3, 0.8, 0, 400, 0, 1, 3.0, 0 };
	run(&three80, "aliased", "1.0000 s", &said, &r);
	CHECK_INT(said, 1);
	for (int i = 0; i < WC_FT_ALIASES; i++)
		CHECK(!(fabs(r.period_aliases_s[i] - 1.5) < 0.01));
	shape micro20 = { 1.55, 0.2, 0, 250.0, 400, 4, 0, 0, 0 };
	run(&micro20, "aliased", "1.5500", &said, &r);
	CHECK_INT(said, 1);

	/* Exactly three samples a step: resolved, and counted. */
	shape whole3 = { 1.5, 0.5, 0.85, 0, 400, 0, 1, 0, 0.01 };
	CHECK(fabs(run(&whole3, "period: ", "", &said, &r) / 400.0 - 1) <= 0.005);

	/* Plain steps a few samples long: as before, silent. */
	const double dts[] = { 0.25, 0.3, 0.5 };
	for (int i = 0; i < 3; i++) {
		shape plain = { 1.55, dts[i], 0.85, 0, 400, 0, 0, 0, 0 };
		CHECK(fabs(run(&plain, "period: ", "", &said, &r) / 400.0 - 1) <= 0.005);
		CHECK_INT(said, 0);
	}
	return check_report("test_finetune_period_alias");
}

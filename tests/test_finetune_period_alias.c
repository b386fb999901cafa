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
} shape;

/* The power at t (the tester's generator, in whole 0.1-ms ticks so that
 * the phase is exact). */
static double
power_at(const shape *s, double t)
{
	double pre = 10.0;
	if (t < pre || t >= pre + s->step_s * s->steps)
		return 80.0;
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
	for (size_t i = 0; i < n; i++) {
		t[i] = 1784400000.0 + (double)i * s->dt;
		p[i] = power_at(s, (double)i * s->dt);
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
	shape micro = { 1.55, 0.1, 0, 250.0, 400, 4 };
	CHECK(fabs(run(&micro, "ambiguous", "0.775", &said, &r) / 400.0 - 1) <= 0.01);
	CHECK_INT(said, 1);
	shape micro25 = { 1.55, 0.25, 0, 250.0, 400, 4 };
	CHECK(fabs(run(&micro25, "ambiguous", "0.774", &said, &r) / 400.0 - 1) <= 0.01);
	CHECK_INT(said, 1);
	shape micro_opt = { 1.55, 0.1, 0, 300.0, 400, 4 };
	CHECK(fabs(run(&micro_opt, "period", "", &said, &r) / 400.0 - 1) <= 0.01);

	/* Steps under three samples: said, naming them. */
	shape short13 = { 1.3, 0.5, 0.85, 0, 200, 0 };
	run(&short13, "under 3 samples", "never counted", &said, &r);
	CHECK_INT(said, 1);
	CHECK(fabs(r.period_under_s - 1.3) < 0.01);
	shape half13 = { 1.3, 0.5, 0.5, 0, 200, 0 };
	run(&half13, "under 3 samples", "never counted", &said, &r);
	CHECK_INT(said, 1);
	CHECK(fabs(r.period_under_s - 1.3) < 0.01);

	/* Plain steps a few samples long: as before, silent. */
	const double dts[] = { 0.25, 0.3, 0.5 };
	for (int i = 0; i < 3; i++) {
		shape plain = { 1.55, dts[i], 0.85, 0, 400, 0 };
		CHECK(fabs(run(&plain, "period: ", "", &said, &r) / 400.0 - 1) <= 0.005);
		CHECK_INT(said, 0);
	}
	return check_report("test_finetune_period_alias");
}

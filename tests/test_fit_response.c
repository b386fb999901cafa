/*
 * The response fit (fit/fit.h) recovers a known response from runs
 * simulated through the same kernel: time constant, hold and prefill
 * ratio within tolerance and inside their bootstrap intervals, a time
 * constant per platform level, a law level off by 15 % not bending them,
 * and the same answer for 1 and 2 threads.
 */
#include "fit/fit.h"
#include "tests/support/check.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NGRID 2400 /* 120 s of 50 ms */
#define NSAMP 480  /* every 250 ms */

typedef struct {
	double running[NGRID], prefill[NGRID], t[NSAMP], p[NSAMP];
} synth;

/* A serving-like load: requests come and go, prefills at arrivals, idle
 * gaps of a few hundred ms now and then. */
static void
make_run(synth *s, wc_pcg32 *rng, const wc_law_point *law, double tau, double hold, double ratio,
         double level)
{
	wc_response_grid g = { 0.05, NGRID, NULL, NULL, NULL, NULL };
	double *grid = calloc(NGRID, sizeof *grid), *y = calloc(NGRID, sizeof *y);
	wc_response_state st;
	double ref = wc_law_point_dynamic(law, 32);
	int n = 0;
	g.power = grid;
	wc_response_state_init(&st, law->p0, ratio * ref, hold);
	for (int k = 0; k < NGRID; k++) {
		double u = wc_pcg32_uniform(rng);
		if (u < 0.04 && n < 20)
			n++, s->prefill[k] = 0.03;
		else if (u < 0.08 && n > 0)
			n--, s->prefill[k] = 0;
		else
			s->prefill[k] = 0;
		if (n == 0 && wc_pcg32_uniform(rng) < 0.3)
			s->prefill[k] = 0;
		s->running[k] = n;
		if (n > 0)
			wc_response_add(&g, &st, k * 0.05, (k + 1) * 0.05, n, level * wc_law_point_dynamic(law, n),
			                s->prefill[k] / 0.05);
	}
	wc_response_finish(&g, &st, NGRID * 0.05);
	for (int k = 0; k < NGRID; k++)
		grid[k] /= 0.05;
	wc_response_filter(grid, NGRID, 0.05, tau, law->p0, y);
	for (int i = 0; i < NSAMP; i++) {
		s->t[i] = i * 0.25 + 0.01;
		s->p[i] = y[(int)(s->t[i] / 0.05)] + 3.0 * wc_pcg32_normal(rng);
	}
	free(grid);
	free(y);
}

static void
fill_run(wc_response_run *r, const synth *s, const wc_law_point *law, const char *platform)
{
	memset(r, 0, sizeof *r);
	r->run_id = platform;
	r->platform = platform;
	r->dt = 0.05;
	r->n_grid = NGRID;
	r->running = s->running;
	r->prefill = s->prefill;
	r->n_samples = NSAMP;
	r->t_s = s->t;
	r->power_w = s->p;
	r->law = *law;
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_law_point law;
	wc_error err;
	CHECK_INT(test_paper_law_point("A100", 8.19, &law), WC_OK);

	enum { RUNS = 6 };
	synth *s = calloc(RUNS, sizeof *s);
	wc_response_run runs[RUNS];
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 11, 3);
	/* Runs 0-3 on "A100" (tau 0.2 s), 4-5 on "slow" (tau 0.8 s); the law's
	 * level is 15 % high on all of them. */
	for (int i = 0; i < RUNS; i++) {
		make_run(&s[i], &rng, &law, i < 4 ? 0.2 : 0.8, 0.15, 0.6, 0.85);
		fill_run(&runs[i], &s[i], &law, i < 4 ? "A100" : "slow");
	}
	wc_response_fit_options o = WC_RESPONSE_FIT_OPTIONS_INIT;
	wc_response_params r, r2;
	o.bootstrap = 30;
	o.threads = 1;
	CHECK_INT(wc_fit_response(runs, 4, &o, &r, &err), WC_OK);
	fprintf(stderr, "recovered tau %.4f [%.4f, %.4f] hold %.4f [%.4f, %.4f] ratio %.4f [%.4f, %.4f]\n",
	        r.tau_s.value, r.tau_s.lo, r.tau_s.hi, r.hold_s.value, r.hold_s.lo, r.hold_s.hi,
	        r.prefill_ratio.value, r.prefill_ratio.lo, r.prefill_ratio.hi);
	CHECK(fabs(r.tau_s.value / 0.2 - 1) < 0.1);
	CHECK(fabs(r.hold_s.value / 0.15 - 1) < 0.15);
	CHECK(fabs(r.prefill_ratio.value / 0.6 - 1) < 0.1);
	CHECK(r.tau_s.lo <= 0.2 * 1.02 && r.tau_s.hi >= 0.2 * 0.98);
	CHECK(r.prefill_ratio.lo <= 0.6 * 1.02 && r.prefill_ratio.hi >= 0.6 * 0.98);
	CHECK(r.present && r.fitted && r.runs == 4 && r.rms_w < 6);
	/* The law's level, pooled over the runs, is the map's dynamic scale. */
	fprintf(stderr, "dynamic scale %.4f [%.4f, %.4f]\n", r.dynamic_scale.value, r.dynamic_scale.lo,
	        r.dynamic_scale.hi);
	CHECK_NEAR(r.dynamic_scale.value, 0.85, 0.02);
	CHECK(r.dynamic_scale.lo <= 0.85 * 1.02 && r.dynamic_scale.hi >= 0.85 * 0.98);
	double level;
	double *pred = calloc(NSAMP, sizeof *pred);
	CHECK_INT(wc_response_predict_samples(&runs[0], &r, pred, &level, &err), WC_OK);
	CHECK_NEAR(level, 0.85, 0.02);
	/* The per-run check `fit response` prints: the RMS of those samples'
	 * errors at the run's level, one function for the CLI and the fit. */
	double ss = 0.0, rms, level_rms;
	for (size_t k = 0; k < runs[0].n_samples; k++)
		ss += (pred[k] - runs[0].power_w[k]) * (pred[k] - runs[0].power_w[k]);
	CHECK_INT(wc_response_run_rms(&runs[0], &r, &rms, &level_rms, &err), WC_OK);
	CHECK(rms == sqrt(ss / (double)runs[0].n_samples) && level_rms == level);
	CHECK(rms > 0 && rms < 6);
	free(pred);
	/* Bit-identical with two threads. */
	o.threads = 2;
	CHECK_INT(wc_fit_response(runs, 4, &o, &r2, &err), WC_OK);
	CHECK(memcmp(&r, &r2, sizeof r) == 0);
	/* Two platforms: a time constant each. */
	o.bootstrap = 0;
	CHECK_INT(wc_fit_response(runs, RUNS, &o, &r, &err), WC_OK);
	CHECK_INT(r.n_levels, 2);
	fprintf(stderr, "per level: %s %.4f, %s %.4f\n", r.levels[0].level, r.levels[0].tau_s.value,
	        r.levels[1].level, r.levels[1].tau_s.value);
	CHECK(fabs(wc_response_tau_for(&r, "A100") / 0.2 - 1) < 0.1);
	CHECK(fabs(wc_response_tau_for(&r, "slow") / 0.8 - 1) < 0.1);
	CHECK_INT(r.levels[1].runs, 2);
	/* One run is not enough. */
	CHECK_INT(wc_fit_response(runs, 1, &o, &r, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "runs: the response fit needs at least two runs");
	free(s);
	return check_report("test_fit_response");
}

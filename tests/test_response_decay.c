/*
 * Hold and decay of the power response (models/response.h,
 * docs/envelopes.md "Hold and decay"): after the hold, the busy level
 * decays with its time constant, added to the grid as exact integrals; no
 * decay is bit-identical to the response without one; a parameter file
 * keeps decay_s and one written before it existed loads with none; and
 * the response fit recovers a known decay from runs simulated through the
 * same kernel; a fitted value at its upper bound is named as the bound's.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/check.h"
#include "tests/support/support.h"
#include "tests/support/synth_bursts.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One busy second at D W, then idle to 5 s: the gap holds D for `hold`,
 * then D e^(-t/decay), integral D (hold + decay (1 - e^(-(4 - hold)/decay))). */
static void
test_kernel(void)
{
	enum { N = 100 };
	double a[N] = { 0 }, b[N] = { 0 };
	const double D = 120.0, hold = 0.2, decay = 0.5, dt = 0.05;
	wc_response_grid ga = { dt, N, a, NULL, NULL, NULL }, gb = { dt, N, b, NULL, NULL, NULL };
	wc_response_state sa, sb;
	wc_response_state_init(&sa, 0.0, 0.0, hold);
	wc_response_state_decay(&sa, decay);
	wc_response_add(&ga, &sa, 0.0, 1.0, 4, D, 0.0);
	wc_response_finish(&ga, &sa, 5.0);
	double total = 0.0;
	for (int k = 0; k < N; k++)
		total += a[k];
	double expect = D * 1.0 + D * (hold + decay * (1.0 - exp(-(4.0 - hold) / decay)));
	fprintf(stderr, "energy with hold and decay: %.12g J, expected %.12g J\n", total, expect);
	CHECK(fabs(total / expect - 1) < 1e-12);
	/* Each bin of the decay is its exact integral: the bin after the hold. */
	int k = (int)round((1.0 + hold) / dt);
	CHECK(fabs(a[k] / (D * decay * (1 - exp(-dt / decay))) - 1) < 1e-9);
	CHECK(a[k + 1] < a[k] && a[k + 1] > 0);
	/* A later segment cuts the decay off where it starts. */
	memset(a, 0, sizeof a);
	wc_response_state_init(&sa, 0.0, 0.0, hold);
	wc_response_state_decay(&sa, decay);
	wc_response_add(&ga, &sa, 0.0, 1.0, 4, D, 0.0);
	wc_response_add(&ga, &sa, 2.0, 3.0, 4, D, 0.0);
	wc_response_finish(&ga, &sa, 3.0);
	total = 0.0;
	for (k = 0; k < N; k++)
		total += a[k];
	expect = 2 * D + D * (hold + decay * (1.0 - exp(-(1.0 - hold) / decay)));
	CHECK(fabs(total / expect - 1) < 1e-12);
	/* No decay: the same bits as a state that never heard of it. */
	memset(a, 0, sizeof a);
	wc_response_state_init(&sa, 50.0, 10.0, hold);
	wc_response_state_init(&sb, 50.0, 10.0, hold);
	wc_response_state_decay(&sa, 0.0);
	for (int i = 0; i < 5; i++) {
		wc_response_add(&ga, &sa, i * 0.9, i * 0.9 + 0.37, 3, D, 0.2);
		wc_response_add(&gb, &sb, i * 0.9, i * 0.9 + 0.37, 3, D, 0.2);
	}
	wc_response_finish(&ga, &sa, 5.0);
	wc_response_finish(&gb, &sb, 5.0);
	CHECK(memcmp(a, b, sizeof a) == 0);
}

static void
test_file(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	wc_response_assumed(&p.response);
	p.response.fitted = 1;
	p.response.decay_s = (wc_response_value){ 0.3, 0.2, 0.45 };
	char *s = wc_params_dump(&p, 0, &err);
	CHECK(s && strstr(s, "\"decay_s\""));
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "mem", &q, &err), WC_OK);
	CHECK(q.response.decay_s.value == 0.3 && q.response.decay_s.lo == 0.2 && q.response.decay_s.hi == 0.45);
	free(s);
	/* Without decay the key is not written, and a file without it loads
	 * with none. */
	p.response.decay_s = (wc_response_value){ 0.0, NAN, NAN };
	s = wc_params_dump(&p, 0, &err);
	CHECK(s && !strstr(s, "\"decay_s\"") && strstr(s, "\"hold_s\""));
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "mem", &q, &err), WC_OK);
	CHECK(q.response.present && q.response.decay_s.value == 0.0 && isnan(q.response.decay_s.lo));
	free(s);
	/* Out of range: refused with the key named. */
	p.response.decay_s = (wc_response_value){ 100.0, NAN, NAN };
	CHECK(wc_response_validate(&p.response, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "response/decay_s: must be a number between 0 and 60");
	wc_params_clear(&p);
	wc_params_clear(&q);
}

#define NGRID 2400 /* 120 s of 50 ms */
#define NSAMP 1200 /* every 100 ms */

static void
test_fit(void)
{
	wc_law_point law;
	wc_error err;
	CHECK_INT(test_paper_law_point("A100", 8.19, &law), WC_OK);
	enum { RUNS = 3 };
	synth_bursts s[RUNS];
	wc_response_run runs[RUNS];
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 5, 1);
	for (int i = 0; i < RUNS; i++)
		CHECK_INT(synth_bursts_make(&s[i], NGRID, NSAMP, &rng, &law, 0.15, 0.4, &runs[i]), 0);
	wc_response_fit_options o = WC_RESPONSE_FIT_OPTIONS_INIT;
	wc_response_params r;
	o.bootstrap = 0;
	CHECK_INT(wc_fit_response(runs, RUNS, &o, &r, &err), WC_OK);
	fprintf(stderr, "recovered hold %.4f s (0.15), decay %.4f s (0.4), tau %.4f s (0.1), ratio %.3f (0.5)\n",
	        r.hold_s.value, r.decay_s.value, wc_response_tau_for(&r, "A100"), r.prefill_ratio.value);
	CHECK(fabs(r.decay_s.value / 0.4 - 1) < 0.1);
	CHECK(fabs(r.hold_s.value / 0.15 - 1) < 0.2);
	CHECK(fabs(wc_response_tau_for(&r, "A100") / 0.1 - 1) < 0.1);
	for (int i = 0; i < RUNS; i++)
		synth_bursts_free(&s[i]);
}

/* A fitted value at its upper bound is named, once, with the bound; one
 * just inside it, or an assumed response, is not. */
static void
test_bound_note(void)
{
	wc_response_params r;
	wc_response_assumed(&r);
	char buf[512];
	r.decay_s.value = WC_RESPONSE_MAX_DECAY_S;
	CHECK_INT(wc_response_bound_note(&r, buf, sizeof buf), 0); /* assumed, not fitted */
	CHECK(buf[0] == '\0');
	r.fitted = 1;
	CHECK_INT(wc_response_bound_note(&r, buf, sizeof buf), 1);
	fprintf(stderr, "bound note: %s\n", buf);
	CHECK(strstr(buf, "decay_s 60 s") != NULL && strstr(buf, "upper bound") != NULL);
	CHECK(strstr(buf, "hold_s") == NULL);
	r.decay_s.value = 0.999 * WC_RESPONSE_MAX_DECAY_S;
	CHECK_INT(wc_response_bound_note(&r, buf, sizeof buf), 0);
	r.n_levels = 1;
	snprintf(r.levels[0].level, sizeof r.levels[0].level, "A100");
	r.levels[0].tau_s.value = WC_RESPONSE_MAX_TAU_S;
	r.hold_s.value = WC_RESPONSE_MAX_HOLD_S;
	CHECK_INT(wc_response_bound_note(&r, buf, sizeof buf), 2);
	CHECK(strstr(buf, "hold_s 60 s, tau_s[A100] 60 s") != NULL);
	CHECK_INT(wc_response_bound_note(&r, buf, 8), 2); /* cut short, still terminated */
	CHECK(strlen(buf) < 8);
}

int
main(void)
{
	gsl_set_error_handler_off();
	test_kernel();
	test_file();
	test_fit();
	test_bound_note();
	return check_report("test_response_decay");
}

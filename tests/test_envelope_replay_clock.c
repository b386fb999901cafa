/*
 * A replayed log's settled clock under the board's limit (docs/envelopes.md,
 * "Board limit"): its clock starts after the warm-up, which holds none of
 * its requests, so the steady rate predict settles the clock for is the
 * log's requests over the horizon, whatever the warm-up. A100, Qwen3-32B,
 * measured profile, 600 requests 0.1 s apart of 512 + 256 tokens over a
 * 60-s horizon: 10 requests/s and 1159 MHz with no warm-up (1201 MHz with
 * the published design's A100 idle until 2026-12-07); with a warm-up
 * of 600 s the rate was diluted to 0.909/s and the clock rose to 1274 MHz
 * (0.6531 J per token beside 0.6826). A Poisson load draws arrivals in its
 * warm-up, and keeps the mean over warm-up and horizon.
 */
#include "predict/envelope_internal.h"
#include "data/data.h"
#include "predict/predict.h"
#include "predict/capacity_predict.h"
#include "tests/support/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_LOG 600

static double at[N_LOG], in[N_LOG], out[N_LOG];

/* the rate the limit note gives ("at the steady R requests/s"), or NaN */
static double
noted_rate(const wc_envelope_result *r)
{
	for (int i = 0; i < r->n_warnings; i++) {
		const char *s = strstr(r->warnings[i], "at the steady ");
		if (s && strstr(r->warnings[i], "the run served and drew at "))
			return strtod(s + strlen("at the steady "), NULL);
	}
	return NAN;
}

static void
run(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm, double warmup_s,
    double *mhz, double *rate, double *ept)
{
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	o.warmup_s = warmup_s;
	o.replicas = 1;
	CHECK_INT(wc_envelope_run(w, st, pm, &o, &r, &err), WC_OK);
	*mhz = r.service_clock_mhz;
	*rate = noted_rate(&r);
	*ept = r.server.energy_per_token_j.value;
	printf("%s, warm-up %4.0f s: %.1f MHz at the steady %.4g requests/s, %.5f J per token\n",
	       wc_envelope_kind_name(w->kind), warmup_s, *mhz, *rate, *ept);
	wc_envelope_result_clear(&r);
}

int
main(void)
{
	wc_params m = WC_PARAMS_INIT;
	wc_config c = WC_CONFIG_INIT;
	wc_capacity_service_store cs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_envelope_workload w;
	wc_error err;
	c.platform = "A100";
	c.tp = 1;
	c.arch = wc_model_lookup("Qwen3-32B");
	c.active_params_b = c.arch->active_params_b;
	CHECK_INT(wc_params_profile("measured", &m, &err), WC_OK);
	CHECK_INT(wc_capacity_service(&m, &c, &cs, &st, &err), WC_OK);
	CHECK_INT(wc_power_map_from_law(&m, &c, NULL, &store, &pm, &err), WC_OK);
	for (int i = 0; i < N_LOG; i++) {
		at[i] = 0.1 * i;
		in[i] = 512;
		out[i] = 256;
	}
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_REPLAY;
	w.arrival_s = at;
	w.arrival_input = in;
	w.arrival_output = out;
	w.n_arrivals = N_LOG;
	double mhz0, rate0, ept0, mhz, rate, ept;
	run(&w, &st, &pm, 0.0, &mhz0, &rate0, &ept0);
	CHECK_NEAR(rate0, 10.0, 1e-9);
	CHECK(mhz0 > 1140 && mhz0 < 1180);
	static const double warmups[] = { 60.0, 600.0 };
	for (size_t k = 0; k < sizeof warmups / sizeof *warmups; k++) {
		run(&w, &st, &pm, warmups[k], &mhz, &rate, &ept);
		/* the same requests at the same times after the warm-up: the
		 * same steady rate, clock and energy per token */
		CHECK_NEAR(rate, rate0, 1e-12);
		CHECK(mhz == mhz0);
		CHECK_NEAR(ept / ept0, 1.0, 1e-9);
	}
	/* Poisson draws arrivals in its warm-up: its mean over warm-up and
	 * horizon is its rate, whatever the warm-up */
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 2.0;
	w.input.mean = 512;
	w.output.mean = 256;
	run(&w, &st, &pm, 600.0, &mhz, &rate, &ept);
	CHECK_NEAR(rate, 2.0, 1e-9);
	wc_params_clear(&m);
	return check_report("test_envelope_replay_clock");
}

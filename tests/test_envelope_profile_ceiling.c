/*
 * A rate profile's requests keep running after the step they arrived in
 * (docs/intervals.md, "Physical ceiling"): the top of an envelope's mean
 * interval counts their life past the step as loaded. Taken step by step,
 * A100 Qwen3-8B at 20 requests/s for one second of 30 (rate 0 before and
 * after) had its ceiling at (1 x 440 + 29 x 72.93) / 30 = 85.2 W, below
 * the simulated mean of 117.44 W, so the interval's top was the point
 * itself; a fleet of 4 under a bursty profile alike. A ceiling below the
 * point says the idle share is wrong for the load: the boards' ceiling
 * holds then, never the point.
 */
#include "predict/envelope_internal.h"
#include "models/profile_measured.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
	wc_params p;
	wc_config c;
	wc_power_map pm;
	wc_power_map_law law;
	wc_service_store store;
	wc_service_times st;
	wc_envelope_workload w;
	wc_envelope_options o;
} fixture;

static fixture *
setup(void)
{
	fixture *f = calloc(1, sizeof *f); /* the service store is large */
	wc_error err;
	wc_params_measured(&f->p); /* the answers' profile */
	f->c = test_catalog_config("A100", 1, "Qwen3-8B", 0);
	f->c.input_tokens = 512;
	f->c.output_tokens = 256;
	CHECK_INT(wc_service_select(&f->p, &f->c, WC_SERVICE_AUTO, &f->store, &f->st, &err), WC_OK);
	CHECK_INT(wc_power_map_from_law(&f->p, &f->c, NULL, &f->law, &f->pm, &err), WC_OK);
	CHECK(f->pm.has_pe && f->pm.idle_w > 0.0 && f->pm.max_w > 0.0);
	wc_envelope_workload_init(&f->w);
	f->w.kind = WC_ENVELOPE_POISSON;
	f->w.input = (wc_length_dist){ WC_LENGTH_FIXED, 512, 0, NULL, 0 };
	f->w.output = (wc_length_dist){ WC_LENGTH_FIXED, 256, 0, NULL, 0 };
	wc_envelope_options_init(&f->o);
	f->o.threads = 1;
	f->o.tau_s = 0.05;
	f->o.hold_s = 0.1;
	f->o.decay_s = 0.0;
	return f;
}

static void
teardown(fixture *f)
{
	wc_params_clear(&f->p);
	free(f);
}

/* 20 requests/s over 10-11 s of 30: above the point, at most the boards'
 * ceiling from the step's start to a request's life after its end */
static void
one_second_burst(void)
{
	static const double until[] = { 10.0, 11.0, 30.0 }, rates[] = { 0.0, 20.0, 0.0 };
	fixture *f = setup();
	wc_envelope_result r;
	wc_error err;
	f->w.n_profile = 3;
	f->w.profile_until_s = until;
	f->w.profile_rate = rates;
	f->o.horizon_s = 30.0;
	CHECK_INT(wc_envelope_run(&f->w, &f->st, &f->pm, &f->o, &r, &err), WC_OK);
	const double mean = r.server.mean_w.value, hi = r.server_interval.mean_hi;
	const double p0 = f->pm.idle_w * f->pm.tp, top = wc_power_ceiling_w(f->pm.max_w, f->pm.tp);
	/* Little's law: the replicas' count over the horizon per arrival */
	const double life = r.server.mean_running.value * 30.0 / 20.0, busy = (1.0 + life) / 30.0;
	printf("mean %.2f W, interval %.2f-%.2f W; life %.2f s, busy share <= %.3f: %.2f W; after the step: %.2f W\n",
	       mean, r.server_interval.mean_lo, hi, life, busy, busy * top + (1.0 - busy) * p0,
	       (20.0 * top + 10.0 * p0) / 30.0);
	CHECK(hi > mean + 1.0); /* was the point: 117.44 W */
	CHECK(hi <= busy * top + (1.0 - busy) * p0 + 1e-9);
	CHECK(hi <= (20.0 * top + 10.0 * p0) / 30.0); /* the first 10 s run nothing */
	wc_envelope_result_clear(&r);
	teardown(f);
}

/* a fleet of 4 under bursty arrivals, 30/s for 10 s of 60: each ends
 * above its point */
static void
bursty_fleet(void)
{
	static const double until[] = { 10.0, 60.0 }, rates[] = { 30.0, 0.0 };
	fixture *f = setup();
	wc_envelope_result r;
	wc_error err;
	f->w.kind = WC_ENVELOPE_BURSTY;
	f->w.burstiness = 0.5;
	f->w.n_profile = 2;
	f->w.profile_until_s = until;
	f->w.profile_rate = rates;
	f->o.horizon_s = 60.0;
	f->o.replicas = 5;
	f->o.fleet_size = 4;
	CHECK_INT(wc_envelope_run(&f->w, &f->st, &f->pm, &f->o, &r, &err), WC_OK);
	printf("fleet of 4: server %.2f W, top %.2f W; fleet %.2f W, top %.2f W\n", r.server.mean_w.value,
	       r.server_interval.mean_hi, r.fleet.mean_w.value, r.fleet_interval.mean_hi);
	CHECK(r.server_interval.mean_hi > r.server.mean_w.value + 1.0);
	CHECK(r.fleet_interval.mean_hi > r.fleet.mean_w.value + 1.0);
	wc_envelope_result_clear(&r);
	teardown(f);
}

/* a profile of one step is the single rate: the same top, bit for bit */
static void
one_step_is_the_rate(void)
{
	static const double until[] = { 60.0 }, rates[] = { 0.2 };
	fixture *f = setup();
	wc_envelope_result r;
	wc_error err;
	f->w.rate = 0.2;
	f->o.horizon_s = 60.0;
	f->o.replicas = 5;
	CHECK_INT(wc_envelope_run(&f->w, &f->st, &f->pm, &f->o, &r, &err), WC_OK);
	const double single = r.server_interval.mean_hi;
	wc_envelope_result_clear(&r);
	f->w.rate = 0.0;
	f->w.n_profile = 1;
	f->w.profile_until_s = until;
	f->w.profile_rate = rates;
	CHECK_INT(wc_envelope_run(&f->w, &f->st, &f->pm, &f->o, &r, &err), WC_OK);
	printf("rate 0.2: top %.4f W; one step of 0.2: %.4f W\n", single, r.server_interval.mean_hi);
	CHECK(isfinite(single) && r.server_interval.mean_hi == single);
	wc_envelope_result_clear(&r);
	teardown(f);
}

/* a ceiling below the point is not held: the boards' is */
static void
ceiling_below_point(void)
{
	fixture *f = setup();
	wc_envelope_summary s = { 0 };
	wc_envelope_interval iv;
	int drawn = -1;
	s.mean_w.value = 200.0;
	s.p95_w.value = 300.0;
	const double board = wc_power_ceiling_w(f->pm.max_w, f->pm.tp);
	CHECK_INT(wc__envelope_predictive(&f->pm, &s, 1, 150.0, 8.0, &iv, &drawn), 0);
	printf("ceiling 150 W under a mean of 200 W: %.2f-%.2f W (boards' %.0f W)\n", iv.mean_lo, iv.mean_hi, board);
	CHECK(iv.mean_hi > 200.0 && iv.mean_hi <= board);
	teardown(f);
}

int
main(void)
{
	gsl_set_error_handler_off();
	one_second_burst();
	bursty_fleet();
	one_step_is_the_rate();
	ceiling_below_point();
	return check_report("test_envelope_profile_ceiling");
}

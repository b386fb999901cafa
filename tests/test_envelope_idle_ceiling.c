/*
 * An envelope's mean-power interval ends where predict's does
 * (docs/intervals.md, "Physical ceiling"): its idle share draws P0, the
 * rest at most the boards' ceiling, the time the hold keeps busy counted
 * as loaded; nothing running (n = 0 throughout) has no interval, an
 * envelope's nor a budget plan's, and says why ("Where it applies").
 * Until 2026-12-06 envelopes and plans held only the boards' ceiling:
 * H100 Qwen3-8B, n(t) 0, 0, 0, 64, had its mean of 214.9 W offered up to
 * 314.4 W (the loaded second at 878 W on a 770 W ceiling), and an all-idle
 * n(t) an interval 126.3-184.8 W around its exact 126.3 W.
 */
#include "predict/predict.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

typedef struct {
	wc_params p;
	wc_config c;
	wc_power_map pm;
	wc_power_map_law store;
	wc_envelope_workload w;
	wc_envelope_options o;
} fixture;

static void
setup(fixture *f, const double *n, size_t len, double dt, double hold_s)
{
	wc_error err;
	f->p = (wc_params)WC_PARAMS_INIT;
	wc_params_default(&f->p);
	f->c = (wc_config)WC_CONFIG_INIT;
	f->c.platform = "H100";
	f->c.arch = wc_model_lookup("Qwen3-8B");
	f->c.active_params_b = f->c.arch->active_params_b;
	CHECK_INT(wc_power_map_from_law(&f->p, &f->c, NULL, &f->store, &f->pm, &err), WC_OK);
	CHECK(f->pm.has_pe && f->pm.idle_w > 0.0 && f->pm.max_w > 0.0);
	wc_envelope_workload_init(&f->w);
	f->w.kind = WC_ENVELOPE_SERIES;
	f->w.series_running = n;
	f->w.series_len = len;
	f->w.series_dt_s = dt;
	wc_envelope_options_init(&f->o);
	f->o.horizon_s = (double)len * dt;
	f->o.replicas = 1;
	f->o.tau_s = 0.05;
	f->o.hold_s = hold_s;
	f->o.decay_s = 0.0;
}

static int
warned(const wc_envelope_result *r, const char *needle)
{
	for (int i = 0; i < r->n_warnings; i++)
		if (strstr(r->warnings[i], needle))
			return 1;
	return 0;
}

/* Three idle seconds and one at 64: predict's series ceiling, 3/4 x P0 +
 * 1/4 x 1.1 x 700 W, ends the mean's interval, not 770 W. */
static void
loaded_share(void)
{
	static const double n[] = { 0, 0, 0, 64 };
	fixture f;
	wc_envelope_result r;
	wc_error err;
	setup(&f, n, 4, 1.0, 0.0);
	CHECK_INT(wc_envelope_run(&f.w, NULL, &f.pm, &f.o, &r, &err), WC_OK);
	const double top = 0.75 * f.pm.idle_w + 0.25 * 1.1 * f.pm.max_w;
	printf("mean %.2f W, interval %.2f-%.2f W, series ceiling %.2f W\n", r.server.mean_w.value,
	       r.server_interval.mean_lo, r.server_interval.mean_hi, top);
	CHECK(r.server.mean_w.value < top);
	CHECK_NEAR(r.server_interval.mean_hi, top, 1e-6);
	wc_envelope_result_clear(&r);
	/* 32 and 0 by turns every 0.25 s: half idle though every 1-s bin
	 * averages 16; the hold of 0.1 s keeps 0.1 of each 0.25 s gap busy */
	double alt[240];
	for (int i = 0; i < 240; i++)
		alt[i] = i % 2 ? 0.0 : 32.0;
	setup(&f, alt, 240, 0.25, 0.0);
	CHECK_INT(wc_envelope_run(&f.w, NULL, &f.pm, &f.o, &r, &err), WC_OK);
	CHECK_NEAR(r.server_interval.mean_hi, 0.5 * f.pm.idle_w + 0.5 * 1.1 * f.pm.max_w, 1e-6);
	wc_envelope_result_clear(&r);
	setup(&f, alt, 240, 0.25, 0.1);
	CHECK_INT(wc_envelope_run(&f.w, NULL, &f.pm, &f.o, &r, &err), WC_OK);
	printf("held: mean %.2f W, interval to %.2f W\n", r.server.mean_w.value, r.server_interval.mean_hi);
	CHECK_NEAR(r.server_interval.mean_hi, 0.3 * f.pm.idle_w + 0.7 * 1.1 * f.pm.max_w, 1e-3);
	CHECK(r.server.mean_w.value < r.server_interval.mean_hi);
	wc_envelope_result_clear(&r);
	/* a fleet of three in lockstep: three times one server's */
	setup(&f, n, 4, 1.0, 0.0);
	f.o.fleet_size = 3;
	CHECK_INT(wc_envelope_run(&f.w, NULL, &f.pm, &f.o, &r, &err), WC_OK);
	CHECK_NEAR(r.fleet_interval.mean_hi, 3 * top, 1e-6);
	wc_envelope_result_clear(&r);
}

/* Nothing runs: no interval, an envelope's nor a plan's, and a warning. */
static void
all_idle(void)
{
	static const double n[] = { 0, 0, 0, 0 };
	fixture f;
	wc_envelope_result r;
	wc_error err;
	setup(&f, n, 4, 1.0, 0.1);
	CHECK_INT(wc_envelope_run(&f.w, NULL, &f.pm, &f.o, &r, &err), WC_OK);
	CHECK_NEAR(r.server.mean_w.value, f.pm.idle_w, 1e-9);
	CHECK(isnan(r.server_interval.mean_lo) && isnan(r.server_interval.mean_hi));
	CHECK(isnan(r.server_interval.p95_lo) && isnan(r.fleet_interval.mean_hi));
	CHECK(warned(&r, WC_ENVELOPE_IDLE_NOTE));
	CHECK(strlen(WC_ENVELOPE_IDLE_NOTE) < WC_WARNING_LEN);
	wc_envelope_result_clear(&r);

	wc_budget_options bo = { 1000.0, WC_BUDGET_P95, 1000, 1.0 };
	wc_budget_plan plan;
	CHECK_INT(wc_envelope_budget(&f.w, NULL, &f.pm, &f.o, &bo, &plan, &err), WC_OK);
	printf("plan: %d servers, %.1f W, interval %g-%g W\n", plan.fleet_size, plan.stat_w, plan.stat_lo_w,
	       plan.stat_hi_w);
	CHECK_INT(plan.fleet_size, (int)floor(1000.0 / f.pm.idle_w));
	CHECK(isnan(plan.stat_lo_w) && isnan(plan.stat_hi_w));
	int found = 0;
	for (int i = 0; i < plan.n_warnings; i++)
		found |= strcmp(plan.warnings[i], WC_ENVELOPE_IDLE_NOTE) == 0;
	CHECK(found);
}

int
main(void)
{
	gsl_set_error_handler_off();
	loaded_share();
	all_idle();
	return check_report("test_envelope_idle_ceiling");
}

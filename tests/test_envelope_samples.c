/*
 * An envelope's mean is exact over the horizon (every 50-ms grid value),
 * its p5, p50, p95 and max are of the meter's samples at sample_s
 * (docs/envelopes.md, "Outputs"; docs/trace-metrics.md). With fewer than
 * WC_ENVELOPE_QUANTILE_SAMPLES (20) samples a 5 % tail holds less than
 * one, and the quantiles and the max may sit below the mean: every answer
 * (library, CLI text and --json) then says how many samples they are of,
 * once, and one of 20 samples or more says nothing. A closed loop of 8
 * over 10 s sampled every 9.95 s answered a max of 306.04 W under a mean
 * of 314.33 W with no word.
 */
#include "predict/envelope.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const few = "sample_s: p5, p50, p95 and max are of ";
static const char *const tail = ", fewer than the 20 a 5 % tail needs to hold one; so few may sit below mean_w, the "
                                "exact mean over the horizon (docs/envelopes.md, \"Outputs\")";

/* The warnings among `n` that the quantiles are of few samples; each
 * whole, naming `count` samples every `every`. */
static int
few_said(char (*warnings)[WC_WARNING_LEN], int n, const char *count_every)
{
	int said = 0;
	for (int i = 0; i < n; i++) {
		if (strncmp(warnings[i], few, strlen(few)) != 0)
			continue;
		said++;
		CHECK_CONTAINS(warnings[i], count_every);
		CHECK_CONTAINS(warnings[i], tail);
	}
	return said;
}

/* One closed loop of 8 (the default lengths) over `horizon_s`, sampled
 * every `sample_s`, `fleet` servers: the warnings that say so. */
static int
run_said(double horizon_s, double sample_s, int fleet, const char *count_every)
{
	wc_params paper;
	wc_config c = WC_CONFIG_INIT;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_params_default(&paper);
	c.platform = "A100";
	c.tp = 1;
	c.arch = wc_model_lookup("Qwen3-8B");
	c.active_params_b = c.arch->active_params_b;
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_OK);
	wc_roofline_standin_service(&rs, &st);
	CHECK_INT(wc_power_map_from_law(&paper, &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_workload_init(&w);
	w.concurrency = 8;
	wc_envelope_options_init(&o);
	o.horizon_s = horizon_s;
	o.sample_s = sample_s;
	o.bin_s = wc_envelope_bin_within(o.bin_s, horizon_s);
	o.replicas = 1;
	o.fleet_size = fleet;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
	CHECK_INT((int)wc_envelope_samples(horizon_s, sample_s) < WC_ENVELOPE_QUANTILE_SAMPLES, count_every != NULL);
	const int said = few_said(r.warnings, r.n_warnings, count_every ? count_every : "");
	wc_envelope_result_clear(&r);
	wc_params_clear(&paper);
	return said;
}

static void
test_library(void)
{
	/* the tester's: t = 0 and 9.95 s */
	CHECK_INT(run_said(10, 9.95, 1, "of 2 meter samples every 9.95 s"), 1);
	/* a fleet's aggregate has the same samples: said once */
	CHECK_INT(run_said(10, 9.95, 3, "of 2 meter samples every 9.95 s"), 1);
	/* the bound: 19 samples say so, 20 do not */
	CHECK_INT(run_said(10, 0.55, 1, "of 19 meter samples every 0.55 s"), 1);
	CHECK_INT(run_said(10, 0.5, 1, NULL), 0);
	/* the default cadence of 0.1 s over a short horizon */
	CHECK_INT(run_said(1.9, 0.1, 1, "of 19 meter samples every 0.1 s"), 1);
	CHECK_INT(run_said(2, 0.1, 1, NULL), 0);
	/* a one-step horizon: its one value, one sample */
	CHECK_INT(run_said(0.05, 0.05, 1, "of 1 meter sample every 0.05 s"), 1);
}

/* The CLI's text and --json say it as the library does. */
static void
test_cli(void)
{
	run_result r;
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--replicas", "1", "--horizon", "10", "--sample", "9.95", "--profile", "paper", NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: sample_s: p5, p50, p95 and max are of 2 meter samples every 9.95 s");
	run_result_free(&r);
	const char *json[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--replicas", "1", "--horizon", "10", "--sample", "9.95", "--profile", "paper", "--json",
		               NULL };
	CHECK_INT(run_wattcast(json, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *root = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *ws = json_object_get(root, "warnings");
	int said = 0;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		if (m && strncmp(m, few, strlen(few)) == 0) {
			said++;
			CHECK_CONTAINS(m, "of 2 meter samples every 9.95 s");
			CHECK_CONTAINS(m, tail);
		}
	}
	CHECK_INT(said, 1);
	json_decref(root);
	run_result_free(&r);
	/* 20 samples: nothing said */
	const char *many[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--replicas", "1", "--horizon", "10", "--sample", "0.5", "--profile", "paper", NULL };
	CHECK_INT(run_wattcast(many, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && strstr(r.out, few) == NULL);
	run_result_free(&r);
}

int
main(void)
{
	gsl_set_error_handler_off();
	test_library();
	test_cli();
	return check_report("test_envelope_samples");
}

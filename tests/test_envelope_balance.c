/*
 * A least_loaded fleet's one server is a typical one (docs/envelopes.md,
 * "Workloads"): among servers equally loaded the balancer sends the next
 * request to the one that waited longest for one, taking turns as
 * nginx's least_conn and HAProxy's leastconn do. Ties went to the lowest
 * index before, so server 0 -- the answer's one server -- took every
 * tie: on A100 Qwen3-8B at Poisson 2 req/s per server, 4 servers over
 * 600 s, it served 4.4 % more output tokens than the fleet's mean and
 * drew 3.4 % less energy per token with the CLI's profile (seed 1:
 * 319 435 tokens and 0.5859 J/token against 305 987 and 0.6062), and
 * here, with the default parameters, +2.5 % and -2.1 % (seed 2); now
 * within 0.05 %, as round_robin.
 */
#include "predict/envelope_internal.h"
#include "predict/capacity_predict.h"
#include "predict/heap_internal.h"
#include "predict/predict.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

static wc_params params;

/* The indexed heap's second key: equal keys go by it, then by index. */
static void
test_ties_by_age(void)
{
	wc__iheap ih = { 0 };
	CHECK_INT(wc__iheap_init(&ih, 3, 0.0), WC_OK);
	CHECK(ih.heap[0] == 0);
	wc__iheap_update_tie(&ih, 0, 0.0, 1);
	CHECK(ih.heap[0] == 1); /* 1 and 2 never sent to: the lower index */
	wc__iheap_update_tie(&ih, 1, 0.0, 2);
	CHECK(ih.heap[0] == 2);
	wc__iheap_update_tie(&ih, 2, 0.0, 3);
	CHECK(ih.heap[0] == 0); /* all sent to: the oldest */
	wc__iheap_update(&ih, 0, 1.0); /* the key first, its tie kept */
	CHECK(ih.heap[0] == 1);
	CHECK(ih.tie[0] == 1);
	wc__iheap_free(&ih);
}

static void
test_server_is_typical(void)
{
	wc_config c = WC_CONFIG_INIT;
	c.platform = "A100";
	c.tp = 1;
	c.arch = wc_model_lookup("Qwen3-8B");
	c.active_params_b = c.arch->active_params_b;
	wc_capacity_service_store cs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	CHECK_INT(wc_capacity_service(&params, &c, &cs, &st, &err), WC_OK);
	CHECK_INT(wc_power_map_from_law(&params, &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 2;
	const wc_fleet_mode modes[] = { WC_FLEET_LEAST_LOADED, WC_FLEET_ROUND_ROBIN };
	for (int m = 0; m < 2; m++)
		for (uint64_t seed = 1; seed <= 2; seed++) {
			wc_envelope_options o;
			wc_envelope_options_init(&o);
			o.horizon_s = 600;
			o.replicas = 5;
			o.seed = seed;
			o.threads = 2;
			o.fleet_size = 4;
			o.fleet_mode = modes[m];
			wc_envelope_result r;
			CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
			const double tok = r.server.output_tokens.value / (r.fleet.output_tokens.value / 4) - 1;
			const double ept = r.server.energy_per_token_j.value / r.fleet.energy_per_token_j.value - 1;
			fprintf(stderr, "mode %d seed %d: server %.0f tokens, %.4f J/token; fleet per server %.0f, %.4f "
			        "(%+.2f %%, %+.2f %%)\n", (int)modes[m], (int)seed, r.server.output_tokens.value,
			        r.server.energy_per_token_j.value, r.fleet.output_tokens.value / 4,
			        r.fleet.energy_per_token_j.value, 100 * tok, 100 * ept);
			/* within 0.5 %: 5 replicas of 1 200 requests each */
			CHECK(fabs(tok) < 0.005);
			CHECK(fabs(ept) < 0.005);
			wc_envelope_result_clear(&r);
		}
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&params);
	test_ties_by_age();
	test_server_is_typical();
	wc_params_clear(&params);
	return check_report("test_envelope_balance");
}

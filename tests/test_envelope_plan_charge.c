/*
 * A budget plan's work bound charges the servers its search can simulate
 * (docs/http-api.md, "Bounds"; docs/envelopes.md, "Budget plans"): the
 * worst case of the sizes it probes, not a power of two x (2 + log2 of
 * it). The charge is the most any fleet size that may fit makes the walk
 * simulate, and at least what real plans simulate: 5 kW of A100 servers
 * sharing Poisson 2 req/s each was charged 1152 server runs (128 x 9) and
 * simulates 72; its worst case is 416 (doubling to 64, bisection 48 to 63).
 */
#include "predict/envelope_internal.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static wc_params params;

/* The servers the walk simulates when the sizes up to `t` fit: the sum of
 * its probes (shared arrivals) and the largest (independent servers). */
static void
walk_at(int max_k, double over, int t, double *sum, double *largest)
{
	wc__plan_walk pw;
	wc__plan_walk_start(&pw, max_k, over);
	*sum = *largest = 0;
	for (int k; (k = wc__plan_walk_next(&pw)) != 0;) {
		*sum += k;
		*largest = fmax(*largest, k);
		wc__plan_walk_seen(&pw, k, k <= t);
	}
}

/* The charge is the walk's worst case over every size that may fit,
 * attained: neither under it (work uncharged) nor over it. */
static void
test_charge_is_the_walks_worst(void)
{
	wc_power_map pm = { 0 };
	pm.idle_w = 60;
	pm.tp = 1;
	const double budgets[] = { 50, 100, 1000, 1234, 5000, 20000, 1e6 };
	const int fleets[] = { 1, 7, 16, 100, 1000 };
	for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++)
		for (size_t j = 0; j < sizeof fleets / sizeof fleets[0]; j++) {
			wc_budget_options bo = { budgets[i], WC_BUDGET_P95, fleets[j], 1.0 };
			const double over = floor(budgets[i] / 60) + 1;
			double sum_max = 0, largest_max = 0;
			for (int t = 0; t <= fleets[j] && t < over; t++) {
				double sum, largest;
				walk_at(fleets[j], over, t, &sum, &largest);
				sum_max = fmax(sum_max, sum);
				largest_max = fmax(largest_max, largest);
			}
			const double shared = wc_envelope_budget_servers(&bo, &pm, WC_FLEET_ROUND_ROBIN);
			const double own = wc_envelope_budget_servers(&bo, &pm, WC_FLEET_INDEPENDENT);
			CHECK(shared == sum_max);
			CHECK(own == largest_max);
			if (shared != sum_max || own != largest_max)
				fprintf(stderr, "  %g W, max_fleet %d: charged %g / %g, walk's worst %g / %g\n", budgets[i],
				        fleets[j], shared, own, sum_max, largest_max);
		}
	/* 20 kW over 60 W idle: 334 servers surely exceed it, the largest
	 * probe; 1 MW is bounded by max_fleet */
	wc_budget_options bo = { 20000, WC_BUDGET_P95, 1000, 1.0 };
	CHECK(wc_envelope_budget_servers(&bo, &pm, WC_FLEET_INDEPENDENT) == 334);
	CHECK(wc_envelope_budget_sets_servers(&bo, &pm));
	bo.budget_w = 1e6;
	CHECK(wc_envelope_budget_servers(&bo, &pm, WC_FLEET_INDEPENDENT) == 1000);
	CHECK(!wc_envelope_budget_sets_servers(&bo, &pm));
}

/* Real plans of A100 servers (the default profile, 72.9 W idle) simulate
 * no more than they are charged, sharing arrivals or not. */
static void
test_plans_within_charge(void)
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
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	o.threads = 2;
	const size_t len = (size_t)llround(o.horizon_s / WC_ENVELOPE_GRID_S);
	/* busy servers, and near-idle ones whose fleet ends by the size
	 * surely over the budget (1000 W: 13 fit, 14 is over) */
	const double rates[] = { 2, 0.01 };
	const double budgets[] = { 300, 1000, 1100, 1200, 2500, 5000 };
	const wc_fleet_mode modes[] = { WC_FLEET_INDEPENDENT, WC_FLEET_ROUND_ROBIN, WC_FLEET_LEAST_LOADED };
	for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
		for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++)
			for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
				wc_budget_options bo = { budgets[i], WC_BUDGET_P95, 1000, 1.0 };
				wc_budget_plan plan;
				w.rate = rates[r];
				o.fleet_mode = modes[m];
				CHECK_INT(wc_envelope_budget(&w, &st, &pm, &o, &bo, &plan, &err), WC_OK);
				const double charged = wc__envelope_plan_servers(&w, &bo, &pm, modes[m], len);
				CHECK(plan.servers_simulated <= charged);
				fprintf(stderr, "%g req/s, %g W, mode %d: %d servers fit, %d simulated, %g charged\n", rates[r],
				        budgets[i], (int)modes[m], plan.fleet_size, plan.servers_simulated, charged);
			}
	/* 5 kW shared: 69 servers surely exceed it (72.9 W idle); the worst
	 * fit is 63 (1 to 32, 64 over, then 48, 56, 60, 62, 63) */
	wc_budget_options bo = { 5000, WC_BUDGET_P95, 1000, 1.0 };
	CHECK(wc_envelope_budget_servers(&bo, &pm, WC_FLEET_ROUND_ROBIN) == 416);
	CHECK(wc_envelope_budget_servers(&bo, &pm, WC_FLEET_INDEPENDENT) == 69);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&params);
	test_charge_is_the_walks_worst();
	test_plans_within_charge();
	wc_params_clear(&params);
	return check_report("test_envelope_plan_charge");
}

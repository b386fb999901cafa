/*
 * The ranges of `wattcast envelope`'s numbers are the HTTP routes' (one
 * limit each, models/limits.h and predict/envelope.h; docs/cli.md,
 * "envelope"):
 * - --budget is > 0 and at most 1e12 W, as budget_w is: the CLI took 2e12
 *   and 1e300 where POST /v1/plan/budget refused past 1e12.
 */
#include "predict/envelope_budget.h"
#include "tests/support/support.h"

#include <string.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B"

static void
expect_usage(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, needle);
	run_result_free(&r);
}

static void
test_budget_range(void)
{
	const char *big[] = { "2e12", "1e300" };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { ENV, "--poisson", "1", "--horizon", "60", "--budget", big[i], NULL };
		char want[64];
		snprintf(want, sizeof want, "--budget: must be at most 1e+12, got '%s'", big[i]);
		expect_usage(argv, want);
	}
	/* the bound itself is a budget */
	const char *top[] = { ENV, "--poisson", "1", "--horizon", "60", "--budget", "1e12", "--max-fleet", "4",
		              "--quiet", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(top, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	/* the library refuses past it too, naming the field */
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 1;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	wc_budget_options bo = { 2e12, WC_BUDGET_P95, 4, 1.0 };
	wc_power_map pm = { 0 };
	wc_budget_plan plan;
	wc_error err;
	CHECK_INT(wc_envelope_budget(&w, NULL, &pm, &o, &bo, &plan, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "budget_w: must be a number of W > 0 and at most 1e+12, got 2000000000000");
}

int
main(void)
{
	test_budget_range();
	return check_report("test_cli_envelope_ranges");
}

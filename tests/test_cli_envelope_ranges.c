/*
 * The ranges of `wattcast envelope`'s numbers are the HTTP routes' (one
 * limit each, models/limits.h and predict/envelope.h; docs/cli.md,
 * "envelope"):
 * - --budget is > 0 and at most 1e12 W, as budget_w is: the CLI took 2e12
 *   and 1e300 where POST /v1/plan/budget refused past 1e12;
 * - --burstiness out of 0.01..1000 gets that range whatever the number, as
 *   the route says it: 0 said "must be > 0" where 0.0099 said the range,
 *   and 1e-320 (strtod underflows) "expected a number" where HTTP parsed it.
 * And a plan's text header says a workload drawing nothing uses no seed,
 * as the envelope's does: a lockstep plan of an n(t) said "one path per
 * fleet size probed (seed 1)".
 */
#include "predict/envelope_budget.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
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

static void
test_burstiness_range(void)
{
	const char *bad[] = { "0", "0.0099", "1e-320", "-1", "1001" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *argv[] = { ENV, "--bursty", "1", "--burstiness", bad[i], "--horizon", "10", NULL };
		char want[96];
		snprintf(want, sizeof want, "--burstiness: must be between 0.01 and 1000, got '%s'", bad[i]);
		expect_usage(argv, want);
	}
	const char *word[] = { ENV, "--bursty", "1", "--burstiness", "low", "--horizon", "10", NULL };
	expect_usage(word, "--burstiness: expected a number, got 'low'");
}

/* The first line of `argv`'s text answer (exit 0), malloc'd. */
static char *
header_of(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s\n", r.err ? r.err : "");
	const char *out = r.out ? r.out : "";
	char *line = strndup(out, strcspn(out, "\n"));
	run_result_free(&r);
	return line;
}

static void
test_plan_header(void)
{
	char *dir = test_tmpdir("cli_envelope_ranges"), *ns = path_join(dir, "n16.csv");
	CHECK_INT(write_text(ns, "t_s,running\n0,16\n600,16\n"), 0);
	const char *series[] = { ENV, "--n-series", ns, "--budget", "5000", NULL };
	char *h = header_of(series);
	CHECK_CONTAINS(h, "600 s, simulated once: an n(t) draws nothing at random, so --seed and --replicas change "
	                  "nothing");
	CHECK(strstr(h, "seed 1") == NULL);
	free(h);
	const char *closed[] = { ENV, "--closed", "8", "--horizon", "60", "--budget", "5000", NULL, NULL, NULL };
	h = header_of(closed);
	CHECK_CONTAINS(h, "60 s, simulated once: a closed loop of fixed lengths draws nothing at random");
	free(h);
	/* servers sharing its clients are no lockstep: one path per probe, no seed */
	closed[12] = "--fleet-mode";
	closed[13] = "round_robin";
	h = header_of(closed);
	CHECK_CONTAINS(h, "60 s x one path per fleet size probed: a closed loop of fixed lengths draws nothing at "
	                  "random, so --seed changes nothing");
	free(h);
	const char *drawn[] = { ENV, "--poisson", "1", "--horizon", "60", "--budget", "5000", NULL };
	h = header_of(drawn);
	CHECK_CONTAINS(h, "60 s x one path per fleet size probed (seed 1)");
	free(h);
	free(ns);
	free(dir);
}

int
main(void)
{
	test_budget_range();
	test_burstiness_range();
	test_plan_header();
	return check_report("test_cli_envelope_ranges");
}

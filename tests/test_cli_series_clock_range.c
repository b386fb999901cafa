/*
 * An n(t) envelope or plan on the command line refuses a locked clock
 * outside the board's range, as every other workload and the HTTP routes
 * do (docs/envelopes.md, "Which one"): the range was checked only where
 * service times are built, and an n(t) builds none, so `envelope
 * --n-series FILE --sm-clock 2000` on A100 answered 399.97 W (1 MHz
 * 73.11 W, a 4000 W plan 10 servers) where --poisson 2 exits 2 with
 * "--sm-clock: 2000 MHz is outside the clock range of A100, 210-1410 MHz",
 * and 5000 MHz was refused blaming the law.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `envelope --n-series ns --sm-clock mhz` (a plan with `budget`) exits
 * `status`, and its refusal holds `want` when one is given */
static void
expect(const char *ns, const char *mhz, const char *budget, int status, const char *want)
{
	const char *argv[16] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", ns,
		                 "--horizon", "60", "--sm-clock", mhz, "--quiet" };
	int n = 13;
	if (budget) {
		argv[n++] = "--budget";
		argv[n++] = budget;
	}
	argv[n] = NULL;
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, status);
	if (want)
		CHECK_CONTAINS(r.err, want);
	if (r.status != status)
		fprintf(stderr, "  --sm-clock %s%s%s: %s%s\n", mhz, budget ? " --budget " : "", budget ? budget : "",
		        r.out ? r.out : "", r.err ? r.err : "");
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("series_clock_range");
	char *ns = test_fixture(dir, "n16.csv", "t_s,running\n0,16\n30,16\n60,16\n");
	static const char range[] = "wattcast envelope: --sm-clock: %s MHz is outside the clock range of A100, "
	                            "210-1410 MHz";
	char want[160];
	const char *out[] = { "2000", "1", "5000" };
	for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
		snprintf(want, sizeof want, range, out[i]);
		expect(ns, out[i], NULL, 2, want);
		expect(ns, out[i], "4000", 2, want);
	}
	/* the same words as a workload with service times */
	snprintf(want, sizeof want, range, "2000");
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		               "--horizon", "60", "--sm-clock", "2000", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
	/* a clock in range answers */
	expect(ns, "1200", NULL, 0, NULL);
	expect(ns, "210", "4000", 0, NULL);
	free(ns);
	free(dir);
	return check_report("test_cli_series_clock_range");
}

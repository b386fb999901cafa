/*
 * metrics' counts (--requests, --output-tokens, --iterations) divide the
 * log's energy: a count too small for a double (4e-320) printed
 * "energy_per_request_j inf", null in JSON, exit 0. A count below
 * WC_METRICS_MIN_COUNT is now exit 2 naming the flag and the floor
 * (docs/cli.md, "metrics"); the floor itself is taken.
 */
#include "tests/support/support.h"

#include <stdio.h>

int
main(void)
{
	static const char *const flag[] = { "--requests", "--output-tokens", "--iterations" };
	static const char *const tiny[] = { "4e-320", "1e-10" };
	for (size_t f = 0; f < 3; f++)
		for (size_t t = 0; t < 2; t++) {
			const char *argv[] = { "wattcast", "metrics", "no-such-power.csv", flag[f], tiny[t], NULL };
			run_result r;
			CHECK_INT(run_wattcast(argv, NULL, &r), 0);
			CHECK_INT(r.status, 2);
			CHECK_CONTAINS(r.err, flag[f]);
			CHECK_CONTAINS(r.err, "must be at least 1e-09");
			run_result_free(&r);
		}
	/* the floor passes parsing: the missing file is what stops it */
	const char *argv[] = { "wattcast", "metrics", "no-such-power.csv", "--requests", "1e-9", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	run_result_free(&r);
	return check_report("test_cli_metrics_count_floor");
}

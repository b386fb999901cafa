/*
 * Coverage by load's band labels (docs/intervals.md, "Coverage by load"):
 * printed at 4 significant digits, ML.ENERGY's band edges 95.7255 and
 * 95.7344 both read 95.73 ("31.73-95.73", "95.73-255.7"), as if one load
 * were split between two bands, which never happens. The labels now take
 * as many digits as tell each band's edge from the next band's: here 40
 * rows whose two bands meet between 95.7255 and 95.7344.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_coverage_labels");
	char *csv = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&csv, &len, &cap, "run_id,platform,tp,model,active_params_b,running,mean_power_w\n");
	for (int i = 0; i < 40; i++) {
		double running = i < 19 ? 1.0 + i : i == 19 ? 95.7255 : i == 20 ? 95.7344 : 100.0 + i;
		test_appendf(&csv, &len, &cap, "r%d,H100,1,Qwen3-8B,,%.4f,%.1f\n", i, running, 300.0 + 2.0 * i);
	}
	char *runs = test_fixture(dir, "runs.csv", csv);
	const char *argv[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "cover 95% by load");
	CHECK_CONTAINS(r.out, "\n1-95.725 ");
	CHECK_CONTAINS(r.out, "\n95.734-139 ");
	CHECK(r.out && !strstr(r.out, "95.73-") && !strstr(r.out, "-95.73 "));
	run_result_free(&r);
	free(runs);
	free(csv);
	free(dir);
	return check_report("test_cli_coverage_labels");
}

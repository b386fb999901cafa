/*
 * `fit intervals` (folds by model) and `validate lomo` on a table with
 * excluded rows say how many they left out and why (docs/cli.md, "fit
 * intervals"): on data/default/paper-design-seed42.csv both printed the 240
 * runs they scored and nothing of the other 7 (sim241-247, their `exclude`
 * set), where cli.md's count says "7 excluded". Frozen folds predict every
 * row (heldout's rule) and say nothing of it.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char said[] = "7 run(s) excluded, neither fitted nor predicted: a non-empty `exclude` (sim241's: "
                           "'held out: Llama-3.1-70B (Table 14 analogue)')\n";

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_excluded");
	char *table = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	char *p3 = path_join(dir, "p3.json");
	run_result r;
	const char *fit[] = { "wattcast", "fit", "inference", table, "-o", p3, NULL };
	CHECK(run_wattcast(fit, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	const char *iv[] = { "wattcast", "fit", "intervals", table, "--params", p3, "-o", p3, NULL };
	CHECK(run_wattcast(iv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "(pooled)                    240");
	CHECK_CONTAINS(r.out, said);
	run_result_free(&r);

	const char *frozen[] = { "wattcast", "fit", "intervals", table, "--params", p3, "--folds", "frozen", "-o",
		                 p3, NULL };
	CHECK(run_wattcast(frozen, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "run(s) excluded"));
	run_result_free(&r);

	const char *lomo[] = { "wattcast", "validate", "lomo", table, NULL };
	CHECK(run_wattcast(lomo, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, said);
	run_result_free(&r);

	free(p3);
	free(table);
	free(dir);
	return check_report("test_cli_intervals_excluded");
}

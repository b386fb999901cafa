/*
 * `validate fewshot --lomo` takes the --terms modes `validate lomo` takes
 * (docs/cli.md, "validate"): as-bf16, the built-in measured profile's
 * recipe, and pooled were a usage error "expected all or none".
 */
#include "tests/support/support.h"

#include <stdlib.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_fewshot_terms");
	char *runs = path_join(dir, "runs.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", runs, NULL };
	test_run_ok(sim);
	run_result r;
	static const char *const terms[] = { "as-bf16", "pooled", "none", "all" };
	for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
		const char *lomo[] = { "wattcast", "validate", "fewshot", runs, "--lomo", "--k", "1", "--terms",
		                       terms[i], "--json", NULL };
		CHECK_INT(run_wattcast(lomo, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "\"by_k\"");
		run_result_free(&r);
	}
	const char *bad[] = { "wattcast", "validate", "fewshot", runs, "--lomo", "--terms", "paired", NULL };
	test_usage_error(bad, "--terms: expected all, pooled, as-bf16 or none, got 'paired'");
	free(runs);
	free(dir);
	return check_report("test_cli_fewshot_terms");
}

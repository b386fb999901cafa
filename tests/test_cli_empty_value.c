/*
 * A flag given an empty value ("-o ''", "--output=") is a usage error
 * naming the flag, refused before any work (docs/cli.md, "Conventions"):
 * `fit inference -o ""` ran the whole fit and then failed with
 * ": rename failed". The check is in the shared option parser, so it
 * holds for every command; a few stand in for all.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static void
refused(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, needle);
	CHECK(strstr(r.err, "rename") == NULL);
	CHECK(r.out[0] == '\0');
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_empty_value");
	char *runs = path_join(dir, "runs.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	test_run_ok(sim);

	const char *fit_o[] = { "wattcast", "fit", "inference", runs, "-o", "", NULL };
	refused(fit_o, "wattcast fit inference: -o needs a value, got an empty one");
	const char *fit_long[] = { "wattcast", "fit", "inference", runs, "--output=", NULL };
	refused(fit_long, "wattcast fit inference: --output needs a value, got an empty one");
	const char *fit_output[] = { "wattcast", "fit", "inference", runs, "--output", "", NULL };
	refused(fit_output, "--output needs a value, got an empty one");
	const char *import_o[] = { "wattcast", "import", "csv", runs, "--map", "a=b", "-o", "", NULL };
	refused(import_o, "wattcast import csv: -o needs a value");
	const char *validate[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs,
	                           "--per-run", "", NULL };
	refused(validate, "--per-run needs a value");
	const char *predict[] = { "wattcast", "predict", "inference", "--platform", "", "--active-params",
	                          "8", "--concurrency", "8", NULL };
	refused(predict, "wattcast predict inference: --platform needs a value");
	const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--active-params", "8",
	                      "--closed", "8", "--csv", "", NULL };
	refused(env, "wattcast envelope: --csv needs a value");

	free(runs);
	free(dir);
	return check_report("test_cli_empty_value");
}

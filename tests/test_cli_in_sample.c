/*
 * `validate heldout` and `fit intervals --folds frozen` on the very table
 * a set was fitted on (its provenance's input_sha256 is the table's)
 * score it in-sample; they said nothing, and reported ML.ENERGY's own
 * fit as "frozen-law accuracy" (8.41 %, 96.9 % coverage) and stored a
 * frozen q of 0.357 against 0.381 from model folds. Now both warn,
 * naming the table (docs/validation.md); another table does not warn.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_in_sample");
	char *runs = path_join(dir, "sim.csv"), *other = path_join(dir, "other.csv");
	char *set = path_join(dir, "set.json"), *iv = path_join(dir, "iv.json");
	run_result r;
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "3", "-o", runs, NULL };
	CHECK(run_wattcast(sim, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *sim2[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", other, NULL };
	CHECK(run_wattcast(sim2, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", set, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(fit, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);

	const char *ho[] = { "wattcast", "validate", "heldout", "--params", set, runs, NULL };
	CHECK(run_wattcast(ho, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast validate heldout: warning: ");
	CHECK_CONTAINS(r.err, "sim.csv is the very table the set was fitted on (its provenance input_sha256 ");
	CHECK_CONTAINS(r.err, "these errors are in-sample, not held out\n");
	run_result_free(&r);
	const char *ho2[] = { "wattcast", "validate", "heldout", "--params", set, other, NULL };
	CHECK(run_wattcast(ho2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "in-sample"));
	run_result_free(&r);

	const char *fz[] = { "wattcast", "fit", "intervals", runs, "--params", set, "--folds", "frozen", "-o", iv, NULL };
	CHECK(run_wattcast(fz, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast fit intervals: warning: ");
	CHECK_CONTAINS(r.err, "these errors are in-sample, not held out\n");
	run_result_free(&r);
	const char *fz2[] = { "wattcast", "fit", "intervals", other, "--params", set, "--folds", "frozen", "-o", iv, NULL };
	CHECK(run_wattcast(fz2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "in-sample"));
	run_result_free(&r);

	free(runs);
	free(other);
	free(set);
	free(iv);
	free(dir);
	return check_report("test_cli_in_sample");
}

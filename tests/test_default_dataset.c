/*
 * The embedded default table (data/default/paper-design-seed42.csv) is
 * what `wattcast simulate inference --design paper --seed 42 --uncapped`
 * writes, byte for byte, and says in its header that it is synthetic. It
 * is the law's uncapped draw: the measured profile's A100 and H200 levels
 * are calibrated on it (validation/refit-measured.sh; docs/validation.md,
 * "The truth of every row").
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>

int
main(void)
{
	char *dir = test_tmpdir("default_dataset");
	char *fresh = path_join(dir, "regenerated.csv");
	char *shipped = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	const char *argv[] = { "wattcast", "simulate", "inference", "--design", "paper", "--seed", "42",
	                       "--uncapped", "-o", fresh, NULL };
	run_result r;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_INT(wc_read_file(shipped, 1u << 24, &a, &la, NULL), WC_OK);
	CHECK_INT(wc_read_file(fresh, 1u << 24, &b, &lb, NULL), WC_OK);
	CHECK(a && b && la == lb && memcmp(a, b, la) == 0);
	const char *banner = "# SYNTHETIC runs table - not measured data.\n";
	CHECK(a && strncmp(a, banner, strlen(banner)) == 0);
	/* and it is a valid runs table of the published design's size */
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(shipped, &t, NULL), WC_OK);
	CHECK(t && t->n_runs == 247);
	/* another seed gives another table */
	const char *argv2[] = { "wattcast", "simulate", "inference", "--seed", "43", "-o", fresh, NULL };
	run_result_free(&r);
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	free(b);
	b = NULL;
	CHECK_INT(wc_read_file(fresh, 1u << 24, &b, &lb, NULL), WC_OK);
	CHECK(b && (lb != la || memcmp(a, b, la) != 0));
	wc_runs_free(t);
	run_result_free(&r);
	free(a);
	free(b);
	free(fresh);
	free(shipped);
	free(dir);
	return check_report("test_default_dataset");
}

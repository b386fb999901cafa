/*
 * `validate fewshot`'s text table says what its JSON says (docs/validation.md,
 * "Few-shot calibration"): with --lomo --scope platform, k = 0 predicts no
 * held-out run (a platform left out has no level to answer from), and the
 * table took its row names and counts from k = 0 -- "(all runs) n 0" beside
 * medians of 224 runs, and no per-platform row. Now the count is the runs
 * scored and every set any k scored has its row. And every column of
 * validate's tables headed "%" is a percentage.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_fewshot");
	char *runs = path_join(dir, "runs.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", runs, NULL };
	test_run_ok(sim);

	const char *json[] = { "wattcast", "validate", "fewshot", runs, "--lomo", "--scope", "platform", "--k", "2",
	                       "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(json, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *k2 = json_array_get(json_object_get(j, "by_k"), 1);
	int n = (int)json_integer_value(json_object_get(json_object_get(k2, "overall"), "n"));
	CHECK(n > 100);
	CHECK_INT(json_object_size(json_object_get(k2, "sets")), 3);
	json_decref(j);
	run_result_free(&r);

	const char *text[] = { "wattcast", "validate", "fewshot", runs, "--lomo", "--scope", "platform", "--k", "2",
	                       NULL };
	CHECK_INT(run_wattcast(text, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	char want[64];
	snprintf(want, sizeof want, "(all runs)               %5d", n);
	CHECK_CONTAINS(r.out, want);
	static const char *const platforms[] = { "\nA100 ", "\nH100 ", "\nH200 " };
	for (int i = 0; i < 3; i++) {
		/* a row in the medians and one in the coverage table */
		const char *first = r.out ? strstr(r.out, platforms[i]) : NULL;
		CHECK(first && strstr(first + 1, platforms[i]));
	}
	/* what the intervals of per-fold bases cover is said (they undercover) */
	CHECK_CONTAINS(r.out, "(--lomo: the bases carry no held-out error, so these intervals cover the calibrated "
	                      "parameters only");
	run_result_free(&r);

	/* Every column headed "%" is a percentage: the share within 5 % was
	 * printed as a fraction (0.92) beside percentages (validate heldout,
	 * lomo and capacity). */
	const char *hj[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, "--json", NULL };
	CHECK_INT(run_wattcast(hj, NULL, &r), 0);
	j = json_loads(r.out ? r.out : "", 0, NULL);
	double share = json_number_value(json_object_get(json_object_get(j, "overall"), "share_within_5pct"));
	int hn = (int)json_integer_value(json_object_get(json_object_get(j, "overall"), "n"));
	json_decref(j);
	run_result_free(&r);
	CHECK(share > 0.5 && share < 1.0);
	const char *ht[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, NULL };
	CHECK_INT(run_wattcast(ht, NULL, &r), 0);
	char row[96];
	snprintf(row, sizeof row, "(all runs)                           %3d", hn);
	const char *at = r.out ? strstr(r.out, row) : NULL;
	CHECK(at != NULL);
	char pct[32];
	snprintf(pct, sizeof pct, " %.1f ", 100.0 * share);
	CHECK(at && strstr(at, pct) && strstr(at, pct) < strchr(at, '\n'));
	run_result_free(&r);

	/* A header and no rows: fewshot printed an empty report with exit 0,
	 * where heldout refuses it (exit 1, one line saying so). */
	char *hdr = test_fixture(dir, "header.csv", "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n");
	const char *fh[] = { "wattcast", "validate", "fewshot", hdr, "--profile", "paper", NULL };
	const char *hh[] = { "wattcast", "validate", "heldout", hdr, "--profile", "paper", NULL };
	for (int i = 0; i < 2; i++) {
		CHECK_INT(run_wattcast(i ? hh : fh, NULL, &r), 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "header.csv: no runs (a header and no rows): nothing to validate");
		CHECK(r.out && r.out[0] == '\0');
		run_result_free(&r);
	}
	free(hdr);
	/* An empty list item is a usage error naming the flag: strtok skipped
	 * it, so "--k ," asked for no k at all and exited 0. */
	const char *bad_k[] = { "1,,3", ",1", ",", "1," };
	for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++) {
		const char *e[] = { "wattcast", "validate", "fewshot", runs, "--lomo", "--k", bad_k[i], NULL };
		test_usage_error(e, "--k: empty item in '");
	}

	free(runs);
	free(dir);
	return check_report("test_cli_fewshot");
}

/*
 * `validate fewshot` scores the runs after the largest k at every k, "the
 * same runs for every k, so the columns compare" (docs/validation.md,
 * "Few-shot calibration") -- unless a k cannot predict a group: with
 * --scope platform k = 0 predicts the platforms the base has and no k >= 1
 * does (calibrate refuses a level the base has), the new platform only
 * k >= 1. On ML.ENERGY with the paper profile the table printed
 * "(all runs) 169 | k=0 11.58 | k=1 - | k=3 20.39", k = 0 over 150 H100
 * runs and k = 3 over 169 B200 runs, and nothing said so. Now each row
 * whose columns differ gives its counts, and a warning says they do not
 * compare. The same answer says each distinct reason runs were not
 * predicted with its count: "k=1: 319 run(s) not predicted" gave one
 * reason, "the base already has H100 (calibrate refuses it)", which
 * covers the 150 H100 runs; the other 169 (B200, one run for a new
 * platform) were never said, and the coverage table printed "(all runs)
 * 169 96.0/62" under k = 0 without the per-column counts. Here: a
 * simulated table with H200 renamed B200.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_fewshot_uneven");
	char *sim = path_join(dir, "sim.csv"), *runs = path_join(dir, "runs.csv");
	const char *make[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", sim, NULL };
	test_run_ok(make);
	char *text = test_slurp(sim);
	for (char *p = strstr(text, "H200"); p; p = strstr(p + 4, "H200"))
		p[0] = 'B';
	CHECK(write_text(runs, text) == 0);
	free(text);

	run_result r;
	const char *fs[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--scope", "platform",
		             "--k", "1,3", NULL };
	CHECK_INT(run_wattcast(fs, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "  (runs scored: k=0 ");
	CHECK_CONTAINS(r.out, "  (the k columns score different runs, so they do not compare; docs/validation.md)\n");
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: warning: the k columns score different runs (k=0 ");
	CHECK(r.err && !strstr(r.err, ", k=1 0, k=3 0)"));
	const char *k1 = r.out ? strstr(r.out, "k=1: ") : NULL, *k3 = k1 ? strstr(k1, "k=3: ") : NULL;
	CHECK(k1 != NULL && k3 != NULL);
	if (k1 && k3) {
		/* both reasons at k = 1, each with its count, before k = 3's */
		const char *known = strstr(k1, "already exists in the base 'paper'");
		const char *one = strstr(k1, "to identify S and theta of 'B200'\n");
		CHECK(known != NULL && known < k3);
		CHECK(one != NULL && one < k3);
	}
	CHECK_CONTAINS(r.out, "  hint: platform scope adds each platform as a new level");
	/* the coverage table gives its per-column counts too */
	const char *cover = r.out ? strstr(r.out, "coverage of the 95 %") : NULL;
	CHECK(cover != NULL && strstr(cover, "  (runs scored: k=0 ") != NULL);
	run_result_free(&r);

	/* --json: each reason with its count per k */
	const char *js[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--scope", "platform",
		             "--k", "1,3", "--json", NULL };
	CHECK_INT(run_wattcast(js, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"skipped_why\"");
	CHECK_CONTAINS(r.out, "theta of 'B200'\"");
	run_result_free(&r);


	/* --scope model on the same base: every k scores the same runs */
	const char *same[] = { "wattcast", "validate", "fewshot", sim, "--profile", "paper", "--k", "1,3", NULL };
	CHECK_INT(run_wattcast(same, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "runs scored:"));
	CHECK(r.err && !strstr(r.err, "score different runs"));
	run_result_free(&r);

	free(sim);
	free(runs);
	free(dir);
	return check_report("test_cli_fewshot_uneven");
}

/*
 * `fit intervals` says how many runs its quantiles leave out and why
 * (docs/cli.md, "fit intervals"): with --folds frozen, a platform the set
 * has no level for is predicted by none of it -- the ML.ENERGY B200 runs
 * against the paper profile -- and the report said only n = 153, where
 * `validate heldout` on the same input prints "172 run(s) skipped".
 * Here: a simulated table with H200 renamed B200 (not in the profile).
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_skipped");
	char *sim = path_join(dir, "sim.csv"), *runs = path_join(dir, "runs.csv"), *out = path_join(dir, "p.json");
	const char *make[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", sim, NULL };
	test_run_ok(make);
	char *text = test_slurp(sim);
	int renamed = 0;
	for (char *p = strstr(text, "H200"); p; p = strstr(p + 4, "H200")) {
		p[0] = 'B';
		renamed++;
	}
	CHECK(renamed > 20);
	CHECK(write_text(runs, text) == 0);
	free(text);

	run_result r;
	const char *held[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, NULL };
	CHECK_INT(run_wattcast(held, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	const char *at = r.out ? strstr(r.out, " run(s) skipped") : NULL;
	const char *line = at;
	while (line && line > r.out && line[-1] != '\n')
		line--;
	int skipped = line ? atoi(line) : -1;
	CHECK(skipped > 20);
	run_result_free(&r);

	const char *fit[] = { "wattcast", "fit", "intervals", runs, "--profile", "paper", "--folds", "frozen",
	                      "-o", out, NULL };
	CHECK_INT(run_wattcast(fit, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	char want[160];
	snprintf(want, sizeof want,
	         "  %d run(s) not predicted, left out of the quantiles: the set has no level for B200 (%d runs)\n",
	         skipped, skipped);
	CHECK_CONTAINS(r.out, want);
	run_result_free(&r);

	/* Every run predicted: no such line. */
	const char *all[] = { "wattcast", "fit", "intervals", sim, "--profile", "paper", "--folds", "frozen",
	                      "-o", out, NULL };
	CHECK_INT(run_wattcast(all, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "not predicted"));
	run_result_free(&r);

	/* Workload folds give their own reason, validate lomo's words, not
	 * "their fold's refit failed, or no positive prediction" (no refit
	 * failed: the held-out workload's level had no training run). */
	char *design = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	const char *wk[] = { "wattcast", "fit", "intervals", design, "--profile", "paper", "--folds", "workload",
		             "-o", out, NULL };
	CHECK_INT(run_wattcast(wk, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, " run(s) not predicted, left out of the quantiles: their level had no training run in "
	                      "their fold\n");
	run_result_free(&r);
	free(design);

	/* Too few predicted: the failure still says how many runs no fold
	 * predicted and why (the `fitted` set's fold leaves too few runs to
	 * refit; the excluded set), not only "8 ... too few". */
	char *set = path_join(dir, "set.json");
	const char *fitset[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "0", "-o", set, NULL };
	test_run_ok(fitset);
	const char *wl[] = { "wattcast", "fit", "intervals", sim, "--params", set, "--folds", "workload", "-o", out,
		             NULL };
	CHECK_INT(run_wattcast(wl, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "held-out prediction(s) are too few for a 95 % quantile (at least 19); ");
	CHECK_CONTAINS(r.err, " run(s) not predicted: 1 refit(s) failed (");
	CHECK_CONTAINS(r.err, "without 'fitted': ");
	CHECK_CONTAINS(r.err, " excluded\n");
	CHECK(r.err && strlen(r.err) <= 255 + strlen("wattcast fit intervals: \n"));
	run_result_free(&r);
	free(set);

	free(sim);
	free(runs);
	free(out);
	free(dir);
	return check_report("test_cli_intervals_skipped");
}

/*
 * `validate fewshot` says why runs are not predicted (docs/cli.md,
 * "validate"): with a frozen base, --scope platform refuses every level
 * the base already has (as `calibrate` does). It marked every k >= 1 run
 * "not predicted (no calibration possible, or no base for their level)"
 * per k and exited 0; now the reason is stated once and, nothing being
 * calibrated at any k >= 1, the command exits 1. An --idle-power above
 * the board limit of a level that takes it (H100 runs without their own
 * idle) left those runs unpredicted with the generic reason and exit 0,
 * where `calibrate` refuses it: now refused as calibrate refuses it.
 * A k larger than every group said the base's levels were the cause.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_fewshot_reasons");
	char *runs = path_join(dir, "runs.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", runs, NULL };
	test_run_ok(sim);
	run_result r;

	/* The paper profile has every simulated platform: all refused. */
	const char *plat[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--k", "1,3",
	                       "--scope", "platform", NULL };
	CHECK_INT(run_wattcast(plat, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.out, "k=1: ");
	CHECK_CONTAINS(r.out, "k=3: ");
	CHECK_INT(count(r.out, "the base already has A100, H100, H200"), 1);
	CHECK(!strstr(r.out ? r.out : "", "no calibration possible"));
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: no run calibrated at any k >= 1: platform scope adds "
	                      "each platform as a new level");
	CHECK(r.err && strlen(r.err) <= 256);
	run_result_free(&r);

	/* The same in JSON: the reason, and the exit. */
	const char *pj[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--k", "1",
	                     "--scope", "platform", "--json", NULL };
	CHECK_INT(run_wattcast(pj, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.out, "\"not_predicted_reason\"");
	run_result_free(&r);

	/* Model scope calibrates: exit 0, no reason needed. */
	const char *model[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--k", "1", NULL };
	CHECK_INT(run_wattcast(model, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(!strstr(r.out ? r.out : "", "why:"));
	run_result_free(&r);

	/* No group keeps a run past the largest k: that is the reason, not
	 * the base's levels (platform scope said "the base already has"). */
	const char *big[] = { "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--k", "1,1000",
	                      "--scope", "platform", NULL };
	CHECK_INT(run_wattcast(big, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no run calibrated at any k >= 1: each of the ");
	CHECK_CONTAINS(r.err, " groups (platform and level) has at most ");
	CHECK_CONTAINS(r.err, " runs, none left to predict after the largest k, 1000: give --k below ");
	/* the bound it names is the largest group's runs: one k below it predicts */
	const char *below = r.err ? strstr(r.err, "give --k below ") : NULL;
	int most = below ? atoi(below + strlen("give --k below ")) : 0;
	CHECK(most > 1 && most < 1000);
	run_result_free(&r);
	char k_ok[32];
	snprintf(k_ok, sizeof k_ok, "1,%d", most - 1);
	big[7] = k_ok;
	CHECK_INT(run_wattcast(big, NULL, &r), 0);
	CHECK(r.err && !strstr(r.err, "none left to predict"));
	run_result_free(&r);

	/* A100 runs carry their idle, H100 runs do not: 750 W is used for
	 * H100 alone, and is above its 700 W board limit. */
	char *fs = path_join(dir, "fs.csv");
	CHECK_INT(write_text(fs, "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n"
	                         "a1,A100,1,Qwen3-8B,4,250,60\na2,A100,1,Qwen3-8B,16,300,60\n"
	                         "a3,A100,1,Qwen3-8B,32,330,60\nh1,H100,1,Qwen3-8B,16,600,\n"
	                         "h2,H100,1,Qwen3-8B,32,640,\nh3,H100,1,Qwen3-8B,4,520,\n"), 0);
	const char *idle[] = { "wattcast", "validate", "fewshot", fs, "--profile", "paper", "--k", "1",
	                       "--idle-power", "750", NULL };
	CHECK_INT(run_wattcast(idle, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: --idle-power: 750 W per GPU is not below H100's board "
	                      "limit of 700 W");
	CHECK(!strstr(r.out ? r.out : "", "not predicted"));
	run_result_free(&r);
	/* Below the limit it is used and every run is predicted. */
	idle[9] = "50";
	CHECK_INT(run_wattcast(idle, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(!strstr(r.out ? r.out : "", "not predicted"));
	run_result_free(&r);
	/* --lomo on one model: its base, fitted without it, has no run; the
	 * reason says so as validate lomo does (it said "the base fitted
	 * without the group failed", and the exit blamed the groups' sizes) */
	const char *lomo[] = { "wattcast", "validate", "fewshot", fs, "--lomo", "--k", "1", NULL };
	CHECK_INT(run_wattcast(lomo, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.out, "the base fitted without 'Qwen3-8B' failed: fit: ");
	CHECK(r.err && !strstr(r.err, "none left to predict"));
	/* its two levels are counted in the header's totals, as what they
	 * are (the header said "0 groups; 0 too small") */
	CHECK_CONTAINS(r.out, "(0 groups; 0 too small; 2 whose base failed)");
	run_result_free(&r);
	/* --per-set groups are a model's level and set: said so (they were
	 * called "model and level", with the counts of model, level and set) */
	const char *per_set[] = { "wattcast", "validate", "fewshot", fs, "--profile", "paper", "--k", "1,1000",
	                          "--per-set", NULL };
	CHECK_INT(run_wattcast(per_set, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, " groups (model, level and set) has at most ");
	CHECK_CONTAINS(r.out, "of each model, level and set (0 groups; 2 too small)");
	run_result_free(&r);
	/* a curve of six calibration counts is taken (at most 5 values were,
	 * unsaid); nine values are refused naming the bound */
	const char *curve[] = { "wattcast", "validate", "fewshot", fs, "--profile", "paper", "--k", "1,2,3,5,8,13", NULL };
	CHECK_INT(run_wattcast(curve, NULL, &r), 0);
	CHECK(r.status != 2);
	CHECK(r.err && !strstr(r.err, "--k: at most"));
	run_result_free(&r);
	curve[7] = "1,2,3,4,5,6,7,8,9";
	CHECK_INT(run_wattcast(curve, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--k: at most 8 values");
	run_result_free(&r);
	free(fs);

	free(runs);
	free(dir);
	return check_report("test_cli_fewshot_reasons");
}

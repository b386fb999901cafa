/*
 * Analyses that score or fit nothing say how many rows were left out and
 * why (docs/cli.md, "validate"; docs/validation.md, "Capacity"):
 * - `validate capacity` on a table of one model said "6 row(s) read, 0
 *   skipped" and no reason, where every row was skipped because leaving the
 *   only model out leaves nothing to fit; `fit intervals --quantity
 *   capacity` said only "too few held-out predictions", no count, no reason
 *   (`validate lomo` and the power quantile say both);
 * - a table whose every row carries `exclude` (here `0`, which excludes as
 *   any non-empty value does: docs/formats/runs-table.md) got "0 of 6
 *   skipped; no reason recorded", "no usable rows (need running, ...)",
 *   "no usable runs" or an empty fewshot table, never a word of exclusion;
 * - `calibrate` on a base without draws warned that intervals cover the
 *   runs' scatter only, while an answer's interval also covers the base's
 *   held-out error, which a calibrated set keeps (docs/intervals.md).
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char one_model[] =
	"run_id,platform,tp,model,active_params_b,running,mean_power_w,output_tokens,throughput_tok_s%s\n"
	"a1,H100,1,Qwen3-8B,8,4,380,256,400%s\n"
	"a2,H100,1,Qwen3-8B,8,8,430,256,720%s\n"
	"a3,H100,1,Qwen3-8B,8,16,490,256,1250%s\n"
	"a4,H100,1,Qwen3-8B,8,32,560,256,2100%s\n"
	"a5,H100,1,Qwen3-8B,8,64,610,256,3300%s\n"
	"a6,H100,1,Qwen3-8B,8,128,650,256,4600%s\n";

static const char all_excluded[] = "all 6 row(s) carry a non-empty `exclude`, and any non-empty value excludes a "
                                   "row (`0`, `false` and `no` too)";

static void
check_fails(const char *const *argv, const char *want)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	/* one line of at most 255 bytes after the command's name */
	const char *colon = r.err ? strstr(r.err, ": ") : NULL;
	CHECK(colon && strcspn(colon + 2, "\n") <= 255);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_unscored_reasons");
	char text[1024];
	snprintf(text, sizeof text, one_model, "", "", "", "", "", "", "");
	char *one = test_fixture(dir, "one.csv", text);
	snprintf(text, sizeof text, one_model, ",exclude", ",0", ",0", ",0", ",0", ",0", ",0");
	char *ex0 = test_fixture(dir, "ex0.csv", text);
	char *out = path_join(dir, "out.json");

	/* One model: every row skipped by its fold, counted and said why. */
	const char *vc[] = { "wattcast", "validate", "capacity", one, NULL };
	check_fails(vc, "no row could be scored (6 row(s) read, 6 skipped; 6 not predicted: 1 refit(s) failed (6 "
	                "runs; without 'Qwen3-8B': capacity fit: no usable rows: all 6 left out of this fit)): "
	                "nothing to validate");
	run_result r;
	CHECK_INT(run_wattcast(vc, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "6 row(s) skipped: their fold could not predict them:\n  a1: no capacity fit without "
	                      "its model: ");
	run_result_free(&r);
	const char *vcj[] = { "wattcast", "validate", "capacity", one, "--json", NULL };
	check_fails(vcj, "(6 row(s) read, 6 skipped; 6 not predicted: 1 refit(s) failed (6 runs; ");
	const char *fi[] = { "wattcast", "fit", "intervals", one, "--profile", "measured", "--quantity", "capacity",
		             "-o", out, NULL };
	check_fails(fi, "runs: 0 held-out prediction(s) of throughput_tok_s are too few for a 95 % quantile (at "
	                "least 19); 6 run(s) not predicted: 1 refit(s) failed (6 runs; without 'Qwen3-8B': ");

	/* Every row excluded: each says so, and that `0` excludes. */
	const char *lomo[] = { "wattcast", "validate", "lomo", ex0, NULL };
	check_fails(lomo, all_excluded);
	const char *fc[] = { "wattcast", "fit", "capacity", ex0, "-o", out, "--bootstrap", "0", NULL };
	check_fails(fc, all_excluded);
	const char *fit[] = { "wattcast", "fit", "inference", ex0, "-o", out, NULL };
	check_fails(fit, all_excluded);
	const char *fs[] = { "wattcast", "validate", "fewshot", ex0, "--lomo", NULL };
	check_fails(fs, all_excluded);
	const char *vce[] = { "wattcast", "validate", "capacity", ex0, NULL };
	check_fails(vce, all_excluded);
	const char *forms[] = { "wattcast", "validate", "forms", ex0, NULL };
	check_fails(forms, all_excluded);
	CHECK(!test_exists(out));

	/* The calibrate warning says what an answer's interval covers: with a
	 * base that has a held-out error (the measured profile), that too; a
	 * fitted set without draws or one, the calibration's scatter alone. */
	char *sim = path_join(dir, "sim.csv"), *set = path_join(dir, "set.json"), *cal = path_join(dir, "cal.json");
	const char *make[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", sim, NULL };
	test_run_ok(make);
	char *all = test_slurp(sim), *rows = malloc(strlen(all) + 1), *w = rows;
	for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "run_id,", 7) || strstr(line, ",H100,1,Qwen3-8B,"))
			w += sprintf(w, "%s\n", line);
	char *h100 = test_fixture(dir, "h100.csv", rows);
	const char *cm[] = { "wattcast", "calibrate", "--profile", "measured", h100, "-o", cal, NULL };
	CHECK_INT(run_wattcast(cm, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: the base has no draws: the new parameters' intervals cover the calibration "
	                      "runs' scatter only; an answer's interval also covers the base's held-out error of "
	                      "mean power, which the set keeps");
	CHECK(r.out && !strstr(r.out, "not the base law's own uncertainty"));
	run_result_free(&r);
	const char *fs0[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "0", "-o", set, NULL };
	test_run_ok(fs0);
	const char *cs[] = { "wattcast", "calibrate", "--params", set, h100, "-o", cal, NULL };
	CHECK_INT(run_wattcast(cs, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: the base has no draws and no held-out error: intervals, the answers' too, "
	                      "cover the calibration runs' scatter only");
	run_result_free(&r);

	free(all);
	free(rows);
	free(h100);
	free(sim);
	free(set);
	free(cal);
	free(out);
	free(one);
	free(ex0);
	free(dir);
	return check_report("test_cli_unscored_reasons");
}

/*
 * A level with no more distinct loads than free parameters is named in a
 * warning (docs/fitting.md, "Diagnosis: weakly identified parameters"):
 * the design table cut to one A100 run gave S[A100] a narrow bootstrap
 * interval and no word; the whole design has no such warning for A100.
 * A singular Jacobian is said so, never "rcond nan"; parameters held
 * (bound, not identified) neither use up the runs' scatter nor make the
 * Jacobian singular.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The design's rows, with only the first `keep` A100 rows, to `path`. */
static void
cut_a100(const char *design, const char *path, int keep)
{
	char *text = test_slurp(design), *out = malloc(strlen(text) + 1);
	CHECK(text && out);
	size_t len = 0;
	int seen = 0;
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
		int a100 = line[0] != '#' && strstr(line, ",A100,") && memchr(line, '\n', n) &&
		           (size_t)(strstr(line, ",A100,") - line) < n;
		if (!a100 || seen++ < keep) {
			memcpy(out + len, line, n);
			len += n;
		}
		line = end ? end + 1 : NULL;
	}
	out[len] = '\0';
	CHECK_INT(write_text(path, out), 0);
	free(text);
	free(out);
}

static void
fit(const char *runs, const char *dir, run_result *r)
{
	char *out = path_join(dir, "p.json");
	const char *argv[] = { "wattcast", "fit", "inference", runs, "-o", out, "--bootstrap", "0", NULL };
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	CHECK_INT(r->status, 0);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("fit_level_support");
	char *design = path_join(test_env("WC_SOURCE_DIR", ".."), "data/default/paper-design-seed42.csv");
	char *one = path_join(dir, "one.csv");
	cut_a100(design, one, 1);
	run_result r;
	fit(one, dir, &r);
	const char *all = r.out ? r.out : ""; /* the summary lists the warnings */
	CHECK_CONTAINS(all, "level A100: 1 run(s) at 1 distinct load(s) for its ");
	CHECK(!strstr(all, "rcond nan") && !strstr(all, "rcond -nan"));
	run_result_free(&r);
	fit(design, dir, &r);
	CHECK(r.out && !strstr(r.out, "level A100:"));
	run_result_free(&r);
	/* One model at five loads: five distinct loads (the count once read
	 * the model's size and called every single-model fleet one load). */
	char *one_model = test_fixture(dir, "one_model.csv",
	                               "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                               "a1,A100,1,Qwen3-8B,8.19,1,150,80\na2,A100,1,Qwen3-8B,8.19,4,200,80\n"
	                               "a3,A100,1,Qwen3-8B,8.19,16,270,80\na4,A100,1,Qwen3-8B,8.19,64,330,80\n"
	                               "a5,A100,1,Qwen3-8B,8.19,256,360,80\n");
	fit(one_model, dir, &r);
	CHECK(r.out && !strstr(r.out, "distinct load"));
	run_result_free(&r);
	free(one_model);
	/* Six A100 runs and one H100 run, four parameters held: the held ones
	 * were counted against the runs' scatter (7 runs, 7 parameters: none
	 * left), so S[A100], S[H100] and gamma2 were all "weakly identified
	 * (standard error inf ..., the Jacobian is singular)" beside a +-13 %
	 * interval; the same A100 runs alone said nothing of S[A100]. The one
	 * H100 run is named by its level's warning, and nothing is singular. */
	char *mixed = test_fixture(dir, "mixed.csv",
	                           "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                           "a1,A100,1,Qwen3-8B,8.19,5.70,261.5,82.66\na2,A100,1,Qwen3-8B,8.19,6.05,275.7,82.66\n"
	                           "a3,A100,1,Qwen3-8B,8.19,0.68,332.2,82.66\na4,A100,1,Qwen3-8B,8.19,0.72,303.8,82.66\n"
	                           "a5,A100,2,gemma-4-26B-A4B-it,4,7.57,421.6,82.66\n"
	                           "h1,H100,1,Qwen3-8B,8.19,5.13,349.3,122.72\na6,A100,1,Qwen3-8B,8.19,8.07,251.4,82.66\n");
	fit(mixed, dir, &r);
	CHECK_CONTAINS(r.out, "level H100: 1 run(s) at 1 distinct load(s)");
	CHECK_CONTAINS(r.out, "theta[H100] is not identified by these runs");
	CHECK(r.out && !strstr(r.out, "S[A100] is weakly identified") && !strstr(r.out, "Jacobian is singular"));
	run_result_free(&r);
	free(mixed);
	free(one);
	free(design);
	free(dir);
	return check_report("test_fit_level_support");
}

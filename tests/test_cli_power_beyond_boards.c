/*
 * A law's mean power beyond twice its boards' ceiling (G x 1.1 x the board
 * limit) is no answer (docs/intervals.md, "Physical ceiling"): a set fitted
 * on one ML.ENERGY task gave 1.74e11 W for an 8 x H100 node with a warning
 * only. Here the `paper` profile's A100 S raised to 9000 W (in its
 * documented range) gives 1318 W per GPU at 64 running, at the clock of least
 * power: refused naming the platform and why, exit 1. The same set at
 * concurrency 0 (the idle draw) and the profile itself still answer.
 *
 * The rule holds load by load, not on a mean that idle loads pull under it:
 * a series of 64 running half its time and idle the rest averaged
 * (1318 + 72.9) / 2 = 695.5 W per GPU and was answered with a clock warning;
 * an envelope of 64 clients was answered at the board's 400 W (mean_w
 * 399.73 W, a warning that the law gives 8433.8 W) and a budget plan sized
 * a fleet by it. Now each is refused, exit 1, naming the load (and a
 * series' share of its time); the profile's own envelope still answers.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEYOND "over twice the 440 W A100 boards can average (1.1 x their limit): no board draws that"

static void
refused(const char *const *argv, const char *said)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, said);
	CHECK_CONTAINS(r.err, BEYOND);
	CHECK(r.out == NULL || strstr(r.out, "node_power_w") == NULL);
	CHECK(r.out == NULL || strstr(r.out, "mean_w") == NULL);
	CHECK(r.err == NULL || strlen(r.err) < 255 + 40);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_power_beyond_boards");
	char *paper = path_join(dir, "paper.json"), *huge = path_join(dir, "huge.json");
	const char *ex[] = { "wattcast", "profile", "export", "paper", "-o", paper, NULL };
	test_run_ok(ex);
	char *text = test_slurp(paper);
	static const char s_w[] = "\"value\": 329.0,\n        \"ci95\": [\n          318.0,\n          346.0\n";
	CHECK(text && strstr(text, s_w));
	text = test_replaced(text, s_w, "\"value\": 9000.0,\n        \"ci95\": [\n          8900.0,\n          9100.0\n");
	CHECK_INT(write_text(huge, text), 0);
	free(text);
	char *half = test_fixture(dir, "half.csv", "t_s,running\n0,64\n10,64\n20,0\n30,0\n");
	char *idle = test_fixture(dir, "idle.csv", "t_s,running\n0,0\n10,0\n20,0\n30,0\n");

	const char *loaded[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100", "--model",
		                 "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "64", "--json", NULL };
	refused(loaded, "platform: the law gives 1318 W per GPU here, " BEYOND);

	/* a series: its busy steps, not its mean, at the clock they settle at */
	const char *series[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100", "--model",
		                 "Qwen3-8B", "--tp", "1", "--running-series", half, NULL };
	refused(series, "platform: the law gives 1318 W per GPU at 64 running, 50.0 % of the series, ");

	/* an envelope at the clock the limit settles it at (210 MHz), a budget
	 * plan at the clock asked, an n(t) alike */
	const char *closed[] = { "wattcast", "envelope", "--params", huge, "--platform", "A100", "--model", "Qwen3-8B",
		                 "--tp", "1", "--closed", "64", "--horizon", "60", "--replicas", "2", "--quiet", NULL };
	refused(closed, "platform: the law gives 1318 W per GPU at 64 running, ");
	const char *plan[] = { "wattcast", "envelope", "--params", huge, "--platform", "A100", "--model", "Qwen3-8B",
		               "--tp", "1", "--closed", "64", "--horizon", "60", "--budget", "5000", "--quiet", NULL };
	refused(plan, "platform: the law gives 8434 W per GPU at 64 running, ");
	const char *nt[] = { "wattcast", "envelope", "--params", huge, "--platform", "A100", "--model", "Qwen3-8B",
		             "--tp", "1", "--n-series", half, "--horizon", "40", "--quiet", NULL };
	refused(nt, "platform: the law gives 8434 W per GPU at 64 running, 50.0 % of the series, ");

	const char *at0[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100", "--model",
		              "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "0", NULL };
	test_run_ok(at0);
	const char *idle_series[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100",
		                      "--model", "Qwen3-8B", "--tp", "1", "--running-series", idle, NULL };
	test_run_ok(idle_series);
	const char *sane[] = { "wattcast", "predict", "inference", "--params", paper, "--platform", "A100", "--model",
		               "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "64", NULL };
	test_run_ok(sane);
	const char *sane_series[] = { "wattcast", "predict", "inference", "--params", paper, "--platform", "A100",
		                      "--model", "Qwen3-8B", "--tp", "1", "--running-series", half, NULL };
	test_run_ok(sane_series);
	const char *sane_closed[] = { "wattcast", "envelope", "--params", paper, "--platform", "A100", "--model",
		                      "Qwen3-8B", "--tp", "1", "--closed", "64", "--horizon", "60", "--quiet", NULL };
	test_run_ok(sane_closed);
	const char *sane_plan[] = { "wattcast", "envelope", "--params", paper, "--platform", "A100", "--model",
		                    "Qwen3-8B", "--tp", "1", "--closed", "64", "--horizon", "60", "--budget", "5000",
		                    "--quiet", NULL };
	test_run_ok(sane_plan);
	/* loads a legitimate set reaches at the top: 8 x B200 and 16 x H100
	 * (Llama-3.1-405B) at 1024 */
	const char *b200[] = { "wattcast", "envelope", "--profile", "measured", "--platform", "B200", "--model",
		               "Llama-3.1-70B", "--tp", "8", "--closed", "1024", "--horizon", "30", "--quiet", NULL };
	test_run_ok(b200);
	const char *h100[] = { "wattcast", "envelope", "--profile", "measured", "--platform", "H100", "--model",
		               "Llama-3.1-405B", "--tp", "16", "--poisson", "50", "--max-running", "1024", "--horizon",
		               "30", "--quiet", NULL };
	test_run_ok(h100);

	free(half);
	free(idle);
	free(paper);
	free(huge);
	free(dir);
	return check_report("test_cli_power_beyond_boards");
}

/*
 * A law's mean power beyond twice its boards' ceiling (G x 1.1 x the board
 * limit) is no answer (docs/intervals.md, "Physical ceiling"): a set fitted
 * on one ML.ENERGY task gave 1.74e11 W for an 8 x H100 node with a warning
 * only. Here the `paper` profile's A100 S raised to 9000 W (in its
 * documented range) gives 1318 W per GPU at 64 running, at the clock of least
 * power: refused naming the platform and why, exit 1. The same set at
 * concurrency 0 (the idle draw) and the profile itself still answer.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	const char *loaded[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100", "--model",
		                 "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "64", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(loaded, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "platform: the law gives 1318 W per GPU here, over twice the 440 W A100 boards can "
	                      "average (1.1 x their limit): no board draws that");
	CHECK(r.out == NULL || strstr(r.out, "node_power_w") == NULL);
	CHECK(r.err == NULL || strlen(r.err) < 255 + 40);
	run_result_free(&r);

	const char *idle[] = { "wattcast", "predict", "inference", "--params", huge, "--platform", "A100", "--model",
		               "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "0", NULL };
	test_run_ok(idle);
	const char *sane[] = { "wattcast", "predict", "inference", "--params", paper, "--platform", "A100", "--model",
		               "Qwen/Qwen3-8B", "--tp", "1", "--concurrency", "64", NULL };
	test_run_ok(sane);

	free(paper);
	free(huge);
	free(dir);
	return check_report("test_cli_power_beyond_boards");
}

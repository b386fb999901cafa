/*
 * A run without load levels opening idle (label realdata): the real A100
 * validate run's power.csv and engine.csv without its manifest, read with
 * --platform A100 --model Qwen/Qwen3-8B --utc-offset -25200. Its one row
 * is the whole log's window, idle its first 18.7 s as the level's row is
 * with the manifest, its mean (251.4 W) and throughput (570.29 tok/s) as
 * diluted; the warning was said of levels only, and this run was silent
 * (docs/formats/telemetry.md, "Load levels and idle windows": once a
 * window, a whole-log row being one). Skipped (77) when ../shared is absent.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_idle_lead_no_levels"), *run = path_join(root, "t3");
	const char *files[] = { "power.csv", "engine.csv" };
	char *text[2] = { NULL, NULL };
	mkdir(run, 0755);
	if (!test_read_texts(src, files, 2, text))
		return check_report("test_real_idle_lead_no_levels");
	for (int k = 0; k < 2; k++)
		free(test_fixture(run, files[k], text[k]));
	char *out = path_join(root, "t3.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--platform", "A100", "--model",
		               "Qwen/Qwen3-8B", "--utc-offset", "-25200", NULL };
	run_result r;
	run_wattcast(argv, NULL, &r);
	CHECK_INT(r.status, 0);
	char *line = test_line_with(r.err ? r.err : "", "idle its first");
	fprintf(stderr, "said: %s\n", line);
	CHECK_CONTAINS(line, "/t3: the whole log (no load levels): idle its first 18.7 s (no prompt tokens yet), "
	               "25 % of 74.9 s: row mean 251.4 W, 307.6 W without; throughput 25 % low");
	char *table = test_slurp(out), v[64];
	test_csv_field(table, "mean_power_w", v, sizeof v);
	CHECK_NEAR(atof(v), 251.4, 0.05);
	test_csv_field(table, "throughput_tok_s", v, sizeof v);
	CHECK_NEAR(atof(v), 570.29, 0.005);
	free(table);
	free(line);
	run_result_free(&r);
	for (int k = 0; k < 2; k++)
		free(text[k]);
	free(out);
	free(run);
	free(root);
	free(src);
	return check_report("test_real_idle_lead_no_levels");
}

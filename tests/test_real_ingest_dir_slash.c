/*
 * A RUN_DIR given with a trailing slash (label realdata): the real A100
 * trace replay (..083) with a broken requests.json, read as `rq_fail/`
 * and as its parent `v/`. Its files are named `v/rq_fail/requests.json`;
 * they were `v/rq_fail//requests.json` and `v//rq_fail/requests.json`
 * (docs/formats/telemetry.md, "Run folders"). Skipped (77) when ../shared
 * is absent.
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
	char *src = path_join(shared, "data/real/powertrace-sim/trace_replay_smoke_qwen3-8b_a100/"
	                              "a100_trace_replay_tp1_1784415083");
	char *root = test_tmpdir("real_ingest_dir_slash"), *v = path_join(root, "v"), *run = path_join(v, "rq_fail");
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	mkdir(v, 0755);
	mkdir(run, 0755);
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_ingest_dir_slash");
	for (int k = 0; k < 3; k++)
		free(test_fixture(run, files[k], text[k]));
	free(test_fixture(run, "requests.json", "{\"request_timestamps\": [1, \"x\"]\n"));
	char *out = path_join(root, "out.csv"), given[2][1100];
	snprintf(given[0], sizeof given[0], "%s/", run);
	snprintf(given[1], sizeof given[1], "%s/", v);
	for (int k = 0; k < 2; k++) {
		const char *argv[] = { "wattcast", "ingest", given[k], "-o", out, NULL };
		run_result r;
		run_wattcast(argv, NULL, &r);
		CHECK(r.status != 0);
		char *line = test_line_with(r.err ? r.err : "", "requests.json");
		fprintf(stderr, "%s\n", line);
		CHECK_CONTAINS(line, "/v/rq_fail/requests.json:");
		CHECK(strstr(line, "//") == NULL);
		free(line);
		run_result_free(&r);
	}
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(out);
	free(run);
	free(v);
	free(root);
	free(src);
	return check_report("test_real_ingest_dir_slash");
}

/*
 * GPUs no engine holds (docs/fleet.md, "Grouping") while the engine
 * restarts: a TP-2 engine on GPUs 0-1 of a 4-GPU host is down from
 * 00:02:00 to 00:02:30, its memory freed (every GPU at 3 MiB of
 * DCGM_FI_DEV_FB_USED), and at 00:02:30 the step it resumed within
 * holds GPUs 0-1 at a mean of 4803 MiB, under the 8156 MiB of an H100's
 * tenth. No GPU holding an engine's share, the GPUs of the step before
 * stay the engine's: counted all, GPUs 2-3 appeared at 00:02:30 and
 * vanished at 00:02:45, and both rows were TP 4, excluded as partial
 * power. Now no GPU is said to vanish or appear and every row, before
 * and after, is TP 2 at 800 W.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("prom_idle_restart");
	size_t cap = 1 << 21, len = 0;
	char *text = malloc(cap);
	static const double watts[4] = { 400, 400, 70, 70 };
	for (long s = 0; s <= 600; s++) {
		int down = s >= 120 && s < 150;
		len += (size_t)snprintf(text + len, cap - len, "# wattcast-scrape %ld dcgm-h1:9400\n", 1767225600 + s);
		for (int g = 0; g < 4; g++)
			len += (size_t)snprintf(text + len, cap - len,
			                        "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-%d\",gpu=\"%d\",modelName=\"NVIDIA "
			                        "H100 80GB HBM3\"} %g\nDCGM_FI_DEV_FB_USED{Hostname=\"h1\",UUID=\"GPU-%d\",gpu=\"%d\","
			                        "modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", g, g, watts[g], g, g,
			                        g < 2 && !down ? 72000 : 3);
		if (!down)
			len += (size_t)snprintf(text + len, cap - len, "# wattcast-scrape %ld h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n", 1767225600 + s);
	}
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "h1.prom", text, NULL, &r, &t);
	CHECK(t && t->n_runs >= 2);
	for (size_t i = 0; t && i < t->n_runs; i++) {
		fprintf(stderr, "%s tp %d %.2f W %s\n", t->runs[i].run_id, t->runs[i].tp, t->runs[i].mean_power_w,
		        t->runs[i].exclude);
		CHECK_INT(t->runs[i].tp, 2);
		CHECK_NEAR(t->runs[i].mean_power_w, 800.0, 1e-6);
	}
	CHECK_CONTAINS(r.err, "group 'h1': 2 of its 4 GPUs (gpu 2, 3) hold at most 3 MiB at ");
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: no sample at "
	                      "2026-01-01T00:02:15.000Z");
	CHECK(r.err && !strstr(r.err, "vanishes") && !strstr(r.err, "appears") && !strstr(r.err, "partial"));
	wc_runs_free(t);
	run_result_free(&r);
	free(text);
	free(dir);
	return check_report("test_prom_idle_restart");
}

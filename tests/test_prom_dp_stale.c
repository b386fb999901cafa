/*
 * A data-parallel group's stale counter (docs/fleet.md, "Problems in the
 * data"): two vLLM engines (`engine` 0 and 1) on one host, engine 1's
 * generation counter missing from 120 s to 164 s while its load goes on.
 * Both lines name engine 1; the resumption named engine 0, the counter's
 * first series, which never stopped.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("prom_dp_stale");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = 0; s < 300; s++) {
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %d h1:9400\n", 1767225600 + s);
		for (int g = 0; g < 2; g++)
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA "
			             "H100 80GB HBM3\",Hostname=\"h1\"} 400\n", g, g);
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %d h1:8000\n", 1767225600 + s);
		for (int e = 0; e < 2; e++) {
			test_appendf(&buf, &len, &cap, "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"%d\"} "
			             "8\n", e);
			if (!(e == 1 && s >= 120 && s < 165))
				test_appendf(&buf, &len, &cap, "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\","
				             "engine=\"%d\"} %d\n", e, 160 * (s + 1));
		}
	}
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "dp.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK_CONTAINS(r.err, "vllm:generation_tokens_total{engine=\"1\",instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: "
	               "no sample at 2026-01-01T00:02:15.000Z");
	CHECK_CONTAINS(r.err, "vllm:generation_tokens_total{engine=\"1\",instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: "
	               "resumes at 2026-01-01T00:02:45.000Z; 30 s of its increases left out");
	CHECK(r.err && !strstr(r.err, "{engine=\"0\",instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: resumes"));
	CHECK(t != NULL);
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_dp_stale");
}

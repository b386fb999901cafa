/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): vLLM V0's series, then V1's under an added
 * `engine="0"` label from 00:02:00 (docs/fleet.md, "Grouping"). Host h1,
 * one GPU at 140 W, 4 running, 40 generated tokens/s, the counter from 0
 * at the relabel. The two series were two data-parallel engines: at
 * `--step 15` the step holding the old series' last samples and the new
 * one's first was a row at running 8, twice the load (a 2x row), and the
 * rest of the range a gap of the engine missing; in pages, an engine slot
 * the later pages lacked. Now one engine restarted, in one page or many:
 * two rows of 120 s at 4 running, 140 W and 40 tok/s.
 */
#include "data/data.h"
#include "tests/support/prom_server.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static void
ingest(const char *url, const char *out, const char *step, const char *pages)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       "1767225840", "--step", step, "--page-steps", pages, "--min-window", "1", "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--step %s --page-steps %s: exit %d\n%s", step, pages, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "never beside the old series: one engine relabelled (vLLM V1's engine label?)");
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:02:");
	if (r.status == 0)
		t = test_prom_rows_each(out, 2, 4.0, 140.0, 40.0);
	else
		CHECK(0);
	wc_runs_free(t);
	run_result_free(&r);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_relabel"), *om = path_join(dir, "relabel.om");
	char *out = path_join(dir, "out.csv"), url[64], *text = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&text, &len, &cap, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int s = 0; s < 240; s++)
		test_appendf(&text, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\",gpu=\"0\",instance="
		             "\"dcgm-h1:9400\",job=\"dcgm\",modelName=\"NVIDIA H100 80GB HBM3\"} 140 %ld\n", T0 + s);
	const char *metric[2] = { "vllm:num_requests_running", "vllm:generation_tokens_total" };
	for (int m = 0; m < 2; m++) {
		test_appendf(&text, &len, &cap, "# TYPE %s %s\n", metric[m], m ? "counter" : "gauge");
		for (int s = 0; s < 240; s++)
			test_appendf(&text, &len, &cap, "%s{%sinstance=\"h1:8000\",job=\"vllm\",model_name=\"Qwen/Qwen3-8B\"} "
			             "%d %ld.3\n", metric[m], s < 120 ? "" : "engine=\"0\",", m ? 40 * (s % 120 + 1) : 4,
			             T0 + s);
	}
	test_appendf(&text, &len, &cap, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_relabel");
	}
	const char *runs[][2] = { { "15", "2000" }, { "15", "8" }, { "1", "2000" }, { "1", "60" } };
	for (int k = 0; k < 4; k++)
		ingest(url, out, runs[k][0], runs[k][1]);
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_relabel");
}

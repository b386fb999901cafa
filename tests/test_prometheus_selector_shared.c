/*
 * One bare-metal host, two engines the grouping cannot tell apart,
 * against a real Prometheus (skipped when it cannot be installed;
 * docs/fleet.md, "Queries"): h1 runs Qwen/Qwen3-8B (h1:8000, 4 running)
 * on GPU 0 at 300 W and Llama-3.1-8B (h1:8001, 6 running) on GPU 1 at
 * 250 W, no series naming which GPU is whose. `--selector
 * model_name="Qwen/Qwen3-8B"` does not fetch the Llama engine, and the
 * Qwen row held both GPUs (TP 2, 550 W) unsaid. The row stays, the
 * series allowing no other reading, and the page's query of the engines
 * the selector leaves out names the other engine and the GPUs, once, in
 * one page or many.
 */
#include "data/data.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static void
ingest(const char *url, const char *out, const char *pages)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end", "1767225840",
	                       "--step", "15", "--page-steps", pages, "--min-window", "1", "--selector",
	                       "{model_name=\"Qwen/Qwen3-8B\"}", "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--page-steps %s: exit %d\n%s", pages, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	/* the other engine's labels give way to the remedy (255 bytes) */
	static const char said[] = "group 'h1': gpu 0, 1 also serve {instance=\"h1:8001\",job=\"vllm\",model_name=";
	CHECK_CONTAINS(r.err, said);
	CHECK_CONTAINS(r.err, ", which --selector left out and no label tells apart: TP and power count both engines' "
	               "GPUs (give each engine's scrape its GPU's gpu label, --group-by host,gpu)\n");
	const char *p = r.err ? strstr(r.err, said) : NULL;
	CHECK(!p || !strstr(p + sizeof said - 1, "also serve"));
	if (r.status == 0)
		t = test_prom_rows_each(out, 1, 4.0, 550.0, 40.0);
	for (size_t i = 0; t && i < t->n_runs; i++)
		CHECK_INT(t->runs[i].tp, 2);
	wc_runs_free(t);
	run_result_free(&r);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_selector_shared"), *om = path_join(dir, "fleet.om");
	char *out = path_join(dir, "out.csv"), url[64], *text = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&text, &len, &cap, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int g = 0; g < 2; g++)
		for (int s = 0; s < 240; s++)
			test_appendf(&text, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-%d\",gpu=\"%d\","
			             "instance=\"dcgm-h1:9400\",job=\"dcgm\",modelName=\"NVIDIA H100 80GB HBM3\"} %d %ld\n", g, g,
			             g ? 250 : 300, T0 + s);
	const char *metric[2] = { "vllm:num_requests_running", "vllm:generation_tokens_total" };
	const char *model[2] = { "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B" };
	for (int m = 0; m < 2; m++) {
		test_appendf(&text, &len, &cap, "# TYPE %s %s\n", metric[m], m ? "counter" : "gauge");
		for (int e = 0; e < 2; e++)
			for (int s = 0; s < 240; s++)
				test_appendf(&text, &len, &cap, "%s{instance=\"h1:800%d\",job=\"vllm\",model_name=\"%s\"} %d "
				             "%ld.3\n", metric[m], e, model[e], m ? (e ? 60 : 40) * (s + 1) : e ? 6 : 4, T0 + s);
	}
	test_appendf(&text, &len, &cap, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_selector_shared");
	}
	ingest(url, out, "2000");
	ingest(url, out, "4");
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_selector_shared");
}

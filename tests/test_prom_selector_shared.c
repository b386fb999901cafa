/*
 * One bare-metal host, two engines the grouping cannot tell apart
 * (docs/fleet.md, "Queries"): h1 runs Qwen/Qwen3-8B on GPU 0 (h1:8000,
 * 4 running, 300 W, 70 GB) and Llama-3.1-8B on GPU 1 (h1:8001, 6
 * running, 250 W, 60 GB); every series carries the host alone, and
 * vLLM's none the GPU. `--selector model_name="Qwen/Qwen3-8B"` gives the
 * Qwen engine both GPUs (TP 2, 550 W), as the series allow no other
 * reading, and said nothing. It now says so once, naming the other
 * engine and the GPUs; h2 (its own host, Qwen on one GPU) is not named.
 * Without the selector the two are refused as two engines, as before.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

int
main(void)
{
	char *dir = test_tmpdir("prom_selector_shared"), *in = path_join(dir, "fleet.prom");
	char *out = path_join(dir, "out.csv"), *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = 0; s < 240; s++) {
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running{model_name="
		             "\"Qwen/Qwen3-8B\"} 4\n# wattcast-scrape %ld h1:8001\nvllm:num_requests_running{model_name="
		             "\"meta-llama/Llama-3.1-8B\"} 6\n# wattcast-scrape %ld h2:8000\nvllm:num_requests_running{"
		             "model_name=\"Qwen/Qwen3-8B\"} 5\n# wattcast-scrape %ld dcgm-h1:9400\n", T0 + s, T0 + s, T0 + s,
		             T0 + s);
		for (int g = 0; g < 2; g++)
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-h1-%d\",Hostname=\"h1\","
			             "modelName=\"NVIDIA H100 80GB HBM3\"} %d\nDCGM_FI_DEV_FB_USED{gpu=\"%d\",UUID=\"GPU-h1-%d\","
			             "Hostname=\"h1\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", g, g, g ? 250 : 300, g, g,
			             g ? 60000 : 70000);
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm-h2:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID="
		             "\"GPU-h2-0\",Hostname=\"h2\",modelName=\"NVIDIA H100 80GB HBM3\"} 320\n", T0 + s);
	}
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", "--selector",
	                       "model_name=\"Qwen/Qwen3-8B\"", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "exit %d\n%s", r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	static const char said[] = "group 'h1': gpu 0, 1 also serve {instance=\"h1:8001\",model_name=\"meta-llama/"
	                           "Llama-3.1-8B\"}, which --selector left out and no label tells apart: TP and power count both engines' "
	                           "GPUs";
	CHECK_CONTAINS(r.err, said);
	/* Whole, within 255 bytes, said once and of h1 alone. */
	const char *p = r.err ? strstr(r.err, said) : NULL;
	if (p) {
		const char *eol = strchr(p, '\n');
		static const char tail[] = "--group-by host,gpu)";
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		fprintf(stderr, "%zu bytes\n", n);
		CHECK(n <= 255);
		CHECK(n > sizeof tail && strncmp(p + n - (sizeof tail - 1), tail, sizeof tail - 1) == 0);
		CHECK(!strstr(p + sizeof said - 1, "also serve"));
	}
	CHECK(!r.err || !strstr(r.err, "group 'h2': gpu"));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, 2);
		for (size_t i = 0; i < t->n_runs; i++) {
			int h1 = strncmp(t->runs[i].run_id, "h1", 2) == 0;
			CHECK_INT(t->runs[i].tp, h1 ? 2 : 1);
			CHECK_NEAR(t->runs[i].mean_power_w, h1 ? 550.0 : 320.0, 1e-9);
			CHECK_NEAR(t->runs[i].running, h1 ? 4.0 : 5.0, 1e-12);
		}
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	/* Unselected, the host's two engines are refused as before. */
	const char *all[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", NULL };
	CHECK(run_wattcast(all, NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "group 'h1' left out: two engines at once");
	CHECK(!r.err || !strstr(r.err, "also serve"));
	run_result_free(&r);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_selector_shared");
}

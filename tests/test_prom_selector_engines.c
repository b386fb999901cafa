/*
 * `--selector` on a label only engines' series carry (docs/fleet.md,
 * "Queries"). Hosts h1 (Qwen/Qwen3-8B, GPU 0 at 350 W holding 70 GB and
 * GPU 1 idle at 70 W holding 300 MiB), h2 (Llama, 300 W) and h3 (Qwen,
 * 320 W, cluster "staging" on every series). `model_name="Qwen/Qwen3-8B"`
 * was put into the GPU queries too, whose DCGM series carry no
 * model_name: no GPU power and no row ('no GPU power series ... only
 * engines''). It now selects the Qwen engines and the GPUs of their
 * groups: h1 at TP 1 and 350 W (FB_USED read, its idle GPU left out),
 * h3 at 320 W, h2's GPU said once as no selected engine's. A label both
 * sides carry (`cluster`) still applies to both: with
 * `cluster="prod"` beside it, h1 alone.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static void
ingest(const char *in, const char *out, const char *selector, int n_rows)
{
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", "--selector",
	                       selector, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--selector %s: exit %d\n%s", selector, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	/* h3's GPU is left out by `cluster` in the query itself (the second
	 * run): no group of it to say. */
	CHECK_CONTAINS(r.err, "--selector: 1 GPU series in 1 group ('h2' first) are no selected engine's: left out "
	               "('model_name' selects engines, and the GPUs of their groups)\n");
	/* h2 and h3 hold an engine's share of their one GPU: no idle GPU. */
	CHECK(!r.err || !strstr(r.err, ": 0 of its "));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, n_rows);
		for (size_t i = 0; i < t->n_runs; i++) {
			int h1 = strstr(t->runs[i].run_id, "h1") != NULL;
			CHECK(h1 || (n_rows == 2 && strstr(t->runs[i].run_id, "h3")));
			CHECK_INT(t->runs[i].tp, 1);
			CHECK_NEAR(t->runs[i].mean_power_w, h1 ? 350.0 : 320.0, 1e-9);
			CHECK_NEAR(t->runs[i].running, h1 ? 9.0 : 5.0, 1e-12);
			CHECK_NEAR(t->runs[i].throughput_tok_s, h1 ? 90.0 : 50.0, 1e-9);
		}
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_selector_engines"), *in = path_join(dir, "fleet.prom");
	char *out = path_join(dir, "out.csv"), *buf = NULL;
	size_t len = 0, cap = 0;
	const char *host[] = { "h1", "h2", "h3" }, *model[] = { "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B",
	                                                       "Qwen/Qwen3-8B" };
	const char *cluster[] = { "prod", "prod", "staging" };
	const int running[] = { 9, 7, 5 }, watts[] = { 350, 300, 320 };
	for (int s = 0; s < 240; s++)
		for (int h = 0; h < 3; h++) {
			test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld %s:8000\nvllm:num_requests_running{model_name="
			             "\"%s\",cluster=\"%s\"} %d\nvllm:num_requests_waiting{model_name=\"%s\",cluster=\"%s\"} 1\n"
			             "vllm:generation_tokens_total{model_name=\"%s\",cluster=\"%s\"} %ld\n", T0 + s, host[h],
			             model[h], cluster[h], running[h], model[h], cluster[h], model[h], cluster[h],
			             (long)(10 * running[h] * (s + 1)));
			test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm-%s:9400\n", T0 + s, host[h]);
			for (int g = 0; g < (h == 0 ? 2 : 1); g++)
				test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%s-%d\",Hostname="
				             "\"%s\",modelName=\"NVIDIA H100 80GB HBM3\",cluster=\"%s\"} %d\n"
				             "DCGM_FI_DEV_FB_USED{gpu=\"%d\",UUID=\"GPU-%s-%d\",Hostname=\"%s\",modelName="
				             "\"NVIDIA H100 80GB HBM3\",cluster=\"%s\"} %d\n", g, host[h], g, host[h], cluster[h],
				             g ? 70 : watts[h], g, host[h], g, host[h], cluster[h], g ? 300 : 70000);
		}
	CHECK(write_text(in, buf) == 0);
	free(buf);
	ingest(in, out, "model_name=\"Qwen/Qwen3-8B\"", 2);
	ingest(in, out, "{model_name=~\"Qwen/.*\",cluster=\"prod\"}", 1);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_selector_engines");
}

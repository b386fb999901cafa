/*
 * `--selector` on a label only the GPUs' series carry (docs/fleet.md,
 * "Queries"), the mirror of test_prom_selector_engines. Hosts h1 (Qwen,
 * 9 running, GPU 0 at 350 W holding 70 GB and GPU 1 idle at 70 W holding
 * 300 MiB, H100), h2 (Llama, 7 running, 300 W, A100) and h3 (Qwen, 5
 * running, 320 W, H100, cluster "staging" on every series). The DCGM
 * exporter's `Hostname="h1"` went into the engine queries too, whose
 * series carry no Hostname: no engine selected, exit 1 ('no engine load
 * series ... only GPU power'). It now selects h1's GPUs and the engines
 * of their groups: h1 at TP 1 and 350 W (its idle GPU left out by
 * FB_USED), the other hosts' engines said once. So too `UUID` and
 * `modelName` (h1 and h3); a label both sides carry (`cluster`) still
 * applies to both.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static void
ingest(const char *in, const char *out, const char *selector, const char *hosts, const char *said)
{
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", "--selector",
	                       selector, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--selector %s: exit %d\n%s", selector, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, said);
	/* Said once, not one line per group of engines left out. */
	CHECK(!r.err || !strstr(r.err, "engine with no GPU series"));
	int n_said = 0;
	for (const char *p = r.err; p && (p = strstr(p, "use no selected GPU")) != NULL; p++)
		n_said++;
	CHECK_INT(n_said, 1);
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, strlen(hosts));
		for (size_t i = 0; i < t->n_runs; i++) {
			char h = t->runs[i].run_id[1];
			CHECK(t->runs[i].run_id[0] == 'h' && strchr(hosts, h));
			CHECK_INT(t->runs[i].tp, 1);
			CHECK_NEAR(t->runs[i].mean_power_w, h == '1' ? 350.0 : 320.0, 1e-9);
			CHECK_NEAR(t->runs[i].running, h == '1' ? 9.0 : 5.0, 1e-12);
			CHECK_NEAR(t->runs[i].throughput_tok_s, h == '1' ? 90.0 : 50.0, 1e-9);
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
	char *dir = test_tmpdir("prom_selector_gpus"), *in = path_join(dir, "fleet.prom");
	char *out = path_join(dir, "out.csv"), *buf = NULL;
	size_t len = 0, cap = 0;
	const char *host[] = { "h1", "h2", "h3" }, *model[] = { "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B",
	                                                       "Qwen/Qwen3-8B" };
	const char *board[] = { "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3" };
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
				             "\"%s\",modelName=\"%s\",cluster=\"%s\"} %d\nDCGM_FI_DEV_FB_USED{gpu=\"%d\",UUID="
				             "\"GPU-%s-%d\",Hostname=\"%s\",modelName=\"%s\",cluster=\"%s\"} %d\n", g, host[h], g,
				             host[h], board[h], cluster[h], g ? 70 : watts[h], g, host[h], g, host[h], board[h],
				             cluster[h], g ? 300 : 70000);
		}
	CHECK(write_text(in, buf) == 0);
	free(buf);
	ingest(in, out, "Hostname=\"h1\"", "1", "--selector: the engines of 2 groups ('h2' first) use no selected "
	       "GPU: left out ('Hostname' selects GPUs, and the engines of their groups)\n");
	ingest(in, out, "{UUID=~\"GPU-h[13]-0\"}", "13", "--selector: the engines of 1 group ('h2' first) use no "
	       "selected GPU: left out ('UUID' selects GPUs, and the engines of their groups)\n");
	ingest(in, out, "{modelName=\"NVIDIA H100 80GB HBM3\",cluster=\"prod\"}", "1", "--selector: the engines of 1 "
	       "group ('h2' first) use no selected GPU: left out ('modelName' selects GPUs");
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_selector_gpus");
}

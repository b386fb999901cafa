/*
 * `--selector` on a label only one side's series carry, against a real
 * Prometheus (skipped when it cannot be installed; docs/fleet.md,
 * "Queries"). Host h1 runs Qwen/Qwen3-8B (4 running, 40 tok/s, one GPU
 * at 140 W), host h2 Llama (6 running, 200 W); one server answers both
 * selectors.
 * - model_name (engines only) went into the power query too, whose DCGM
 *   series carry none: no GPU power, exit 1 ('no GPU power series ...
 *   only engines'). It selects h1's engine and the GPU its group joins,
 *   h2's GPU said once as no selected engine's.
 * - Hostname (the DCGM exporter's, GPUs only) went into the engine
 *   queries: no engine load, exit 1 ('no engine load series ... only GPU
 *   power'). It selects h1's GPU and the engine its group joins, h2's
 *   engine said once as using no selected GPU.
 * Either way: one row of 240 s at 4 running, 140 W and 40 tok/s.
 */
#include "data/data.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

/* Ingest from `url` with `selector`: exit 0, `said` on stderr (and not
 * `unsaid`), and h1's one row. */
static void
select_h1(const char *url, const char *dir, const char *selector, const char *said, const char *unsaid)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end", "1767225840",
	                       "--step", "15", "--min-window", "1", "--selector", selector, "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	remove(out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s: exit %d\n%s", selector, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, said);
	CHECK(!unsaid || !r.err || !strstr(r.err, unsaid));
	if (r.status == 0)
		t = test_prom_rows_each(out, 1, 4.0, 140.0, 40.0);
	for (size_t i = 0; t && i < t->n_runs; i++) {
		CHECK(strncmp(t->runs[i].run_id, "h1", 2) == 0);
		CHECK_INT(t->runs[i].tp, 1);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_selector_sides"), *om = path_join(dir, "fleet.om");
	char url[64], *text = NULL;
	size_t len = 0, cap = 0;
	const char *host[] = { "h1", "h2" }, *model[] = { "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B" };
	test_appendf(&text, &len, &cap, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int h = 0; h < 2; h++)
		for (int s = 0; s < 240; s++)
			test_appendf(&text, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"%s\",UUID=\"GPU-%d\",gpu=\"0\","
			             "instance=\"dcgm-%s:9400\",job=\"dcgm\",modelName=\"NVIDIA H100 80GB HBM3\"} %d %ld\n",
			             host[h], h, host[h], h ? 200 : 140, T0 + s);
	const char *metric[2] = { "vllm:num_requests_running", "vllm:generation_tokens_total" };
	for (int m = 0; m < 2; m++) {
		test_appendf(&text, &len, &cap, "# TYPE %s %s\n", metric[m], m ? "counter" : "gauge");
		for (int h = 0; h < 2; h++)
			for (int s = 0; s < 240; s++)
				test_appendf(&text, &len, &cap, "%s{instance=\"%s:8000\",job=\"vllm\",model_name=\"%s\"} %d "
				             "%ld.3\n", metric[m], host[h], model[h], m ? (h ? 60 : 40) * (s + 1) : h ? 6 : 4,
				             T0 + s);
	}
	test_appendf(&text, &len, &cap, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_selector_sides");
	}
	select_h1(url, dir, "{model_name=\"Qwen/Qwen3-8B\"}",
	          "--selector: 1 GPU series in 1 group ('h2' first) are no selected engine's: left out "
	          "('model_name' selects engines, and the GPUs of their groups)\n",
	          NULL);
	select_h1(url, dir, "{Hostname=\"h1\"}",
	          "--selector: the engines of 1 group ('h2' first) use no selected GPU: left out "
	          "('Hostname' selects GPUs, and the engines of their groups)\n",
	          "engine with no GPU series");
	test_prom_stop();
	free(om);
	free(dir);
	return check_report("test_prometheus_selector_sides");
}

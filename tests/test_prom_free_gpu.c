/*
 * A GPU no engine uses (docs/fleet.md, "Grouping"): under Kubernetes a
 * node's free GPU carries no exported_pod, so DCGM's series keeps the
 * exporter's own namespace and pod, and under --group-by namespace,pod
 * it is a group of its own without an engine. It refused the whole fleet
 * ('GPU with no engine series: ... (--group-by matches them
 * differently)', exit 1), a remedy no --group-by gives. Every engine
 * having its GPUs, it is now left out with a warning naming it and
 * --selector, and the engine's row is written: TP 1 at 350 W.
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
	char *dir = test_tmpdir("prom_free_gpu");
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	for (int s = 0; s < 300; s += 15)
		len += (size_t)snprintf(text + len, cap - len, "# wattcast-scrape %d 10.0.1.7:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-k8s-0\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"dcgm-exporter-x7k2p\",namespace=\"gpu-operator\",pod=\"dcgm-exporter-x7k2p\","
		                        "exported_namespace=\"llm\",exported_pod=\"vllm-qwen-0\"} 350\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-k8s-1\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"dcgm-exporter-x7k2p\",namespace=\"gpu-operator\",pod=\"dcgm-exporter-x7k2p\"} 70\n"
		                        "# wattcast-scrape %d 10.0.2.15:8000\nvllm:num_requests_running{model_name="
		                        "\"Qwen/Qwen3-8B\",namespace=\"llm\",pod=\"vllm-qwen-0\"} 9\n", 1767225600 + s,
		                        1767225600 + s);
	const char *extra[] = { "--group-by", "namespace,pod", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "k8s.prom", text, extra, &r, &t);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK_INT(t->runs[0].tp, 1);
		CHECK_NEAR(t->runs[0].mean_power_w, 350.0, 1e-9);
		CHECK_NEAR(t->runs[0].running, 9.0, 1e-9);
	}
	CHECK_CONTAINS(r.err, ": GPU with no engine series in group 'gpu-operator/dcgm-exporter-x7k2p', and every "
	                      "engine has GPUs: 1 GPU series no engine uses, left out (--selector drops them from the "
	                      "queries)\n");
	const char *line = r.err ? strstr(r.err, "warning: ") : NULL;
	CHECK(line && strchr(line, '\n') - line - strlen("warning: ") <= 255);
	wc_runs_free(t);
	run_result_free(&r);
	free(text);
	free(dir);
	return check_report("test_prom_free_gpu");
}

/*
 * A GPU in two power series without a `UUID` label (docs/fleet.md,
 * "Grouping"): host h1's 2 GPUs at 300 W each, scraped by a static job
 * and a ServiceMonitor (series that differ in `job` alone), after a
 * relabelling that dropped `UUID`; the engine runs 8 requests at 160
 * tokens/s. Without a UUID the check that counts each GPU once did
 * nothing: one row at TP 4 and 1200 W, its energy per token doubled,
 * unsaid. A GPU is now its host and `gpu` index when it has no UUID:
 * TP 2 at 600 W, the duplicate named once.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

int
main(void)
{
	char *dir = test_tmpdir("prom_gpu_no_uuid");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 300 && buf; s++) {
		for (int job = 0; job < 2; job++) {
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:9400\n", T0 + s);
			for (int g = 0; g < 2; g++)
				len += (size_t)snprintf(buf + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",modelName="
				                        "\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\",job=\"%s\"} 300\n", g,
				                        job ? "dcgm-sm" : "dcgm");
		}
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d\n",
		                        T0 + s, 160 * (s + 1));
	}
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "two_jobs.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK_CONTAINS(r.err, "group 'h1': GPU 0 of host 'h1' (no UUID label: by host and gpu) in two power series at "
	               "2026-01-01T00:00:00.000Z (one exporter in two scrape jobs?), counted once: "
	               "DCGM_FI_DEV_POWER_USAGE{");
	CHECK_CONTAINS(r.err, "read, not the one with job=\"dcgm-sm\"\n");
	CHECK(r.err && !strstr(r.err, "GPU 1 of host"));
	if (t) {
		CHECK_INT(t->n_runs, 1);
		for (size_t i = 0; i < t->n_runs; i++) {
			const wc_run *row = &t->runs[i];
			fprintf(stderr, "%s tp %d %.1f W %.4f J/token\n", row->run_id, row->tp, row->mean_power_w,
			        row->energy_per_token_j);
			CHECK_INT(row->tp, 2);
			CHECK_NEAR(row->mean_power_w, 600.0, 1e-6);
			CHECK_NEAR(row->energy_per_token_j, 600.0 / 160.0, 1e-3);
		}
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_gpu_no_uuid");
}

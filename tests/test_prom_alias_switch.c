/*
 * `wattcast ingest --scrapes`: an engine upgraded mid-range exports a
 * metric under its old name, then under the new one (docs/fleet.md,
 * "Metrics"). vLLM's inter-token histogram as
 * vllm:time_per_output_token_seconds_* (0.02 s) for 200 s, then, after a
 * restart, as vllm:inter_token_latency_seconds_* (0.03 s). The new name
 * was read for the whole range, its group's old series dropped: the
 * first window's itl_s blank, unsaid. Each step now reads the preferred
 * name where it has a sample, else the other.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define UPGRADE 200

int
main(void)
{
	char *dir = test_tmpdir("prom_alias_switch");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 400; s++) {
		int n = (s < UPGRADE ? s + 1 : s - UPGRADE + 1) * 300; /* tokens since the engine started */
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h1\",modelName=\"NVIDIA H100 80GB "
		                        "HBM3\"} 400\n# wattcast-scrape %ld.5 h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 10\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:%s_seconds_sum{model_name=\"Qwen/Qwen3-8B\"} %.2f\n"
		                        "vllm:%s_seconds_count{model_name=\"Qwen/Qwen3-8B\"} %d\n",
		                        T0 + s, T0 + s, n, s < UPGRADE ? "time_per_output_token" : "inter_token_latency",
		                        n * (s < UPGRADE ? 0.02 : 0.03),
		                        s < UPGRADE ? "time_per_output_token" : "inter_token_latency", n);
	}
	char *in = path_join(dir, "upgrade.prom"), *out = path_join(dir, "out.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:03:21.000Z");
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK && t->n_runs == 2) {
		const char *a = wc_runs_get_extra(t, 0, "itl_s"), *b = wc_runs_get_extra(t, 1, "itl_s");
		CHECK(a && *a && atof(a) > 0.02 - 1e-9 && atof(a) < 0.02 + 1e-9);
		CHECK(b && *b && atof(b) > 0.03 - 1e-9 && atof(b) < 0.03 + 1e-9);
		fprintf(stderr, "itl_s %s then %s\n", a ? a : "(none)", b ? b : "(none)");
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_alias_switch");
}

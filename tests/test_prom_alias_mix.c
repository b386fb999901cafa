/*
 * Both of vLLM's inter-token histogram names exported at once (docs/
 * fleet.md, "Metrics"), the old one's counts offset by +500 s and +5000
 * as an engine started earlier would show, and the new name missing the
 * scrape at second 100. The step without the new name was read from the
 * old one and the next from the new one again: an increase across the
 * two counters, said twice as a "counter reset ... (from 800 to 303), an
 * engine restart", the window cut at 01:41 and its itl_s 0.0533 for a
 * true 0.03 (+78 %). An increase is now taken between samples of one
 * series: one window, 0.03 s, no reset, at --step 1 and 15.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define SECONDS 301
#define MISSED 100 /* the new name's missed scrape */

static void
one(const char *dir, const char *step)
{
	size_t cap = 1 << 21, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		double n = 100.0 * s, sum = 3.0 * s; /* 100 tokens a second, 0.03 s each */
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.0f\n"
		                        "vllm:time_per_output_token_seconds_sum{model_name=\"Qwen/Qwen3-8B\"} %.6f\n"
		                        "vllm:time_per_output_token_seconds_count{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
		                        T0 + s, n, sum + 500.0, n + 5000.0);
		if (s != MISSED)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "vllm:inter_token_latency_seconds_sum{model_name=\"Qwen/Qwen3-8B\"} %.6f\n"
			                        "vllm:inter_token_latency_seconds_count{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
			                        sum, n);
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 200\n", T0 + s);
	}
	char *in = path_join(dir, "mix.prom"), *out = path_join(dir, "out.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", step, "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "--step %s\n%s%s", step, r.out ? r.out : "", r.err ? r.err : "");
	CHECK(!r.err || !strstr(r.err, "counter reset"));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, 1);
		for (size_t i = 0; i < t->n_runs; i++)
			CHECK_NEAR(test_runs_extra(t, i, "itl_s"), 0.03, 1e-9);
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_alias_mix");
	one(dir, "1");
	one(dir, "15");
	free(dir);
	return check_report("test_prom_alias_mix");
}

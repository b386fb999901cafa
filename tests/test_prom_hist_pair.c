/*
 * The mean TTFT and inter-token latency of `wattcast ingest --scrapes`
 * when one counter of a histogram's _sum/_count pair has a hole
 * (docs/fleet.md, "Rows"): an engine scraped every second at a constant
 * ITL of 0.02 s and TTFT of 0.5 s, its _sum series (then its _count
 * series) missing from 100 s to 159 s while the other goes on. The mean
 * is the increase of _sum over the increase of _count over one span: the
 * steps withdrawn for one of them are withdrawn for both. Withdrawn for
 * one alone, the row read itl_s 0.0147 and ttft_s 0.368 (_sum missing),
 * itl_s 0.0271 (_count missing).
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define SECONDS 300

/* miss: "sum" or "count", the half of each pair with the hole. */
static char *
scrapes(const char *miss)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	const char *lb = "model_name=\"Qwen/Qwen3-8B\",engine=\"0\"";
	for (int s = 0; s < SECONDS; s++) {
		int hole = s >= 100 && s < 160;
		int sum = !(hole && !strcmp(miss, "sum")), count = !(hole && !strcmp(miss, "count"));
		double tokens = 320.0 * (s + 1);
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\",Hostname=\"h1\"} 400\n# wattcast-scrape %ld h1:8000\n"
		                        "vllm:num_requests_running{%s} 16\nvllm:generation_tokens_total{%s} %.0f\n",
		                        T0 + s, T0 + s, lb, lb, tokens);
		if (sum)
			len += (size_t)snprintf(buf + len, cap - len, "vllm:inter_token_latency_seconds_sum{%s} %.4f\n"
			                        "vllm:time_to_first_token_seconds_sum{%s} %.4f\n", lb, tokens * 0.02,
			                        lb, s * 0.5);
		if (count)
			len += (size_t)snprintf(buf + len, cap - len, "vllm:inter_token_latency_seconds_count{%s} %.0f\n"
			                        "vllm:time_to_first_token_seconds_count{%s} %d\n", lb, tokens, lb, s);
	}
	return buf;
}

int
main(void)
{
	char *dir = test_tmpdir("prom_hist_pair");
	const char *const miss[] = { "sum", "count" };
	for (int j = 0; j < 2; j++) {
		char name[32];
		snprintf(name, sizeof name, "hole_%s.prom", miss[j]);
		char *text = scrapes(miss[j]);
		run_result r;
		wc_runs_table *t = NULL;
		test_prom_ingest(dir, name, text, NULL, &r, &t);
		free(text);
		/* the hole is still said, with its span */
		CHECK_CONTAINS(r.err, "no sample at 2026-01-01T00:02:00.000Z while the engine's load has one");
		CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:02:45.000Z; 45 s of its increases left out");
		CHECK(t != NULL);
		if (t) {
			CHECK_INT(t->n_runs, 1);
			double itl = test_runs_extra(t, 0, "itl_s"), ttft = test_runs_extra(t, 0, "ttft_s");
			fprintf(stderr, "_%s missing: itl_s %.9g, ttft_s %.9g\n", miss[j], itl, ttft);
			CHECK_NEAR(itl, 0.02, 1e-9);
			CHECK_NEAR(ttft, 0.5, 1e-9);
			wc_runs_free(t);
		}
		run_result_free(&r);
	}
	free(dir);
	return check_report("test_prom_hist_pair");
}

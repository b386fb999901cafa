/*
 * Token rates of `wattcast ingest --scrapes` across a short engine scrape
 * outage (docs/fleet.md, "Rows"): an engine generating exactly 250
 * tokens/s at 8 running requests, then 500 tokens/s at 16 from second 120,
 * scraped every second at .083 s past it but not at seconds 126 to 134, its
 * GPU every second, read at 15 s steps. Every step still has a sample of
 * the counter, so no gap is seen; the second window's first counted
 * increase runs from 125.083 s to 149.083 s, 24 s, and counted as one
 * 15 s step it made the window 543 tok/s of 500 (a smoke test found +37 %
 * on a real run). Rates are now the increases over the time between the
 * samples they run between. A window's first step counts too, as its
 * power and load do (its increase runs from the counter's last sample
 * before it): the second window's rate runs from 119.083 s, 0.917 s of
 * it at 250 tok/s, to its last sample before the range's last step,
 * whose increase is withdrawn, 239.083 s: 498.09 tok/s.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600L
#define SECONDS 255
#define CHANGE 120

static double
engine_time(int s)
{
	return (double)(T0 + s) + 0.083;
}

/* Generated tokens at the engine's sample of second s. */
static double
generated(int s)
{
	double t = engine_time(s) - (double)T0;
	return t < CHANGE ? 250.0 * t : 250.0 * CHANGE + 500.0 * (t - CHANGE);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_counter_outage");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 300\n", T0 + s);
		if (s >= 126 && s <= 134)
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %.3f a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.3f\n",
		                        engine_time(s), s < CHANGE ? 8 : 16, generated(s));
	}
	const char *extra[] = { "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "outage.prom", buf, extra, &r, &t);
	free(buf);
	if (t) {
		CHECK_INT(t->n_runs, 2);
		for (size_t i = 0; i < t->n_runs; i++) {
			double want = i == 0 ? 250.0
			              : (generated(239) - generated(CHANGE - 1)) / (engine_time(239) - engine_time(CHANGE - 1));
			fprintf(stderr, "row %zu from %+.0f s: %.9g tok/s\n", i,
			        test_runs_extra(t, i, "start_epoch") - (double)T0, t->runs[i].throughput_tok_s);
			CHECK_NEAR(t->runs[i].throughput_tok_s, want, 1e-6 * want);
			CHECK_NEAR(test_runs_extra(t, i, "generation_tok_s"), want, 1e-6 * want);
		}
		if (t->n_runs == 2)
			CHECK_NEAR(test_runs_extra(t, 1, "start_epoch"), (double)(T0 + 135), 1e-6);
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_counter_outage");
}

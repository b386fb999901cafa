/*
 * A group's first step that its samples cover in part (docs/fleet.md,
 * "Windows"). Files start the range at their first power sample, so at
 * 1 s scrapes read at --step 15 the first step, (t0 - 15, t0], held that
 * one sample: counted as a whole step, a run of 300 s (t0 to t0 + 300,
 * 100 W at t0 and 300 W after) made a row of 315 s at 290.48 W, one
 * instant weighed as 15 s. The step is now left out: 300 s at 300 W from
 * the step after it, at the same 100 tok/s (its counter's sample is the
 * rates' start). So too for a --start before the data, whose first step
 * holding samples covers 11 s of 15 (its last, 5 s, is left out by the
 * same rule: tests/test_prom_last_step.c). At 15 s scrapes each step
 * holds one scrape, which covers it (the scrape times jitter by 2 ms):
 * the first step is kept, 21 steps of 15 s.
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

/* Scrapes every `every` s from T0 to T0 + SECONDS, the second one `jitter`
 * s early: 5 running, 100 tok/s, 100 W at T0 and 300 W after. */
static char *
scrapes(int every, double jitter)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s <= SECONDS; s += every) {
		double t = (double)(T0 + s) - (s == every ? jitter : 0.0);
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %.3f a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 5\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.1f\n"
		                        "# wattcast-scrape %.3f dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"a\",modelName=\"NVIDIA "
		                        "H100 80GB HBM3\"} %d\n", t, 100.0 * (t - (double)T0), t, s ? 300 : 100);
	}
	return buf;
}

static void
one(const char *dir, int every, double jitter, const char *start, double start_epoch, double duration,
    double power)
{
	char *buf = scrapes(every, jitter);
	const char *extra[] = { "--start", start, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "first.prom", buf, start ? extra : NULL, &r, &t);
	free(buf);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK_NEAR(test_runs_extra(t, 0, "start_epoch"), start_epoch, 1e-6);
		if (duration > 0)
			CHECK_NEAR(test_runs_extra(t, 0, "duration_s"), duration, 1e-6);
		CHECK_NEAR(t->runs[0].mean_power_w, power, 1e-9);
		CHECK_NEAR(t->runs[0].running, 5.0, 1e-9);
		CHECK_NEAR(t->runs[0].throughput_tok_s, 100.0, 1e-6);
	}
	wc_runs_free(t);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_first_step");
	/* 1 s scrapes: the first step (T0 - 15, T0] holds the sample at T0 alone. */
	one(dir, 1, 0.0, NULL, (double)(T0 + 15), 300.0, 300.0);
	/* --start 5 s before the data: its first step, (T0 - 5, T0 + 10], holds 11 s. */
	one(dir, 1, 0.0, "2025-12-31T23:59:55Z", (double)(T0 + 25), 0.0, 300.0);
	/* 15 s scrapes, one a step: the first step is covered and kept. */
	one(dir, 15, 0.002, NULL, (double)T0, 315.0, (100.0 + 20.0 * 300.0) / 21.0);
	free(dir);
	return check_report("test_prom_first_step");
}

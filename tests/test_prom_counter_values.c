/*
 * Counter samples within a step of `wattcast ingest --scrapes` at --step
 * 15 (docs/fleet.md, "Rows" and "Problems in the data"): one GPU at 300 W
 * under 8 running requests, its engine scraped every second, generating
 * 160 tokens/s and reading 320 prompt tokens/s.
 *  - The engine restarts at 141.5 s, inside the step (135, 150]: its
 *    counters count from 0 again. The increments of 136..141 s are kept,
 *    as Prometheus's increase() keeps them; read from the step's last
 *    sample alone they were lost while the step's 15 s stayed, and the
 *    window after the restart read 4 % low.
 *  - A generation count of -5 at 200 s (not the step's last sample) and
 *    a prompt count of +Inf at 240 s (the step's last) are no counts:
 *    each is said implausible with its series and time, the increases
 *    either side are left out, and neither is a restart: the window goes
 *    on. -5 was read as a restart "counted from 0", cutting the window.
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
#define SECONDS 300
#define RESTART 141.5

/* Tokens counted at second s at `rate` a second: from 0 again after the restart. */
static double
counted(int s, double rate)
{
	return rate * (s < RESTART ? (double)s : (double)s - RESTART);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_counter_values");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		char gen[32], prompt[32];
		snprintf(gen, sizeof gen, "%.17g", s == 200 ? -5.0 : counted(s, 160.0));
		snprintf(prompt, sizeof prompt, "%s", s == 240 ? "+Inf" : "");
		if (!prompt[0])
			snprintf(prompt, sizeof prompt, "%.17g", counted(s, 320.0));
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 300\n# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %s\n"
		                        "vllm:prompt_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %s\n",
		                        T0 + s, T0 + s, gen, prompt);
	}
	const char *extra[] = { "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "counters.prom", buf, extra, &r, &t);
	free(buf);
	CHECK_CONTAINS(r.err, "vllm:generation_tokens_total{instance=\"a:8000\",model_name=\"Qwen/Qwen3-8B\"}: counter "
	               "reset at 2026-01-01T00:02:30.000Z (from 22560 to 80)");
	CHECK_CONTAINS(r.err, "counter value -5 at 2026-01-01T00:03:20.000Z is implausible, not a count: the increases "
	               "either side are left out of the rates");
	CHECK_CONTAINS(r.err, "counter value inf at 2026-01-01T00:04:00.000Z is implausible");
	CHECK(r.err && !strstr(r.err, "(from 31360 to -5)") && !strstr(r.err, "to inf)"));
	if (t) {
		CHECK_INT(t->n_runs, 2);
		for (size_t i = 0; i < t->n_runs; i++) {
			double gen = test_runs_extra(t, i, "generation_tok_s"), prompt = test_runs_extra(t, i, "prompt_tok_s");
			fprintf(stderr, "row %zu from %+.0f s: %.9g generated, %.9g prompt tokens/s\n", i,
			        test_runs_extra(t, i, "start_epoch") - (double)T0, gen, prompt);
			/* increase() loses the old process's last half second: 0.5 %. */
			CHECK(fabs(gen - 160.0) <= 0.01 * 160.0);
			CHECK(fabs(prompt - 320.0) <= 0.01 * 320.0);
		}
		if (t->n_runs == 2)
			CHECK_NEAR(test_runs_extra(t, 1, "start_epoch"), (double)(T0 + 150), 1e-6);
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_counter_values");
}

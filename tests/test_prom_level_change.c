/*
 * A load that changes within a step (docs/fleet.md, "Windows"): one GPU
 * scraped every second with its engine, 8 running at 300 W then 96 at
 * 700 W from second 299, and idle at 100 W then 8 running from second
 * 240, read at --step 15 (three steps of hold). The step the change falls
 * in is a mix of both levels (19.7 and 0.53 running); it seeded the new
 * window's mean, the steps at the new level were held against that mean
 * and cut again, and a 45 s row at 70.6 (5.5) running, a load that never
 * existed, passed --min-window 30. The mixed step is left out and said:
 * two rows, each at its level.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define SECONDS 601

static void
one(const char *dir, int lo, int hi, int change, const char *said)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	double gen = 0.0;
	for (int s = 0; s < SECONDS; s++) {
		int n = s < change ? lo : hi;
		gen += 20.0 * n;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} %d\n# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:num_requests_waiting{model_name=\"Qwen/Qwen3-8B\"} 0\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
		                        T0 + s, 100 + 25 * (n > 16 ? 24 : n), T0 + s, n, gen);
	}
	char *in = path_join(dir, "level.prom"), *out = path_join(dir, "out.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", "15", "--min-window", "30", "-o", out,
	                       NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
	CHECK(r.err && strstr(r.err, said));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, 2);
		if (t->n_runs == 2) {
			CHECK_NEAR(t->runs[0].running, (double)lo, 1e-9);
			CHECK_NEAR(t->runs[1].running, (double)hi, 1e-9);
			CHECK_NEAR(t->runs[1].mean_power_w, 100.0 + 25.0 * (hi > 16 ? 24 : hi), 1e-9);
			/* the first step after the mixed one, (300, 315] or (240, 255] */
			CHECK_NEAR(test_runs_extra(t, 1, "start_epoch"), (double)(T0 + (change + 14) / 15 * 15 + 15),
			           1e-6);
		}
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
	char *dir = test_tmpdir("prom_level_change");
	one(dir, 8, 96, 299, "group 'a': the load changed within the step at 2026-01-01T00:05:00.000Z (running "
	                     "19.73 between windows at 8 and 96): the step is left out of the rows");
	one(dir, 0, 8, 240, "group 'a': the load changed within the step at 2026-01-01T00:04:00.000Z (running "
	                    "0.5333 between windows at 0 and 8): the step is left out of the rows");
	free(dir);
	return check_report("test_prom_level_change");
}

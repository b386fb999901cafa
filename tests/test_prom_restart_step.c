/*
 * An engine restart read at --step 15 (docs/fleet.md, "Problems in the
 * data"): one GPU at 300 W under 32 running requests, scraped every
 * second, whose engine stops after second 129 and comes back at second
 * 160 (its counters from 0) while the GPU reports 100 W. The step
 * (120, 135] holds the engine's last samples and 6 s of the outage's
 * power, the step (150, 165] its first samples and 9 s of it; counted as
 * loaded steps they made the windows 292 W and 288 W of 300 W (the
 * truth test reads at --step 1, where no step is shared). Both steps are
 * left out with the gap and said so: every window reads 300 W and 32
 * running, and 640 tokens/s.
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
#define STOP 130   /* the engine's first second without a sample */
#define BACK 160   /* ... and its first again */

int
main(void)
{
	char *dir = test_tmpdir("prom_restart_step");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		int up = s < STOP || s >= BACK;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} %d\n", T0 + s, up ? 300 : 100);
		if (!up)
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 32\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d\n",
		                        T0 + s, 640 * (s < STOP ? s : s - BACK));
	}
	const char *extra[] = { "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	test_prom_ingest(dir, "restart.prom", buf, extra, &r, &t);
	free(buf);
	CHECK(r.err && strstr(r.err, "no sample at 2026-01-01T00:02:30.000Z; the steps until it resumes, and the "
	                             "one before, which its samples cover in part, are left out"));
	CHECK(r.err && strstr(r.err, "resumes at 2026-01-01T00:02:45.000Z, within that step, which is left out "
	                             "too; 45 s left out of group 'a'"));
	if (t) {
		CHECK_INT(t->n_runs, 2);
		for (size_t i = 0; i < t->n_runs; i++) {
			fprintf(stderr, "row %zu from %+.0f s: %.9g W, %.9g running, %.9g tok/s, %.0f s\n", i,
			        test_runs_extra(t, i, "start_epoch") - (double)T0, t->runs[i].mean_power_w, t->runs[i].running,
			        test_runs_extra(t, i, "generation_tok_s"), test_runs_extra(t, i, "duration_s"));
			CHECK_NEAR(t->runs[i].mean_power_w, 300.0, 1e-9);
			CHECK_NEAR(t->runs[i].running, 32.0, 1e-9);
			CHECK_NEAR(test_runs_extra(t, i, "generation_tok_s"), 640.0, 1e-6);
		}
		if (t->n_runs == 2) {
			CHECK_NEAR(test_runs_extra(t, 0, "end_epoch"), (double)(T0 + 120), 1e-6);
			CHECK_NEAR(test_runs_extra(t, 1, "start_epoch"), (double)(T0 + 180), 1e-6);
		}
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_restart_step");
}

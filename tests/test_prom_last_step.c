/*
 * A group's steps that its samples cover in part at the end of a stretch
 * of samples (docs/fleet.md, "Windows"): the range's last step, the step
 * before a gap and the step a gap ends within are left out by the rule of
 * a group's first step (tests/test_prom_first_step.c). A run scraped
 * every second from T0 to T0 + 307 at --step 15: the range's last step,
 * (T0 + 300, T0 + 315], holds 7 s of samples (400 W, 300 W before), and
 * counted whole it made a 315 s row at 304.76 W, one more step than the
 * data's; now 300 s at 300 W, to T0 + 300. Stopping at T0 + 307 and back
 * at T0 + 600, the steps either side of the gap were counted whole: the
 * second row was 315 s from T0 + 600, which held the one sample at T0 +
 * 600; now 300 s from T0 + 615. At 15 s scrapes each step holds one
 * scrape, which covers it: the last step is kept, 21 steps of 15 s.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

/* Scrapes every `every` s over [0, end] and [back, stop] (back 0: none),
 * the last one of the first part `jitter` s early: 5 running, 100 tok/s,
 * 100 W at T0, 400 W after T0 + 300 and before the gap's end, 300 W else. */
static char *
scrapes(int every, int end, double jitter, int back, int stop)
{
	size_t cap = 1 << 21, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s <= (back ? stop : end); s += every) {
		if (s > end && s < back)
			continue;
		double t = (double)(T0 + s) - (s == end ? jitter : 0.0);
		int w = s == 0 ? 100 : s > 300 && s <= end ? 400 : 300;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %.3f a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 5\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.1f\n"
		                        "# wattcast-scrape %.3f dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"a\",modelName=\"NVIDIA "
		                        "H100 80GB HBM3\"} %d\n", t, 100.0 * (t - (double)T0), t, w);
	}
	return buf;
}

/* Row i of t: its start, end, duration and power, at 5 running and 100 tok/s. */
static void
row(const wc_runs_table *t, size_t i, double start, double end, double duration, double power)
{
	CHECK_NEAR(test_runs_extra(t, i, "start_epoch"), start, 1e-6);
	CHECK_NEAR(test_runs_extra(t, i, "end_epoch"), end, 1e-6);
	CHECK_NEAR(test_runs_extra(t, i, "duration_s"), duration, 1e-6);
	CHECK_NEAR(t->runs[i].mean_power_w, power, 1e-9);
	CHECK_NEAR(t->runs[i].running, 5.0, 1e-9);
	CHECK_NEAR(t->runs[i].throughput_tok_s, 100.0, 1e-6);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_last_step");
	const char *verbose[] = { "--verbose", NULL };
	run_result r;
	wc_runs_table *t = NULL;

	/* The range's last step holds 7 s: left out, said under --verbose. */
	char *buf = scrapes(1, 307, 0.0, 0, 0);
	test_prom_ingest(dir, "end.prom", buf, verbose, &r, &t);
	free(buf);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1)
		row(t, 0, (double)(T0 + 15), (double)(T0 + 300), 300.0, 300.0);
	CHECK_CONTAINS(r.err, "group 'a': its samples cover 8 s of its last 15 s step (to 2026-01-01T00:05:15.000Z): "
	                      "the step is left out of the rows, which end at the one before");
	wc_runs_free(t);
	run_result_free(&r);

	/* The same data and an --end 45 s past it: the step before the gap
	 * at the end is left out with it. */
	buf = scrapes(1, 307, 0.0, 0, 0);
	const char *end[] = { "--end", "2026-01-01T00:06:00Z", NULL };
	test_prom_ingest(dir, "end.prom", buf, end, &r, &t);
	free(buf);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1)
		row(t, 0, (double)(T0 + 15), (double)(T0 + 300), 300.0, 300.0);
	CHECK_CONTAINS(r.err, "and the one before, which its samples cover in part,");
	wc_runs_free(t);
	run_result_free(&r);

	/* A gap from T0 + 307 to T0 + 600: both steps it ends within. */
	buf = scrapes(1, 307, 0.0, 600, 900);
	test_prom_ingest(dir, "gap.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK(t && t->n_runs == 2);
	if (t && t->n_runs == 2) {
		row(t, 0, (double)(T0 + 15), (double)(T0 + 300), 300.0, 300.0);
		row(t, 1, (double)(T0 + 615), (double)(T0 + 900), 300.0, 300.0);
	}
	CHECK_CONTAINS(r.err, "and the one before, which its samples cover in part,");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:10:00.000Z, within that step, which is left out too; 300 s "
	                      "left out of group 'a'");
	wc_runs_free(t);
	run_result_free(&r);

	/* 15 s scrapes, the last 2 ms early: one a step covers it, kept. */
	buf = scrapes(15, 300, 0.002, 0, 0);
	test_prom_ingest(dir, "fifteen.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1)
		row(t, 0, (double)T0, (double)(T0 + 300), 315.0, (100.0 + 20.0 * 300.0) / 21.0);
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_last_step");
}

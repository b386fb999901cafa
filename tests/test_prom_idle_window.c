/*
 * `ingest --scrapes`: a window in which the engine runs no request has no
 * energy per token (docs/fleet.md, "Rows"). Its power over a few stray
 * generated tokens is idle power, not the cost of a token: a smoke test
 * found a window at running 0, 124 W and 2.1 tok/s written with
 * energy_per_token_j 58.13 and no exclude reason. It is now blank, while
 * the busy window keeps its energy per token and the idle one its power.
 *
 * The idle window is also excluded, with the count on stderr: kept as a
 * row, it weighed as much as a loaded window in `calibrate` (a smoke test
 * found the fleet path's shift pulled from -0.26 to -0.84, the law 19 %
 * under the measured loaded window), and an idle window at 120 W, below
 * the H100's published idle, stopped `calibrate` outright ("not above its
 * idle: nothing to calibrate on"). The table now calibrates.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600

/* 60 s idle (idle_w, 2 stray tokens a second), then 120 s at 8 running
 * (400 W, 800 tokens a second), scraped every second. */
static char *
scrapes(int idle_w)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	double tokens = 0;
	for (int s = 0; buf && s < 180; s++) {
		int busy = s >= 60;
		tokens += busy ? 800.0 : 2.0;
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} %d\n"
		                        "# wattcast-scrape %d.2 h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
		                        T0 + s, busy ? 400 : idle_w, T0 + s, busy ? 8 : 0, tokens);
	}
	return buf;
}

/* 180 s at 0 running (110 W), then 180 s at 1 and 180 s at 2 (one
 * second of it at 0: an excursion shorter than the hold), then 180 s at
 * 8; power rising with the load. */
static char *
ramp(void)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	double tokens = 0;
	static const int level[] = { 0, 1, 2, 8 };
	for (int s = 0; buf && s < 720; s++) {
		int n = s == 300 ? 0 : level[s / 180];
		tokens += 12.0 * n;
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d h2:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h2\"} %d\n"
		                        "# wattcast-scrape %d.2 h2:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
		                        T0 + s, 110 + 25 * n, T0 + s, n, tokens);
	}
	return buf;
}

/* An idle stretch is never merged into a loaded window (docs/fleet.md,
 * "Windows"): within the count tolerance (2 requests), 180 s at 0
 * running joined the 360 s at 1 and 2 as one row at running 1, no idle
 * window was measured, and the table had no idle_power_w. Levels 1 and 2
 * still make one window, and the second at 0 among them joins it. */
static void
idle_not_merged(const char *dir)
{
	char *buf = ramp();
	char *in = path_join(dir, "ramp.prom"), *out = path_join(dir, "ramp.csv");
	CHECK(buf && write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "1 of 3 windows idle");
	run_result_free(&r);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 3);
	if (t && t->n_runs == 3) {
		CHECK_NEAR(t->runs[0].running, 0.0, 0.0);
		CHECK(strncmp(t->runs[0].exclude, "idle: ", 6) == 0);
		CHECK_NEAR(t->runs[1].running, (179 * 1.0 + 180 * 2.0) / 360.0, 1e-9);
		CHECK(t->runs[1].exclude[0] == '\0');
		CHECK_NEAR(t->runs[2].running, 8.0, 1e-9);
		/* The first step after the load starts may join the idle window
		 * (its power sample is newer than the engine's): 179 s at 110 W
		 * and one at 135 W, or the 180 s at 110 W. */
		for (size_t i = 0; i < 3; i++)
			CHECK(t->runs[i].idle_power_w >= 110.0 && t->runs[i].idle_power_w <= 110.0 + 25.0 / 180.0 + 1e-9);
	}
	wc_runs_free(t);
	free(in);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_idle_window");
	char *buf = scrapes(120);
	char *in = path_join(dir, "idle.prom"), *out = path_join(dir, "out.csv");
	CHECK(buf && write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "10", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "1 of 2 windows idle (mean running below 0.5): excluded");
	run_result_free(&r);

	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	int idle = 0, busy = 0;
	for (size_t i = 0; t && i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		if (run->running < 0.5) {
			idle++;
			CHECK(isnan(run->energy_per_token_j));
			CHECK(run->mean_power_w < 150.0); /* a step of the ramp may join it */
			CHECK(run->throughput_tok_s > 0); /* the stray tokens are still counted */
			CHECK(strncmp(run->exclude, "idle: ", 6) == 0);
		} else {
			busy++;
			CHECK_NEAR(run->energy_per_token_j, 400.0 / 800.0, 1e-6);
			CHECK(run->exclude[0] == '\0');
		}
	}
	CHECK_INT(idle, 1);
	CHECK_INT(busy, 1);
	/* The idle window's power is the group's loaded idle, written on
	 * every row of the group (docs/fleet.md, "Idle power"): 59 s at
	 * 120 W and the ramp's first step at 400 W. */
	for (size_t i = 0; t && i < t->n_runs; i++)
		CHECK_NEAR(t->runs[i].idle_power_w, (59 * 120.0 + 400.0) / 60.0, 1e-6);
	wc_runs_free(t);

	char *cal = path_join(dir, "cal.json");
	const char *cargv[] = { "wattcast", "calibrate", "--profile", "paper", out, "-o", cal, NULL };
	CHECK_INT(run_wattcast(cargv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "calibrate: %s\n", r.err ? r.err : "");
	run_result_free(&r);
	free(cal);

	/* An idle level the folder ingest's rule would refuse (350 W on an
	 * H100, above 2.5 times its published idle) is said and not written. */
	buf = scrapes(350);
	CHECK(buf && write_text(in, buf) == 0);
	free(buf);
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "group 'h1': idle power 350.8 W per GPU over 60 s at 0 running not written: outside");
	run_result_free(&r);
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	for (size_t i = 0; t && i < t->n_runs; i++)
		CHECK(isnan(t->runs[i].idle_power_w));
	wc_runs_free(t);
	free(in);
	free(out);
	idle_not_merged(dir);
	free(dir);
	return check_report("test_prom_idle_window");
}

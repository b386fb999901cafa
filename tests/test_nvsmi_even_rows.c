/*
 * power.csv (nvidia-smi) without index or uuid whose rows lie evenly
 * spaced: a node-wide log of 8 GPUs written 8 rows 6.25 ms apart every
 * 50 ms (a sweep's rows spread over the whole sampling interval) shows no
 * pause between sweeps, so every lag of the rows is as regular as the
 * sweep's, the count given's too. Given tp 2 it was read 2 rows at a time
 * with no warning: a real TP 2 run with 6 idle GPUs 187.6 W for its
 * 420.2 W (docs/formats/telemetry.md, "GPU count from the timestamps").
 * Timing alone cannot say how many rows such a sweep has: it is refused
 * when the rows lie evenly; logs whose sweeps show in the timestamps
 * still read, however fast the logger (-lms 20).
 */
#include "data/nvsmi.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `gpus` rows a sweep `step_us` apart, a sweep every `period_us`, 60
 * sweeps, each row off by up to `jitter_us` (a fixed pattern), printed in
 * ms as nvidia-smi prints them; GPUs 0 and 1 draw 300 W, the others 55 W
 * (a TP 2 run on a node of idle GPUs). */
static char *
even_log(const char *dir, const char *name, int gpus, long step_us, long period_us, long jitter_us)
{
	size_t cap = 64 + 60 * (size_t)gpus * 48;
	char *body = malloc(cap);
	snprintf(body, cap, "timestamp, power.draw [W]\n");
	for (long k = 0; k < 60; k++)
		for (int g = 0; g < gpus; g++) {
			long at = 1000000 + period_us * k + step_us * g + jitter_us * ((k * 5 + g * 3) % 3 - 1);
			snprintf(body + strlen(body), cap - strlen(body), "2026/07/18 15:00:%02ld.%03ld, %.2f\n",
			         at / 1000000, at / 1000 % 1000, g < 2 ? 300.0 : 55.0);
		}
	char *path = test_fixture(dir, name, body);
	free(body);
	return path;
}

static int
read_log(const char *path, int n_gpus, wc_power_trace **pt, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.n_gpus = n_gpus;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	*err = (wc_error){ 0, "" };
	return wc_power_trace_read(path, &opt, 0, pt, err);
}

/* The log read given `n_gpus`: refused naming `why` (NULL: read, its mean
 * group power `watts`). */
static void
check_log(const char *path, int n_gpus, const char *why, double watts)
{
	wc_power_trace *pt = NULL;
	wc_error err;
	int rc = read_log(path, n_gpus, &pt, &err);
	if (why) {
		CHECK_INT(rc, WC_EPARSE);
		CHECK_CONTAINS(err.msg, ":2:1: ");
		CHECK_CONTAINS(err.msg, why);
		CHECK_CONTAINS(err.msg, "add uuid (or index) to --query-gpu");
		CHECK(strlen(err.msg) <= 255);
	} else {
		CHECK_INT(rc, WC_OK);
		if (rc == WC_OK && pt && pt->n > 0) {
			double sum = 0.0;
			for (size_t i = 0; i < pt->n; i++)
				sum += pt->group[i];
			CHECK_NEAR(sum / (double)pt->n, watts, 1e-6);
			CHECK_INT(pt->info.bad_lines, 0);
		}
	}
	wc_power_trace_free(pt);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_even_rows");
	/* 8 rows 6.25 ms apart every 50 ms, +-0.5 ms (read 2 rows at a time
	 * before, with no warning) */
	char *p = even_log(dir, "n8.csv", 8, 6250, 50000, 500);
	check_log(p, 2, "the rows lie evenly, 6.0 ms apart", 0);
	free(p);
	/* 10 rows 5 ms apart every 50 ms; 8 rows 10 ms apart every 80 ms */
	p = even_log(dir, "n10.csv", 10, 5000, 50000, 500);
	check_log(p, 2, "the rows lie evenly, 5.0 ms apart", 0);
	free(p);
	p = even_log(dir, "n8s.csv", 8, 10000, 80000, 0);
	check_log(p, 2, "the rows lie evenly, 10.0 ms apart", 0);
	free(p);
	/* a fast logger (-lms 20) whose sweeps show reads: 1 GPU every 20 ms,
	 * 2 rows at one time every 20 ms (refused as "sooner than any logger
	 * sweeps" for a few hours) */
	p = even_log(dir, "fast1.csv", 1, 0, 20000, 0);
	check_log(p, 1, NULL, 300.0);
	free(p);
	p = even_log(dir, "fast2.csv", 2, 0, 20000, 0);
	check_log(p, 2, NULL, 600.0);
	free(p);
	/* 4 rows 25 ms apart every 100 ms: 2 a sweep would be 50 ms, a
	 * logger's, but the rows lie evenly, so no sweep of 2 shows (read
	 * 2 at a time before) */
	p = even_log(dir, "n4.csv", 4, 25000, 100000, 500);
	check_log(p, 2, "the rows lie evenly, 25.0 ms apart, so no sweep of the 2 GPUs given shows", 0);
	free(p);
	/* the same timing with no jitter, and a 1-GPU log at 100 ms given 2:
	 * no sweep of 2 shows either */
	p = even_log(dir, "n4e.csv", 4, 25000, 100000, 0);
	check_log(p, 2, "the rows lie evenly, 25.0 ms apart", 0);
	free(p);
	p = even_log(dir, "one.csv", 1, 0, 100000, 500);
	check_log(p, 2, "the rows lie evenly, 100.0 ms apart", 0);
	/* ... read given 1 */
	check_log(p, 1, NULL, 300.0);
	free(p);
	/* sweeps that show: 2 rows at one time every 50 ms, 2 rows 6 ms apart
	 * every 250 ms (+-1 ms), 8 rows 6 ms apart every 250 ms given 8, 8
	 * rows 6 ms apart every 50 ms given 8 (the pause of 8 ms shows) */
	p = even_log(dir, "two.csv", 2, 0, 50000, 0);
	check_log(p, 2, NULL, 600.0);
	free(p);
	p = even_log(dir, "two6.csv", 2, 6000, 250000, 1000);
	check_log(p, 2, NULL, 600.0);
	free(p);
	p = even_log(dir, "eight.csv", 8, 6000, 250000, 0);
	check_log(p, 8, NULL, 930.0);
	free(p);
	p = even_log(dir, "eight50.csv", 8, 6000, 50000, 0);
	check_log(p, 8, NULL, 930.0);
	free(p);
	free(dir);
	return check_report("test_nvsmi_even_rows");
}

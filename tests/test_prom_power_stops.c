/*
 * Every GPU power series of a group stops while its engine goes on
 * (docs/fleet.md, "Problems in the data"): from files the range ended at
 * the last power sample, so the engine's steps after it were dropped
 * without a word (exit 0, one row ending at 00:02:15), where the same
 * stop of the engine, a gap that resumes, or one of two GPUs stopping
 * were each reported. The stop is a gap now, said when it begins and at
 * the range's end with what it left out, from scrapes (DCGM's scrapes
 * missing, empty or error pages) and from saved query_range answers. An
 * engine without any GPU series stretches no range.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600
#define GPU "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
#define KEY0 "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\",gpu=\"0\",instance=\"dcgm-h1:9400\"," \
             "modelName=\"NVIDIA H100 80GB HBM3\"}"

static char *dir;

/* 21 scrapes 15 s apart; DCGM's (n_gpus GPUs) hold samples up to the
 * 10th, then `after` (nothing, "" an empty body, or an error page); the
 * engine of h1 goes on to 00:05:00, or with `other` stops with them while
 * an engine of h2 (no GPU) goes on. */
static char *
scrapes(const char *name, int n_gpus, const char *after, int other)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k < 21; k++) {
		int dcgm = k < 10 || after;
		if (dcgm)
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d dcgm-h1:9400\n", T0 + 15 * k);
		for (int g = 0; g < n_gpus && k < 10; g++)
			len += (size_t)snprintf(buf + len, cap - len, GPU, g, g);
		if (k >= 10 && after)
			len += (size_t)snprintf(buf + len, cap - len, "%s", after);
		if (!other || k < 10)
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n", T0 + 15 * k);
		if (other)
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d h2:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n", T0 + 15 * k);
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* ingest (flag, file, flag, file): exit 0, one row of h1 ending at
 * 00:02:15, and the gap from 00:02:30 said with `begin` (after the
 * series) and the 165 s to the end of the range. */
static void
check_stop(const char *flag, const char *in, const char *flag2, const char *in2, const char *series,
           const char *begin)
{
	char *out = path_join(dir, "out.csv"), want[1024];
	const char *argv[] = { "wattcast", "ingest", flag, in, "-o", out, flag2, in2, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "wrote 1 row");
	int n = snprintf(want, sizeof want, "%s: %s at 2026-01-01T00:02:30.000Z; the steps until it resumes are left "
	                 "out of the rows\n", series, begin);
	if (n - 1 > 255) {
		/* past 255 bytes the series gives way, ending "..." (wc__fleet_warn) */
		CHECK(strlen(series) > 60);
		snprintf(want, sizeof want, "%.60s", series);
		CHECK_CONTAINS(r.err, want);
		snprintf(want, sizeof want, "...: %s at 2026-01-01T00:02:30.000Z; the steps until it resumes are left out "
		         "of the rows\n", begin);
	}
	CHECK_CONTAINS(r.err, want);
	snprintf(want, sizeof want, "%s: not resumed by the end of the range (2026-01-01T00:05:00.000Z); 165 s left out "
	         "of group 'h1'", series);
	CHECK_CONTAINS(r.err, want);
	char *csv = test_slurp(out);
	CHECK_CONTAINS(csv, ",1767225600.000,1767225735.000,150.000,");
	free(csv);
	run_result_free(&r);
	free(out);
}

/* A saved query_range answer of one series: `n` values 15 s apart. */
static char *
answer(const char *name, const char *metric, int n, const char *value)
{
	char buf[8192];
	size_t len = (size_t)snprintf(buf, sizeof buf, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
	                              "\"result\":[{\"metric\":%s,\"values\":[", metric);
	for (int k = 0; k < n; k++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s[%d,\"%s\"]", k ? "," : "", T0 + 15 * k, value);
	snprintf(buf + len, sizeof buf - len, "]}]}}\n");
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	return path;
}

int
main(void)
{
	dir = test_tmpdir("prom_power_stops");
	/* DCGM's scrapes stop. */
	char *in = scrapes("stop.prom", 1, NULL, 0);
	check_stop("--scrapes", in, NULL, NULL, KEY0, "no sample");
	free(in);
	/* Its scrapes go on, empty or an error page: the same. */
	in = scrapes("empty.prom", 1, "", 0);
	check_stop("--scrapes", in, NULL, NULL, KEY0, "no sample");
	free(in);
	in = scrapes("502.prom", 2, "Error 502\n", 0);
	check_stop("--scrapes", in, NULL, NULL, KEY0, "no sample, nor of the group's other 1 GPU series (its exporter "
	           "down?),");
	free(in);

	/* Saved answers of a server: the power's answer ends at 00:02:15,
	 * the engine's goes on to 00:05:00. */
	char *p = answer("power.json", "{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"UUID\":\"GPU-0\","
	                 "\"gpu\":\"0\",\"instance\":\"dcgm-h1:9400\",\"modelName\":\"NVIDIA H100 80GB HBM3\"}", 10, "300");
	char *e = answer("running.json", "{\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\","
	                 "\"model_name\":\"Qwen/Qwen3-8B\"}", 21, "8");
	check_stop("--prometheus-json", p, "--prometheus-json", e, KEY0, "no sample");
	free(p);
	free(e);

	/* An engine of another host without any GPU series goes on: it is
	 * left out, and h1's range still ends with its data (no gap). */
	in = scrapes("other.prom", 1, NULL, 1);
	{
		char *out = path_join(dir, "other.csv");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		fprintf(stderr, "%s", r.err ? r.err : "");
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "engine with no GPU series (DCGM_FI_DEV_POWER_USAGE) in group 'h2': left out");
		CHECK(r.err && !strstr(r.err, "no sample") && !strstr(r.err, "not resumed"));
		run_result_free(&r);
		free(out);
	}
	free(in);
	free(dir);
	return check_report("test_prom_power_stops");
}

/*
 * Saved query_range answers over a range far longer than their data
 * (docs/fleet.md, "Queries"): the walk of the grid's steps follows the
 * data, not the range. Every step was walked, those without any sample
 * too: 2000 to 2099 at 4 s around two 20-minute bursts was 789 million
 * steps (about a minute of CPU; 1e9 steps, 86 s). A step without any
 * sample is a gap of every group, said at its first; the walk goes on at
 * the next step a sample may fall in, and --verbose counts the steps
 * walked. The rows are those of the data's own range, byte for byte.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z, on the 4-s grid from 2000-01-01 */

static char *dir;

/* A saved answer: two bursts of 301 values 4 s apart, from T0 and from
 * T0 + 3600 s. */
static char *
answer(const char *name, const char *metric, const char *value)
{
	static char buf[1 << 16];
	size_t len = (size_t)snprintf(buf, sizeof buf, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
	                              "\"result\":[{\"metric\":%s,\"values\":[", metric);
	for (int b = 0; b < 2; b++)
		for (int k = 0; k <= 300; k++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s[%ld,\"%s\"]", b || k ? "," : "",
			                        T0 + 3600L * b + 4L * k, value);
	snprintf(buf + len, sizeof buf - len, "]}]}}\n");
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	return path;
}

int
main(void)
{
	dir = test_tmpdir("prom_walk_follows_data");
	char *p = answer("power.json", "{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"UUID\":\"GPU-0\","
	                 "\"gpu\":\"0\",\"instance\":\"dcgm-h1:9400\",\"modelName\":\"NVIDIA H100 80GB HBM3\"}", "300");
	char *e = answer("running.json", "{\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\","
	                 "\"model_name\":\"Qwen/Qwen3-8B\"}", "8");
	char *own = path_join(dir, "own.csv"), *century = path_join(dir, "century.csv");

	/* The data's own range, 1201 steps: the 602 of the bursts, and of
	 * the 599 of the pause between them the first and the last. */
	const char *a1[] = { "wattcast", "ingest", "--prometheus-json", p, "--prometheus-json", e, "--step", "4",
	                     "--verbose", "-o", own, NULL };
	run_result r;
	CHECK(run_wattcast_limited(a1, NULL, 20, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T01:00:00.000Z; 2396 s left out of group 'h1'");
	CHECK_CONTAINS(r.err, "604 of 1201 steps walked: the others hold no sample, as the step before them");
	run_result_free(&r);

	/* 2000-01-01 to 2099-12-31 at 4 s: 788 918 401 steps, of which are
	 * walked the range's first, each burst's 301 steps, the empty step
	 * after each and the one before each (taken a step early, for the
	 * rounding of the sample's time to its step). Walked whole, the run
	 * took a minute of CPU and is stopped at 20 s. */
	const char *a2[] = { "wattcast", "ingest", "--prometheus-json", p, "--prometheus-json", e, "--step", "4",
	                     "--start", "2000-01-01T00:00:00Z", "--end", "2099-12-31T00:00:00Z", "--verbose", "-o",
	                     century, NULL };
	CHECK(run_wattcast_limited(a2, NULL, 20, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "607 of 788918401 steps walked: the others hold no sample, as the step before them");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T01:00:00.000Z; 2396 s left out of group 'h1'");
	CHECK_CONTAINS(r.err, "not resumed by the end of the range (2099-12-31T00:00:00.000Z), nor the group's GPU "
	               "power;");
	run_result_free(&r);
	char *x = test_uncommented(own, 1 << 20), *y = test_uncommented(century, 1 << 20);
	CHECK(x && y && strcmp(x, y) == 0);
	CHECK(x && strstr(x, "h1#2026-01-01T00:00:00.000Z") && strstr(x, "h1#2026-01-01T01:00:00.000Z"));
	free(x);
	free(y);
	free(own);
	free(century);
	free(p);
	free(e);
	free(dir);
	return check_report("test_prom_walk_follows_data");
}

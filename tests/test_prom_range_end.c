/*
 * `wattcast ingest --scrapes` without --end: the range ends at the first
 * grid step at or after the last power sample, so that the step holding
 * the files' last samples is read (docs/fleet.md, "Queries"). Ended at
 * the last sample itself, the grid's last step ended before it: at
 * --step 15 over 1 s scrapes the last 14 s of every series were dropped
 * unsaid, and a host's last row changed when another host's file reached
 * further (a real A100 host: 396.3 W alone, 381.0 W beside an H100's
 * file). Host h1 here draws 300 W, then 500 W over its last 10 s: its row
 * reads them (307.142857 W to 00:05:00) alone and beside h2's file alike;
 * it read 300 W to 00:04:45.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600

static char *dir;

/* Host h scraped every second for n s: its GPU at 300 W, 500 W from
 * second 290; its engine 0.3 s later, running 8. */
static char *
host(const char *name, int h, int n)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < n; s++)
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d h%d:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-%d\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h%d\"} %d\n"
		                        "# wattcast-scrape %d.3 h%d:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
		                        T0 + s, h, h, h, s >= 290 ? 500 : 300, T0 + s, h);
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* h1's row of ingesting `a` (and `b`, NULL none) at --step 15. */
static char *
h1_row(const char *a, const char *b)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", a, "--step", "15", "-o", out,
	                       b ? "--scrapes" : NULL, b, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *text = test_slurp(out), *row = text ? strstr(text, "\nh1#") : NULL, *line = NULL;
	if (row) {
		size_t n = strcspn(row + 1, "\n");
		line = malloc(n + 1);
		memcpy(line, row + 1, n);
		line[n] = '\0';
	}
	CHECK(line != NULL);
	free(text);
	free(out);
	return line;
}

int
main(void)
{
	dir = test_tmpdir("prom_range_end");
	char *h1 = host("h1.prom", 1, 300), *h2 = host("h2.prom", 2, 360);
	char *alone = h1_row(h1, NULL), *beside = h1_row(h1, h2);
	fprintf(stderr, "alone:  %s\nbeside: %s\n", alone ? alone : "", beside ? beside : "");
	/* 19 steps at 300 W, the last (00:04:45, 00:05:00] at 4 x 300 and
	 * 10 x 500 W: 307.142857 W over 300 s. */
	CHECK_CONTAINS(alone, ",8,307.142857143,");
	CHECK_CONTAINS(alone, ",1767225900.000,300.000,");
	CHECK(alone && beside && strcmp(alone, beside) == 0);
	free(alone);
	free(beside);
	free(h1);
	free(h2);
	free(dir);
	return check_report("test_prom_range_end");
}

/*
 * Scrape files with lines their newline does not end (docs/formats/prometheus.md,
 * "A file still being written" and "A scrape that is an error page"):
 * (1) the live loop of docs/fleet.md read while it appends ends in half a
 * line that may parse: a power reading `300.0` cut to `30` was averaged
 * (the last row's mean under 600 W) and a counter `19280` cut to `19` was
 * "counter reset ... an engine restart", cutting the window; the line is
 * dropped, said with file:line. (2) `curl -s` saves a 503 body ("down")
 * without a newline and the loop's next `# wattcast-scrape` line is glued
 * to it: the DCGM scrape it opens was skipped with the engine's page,
 * unsaid, and the gap blamed on the GPU power too; the marker is read
 * where it begins.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z */
#define SECONDS 240
#define MODEL "{model_name=\"Qwen/Qwen3-8B\"}"
#define DCGM "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"}"

static char *dir;

/* Second `s` of host h1: the engine's scrape (8 running, 80 tokens a
 * second; `down`: its 503 body "down" without a newline), then DCGM's of
 * two GPUs at 300 W. */
static void
second(char **buf, size_t *len, size_t *cap, int s, int down)
{
	test_appendf(buf, len, cap, "# wattcast-scrape %ld h1:8000\n", T0 + s);
	if (down)
		test_appendf(buf, len, cap, "down");
	else
		test_appendf(buf, len, cap, "vllm:num_requests_running" MODEL " 8\n"
		             "vllm:generation_tokens_total" MODEL " %d\n", 80 * s + 80);
	test_appendf(buf, len, cap, "# wattcast-scrape %ld dcgm-h1:9400\n" DCGM " 300.0\n" DCGM " 300.0\n",
	             T0 + s, 0, 0, 1, 1);
}

/* SECONDS seconds (`down_from` to `down_to` the engine down), then `tail`. */
static char *
scrapes(const char *name, int down_from, int down_to, const char *tail)
{
	char *buf = NULL, *path = path_join(dir, name);
	size_t len = 0, cap = 0;
	for (int s = 0; s < SECONDS; s++)
		second(&buf, &len, &cap, s, s >= down_from && s < down_to);
	test_appendf(&buf, &len, &cap, "%s", tail);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

static wc_runs_table *
ingest(const char *in, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", "1", "--min-window", "10", "-o", out,
		               NULL };
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
	if (r->status == 0)
		CHECK(wc_runs_read(out, &t, NULL) == WC_OK);
	remove(out);
	free(out);
	return t;
}

/* (1) A last line without its newline, though it parses: dropped. */
static void
check_unfinished(void)
{
	char tail[512];
	/* the last scrape's second GPU: 300.0 cut to 30 */
	snprintf(tail, sizeof tail, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running" MODEL " 8\n"
	         "vllm:generation_tokens_total" MODEL " %d\n# wattcast-scrape %ld dcgm-h1:9400\n" DCGM " 300.0\n"
	         DCGM " 30", T0 + SECONDS, 80 * SECONDS + 80, T0 + SECONDS, 0, 0, 1, 1);
	char *in = scrapes("power.prom", -1, -1, tail);
	run_result r;
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "power.prom:1446: unfinished last line (no newline: the log was still being "
	               "written?) dropped: half a line may read as a number");
	/* 30 W was averaged into the last second (a row under 600 W); now
	 * that second lacks GPU 1 and is left out as partial power */
	CHECK(t && t->n_runs >= 1);
	for (size_t i = 0; t && i < t->n_runs; i++)
		if (!t->runs[i].exclude[0])
			CHECK_NEAR(t->runs[i].mean_power_w, 600.0, 1e-9);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	/* the last counter, 19280, cut to 19, after its second's power */
	snprintf(tail, sizeof tail, "# wattcast-scrape %ld dcgm-h1:9400\n" DCGM " 300.0\n" DCGM " 300.0\n"
	         "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running" MODEL " 8\n"
	         "vllm:generation_tokens_total" MODEL " 19", T0 + SECONDS, 0, 0, 1, 1, T0 + SECONDS);
	in = scrapes("counter.prom", -1, -1, tail);
	t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "counter.prom:1446: unfinished last line");
	CHECK(r.err && !strstr(r.err, "counter reset"));
	CHECK(t && t->n_runs == 1); /* one window: no restart cut it */
	if (t && t->n_runs == 1)
		CHECK_NEAR(t->runs[0].throughput_tok_s, 80.0, 1e-9);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
}

/* (2) A body without its newline, the next marker glued to it. */
static void
check_glued(void)
{
	/* the engine down (503 "down") for 20 s from 00:01:40 */
	char *in = scrapes("live.prom", 100, 120, "");
	run_result r;
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	/* the page is said as what it is, not with the marker glued to it */
	CHECK_CONTAINS(r.err, "live.prom:602:1: not exposition text (an HTML or error page, a failed scrape?): "
	               "the scrape of h1:8000 at 2026-01-01T00:01:40.000Z is skipped; it starts 'down'\n");
	CHECK_CONTAINS(r.err, "live.prom: 20 scrapes in all were not exposition text");
	/* DCGM's scrapes after the pages are read: the gap is the engine's */
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: no "
	               "sample at 2026-01-01T00:01:40.000Z;");
	CHECK(r.err && !strstr(r.err, "GPU power"));
	CHECK(t && t->n_runs == 2);
	for (size_t i = 0; t && i < t->n_runs; i++)
		CHECK_NEAR(t->runs[i].mean_power_w, 600.0, 1e-9);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	/* A sample line cut short (curl -m) with the marker after it: the
	 * line is dropped, said, and the next scrape read; it refused the
	 * file ("expected a sample value"). */
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = 0; s < SECONDS; s++) {
		if (s != 100) {
			second(&buf, &len, &cap, s, 0);
			continue;
		}
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running" MODEL " 8\n"
		             "vllm:generation_tokens_total" MODEL " 80", T0 + s);
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm-h1:9400\n" DCGM " 300.0\n" DCGM " 300.0\n",
		             T0 + s, 0, 0, 1, 1);
	}
	char *cut = path_join(dir, "cut.prom");
	CHECK(write_text(cut, buf) == 0);
	t = ingest(cut, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "cut.prom:603:1: line without its newline, the next '# wattcast-scrape' line glued to "
	               "it (a scrape cut short?): the line dropped, the next scrape read");
	CHECK(r.err && !strstr(r.err, "counter reset"));
	wc_runs_free(t);
	run_result_free(&r);

	/* A glued marker's own fault is named at its column on the line */
	len = 0;
	buf[0] = '\0';
	test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\ndown# wattcast-scrape yesterday dcgm-h1:9400\n",
	             T0);
	CHECK(write_text(cut, buf) == 0);
	t = ingest(cut, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "cut.prom:2:23: expected the scrape's time");
	wc_runs_free(t);
	run_result_free(&r);
	free(buf);
	free(cut);
}

int
main(void)
{
	dir = test_tmpdir("prom_cut_lines");
	check_unfinished();
	check_glued();
	free(dir);
	return check_report("test_prom_cut_lines");
}

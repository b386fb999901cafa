/*
 * Repeated samples in `wattcast ingest`'s Prometheus files
 * (docs/formats/prometheus.md): query_range includes both ends, so pages
 * saved with start = the previous page's end share their boundary step,
 * and two scrape logs overlap by a scrape where one was rotated. Such a
 * sample, the time and value of the one before, is dropped, as Prometheus
 * drops a duplicate, said in one line per file; the table is the one of
 * the data without the overlap. Both were refused ("sample at T is not
 * after the previous one"), a whole day with them. Another value at that
 * time stays refused, naming the remedy (test_prom_inputs.c).
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define STEP 15

static char *dir;

/* A query_range answer of power, running and generated tokens over steps
 * k0..k1 (both ends), 15 s apart. */
static char *
page(const char *name, int k0, int k1)
{
	static const char *const metric[3] = {
		"\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"UUID\":\"GPU-0\",\"gpu\":\"0\","
		"\"modelName\":\"NVIDIA H100 80GB HBM3\"",
		"\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\"",
		"\"__name__\":\"vllm:generation_tokens_total\",\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\"" };
	char *buf = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&buf, &len, &cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	for (int m = 0; m < 3; m++) {
		test_appendf(&buf, &len, &cap, "%s{\"metric\":{%s},\"values\":[", m ? "," : "", metric[m]);
		for (int k = k0; k <= k1; k++)
			test_appendf(&buf, &len, &cap, "%s[%ld,\"%d\"]", k > k0 ? "," : "", T0 + STEP * k,
			             m == 0 ? 300 : m == 1 ? 8 : 160 * STEP * k);
		test_appendf(&buf, &len, &cap, "]}");
	}
	test_appendf(&buf, &len, &cap, "]}}");
	char *path = test_fixture(dir, name, buf);
	free(buf);
	return path;
}

/* Scrapes every second from s0 to s1 (both ends). */
static char *
scrapes(const char *name, int s0, int s1)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = s0; s <= s1; s++)
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
		             "UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
		             "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		             "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d\n", T0 + s, T0 + s, 160 * s);
	char *path = test_fixture(dir, name, buf);
	free(buf);
	return path;
}

/* `flag` a then b, and then whole alone: the same table; what the first
 * run said in r_said (malloc'd). */
static void
same_table(const char *flag, const char *a, const char *b, const char *whole, char **said)
{
	char *out = path_join(dir, "pages.csv"), *out1 = path_join(dir, "whole.csv");
	const char *two[] = { "wattcast", "ingest", flag, a, flag, b, "-o", out, NULL };
	const char *one[] = { "wattcast", "ingest", flag, whole, "-o", out1, NULL };
	*said = test_run_said(two);
	test_run_ok(one);
	char *ta = test_slurp(out), *tb = test_slurp(out1);
	CHECK(ta[0] && strcmp(ta, tb) == 0);
	free(ta);
	free(tb);
	free(out);
	free(out1);
}

int
main(void)
{
	dir = test_tmpdir("prom_repeats");
	/* pages of 00:00-00:10 and 00:10-00:20 at 15 s, the second's first step the first's last */
	char *a = page("qa.json", 0, 40), *b = page("qb.json", 40, 80), *whole = page("q.json", 0, 80), *said;
	same_table("--prometheus-json", a, b, whole, &said);
	char *line = test_line_with(said, "qb.json: ");
	fprintf(stderr, "%s\n", said);
	CHECK_CONTAINS(line, "qb.json: 3 samples dropped, each the time and value of the one before (pages sharing "
	               "a step, overlapping scrape logs), as Prometheus drops them; the first at "
	               "2026-01-01T00:10:00.000Z: DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\"");
	CHECK(!strstr(said, "qa.json: ")); /* the first page repeats nothing */
	free(line);
	free(said);
	free(a);
	free(b);
	free(whole);
	/* two scrape logs of 0-150 s and 150-300 s: the scrape at 150 s in both */
	a = scrapes("a.prom", 0, 150);
	b = scrapes("b.prom", 150, 300);
	whole = scrapes("ab.prom", 0, 300);
	same_table("--scrapes", a, b, whole, &said);
	fprintf(stderr, "%s\n", said);
	line = test_line_with(said, "b.prom: ");
	CHECK_CONTAINS(line, "b.prom: 3 samples dropped, each the time and value of the one before");
	CHECK_CONTAINS(line, "the first at 2026-01-01T00:02:30.000Z: DCGM_FI_DEV_POWER_USAGE{");
	free(line);
	free(said);
	free(a);
	free(b);
	free(whole);
	free(dir);
	return check_report("test_prom_repeats");
}

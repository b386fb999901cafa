/*
 * Files of one range that overlap in time (docs/fleet.md, "The path end
 * to end"): two scrape logs of host h1, 00:00:00 to 00:03:19 and
 * 00:01:40 to 00:04:59, given in time order, were refused as "sample at
 * 00:01:40 is not after the previous one (00:03:19): give the scrape logs
 * in time order (a clock set back?)", and two saved pages of overlapping
 * ranges likewise as pages out of order. Each refusal now names both
 * files and the window both hold; in either order.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static char *dir;

static char *
scrapes(const char *name, int a, int b)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = a; s < b; s++)
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running{model_name="
		             "\"Qwen/Qwen3-8B\"} 4\n# wattcast-scrape %ld dcgm:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
		             "UUID=\"GPU-0\",Hostname=\"h1\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", T0 + s, T0 + s,
		             140 + s % 3);
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

static char *
page(const char *name, int a, int b, int watts)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&buf, &len, &cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	             "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"gpu\":\"0\","
	             "\"UUID\":\"GPU-0\",\"modelName\":\"NVIDIA H100 80GB HBM3\"},\"values\":[");
	for (int k = a; k < b; k++)
		test_appendf(&buf, &len, &cap, "%s[%ld,\"%d\"]", k > a ? "," : "", T0 + k, watts);
	test_appendf(&buf, &len, &cap, "]},{\"metric\":{\"__name__\":\"vllm:num_requests_running\",\"instance\":"
	             "\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\"},\"values\":[");
	for (int k = a; k < b; k++)
		test_appendf(&buf, &len, &cap, "%s[%ld,\"4\"]", k > a ? "," : "", T0 + k);
	test_appendf(&buf, &len, &cap, "]}]}}\n");
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

static void
refused(const char *flag, const char *first, const char *second, const char *says)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", flag, first, flag, second, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s\n", r.err ? r.err : "");
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, says);
	CHECK(!strstr(r.err, "in time order"));
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_overlap_files");
	char *a = scrapes("a.prom", 0, 200), *b = scrapes("b.prom", 100, 300);
	refused("--scrapes", a, b, "b.prom: overlaps ");
	refused("--scrapes", a, b, "a.prom from 2026-01-01T00:01:40.000Z to 00:03:19.000Z (both hold samples there): "
	        "give scrape logs that do not overlap in time (a log copied twice?)");
	refused("--scrapes", b, a, "a.prom: overlaps ");
	refused("--scrapes", b, a, "b.prom from 2026-01-01T00:01:40.000Z to 00:03:19.000Z");
	char *p = page("p1.json", 0, 100, 140), *q = page("p2.json", 50, 150, 141);
	refused("--prometheus-json", p, q, "p2.json: overlaps ");
	refused("--prometheus-json", p, q, "p1.json from 2026-01-01T00:00:50.000Z to 00:01:39.000Z (both hold samples "
	        "there): save pages of a query with start = the previous page's end + step");
	free(a);
	free(b);
	free(p);
	free(q);
	free(dir);
	return check_report("test_prom_overlap_files");
}

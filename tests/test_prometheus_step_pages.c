/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): a step shorter than the scrape interval is
 * refused whatever --page-steps is (docs/fleet.md, "Queries"). Two hosts
 * scraped every 2 s: with the default page --step 0.5 and 1.5 were
 * refused ("--step 2 or longer"), but under small pages they were not:
 * --step 0.5 --page-steps 4 wrote 31 excluded rows of h1, none of h2,
 * exit 0, and --step 1.5 --page-steps 2 took the grid's 1.5 s spacing
 * within a page for the interval and wrote fragment rows. The interval is
 * measured on the default page's steps before the first page is walked.
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */

static void
ingest(const char *url, const char *out, const char *step, const char *pages, run_result *r)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       "1767225720", "--step", step, "--page-steps", pages, "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "--step %s --page-steps %s: exit %d\n%s", step, pages, r->status, r->err ? r->err : "");
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_step_pages"), *om = path_join(dir, "s.om");
	char *out = path_join(dir, "out.csv"), url[64];
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int h = 1; h <= 2; h++)
		for (int k = 0; k < 61; k++)
			len += (size_t)snprintf(text + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h%d\",UUID=\"GPU-%d\","
			                        "gpu=\"0\",instance=\"h%d:9400\",modelName=\"NVIDIA H100 80GB HBM3\"} 300 "
			                        "%ld.%d\n", h, h, h, T0 + 2L * k, 100 * h);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int h = 1; h <= 2; h++)
		for (int k = 0; k < 61; k++)
			len += (size_t)snprintf(text + len, cap - len, "vllm:num_requests_running{instance=\"h%d:8000\","
			                        "model_name=\"Qwen/Qwen3-8B\"} 8 %ld.%d\n", h, T0 + 2L * k, 100 * h + 300);
	snprintf(text + len, cap - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_step_pages");
	}
	const char *refused[][2] = { { "0.5", "2000" }, { "0.5", "4" }, { "1.5", "2000" }, { "1.5", "2" },
	                             { "1.5", "1" }, { "0.25", "8" } };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		run_result r;
		char want[128];
		ingest(url, out, refused[i][0], refused[i][1], &r);
		snprintf(want, sizeof want, "--step %s s is shorter than the scrape interval: --step 2 or longer (group 'h",
		         refused[i][0]);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, want);
		CHECK(r.out && !strstr(r.out, "wrote"));
		run_result_free(&r);
	}
	/* The interval itself, on any page size. */
	const char *pages[] = { "2000", "2", "1" };
	for (int p = 0; p < 3; p++) {
		run_result r;
		ingest(url, out, "2", pages[p], &r);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "h1#");
		CHECK_CONTAINS(r.out, "h2#");
		run_result_free(&r);
	}
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_step_pages");
}

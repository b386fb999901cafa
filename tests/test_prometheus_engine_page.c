/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): a data-parallel engine missing for whole pages
 * is a gap, whatever --page-steps is (docs/fleet.md, "Grouping": a step
 * where one engine has no sample is a gap, since the sum would be
 * partial). Host h1, one GPU at 300 W, vLLM DP=2: engine 0 at 6 running,
 * engine 1 at 4, engine 1 down from 00:01:40 to 00:04:10. In one page the
 * outage was one gap; in pages of 50 steps an engine slot the page's
 * answer lacked was summed as absent: a 100-s row at running 6 and
 * 610 W, not excluded, and engine 1 said to resume at 00:02:30.
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define ENGINE1 "vllm:num_requests_running{engine=\"1\",instance=\"h1:8000\",job=\"vllm\",model_name=\"Qwen/Qwen3-8B\"}"

static char *
ingest(const char *url, const char *out, const char *pages)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       "1767225900", "--step", "1", "--page-steps", pages, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--page-steps %s: exit %d\n%s", pages, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, ENGINE1 ": no sample at 2026-01-01T00:01:41.000Z; the steps until it resumes are left "
	               "out of the rows");
	CHECK_CONTAINS(r.err, ENGINE1 ": resumes at 2026-01-01T00:04:11.000Z; 150 s left out of group 'h1'");
	CHECK(r.err && !strstr(r.err, "resumes at 2026-01-01T00:02:30"));
	run_result_free(&r);
	return test_slurp(out);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_engine_page"), *om = path_join(dir, "dp.om");
	char *out = path_join(dir, "out.csv"), url[64];
	size_t cap = 1 << 17, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int k = 0; k <= 300; k++)
		len += (size_t)snprintf(text + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\","
		                        "gpu=\"0\",instance=\"dcgm-h1:9400\",job=\"dcgm\",modelName=\"NVIDIA H100 80GB "
		                        "HBM3\"} 610 %ld\n", T0 + k);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int e = 0; e < 2; e++)
		for (int k = 0; k <= 300; k++)
			if (e == 0 || k < 100 || k >= 250)
				len += (size_t)snprintf(text + len, cap - len, "vllm:num_requests_running{engine=\"%d\","
				                        "instance=\"h1:8000\",job=\"vllm\",model_name=\"Qwen/Qwen3-8B\"} %d "
				                        "%ld.3\n", e, e ? 4 : 6, T0 + k);
	snprintf(text + len, cap - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_engine_page");
	}
	char *one = ingest(url, out, "2000");
	fprintf(stderr, "one page:\n%s\n", one ? one : "");
	const char *pages[] = { "50", "30", "7" };
	for (int p = 0; p < 3; p++) {
		char *paged = ingest(url, out, pages[p]);
		CHECK(one && paged && strcmp(one, paged) == 0);
		if (one && paged && strcmp(one, paged) != 0)
			fprintf(stderr, "--page-steps %s gave\n%s\nwhere one page gave\n%s\n", pages[p], paged, one);
		free(paged);
	}
	free(one);
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_engine_page");
}

/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): any step shorter than the scrape interval is
 * refused (docs/fleet.md, "Queries"). Over 2 s scrapes --step 1.99 and
 * 1.995 were refused, but 1.998 and 1.999 were accepted: on a 10-minute
 * range their grids leave a step without a value once in 500 or 1000
 * steps, fewer than the four holes the grid's check needs, and each was
 * reported as an outage ("no sample, nor of the group's GPU power ...")
 * with extra short rows. The scrapes' own times (timestamp()) measure
 * the interval however few the holes; the interval and longer steps are
 * still read.
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define N 301            /* 2 s scrapes over 10 minutes */

static void
ingest(const char *url, const char *out, const char *step, run_result *r)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       "1767226200", "--step", step, "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "--step %s: exit %d\n%s", step, r->status, r->err ? r->err : "");
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_step_near"), *om = path_join(dir, "s.om");
	char *out = path_join(dir, "out.csv"), url[64];
	size_t cap = 1 << 17, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int k = 0; k < N; k++)
		len += (size_t)snprintf(text + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-1\","
		                        "gpu=\"0\",instance=\"h1:9400\",modelName=\"NVIDIA H100 80GB HBM3\"} 300 %ld.1\n",
		                        T0 + 2L * k);
	len += (size_t)snprintf(text + len, cap - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int k = 0; k < N; k++)
		len += (size_t)snprintf(text + len, cap - len, "vllm:num_requests_running{instance=\"h1:8000\","
		                        "model_name=\"Qwen/Qwen3-8B\"} 8 %ld.4\n", T0 + 2L * k);
	snprintf(text + len, cap - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_step_near");
	}
	const char *refused[] = { "1.99", "1.995", "1.998", "1.999" };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		run_result r;
		char want[128];
		ingest(url, out, refused[i], &r);
		snprintf(want, sizeof want, "--step %s s is shorter than the scrape interval: --step 2 or longer (group "
		         "'h1'", refused[i]);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, want);
		CHECK(!strstr(r.err, "no sample"));
		CHECK(r.out && !strstr(r.out, "wrote"));
		run_result_free(&r);
	}
	/* The interval and longer steps (the shortest spacing of a coarser
	 * grid's scrape times is still the interval): read, no gap. */
	const char *read[] = { "2", "2.5", "3" };
	for (size_t i = 0; i < sizeof read / sizeof read[0]; i++) {
		run_result r;
		ingest(url, out, read[i], &r);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "h1#");
		CHECK(!r.err || !strstr(r.err, "no sample"));
		run_result_free(&r);
	}
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_step_near");
}

/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): a host's GPU power stops at 00:02:30 while its
 * engine goes on to 00:05:00 (docs/fleet.md, "Problems in the data"). A
 * gap of the GPU power, said when it begins and at the range's end with
 * the 165 s it left out, whether the stop falls inside a page or where a
 * page begins: that page holds no power and is not fetched ("Queries"),
 * and its step blamed the engine, whose series went on ("vllm:...: no
 * sample, nor of the group's GPU power").
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define GPU "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\",gpu=\"0\",instance=\"dcgm-h1:9400\"," \
            "modelName=\"NVIDIA H100 80GB HBM3\"}"

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_power_stops"), *om = path_join(dir, "stop.om");
	char *out = path_join(dir, "out.csv"), url[64], text[8192];
	size_t len = (size_t)snprintf(text, sizeof text, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int k = 0; k < 10; k++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s 300 %ld\n", GPU, T0 + 15L * k);
	len += (size_t)snprintf(text + len, sizeof text - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int k = 0; k < 21; k++)
		len += (size_t)snprintf(text + len, sizeof text - len, "vllm:num_requests_running{instance=\"h1:8000\","
		                        "model_name=\"Qwen/Qwen3-8B\"} 8 %ld\n", T0 + 15L * k);
	snprintf(text + len, sizeof text - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_power_stops");
	}
	/* One page; pages of 7 steps (the stop inside the second); of 10
	 * and 5 (the stop where a page without power begins). */
	const char *pages[] = { "2000", "7", "10", "5" };
	for (int p = 0; p < 4; p++) {
		const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
		                       "1767225900", "--step", "15", "--page-steps", pages[p], "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		fprintf(stderr, "--page-steps %s:\n%s", pages[p], r.err ? r.err : "");
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "wrote 1 row");
		CHECK_CONTAINS(r.err, GPU ": no sample at 2026-01-01T00:02:30.000Z; the steps until it resumes are "
		               "left out of the rows");
		CHECK_CONTAINS(r.err, GPU ": not resumed by the end of the range (2026-01-01T00:05:00.000Z); 165 s left "
		               "out of group 'h1'");
		CHECK(r.err && !strstr(r.err, "vllm:num_requests_running{"));
		run_result_free(&r);
	}
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_power_stops");
}

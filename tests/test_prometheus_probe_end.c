/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed): the probe that says which pages hold power
 * (docs/fleet.md, "Queries", "Pages without power are not fetched") sees
 * only the range's steps. The data start 10 s after --end. The range's
 * last page, shorter than the others, was probed as a whole page, at a
 * time past --end, and its window saw those samples: the page was fetched
 * ("page ...: 0 series") and left out of the count, "2 of 3 pages hold no
 * power sample". Now all 3 hold none, none is fetched, and the range is
 * refused as one with no power at all. With --end past the data's start
 * the last page holds power and is fetched.
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define GPU "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\",gpu=\"0\",instance=\"dcgm-h1:9400\"," \
            "modelName=\"NVIDIA H100 80GB HBM3\"}"
#define ENGINE "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}"

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_probe_end"), *om = path_join(dir, "after.om");
	char *out = path_join(dir, "out.csv"), url[64], start[32], end[32];
	static char text[1 << 18];
	/* 600 s at 2 s from T0 + 10 s */
	size_t len = (size_t)snprintf(text, sizeof text, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int k = 0; k <= 300; k++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s %d %ld\n", GPU, 300 + k % 7, T0 + 10L + 2L * k);
	len += (size_t)snprintf(text + len, sizeof text - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int k = 0; k <= 300; k++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s 8 %ld\n", ENGINE, T0 + 10L + 2L * k);
	snprintf(text + len, sizeof text - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_probe_end");
	}
	/* 251 steps of 2 s to T0: pages of 100, 100 and 51 steps. The last
	 * page, probed as a whole one, ended at T0 + 98 s. */
	snprintf(start, sizeof start, "%ld", T0 - 500L);
	snprintf(end, sizeof end, "%ld", T0);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end, "--step", "2",
	                       "--page-steps", "100", "--verbose", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "3 of 3 pages hold no power sample: not fetched");
	CHECK(r.err && !strstr(r.err, "series\n") && !strstr(r.err, "page 2025-12-31T23:58:20.000Z"));
	CHECK_CONTAINS(r.err, "no series of GPU power (DCGM_FI_DEV_POWER_USAGE) or engine load");
	CHECK_CONTAINS(r.err, "do --selector, --start and --end match any?");
	run_result_free(&r);
	/* 251 steps to 100 s into the data: the last page (51 steps from T0)
	 * holds power and is fetched; the two before are not. */
	snprintf(start, sizeof start, "%ld", T0 - 400L);
	snprintf(end, sizeof end, "%ld", T0 + 100L);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "page 2026-01-01T00:00:00.000Z .. 2026-01-01T00:01:40.000Z: 2 series");
	CHECK_CONTAINS(r.err, "2 of 3 pages hold no power sample: not fetched");
	CHECK_CONTAINS(r.out, "wrote 1 row");
	run_result_free(&r);
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_probe_end");
}

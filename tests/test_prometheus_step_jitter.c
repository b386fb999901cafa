/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed) whose 2 s scrapes jitter by tens of
 * milliseconds, as a live one's do (spacings 1.957 to 2.027 s, 2 s on
 * average): --step 2, the configured interval, was refused ("--step 2 s
 * is shorter than the scrape interval: --step 2 or longer (... 2.001 s
 * measured ...)", its own advice refused), since the step's grid sees a
 * scrape after a short spacing less often than one after a long one and
 * the mean of the spacings it saw came out long. The interval is the
 * span of the scrapes seen over the scrapes it holds, and a step within
 * the measure's resolution of it is taken (docs/fleet.md, "Queries");
 * --step 1.99 and 1.995 are still refused, advising a step that is read.
 */
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define N 301           /* 2 s scrapes over 10 minutes */

static void
ingest(const char *url, const char *out, const char *end, const char *step, run_result *r)
{
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       end, "--step", step, "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "--end %s --step %s: exit %d\n%s", end, step, r->status, r->err ? r->err : "");
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_step_jitter"), *om = path_join(dir, "s.om");
	char *out = path_join(dir, "out.csv"), url[64];
	size_t cap = 1 << 17, len = 0;
	char *text = malloc(cap);
	/* Each scrape late by 0 to 70 ms (a fixed pseudo-random draw), the
	 * first and the last by 35 ms: spacings 1.930 to 2.070 s, 2 s on
	 * average over the range. The scrapes' phase is 0.9 s after the
	 * grid's, so each step holds one (a phase within the jitter of the
	 * grid's can lose a step, docs/fleet.md, "Queries"). */
	long late[N];
	unsigned x = 12345u;
	for (int k = 0; k < N; k++) {
		x = x * 1103515245u + 12345u;
		late[k] = k == 0 || k == N - 1 ? 35 : (long)((x >> 16) % 71u);
	}
	const char *head[2] = { "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n", "# TYPE vllm:num_requests_running gauge\n" };
	const char *row[2] = { "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h2\",UUID=\"GPU-1\",gpu=\"0\",instance=\"h2:9400\","
		               "modelName=\"NVIDIA H100 80GB HBM3\"} 300",
		               "vllm:num_requests_running{instance=\"h2:8000\",model_name=\"Qwen/Qwen3-8B\"} 8" };
	for (int m = 0; m < 2; m++) {
		len += (size_t)snprintf(text + len, cap - len, "%s", head[m]);
		for (int k = 0; k < N; k++)
			len += (size_t)snprintf(text + len, cap - len, "%s %ld.%03ld\n", row[m], T0 + 2L * k,
			                        900 + late[k] + (m ? 5 : 0));
	}
	snprintf(text + len, cap - len, "# EOF\n");
	CHECK(write_text(om, text) == 0);
	free(text);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_step_jitter");
	}
	/* The interval as configured, and longer steps: read, over the first
	 * 90 s (the tester's range) and over 10 minutes. */
	const char *ends[2] = { "1767225690", "1767226200" };
	const char *read[] = { "2", "2.5", "3" };
	for (int e = 0; e < 2; e++)
		for (size_t i = 0; i < sizeof read / sizeof read[0]; i++) {
			run_result r;
			ingest(url, out, ends[e], read[i], &r);
			CHECK_INT(r.status, 0);
			CHECK_CONTAINS(r.out, "h2#");
			CHECK(!r.err || !strstr(r.err, "shorter than the scrape interval"));
			CHECK(!r.err || !strstr(r.err, "no sample"));
			run_result_free(&r);
		}
	/* Shorter steps are still refused, advising the interval. */
	const char *refused[] = { "1.99", "1.995" };
	for (int e = 0; e < 2; e++)
		for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
			run_result r;
			char want[128];
			ingest(url, out, ends[e], refused[i], &r);
			snprintf(want, sizeof want, "--step %s s is shorter than the scrape interval: --step 2 or longer "
			         "(group 'h2'", refused[i]);
			CHECK_INT(r.status, 1);
			CHECK_CONTAINS(r.err, want);
			CHECK(r.out && !strstr(r.out, "wrote"));
			run_result_free(&r);
		}
	test_prom_stop();
	free(out);
	free(om);
	free(dir);
	return check_report("test_prometheus_step_jitter");
}

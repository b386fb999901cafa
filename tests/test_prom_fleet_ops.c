/*
 * Fleet ingest defects an operator met (docs/fleet.md,
 * docs/formats/prometheus.md), each below:
 * the grid a --start is off named from a series that appeared
 * mid-range; and
 * a --step longer than the saved answers' grid counting a
 * half-covered first step as a whole one.
 */
#include "tests/support/support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z */

static char *dir;

/* A query_range answer: series given as "labels|first|last|value" (times
 * in seconds after T0, every 15 s), `n` of them. */
static char *
answer(const char *const *series, int n)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf, cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	for (int i = 0; i < n; i++) {
		char labels[512];
		long a, b;
		double v;
		CHECK(sscanf(series[i], "%511[^|]|%ld|%ld|%lf", labels, &a, &b, &v) == 4);
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"metric\":{%s},\"values\":[", i ? "," : "", labels);
		for (long t = a; t <= b; t += 15)
			len += (size_t)snprintf(buf + len, cap - len, "%s[%ld,\"%g\"]", t == a ? "" : ",", T0 + t, v);
		len += (size_t)snprintf(buf + len, cap - len, "]}");
	}
	snprintf(buf + len, cap - len, "]}}");
	return buf;
}

#define GPU(inst, uuid) "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"gpu\":\"0\",\"UUID\":\"" uuid \
	"\",\"instance\":\"" inst "\",\"modelName\":\"NVIDIA H100 80GB HBM3\""
#define ENGINE "\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\""

static char *
save(const char *name, char *text)
{
	char *path = path_join(dir, name);
	CHECK(write_text(path, text) == 0);
	free(text);
	return path;
}

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
}

/* (2) The grid a --start is off is named from its origin, the earliest
 * time of any series, not from the first series listed (one that
 * appeared mid-range). */
static void
check_grid_origin(void)
{
	const char *p[] = { GPU("dcgm-h1:9400", "GPU-B") "|105|300|300", GPU("dcgm-h1:9400", "GPU-A") "|0|300|300" };
	const char *e[] = { ENGINE "|0|300|8" };
	char *pp = save("origin_p.json", answer(p, 2)), *pe = save("origin_e.json", answer(e, 1));
	char *out = path_join(dir, "origin.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", pp, "--prometheus-json", pe, "--start",
		               "2026-01-01T00:00:07Z", "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "is off the saved answers' grid (a value every 15 s from 2026-01-01T00:00:00.000Z): give "
	               "--start 2026-01-01T00:00:00.000Z or 2026-01-01T00:00:15.000Z");
	run_result_free(&r);
	free(pp);
	free(pe);
	free(out);
}

/* (5) --step 30 over a 15 s grid: the step at the first value holds that
 * value alone, half its span; the range starts at the first step the
 * files cover whole, said. */
static void
check_first_step(void)
{
	const char *p[] = { GPU("dcgm-h1:9400", "GPU-A") "|0|300|300" };
	const char *e[] = { ENGINE "|0|300|8" };
	char *pj = answer(p, 1);
	char *pp = save("step_p.json", pj), *pe = save("step_e.json", answer(e, 1));
	char *out = path_join(dir, "step.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", pp, "--prometheus-json", pe, "--step", "30",
		               "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "--step 30 s over saved answers of a value every 15 s, which cover from "
	               "2025-12-31T23:59:45.000Z: the range starts at 2026-01-01T00:00:30.000Z, the first step they "
	               "cover whole, not at 2026-01-01T00:00:00.000Z (their first value)");
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:00:30.000Z");
	CHECK(r.out && !strstr(r.out, "h1#2026-01-01T00:00:00.000Z"));
	CHECK_CONTAINS(r.out, "    300.0 ");
	run_result_free(&r);
	free(pp);
	free(pe);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_fleet_ops");
	check_grid_origin();
	check_first_step();
	free(dir);
	return check_report("test_prom_fleet_ops");
}

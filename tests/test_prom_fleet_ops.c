/*
 * Fleet ingest defects an operator met (docs/fleet.md,
 * docs/formats/prometheus.md), each below:
 * the grid a --start is off named from a series that appeared
 * mid-range.
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

int
main(void)
{
	dir = test_tmpdir("prom_fleet_ops");
	check_grid_origin();
	free(dir);
	return check_report("test_prom_fleet_ops");
}

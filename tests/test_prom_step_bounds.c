/*
 * The step's floor and a saved answer's result (docs/fleet.md, "Queries";
 * docs/formats/prometheus.md):
 * - --step 0.001 queried [1ms] (the range one ms short of the step could
 *   not be), counting each sample in two steps: --step is 2 ms at least,
 *   refused before any query, and the query of a 2 ms step reads [1ms];
 * - a query_range answer whose result is null, missing or an object was
 *   refused as "/data/resultType: 'matrix', expected 'matrix' ...": it
 *   names /data/result and what it holds.
 */
#include "data/data.h"
#include "trace/fleet.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600

static char *dir;

static void
check_step_floor(void)
{
	char q[WC_FLEET_QUERY_MAX];
	wc_error err = { 0 };
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "", 0.001, q, sizeof q, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--step: 0.001 s is not a whole number of milliseconds >= 0.002 s");
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "", 0.002, q, sizeof q, &err), WC_OK);
	CHECK_CONTAINS(q, "[1ms]");
	/* Refused by the command before any query: no server at this port. */
	char *out = path_join(dir, "floor.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:9", "--start", "1767225600",
	                       "--end", "1768089600", "--step", "0.001", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--step: must be >= 0.002, got '0.001'");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(out);
}

static void
check_result(const char *name, const char *result, const char *message)
{
	char text[256], *in = path_join(dir, name), *out = path_join(dir, "result.csv");
	snprintf(text, sizeof text, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\"%s}}", result);
	CHECK(write_text(in, text) == 0);
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", in, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, message);
	CHECK(r.err && !strstr(r.err, "expected 'matrix'"));
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_step_bounds");
	check_step_floor();
	check_result("rn.json", ",\"result\":null",
	             "rn.json: /data/result: null, expected an array of series (a query_range response)");
	check_result("rm.json", "", "rm.json: /data/result: missing, expected an array of series");
	check_result("ro.json", ",\"result\":{}", "ro.json: /data/result: an object, expected an array of series");
	free(dir);
	return check_report("test_prom_step_bounds");
}

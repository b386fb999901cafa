/*
 * A saved answer's result (docs/formats/prometheus.md): a query_range
 * answer whose result is null, missing or an object was refused as
 * "/data/resultType: 'matrix', expected 'matrix' ...": it names
 * /data/result and what it holds.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600

static char *dir;

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
	check_result("rn.json", ",\"result\":null",
	             "rn.json: /data/result: null, expected an array of series (a query_range response)");
	check_result("rm.json", "", "rm.json: /data/result: missing, expected an array of series");
	check_result("ro.json", ",\"result\":{}", "ro.json: /data/result: an object, expected an array of series");
	free(dir);
	return check_report("test_prom_step_bounds");
}

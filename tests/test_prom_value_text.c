/*
 * A saved query_range answer's value text (docs/formats/prometheus.md):
 * a number as Prometheus writes it, NaN, +Inf or -Inf; another string is
 * refused naming its path and text. " 3" (a leading blank, which strtod
 * skips) was read as 3, and "1e400" (beyond a double) was read as
 * infinity and refused as "vllm:num_requests_running = inf ... is not a
 * count", quoting a text the file never held.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	char *dir = test_tmpdir("prom_value_text"), *out = path_join(dir, "out.csv");
	const char *texts[] = { " 3", "1e400", "-1e400" };
	for (int k = 0; k < 3; k++) {
		char body[512], want[160];
		snprintf(body, sizeof body, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
		         "[{\"metric\":{\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\"},"
		         "\"values\":[[1767225600,\"4\"],[1767225615,\"%s\"]]}]}}", texts[k]);
		char *json = test_fixture(dir, "q.json", body);
		const char *argv[] = { "wattcast", "ingest", "--prometheus-json", json, "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		fprintf(stderr, "'%s': exit %d: %s", texts[k], r.status, r.err ? r.err : "");
		snprintf(want, sizeof want, "q.json: /data/result/0/values/1/1: value '%s' is not a number (expected a "
		         "number, NaN, +Inf or -Inf)", texts[k]);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, want);
		run_result_free(&r);
		free(json);
	}
	free(out);
	free(dir);
	return check_report("test_prom_value_text");
}

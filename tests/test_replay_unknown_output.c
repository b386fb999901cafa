/*
 * A requests.json request with a mean itl and a null output_lens has no
 * completion: the log's end for it is its first token
 * (wc_trace_request_end, trace/load.h). Two readers took the completion
 * alone (docs/formats/telemetry.md, "Missing token counts";
 * docs/envelopes.md, "Replaying a measured run"):
 * - the replay's arrivals dropped such a request sent before the window
 *   and still running at its start (the real A100 trace replay's first
 *   one, sent 0.045 s before power.csv starts: 3 arrivals replayed of 4,
 *   mean 205.7 W against 225.6 W, and no word of the drawn length);
 * - the clock check found no request end at all when every output
 *   length is null and refused the run as "requests ...--inf ... check
 *   the offset", though the offset was right.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784412000.0

/* 10 s of power from T0 and four requests, the first sent 0.05 s before
 * the power log starts; `outputs` the output_lens array's items. */
static char *
make_run(const char *dir, const char *name, const char *outputs)
{
	char *run = path_join(dir, name);
	mkdir(run, 0755);
	char text[8192] = "timestamp, index, power.draw [W]\n";
	for (int k = 0; k < 40; k++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%.3f, 0, %.1f W\n", T0 + 0.25 * k,
		         200.0 + 10.0 * sin(k));
	free(test_fixture(run, "power.csv", text));
	snprintf(text, sizeof text, "{\"request_timestamps\": [%.3f, %.3f, %.3f, %.3f], "
	         "\"ttfts\": [0.3, 0.3, 0.3, 0.3], \"itls\": [0.0126, 0.0126, 0.0126, 0.0126], "
	         "\"input_lens\": [1000, 1100, 1200, 1300], \"output_lens\": [%s]}\n",
	         T0 - 0.05, T0 + 2.0, T0 + 4.0, T0 + 6.0, outputs);
	free(test_fixture(run, "requests.json", text));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"u\", "
	                  "\"platform\": \"A100\", \"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n"));
	return run;
}

int
main(void)
{
	char *dir = test_tmpdir("replay_unknown_output");
	run_result r;

	/* The first request's length unknown: replayed with the drawn one
	 * and counted in the warning. */
	char *run = make_run(dir, "first", "null, 40, 60, 50");
	const char *env[] = { "wattcast", "envelope", "--measured", run, NULL };
	CHECK_INT(run_wattcast(env, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "its own 4 arrivals (from requests)");
	CHECK_CONTAINS(r.err, "run u: 1 of its 4 replayed arrivals (from requests) have no output_tokens; drawn from "
	               "a fixed 50, the mean of the other 3 arrivals'");
	run_result_free(&r);
	free(run);

	/* Every length unknown: read, the lengths blank, the clocks not
	 * blamed; replayed with the default length. */
	run = make_run(dir, "none", "null, null, null, null");
	char *out = path_join(dir, "none.csv");
	const char *ing[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(ing, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "run u: 4 of the row's 4 requests have no output_tokens: left blank");
	CHECK(!r.err || strstr(r.err, "clocks cannot be aligned") == NULL);
	run_result_free(&r);
	const char *env2[] = { "wattcast", "envelope", "--measured", run, NULL };
	CHECK_INT(run_wattcast(env2, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "its own 4 arrivals (from requests)");
	CHECK_CONTAINS(r.err, "run u: none of its 4 arrivals (from requests) has output_tokens; drawn from the default");
	run_result_free(&r);
	free(out);
	free(run);

	/* A single request whose first token is its arrival and whose
	 * completion is unknown spans a point, inside power's span: read; a
	 * clock that moves it out is still refused. */
	run = make_run(dir, "one", "null, 40, 60, 50");
	free(test_fixture(run, "requests.json", "{\"request_timestamps\": [1784412003.0], \"ttfts\": [0], "
	                  "\"itls\": [0.0126], \"input_lens\": [1000], \"output_lens\": [null]}\n"));
	out = path_join(dir, "one.csv");
	const char *one[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(one, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || strstr(r.err, "clocks cannot be aligned") == NULL);
	run_result_free(&r);
	free(test_fixture(run, "requests.json", "{\"request_timestamps\": [1784422003.0], \"ttfts\": [0], "
	                  "\"itls\": [0.0126], \"input_lens\": [1000], \"output_lens\": [null]}\n"));
	CHECK_INT(run_wattcast(one, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "clocks cannot be aligned");
	run_result_free(&r);
	free(out);
	free(run);
	free(dir);
	return check_report("test_replay_unknown_output");
}

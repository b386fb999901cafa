/*
 * Request logs with missing token counts (docs/formats/telemetry.md,
 * "Request logs"). A blank output_tokens (CSV) or a null output_lens
 * entry (JSON) was left out of ingest's mean output length while the
 * input mean took every request, with no word of it. The reader now
 * counts the requests without a count (for the columns the log has), and
 * ingest says, per run, how many lack it and over which requests the mean
 * is taken. Only a null or NaN entry is missing: a string, array, object
 * or boolean where a count stands was read as missing too (a warning that
 * a default length was drawn, exit 0); it is refused at its entry.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784412000.0

int
main(void)
{
	char *dir = test_tmpdir("request_missing_tokens");
	wc_request_log *log = NULL;
	wc_error err;

	/* The reader's counts, CSV and JSON. */
	char *p = test_fixture(dir, "r.csv", "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n"
	                       "10,10.2,11,400,31\n11,,12,410,44\n12,12.3,14,,\n13,13.1,15,500,41\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	if (log) {
		CHECK_INT(log->missing_input, 1);
		CHECK_INT(log->missing_output, 1);
	}
	wc_request_log_free(log);
	free(p);
	p = test_fixture(dir, "r.json", "{\"request_timestamps\": [10, 11, 12], \"e2els\": [1, 1, 1], "
	                 "\"input_lens\": [400, 410, 420], \"output_lens\": [31, null, NaN]}\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	if (log) {
		CHECK_INT(log->missing_input, 0);
		CHECK_INT(log->missing_output, 2);
	}
	wc_request_log_free(log);
	free(p);
	/* Anything but a number or null is no count: refused, named at its
	 * entry with what stands there. */
	static const char *const not_counts[] = { "\"x\"", "[1]", "{\"n\": 1}", "true" };
	for (size_t k = 0; k < sizeof not_counts / sizeof not_counts[0]; k++) {
		char body[256], want[128];
		snprintf(body, sizeof body, "{\"request_timestamps\": [10, 11], \"e2els\": [1, 1], "
		         "\"input_lens\": [400, %s], \"output_lens\": [31, 40]}\n", not_counts[k]);
		p = test_fixture(dir, "bad.json", body);
		log = NULL;
		CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
		CHECK(log == NULL);
		snprintf(want, sizeof want, "bad.json: /input_lens/1: expected a number (tokens; null when unknown), "
		         "got %s", k == 2 ? "{\"n\": 1}" : not_counts[k]);
		CHECK_CONTAINS(err.msg, want);
		wc_request_log_free(log);
		free(p);
	}
	p = test_fixture(dir, "bad_out.json", "{\"request_timestamps\": [10, 11], \"e2els\": [1, 1], "
	                 "\"output_lens\": [31, \"40\"]}\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "bad_out.json: /output_lens/1: expected a number (tokens; null when unknown), got \"40\"");
	/* as envelope --replay reads it: exit 1 with the entry, no default drawn */
	run_result rr;
	const char *replay[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", p,
		                 "--horizon", "10", NULL };
	CHECK_INT(run_wattcast(replay, NULL, &rr), 0);
	CHECK_INT(rr.status, 1);
	CHECK_CONTAINS(rr.err, "bad_out.json: /output_lens/1: expected a number");
	CHECK(!rr.err || strstr(rr.err, "drawn from the default") == NULL);
	run_result_free(&rr);
	free(p);
	/* A log without the column lacks nothing: it is not counted. */
	p = test_fixture(dir, "times.csv", "arrival_s,completion_s\n10,11\n11,12\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->missing_input + log->missing_output, 0);
	wc_request_log_free(log);
	free(p);

	/* ingest: a run with a request log and no engine log. */
	char *run = path_join(dir, "run"), *out = path_join(dir, "runs.csv");
	mkdir(run, 0755);
	char text[16384] = "timestamp, index, power.draw [W]\n";
	for (int k = 0; k < 240; k++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%.3f, 0, %.1f W\n", T0 + 0.25 * k,
		         k >= 8 ? 200.0 + 10.0 * sin(k) : 60.0);
	free(test_fixture(run, "power.csv", text));
	snprintf(text, sizeof text, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n");
	for (int i = 0; i < 20; i++) /* every fourth without output_tokens */
		snprintf(text + strlen(text), sizeof text - strlen(text), i % 4 == 3 ? "%.3f,%.3f,%.3f,%d,\n"
		                                                                     : "%.3f,%.3f,%.3f,%d,%d\n",
		         T0 + 2.0 + 2.5 * i, T0 + 2.2 + 2.5 * i, T0 + 4.0 + 2.5 * i, 400 + i, 100 + i);
	free(test_fixture(run, "requests.csv", text));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"m\", "
	                  "\"platform\": \"L40S\", \"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\", "
	                  "\"utc_offset_s\": 0}\n"));
	run_result r;
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "requests.csv: run m: 5 of the row's 20 requests have no output_tokens: its mean is over "
	               "the other 15; no output-token total, so energy per token is blank");
	CHECK(strstr(r.err, "no input_tokens") == NULL);
	run_result_free(&r);

	free(run);
	free(out);
	free(dir);
	return check_report("test_request_missing_tokens");
}

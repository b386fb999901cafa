/*
 * A requests.json with a mean inter-token latency per request (`itls` a
 * number) places a completion at first token + (output_lens - 1) * itl.
 * With that request's output_lens null or NaN the completion could not be
 * placed, and the request was left out as "no usable timing", blamed on
 * its valid `/itls/K` ("expected a number, got 0.0126"): ingest refused
 * the run and envelope --replay exited 1, while the requests.csv twin
 * (blank output_tokens) was kept. docs/formats/telemetry.md, "Missing
 * token counts": such a request is kept with the count unknown -- and
 * here its completion unknown, ingest counting it where its first token
 * came.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784412000.0

/* A run folder: 60 s of power and a requests.json of 20 requests, every
 * fourth output_lens `hole` (null or NaN). */
static char *
make_run(const char *dir, const char *name, const char *hole, int levels)
{
	char *run = path_join(dir, name);
	mkdir(run, 0755);
	char text[16384] = "timestamp, index, power.draw [W]\n";
	for (int k = 0; k < 240; k++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%.3f, 0, %.1f W\n", T0 + 0.25 * k,
		         k >= 8 ? 200.0 + 10.0 * sin(k) : 60.0);
	free(test_fixture(run, "power.csv", text));
	char arr[2048] = "", ttft[2048] = "", itl[2048] = "", in[2048] = "", out[2048] = "";
	for (int i = 0; i < 20; i++) {
		const char *sep = i ? ", " : "";
		snprintf(arr + strlen(arr), sizeof arr - strlen(arr), "%s%.3f", sep, T0 + 2.0 + 2.5 * i);
		snprintf(ttft + strlen(ttft), sizeof ttft - strlen(ttft), "%s0.2", sep);
		snprintf(itl + strlen(itl), sizeof itl - strlen(itl), "%s0.0126", sep);
		snprintf(in + strlen(in), sizeof in - strlen(in), "%s%d", sep, 400 + i);
		if (i % 4 == 3)
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", sep, hole);
		else
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", sep, 100 + i);
	}
	snprintf(text, sizeof text, "{\"request_timestamps\": [%s], \"ttfts\": [%s], \"itls\": [%s], "
	         "\"input_lens\": [%s], \"output_lens\": [%s]}\n", arr, ttft, itl, in, out);
	free(test_fixture(run, "requests.json", text));
	/* two levels: requests 0-9 complete in the first, 10-19 in the second */
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"m\", \"platform\": \"L40S\", "
	         "\"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\", \"utc_offset_s\": 0%s}\n",
	         levels ? ", \"levels\": [{\"label\": \"a\", \"start_epoch\": 1784412002, \"end_epoch\": 1784412027}, "
	                  "{\"label\": \"b\", \"start_epoch\": 1784412027, \"end_epoch\": 1784412055}]" : "");
	free(test_fixture(run, "wattcast-run.json", text));
	return run;
}

int
main(void)
{
	char *dir = test_tmpdir("request_itl_unknown_count");
	wc_request_log *log = NULL;
	wc_error err;

	/* The reader keeps both, the count and the completion unknown. */
	char *p = test_fixture(dir, "r.json", "{\"request_timestamps\": [10, 11, 12, 13], "
	                       "\"ttfts\": [0.2, 0.3, 0.2, 0.2], \"itls\": [0.01, 0.0126, 0.01, 0.01], "
	                       "\"output_lens\": [31, null, NaN, 41]}\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	CHECK(log != NULL);
	if (log) {
		CHECK_INT(log->n, 4);
		CHECK_INT(log->missing_output, 2);
		for (size_t i = 0; i < log->n && log->n == 4; i++) {
			CHECK(fabs(log->first_token[i] - (10.0 + (double)i + (i == 1 ? 0.3 : 0.2))) < 1e-9);
			CHECK(isnan(log->completion[i]) == (i == 1 || i == 2));
		}
		if (log->n == 4)
			CHECK(fabs(log->completion[3] - (13.2 + 40 * 0.01)) < 1e-9);
	}
	wc_request_log_free(log);

	/* envelope --replay: the request is run with the default output length. */
	run_result rr;
	const char *replay[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", p,
		                 "--horizon", "10", NULL };
	CHECK_INT(run_wattcast(replay, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	CHECK_CONTAINS(rr.err, "2 of 4 requests have no output_tokens; drawn from the default");
	CHECK(!rr.err || strstr(rr.err, "/itls/") == NULL);
	CHECK(!rr.err || strstr(rr.err, "no usable timing") == NULL);
	run_result_free(&rr);
	free(p);

	/* ingest: kept and counted, as the requests.csv twin is
	 * (test_request_missing_tokens). */
	static const char *const holes[] = { "null", "NaN" };
	for (int h = 0; h < 2; h++) {
		char name[16], *out;
		snprintf(name, sizeof name, "run_%d", h);
		char *run = make_run(dir, name, holes[h], 0);
		out = path_join(run, "runs.csv");
		run_result r;
		const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "requests.json: run m: 5 of the row's 20 requests have no output_tokens: its mean is "
		               "over the other 15");
		CHECK(!r.err || strstr(r.err, "/itls/") == NULL);
		CHECK(!r.err || strstr(r.err, "no usable timing") == NULL);
		run_result_free(&r);
		/* envelope --measured says both counts, each naming what it
		 * counts: the row's requests, its replayed arrivals (it said
		 * "the other 15" beside "the mean of the others") */
		const char *env[] = { "wattcast", "envelope", "--measured", run, "--platform", "A100", "--model",
			              "Qwen3-8B", "--utc-offset", "0", NULL };
		if (h == 0) {
			CHECK_INT(run_wattcast(env, NULL, &r), 0);
			CHECK_CONTAINS(r.err, "of the row's 20 requests have no output_tokens: its mean is over the other 15");
			CHECK_CONTAINS(r.err, "replayed arrivals (from requests) have no output_tokens; drawn from a fixed");
			CHECK_CONTAINS(r.err, "the mean of the other 15 arrivals'");
			run_result_free(&r);
		}
		free(out);
		free(run);
	}
	/* By level: a request whose completion is unknown counts once, in the
	 * level its first token came in (2 of 10 in the first, 3 of 10 in
	 * the second), not in every level. */
	char *run = make_run(dir, "levels", "null", 1), *out = path_join(dir, "levels.csv");
	run_result r;
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "run m#a: 2 of the row's 10 requests have no output_tokens: its mean is over the other 8");
	CHECK_CONTAINS(r.err, "run m#b: 3 of the row's 10 requests have no output_tokens: its mean is over the other 7");
	run_result_free(&r);
	free(run);
	free(out);
	free(dir);
	return check_report("test_request_itl_unknown_count");
}

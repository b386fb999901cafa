/*
 * Per-request logs (docs/formats/telemetry.md, "requests.json"): vLLM's
 * parallel arrays (a mean inter-token latency or a list of gaps per
 * request) and the plain CSV, n(t) rebuilt from them on the 50 ms grid,
 * malformed lines and over-long headers, and a log appended to itself
 * (its repeated requests said).
 */
#include "data/data.h"
#include "trace/trace.h"
#include "data/telemetry_internal.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* Warnings collected from the readers (tests/support). */
typedef test_warnings warnings;

static char *
fixture(const char *name, const char *text)
{
	return test_fixture(dir, name, text);
}

static void
test_requests(void)
{
	/* Mean ITL per request (powertrace-sim), and a list of gaps. */
	const char *json =
		"{\"request_timestamps\": [100.0, 100.5, 103.0],"
		" \"ttfts\": [0.2, 0.3, 0.1],"
		" \"itls\": [0.01, [0.1, 0.2, 0.3], 0.02],"
		" \"output_lens\": [11, 4, 1], \"input_lens\": [50, 60, 70],"
		" \"session_ids\": [\"a\", \"a\", \"b\"]}";
	char *p = fixture("requests.json", json);
	wc_request_log *log;
	wc_error err;
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	CHECK_INT(log->n, 3);
	CHECK_NEAR(log->first_token[0], 100.2, 1e-12);
	CHECK_NEAR(log->completion[0], 100.2 + 0.01 * 10, 1e-12);
	CHECK_NEAR(log->completion[1], 100.8 + 0.6, 1e-12);
	CHECK_NEAR(log->completion[2], 103.1, 1e-12); /* one token: no gaps */
	CHECK_NEAR(log->input_tokens[2], 70, 0);
	/* n(t) on a 50 ms grid from 100.0: [100.0, 100.3) one request,
	 * [100.5, 101.4) another, [103.0, 103.1) the third (grid points away
	 * from the ends, which rounding may put on either side). */
	double n[80];
	wc_trace_running_from_requests(log, 100.0, 0.05, 80, n);
	CHECK_NEAR(n[0], 1, 0);
	CHECK_NEAR(n[5], 1, 0);  /* 100.25 */
	CHECK_NEAR(n[7], 0, 0);  /* 100.35: the first has completed */
	CHECK_NEAR(n[11], 1, 0); /* 100.55 */
	CHECK_NEAR(n[27], 1, 0); /* 101.35 */
	CHECK_NEAR(n[29], 0, 0); /* 101.45 */
	CHECK_NEAR(n[61], 1, 0); /* 103.05 */
	CHECK_NEAR(n[63], 0, 0);
	wc_request_log_free(log);
	free(p);

	p = fixture("requests_bad.json", "{\"request_timestamps\": [1, 2], \"ttfts\": [0.1]}");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/ttfts: 1 entries, but 2 arrivals");
	free(p);

	const char *csv = "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\r\n"
	                  "10.0,10.5,12.0,100,20\r\n10.2,,11.0,,\r\n";
	p = fixture("requests.csv", csv);
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_OK);
	CHECK_INT(log->n, 2);
	CHECK_NEAR(log->completion[0], 12.0, 0);
	CHECK(isnan(log->first_token[1]) && isnan(log->output_tokens[1]));
	wc_request_log_free(log);
	free(p);

	/* A malformed line names its reason; an over-long header is refused
	 * (a header that cannot be read cannot be parsed), as in engine logs. */
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	p = fixture("requests_quote.csv", "arrival_s,completion_s\n10,12\n\"11,13\n14,15\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK_INT(log->n, 2);
	char want[1200];
	snprintf(want, sizeof want, "%s:3:1: unterminated quoted field", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "repeat another") == NULL);
	wc_request_log_free(log);
	free(p);
	/* A log appended to itself: every request is there twice, which is
	 * said (kept: a coarse clock can give two requests one line), in
	 * either form; requests that differ only in a length are not. */
	w.text[0] = 0;
	p = fixture("requests_twice.csv", "arrival_s,completion_s,output_tokens\n10,12,5\n11,13,6\n11,13,7\n"
	                                  "10,12,5\n11,13,6\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK_INT(log->n, 5);
	CHECK_CONTAINS(w.text, "2 of 5 requests repeat another exactly");
	wc_request_log_free(log);
	free(p);
	w.text[0] = 0;
	p = fixture("requests_twice.json", "{\"request_timestamps\": [1, 2, 1], \"ttfts\": [0.1, 0.1, 0.1]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK_CONTAINS(w.text, "1 of 3 requests repeat another exactly");
	wc_request_log_free(log);
	free(p);
	char *long_header = malloc(WC_TELEMETRY_LINE_MAX + 64);
	memset(long_header, 'x', WC_TELEMETRY_LINE_MAX + 10);
	strcpy(long_header + WC_TELEMETRY_LINE_MAX + 10, "\n10,12\n");
	p = fixture("requests_long.csv", long_header);
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
	/* the limit and the way out (an engine.csv's adds its usual culprit:
	 * test_cli_values_quoted) */
	CHECK_CONTAINS(err.msg, ":1:4097: header line longer than 4096 bytes: drop the columns wattcast does not read");
	free(long_header);
	free(p);
	/* A header that does not split is refused with the reason, in both logs. */
	p = fixture("requests_badhdr.csv", "\"arrival_s,completion_s\n10,12\n");
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, ":1:1: header: unterminated quoted field");
	free(p);
	wc_engine_log *e;
	p = fixture("engine_badhdr.csv", "timestamp,\"num_requests_running\n1000.0,1\n");
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, ":1:11: header: unterminated quoted field");
	free(p);
}

/* requests.csv's failure flags, a header again, and times in another
 * unit (docs/formats/telemetry.md, "requests.csv"). */
static void
test_csv_flags(void)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	warnings w = { "", 0 };
	wc_request_log *log = NULL;
	wc_error err;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	/* `success` False or a non-empty `errors`: failed, left out as
	 * requests.json's errors are (they were counted as served, halving
	 * the energy per request). */
	char *p = fixture("requests_status.csv",
	                  "arrival_s,first_token_s,completion_s,input_tokens,output_tokens,success,errors\n"
	                  "1784415085.5,1784415085.9,1784415086.3,4129,31,True,\n"
	                  "1784415085.6,,1784415085.63,4000,0,False,\"HTTP 503: Service Unavailable, retry\"\n"
	                  "1784415085.7,,1784415085.73,4000,0,true,timeout\n"
	                  "1784415085.8,1784415086.0,1784415087.0,100,50,1,\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log) {
		CHECK_INT(log->n, 2);
		CHECK_NEAR(log->output_tokens[1], 50, 0);
	}
	CHECK_CONTAINS(w.text, "requests_status.csv: 2 of 4 requests failed");
	wc_request_log_free(log);
	free(p);

	/* A header again, the token columns swapped: the lines after it are
	 * read by it, said at its line (they were a bad line and then read
	 * swapped). The same header again is no bad line. */
	w.text[0] = 0;
	w.count = 0;
	p = fixture("requests_rehdr.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                  "1784415085.5,1784415086.5,4000,30\n"
	                                  "arrival_s,completion_s,output_tokens,input_tokens\n"
	                                  "1784415087.5,1784415088.5,40,5000\n"
	                                  "arrival_s,completion_s,output_tokens,input_tokens\n"
	                                  "1784415089.5,1784415090.5,50,6000\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log) {
		CHECK_INT(log->n, 3);
		CHECK_NEAR(log->input_tokens[1], 5000, 0);
		CHECK_NEAR(log->output_tokens[2], 50, 0);
	}
	CHECK_CONTAINS(w.text, "requests_rehdr.csv:3: a header again, naming other columns or another order");
	CHECK_INT(w.count, 1);
	wc_request_log_free(log);
	free(p);

	/* Milliseconds: refused naming the cell and the unit, not left to the
	 * clock check that blamed the UTC offset. */
	p = fixture("requests_ms.csv", "arrival_s,completion_s\n1784415085560.5,1784415086560.5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "requests_ms.csv:2:1: the first arrival is not epoch seconds");
	CHECK_CONTAINS(err.msg, "it looks like milliseconds");
	free(p);
	p = fixture("requests_ms.json", "{\"request_timestamps\": [1784415085560.5], \"e2els\": [1.0]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "requests_ms.json: /request_timestamps/0: the first arrival is not epoch seconds");
	free(p);
	/* ... and on a later line, a bad line named (it was dropped from the
	 * window without a word: a quarter of the requests gone) */
	w.text[0] = 0;
	opt.max_bad_fraction = 0.5;
	p = fixture("requests_ms_later.csv", "arrival_s,completion_s\n1784415085.5,1784415086.5\n"
	                                     "1784415087325,1784415087651\n1784415089.5,1784415090.5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 2);
	CHECK_CONTAINS(w.text, "requests_ms_later.csv:3:1: arrival_s: time 1784415087325 (seconds since the epoch) is "
	                       "after 2100-01-01; it looks like milliseconds: another unit than seconds?");
	wc_request_log_free(log);
	opt.max_bad_fraction = 0.01;
	free(p);

	/* A token count no request has is named at its line or entry (the
	 * replay named an index of the sorted arrivals); 0 is a count. */
	w.text[0] = 0;
	opt.max_bad_fraction = 0.5;
	p = fixture("requests_negative.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                     "1784415085.5,1784415086.5,4000,0\n1784415087.5,1784415088.5,400,-3\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 1);
	CHECK_CONTAINS(w.text, "requests_negative.csv:3:31: output_tokens = -3 is no token count");
	wc_request_log_free(log);
	free(p);
	/* nor is a fraction (a latency column mapped to the count): a bad
	 * cell, named by its column (12.5 was taken as a count, silently) */
	w.text[0] = 0;
	p = fixture("requests_frac.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                 "1784415085.5,1784415086.5,4000,3\n1784415087.5,1784415088.5,400,12.5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 1);
	CHECK_CONTAINS(w.text, "requests_frac.csv:3:31: output_tokens = 12.5 is no token count (a whole number");
	wc_request_log_free(log);
	free(p);
	p = fixture("requests_frac.json", "{\"request_timestamps\": [1784415085.5, 1784415086.5],"
	                                  " \"e2els\": [1.0, 1.0], \"output_lens\": [2, 12.5]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "requests_frac.json: /output_lens/1: 12.5 is no token count");
	free(p);
	p = fixture("requests_negative.json", "{\"request_timestamps\": [1784415085.5, 1784415086.5],"
	                                      " \"e2els\": [1.0, 1.0], \"output_lens\": [0, -3]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "requests_negative.json: /output_lens/1: -3 is no token count");
	free(p);
	/* a near-whole or just-too-large count is shown as written or in
	 * full, not rounded to 6 digits into a whole number or the bound
	 * ("44 is no token count (a whole number ...)") */
	w.text[0] = 0;
	p = fixture("requests_near.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                 "1784415085.5,1784415086.5,4000,3\n1784415087.5,1784415088.5,400,44.0000001\n"
	                                 "1784415089.5,1784415090.5,100000001,3\n1784415091.5,1784415092.5,400,5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK_CONTAINS(w.text, "requests_near.csv:3:31: output_tokens = 44.0000001 is no token count");
	CHECK_CONTAINS(w.text, "requests_near.csv:4:27: input_tokens = 100000001 is no token count");
	wc_request_log_free(log);
	free(p);
	p = fixture("requests_near.json", "{\"request_timestamps\": [1784415085.5, 1784415086.5],"
	                                  " \"e2els\": [1.0, 1.0], \"output_lens\": [2, 44.0000001]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "requests_near.json: /output_lens/1: 44.0000001 is no token count");
	free(p);
	/* a consumer's bounds (an envelope's: 1 to 1e7 input tokens) make a
	 * count outside them a bad cell too, named with its column and value;
	 * without them 0 and 2e7 are counts */
	w.text[0] = 0;
	p = fixture("requests_bound.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                  "1784415085.5,1784415086.5,20000000,3\n1784415087.5,1784415088.5,0,5\n"
	                                  "1784415089.5,1784415090.5,400,0\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 3);
	wc_request_log_free(log);
	opt.max_tokens = 1e7;
	opt.min_input_tokens = 1;
	opt.max_bad_fraction = 0.9;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 1);
	CHECK_CONTAINS(w.text, "requests_bound.csv:2:27: input_tokens = 20000000 is no token count (a whole number, 1 "
	                       "to 1e+07)");
	CHECK_CONTAINS(w.text, "requests_bound.csv:3:27: input_tokens = 0 is no token count (a whole number, 1 to 1e+07)");
	wc_request_log_free(log);
	free(p);
	p = fixture("requests_bound.json", "{\"request_timestamps\": [1784415085.5, 1784415086.5],"
	                                   " \"e2els\": [1.0, 1.0], \"output_lens\": [0, 20000000]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "requests_bound.json: /output_lens/1: 20000000 is no token count (a whole number, 0 to "
	                        "1e+07)");
	free(p);
	opt.max_tokens = opt.min_input_tokens = 0;
	/* a request of requests.json without usable timing is named at the
	 * entry that fails it, with its value (only a count was said) */
	w.text[0] = 0;
	p = fixture("requests_str.json", "{\"request_timestamps\": [1784415085.5, \"x\", 1784415087.5],"
	                                 " \"e2els\": [1.0, 1.0, null], \"ttfts\": [0.1, 0.1, null]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 1);
	CHECK_CONTAINS(w.text, "requests_str.json: /request_timestamps/1: expected a number, got \"x\"");
	CHECK_CONTAINS(w.text, "requests_str.json: /ttfts/2: expected a number, got null");
	CHECK_CONTAINS(w.text, "requests_str.json: 2 of 3 requests have no usable timing; left out");
	wc_request_log_free(log);
	free(p);
	/* a time to first token longer than the request's end-to-end
	 * latency puts the first token after the completion: unusable, named
	 * at its ttft (it was kept, its prefill outside the request) */
	w.text[0] = 0;
	p = fixture("requests_ttft.json", "{\"request_timestamps\": [1784415085.5, 1784415086.5],"
	                                  " \"e2els\": [1.0, 1.0], \"ttfts\": [0.1, 1.5]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 1);
	CHECK_CONTAINS(w.text, "requests_ttft.json: /ttfts/1: the first token comes 0.5 s after the completion (e2els)");
	wc_request_log_free(log);
	free(p);
	/* a later arrival in milliseconds, or months from the first, is
	 * judged on its own entry as requests.csv's cells are (it was
	 * replayed 50 years after the run) */
	w.text[0] = 0;
	p = fixture("requests_later_ms.json", "{\"request_timestamps\": [1784415085.5, 1784415086500.0, 1804415086.5,"
	                                      " 1784415087.5], \"e2els\": [1.0, 1.0, 1.0, 1.0]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 2);
	CHECK_CONTAINS(w.text, "requests_later_ms.json: /request_timestamps/1: time 1784415086500 (seconds since the "
	                       "epoch) is after 2100-01-01; it looks like milliseconds: another unit than seconds?");
	CHECK_CONTAINS(w.text, "requests_later_ms.json: /request_timestamps/2: 1804415086.5 is 2e+07 s from the log's "
	                       "first arrival: another unit than seconds?");
	wc_request_log_free(log);
	free(p);
	/* the first arrival alone in milliseconds, the next in seconds: one
	 * bad entry (or line) judged as any later one, one rule for both
	 * forms; the whole log was refused, "convert them to seconds" */
	w.text[0] = 0;
	p = fixture("requests_first_ms.json", "{\"request_timestamps\": [1784415085500.0, 1784415086.5, 1784415087.5,"
	                                     " 1784415088.5], \"e2els\": [1.0, 1.0, 1.0, 1.0]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log) {
		CHECK_INT(log->n, 3);
		CHECK_NEAR(log->arrival[0], 1784415086.5, 1e-6);
	}
	CHECK_CONTAINS(w.text, "requests_first_ms.json: /request_timestamps/0: time 1784415085500 (seconds since the "
	                       "epoch) is after 2100-01-01; it looks like milliseconds: another unit than seconds?");
	wc_request_log_free(log);
	free(p);
	w.text[0] = 0;
	opt.max_bad_fraction = 0.5;
	p = fixture("requests_first_ms.csv", "arrival_s,completion_s\n1784415085500.0,1784415086500.0\n"
	                                    "1784415086.5,1784415087.5\n1784415087.5,1784415088.5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, 2);
	CHECK_CONTAINS(w.text, "requests_first_ms.csv:2:1: arrival_s: time 1784415085500 (seconds since the epoch) is "
	                       "after 2100-01-01; it looks like milliseconds: another unit than seconds?");
	wc_request_log_free(log);
	opt.max_bad_fraction = 0.01;
	free(p);
	/* the first two in milliseconds: the log's unit, refused */
	p = fixture("requests_two_ms.json", "{\"request_timestamps\": [1784415085500.0, 1784415086500.0, 1784415087.5],"
	                                   " \"e2els\": [1.0, 1.0, 1.0]}");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "requests_two_ms.json: /request_timestamps/0: the first arrival is not epoch seconds");
	free(p);
	p = fixture("requests_two_ms.csv", "arrival_s,completion_s\n1784415085500.0,1784415086500.0\n"
	                                  "1784415086500.0,1784415087500.0\n1784415087.5,1784415088.5\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "requests_two_ms.csv:2:1: the first arrival is not epoch seconds");
	free(p);
}

int
main(void)
{
	dir = test_tmpdir("request_logs");
	test_requests();
	test_csv_flags();
	free(dir);
	return check_report("test_request_logs");
}

/*
 * Every requests.csv cell error names its cell, file:line:column, as its
 * field counts and token counts do (docs/formats/telemetry.md, "Bad
 * lines"), and a time in another unit than seconds is judged on its own
 * cell before any two times are compared ("Times in another unit").
 * Before, the real PowerTrace-Sim smoke run's requests.csv with one
 * arrival in milliseconds said `requests.csv:3: completion before
 * arrival` (no column, and the wrong problem); a completion or first
 * token in milliseconds on the first line was read as it stood.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

#define HEADER "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n"
#define LINE2 "1784415085.560501,1784415085.930201,1784415086.307334,4129,31\n"
#define LINE4 "1784415087.325227,1784415087.651433,1784415091.204153,4959,281\n"
#define LINE5 "1784415091.205093,1784415091.535768,1784415092.042098,5115,41\n"

/* Read `body` as requests.csv, expecting `n` requests and the warning
 * `want` (after the path); nothing of `not_want` (NULL: no check). */
static void
expect(const char *name, const char *body, size_t n, const char *want, const char *not_want)
{
	char *p = test_fixture(dir, name, body);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_request_log *log = NULL;
	wc_error err;
	test_warnings w;
	char full[1200];
	memset(&w, 0, sizeof w);
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	if (log)
		CHECK_INT(log->n, n);
	snprintf(full, sizeof full, "%s%s", p, want);
	CHECK_CONTAINS(w.text, full);
	if (not_want)
		CHECK(strstr(w.text, not_want) == NULL);
	wc_request_log_free(log);
	free(p);
}

int
main(void)
{
	dir = test_tmpdir("request_csv_cell_columns");
	/* the real run's line 3 with its arrival in milliseconds: the
	 * arrival's cell, its unit, not a completion before it */
	expect("arrival_ms.csv",
	       HEADER LINE2 "1784415086430.259,1784415086.707731,1784415087.249258,4218,44\n" LINE4 LINE5, 3,
	       ":3:1: arrival_s: time 1784415086430.26 (seconds since the epoch) is after 2100-01-01; it looks "
	       "like milliseconds: another unit than seconds?",
	       "completion before arrival");
	/* all three in milliseconds on a later line: the first cell */
	expect("all_ms.csv",
	       HEADER LINE2 "1784415086430.259,1784415086707.731,1784415087249.258,4218,44\n" LINE4 LINE5, 3,
	       ":3:1: arrival_s: time 1784415086430.26 (seconds since the epoch) is after 2100-01-01; it looks "
	       "like milliseconds: another unit than seconds?",
	       NULL);
	/* a completion in milliseconds on the first line, past a blank: its
	 * cell (it was kept, 1.78e12) */
	expect("completion_ms.csv",
	       HEADER "1784415085.560501,1784415085.930201, 1784415086307.334,4129,31\n" LINE4 LINE5, 2,
	       ":2:38: completion_s: time 1784415086307.33 (seconds since the epoch) is after 2100-01-01; it "
	       "looks like milliseconds: another unit than seconds?",
	       NULL);
	/* a first token in microseconds */
	expect("first_us.csv", HEADER LINE2 "1784415086.430259,1784415086707731,1784415087.249258,4218,44\n" LINE4,
	       2, ":3:19: first_token_s: time 1784415086707731 (seconds since the epoch) is after 2100-01-01; it "
	       "looks like microseconds: another unit than seconds?",
	       NULL);
	/* a completion before its arrival: the completion's cell */
	expect("order.csv", HEADER LINE2 "1784415086.430259,1784415086.707731,1784415085.430259,4218,44\n" LINE4,
	       2, ":3:37: completion_s: completion before arrival (by 1 s)", NULL);
	/* a first token before its arrival, or after its completion: the
	 * first token's cell (both were kept, a prefill outside the request) */
	expect("first_early.csv", HEADER LINE2 "1784415086.430259,1784415085.430259,1784415087.249258,4218,44\n" LINE4,
	       2, ":3:19: first_token_s: first token before arrival (by 1 s)", NULL);
	expect("first_late.csv", HEADER LINE2 "1784415086.430259,1784415088.249258,1784415087.249258,4218,44\n" LINE4,
	       2, ":3:19: first_token_s: first token after completion (by 1 s)", NULL);
	/* an arrival of seconds 1e7 s from the first: its cell */
	expect("span.csv", HEADER LINE2 "1804415086.5,1804415086.75,1804415087.25,4218,44\n" LINE4,
	       2, ":3:1: arrival_s: 1804415086.5 is 2e+07 s from the log's first arrival: another unit than "
	       "seconds?", NULL);
	/* a `success` cell neither true nor false: its cell */
	expect("success.csv",
	       "arrival_s,completion_s,success\n1784415085.5,1784415086.5,True\n1784415087.5,1784415088.5, maybe\n"
	       "1784415089.5,1784415090.5,False\n1784415091.5,1784415092.5,1\n", 2,
	       ":3:28: success: expected True or False, got 'maybe'", NULL);
	/* an unreadable arrival, as before: its cell */
	expect("text.csv", "arrival_s,completion_s\n1784415085.5,1784415086.5\n1784415087.5,17844x\n"
	                   "1784415089.5,1784415090.5\n", 2,
	       ":3:14: completion_s: expected a number, got '17844x'", NULL);
	free(dir);
	return check_report("test_request_csv_cell_columns");
}

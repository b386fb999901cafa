/*
 * A requests.csv line of another field count than the header's names the
 * column where it went wrong, by the one rule of engine.csv's and
 * power.csv's (wc__field_count_column, data/csv.c; docs/formats/
 * telemetry.md, "Bad lines"): one past the line's end when short, the
 * start of its first extra field when long. A data line over the 4096
 * bytes of a line is named at the column where it passes them, as an
 * over-long header is (WC__LINE_MAX_COLUMN), in requests.csv, engine.csv
 * and power.csv alike. Before, both said the line alone
 * ("requests.csv:3: expected 3 fields, found 2", "requests.csv:7: line
 * longer than 4096 bytes").
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* body with a line of 5000 '7's in place of "LONG" */
static char *
with_long_line(const char *body)
{
	const char *at = strstr(body, "LONG");
	size_t n = strlen(body) + 5000;
	char *out = malloc(n + 1);
	memcpy(out, body, (size_t)(at - body));
	memset(out + (at - body), '7', 5000);
	strcpy(out + (at - body) + 5000, at + 4);
	return out;
}

static void
requests(void)
{
	char *body = with_long_line("arrival_s,completion_s,output_tokens\n"
	                            "1000.0,1002.0,10\n"
	                            "1000.5,1003\n"
	                            "1001.0,1004.0,10,9\n"
	                            "1001.5,\"1,0\",10,9\n"
	                            "1002.0,1005.0\r\n"
	                            "LONG\n"
	                            "1002.5,1006.0,10\n1003.0,1007.0,10\n1003.5,1008.0,10\n");
	char *p = test_fixture(dir, "requests.csv", body);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_request_log *log = NULL;
	wc_error err;
	test_warnings w;
	memset(&w, 0, sizeof w);
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.9;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	/* short: one past its end (line 3's 11 bytes; line 6's 13, its CR
	 * no column); long: the fourth field's start, a quoted field counted
	 * as written */
	CHECK_CONTAINS(w.text, "requests.csv:3:12: expected 3 fields, found 2\n");
	CHECK_CONTAINS(w.text, "requests.csv:4:18: expected 3 fields, found 4\n");
	CHECK_CONTAINS(w.text, "requests.csv:5:17: expected 3 fields, found 4\n");
	CHECK_CONTAINS(w.text, "requests.csv:6:14: expected 3 fields, found 2\n");
	CHECK_CONTAINS(w.text, "requests.csv:7:4097: line longer than 4096 bytes\n");
	if (log)
		CHECK_INT(log->n, 4);
	wc_request_log_free(log);
	free(p);

	/* the refusal's first bad line names the column too */
	p = test_fixture(dir, "refused.csv", "arrival_s,completion_s\n1000.0,1002.0\n1000.5\n1001.0,1003.0\n");
	opt.max_bad_fraction = 0.0;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "line 3:7: expected 2 fields, found 1");
	wc_request_log_free(log);
	free(p);
	free(body);
}

/* engine.csv, through the same line reader */
static void
engine(void)
{
	char *body = with_long_line("timestamp,num_requests_running\n1000,1\nLONG\n1001,1\n1002,1\n1003,1\n");
	char *p = test_fixture(dir, "engine.csv", body);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err;
	test_warnings w;
	memset(&w, 0, sizeof w);
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK_CONTAINS(w.text, "engine.csv:3:4097: line longer than 4096 bytes\n");
	wc_engine_free(e);
	free(p);
	free(body);
}

int
main(void)
{
	dir = test_tmpdir("request_csv_line_column");
	requests();
	engine();
	free(dir);
	return check_report("test_request_csv_line_column");
}

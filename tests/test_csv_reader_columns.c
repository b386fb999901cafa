/*
 * The telemetry CSV readers' one-row reasons at file:line:column
 * (docs/formats/telemetry.md, "Bad lines"): a file separated by ';' or
 * gzip-compressed is said so by engine.csv, requests.csv and steps.csv as
 * by power.csv (they said "no 'timestamp' column in the header", "header
 * needs 'arrival_s' and 'completion_s'", "missing required column
 * 'step'"); a field whose split fails ("text after a closing quote") is
 * named at its column, in a header and a data line; and power.csv's
 * "sample is not later than the one before" names the time cell, also in
 * the refusal's "the first: line N:C".
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static void
engine_refused(const char *name, const char *text, const char *want)
{
	char *p = test_fixture(dir, name, text);
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, want);
	free(p);
}

static void
requests_refused(const char *name, const char *text, const char *want)
{
	char *p = test_fixture(dir, name, text);
	wc_request_log *log = NULL;
	wc_error err;
	CHECK_INT(wc_request_log_read(p, NULL, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, want);
	free(p);
}

static void
steps_refused(const char *text, size_t len, const char *want)
{
	wc_step_log l = WC_STEP_LOG_INIT;
	wc_error err;
	CHECK_INT(wc_step_log_read_buffer(text, len, "steps.csv", &l, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, want);
	wc_step_log_free(&l);
}

static const char gz[] = "\x1f\x8b\x08\x08\x9a\x01\x5c\x66\x00\x03steps.csv\x00\xa5\x92\xcb\n";

/* Not a comma-separated text file: the same reason in every reader. */
static void
not_text(void)
{
	engine_refused("semi_engine.csv", "timestamp;num_requests_running\n1000.0;1\n1000.5;2\n",
	               "semi_engine.csv:1:10: fields separated by ';', not by commas");
	engine_refused("gz_engine.csv", gz, "gz_engine.csv:1:1: a gzip-compressed file, not a text log");
	requests_refused("semi_requests.csv", "arrival_s;completion_s\n10;12\n",
	                 "semi_requests.csv:1:10: fields separated by ';', not by commas");
	requests_refused("gz_requests.csv", gz, "gz_requests.csv:1:1: a gzip-compressed file, not a text log");
	const char *semi = "step;epoch_s;event\n0;100.0;start\n";
	steps_refused(semi, strlen(semi), "steps.csv:1:5: fields separated by ';', not by commas");
	steps_refused(gz, sizeof gz - 1, "steps.csv:1:1: a gzip-compressed file, not a text log");
	/* a line short of the header's fields at its end, a long one at its
	 * first field past them, as the line readers' (it was column 1) */
	const char *shortl = "step,epoch_s,event\n0,100.0,start\n1,101.5\n";
	steps_refused(shortl, strlen(shortl), "steps.csv:3:8: expected 3 fields as in the header, got 2");
	const char *longl = "step,epoch_s,event\n0,100.0,start\n1,101.5,step,x\n";
	steps_refused(longl, strlen(longl), "steps.csv:3:14: expected 3 fields as in the header, got 4");
	/* and power.csv as before, from the same function */
	char *p = test_fixture(dir, "semi_power.csv", "timestamp;power.draw [W]\n2026/07/18 15:57:25.621;82.37\n");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	CHECK_INT(wc_nvsmi_read(p, &opt, NULL, NULL, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "semi_power.csv:1:10: fields separated by ';', not by commas");
	free(p);
}

/* A split that fails names the field it failed in. */
static void
split_fails(void)
{
	engine_refused("q_engine.csv", "timestamp,\"num_requests_running\"x\n1000.0,1\n",
	               "q_engine.csv:1:11: header: text after a closing quote");
	requests_refused("q_requests.csv", "arrival_s,\"completion_s\"x\n10,12\n",
	                 "q_requests.csv:1:11: header: text after a closing quote");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	char *p = test_fixture(dir, "q2_engine.csv", "timestamp,num_requests_running\n1000.0,1\n1000.5,\"2\"x\n"
	                                             "1001.0,3\n1001.5,2\n");
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK_CONTAINS(w.text, "q2_engine.csv:3:8: text after a closing quote");
	wc_engine_free(e);
	free(p);
	w.text[0] = '\0';
	p = test_fixture(dir, "q2_requests.csv", "arrival_s,completion_s\n10,12\n11,\"13\"x\n12,14\n13,15\n");
	wc_request_log *log = NULL;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK_CONTAINS(w.text, "q2_requests.csv:3:4: text after a closing quote");
	wc_request_log_free(log);
	free(p);
	/* refused with --max-bad 0: the first bad line at its column */
	opt.max_bad_fraction = 0.0;
	p = test_fixture(dir, "q3_requests.csv", "arrival_s,completion_s\n10,12\n11,\"13\"x\n12,14\n");
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "the first: line 3:4: text after a closing quote");
	free(p);
	const char *steps = "step,epoch_s,event\n0,100.0,start\n1,\"101.0\"x,step\n";
	steps_refused(steps, strlen(steps), "steps.csv:3:3: text after a closing quote");
}

/* A sample at the time of the one before names the time cell. */
static void
not_later(void)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	const char *text = "timestamp,power.draw [W]\n2026/07/18 15:57:25.000,82.0\n2026/07/18 15:57:25.250,83.0\n"
	                   "2026/07/18 15:57:25.250,84.0\n2026/07/18 15:57:25.500,85.0\n2026/07/18 15:57:25.750,86.0\n";
	char *p = test_fixture(dir, "later.csv", text);
	wc_nvsmi_info info;
	wc_error err;
	CHECK_INT(wc_nvsmi_read(p, &opt, NULL, NULL, &info, &err), WC_OK);
	CHECK_CONTAINS(w.text, "later.csv:4:1: sample is not later than the one before; skipped");
	opt.max_bad_fraction = 0.0;
	CHECK_INT(wc_nvsmi_read(p, &opt, NULL, NULL, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "the first: line 4:1: sample is not later than the one before");
	free(p);
}

int
main(void)
{
	dir = test_tmpdir("csv_reader_columns");
	not_text();
	split_fails();
	not_later();
	free(dir);
	return check_report("test_csv_reader_columns");
}

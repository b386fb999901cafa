/*
 * A byte-order mark at the start of a CSV line past the first
 * (docs/formats/telemetry.md, "Bad lines"): power.csv, engine.csv and
 * requests.csv, joined after their own mark (`cat a.csv b.csv` of logs a
 * Windows tool saved), skip the mark, read the line and say so at line:1,
 * where they called the value unreadable and quoted the invisible mark
 * ("power.csv:3:1: unreadable timestamp '<U+FEFF>2024/...'"); a step log,
 * read whole and strictly, refuses the line in the same words.
 */
#include "data/data.h"
#include "data/request_log.h"
#include "data/step_log.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

#define BOM "\xEF\xBB\xBF"

static int
count(double t, const double *w, int n_gpus, void *payload)
{
	(void)t;
	(void)w;
	(void)n_gpus;
	(*(int *)payload)++;
	return 0;
}

/* Read `text` as `name`: it is read whole (`rows` rows, no bad line) and
 * the mark is said at line 3, column 1, without being quoted. */
static void
csv_mark_read(const char *dir, const char *name, const char *text, int rows)
{
	char *p = test_fixture(dir, name, text);
	test_warnings w = { .count = 0 };
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_error err;
	memset(&err, 0, sizeof err);
	int rc, got = -1;
	size_t bad = 99;
	if (strstr(name, "requests")) {
		wc_request_log *log = NULL;
		rc = wc_request_log_read(p, &opt, &log, &err);
		if (log)
			got = (int)log->n, bad = 0;
		wc_request_log_free(log);
	} else if (strstr(name, "engine")) {
		wc_engine_log *e = NULL;
		rc = wc_engine_read(p, &opt, 0, &e, &err);
		if (e)
			got = (int)e->n, bad = e->bad_lines;
		wc_engine_free(e);
	} else {
		wc_nvsmi_info info;
		got = 0;
		rc = wc_nvsmi_read(p, &opt, count, &got, &info, &err);
		bad = info.bad_lines;
	}
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "  %s: %s\n", name, err.msg);
	CHECK_INT(got, rows);
	CHECK_INT((int)bad, 0);
	char want[160];
	snprintf(want, sizeof want, "%s:3:1: a byte-order mark (U+FEFF) at the line's start: a file joined after its "
	         "own mark? skipped, the line read", name);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, BOM) == NULL);
	CHECK(strstr(w.text, "unreadable") == NULL && strstr(w.text, "expected a number") == NULL);
	free(p);
}

static void
csv_mark_mid_file(void)
{
	char *dir = test_tmpdir("csv_line_bom");
	csv_mark_read(dir, "m_requests.csv",
	              "arrival_s,completion_s,input_tokens,output_tokens\n0,1,500,100\n" BOM "1,2,500,100\n"
	              "2,3,500,100\n", 3);
	csv_mark_read(dir, "m_engine.csv",
	              "timestamp,num_requests_running\n1700000000.0,4\n" BOM "1700000001.0,5\n1700000002.0,5\n", 3);
	csv_mark_read(dir, "m_power.csv",
	              "timestamp, index, power.draw [W]\n2024/01/01 00:00:00.000, 0, 250.00 W\n"
	              BOM "2024/01/01 00:00:00.100, 0, 251.00 W\n2024/01/01 00:00:00.200, 0, 252.00 W\n", 3);
	/* several: the first said where it is, then their count */
	char *p = test_fixture(dir, "m2_engine.csv",
	                       "timestamp,num_requests_running\n1700000000.0,4\n" BOM "1700000001.0,5\n" BOM
	                       "1700000002.0,5\n");
	test_warnings w = { .count = 0 };
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK(e && e->n == 3);
	CHECK_CONTAINS(w.text, "m2_engine.csv:3:1: a byte-order mark (U+FEFF)");
	CHECK_CONTAINS(w.text, "m2_engine.csv: 2 lines began with a byte-order mark (U+FEFF), the first at line 3");
	wc_engine_free(e);
	free(p);
	free(dir);
	/* a step log, read whole and strictly, refuses the line in the same
	 * words (it was "expected a whole number >= 0, got '<U+FEFF>2'") */
	static const char steps[] = "step,epoch_s\n1,1700000000.0\n" BOM "2,1700000001.0\n";
	wc_step_log sl;
	CHECK(wc_step_log_read_buffer(steps, strlen(steps), "steps.csv", &sl, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "steps.csv:3:1: a byte-order mark (U+FEFF) at the line's start: a file joined after "
	                        "its own mark? remove it");
	CHECK(strstr(err.msg, BOM) == NULL);
}

int
main(void)
{
	csv_mark_mid_file();
	return check_report("test_csv_line_bom");
}

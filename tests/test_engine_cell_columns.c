/*
 * engine.csv's one-cell bad lines name their column, `file:line:column:
 * reason`, as power.csv's and requests.csv's do (docs/formats/telemetry.md,
 * "Bad lines"): an unreadable value or timestamp, a missing timestamp and
 * a counter value out of range. The column counts bytes from 1 to where
 * the cell's value starts, past a blank after the comma. Before, engine.csv
 * gave the line only (`engine.csv:8: generation_tokens_total: expected a
 * number, got '12x'`).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("engine_cell_columns");
	/* columns: timestamp 1, num_requests_running from 6, generation_tokens_total after */
	char *p = test_fixture(dir, "engine.csv",
	                       "timestamp,num_requests_running,generation_tokens_total\n"
	                       "1000,1,10\n"
	                       "1001,2,20\n"
	                       "1002,3,12x\n"       /* 12x at byte 8 */
	                       "10x3,3,40\n"        /* a timestamp after the first: a bad line at 1 */
	                       "1004, oops,50\n"    /* past the blank: 7 */
	                       ",4,60\n"            /* no timestamp at 1 */
	                       "1006,4,1e300\n"     /* no counter value at 8 */
	                       "1007,5,80\n"
	                       "1008,5,90\n"
	                       "1009,5,100\n");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.6;
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK(e && e->bad_lines == 5);
	char want[1200];
	snprintf(want, sizeof want, "%s:4:8: generation_tokens_total: expected a number, got '12x'", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:5:1: timestamp: expected a number, got '10x3'", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:6:7: num_requests_running: expected a number, got 'oops'", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:7:1: no timestamp", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:8:8: generation_tokens_total = 1e+300 is no counter value", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);
	free(dir);
	return check_report("test_engine_cell_columns");
}

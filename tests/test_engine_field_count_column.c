/*
 * An engine.csv line of another field count than the header's names the
 * column where it went wrong, as power.csv's does (wc__field_count_column,
 * data/csv.c; docs/formats/telemetry.md, "Bad lines"): one past the line's
 * end when it is short, the start of its first extra field when it is
 * long, a quoted field counted as written. Before, it said the line alone
 * ("engine.csv:50: expected 13 fields, found 11"); so did the one warning
 * for such lines held back before the first good one.
 */
#include "data/data.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wc_engine_log *
read_log(const char *dir, const char *name, const char *body, test_warnings *w)
{
	return test_engine_fixture(dir, name, body, 0.5, w);
}

int
main(void)
{
	char *dir = test_tmpdir("engine_field_count_column");
	test_warnings w;
	/* line 3 short (9 bytes: column 10), line 4 long (its fourth field at
	 * column 11), line 5 long after a quoted field holding a comma (its
	 * fourth field at 15), line 6 short with CRLF (the CR is no column) */
	wc_engine_log *e = read_log(dir, "fields.csv",
	                            "timestamp,num_requests_running,generation_tokens_total\n"
	                            "1000,1,10\n"
	                            "1001,1000\n"
	                            "1002,1,30,9\n"
	                            "1003,\"1,0\",40,9\n"
	                            "1004,1\r\n"
	                            "1005,1,50\n1006,1,60\n1007,1,70\n1008,1,80\n1009,1,90\n", &w);
	CHECK_CONTAINS(w.text, "fields.csv:3:10: expected 3 fields, found 2\n");
	CHECK_CONTAINS(w.text, "fields.csv:4:11: expected 3 fields, found 4\n");
	CHECK_CONTAINS(w.text, "fields.csv:5:15: expected 3 fields, found 4\n");
	CHECK_CONTAINS(w.text, "fields.csv:6:7: expected 3 fields, found 2\n");
	wc_engine_free(e);

	/* held back before the first line of the header's count: said once,
	 * at the first one's column */
	e = read_log(dir, "held.csv",
	             "timestamp,num_requests_running,generation_tokens_total\n"
	             "1000,1\n1001,1\n"
	             "1002,1,30\n1003,1,40\n1004,1,50\n1005,1,60\n", &w);
	CHECK_CONTAINS(w.text, "held.csv:2:7: expected 3 fields, found 2 (to line 3)\n");
	wc_engine_free(e);
	free(dir);
	return check_report("test_engine_field_count_column");
}

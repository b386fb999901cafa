/*
 * An engine.csv cut while being written ends in half a line
 * (docs/formats/telemetry.md, "A log still being written"). power.csv
 * drops such a line with a warning; engine.csv counted it as malformed,
 * so a short run was refused ("1 of 26 data lines are malformed (more
 * than 1 %)"). Now it is dropped the same way -- also when it still
 * splits into all its fields but a counter was cut short -- while a last
 * line without a newline that is whole is read, and a malformed line
 * elsewhere still refuses the file, the message naming --max-bad.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 26 rows a second apart; the last written as `last` (without newline). */
static char *
write_log(const char *dir, const char *name, const char *last, const char *middle)
{
	char body[4096] = "timestamp,num_requests_running,prompt_tokens_total,generation_tokens_total\n";
	for (int k = 0; k < 25; k++) {
		size_t len = strlen(body);
		if (k == 12 && middle)
			snprintf(body + len, sizeof body - len, "%s\n", middle);
		else
			snprintf(body + len, sizeof body - len, "%d,4,%d,%d\n", 1000 + k, 50 * k, 100 * k);
	}
	strncat(body, last, sizeof body - strlen(body) - 1);
	char *p = path_join(dir, name);
	CHECK(write_text(p, body) == 0);
	return p;
}

static const char *option; /* the command's --max-bad, or NULL */

static int
read_log(const char *path, wc_engine_log **e, test_warnings *w, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_option = option;
	memset(w, 0, sizeof *w);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	return wc_engine_read(path, &opt, 0, e, err);
}

static void
dropped(const char *dir, const char *name, const char *last)
{
	wc_engine_log *e = NULL;
	test_warnings w;
	wc_error err;
	char *p = write_log(dir, name, last, NULL), want[1200];
	CHECK_INT(read_log(p, &e, &w, &err), WC_OK);
	if (e) {
		CHECK_INT(e->n, 25);
		CHECK_INT(e->bad_lines, 0);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1024.0), 2400.0, 1e-9);
	}
	snprintf(want, sizeof want, "%s:27: unfinished last line (no newline: the log was still being "
	         "written); dropped", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("engine_unfinished_line");
	wc_engine_log *e = NULL;
	test_warnings w;
	wc_error err;

	/* Cut inside its fields, and inside its last counter. */
	dropped(dir, "cut_fields.csv", "1025,4,12");
	dropped(dir, "cut_number.csv", "1025,4,1250,25");

	/* A whole last line without a newline is read. */
	char *p = write_log(dir, "whole.csv", "1025,4,1250,2500", NULL);
	CHECK_INT(read_log(p, &e, &w, &err), WC_OK);
	if (e)
		CHECK_INT(e->n, 26);
	CHECK_INT(w.count, 0);
	wc_engine_free(e);
	e = NULL;
	free(p);

	/* A malformed line in the middle is still 1 of 26: refused, with the
	 * option that allows more where the command has one. */
	p = write_log(dir, "middle.csv", "1025,4,1250,2500\n", "1012,4,6");
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "middle.csv: fix the bad lines: 1 of 26 data lines are malformed (more "
	                        "than 1 %)");
	option = "--max-bad";
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "fix the bad lines or allow more with --max-bad FRACTION: 1 of 26 data "
	                        "lines are malformed (more than 1 %)");
	CHECK(strlen(err.msg) <= 255);
	free(p);

	free(dir);
	return check_report("test_engine_unfinished_line");
}

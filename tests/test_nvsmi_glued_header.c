/*
 * nvidia-smi killed mid-row, then restarted appending (`>>`): the new
 * header is written on the same line as the cut row, e.g.
 * `2026/07/18 15:58:03.712,0timestamp,index,uuid,temperature.gpu,power.draw [W]`
 * (docs/formats/telemetry.md, "A second header"). Such a header was not
 * recognised: with other columns, every later line was a bad line
 * "expected 10 fields, found 5" (148 of 298 in a real A100 run edited so,
 * refused; with --max-bad, half the run kept). The cut row is one bad
 * line, said as such at its file:line:column, and the header is read as a
 * header repeated: with other columns the lines after it are read by
 * them, with the same, as before. A header whose first name is glued into
 * a uuid (`GPU-c5d3timestamp,...`) is found from that name on. A whole
 * row (all its fields) with the header glued after it lost its newline,
 * nothing more: it was said "a row cut short" and dropped; it is read as
 * a row, said as a whole row with a header after it, and is a bad line
 * only of its own cause (an unreadable reading).
 */
#include "data/nvsmi.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 200
#define CUT_AT 20 /* the row cut short: the header follows it on its line */
#define WHOLE 75  /* the length of row CUT_AT: cut there, nothing is cut */

typedef struct {
	double sum;
	int n;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	for (int g = 0; g < n_gpus; g++)
		s->sum += w[g];
	s->n++;
	return 0;
}

/* 1 GPU, 300 W at 40 C, rows 0.25 s apart with uuid; row CUT_AT cut to
 * its first `cut` bytes and followed by the header `second` on its line;
 * rows after it with power and temperature swapped when `swapped`. */
static char *
log_text(size_t cut, const char *second, int swapped)
{
	size_t cap = ROWS * 128 + 512, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp,index,uuid,power.draw [W],temperature.gpu\n");
	for (int i = 0; i < ROWS; i++) {
		int sw = i > CUT_AT && swapped;
		char row[128];
		snprintf(row, sizeof row, "2026/07/18 15:57:%02d.%02d,0,GPU-c5d32af0-0857-3b36-6541-1a688a9ec165,%s,%s",
		         10 + i / 4, (i % 4) * 25, sw ? "40" : "300.00", sw ? "300.00" : "40");
		if (i == CUT_AT)
			used += (size_t)snprintf(s + used, cap - used, "%.*s%s\n", (int)cut, row, second);
		else
			used += (size_t)snprintf(s + used, cap - used, "%s\n", row);
	}
	return s;
}

static int
read_log(const char *dir, const char *name, const char *text, seen *s, wc_nvsmi_info *info,
         test_warnings *w, wc_error *err)
{
	char *p = test_fixture(dir, name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	w->text[0] = '\0';
	w->count = 0;
	*err = (wc_error){ 0, "" };
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	return rc;
}

int
main(void)
{
	static const char *other = "timestamp,index,uuid,temperature.gpu,power.draw [W]";
	static const char *same = "timestamp,index,uuid,power.draw [W],temperature.gpu";
	char *dir = test_tmpdir("nvsmi_glued_header");
	seen s;
	wc_nvsmi_info info;
	wc_error err;
	test_warnings w;

	/* cut after the index's digit: other columns, read by them */
	char *t = log_text(24, other, 1);
	CHECK_INT(read_log(dir, "other.csv", t, &s, &info, &w, &err), WC_OK);
	if (err.code)
		fprintf(stderr, "  other.csv: %s\n", err.msg);
	CHECK_INT(info.bad_lines, 1);
	CHECK_INT(info.data_lines, ROWS);
	CHECK_INT(s.n, ROWS - 1);
	CHECK_NEAR(s.n ? s.sum / s.n : 0.0, 300.0, 1e-9);
	CHECK_CONTAINS(w.text, "other.csv:22:25: a row cut short, then a header: the logger restarted?");
	CHECK_CONTAINS(w.text, "other.csv:22: a second header with other columns than line 1's");
	CHECK(!strstr(w.text, "found 6")); /* what the glued line was said */
	free(t);

	/* the same columns: one bad line, as before, now said as what it is */
	t = log_text(24, same, 0);
	CHECK_INT(read_log(dir, "same.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	CHECK_INT(s.n, ROWS - 1);
	CHECK_NEAR(s.n ? s.sum / s.n : 0.0, 300.0, 1e-9);
	CHECK_CONTAINS(w.text, "same.csv:22:25: a row cut short, then a header");
	CHECK(!strstr(w.text, "other columns"));
	free(t);

	/* cut within the uuid (its hex letters glued to the header's first
	 * name): the header from "timestamp" on */
	t = log_text(33, other, 1);
	CHECK_INT(read_log(dir, "inuuid.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	CHECK_NEAR(s.n ? s.sum / s.n : 0.0, 300.0, 1e-9);
	CHECK_CONTAINS(w.text, "inuuid.csv:22:34: a row cut short, then a header");
	free(t);

	/* a whole row, then the header: the row kept, read as any other,
	 * the header read as a second header (other columns) */
	t = log_text(WHOLE, other, 1);
	CHECK(strstr(t, ",300.00,40timestamp,index") != NULL); /* the row is all there */
	CHECK_INT(read_log(dir, "whole.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(s.n, ROWS);
	CHECK_NEAR(s.n ? s.sum / s.n : 0.0, 300.0, 1e-9);
	CHECK_CONTAINS(w.text, "whole.csv:22:76: a whole row, then a header glued after it (no newline: the logger "
	                       "restarted?); the row is kept, the header read as a second header");
	CHECK_CONTAINS(w.text, "whole.csv:22: a second header with other columns than line 1's");
	CHECK(!strstr(w.text, "cut short"));
	/* its reading unreadable: a bad line of that cause, the header read */
	char *pw = strstr(t, ",300.00,40timestamp");
	pw[2] = 'x';
	CHECK_INT(read_log(dir, "wholebad.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	CHECK_INT(s.n, ROWS - 1);
	CHECK_NEAR(s.n ? s.sum / s.n : 0.0, 300.0, 1e-9);
	CHECK_CONTAINS(w.text, "wholebad.csv:22:67: unreadable power.draw '3x0.00'");
	CHECK_CONTAINS(w.text, "wholebad.csv:22:76: a whole row, then a header glued after it (no newline: the "
	                       "logger restarted?); the row is a bad line (above)");
	CHECK(!strstr(w.text, "cut short"));
	free(t);

	/* cut after the last comma (the last field empty): cut short */
	t = log_text(WHOLE - 2, other, 1);
	CHECK_INT(read_log(dir, "comma.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	CHECK_CONTAINS(w.text, "comma.csv:22:74: a row cut short, then a header");
	free(t);

	/* a header glued lacking the power column read: refused as a second
	 * header, naming the line */
	t = log_text(24, "timestamp,index,uuid,temperature.gpu", 1);
	CHECK_INT(read_log(dir, "nopower.csv", t, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "nopower.csv:22: a second header has no power column (nvidia-smi restarted without "
	                        "'power.draw'?), so the lines after it hold no reading: delete line 22 on");
	free(t);

	/* by the CLI: read, 1 malformed line */
	t = log_text(24, other, 1);
	char *p = test_fixture(dir, "cli.csv", t);
	const char *argv[] = { "wattcast", "metrics", p, NULL };
	run_result r;
	run_wattcast(argv, NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "(1 malformed, skipped)");
	CHECK_CONTAINS(r.err, "cli.csv:22:25: a row cut short, then a header");
	run_result_free(&r);
	free(p);
	free(t);
	free(dir);
	return check_report("test_nvsmi_glued_header");
}

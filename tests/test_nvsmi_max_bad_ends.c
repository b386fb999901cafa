/*
 * Bad lines allowed by --max-bad at a log's start or end (data/nvsmi_gaps.c,
 * wc__nv_ends_finish; docs/formats/telemetry.md, "Time gaps"): the trace
 * spans only the samples kept, so a log whose loaded part was all bad lines
 * read as its idle start without a gap (a 75-s log at 0.25 s: its idle
 * first 12 s, 80 W, for a run at 250 W). The stretch lost at each end is
 * judged as a gap is and counted with the gaps against half the span: over
 * it, refused naming the span kept; bad lines spread through the log, or
 * an end lost under half the span, read as before.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double sum;
	int n;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	(void)n_gpus;
	s->sum += w[0];
	s->n++;
	return 0;
}

/* 300 rows of 1 GPU every 0.25 s: 80 W for the first 48 (12 s), 250 W
 * after; a row is bad ('abc') when bad(i). */
static char *
log_text(int (*bad)(int))
{
	size_t cap = 300 * 64 + 64, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 300; i++)
		used += (size_t)snprintf(s + used, cap - used, "%.3f,0,%s\n", 1784415445.0 + i * 0.25,
		                         bad(i) ? "abc" : i < 48 ? "80.00" : "250.00");
	return s;
}

static int loaded_bad(int i) { return i >= 48; }
static int tail_fifth_bad(int i) { return i >= 240; }
static int third_bad(int i) { return i % 3 == 1; }
static int head_bad(int i) { return i < 200; }

static int
read_log(const char *dir, const char *name, int (*bad)(int), double max_bad, seen *s, wc_nvsmi_info *info,
         wc_error *err)
{
	char *text = log_text(bad), *p = test_fixture(dir, name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = max_bad;
	opt.max_bad_option = "--max-bad";
	memset(s, 0, sizeof *s);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	free(text);
	return rc;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_max_bad_ends");
	wc_nvsmi_info info;
	wc_error err;
	seen s;

	/* the loaded 63 s all bad, allowed: it read 48 samples at 80 W */
	CHECK_INT(read_log(dir, "loaded.csv", loaded_bad, 0.9, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "loaded.csv: the samples kept span 11.8 s (lines 2-49) of the log's 74.8 s: 0.0 s "
	                        "before them and 63.0 s after are bad lines only, 0.0 s gaps; over half the trace "
	                        "would not be measured: fix the bad lines, not more --max-bad");
	CHECK(strlen(err.msg) <= 255);
	/* the start lost: the same */
	CHECK_INT(read_log(dir, "head.csv", head_bad, 0.9, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "head.csv: the samples kept span 24.8 s (lines 202-301) of the log's 74.8 s: 50.0 s "
	                        "before them and 0.0 s after");

	/* the last fifth lost: under half the span, read as before */
	CHECK_INT(read_log(dir, "fifth.csv", tail_fifth_bad, 0.3, &s, &info, &err), WC_OK);
	CHECK_INT(s.n, 240);
	/* every third line bad: the ends kept, read as before */
	CHECK_INT(read_log(dir, "third.csv", third_bad, 0.4, &s, &info, &err), WC_OK);
	CHECK_INT(s.n, 199); /* as before this rule */
	CHECK_INT((int)info.bad_lines, 100);

	free(dir);
	return check_report("test_nvsmi_max_bad_ends");
}

/*
 * One engine.csv row stamped out of line with the rows around it -- an
 * hour ahead, or in milliseconds -- is the one bad line, named
 * file:line:column, and the rows after it are read (docs/formats/
 * telemetry.md, "engine.csv"). Before, every later row was "not after
 * the previous row's" (the outlier's), so a real 26-line PowerTrace-Sim
 * log with one row an hour ahead had 21 bad lines and was refused,
 * blaming line 7. So is a run of up to three such rows, each named: with
 * two rows an hour ahead, the real A100 run's log had every later row bad
 * (193 of 293) and was refused. A clock that steps forward keeps every
 * row (a gap), and one that steps back past more than three rows leaves
 * the later rows bad, as before. A longer run (up to 64 rows) ahead with
 * as many rows before it is a glitch too: four rows ahead in the real
 * A100 run left 190 later rows bad, the good line 104 named first.
 * At the log's end no row comes after to vote: a run before the last row
 * is judged by the log's spacing, and a final run after a hole over 3600 s
 * is the glitch; before, the real last row was the bad line (the run
 * kept, a 3600-s hole warned before it) or the run kept as a hole. Each
 * row of such a run names its own distance (every row said the first
 * one's), and the first rows an hour behind are judged by the same rule
 * (they were kept, a hole warned after them). A run of up to three rows
 * is one glitch, counted once toward the default 1 %: three of 250 lines
 * were refused. A run behind the rows around it is one by the same rule
 * as a run ahead: three rows an hour behind were each "not after the
 * previous row's", counted, and refused.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* `rows` rows 0.25 s apart from 1784415085.5 with a running count and a
 * token counter (10 per row); row `odd` (0-based; -1 none) stamped
 * `odd_t` instead, and rows `first` to `first + count - 1` stamped
 * `shift` s out of line (a clock step when they run to the end). */
static char *
engine_csv(const char *name, int rows, int odd, const char *odd_t, int first, int count, double shift)
{
	char text[16384];
	size_t len = (size_t)snprintf(text, sizeof text, "num_requests_running,timestamp,generation_tokens_total\n");
	for (int i = 0; i < rows; i++) {
		double t = 1784415085.5 + 0.25 * i + (i >= first && i < first + count ? shift : 0.0);
		if (i == odd)
			len += (size_t)snprintf(text + len, sizeof text - len, "1, %s,%d\n", odd_t, 10 * i);
		else
			len += (size_t)snprintf(text + len, sizeof text - len, "1, %.3f,%d\n", t, 10 * i);
	}
	return test_fixture(dir, name, text);
}

static wc_error last_err;

/* Read with a share of bad lines `max_bad` (WC_TELEMETRY_MAX_BAD, the
 * default 1 %, when negative). */
static wc_engine_log *
read_share(const char *p, test_warnings *w, int want_rc, double max_bad)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	memset(w, 0, sizeof *w);
	memset(&last_err, 0, sizeof last_err);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	if (max_bad >= 0)
		opt.max_bad_fraction = max_bad;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &last_err), want_rc);
	return e;
}

static wc_engine_log *
read_log(const char *p, test_warnings *w, int want_rc)
{
	return read_share(p, w, want_rc, 0.5);
}

/* The log's rows are every row but the `count` from `skip` (0-based),
 * in order, each with its own counter value. */
static void
check_run(const wc_engine_log *e, int rows, int skip, int count)
{
	CHECK(e != NULL);
	if (!e)
		return;
	CHECK_INT(e->n, (size_t)(rows - count));
	CHECK_INT(e->bad_lines, (size_t)count);
	for (size_t k = 0, i = 0; k < e->n; k++, i++) {
		if ((int)i == skip)
			i += (size_t)count;
		CHECK_NEAR(e->t[k], 1784415085.5 + 0.25 * (double)i, 1e-6);
		CHECK_NEAR(e->col[WC_ENG_GENERATION_TOKENS][k], 10.0 * (double)i, 0);
	}
}

/* The same, one row `skip` (-1 none). */
static void
check_rows(const wc_engine_log *e, int rows, int skip)
{
	check_run(e, rows, skip, skip >= 0);
}

int
main(void)
{
	dir = test_tmpdir("engine_clock_glitch");
	test_warnings w;
	char want[1200];

	/* an hour ahead on line 6 (row 4): that line is bad, at the time
	 * cell past its blank (column 4); the 15 rows after it are read */
	char *p = engine_csv("hour.csv", 20, 4, "1784418686.500", -1, 0, 0);
	wc_engine_log *e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 4);
	snprintf(want, sizeof want, "%s:6:4: timestamp 1784418686.500 is out of line with the rows around it "
	         "(1784415086.250 on line 5, 1784415086.750 on line 7); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "not after") == NULL);
	wc_engine_free(e);
	free(p);

	/* in milliseconds: the same, saying the unit */
	p = engine_csv("ms.csv", 20, 4, "1784415086500.0", -1, 0, 0);
	e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 4);
	snprintf(want, sizeof want, "%s:6:4: timestamp 1784415086500.000 (another unit than seconds?) is out of "
	         "line with the rows around it", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* the first data row an hour ahead: it alone is bad */
	p = engine_csv("first.csv", 20, 0, "1784418685.500", -1, 0, 0);
	e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 0);
	snprintf(want, sizeof want, "%s:2:4: timestamp 1784418685.500 is out of line with the rows after it", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* a row an hour behind was, and is, the one bad line, out of line
	 * with the rows around it as one ahead is (it was "not after the
	 * previous row's") */
	p = engine_csv("behind.csv", 20, 4, "1784411486.500", -1, 0, 0);
	e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 4);
	snprintf(want, sizeof want, "%s:6:4: timestamp 1784411486.500 is out of line with the rows around it "
	         "(1784415086.250 on line 5, 1784415086.750 on line 7); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "not after") == NULL);
	wc_engine_free(e);
	free(p);

	/* a run behind is the mirror of a run ahead, by the one rule: three
	 * rows an hour or one second (four rows) out of line either way are
	 * one glitch, each row named with the rows around the run. Behind,
	 * each row was "not after the previous row's" and counted: three of
	 * 293 lines of the real A100 run were refused */
	static const double shift[] = { 3600.0, -3600.0, 1.0, -1.0 };
	for (int k = 0; k < 4; k++) {
		p = engine_csv("both.csv", 20, -1, "", 4, 3, shift[k]);
		e = read_log(p, &w, WC_OK);
		check_run(e, 20, 4, 3);
		snprintf(want, sizeof want, "%s:8:4: timestamp %.3f is out of line with the rows around it "
		         "(1784415086.250 on line 5, %.3f on line 9); row skipped", p,
		         1784415085.5 + 1.5 + shift[k], 1784415085.5 + 1.75);
		CHECK_CONTAINS(w.text, want);
		CHECK(strstr(w.text, "not after") == NULL);
		wc_engine_free(e);
		free(p);
	}
	/* a clock that steps back half a second (two rows) and runs on:
	 * its rows catch up with the row before the step, not out of line
	 * with the rows before it -- each a bad line, as before */
	p = engine_csv("stepback.csv", 20, -1, "", 4, 16, -0.5);
	e = read_log(p, &w, WC_OK);
	CHECK(e && e->n == 18 && e->bad_lines == 2);
	CHECK_CONTAINS(w.text, "not after the previous row's");
	CHECK(strstr(w.text, "out of line") == NULL);
	wc_engine_free(e);
	free(p);

	/* a repeated row (not after the last, after the one before) while
	 * the next row is after both: the repeat is the bad line */
	p = engine_csv("repeat.csv", 20, 4, "1784415086.250", -1, 0, 0);
	e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 4);
	snprintf(want, sizeof want, "%s:6:4: timestamp 1784415086.250 is not after the previous row's", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* a clock that steps an hour forward for good: every row read, the
	 * hour a gap (as before) */
	p = engine_csv("forward.csv", 40, -1, "", 10, 30, 3600.0);
	e = read_log(p, &w, WC_OK);
	CHECK(e && e->n == 40 && e->bad_lines == 0);
	if (e)
		CHECK_NEAR(e->t[10] - e->t[9], 3600.25, 1e-6);
	CHECK_CONTAINS(w.text, "no row for 3600.250 s before this line");
	wc_engine_free(e);
	free(p);

	/* one that steps back an hour for good: the rows after it stay bad,
	 * the first of them named at its cell (as before, with the column) */
	p = engine_csv("back.csv", 40, -1, "", 10, 30, -3600.0);
	e = read_log(p, &w, WC_EPARSE);
	snprintf(want, sizeof want, "%s:12:4: timestamp 1784411488.000 is not after the previous row's", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "out of line") == NULL);
	wc_engine_free(e);
	free(p);

	/* two rows an hour ahead (lines 100-101 of the real A100 run's log,
	 * here lines 6-7): both bad, each at its cell, the rows after read */
	p = engine_csv("two.csv", 20, -1, "", 4, 2, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 4, 2);
	snprintf(want, sizeof want, "%s:6:4: timestamp 1784418686.500 is out of line with the rows around it "
	         "(1784415086.250 on line 5, 1784415087.000 on line 8); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:7:4: timestamp 1784418686.750 is out of line with the rows around it "
	         "(1784415086.250 on line 5, 1784415087.000 on line 8); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "not after") == NULL);
	wc_engine_free(e);
	free(p);

	/* three, in milliseconds: the bound, all three bad */
	p = engine_csv("three.csv", 20, -1, "", 4, 3, 1784415085.5 * 999.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 4, 3);
	snprintf(want, sizeof want, "%s:8:4: timestamp %.3f (another unit than seconds?) is out of line with the "
	         "rows around it (1784415086.250 on line 5, 1784415087.250 on line 9)", p,
	         1784415085.5 + 1.5 + 1784415085.5 * 999.0);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* the first two rows an hour ahead: both bad, the rest read */
	p = engine_csv("first2.csv", 20, -1, "", 0, 2, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 0, 2);
	snprintf(want, sizeof want, "%s:3:4: timestamp 1784418685.750 is out of line with the rows after it "
	         "(1784415086.000 on line 4); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* four rows ahead after four in line: the run jumps away and back,
	 * outvoted by the rows around it -- its rows bad, the rest read
	 * (the rows after it were bad, 12 of 20 lines, refused, naming the
	 * good line 10 first) */
	p = engine_csv("four.csv", 20, -1, "", 4, 4, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 4, 4);
	snprintf(want, sizeof want, "%s:9:4: timestamp 1784418687.250 is out of line with the rows around it "
	         "(1784415086.250 on line 5, 1784415087.500 on line 10); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "not after") == NULL);
	wc_engine_free(e);
	free(p);
	/* five ahead after four: more rows in the run than before it, so
	 * not outvoted -- the rows after it bad, as before */
	p = engine_csv("five.csv", 20, -1, "", 4, 5, 3600.0);
	e = read_log(p, &w, WC_EPARSE);
	snprintf(want, sizeof want, "%s:11:4: timestamp 1784415087.750 is not after the previous row's "
	         "(1784418687.500, line 10)", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "out of line") == NULL);
	wc_engine_free(e);
	free(p);

	/* the row before the last an hour ahead (line 293 of the real A100
	 * run's 294, here line 20 of 21): it is bad, the last row kept */
	p = engine_csv("end1.csv", 20, -1, "", 18, 1, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 18, 1);
	snprintf(want, sizeof want, "%s:20:4: timestamp 1784418690.000 is out of line with the rows around it "
	         "(1784415089.750 on line 19, 1784415090.250 on line 21); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "not after") == NULL);
	CHECK(strstr(w.text, "no row for") == NULL);
	wc_engine_free(e);
	free(p);

	/* two before the last: both bad */
	p = engine_csv("end2.csv", 20, -1, "", 17, 2, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 17, 2);
	CHECK(strstr(w.text, "not after") == NULL);
	CHECK(strstr(w.text, "no row for") == NULL);
	wc_engine_free(e);
	free(p);

	/* the last three, and the last one, an hour ahead: no row after, a
	 * hole over 3600 s no log bridges: the run is bad, no hole warned */
	p = engine_csv("last3.csv", 20, -1, "", 17, 3, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 17, 3);
	snprintf(want, sizeof want, "%s:21:4: timestamp 1784418690.250 is 3600.750 s after line 18's at the log's "
	         "end, no row after it (over 3600 s, never bridged: a clock glitch); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "no row for") == NULL);
	wc_engine_free(e);
	free(p);
	/* each row of a final run names its own distance from the last row
	 * kept: line 21 is 3600.500 s after line 19's (it said 3600.250, the
	 * run's first row's) */
	p = engine_csv("last2.csv", 20, -1, "", 18, 2, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 18, 2);
	snprintf(want, sizeof want, "%s:20:4: timestamp 1784418690.000 is 3600.250 s after line 19's at the log's "
	         "end", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:21:4: timestamp 1784418690.250 is 3600.500 s after line 19's at the log's "
	         "end", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);
	p = engine_csv("last1.csv", 20, -1, "", 19, 1, 3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 19, 1);
	wc_engine_free(e);
	free(p);

	/* a real final hole (the engine stopped, one last scrape 30 s later)
	 * is kept and warned, as before */
	p = engine_csv("stop.csv", 20, -1, "", 19, 1, 30.0);
	e = read_log(p, &w, WC_OK);
	CHECK(e && e->n == 20 && e->bad_lines == 0);
	CHECK_CONTAINS(w.text, "no row for 30.250 s before this line");
	wc_engine_free(e);
	free(p);

	/* a last row half a second back: the run before it keeps the log's
	 * spacing, so the last row is the bad line, as before */
	p = engine_csv("endback.csv", 20, -1, "", 19, 1, -0.5);
	e = read_log(p, &w, WC_OK);
	check_rows(e, 20, 19);
	snprintf(want, sizeof want, "%s:21:4: timestamp 1784415089.750 is not after the previous row's", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	/* the first two rows an hour behind: the mirror of a final run ahead,
	 * by the same rule -- both bad, each naming its own distance from the
	 * first row kept; they were kept, a 3600-s hole warned after them */
	p = engine_csv("start2back.csv", 20, -1, "", 0, 2, -3600.0);
	e = read_log(p, &w, WC_OK);
	check_run(e, 20, 0, 2);
	snprintf(want, sizeof want, "%s:2:4: timestamp 1784411485.500 is 3600.500 s before line 4's at the log's "
	         "start, no row before it (over 3600 s, never bridged: a clock glitch); row skipped", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:3:4: timestamp 1784411485.750 is 3600.250 s before line 4's at the log's "
	         "start", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "no row for") == NULL);
	wc_engine_free(e);
	free(p);
	/* four behind: past the bound, kept with the hole, as before */
	p = engine_csv("start4back.csv", 20, -1, "", 0, 4, -3600.0);
	e = read_log(p, &w, WC_OK);
	CHECK(e && e->n == 20 && e->bad_lines == 0);
	CHECK_CONTAINS(w.text, "no row for 3600.250 s before this line");
	wc_engine_free(e);
	free(p);
	/* a first row 30 s before the rest (one early scrape) is kept */
	p = engine_csv("early.csv", 20, -1, "", 0, 1, -30.0);
	e = read_log(p, &w, WC_OK);
	CHECK(e && e->n == 20 && e->bad_lines == 0);
	wc_engine_free(e);
	free(p);

	/* a run of three, the bound, is one glitch: counted once toward the
	 * default 1 % of 250 lines (it was 3 of 250, over it: refused), at
	 * the middle, the start and the end */
	static const int at[] = { 125, 0, 247 };
	for (int k = 0; k < 3; k++) {
		p = engine_csv("share3.csv", 250, -1, "", at[k], 3, 3600.0);
		e = read_share(p, &w, WC_OK, -1);
		check_run(e, 250, at[k], 3);
		if (!e)
			fprintf(stderr, "run at %d: %s\n", at[k], last_err.msg);
		wc_engine_free(e);
		free(p);
	}
	/* longer runs mid-log, up to WC__ENGINE_CLOCK_RUN_ROWS, are one
	 * glitch too (four were refused, 123 of 250 lines bad); one row
	 * past that bound is not a run, as before */
	static const int len[] = { 4, 20, 64 };
	for (int k = 0; k < 3; k++) {
		p = engine_csv("share4.csv", 250, -1, "", 100, len[k], 3600.0);
		e = read_share(p, &w, WC_OK, -1);
		check_run(e, 250, 100, len[k]);
		wc_engine_free(e);
		free(p);
	}
	p = engine_csv("share65.csv", 250, -1, "", 100, 65, 3600.0);
	e = read_share(p, &w, WC_EPARSE, -1);
	CHECK(e == NULL);
	free(p);
	/* the same runs behind, by the same bound (three behind were
	 * refused, 3 of 250 lines bad) */
	static const int back_len[] = { 3, 4, 20, 64 };
	for (int k = 0; k < 4; k++) {
		p = engine_csv("share_back.csv", 250, -1, "", 100, back_len[k], -3600.0);
		e = read_share(p, &w, WC_OK, -1);
		check_run(e, 250, 100, back_len[k]);
		if (!e)
			fprintf(stderr, "%d behind: %s\n", back_len[k], last_err.msg);
		wc_engine_free(e);
		free(p);
	}
	p = engine_csv("share_back65.csv", 250, -1, "", 100, 65, -3600.0);
	e = read_share(p, &w, WC_EPARSE, -1);
	CHECK(e == NULL);
	CHECK_CONTAINS(last_err.msg, "65 of 250 data lines are malformed (more than 1 %)");
	free(p);
	/* with --max-bad 0 one glitch is refused, its rows all said */
	p = engine_csv("share0.csv", 20, -1, "", 4, 3, 3600.0);
	e = read_share(p, &w, WC_EPARSE, 0);
	CHECK_CONTAINS(last_err.msg, "3 of 20 data lines are malformed, 1 counting a clock glitch's rows once "
	               "(more than 0 %)");
	wc_engine_free(e);
	free(p);

	free(dir);
	return check_report("test_engine_clock_glitch");
}

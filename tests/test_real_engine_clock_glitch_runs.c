/*
 * The real A100 4 req/s run of ../shared/data/real/powertrace-sim (label
 * realdata) with engine.csv's timestamps shifted on a few lines, read by
 * `wattcast ingest` (docs/formats/telemetry.md, "engine.csv" and "Bad
 * lines"). A run of three rows an hour ahead -- the most the glitch rule
 * takes -- at lines 100-102, 2-4 or 292-294 is one glitch, counted once
 * toward the default 1 %: it was "3 of 293 data lines are malformed (more
 * than 1 %)", the run refused. Four rows at 100-103 are one too now
 * (191 of 293 lines were bad, the run refused naming the good line 104,
 * and its --max-bad advice gave 30.18 tok/s, not 570.29). A glitch mid-log
 * or at the start keeps the counters' tokens (each row counted toward
 * the share put the level's stated totals in their place, 331.78 input
 * tokens a request for 335.575). Each row of a final
 * run names its own distance from the last row kept (line 294 of 293-294
 * said 3600.255 s after line 292's, the first row's; it is 3600.510). The
 * first two rows an hour behind are the bad lines, as two an hour ahead
 * are: they were kept, a 3600-s hole warned at line 4. Three or four rows
 * an hour behind mid-log are one glitch, as ahead: each was "not after
 * the previous row's", counted, and three were refused.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const files[] = { "power.csv", "engine.csv", "manifest.json" };
static char *text[3];

/* engine.csv with the time cell of file lines `from` to `to` (from 1)
 * moved by `shift` s, written as glitch.py writes it ("%.7f"); NaN:
 * "garbage" in its place. */
static char *
shifted(int from, int to, double shift)
{
	size_t cap = strlen(text[1]) + 4096, len = 0;
	char *out = malloc(cap);
	const char *s = text[1];
	for (int line = 1; *s; line++) {
		const char *nl = strchr(s, '\n'), *end = nl ? nl + 1 : s + strlen(s);
		if (line >= from && line <= to) {
			char *rest = NULL;
			double t = strtod(s, &rest);
			if (isnan(shift))
				len += (size_t)snprintf(out + len, cap - len, "garbage%.*s", (int)(end - rest), rest);
			else
				len += (size_t)snprintf(out + len, cap - len, "%.7f%.*s", t + shift, (int)(end - rest), rest);
		} else {
			len += (size_t)snprintf(out + len, cap - len, "%.*s", (int)(end - s), s);
		}
		s = end;
	}
	return out;
}

/* Ingest a copy of the run in root/name with engine.csv's lines `from`
 * to `to` shifted by `shift` s, `max_bad` the share of bad lines read:
 * its rc, the result in `res`, warnings in `w`, the error in `err`. */
static int
ingest_share(const char *root, const char *name, int from, int to, double shift, double max_bad,
             wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	char *run = path_join(root, name), *engine = shifted(from, to, shift);
	mkdir(run, 0755);
	for (int k = 0; k < 3; k++) {
		char *p = path_join(run, files[k]);
		CHECK_INT(write_text(p, k == 1 ? engine : text[k]), 0);
		free(p);
	}
	memset(err, 0, sizeof *err);
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	o.max_bad_fraction = max_bad;
	int rc = test_ingest_with(run, &o, res, w, err);
	free(engine);
	free(run);
	return rc;
}

/* ingest_share with the default share (1 %). */
static int
ingest(const char *root, const char *name, int from, int to, double shift, wc_ingest_result *res,
       test_warnings *w, wc_error *err)
{
	return ingest_share(root, name, from, to, shift, WC_TELEMETRY_MAX_BAD, res, w, err);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_engine_clock_glitch_runs");
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_engine_clock_glitch_runs");
	test_warnings w;
	wc_error err;

	/* the run untouched, whose counters a glitch mid-log or at the
	 * start keeps */
	wc_ingest_result orig = { NULL, 0, 0 };
	CHECK_INT(ingest(root, "untouched", 0, -1, 0.0, &orig, &w, &err), WC_OK);
	CHECK_INT(orig.n_rows, 1);
	if (orig.n_rows != 1)
		return check_report("test_real_engine_clock_glitch_runs");
	const wc_ingest_row *o = &orig.rows[0];

	/* three rows an hour ahead, in the middle, at the start and at the
	 * end: one glitch each, read with the default share. One glitch
	 * loses none of the counters' work: the middle and the start keep
	 * the untouched run's tokens (the level's stated totals stood in,
	 * 331.78 input tokens a request for 335.575, each row counted
	 * toward the share; the end cuts the level, as before) */
	static const int first[] = { 100, 2, 292 };
	for (int k = 0; k < 3; k++) {
		wc_ingest_result res = { NULL, 0, 0 };
		char name[32];
		snprintf(name, sizeof name, "ahead3_%d", first[k]);
		int rc = ingest(root, name, first[k], first[k] + 2, 3600.0, &res, &w, &err);
		CHECK_INT(rc, WC_OK);
		if (rc != WC_OK)
			fprintf(stderr, "lines %d-%d: %s\n", first[k], first[k] + 2, err.msg);
		CHECK_INT(res.n_rows, 1);
		if (res.n_rows == 1) {
			CHECK_INT(res.rows[0].bad_lines, 3);
			CHECK_NEAR(res.rows[0].run.mean_power_w, 251.35, 0.1);
			if (k < 2) {
				CHECK_NEAR(res.rows[0].run.input_tokens, o->run.input_tokens, 1e-9);
				CHECK_NEAR(res.rows[0].run.throughput_tok_s, o->run.throughput_tok_s, 1e-9);
			}
		}
		if (k == 2) {
			CHECK_CONTAINS(w.text, "engine.csv:293:1: timestamp 1784419120.181 is 3600.510 s after line 291's");
			CHECK_CONTAINS(w.text, "engine.csv:294:1: timestamp 1784419120.435 is 3600.765 s after line 291's");
		}
		wc_ingest_result_clear(&res);
	}

	/* three and four rows an hour behind mid-log, the mirror of ahead:
	 * one glitch, read with the default share, the untouched run's row.
	 * Each was "not after the previous row's", counted: "3 of 293 data
	 * lines are malformed (more than 1 %)", refused */
	for (int len = 3; len <= 4; len++) {
		wc_ingest_result back = { NULL, 0, 0 };
		char name[32];
		snprintf(name, sizeof name, "behind%d_100", len);
		int rc = ingest(root, name, 100, 99 + len, -3600.0, &back, &w, &err);
		CHECK_INT(rc, WC_OK);
		if (rc != WC_OK)
			fprintf(stderr, "%d behind: %s\n", len, err.msg);
		CHECK_INT(back.n_rows, 1);
		if (back.n_rows == 1) {
			CHECK_INT(back.rows[0].bad_lines, (size_t)len);
			CHECK_NEAR(back.rows[0].run.input_tokens, o->run.input_tokens, 1e-9);
			CHECK_NEAR(back.rows[0].run.throughput_tok_s, o->run.throughput_tok_s, 1e-9);
			CHECK_NEAR(back.rows[0].run.mean_power_w, o->run.mean_power_w, 0.01);
		}
		wc_ingest_result_clear(&back);
	}
	CHECK_CONTAINS(w.text, "engine.csv:100:1: timestamp 1784411870.637 is out of line with the rows around it "
	               "(1784415470.382 on line 99, 1784415471.657 on line 104); row skipped");

	/* four (lines 100-103), out of line with both neighbours (lines 99
	 * and 104 agree within 1.3 s), 98 rows before them: the run's rows
	 * bad, the rest read. They were past the bound of three: the 191
	 * rows after them bad, refused naming the good line 104, and with
	 * --max-bad 0.9 30.18 tok/s and 8.33 J per token (the run's 570.29
	 * and 0.441); one glitch, they keep the counters' work (the level's
	 * stated 42672 output tokens stood over them: 570.08 tok/s) */
	wc_ingest_result four = { NULL, 0, 0 };
	CHECK_INT(ingest(root, "ahead4", 100, 103, 3600.0, &four, &w, &err), WC_OK);
	CHECK_INT(four.n_rows, 1);
	if (four.n_rows == 1) {
		CHECK_INT(four.rows[0].bad_lines, 4);
		CHECK_NEAR(four.rows[0].run.throughput_tok_s, o->run.throughput_tok_s, 1e-9);
		CHECK_NEAR(four.rows[0].run.input_tokens, 335.575, 1e-9);
		CHECK_NEAR(four.rows[0].run.energy_per_token_j, 0.441, 0.001);
	}
	CHECK_CONTAINS(w.text, "engine.csv:103:1: timestamp 1784419071.402 is out of line with the rows around it "
	               "(1784415470.382 on line 99, 1784415471.657 on line 104); row skipped");
	CHECK(strstr(w.text, "not after") == NULL);
	wc_ingest_result_clear(&four);

	/* the last two ahead: each its own distance from line 292 */
	wc_ingest_result last = { NULL, 0, 0 };
	CHECK_INT(ingest(root, "ahead_last2", 293, 294, 3600.0, &last, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "engine.csv:293:1: timestamp 1784419120.181 is 3600.255 s after line 292's");
	CHECK_CONTAINS(w.text, "engine.csv:294:1: timestamp 1784419120.435 is 3600.510 s after line 292's");
	wc_ingest_result_clear(&last);

	/* the first two behind, as the first two ahead: both bad lines, the
	 * same row, no hole */
	wc_ingest_result ahead = { NULL, 0, 0 }, behind = { NULL, 0, 0 };
	CHECK_INT(ingest(root, "ahead_first2", 2, 3, 3600.0, &ahead, &w, &err), WC_OK);
	CHECK_INT(ingest(root, "behind_first2", 2, 3, -3600.0, &behind, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "engine.csv:2:1: timestamp 1784411845.639 is 3600.511 s before line 4's at the "
	               "log's start, no row before it (over 3600 s, never bridged: a clock glitch); row skipped");
	CHECK_CONTAINS(w.text, "engine.csv:3:1: timestamp 1784411845.895 is 3600.255 s before line 4's");
	CHECK(strstr(w.text, "no row for") == NULL);
	if (ahead.n_rows == 1 && behind.n_rows == 1) {
		const wc_ingest_row *a = &ahead.rows[0], *b = &behind.rows[0];
		CHECK_INT(b->bad_lines, 2);
		CHECK_NEAR(b->run.running, a->run.running, 0);
		CHECK_NEAR(b->run.mean_power_w, a->run.mean_power_w, 0);
		CHECK_NEAR(b->run.throughput_tok_s, a->run.throughput_tok_s, 0);
		CHECK_NEAR(b->start_epoch, a->start_epoch, 0);
	} else {
		CHECK(0);
	}
	wc_ingest_result_clear(&ahead);
	wc_ingest_result_clear(&behind);

	/* three garbage time cells mid-log (3 of 293, over 1 %), read under
	 * --max-bad 0.05: bad lines between kept rows lose the cumulative
	 * counters no work, which stand. The level's stated totals stood in
	 * with no word (within 5 %): 331.78 input tokens a request and
	 * 570.08 tok/s for 335.575 and 570.29 */
	wc_ingest_result garbage = { NULL, 0, 0 };
	CHECK_INT(ingest_share(root, "garbage3_100", 100, 102, NAN, 0.05, &garbage, &w, &err), WC_OK);
	CHECK_INT(garbage.n_rows, 1);
	if (garbage.n_rows == 1) {
		CHECK_INT(garbage.rows[0].bad_lines, 3);
		CHECK_NEAR(garbage.rows[0].run.input_tokens, 335.575, 1e-9);
		CHECK_NEAR(garbage.rows[0].run.throughput_tok_s, o->run.throughput_tok_s, 1e-9);
	}
	CHECK(strstr(w.text, "stated") == NULL);
	wc_ingest_result_clear(&garbage);

	wc_ingest_result_clear(&orig);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(src);
	free(root);
	return check_report("test_real_engine_clock_glitch_runs");
}

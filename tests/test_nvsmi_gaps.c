/*
 * Gaps in the sampling of nvidia-smi power logs (data/nvsmi_gaps.c,
 * docs/formats/telemetry.md "Time gaps"): an interval over 10 sampling
 * intervals (the median) and over 1 s is warned with its line and length
 * and counted (also by `metrics --json`); gaps over half the log's span
 * refuse it (a 30-minute outage in a 75-s log gave 29 times the energy,
 * silently); a short pause at a fast cadence, under 1 s, is no gap; a gap
 * among the first intervals is judged once the cadence is known; a
 * logger that slows down for good leaves no gap. A part of the log is
 * judged like the whole: an `ingest --segment` row more than half in gaps
 * is not written (it was written as measured: the p5/p50/p95 of a
 * straight line).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `n` samples of 1 GPU every `dt` s, `pause` s more before sample `at`. */
static char *
log_text(int n, double dt, int at, double pause)
{
	size_t cap = (size_t)n * 64 + 64, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < n; i++) {
		double t = 1784415445.0 + i * dt + (i >= at ? pause : 0.0);
		used += (size_t)snprintf(s + used, cap - used, "%.3f,0,%d.00\n", t, 200 + i % 7);
	}
	return s;
}

static int
read_log(const char *dir, const char *name, char *text, wc_nvsmi_info *info, test_warnings *w,
         wc_error *err)
{
	char *p = test_fixture(dir, name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(w, 0, sizeof *w);
	int rc = wc_nvsmi_read(p, &opt, NULL, NULL, info, err);
	free(p);
	free(text);
	return rc;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_gaps");
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;

	/* 10 s lost from a 75-s log at 250 ms: warned, counted */
	CHECK_INT(read_log(dir, "gap10.csv", log_text(300, 0.25, 150, 10.0), &info, &w, &err), WC_OK);
	CHECK_INT(info.gaps, 1);
	CHECK_NEAR(info.gap_s, 10.25, 1e-6);
	CHECK_NEAR(info.longest_gap_s, 10.25, 1e-6);
	CHECK_CONTAINS(w.text, "gap10.csv:152: no sample for 10.2 s before this line (41 sampling intervals of "
	                       "0.25 s)");

	/* 30 minutes lost: refused */
	CHECK_INT(read_log(dir, "gap1800.csv", log_text(300, 0.25, 150, 1800.0), &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "gap1800.csv: 1800 s of the log's 1875 s lie in 1 gap without samples (the "
	                        "longest 1800.2 s before line 152): more than half the trace would be interpolated; "
	                        "keep one side of it: delete the data lines before line 152, or from it on");
	/* one power.csv in a run folder: a remedy in place, not a split */
	CHECK(strstr(err.msg, "split") == NULL);
	CHECK(strlen(err.msg) <= 255);

	/* the logger slowed from 0.25 s to 5 s (nvidia-smi restarted with
	 * another -lms): no sample is missing, so no gap (the slower
	 * intervals were gaps, and the log refused as half interpolated) */
	char *slowed = log_text(260, 0.25, 1000, 0.0);
	size_t used = strlen(slowed);
	slowed = realloc(slowed, used + 200 * 64);
	for (int i = 1; slowed && i <= 200; i++)
		used += (size_t)snprintf(slowed + used, 64, "%.3f,0,%d.00\n", 1784415445.0 + 259 * 0.25 + i * 5.0, 210 + i % 5);
	CHECK_INT(read_log(dir, "slowed.csv", slowed, &info, &w, &err), WC_OK);
	CHECK_INT(info.gaps, 0);
	CHECK_INT(w.count, 0);

	/* 0.9 s at 50 ms (18 intervals, under 1 s): no gap; no pause at all: none */
	CHECK_INT(read_log(dir, "short.csv", log_text(300, 0.05, 100, 0.85), &info, &w, &err), WC_OK);
	CHECK_INT(info.gaps, 0);
	CHECK_INT(w.count, 0);

	/* among the first intervals: judged once the cadence is known */
	CHECK_INT(read_log(dir, "early.csv", log_text(300, 0.1, 3, 5.0), &info, &w, &err), WC_OK);
	CHECK_INT(info.gaps, 1);
	CHECK_CONTAINS(w.text, "early.csv:5: no sample for 5.1 s");

	/* and in a log of 30 samples, judged at its end */
	CHECK_INT(read_log(dir, "few.csv", log_text(30, 0.1, 5, 1.2), &info, &w, &err), WC_OK);
	CHECK_INT(info.gaps, 1);

	/* a pause of over an hour (1 h 10 s lost at line 152): every later
	 * sample is bad against the one before it, so the refusal says to
	 * keep one side of it (a run folder's one power.csv cannot be split),
	 * not to allow more bad lines (--max-bad), which would drop the rest
	 * of the log */
	{
		char *ptext = log_text(300, 0.25, 150, 3610.0), *pp = test_fixture(dir, "pause.csv", ptext);
		wc_telemetry_options popt = WC_TELEMETRY_OPTIONS_INIT;
		popt.max_bad_option = "--max-bad";
		CHECK_INT(wc_nvsmi_read(pp, &popt, NULL, NULL, &info, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "pause.csv:152: the log pauses here for over 3600 s (the later lines are bad "
		                        "against the sample before it): 150 of 300 data lines are malformed (more than 1 "
		                        "%); keep one side: delete the data lines before line 152, or from it on");
		CHECK(strstr(err.msg, "split") == NULL);
		CHECK(strlen(err.msg) <= 255);
		CHECK(strstr(err.msg, "--max-bad") == NULL);
		/* allowed by --max-bad, the rest of the log is still dropped:
		 * said once, with what was lost (it was only the first 20 bad
		 * lines and a count) */
		popt.max_bad_fraction = 0.6;
		popt.warn = test_collect_warning;
		popt.warn_payload = &w;
		memset(&w, 0, sizeof w);
		CHECK_INT(wc_nvsmi_read(pp, &popt, NULL, NULL, &info, &err), WC_OK);
		CHECK_INT(info.samples, 150);
		CHECK_CONTAINS(w.text, "pause.csv:152: the log pauses for 3610 s here (over 3600 s): 150 samples to "
		                       "line 301, 37.2 s of the log, were skipped as bad lines; to keep them, delete the "
		                       "data lines before line 152");
		CHECK(strstr(w.text, "split") == NULL);
		free(ptext);
		free(pp);
	}
	/* a pause before the last 2 samples and 6 bad lines of the log's own
	 * (2 % alone): splitting alone would still leave too many, so fixing
	 * them (or --max-bad) is said as well as the split */
	{
		char *ptext = log_text(300, 0.25, 298, 4000.0);
		for (int k = 0; k < 6; k++) {
			char key[32];
			snprintf(key, sizeof key, "\n%.3f,0,", 1784415445.0 + (50 + 10 * k) * 0.25);
			char *at = strstr(ptext, key);
			CHECK(at != NULL);
			if (at)
				memcpy(at + strlen(key), "abc", 3);
		}
		char *pp = test_fixture(dir, "pausebad.csv", ptext);
		wc_telemetry_options popt = WC_TELEMETRY_OPTIONS_INIT;
		popt.max_bad_option = "--max-bad";
		CHECK_INT(wc_nvsmi_read(pp, &popt, NULL, NULL, &info, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "pausebad.csv: fix the bad lines or allow more with --max-bad FRACTION and "
		                        "keep one side of the pause at line 300 (over 3600 s): 8 of 300 data lines are "
		                        "malformed (more than 1 %), 2 after the pause");
		CHECK(strstr(err.msg, "split") == NULL);
		free(ptext);
		free(pp);
	}
	/* one far-off time is a bad line, not a pause: no such warning */
	{
		char *one = log_text(300, 0.25, 1000, 0.0);
		char *at = strstr(one, "1784415482.250");
		if (at)
			memcpy(at, "1794415482.250", 14);
		CHECK(at != NULL);
		wc_telemetry_options popt = WC_TELEMETRY_OPTIONS_INIT;
		popt.warn = test_collect_warning;
		popt.warn_payload = &w;
		memset(&w, 0, sizeof w);
		char *pp = test_fixture(dir, "onefar.csv", one);
		CHECK_INT(wc_nvsmi_read(pp, &popt, NULL, NULL, &info, &err), WC_OK);
		CHECK(strstr(w.text, "pauses") == NULL);
		free(one);
		free(pp);
	}

	/* metrics --json counts them */
	char *text = log_text(300, 0.25, 150, 10.0), *p = test_fixture(dir, "json.csv", text);
	free(text);
	const char *argv[] = { "wattcast", "metrics", p, "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"gaps\": 1,");
	CHECK_CONTAINS(r.err, "json.csv:152: no sample for 10.2 s");
	run_result_free(&r);
	free(p);

	/* ingest --segment 10 over 20 s lost at 37.25 s of a 95-s log (a
	 * fifth: the log is kept): seg5 (40-50 s) lies wholly in the gap,
	 * seg6 (50-60 s) 7.5 s of its 10; both are left out, named */
	char *run = test_tmpdir("nvsmi_gaps_seg"), *out = path_join(dir, "seg.csv");
	text = log_text(300, 0.25, 150, 20.0);
	free(test_fixture(run, "power.csv", text));
	free(text);
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"gapseg\", "
	                  "\"platform\": \"A100\", \"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n"));
	const char *seg_argv[] = { "wattcast", "ingest", run, "-o", out, "--segment", "10", "--power-only", NULL };
	CHECK_INT(run_wattcast(seg_argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "power.csv: row gapseg#seg5: 10.0 of its 10.0 s lie in gaps without samples");
	CHECK_CONTAINS(r.err, "row gapseg#seg6: 7.5 of its 10.0 s");
	CHECK(!strstr(r.err, "#seg4") && !strstr(r.err, "#seg7"));
	run_result_free(&r);
	char *rows = test_slurp(out);
	CHECK(rows && strstr(rows, "gapseg#seg4,") && strstr(rows, "gapseg#seg7,"));
	CHECK(rows && !strstr(rows, "gapseg#seg5,") && !strstr(rows, "gapseg#seg6,"));
	free(rows);
	free(run);
	free(out);
	free(dir);
	return check_report("test_nvsmi_gaps");
}

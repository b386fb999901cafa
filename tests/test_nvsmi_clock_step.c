/*
 * A clock stepped back under a second (NTP) between two rows of one
 * nvidia-smi sweep (docs/formats/telemetry.md, "Samples"): the time must
 * run back more than a second (WC_NVSMI_JOIN_BACK_S), or past a header
 * repeated, for per-GPU logs joined one after another; a smaller step is
 * a bad line of the sweep rules, as the same step between two sweeps is.
 * The rule of a keyed row within a sweep asked for 40 ms only, so the real
 * TP 2 A100 log with every row from GPU 1's of one sweep on set 0.2 s back
 * was refused as "time runs backward (per-GPU logs joined one after
 * another?)" in every keyed form (index and uuid, index, uuid), where the
 * step at a sweep's start read with one bad line. A step of more than a
 * second, and one past a header repeated, still refuse naming both GPUs.
 * A step of exactly a second is a clock stepped, and said so ("1 s or
 * less"; it was said "under 1 s"). A row stepped back at a sweep's head,
 * its sample skipped as "not later than the one before", spreads no sweep:
 * it was counted one sweep "spread over more than 40 ms" read as one
 * sample, as in the real TP 2 gemma run with line 202 set 0.3 s back.
 */
#include "data/nvsmi.h"
#include "data/telemetry.h"
#include "tests/support/nvsmi_rows.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 50
#define STEP_AT 20 /* the sweep whose GPU 1 row, and every later row, is set back */

/* A two-GPU log of `form`: rows from GPU 1's of sweep STEP_AT on `back`
 * s earlier; a header repeated before that row when `header`. */
static char *
log_text(int form, double back, int header)
{
	size_t cap = 128 + 2 * SWEEPS * 96;
	char *text = calloc(1, cap);
	strcat(text, test_nvsmi_header(form));
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++) {
			int later = k > STEP_AT || (k == STEP_AT && g == 1);
			if (header && k == STEP_AT && g == 1)
				strcat(text, test_nvsmi_header(form));
			test_nvsmi_row(text, cap, form, k, g, later ? -back : 0.0);
		}
	return text;
}

/* The same log with one row alone, GPU g's of sweep STEP_AT, `shift` s
 * off its time. */
static char *
one_row_text(int form, int g_at, double shift)
{
	size_t cap = 128 + 2 * SWEEPS * 96;
	char *text = calloc(1, cap);
	strcat(text, test_nvsmi_header(form));
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++)
			test_nvsmi_row(text, cap, form, k, g, k == STEP_AT && g == g_at ? shift : 0.0);
	return text;
}

static int
read_log(const char *path, wc_power_trace **pt, test_warnings *w, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	w->text[0] = '\0';
	w->count = 0;
	*err = (wc_error){ 0, "" };
	*pt = NULL;
	return wc_power_trace_read(path, &opt, 0, pt, err);
}

int
main(void)
{
	static const int forms[] = { NVSMI_BOTH, NVSMI_INDEX_ONLY, NVSMI_UUID_ONLY };
	char *dir = test_tmpdir("nvsmi_clock_step");
	test_warnings w;
	wc_error err;
	wc_power_trace *pt;
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		char name[48];
		/* 0.15 s back, less than the 0.1 s sampling interval plus it: the
		 * sweep with the step is dropped, the next one is later than
		 * the last kept; one bad line, the other 49 sweeps read */
		char *text = log_text(forms[f], 0.15, 0);
		snprintf(name, sizeof name, "step%d.csv", forms[f]);
		char *path = test_fixture(dir, name, text);
		CHECK_INT(read_log(path, &pt, &w, &err), WC_OK);
		if (err.code)
			fprintf(stderr, "  form %d: %s\n", forms[f], err.msg);
		CHECK(pt && pt->info.bad_lines == 1);
		CHECK(pt && pt->info.samples == SWEEPS - 1);
		/* GPU 1's row, line 2 + 2 * STEP_AT + 1, 0.148 s before GPU 0's */
		char at[64];
		snprintf(at, sizeof at, "%s:43:1: ", name);
		CHECK_CONTAINS(w.text, at);
		CHECK_CONTAINS(w.text, "0.148 s before");
		CHECK_CONTAINS(w.text, "the clock stepped back (1 s or less: no second log); sample dropped");
		CHECK(!strstr(w.text, "joined"));
		wc_power_trace_free(pt);

		/* by the CLI: read, the bad line counted */
		const char *argv[] = { "wattcast", "metrics", path, NULL };
		run_result r;
		run_wattcast(argv, NULL, &r);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "(1 malformed, skipped)");
		CHECK(!strstr(r.err, "merge them by time"));
		run_result_free(&r);
		free(path);
		free(text);

		/* more than a second back: per-GPU logs joined, refused as before */
		text = log_text(forms[f], 1.5, 0);
		snprintf(name, sizeof name, "far%d.csv", forms[f]);
		path = test_fixture(dir, name, text);
		CHECK_INT(read_log(path, &pt, &w, &err), WC_EPARSE);
		snprintf(at, sizeof at, "%s:43:1: ", name);
		CHECK_CONTAINS(err.msg, at);
		CHECK_CONTAINS(err.msg, "1.498 s before");
		CHECK_CONTAINS(err.msg, "time runs backward (per-GPU logs joined one after another?)");
		wc_power_trace_free(pt);
		free(path);
		free(text);

		/* exactly a second back (GPU 1's row, 2 ms after GPU 0's, 1.002 s
		 * earlier): not more than WC_NVSMI_JOIN_BACK_S, a clock stepped,
		 * and the message says the second is on its side */
		text = one_row_text(forms[f], 1, -1.002);
		snprintf(name, sizeof name, "one%d.csv", forms[f]);
		path = test_fixture(dir, name, text);
		CHECK_INT(read_log(path, &pt, &w, &err), WC_OK);
		CHECK(pt && pt->info.bad_lines == 1 && pt->info.samples == SWEEPS - 1);
		snprintf(at, sizeof at, "%s:43:1: ", name);
		CHECK_CONTAINS(w.text, at);
		CHECK_CONTAINS(w.text, "1.000 s before");
		CHECK_CONTAINS(w.text, "the clock stepped back (1 s or less: no second log); sample dropped");
		CHECK(!strstr(w.text, "under 1 s"));
		wc_power_trace_free(pt);
		free(path);
		free(text);

		/* GPU 0's row of a sweep 0.15 s back, before the last sample:
		 * that sample skipped, and no sweep spread over 0.152 s */
		text = one_row_text(forms[f], 0, -0.15);
		snprintf(name, sizeof name, "head%d.csv", forms[f]);
		path = test_fixture(dir, name, text);
		CHECK_INT(read_log(path, &pt, &w, &err), WC_OK);
		snprintf(at, sizeof at, "%s:42:1: sample is not later than the one before; skipped", name);
		CHECK_CONTAINS(w.text, at);
		CHECK(pt && pt->info.samples == SWEEPS - 1);
		CHECK(pt && pt->info.wide_sweeps == 0);
		CHECK(pt && pt->info.max_sweep_span_s < 0.01);
		wc_power_trace_free(pt);
		free(path);
		free(text);

		/* under a second, but past a header repeated: a second log */
		text = log_text(forms[f], 0.15, 1);
		snprintf(name, sizeof name, "hdr%d.csv", forms[f]);
		path = test_fixture(dir, name, text);
		CHECK_INT(read_log(path, &pt, &w, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "merge them by time");
		wc_power_trace_free(pt);
		free(path);
		free(text);
	}
	free(dir);
	return check_report("test_nvsmi_clock_step");
}

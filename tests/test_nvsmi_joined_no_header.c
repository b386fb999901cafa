/*
 * Per-GPU nvidia-smi logs joined one after another WITHOUT repeating the
 * header (`tail -n +2 g1.csv >> g0.csv`): the time runs back where GPU
 * 1's log begins, as when `cat` repeats the header, but the rule that
 * named that row asked for the repeated header, so the real TP 2 run's
 * log so joined was refused for the wrong cause: without a count as 270
 * lines "GPU 1 was not in the first sample" (or "of GPUs the first sample
 * lacks"), given 2 GPUs with an index alone at line 2 ("the first sample
 * holds 1 GPU ... nodes merged without uuid?"). One rule now, whatever
 * the columns, the count and the header: a row earlier than the latest
 * row above it by more than a sweep spreads (40 ms) refuses the log
 * naming that line and "merge them by time" (docs/formats/telemetry.md,
 * "Samples"). A row back by less than a sweep, and one far-off time
 * before the rows that follow, are no such row.
 */
#include "data/nvsmi.h"
#include "tests/support/nvsmi_rows.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 50

/* Row k of GPU g, 0.1 s apart, in the columns of `form`; `back` s earlier. */
static void
row(char *text, size_t cap, int form, int k, int g, double back)
{
	test_nvsmi_row(text, cap, form, k, g, -back);
}

static int
read_log(const char *path, int n_gpus, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	wc_power_trace *pt = NULL;
	opt.n_gpus = n_gpus;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	*err = (wc_error){ 0, "" };
	int rc = wc_power_trace_read(path, &opt, 0, &pt, err);
	wc_power_trace_free(pt);
	return rc;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_joined_no_header");
	size_t cap = 64 + 2 * ROWS * 96;
	char *text = calloc(1, cap);
	wc_error err;
	for (int form = 0; form < NVSMI_FORMS; form++) {
		/* one header, GPU 0's rows (lines 2-51), GPU 1's (lines 52-101) */
		text[0] = '\0';
		strcat(text, test_nvsmi_header(form));
		for (int g = 0; g < 2; g++)
			for (int k = 0; k < ROWS; k++)
				row(text, cap, form, k, g, 0.0);
		char name[32];
		snprintf(name, sizeof name, "form%d.csv", form);
		char *path = test_fixture(dir, name, text);
		for (int n_gpus = 0; n_gpus <= 2; n_gpus += 2) {
			CHECK_INT(read_log(path, n_gpus, &err), WC_EPARSE);
			char at[48];
			snprintf(at, sizeof at, "%s:52:1: ", name);
			CHECK_CONTAINS(err.msg, at);
			CHECK_CONTAINS(err.msg, "4.898 s");
			CHECK_CONTAINS(err.msg, "logs joined one after another");
			CHECK_CONTAINS(err.msg, "merge them by time");
			CHECK(strlen(err.msg) <= 255);
			if (!strstr(err.msg, at))
				fprintf(stderr, "  form %d, %d GPUs: %s\n", form, n_gpus, err.msg);
		}
		/* by the CLI as well, as `metrics` with and without --gpus 2 */
		const char *argv[] = { "wattcast", "metrics", path, "--gpus", "2", NULL };
		for (int given = 0; given < 2; given++) {
			run_result r;
			if (!given)
				argv[3] = NULL;
			run_wattcast(argv, NULL, &r);
			CHECK_INT(r.status, 1);
			CHECK_CONTAINS(r.err, ":52:1: ");
			CHECK_CONTAINS(r.err, "merge them by time");
			CHECK(!strstr(r.err, "first sample"));
			run_result_free(&r);
		}
		free(path);
	}
	/* the rule of the header repeated is the same rule: named as before */
	text[0] = '\0';
	for (int g = 0; g < 2; g++) {
		strcat(text, test_nvsmi_header(NVSMI_NEITHER));
		for (int k = 0; k < ROWS; k++)
			row(text, cap, NVSMI_NEITHER, k, g, 0.0);
	}
	char *cat = test_fixture(dir, "cat.csv", text);
	CHECK_INT(read_log(cat, 0, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "cat.csv:53:1: the time runs back 4.898 s here from before the header repeated at "
	                        "line 52");
	free(cat);
	/* one GPU, a row 30 ms back (within a sweep's spread): no such row */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_NEITHER));
	for (int k = 0; k < ROWS; k++)
		row(text, cap, NVSMI_NEITHER, k, 0, k == 20 ? 0.13 : 0.0);
	char *near = test_fixture(dir, "near.csv", text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = 0.1;
	wc_power_trace *pt = NULL;
	CHECK_INT(wc_power_trace_read(near, &opt, 0, &pt, &err), WC_OK);
	wc_power_trace_free(pt);
	free(near);
	/* one GPU, the clock stepped 0.5 s back (a row 0.6 s ahead, the next
	 * behind it): an NTP step, not a second log, read as before */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_NEITHER));
	for (int k = 0; k < ROWS; k++)
		row(text, cap, NVSMI_NEITHER, k, 0, k == 20 ? 0.6 : 0.0);
	near = test_fixture(dir, "step.csv", text);
	pt = NULL;
	CHECK_INT(wc_power_trace_read(near, &opt, 0, &pt, &err), WC_OK);
	wc_power_trace_free(pt);
	free(near);
	/* keyed, GPU 0 alone in the first sample, then a row of GPU 1 0.5 s
	 * back: no second log (under a second), so the bad line of a GPU the
	 * first sample lacks, as before, never a row dropped unsaid */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_INDEX_ONLY));
	for (int k = 0; k < ROWS; k++)
		row(text, cap, NVSMI_INDEX_ONLY, k, 0, 0.0);
	row(text, cap, NVSMI_INDEX_ONLY, ROWS - 1, 1, 0.5);
	near = test_fixture(dir, "gpu1back.csv", text);
	pt = NULL;
	CHECK_INT(wc_power_trace_read(near, &opt, 0, &pt, &err), WC_OK);
	CHECK(pt && pt->info.bad_lines == 1);
	wc_power_trace_free(pt);
	free(near);
	free(text);
	free(dir);
	return check_report("test_nvsmi_joined_no_header");
}

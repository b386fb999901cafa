/*
 * power.csv (nvidia-smi) written by one logger per GPU (`nvidia-smi -i 0
 * ... > g0.csv`, `-i 1 ... > g1.csv`) and joined with `cat g0.csv g1.csv`,
 * each with its header: the time runs back where GPU 1's log begins.
 * Given 2 GPUs, GPU 0's rows were skipped as sweeps lacking GPU 1 and its
 * last row was paired with GPU 1's first, 4.898 s earlier, as one sweep:
 * the log read as that one sample (0 J), exit 0 (the real TP 2 run: 1
 * sample for 67 s and 28 305 J). A sweep never runs back in time by more
 * than a sweep spreads: the log is refused naming the line and the remedy
 * (docs/formats/telemetry.md, "Samples"); merged by time it reads whole,
 * and a sweep over a daylight-saving hour back still reads.
 */
#include "data/nvsmi.h"
#include "tests/support/nvsmi_rows.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 50

/* Row k of GPU g with the columns `form`, `shift` s added from sweep `from` on. */
static void
row_form(char *text, size_t cap, int form, int k, int g, int from, double shift)
{
	test_nvsmi_row(text, cap, form, k, g, k >= from ? shift : 0.0);
}

static void
row(char *text, size_t cap, int k, int g, int from, double shift)
{
	row_form(text, cap, NVSMI_BOTH, k, g, from, shift);
}

/* GPU 0's log of `n` rows, then GPU 1's with its header, `form`'s columns. */
static char *
joined_form(const char *dir, const char *name, int form, int n, char *text, size_t cap)
{
	text[0] = '\0';
	for (int g = 0; g < 2; g++) {
		strcat(text, test_nvsmi_header(form));
		for (int k = 0; k < n; k++)
			row_form(text, cap, form, k, g, n, 0.0);
	}
	return test_fixture(dir, name, text);
}

static int
read_log(const char *path, int n_gpus, int select, wc_power_trace **pt, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.n_gpus = n_gpus;
	if (select) {
		opt.gpu_uuids = test_nvsmi_uuids;
		opt.n_gpu_uuids = 2;
	}
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	*err = (wc_error){ 0, "" };
	*pt = NULL;
	return wc_power_trace_read(path, &opt, 0, pt, err);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_joined_logs");
	size_t cap = 64 + 8 * SWEEPS * 96;
	char *text = calloc(1, cap);
	/* GPU 0's log (lines 2-51), its header again, GPU 1's (lines 53-102) */
	for (int g = 0; g < 2; g++) {
		strcat(text, test_nvsmi_header(NVSMI_BOTH));
		for (int k = 0; k < SWEEPS; k++)
			row(text, cap, k, g, SWEEPS, 0.0);
	}
	char *joined = test_fixture(dir, "joined.csv", text);
	wc_power_trace *pt;
	wc_error err;
	for (int select = 0; select < 2; select++) {
		CHECK_INT(read_log(joined, 2, select, &pt, &err), WC_EPARSE);
		/* by index, which the log has, also when gpu_uuids select the
		 * GPUs (ingest of a run whose manifest names them): the real TP 2
		 * run named both by uuid, "GPU GPU-e2681f6e-...'s row" */
		CHECK_CONTAINS(err.msg, "joined.csv:53:1: GPU 1's row is 4.898 s before GPU 0's");
		CHECK_CONTAINS(err.msg, "'s of the sweep from line 51: time runs backward (per-GPU logs joined one "
		                        "after another?); merge them by time");
		CHECK(strlen(err.msg) <= 255);
		wc_power_trace_free(pt);
	}
	/* by the CLI, as `metrics --gpus 2` */
	const char *argv[] = { "wattcast", "metrics", joined, "--gpus", "2", NULL };
	run_result r;
	run_wattcast(argv, NULL, &r);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "joined.csv:53:1: GPU 1's row is 4.898 s before GPU 0's");
	run_result_free(&r);

	/* without a count (metrics without --gpus): GPU 1's rows were bad
	 * lines of "a node's logger started later"; where its log begins is
	 * named as well */
	const char *argv_none[] = { "wattcast", "metrics", joined, NULL };
	run_wattcast(argv_none, NULL, &r);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "joined.csv:53:1: the time runs back 4.898 s here from before the header repeated at "
	                      "line 52: logs joined one after another (per-GPU logs?); merge them by time");
	CHECK(!strstr(r.err, "logger started later"));
	run_result_free(&r);

	/* uuid alone: the uuid names the GPU, not "GPU GPU-..." */
	char *by_uuid = joined_form(dir, "uuid.csv", NVSMI_UUID_ONLY, SWEEPS, text, cap);
	for (int select = 0; select < 2; select++) {
		CHECK_INT(read_log(by_uuid, 2, select, &pt, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "uuid.csv:53:1: GPU-e2681f6e-8d94-2d66-484f-43ea602335f9's row is 4.898 s before "
		                        "GPU-c5d32af0-0857-3b36-6541-1a688a9ec165's");
		CHECK(!strstr(err.msg, "GPU GPU-"));
		wc_power_trace_free(pt);
	}

	/* neither index nor uuid, 100 rows a log: GPU 0's rows alone lie
	 * evenly, which refused the log at line 2 ("the rows lie evenly ...
	 * add uuid") given 2 GPUs, and without a count each of GPU 1's rows
	 * was "not later than the one before"; both name where the logs meet */
	char *bare = joined_form(dir, "bare.csv", NVSMI_NEITHER, 2 * SWEEPS, text, cap);
	for (int n_gpus = 0; n_gpus <= 2; n_gpus += 2) {
		CHECK_INT(read_log(bare, n_gpus, 0, &pt, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "bare.csv:103:1: the time runs back 9.898 s here from before the header repeated "
		                        "at line 102: logs joined one after another (per-GPU logs?); merge them by time");
		CHECK(strlen(err.msg) <= 255);
		wc_power_trace_free(pt);
	}
	/* index alone: given 2 GPUs the first sample (GPU 0, then GPU 0
	 * again) refused the log at line 2 ("the first sample holds 1 GPU,
	 * expected 2: GPU 0 again at line 3, ... nodes merged without uuid?"),
	 * before the second log began; without a count it named where the
	 * logs meet already */
	char *by_index = joined_form(dir, "index.csv", NVSMI_INDEX_ONLY, SWEEPS, text, cap);
	for (int n_gpus = 0; n_gpus <= 2; n_gpus += 2) {
		CHECK_INT(read_log(by_index, n_gpus, 0, &pt, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "index.csv:53:1: the time runs back 4.898 s here from before the header repeated "
		                        "at line 52: logs joined one after another (per-GPU logs?); merge them by time");
		CHECK(!strstr(err.msg, "first sample"));
		wc_power_trace_free(pt);
	}
	const char *argv_index[] = { "wattcast", "metrics", by_index, "--gpus", "2", NULL };
	run_wattcast(argv_index, NULL, &r);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "index.csv:53:1: the time runs back 4.898 s here");
	run_result_free(&r);
	/* GPU 0's log alone, keyed by index, given 2 GPUs: still the first
	 * sample's refusal, said at the log's end */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_INDEX_ONLY));
	for (int k = 0; k < SWEEPS; k++)
		row_form(text, cap, NVSMI_INDEX_ONLY, k, 0, SWEEPS, 0.0);
	char *one = test_fixture(dir, "one.csv", text);
	CHECK_INT(read_log(one, 2, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "one.csv:2:2: the first sample holds 1 GPU, expected 2: GPU 0 again at line 3, "
	                        "0.100 s on (nodes merged without uuid? add uuid to --query-gpu on every node)");
	wc_power_trace_free(pt);
	free(one);
	free(by_index);
	/* one log of 100 evenly lying rows given 2 GPUs is still refused so */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_NEITHER));
	for (int k = 0; k < 2 * SWEEPS; k++)
		row_form(text, cap, NVSMI_NEITHER, k, 0, 2 * SWEEPS, 0.0);
	char *even = test_fixture(dir, "even.csv", text);
	CHECK_INT(read_log(even, 2, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "even.csv:2:1: the rows lie evenly, 100.0 ms apart");
	wc_power_trace_free(pt);
	/* a header repeated where nvidia-smi restarted, appending: later
	 * rows, read on */
	text[0] = '\0';
	for (int half = 0; half < 2; half++) {
		strcat(text, test_nvsmi_header(NVSMI_BOTH));
		for (int k = half * SWEEPS / 2; k < (half + 1) * SWEEPS / 2; k++)
			for (int g = 0; g < 2; g++)
				row(text, cap, k, g, SWEEPS, 0.0);
	}
	char *appended = test_fixture(dir, "appended.csv", text);
	CHECK_INT(read_log(appended, 2, 0, &pt, &err), WC_OK);
	if (pt)
		CHECK_INT(pt->n, SWEEPS);
	wc_power_trace_free(pt);
	free(appended);
	free(even);
	free(bare);
	free(by_uuid);

	/* merged by time: 50 samples of 300 W over 4.9 s */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_BOTH));
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++)
			row(text, cap, k, g, SWEEPS, 0.0);
	char *merged = test_fixture(dir, "merged.csv", text);
	CHECK_INT(read_log(merged, 2, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK_INT(pt->n, SWEEPS);
		CHECK_INT(pt->info.bad_lines, 0);
		CHECK_NEAR(pt->group[0], 300.0, 1e-9);
	}
	wc_power_trace_free(pt);

	/* a sweep over the local clock's hour back (GPU 1's row an hour
	 * before GPU 0's): the hour is taken out, as between sweeps */
	text[0] = '\0';
	strcat(text, test_nvsmi_header(NVSMI_BOTH));
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++)
			row(text, cap, k, g, k == 25 && g == 1 ? 25 : 26, -3600.0);
	char *dst = test_fixture(dir, "dst.csv", text);
	CHECK_INT(read_log(dst, 2, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK_INT(pt->n, SWEEPS);
		CHECK_INT(pt->info.bad_lines, 0);
		CHECK_NEAR(pt->t[SWEEPS - 1] - pt->t[0], 4.9, 1e-6);
	}
	wc_power_trace_free(pt);

	free(dst);
	free(merged);
	free(joined);
	free(text);
	free(dir);
	return check_report("test_nvsmi_joined_logs");
}

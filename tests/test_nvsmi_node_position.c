/*
 * power.csv (nvidia-smi) without index or uuid: a node-wide log of 8 GPUs
 * whose sweep rows share one timestamp or lie 6 ms apart (as nvidia-smi
 * writes real sweeps, docs/formats/telemetry.md), read for a run given fewer GPUs
 * (tp 2, or gpu_uuids naming 2). Position cannot pick the run's GPUs out;
 * counted off 2 at a time, most samples came at the time of the one
 * before, each a bad line, and the refusal named --max-bad, which then
 * read another GPU's power. It is refused before any bad line is counted,
 * naming the column that tells the GPUs apart (docs/formats/telemetry.md,
 * "GPU count from the timestamps"). Rows 6 ms apart were not refused:
 * counted off 2 at a time inside each sweep, a TP 2 run read 260.7 W for
 * its 421.6 W; nor were sweeps whose pause is no longer than the rows'
 * spacing (6 ms apart every 50 ms): the rows' own period says 8.
 */
#include "data/nvsmi.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `gpus` GPUs, no index or uuid, 40 sweeps every `period` ms, the rows
 * of a sweep `ms` apart (0: at one timestamp, as nvidia-smi prints one
 * sweep's). */
static char *
timed_log(const char *dir, const char *name, int gpus, int ms, int period)
{
	size_t cap = 64 + 40 * (size_t)gpus * 64;
	char *body = malloc(cap);
	snprintf(body, cap, "timestamp, name, power.draw [W]\n");
	for (int k = 0; k < 40; k++)
		for (int g = 0; g < gpus; g++) {
			int at = period * k + ms * g;
			snprintf(body + strlen(body), cap - strlen(body),
			         "2026/07/18 15:00:%02d.%03d, NVIDIA A100-SXM4-80GB, %.2f W\n", at / 1000, at % 1000,
			         g == 2 ? 300.0 : 61.0);
		}
	char *path = test_fixture(dir, name, body);
	free(body);
	return path;
}

static char *
node_log(const char *dir, const char *name, int gpus, int ms)
{
	return timed_log(dir, name, gpus, ms, 250);
}

static int
read_log(const char *path, int n_gpus, const char *const *uuids, size_t n_uuids, wc_power_trace **pt,
         wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.n_gpus = n_gpus;
	opt.gpu_uuids = uuids;
	opt.n_gpu_uuids = n_uuids;
	opt.max_bad_fraction = 0.5; /* no allowance reads it */
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	return wc_power_trace_read(path, &opt, 0, pt, err);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_node_position");
	char *node = node_log(dir, "node.csv", 8, 0);
	wc_power_trace *pt = NULL;
	wc_error err = { 0, "" };

	/* tp 2 on the node's log: refused, the remedy named */
	CHECK_INT(read_log(node, 2, NULL, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "node.csv:2:1: 8 rows make each sweep (39 sweeps, 100 % of the first 312 rows), more "
	                        "than the 2 GPUs given");
	CHECK_CONTAINS(err.msg, "add uuid (or index) to --query-gpu");
	CHECK(strstr(err.msg, "--max-bad") == NULL);
	CHECK(strlen(err.msg) <= 255);
	wc_power_trace_free(pt);
	pt = NULL;

	/* gpu_uuids naming 2 (the manifest's): they need a uuid column */
	const char *uuids[] = { "GPU-aaaaaaaa-0000-0000-0000-000000000000", "GPU-bbbbbbbb-0000-0000-0000-000000000000" };
	err = (wc_error){ 0, "" };
	CHECK_INT(read_log(node, 2, uuids, 2, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "(gpu_uuids need a uuid column): add uuid (or index) to --query-gpu");
	wc_power_trace_free(pt);
	pt = NULL;

	/* a TP 1 run on it: the same */
	err = (wc_error){ 0, "" };
	CHECK_INT(read_log(node, 1, NULL, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "more than the 1 GPUs given");
	wc_power_trace_free(pt);
	pt = NULL;

	/* the count the log holds, or none: read as before */
	int counts[] = { 8, 0 };
	for (int i = 0; i < 2; i++) {
		err = (wc_error){ 0, "" };
		CHECK_INT(read_log(node, counts[i], NULL, 0, &pt, &err), WC_OK);
		if (pt) {
			CHECK_INT(pt->info.n_gpus, 8);
			CHECK_INT(pt->info.bad_lines, 0);
		}
		wc_power_trace_free(pt);
		pt = NULL;
	}

	/* a 2-GPU log whose rows share timestamps, given 2: read */
	char *pair = node_log(dir, "pair.csv", 2, 0);
	err = (wc_error){ 0, "" };
	CHECK_INT(read_log(pair, 2, NULL, 0, &pt, &err), WC_OK);
	if (pt)
		CHECK_INT(pt->info.bad_lines, 0);
	wc_power_trace_free(pt);

	/* rows 6 ms apart, a sweep 42 ms wide: the same rule, the same refusal */
	char *ms6 = node_log(dir, "ms6.csv", 8, 6);
	err = (wc_error){ 0, "" };
	pt = NULL;
	CHECK_INT(read_log(ms6, 2, NULL, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ms6.csv:2:1: 8 rows make each sweep (39 sweeps, 100 % of the first 312 rows), more than "
	                        "the 2 GPUs given");
	CHECK_CONTAINS(err.msg, "add uuid (or index) to --query-gpu");
	wc_power_trace_free(pt);
	pt = NULL;
	for (int i = 0; i < 2; i++) {
		err = (wc_error){ 0, "" };
		CHECK_INT(read_log(ms6, counts[i], NULL, 0, &pt, &err), WC_OK);
		if (pt) {
			CHECK_INT(pt->info.n_gpus, 8);
			CHECK_INT(pt->info.bad_lines, 0);
		}
		wc_power_trace_free(pt);
		pt = NULL;
	}
	/* sweeps close together, no jump between the gaps within and between
	 * them (6 ms apart every 50 ms, 10 ms apart every 100 ms): the rows'
	 * period says 8, refused alike (read 2 rows at a time before, a TP 2
	 * run 190.7 W for 421.6 W); given 8, read */
	const int close[2][2] = { { 6, 50 }, { 10, 100 } };
	for (int i = 0; i < 2; i++) {
		char *near = timed_log(dir, "near.csv", 8, close[i][0], close[i][1]);
		err = (wc_error){ 0, "" };
		CHECK_INT(read_log(near, 2, NULL, 0, &pt, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "near.csv:2:1: 8 rows make each sweep");
		CHECK_CONTAINS(err.msg, "add uuid (or index) to --query-gpu");
		wc_power_trace_free(pt);
		pt = NULL;
		err = (wc_error){ 0, "" };
		CHECK_INT(read_log(near, 8, NULL, 0, &pt, &err), WC_OK);
		if (pt)
			CHECK_INT(pt->info.bad_lines, 0);
		wc_power_trace_free(pt);
		pt = NULL;
		/* a 2-GPU log of that timing given 2: read */
		char *two = timed_log(dir, "near2.csv", 2, close[i][0], close[i][1]);
		err = (wc_error){ 0, "" };
		CHECK_INT(read_log(two, 2, NULL, 0, &pt, &err), WC_OK);
		wc_power_trace_free(pt);
		pt = NULL;
		free(two);
		free(near);
	}
	/* a 2-GPU log 6 ms apart given 2, and a 1-GPU one given 1: read */
	char *pair6 = node_log(dir, "pair6.csv", 2, 6), *one = node_log(dir, "one.csv", 1, 0);
	err = (wc_error){ 0, "" };
	CHECK_INT(read_log(pair6, 2, NULL, 0, &pt, &err), WC_OK);
	if (pt)
		CHECK_INT(pt->info.bad_lines, 0);
	wc_power_trace_free(pt);
	pt = NULL;
	err = (wc_error){ 0, "" };
	CHECK_INT(read_log(one, 1, NULL, 0, &pt, &err), WC_OK);
	wc_power_trace_free(pt);

	free(one);
	free(pair6);
	free(ms6);
	free(pair);
	free(node);
	free(dir);
	return check_report("test_nvsmi_node_position");
}

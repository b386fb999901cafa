/*
 * A real 2-GPU power log cut at its head within a sweep, read by `wattcast
 * ingest` in place (label realdata): the TP 2 gemma run of ../shared/data/
 * real/powertrace-sim, whose manifest names its GPUs (server.
 * active_gpu_uuids), with power.csv's first data row (GPU 1 of the first
 * sweep) left out. Its first row is dropped as `metrics` drops it
 * (docs/formats/telemetry.md, "Incomplete samples"), and the row's peak is
 * the run's 664.03 W; it was 587.23 W, every sample pairing GPU 1 at t with
 * GPU 0 at t + 0.25 s, because gpu_uuids bypassed the rule.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Ingest `dir`, its warnings into `w`; the group's metrics. */
static wc_trace_metrics
ingest(const char *dir, test_warnings *w)
{
	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_trace_metrics m;
	wc_error err;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	memset(&m, 0, sizeof m);
	m.max_w = NAN;
	int rc = wc_ingest_run(dir, &o, &res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1)
		m = res.rows[0].metrics;
	wc_ingest_result_clear(&res);
	return m;
}

/* `name` in `dir`: `text` from its `skip`-th line on (0 = all). */
static void
put(const char *dir, const char *name, const char *text, int skip)
{
	char *p = path_join(dir, name);
	const char *from = text;
	if (skip > 0) {
		/* the header, then the lines after the skipped one */
		const char *nl = strchr(text, '\n'), *after = nl ? strchr(nl + 1, '\n') : NULL;
		CHECK(after != NULL);
		size_t head = nl ? (size_t)(nl + 1 - text) : 0;
		char *cut = malloc(strlen(text) + 1);
		memcpy(cut, text, head);
		strcpy(cut + head, after ? after + 1 : "");
		CHECK_INT(write_text(p, cut), 0);
		free(cut);
	} else {
		CHECK_INT(write_text(p, from), 0);
	}
	free(p);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_gemma-4-26b-a4b_moe_transfer_a100/"
	                              "a100_validate_tp2_r4p0_b1p0_s20260712_1784415591");
	char *root = test_tmpdir("real_ingest_cut_head"), *run = path_join(root, "cut");
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	mkdir(run, 0755);
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_ingest_cut_head");
	CHECK_CONTAINS(text[2], "active_gpu_uuids"); /* the path every such manifest takes */
	test_warnings w;
	wc_trace_metrics whole = ingest(src, &w);
	CHECK_NEAR(whole.max_w, 664.03, 0.005);
	put(run, "engine.csv", text[1], 0);
	put(run, "manifest.json", text[2], 0);
	put(run, "power.csv", text[0], 1);
	wc_trace_metrics cut = ingest(run, &w);
	CHECK_CONTAINS(w.text, "power.csv:2: the log begins within a sweep: its first 1 row");
	CHECK(strstr(w.text, "sweeps spread over more than 40 ms") == NULL);
	CHECK_NEAR(cut.max_w, whole.max_w, 1e-9);
	CHECK_NEAR(cut.p95_w, whole.p95_w, 0.5);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(src);
	free(run);
	free(root);
	return check_report("test_real_ingest_cut_head");
}

/*
 * A data-parallel run's replicas take the power log's GPUs by index
 * (docs/formats/telemetry.md, "Data-parallel engines"): replica d the
 * GPUs d x tp to (d + 1) x tp - 1. They took them in the order the
 * manifest listed their uuids, so a manifest.json whose
 * server.active_gpu_uuids (or a wattcast-run.json whose gpu_uuids) named
 * GPU 1 first gave engine 0's running count GPU 1's power, without a
 * word. A log without an index column takes them in the order the uuids
 * are named, and says so. And a warning about one replica (its window cut
 * to its engine's series, its idle segments) named no replica.
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
#include <time.h>

#define T0 1700000000.0

static const char *const uuid[2] = { "GPU-03a84180-d660-dbdc-17f4-0e0655717066",
	                             "GPU-713d5b24-2a1e-fd4a-7685-c3d195ff9230" };

/* GPU index 0 at 300 W and index 1 at 200 W over T0 .. T0 + 9.9 s at
 * 0.1 s (without the index column when !index); engine 0 running 6,
 * engine 1 running 0 until T0 + 3 s and 2 after, its token counter blank
 * from T0 + 7.5 s on; a level over T0 + 1 .. T0 + 9 s; `run` added to
 * wattcast-run.json; manifest.json names the uuids reversed when `rev`. */
static char *
write_run(const char *root, const char *name, const char *run, int index, int rev)
{
	static char buf[65536];
	char *d = path_join(root, name);
	size_t len;
	mkdir(d, 0755);
	len = (size_t)snprintf(buf, sizeof buf, "timestamp,%suuid,power.draw [W]\n", index ? "index," : "");
	for (int i = 0; i < 100; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40], idx[8] = "";
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		for (int g = 0; g < 2; g++) {
			if (index)
				snprintf(idx, sizeof idx, "%d,", g);
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s.%03d,%s%s,%.2f W\n", ts, (i % 10) * 100,
			                        idx, uuid[g], g ? 200.0 : 300.0);
		}
	}
	free(test_fixture(d, "power.csv", buf));
	len = (size_t)snprintf(buf, sizeof buf, "timestamp");
	for (int e = 0; e < 2; e++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, ",vllm:num_requests_running{engine=\"%d\"}"
		                        ",vllm:generation_tokens_total{engine=\"%d\"}", e, e);
	len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	for (int k = 0; k < 40; k++) {
		char gen1[16] = "";
		if (k < 30)
			snprintf(gen1, sizeof gen1, "%d", 50 * k);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,6,%d,%d,%s\n", T0 + 0.25 * k, 150 * k,
		                        k < 12 ? 0 : 2, gen1);
	}
	free(test_fixture(d, "engine.csv", buf));
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\","
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"tp\": 1, \"data_parallel\": 2%s,"
	         " \"levels\": [{\"label\": \"dp\", \"start_epoch\": 1700000001, \"end_epoch\": 1700000009}]}",
	         name, run);
	free(test_fixture(d, "wattcast-run.json", buf));
	snprintf(buf, sizeof buf,
	         "{\"manifest_version\": 2, \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	         " \"server\": {\"active_gpu_uuids\": [\"%s\", \"%s\"]}}",
	         uuid[rev ? 1 : 0], uuid[rev ? 0 : 1]);
	free(test_fixture(d, "manifest.json", buf));
	return d;
}

/* Replica 0 at `w0` W, replica 1 at `w1` W, each with its engine's
 * running count (6, and 2 after 3 s of 0). */
static void
check_replicas(const char *dir, double w0, double w1, test_warnings *w)
{
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err = { 0 };
	int rc = test_ingest_run(dir, 0, &res, w, &err);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT((int)res.n_rows, 2);
	if (res.n_rows == 2) {
		CHECK_NEAR(res.rows[0].run.mean_power_w, w0, 1e-6);
		CHECK_NEAR(res.rows[0].run.running, 6.0, 1e-9);
		CHECK_NEAR(res.rows[1].run.mean_power_w, w1, 1e-6);
		CHECK(res.rows[1].run.running > 1.0 && res.rows[1].run.running < 2.0);
	}
	wc_ingest_result_clear(&res);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_dp_order");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* The uuids in index order, reversed in manifest.json, reversed in
	 * wattcast-run.json: replica 0 is GPU index 0 each time. */
	char *d = write_run(root, "fwd", "", 1, 0);
	check_replicas(d, 300.0, 200.0, &w);
	free(d);
	d = write_run(root, "rev", "", 1, 1);
	check_replicas(d, 300.0, 200.0, &w);
	CHECK(strstr(w.text, "no index column") == NULL);
	free(d);
	char gpus[160];
	snprintf(gpus, sizeof gpus, ", \"gpu_uuids\": [\"%s\", \"%s\"]", uuid[1], uuid[0]);
	d = write_run(root, "revrun", gpus, 1, 0);
	check_replicas(d, 300.0, 200.0, &w);
	free(d);

	/* No index column: the order the uuids are named, said. */
	d = write_run(root, "noindex", "", 0, 1);
	check_replicas(d, 200.0, 300.0, &w);
	CHECK_CONTAINS(w.text, "noindex/power.csv: no index column, so the data-parallel replicas take its GPUs in "
	                       "the order the run names their uuids, 1 each");
	free(d);

	/* Replica 1's token counter ends at T0 + 7.25 s: its window is cut,
	 * said of it, and not of replica 0 (whose window is whole). */
	d = write_run(root, "cut", "", 1, 0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "cut: replica 1: load level 0 ('dp') cut to 1700000001.000-1700000007.250, the span "
	                       "both logs cover (power 1700000000.000-1700000009.900, engine's counters");
	CHECK(strstr(w.text, "cut: load level") == NULL && strstr(w.text, "replica 0: load level") == NULL);
	/* replica 1's GPU by the log's index */
	CHECK_CONTAINS(w.text, "cut-replica1: idle power 200.0 W of GPU 1 (quiet_short) rejected");
	wc_ingest_result_clear(&res);

	/* Segments of 2 s: replica 1's first is idle (0 running until
	 * T0 + 3 s), said of it alone. */
	CHECK_INT(test_ingest_run(d, 2.0, &res, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "cut: replica 1: 1 of 3 segments idle (mean running below 0.5): excluded as 'idle'");
	CHECK(strstr(w.text, "cut: 1 of") == NULL && strstr(w.text, "replica 0: 1 of") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_dp_order");
}

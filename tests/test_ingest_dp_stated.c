/*
 * A data-parallel run stated in wattcast-run.json ("tp" per replica and
 * "data_parallel"; docs/formats/telemetry.md, "Data-parallel engines")
 * beside a powertrace-sim manifest.json. The manifest of a vLLM
 * --data-parallel-size 2 server records tp 1 and its 2 active GPUs, and
 * was refused on its own ('/tp: 1, but /server/active_gpu_uuids names 2
 * GPUs') before wattcast-run.json, which takes precedence, could say the
 * GPUs are tp x data_parallel. Also: a GPU count refused without the
 * replicas' number; one engine's running column missing refused as a
 * count of engines; each replica written with the whole server's request
 * rate and burstiness; and a replica's missing token counter warned as
 * the run's, naming neither the replica nor its engine's series.
 */
#include "data/data.h"
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

enum { ALL = 0, NO_RUN1 = 1, NO_GEN1 = 2 };

/* GPU 0 at 300 W and GPU 1 at 200 W over T0 .. T0 + 9.9 s at 0.1 s (index
 * and uuid columns); engine 0 running 6 and engine 1 running 2 at
 * 0.25 s, engine 1's running or generation column left out by `drop`; a
 * level over T0 + 1 .. T0 + 9 s at 4 requests/s, Poisson; `run` added to
 * wattcast-run.json; a manifest.json stating `tp` and both GPUs when
 * manifest_tp > 0. */
static char *
write_run(const char *root, const char *name, const char *run, int manifest_tp, int drop)
{
	static char buf[65536];
	char *d = path_join(root, name);
	size_t len;
	mkdir(d, 0755);
	len = (size_t)snprintf(buf, sizeof buf, "timestamp,index,uuid,power.draw [W]\n");
	for (int i = 0; i < 100; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		for (int g = 0; g < 2; g++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s.%03d,%d,%s,%.2f W\n", ts, (i % 10) * 100,
			                        g, uuid[g], g ? 200.0 : 300.0);
	}
	free(test_fixture(d, "power.csv", buf));
	len = (size_t)snprintf(buf, sizeof buf, "timestamp");
	for (int e = 0; e < 2; e++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s,vllm:num_requests_waiting{engine=\"%d\"}%s",
		                        e && drop == NO_RUN1 ? "" : e ? ",vllm:num_requests_running{engine=\"1\"}"
		                                                      : ",vllm:num_requests_running{engine=\"0\"}",
		                        e, e && drop == NO_GEN1 ? "" : e ? ",vllm:generation_tokens_total{engine=\"1\"}"
		                                                         : ",vllm:generation_tokens_total{engine=\"0\"}");
	len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	for (int k = 0; k < 40; k++) {
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,6,0,%d", T0 + 0.25 * k, 150 * k);
		if (drop != NO_RUN1)
			len += (size_t)snprintf(buf + len, sizeof buf - len, ",2");
		len += (size_t)snprintf(buf + len, sizeof buf - len, ",0");
		if (drop != NO_GEN1)
			len += (size_t)snprintf(buf + len, sizeof buf - len, ",%d", 50 * k);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	}
	free(test_fixture(d, "engine.csv", buf));
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\","
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0%s,"
	         " \"levels\": [{\"label\": \"dp\", \"start_epoch\": 1700000001, \"end_epoch\": 1700000009,"
	         " \"request_rate\": 4, \"burstiness\": 1, \"requests\": 100}]}",
	         name, run);
	free(test_fixture(d, "wattcast-run.json", buf));
	if (manifest_tp > 0) {
		snprintf(buf, sizeof buf,
		         "{\"manifest_version\": 2, \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": %d,"
		         " \"server\": {\"active_gpu_uuids\": [\"%s\", \"%s\"]}}",
		         manifest_tp, uuid[0], uuid[1]);
		free(test_fixture(d, "manifest.json", buf));
	}
	return d;
}

static int
ingest(const char *dir, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	memset(err, 0, sizeof *err);
	return wc_ingest_run(dir, &o, res, err);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_dp_stated");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* The manifest's tp 1 with 2 GPUs is one replica's tp: the run states
	 * 2 replicas, read as tp 1 x data_parallel 2. */
	char *d = write_run(root, "dp", ", \"tp\": 1, \"data_parallel\": 2", 1, ALL);
	int rc = ingest(d, &res, &w, &err);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT((int)res.n_rows, 2);
	for (size_t i = 0; i < res.n_rows && res.n_rows == 2; i++) {
		CHECK_INT(res.rows[i].run.tp, 1);
		CHECK_NEAR(res.rows[i].run.mean_power_w, i ? 200.0 : 300.0, 1e-6);
		/* 4 requests/s reached the server, not each replica */
		CHECK(isnan(res.rows[i].request_rate));
		CHECK(isnan(res.rows[i].burstiness));
		CHECK_INT(res.rows[i].run.workload, WC_WORKLOAD_POISSON);
	}
	wc_ingest_result_clear(&res);
	free(d);

	/* Not stated: refused naming the GPUs, the tp and what to state. */
	d = write_run(root, "unstated", "", 1, ALL);
	CHECK_INT(ingest(d, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "manifest.json: /server/active_gpu_uuids names 2 GPUs, but the run has tp 1; if they "
	                        "are data-parallel replicas, state \"data_parallel\": 2 in wattcast-run.json");
	CHECK_INT((int)res.n_rows, 0);
	free(d);

	/* More replicas than GPUs: data_parallel and the GPUs it makes named. */
	d = write_run(root, "three", ", \"tp\": 1, \"data_parallel\": 3", 1, ALL);
	CHECK_INT(ingest(d, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "names 2 GPUs, but the run has tp 1 x data_parallel 3 (3 GPUs)");
	CHECK_INT((int)res.n_rows, 0);
	free(d);

	/* Engine 1's running column missing: that is the reason, not a count
	 * of engines. */
	d = write_run(root, "norun1", ", \"tp\": 1, \"data_parallel\": 2", 1, NO_RUN1);
	CHECK_INT(ingest(d, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "engine.csv: num_requests_running{engine=\"1\"} has no column while that engine's "
	                        "others do: that replica's running count is unknown (the run states data_parallel 2)");
	CHECK_INT((int)res.n_rows, 0);
	free(d);

	/* Engine 1's token counter missing: said of replica 1, its series. */
	d = write_run(root, "nogen1", ", \"tp\": 1, \"data_parallel\": 2", 1, NO_GEN1);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT((int)res.n_rows, 2);
	CHECK_CONTAINS(w.text, "nogen1: replica 1: 1 of 1 rows have no output-token count (engine.csv (vLLM's) has no "
	                       "generation_tokens_total{engine=\"1\"}; a replica reads no request log or level count, "
	                       "the server's)");
	wc_ingest_result_clear(&res);
	free(d);

	/* manifest.json alone: a count some replicas make loads (wattcast-run.json
	 * may state them); one none make is the manifest's contradiction. */
	wc_run_manifest m;
	wc_run_manifest_init(&m);
	char *p = test_fixture(root, "manifest.json",
	                       "{\"manifest_version\": 2, \"tp\": 1, \"server\": {\"active_gpu_uuids\": [\"GPU-a\", \"GPU-b\"]}}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_OK);
	CHECK_INT(m.tp, 1);
	CHECK_INT(m.n_gpu_uuids, 2);
	free(p);
	p = test_fixture(root, "manifest.json",
	                 "{\"manifest_version\": 2, \"tp\": 2, \"server\": {\"active_gpu_uuids\": [\"GPU-a\", \"GPU-b\", "
	                 "\"GPU-c\"]}}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "manifest.json:1:31: /tp: 2, but /server/active_gpu_uuids names 3 GPUs");
	free(p);

	wc_ingest_result_clear(&res);
	free(root);
	return check_report("test_ingest_dp_stated");
}

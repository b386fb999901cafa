/*
 * `wattcast ingest` of a vLLM data-parallel run: two engines (labels
 * engine="0" and engine="1"), one GPU each, tensor-parallel 1
 * (docs/formats/telemetry.md, "Data-parallel engines"). The law models
 * one tensor-parallel replica (docs/inference-law.md), but the run was
 * written as one row of tp 2 with the engines' requests summed, without
 * a word, and "tp": 1 in wattcast-run.json was refused (the log holds 2
 * GPUs). Now a run stating "tp": 1 and "data_parallel": 2 is written one
 * row per replica, each with its GPU's power and its engine's running
 * count; one stating neither is read as before, warned ambiguous, naming
 * how to state it.
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

/* GPU 0 at 300 W and GPU 1 at 200 W over T0 .. T0 + 9.9 s at 0.1 s;
 * engine 0 running 6 and engine 1 running 2 at 0.25 s; a level over
 * T0 + 1 .. T0 + 9 s stating 100 requests; `extra` added to
 * wattcast-run.json; a third engine (running 1) when `engines` is 3. */
static char *
write_run_of(const char *root, const char *name, const char *extra, int engines)
{
	static char buf[65536];
	char *d = path_join(root, name);
	size_t len;
	mkdir(d, 0755);
	len = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 100; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s.%03d,0,%.2f W\n%s.%03d,1,%.2f W\n", ts,
		                        (i % 10) * 100, 300.0, ts, (i % 10) * 100, 200.0);
	}
	free(test_fixture(d, "power.csv", buf));
	len = (size_t)snprintf(buf, sizeof buf, "timestamp");
	for (int e = 0; e < engines; e++)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
		                        ",vllm:num_requests_running{engine=\"%d\",model_name=\"Qwen/Qwen3-8B\"}"
		                        ",vllm:num_requests_waiting{engine=\"%d\",model_name=\"Qwen/Qwen3-8B\"}"
		                        ",vllm:generation_tokens_total{engine=\"%d\",model_name=\"Qwen/Qwen3-8B\"}",
		                        e, e, e);
	len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	for (int k = 0; k < 40; k++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,6,0,%d,2,0,%d%s\n", T0 + 0.25 * k, 150 * k,
		                        50 * k, engines > 2 ? ",1,0,5" : "");
	free(test_fixture(d, "engine.csv", buf));
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\","
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"poisson\"%s,"
	         " \"levels\": [{\"label\": \"dp\", \"start_epoch\": 1700000001, \"end_epoch\": 1700000009,"
	         " \"requests\": 100}]}",
	         name, extra);
	free(test_fixture(d, "wattcast-run.json", buf));
	return d;
}

static char *
write_run(const char *root, const char *name, const char *extra)
{
	return write_run_of(root, name, extra, 2);
}

static int
ingest(const char *dir, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	return wc_ingest_run(dir, &o, res, err);
}

static int
warned(const test_warnings *w, const char *text)
{
	return strstr(w->text, text) != NULL;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_data_parallel");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* Stated: two TP 1 replicas, each its GPU's power and its engine's
	 * requests. */
	char *d = write_run(root, "dp", ", \"tp\": 1, \"data_parallel\": 2");
	int rc = ingest(d, &res, &w, &err);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT((int)res.n_rows, 2);
	if (res.n_rows == 2) {
		CHECK(strcmp(res.rows[0].run.run_id, "dp-replica0") == 0);
		CHECK(strcmp(res.rows[1].run.run_id, "dp-replica1") == 0);
		for (int i = 0; i < 2; i++) {
			CHECK_INT(res.rows[i].run.tp, 1);
			CHECK_NEAR(res.rows[i].run.running, i ? 2.0 : 6.0, 1e-9);
			CHECK_NEAR(res.rows[i].run.mean_power_w, i ? 200.0 : 300.0, 1e-6);
			CHECK(isnan(res.rows[i].requests)); /* the level's 100 are both engines' */
		}
	}
	CHECK(!warned(&w, "data-parallel engines"));
	wc_ingest_result_clear(&res);
	free(d);

	/* Not stated: one replica of tp 2, as before, said so and how to
	 * state it. */
	d = write_run(root, "whole", "");
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT((int)res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_INT(res.rows[0].run.tp, 2);
		CHECK_NEAR(res.rows[0].run.running, 8.0, 1e-9);
		CHECK_NEAR(res.rows[0].run.mean_power_w, 500.0, 1e-6);
		CHECK_NEAR(res.rows[0].requests, 100.0, 1e-9);
	}
	CHECK(warned(&w, "engine.csv: running adds up 2 data-parallel engines on 2 GPUs, read as one replica of "
	                 "tp 2; if each is a replica, state \"tp\" per replica and \"data_parallel\": 2"));
	wc_ingest_result_clear(&res);
	free(d);

	/* Stated one replica: read whole, nothing to say. */
	d = write_run(root, "one", ", \"data_parallel\": 1");
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT((int)res.n_rows, 1);
	CHECK(!warned(&w, "data-parallel engines"));
	wc_ingest_result_clear(&res);
	free(d);

	/* Stated replicas the log does not hold: refused whole. */
	d = write_run(root, "three", ", \"tp\": 1, \"data_parallel\": 3");
	CHECK(ingest(d, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "the first sample holds 2 GPUs, expected 3");
	CHECK_INT((int)res.n_rows, 0);
	free(d);
	d = write_run_of(root, "engines", ", \"tp\": 1, \"data_parallel\": 2", 3);
	CHECK_INT(ingest(d, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "engine.csv: its running count names 3 data-parallel engines (engine or dp_rank "
	                        "labels), but the run states data_parallel 2");
	CHECK_INT((int)res.n_rows, 0);
	free(d);
	d = write_run(root, "notp", ", \"data_parallel\": 2");
	CHECK_INT(ingest(d, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "data_parallel 2 needs tp");
	free(d);

	wc_ingest_result_clear(&res);
	free(root);
	return check_report("test_ingest_data_parallel");
}

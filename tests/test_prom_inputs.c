/*
 * Prometheus inputs of `wattcast ingest` without a server (docs/fleet.md):
 * text scrapes written here with a known answer (host a, 2 GPUs drawing
 * 100 + 10 n W each, n = 4 running requests for 120 s then 20, 10 n
 * generated tokens/s), then the same with a NaN sample, a counter reset, a
 * GPU appearing, a GPU without an engine, DCGM's instantaneous power
 * alone and beside the averaged one; syntax errors of both formats
 * and an unreachable server. Each problem is named by series, time and
 * label, and the rows around it keep their exact values.
 */
#include "data/data.h"
#include "data/prom.h"
#include "trace/fleet.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define T0 1767225600L

enum { NAN_AT_50 = 1, RESET_AT_60 = 2, GPU_APPEARS_180 = 4, HOST_WITHOUT_ENGINE = 8, ITL_OLD = 16,
       ITL_NEW = 32, SGLANG = 64, POWER_INSTANT = 128, POWER_BOTH = 256, DP2 = 512, INFO = 1024 };

static char *dir;

static char *
scrapes(const char *name, int flags)
{
	char *buf = NULL, *path = path_join(dir, name);
	size_t len = 0, cap = 0;
	double gen = 5000;
	for (int s = 0; s < 240; s++) {
		int n = s < 120 ? 4 : 20;
		gen = flags & RESET_AT_60 && s == 60 ? 10.0 * n : gen + 10.0 * n;
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld a:8000\n", T0 + s);
		/* SGLang's names of the same gauge and counter (its old ITL name
		 * with ITL_OLD, its new one with ITL_NEW). */
		const char *pre = flags & SGLANG ? "sglang" : "vllm";
		const char *rank = flags & SGLANG ? ",tp_rank=\"0\"" : "";
		if (flags & DP2) {
			/* vLLM's data parallel: two engines of one server, told
			 * apart by `engine` only, each with half the load. */
			for (int e = 0; e < 2; e++)
				test_appendf(&buf, &len, &cap, "vllm:num_requests_running{engine=\"%d\",model_name=\"Qwen/Qwen3-8B\"} "
				             "%d\nvllm:generation_tokens_total{engine=\"%d\",model_name=\"Qwen/Qwen3-8B\"} %.1f\n",
				             e, n / 2, e, 0.5 * gen);
		} else {
			test_appendf(&buf, &len, &cap, "%s{model_name=\"Qwen/Qwen3-8B\"%s} %d\n",
			             flags & SGLANG ? "sglang:num_running_reqs" : "vllm:num_requests_running", rank, n);
			test_appendf(&buf, &len, &cap, "%s:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"%s} %.0f\n",
			             pre, rank, flags & SGLANG ? 1000.0 * floor(gen / 1000.0) : gen);
			/* SGLang's generation_tokens_total counts a request's tokens
			 * when it finishes (steps of 1000 here); its realtime decode
			 * tokens count them as generated and are read, its other
			 * modes not (docs/fleet.md, "Metrics"). */
			if (flags & SGLANG)
				test_appendf(&buf, &len, &cap, "sglang:realtime_tokens_total{model_name=\"Qwen/Qwen3-8B\"%s,"
				             "mode=\"prefill_compute\"} %.0f\nsglang:realtime_tokens_total{model_name=\"Qwen/"
				             "Qwen3-8B\"%s,mode=\"decode\"} %.0f\n", rank, 7.0 * gen, rank, gen);
		}
		/* Inter-token latency under vLLM's old name (50 ms) and its
		 * successor's (20 ms), 10 n tokens a second. */
		if (flags & ITL_OLD)
			test_appendf(&buf, &len, &cap, "%s:time_per_output_token_seconds_sum{model_name=\"Qwen/Qwen3-8B\"} "
			             "%.6f\n%s:time_per_output_token_seconds_count{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
			             pre, 0.05 * gen, pre, gen);
		if (flags & ITL_NEW)
			test_appendf(&buf, &len, &cap, "%s:inter_token_latency_seconds_sum{model_name=\"Qwen/Qwen3-8B\"} "
			             "%.6f\n%s:inter_token_latency_seconds_count{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
			             pre, 0.02 * gen, pre, gen);
		/* vLLM's info metric with the engine's whole configuration as
		 * labels: 40 of them and one value of 70 000 bytes. Not read,
		 * it refused the file ("more than 32 labels", "line longer"). */
		if (flags & INFO && s == 0) {
			test_appendf(&buf, &len, &cap, "vllm:cache_config_info{");
			for (int k = 0; k < 40; k++)
				test_appendf(&buf, &len, &cap, "%sl%d=\"%d\"", k ? "," : "", k, k);
			test_appendf(&buf, &len, &cap, "} 1.0\nvllm:vllm_config_info{attention_config=\"");
			for (int k = 0; k < 700; k++)
				test_appendf(&buf, &len, &cap, "%0100d", k);
			test_appendf(&buf, &len, &cap, "\"} 1.0\n");
		}
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm:9400\n", T0 + s);
		for (int g = 0; g < 3; g++) {
			if (g == 2 && !(flags & GPU_APPEARS_180 && s >= 180))
				continue;
			char v[16];
			snprintf(v, sizeof v, "%d", 100 + 10 * n);
			if (flags & NAN_AT_50 && g == 1 && s == 50)
				strcpy(v, "NaN");
			/* DCGM 3.3's instantaneous power alone, or beside the
			 * averaged one at a value that must not be read. */
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE%s{gpu=\"%d\",Hostname=\"a\",modelName="
			             "\"NVIDIA H100 80GB HBM3\"} %s\n", flags & POWER_INSTANT ? "_INSTANT" : "", g, v);
			if (flags & POWER_BOTH)
				test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE_INSTANT{gpu=\"%d\",Hostname=\"a\","
				             "modelName=\"NVIDIA H100 80GB HBM3\"} 999\n", g);
		}
		if (flags & HOST_WITHOUT_ENGINE)
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"b\",modelName="
			             "\"NVIDIA H100 80GB HBM3\"} 90\n");
	}
	write_text(path, buf);
	free(buf);
	return path;
}

/* ingest --scrapes FILE; the table read back (NULL when it failed). */
static wc_runs_table *
ingest(const char *in, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1",
	                       NULL };
	wc_runs_table *t = NULL;
	unlink(out);
	CHECK(run_wattcast(argv, NULL, r) == 0);
	if (r->status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
		t = NULL;
	free(out);
	return t;
}

/* Row i spans [a, b] s from T0 with `tp` GPUs at level n. */
static void
check_row(const wc_runs_table *t, size_t i, int a, int b, int tp, int n)
{
	if (!t || i >= t->n_runs) {
		CHECK(0);
		return;
	}
	CHECK_NEAR(test_runs_extra(t, i, "start_epoch"), (double)(T0 + a), 1e-6);
	CHECK_NEAR(test_runs_extra(t, i, "end_epoch"), (double)(T0 + b), 1e-6);
	CHECK_INT(t->runs[i].tp, tp);
	CHECK_NEAR(t->runs[i].mean_power_w, tp * (100.0 + 10 * n), 1e-9);
	CHECK_NEAR(t->runs[i].running, n, 1e-12);
	CHECK_NEAR(t->runs[i].throughput_tok_s, 10.0 * n, 1e-9);
}

/* Scrapes `name` written with `flags`, ingested: accepted, with the
 * known answer's two rows (the caller frees the table). */
static wc_runs_table *
ingest_known(const char *name, int flags)
{
	run_result r;
	char *in = scrapes(name, flags);
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK(t && t->n_runs == 2);
	check_row(t, 0, 0, 119, 2, 4);
	check_row(t, 1, 120, 239, 2, 20);
	run_result_free(&r);
	free(in);
	return t;
}

/* Data-parallel engines of one server (vLLM's `engine` label) add up:
 * the same rows as one engine with their sum, said read as one replica
 * (docs/formats/telemetry.md, "Data-parallel engines"), once. */
static void
check_data_parallel(void)
{
	run_result r;
	char *in = scrapes("dp2.prom", DP2);
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK(t && t->n_runs == 2);
	check_row(t, 0, 0, 119, 2, 4);
	check_row(t, 1, 120, 239, 2, 20);
	CHECK_CONTAINS(r.err, "running adds up 2 data-parallel engines on 2 GPUs, read as one replica of tp 2; "
	                      "for a row per replica ingest a run folder stating \"tp\" and \"data_parallel\"");
	const char *said = r.err ? strstr(r.err, "data-parallel engines") : NULL;
	CHECK(said && !strstr(said + 1, "data-parallel engines"));
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
}

static void
check_clean(void)
{
	wc_runs_table *t = ingest_known("clean.prom", 0);
	CHECK(t && strcmp(t->runs[0].platform, "H100") == 0 && strcmp(t->runs[0].model, "Qwen/Qwen3-8B") == 0);
	wc_runs_free(t);
	wc_runs_free(ingest_known("info.prom", INFO)); /* metrics not read are not parsed */
}

/* The engine's metric names. vLLM 0.11 renamed time_per_output_token to
 * inter_token_latency and 0.13 dropped the old name: either gives itl_s,
 * and an engine exporting both is read once, from the new name. SGLang's
 * names (num_running_reqs, generation_tokens_total and both of its ITL
 * histograms) give the same rows as vLLM's. */
static void
check_engine_names(void)
{
	const int flags[6] = { ITL_OLD, ITL_NEW, ITL_OLD | ITL_NEW, SGLANG, SGLANG | ITL_OLD,
		               SGLANG | ITL_OLD | ITL_NEW };
	const double want[6] = { 0.05, 0.02, 0.02, NAN, 0.05, 0.02 };
	for (int k = 0; k < 6; k++) {
		char name[32];
		snprintf(name, sizeof name, "names%d.prom", k);
		wc_runs_table *t = ingest_known(name, flags[k]);
		CHECK(t && strcmp(t->runs[0].model, "Qwen/Qwen3-8B") == 0);
		for (size_t i = 0; t && i < t->n_runs; i++) {
			if (isnan(want[k]))
				CHECK(isnan(test_runs_extra(t, i, "itl_s")));
			else
				CHECK_NEAR(test_runs_extra(t, i, "itl_s"), want[k], 1e-9);
		}
		wc_runs_free(t);
	}
}

/* DCGM's power under its instantaneous name alone gives the same rows;
 * with both names each GPU counts once, from the averaged one, and the
 * PromQL asks for the averaged name first. */
static void
check_power_names(void)
{
	const int flags[2] = { POWER_INSTANT, POWER_BOTH };
	for (int k = 0; k < 2; k++) {
		char name[32];
		snprintf(name, sizeof name, "power%d.prom", k);
		wc_runs_free(ingest_known(name, flags[k]));
	}
	char q[WC_FLEET_QUERY_MAX];
	wc_error err;
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "", 15.0, q, sizeof q, &err), WC_OK);
	CHECK_CONTAINS(q, "label_replace(avg_over_time(DCGM_FI_DEV_POWER_USAGE{}[14999ms]), \"__name__\", "
	                  "\"DCGM_FI_DEV_POWER_USAGE\", \"\", \"\") or label_replace(avg_over_time("
	                  "DCGM_FI_DEV_POWER_USAGE_INSTANT{}[14999ms]), \"__name__\", \"DCGM_FI_DEV_POWER_USAGE_INSTANT\", "
	                  "\"\", \"\")");
	CHECK_INT(wc_fleet_metric_rank(WC_FLEET_POWER, "DCGM_FI_DEV_POWER_USAGE"), 0);
	CHECK_INT(wc_fleet_metric_rank(WC_FLEET_POWER, "DCGM_FI_DEV_POWER_USAGE_INSTANT"), 1);
	/* the engines' order is unchanged: the successor name first */
	CHECK_INT(wc_fleet_metric_rank(WC_FLEET_ITL_SUM, "vllm:inter_token_latency_seconds_sum"), 0);
	CHECK_INT(wc_fleet_query(WC_FLEET_ITL_SUM, "", 15.0, q, sizeof q, &err), WC_OK);
	/* each name's series keeps its name: a warning names the series it quotes */
	CHECK(strncmp(q, "label_replace(last_over_time(vllm:inter_token_latency_seconds_sum{}[14999ms]), \"__name__\", "
	                 "\"vllm:inter_token_latency_seconds_sum\", \"\", \"\") or ", 120) == 0);
	CHECK_CONTAINS(q, " or label_replace(last_over_time(vllm:time_per_output_token_seconds_sum{}[14999ms]), "
	                  "\"__name__\", \"vllm:time_per_output_token_seconds_sum\", \"\", \"\")");
}

static void
check_anomalies(void)
{
	run_result r;
	char *in = scrapes("nan.prom", NAN_AT_50);
	wc_runs_table *t = ingest(in, &r);
	CHECK_CONTAINS(r.err, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"a\",gpu=\"1\"");
	CHECK_CONTAINS(r.err, "NaN sample at 2026-01-01T00:00:50.000Z");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:00:51.000Z; 1 s left out");
	CHECK(t && t->n_runs == 3);
	check_row(t, 0, 0, 49, 2, 4);
	check_row(t, 1, 51, 119, 2, 4);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	in = scrapes("reset.prom", RESET_AT_60);
	t = ingest(in, &r);
	CHECK_CONTAINS(r.err, "vllm:generation_tokens_total{instance=\"a:8000\",model_name=\"Qwen/Qwen3-8B\"}");
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:01:00.000Z (from 7400 to 40)");
	CHECK(t && t->n_runs == 3);
	check_row(t, 0, 0, 59, 2, 4);
	check_row(t, 1, 60, 119, 2, 4);
	check_row(t, 2, 120, 239, 2, 20);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	in = scrapes("appear.prom", GPU_APPEARS_180);
	t = ingest(in, &r);
	CHECK_CONTAINS(r.err, "gpu=\"2\"");
	CHECK_CONTAINS(r.err, "appears at 2026-01-01T00:03:00.000Z; the window is cut (group 'a' now has 3 GPUs)");
	/* With no engine restart the third GPU was there all along, its
	 * series missing: the rows before say TP 3 and are excluded as
	 * partial power (they said TP 2, which this test expected). */
	CHECK_CONTAINS(r.err, "group 'a': 3 GPUs at 2026-01-01T00:03:00.000Z with no engine restart since "
	               "2026-01-01T00:00:00.000Z: its GPUs' series were missing, and its 2 windows before are excluded");
	CHECK(t && t->n_runs == 3);
	for (size_t i = 0; t && i < 2 && i < t->n_runs; i++) {
		CHECK_INT(t->runs[i].tp, 3);
		CHECK_NEAR(t->runs[i].mean_power_w, 2 * (100.0 + 10 * (i ? 20 : 4)), 1e-9);
		CHECK(strcmp(t->runs[i].exclude, "partial power: 2 of 3 GPUs reported") == 0);
	}
	check_row(t, 2, 180, 239, 3, 20);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	/* Host b's GPU, no engine on it while host a's engine has its GPUs:
	 * a GPU no engine uses, left out and said; host a's rows written (it
	 * refused the fleet, exit 1, docs/fleet.md "Grouping"). */
	in = scrapes("noengine.prom", HOST_WITHOUT_ENGINE);
	t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"b\",gpu=\"0\"");
	CHECK_CONTAINS(r.err, ": GPU with no engine series in group 'b', and every engine has GPUs: 1 GPU series no "
	               "engine uses, left out");
	CHECK(t && t->n_runs >= 1);
	for (size_t i = 0; t && i < t->n_runs; i++)
		CHECK(strncmp(t->runs[i].run_id, "a#", 2) == 0);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
}

/* A file with `text` gives exit 1 and `message` on stderr. */
static void
check_refused(const char *flag, const char *name, const char *text, const char *message)
{
	char *in = path_join(dir, name), *out = path_join(dir, "refused.csv");
	const char *argv[] = { "wattcast", "ingest", flag, in, "-o", out, NULL };
	run_result r;
	write_text(in, text);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, message);
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(in);
	free(out);
}

static void
check_syntax(void)
{
	check_refused("--scrapes", "s1.prom", "# wattcast-scrape 1767225600 a:8000\n"
	              "vllm:num_requests_running{model_name=\"x\" 4\n", "s1.prom:2:42: expected ',' or '}'");
	check_refused("--scrapes", "s2.prom", "# wattcast-scrape 1767225600\nvllm:num_requests_running 4W\n",
	              "s2.prom:2:27: expected a sample value");
	check_refused("--scrapes", "s3.prom", "vllm:num_requests_running 4\n",
	              "s3.prom:1:1: sample without a time");
	check_refused("--scrapes", "s4.prom", "# wattcast-scrape 1767225600\nvllm:num_requests_running{a=\"\\q\"} 1\n",
	              "s4.prom:2:31: unknown escape");
	check_refused("--scrapes", "s5.prom", "# wattcast-scrape 1767225600\n"
	              "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 1 1767225601000\n"
	              "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 1 1767225600000\n",
	              "s5.prom:3: DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}: sample at 2026-01-01T00:00:00.000Z is not "
	              "after the previous one");
	check_refused("--prometheus-json", "e.json", "{\"status\":\"error\",\"errorType\":\"bad_data\","
	              "\"error\":\"invalid parameter\"}", "Prometheus answered bad_data: invalid parameter");
	check_refused("--prometheus-json", "n.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"gpu\":\"0\"},\"values\":[[1767225600,\"1\"]]}]}}",
	              "/data/result/0/metric: no __name__ label");
	check_refused("--prometheus-json", "v.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"x\"},\"values\":[[1767225600,1]]}]}}",
	              "/data/result/0/values/0: not a [time, \"value\"] pair");
	/* A value that is a string but no number is named as such, with its
	 * path and text: it was "not a [time, \"value\"] pair". */
	check_refused("--prometheus-json", "h.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"x\"},\"values\":[[1767225600,\"1\"],"
	              "[1767225601,\"0x12C\"]]}]}}", "h.json: /data/result/0/values/1/1: value '0x12C' is not a "
	              "number (expected a number, NaN, +Inf or -Inf)");
	check_refused("--prometheus-json", "a.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"x\"},\"values\":[[1767225600,\"abc\"]]}]}}",
	              "a.json: /data/result/0/values/0/1: value 'abc' is not a number");
	/* Times in the wrong unit were taken as is: microseconds made a row
	 * named h1#1.78442e+12 lasting 121000 s, seconds rows of 1970. */
	check_refused("--scrapes", "us.prom", "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300 1784422669000000\n",
	              "us.prom:1:38: time 1784422669000000 (milliseconds since the epoch) is after 2100-01-01; "
	              "it looks like microseconds");
	check_refused("--scrapes", "sec.prom", "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300 1784422669\n",
	              "sec.prom:1:38: time 1784422669 (milliseconds since the epoch) is "
	              "1970-01-21T15:40:22.669Z, before 2000-01-01; it looks like seconds");
	check_refused("--scrapes", "ms.prom", "# wattcast-scrape 1784422669000 a:8000\nvllm:num_requests_running 4\n",
	              "ms.prom:1:19: time 1784422669000 (seconds since the epoch) is after 2100-01-01; it looks "
	              "like milliseconds");
	check_refused("--prometheus-json", "ms.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"x\"},\"values\":[[1784422669000,\"1\"]]}]}}",
	              "ms.json: /data/result/0/values/0: time 1784422669000 (seconds since the epoch) is after "
	              "2100-01-01; it looks like milliseconds");
	/* A metric that is read keeps the label cap, and says which it is. */
	check_refused("--scrapes", "l33.prom", "# wattcast-scrape 1767225600\nvllm:num_requests_running{a0=\"\","
	              "a1=\"\",a2=\"\",a3=\"\",a4=\"\",a5=\"\",a6=\"\",a7=\"\",a8=\"\",a9=\"\",b0=\"\",b1=\"\","
	              "b2=\"\",b3=\"\",b4=\"\",b5=\"\",b6=\"\",b7=\"\",b8=\"\",b9=\"\",c0=\"\",c1=\"\",c2=\"\","
	              "c3=\"\",c4=\"\",c5=\"\",c6=\"\",c7=\"\",c8=\"\",c9=\"\",d0=\"\",d1=\"\",d2=\"\"} 1\n",
	              "l33.prom:2:219: vllm:num_requests_running has more than 32 labels");
	/* Prometheus refuses hexadecimal sample values; strtod read them. */
	check_refused("--scrapes", "hex.prom", "# wattcast-scrape 1767225600\nvllm:num_requests_running 0x12C\n",
	              "hex.prom:2:27: expected a sample value");
	/* A series twice in one response named no file; with another value
	 * at one time there is no repeat to drop, and the remedy is named. */
	check_refused("--prometheus-json", "dup.json", "{\"status\":\"success\",\"data\":{\"resultType\":"
	              "\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"x\"},\"values\":[[1767225600,\"1\"]]},"
	              "{\"metric\":{\"__name__\":\"x\"},\"values\":[[1767225600,\"2\"]]}]}}",
	              "dup.json: /data/result/1/values/0: x{}: sample at 2026-01-01T00:00:00.000Z is not after the "
	              "previous one (2026-01-01T00:00:00.000Z, another value): save pages of a query with start = "
	              "the previous page's end + step");
}

/* --selector is label matchers, checked before any request: a stray
 * brace came back as Prometheus's "1:53: parse error" in a query the
 * user never wrote, and `or vector(1)` went into every query. On the
 * power query `namespace`/`pod` also match the exported_* labels a
 * Kubernetes fleet's DCGM series carry the GPU's pod under (the
 * documented `{namespace="llm"}` found no GPU there). */
static void
check_selector(void)
{
	char *out = path_join(dir, "sel.csv");
	const char *bad[][2] = { { "{env=~\"good\"", "--selector: column 13: no closing '}'" },
		                 { "{env=\"good\"} or vector(1)", "--selector: column 14: text after the closing '}'" },
		                 { "{env=good}", "--selector: column 6: expected a quoted value" } };
	for (int k = 0; k < 3; k++) {
		const char *argv[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start",
		                       "1767225600", "--end", "1767229199", "--selector", bad[k][0], "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, bad[k][1]);
		CHECK(!strstr(r.err, "127.0.0.1")); /* no request was made */
		run_result_free(&r);
	}
	char q[WC_FLEET_QUERY_MAX];
	wc_error err;
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "{namespace=\"llm\", gpu!=\"1\"}", 1.0, q, sizeof q, &err), WC_OK);
	CHECK_CONTAINS(q, "label_replace(avg_over_time(DCGM_FI_DEV_POWER_USAGE{exported_namespace=\"llm\","
	                  "exported_namespace!=\"\",gpu!=\"1\"}[999ms]), \"__name__\", \"DCGM_FI_DEV_POWER_USAGE\", "
	                  "\"\", \"\") or label_replace(avg_over_time(DCGM_FI_DEV_POWER_USAGE{namespace=\"llm\","
	                  "exported_namespace=\"\",gpu!=\"1\"}[999ms]), \"__name__\", \"DCGM_FI_DEV_POWER_USAGE\", "
	                  "\"\", \"\") or label_replace(avg_over_time(DCGM_FI_DEV_POWER_USAGE_INSTANT{"
	                  "exported_namespace=\"llm\",");
	CHECK_INT(wc_fleet_query(WC_FLEET_RUNNING, "namespace=\"llm\"", 1.0, q, sizeof q, &err), WC_OK);
	CHECK_CONTAINS(q, "avg_over_time(vllm:num_requests_running{namespace=\"llm\"}[999ms])");
	CHECK(!strstr(q, "exported_"));
	/* --prometheus is an http(s) base URL: ftp:// waited 10 s, file://
	 * read a local file, a query string got a redirect page. */
	const char *urls[][2] = { { "ftp://127.0.0.1:1", "is not an http:// or https:// base URL" },
		                  { "file:///etc/passwd", "is not an http:// or https:// base URL" },
		                  { "http://127.0.0.1:1/?x=1", "has a query or fragment" },
		                  { "http://127.0.0.1:1/prom/api/v1/query_range", "names the API path /api/v1/query_range; "
		                    "give the server's base URL, 'http://127.0.0.1:1/prom'" } };
	for (int k = 0; k < 4; k++) {
		const char *argv[] = { "wattcast", "ingest", "--prometheus", urls[k][0], "--start", "1767225600",
		                       "--end", "1767229199", "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "--prometheus: '");
		CHECK_CONTAINS(r.err, urls[k][1]);
		run_result_free(&r);
	}
	free(out);
}

/* Scrapes appended in a loop and read while it writes end in half a line:
 * that last line, without its newline, is dropped with a warning (it
 * refused the file, "label value not closed"); with its newline it is
 * still an error. A last line that parses is dropped too: half a line may
 * (docs/formats/prometheus.md, "A file still being written"). */
static void
check_unfinished(void)
{
	char *in = scrapes("cut.prom", 0);
	static const char half[] = "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a";
	for (int nl = 0; nl < 2; nl++) {
		FILE *fp = fopen(in, "a");
		CHECK(fp && fputs(nl ? "\n" : half, fp) >= 0 && fclose(fp) == 0);
		run_result r;
		wc_runs_table *t = ingest(in, &r);
		CHECK_INT(r.status, nl);
		if (nl) {
			CHECK_CONTAINS(r.err, "cut.prom:1441:44: label value not closed");
		} else {
			CHECK(t && t->n_runs == 2);
			check_row(t, 0, 0, 119, 2, 4);
			check_row(t, 1, 120, 239, 2, 20);
			CHECK_CONTAINS(r.err, "warning: ");
			CHECK_CONTAINS(r.err, "cut.prom:1441: unfinished last line (no newline: the log was still "
			               "being written?) dropped: half a line may read as a number");
		}
		wc_runs_free(t);
		run_result_free(&r);
	}
	free(in);
	/* A whole-looking line (a running count of 00:01:40, its timestamp
	 * given) is dropped the same way, by the one rule. */
	in = scrapes("again.prom", 0);
	FILE *fp = fopen(in, "a");
	CHECK(fp && fprintf(fp, "vllm:num_requests_running{instance=\"a:8000\",model_name=\"Qwen/Qwen3-8B\"} 4 "
	                    "%ld000", T0 + 100) > 0 && fclose(fp) == 0);
	run_result r;
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK(t && t->n_runs == 2);
	CHECK_CONTAINS(r.err, "again.prom:1441: unfinished last line (no newline: the log was still being "
	               "written?) dropped: half a line may read as a number");
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
}

/* --selector on files picks the series a server's queries would: it was
 * accepted and ignored, so a node's GPUs without an engine (free GPUs)
 * refused the file whatever it said, and a selector matching nothing
 * still wrote every host. A label a series lacks is "" (the engines
 * carry no Hostname: `!~` keeps them). */
static void
check_selector_files(void)
{
	char *in = scrapes("free_gpu.prom", HOST_WITHOUT_ENGINE), *out = path_join(dir, "self.csv");
	const char *sel[] = { "{Hostname!~\"b|c\"}", "{instance=\"nomatch\"}" };
	for (int k = 0; k < 2; k++) {
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--selector", sel[k], "-o", out,
		                       "--min-window", "1", NULL };
		run_result r;
		wc_runs_table *t = NULL;
		unlink(out);
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, k);
		if (k == 0 && wc_runs_read(out, &t, NULL) == WC_OK && t->n_runs == 2) {
			check_row(t, 0, 0, 119, 2, 4);
			check_row(t, 1, 120, 239, 2, 20);
		} else {
			CHECK(k == 1);
			CHECK_CONTAINS(r.err, "samples in the files that --selector (if given) matches");
		}
		wc_runs_free(t);
		run_result_free(&r);
	}
	free(in);
	free(out);
}

static void
check_flags_and_server(void)
{
	char *out = path_join(dir, "down.csv");
	run_result r;
	const char *bad_time[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start",
	                           "yesterday", "--end", "1767229199", "-o", out, NULL };
	CHECK(run_wattcast(bad_time, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--start: 'yesterday' is neither RFC 3339");
	run_result_free(&r);
	const char *down[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start",
	                       "1767225600", "--end", "1767229199", "-o", out, NULL };
	CHECK(run_wattcast(down, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "http://127.0.0.1:1: ");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);

	/* A server that takes the connection and never answers: --timeout
	 * bounds the wait and the message says so (it was 300 s of silence,
	 * then curl's "0 bytes received"). The socket listens, never accepts. */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof sa;
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 8) == 0 &&
	      getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(sa.sin_port));
	const char *hang[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                       "1767229199", "--timeout", "0.5", "-o", out, NULL };
	CHECK(run_wattcast(hang, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no answer within 0.5 s (--timeout S waits longer)");
	run_result_free(&r);
	close(fd);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_inputs");
	check_clean();
	check_data_parallel();
	check_engine_names();
	check_power_names();
	check_anomalies();
	check_syntax();
	check_unfinished();
	check_selector();
	check_selector_files();
	check_flags_and_server();
	free(dir);
	return check_report("test_prom_inputs");
}

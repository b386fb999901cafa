/*
 * Telemetry readers (docs/formats/telemetry.md): nvidia-smi logs in every shape nvidia-smi
 * writes them (units or nounits, any column order and subset, with or
 * without index, [N/A] / [Not Supported] / blank fields, values with unit
 * words, CRLF), malformed lines reported as file:line and skipped, the
 * 1 % rule, missing GPUs refused; vLLM engine counters; run manifests
 * (per-request logs: test_request_logs.c); and the bounded streaming metrics against the exact ones.
 */
#include "data/data.h"
#include "trace/trace.h"
#include "data/telemetry_internal.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* Warnings collected from the readers (tests/support). */
typedef test_warnings warnings;

static char *
fixture(const char *name, const char *text)
{
	return test_fixture(dir, name, text);
}

/* Samples delivered by the reader. */
typedef struct {
	double t[512];
	double w[512][4];
	int n, gpus;
} samples;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	samples *s = payload;
	if (s->n < 512) {
		s->t[s->n] = t;
		for (int g = 0; g < n_gpus && g < 4; g++)
			s->w[s->n][g] = w[g];
	}
	s->gpus = n_gpus;
	s->n++;
	return 0;
}

/* Two GPUs, `n` samples 100 ms apart from 2026/07/18 15:57:25.000 local;
 * GPU 0 draws 100 + i W, GPU 1 200 + i W. `style`: 0 = units header with
 * index and uuid, 1 = nounits with columns reordered and no index, 2 = no
 * index and no uuid, 3 = nvidia-smi's own spacing and value units, CRLF. */
static char *
nvsmi_text(int n, int style)
{
	size_t cap = (size_t)n * 2 * 200 + 400, used = 0;
	char *s = malloc(cap);
	static const char *uuid[2] = { "GPU-aaaa-0000", "GPU-bbbb-1111" };
	if (style == 0)
		used += (size_t)snprintf(s + used, cap - used,
		                         "timestamp,index,uuid,power.draw [W],clocks.sm [MHz],utilization.gpu [%%]\n");
	else if (style == 1)
		used += (size_t)snprintf(s + used, cap - used, "power.draw,name,uuid,timestamp,memory.used\n");
	else if (style == 2)
		used += (size_t)snprintf(s + used, cap - used, "timestamp,power.draw [W]\n");
	else
		used += (size_t)snprintf(s + used, cap - used,
		                         "timestamp, index, power.draw [W], clocks.sm [MHz]\r\n");
	for (int i = 0; i < n; i++) {
		int ms = i * 100, sec = 25 + ms / 1000;
		char ts[40];
		snprintf(ts, sizeof ts, "2026/07/18 15:57:%02d.%03d", sec, ms % 1000);
		for (int g = 0; g < 2; g++) {
			double w = (g ? 200.0 : 100.0) + i;
			if (style == 0)
				used += (size_t)snprintf(s + used, cap - used, "%s,%d,%s,%.2f,%s,%s\n", ts, g, uuid[g], w,
				                         i % 3 ? "1410" : "[N/A]", i % 5 ? "87" : "[Not Supported]");
			else if (style == 1)
				used += (size_t)snprintf(s + used, cap - used, "%.2f,NVIDIA A100-SXM4-80GB,%s,%s,\n", w,
				                         uuid[g], ts);
			else if (style == 2)
				used += (size_t)snprintf(s + used, cap - used, "%s,%.2f\n", ts, w);
			else
				used += (size_t)snprintf(s + used, cap - used, "%s, %d, %.2f W, 1410 MHz\r\n", ts, g, w);
		}
	}
	return s;
}

static void
check_two_gpus(const char *name, int style)
{
	char *text = nvsmi_text(50, style);
	char *p = fixture(name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	samples s = { .n = 0 };
	opt.utc_offset_s = -25200;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.n_gpus, 2);
	CHECK_INT(info.samples, 50);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(s.n, 50);
	CHECK_INT(s.gpus, 2);
	CHECK_NEAR(s.t[0], 1784415445.0, 1e-6); /* 15:57:25 at UTC-7 */
	CHECK_NEAR(s.t[49] - s.t[0], 4.9, 1e-6);
	CHECK_NEAR(s.w[7][0], 107.0, 1e-12);
	CHECK_NEAR(s.w[7][1], 207.0, 1e-12);
	CHECK_INT(info.has_index, style == 0 || style == 3);
	CHECK_INT(info.has_uuid, style <= 1);
	CHECK_INT(info.has_units, style != 1);
	if (style == 1)
		CHECK(strcmp(info.uuid[1], "GPU-bbbb-1111") == 0);
	free(text);
	free(p);
}

static void
test_nvsmi_variants(void)
{
	check_two_gpus("units.csv", 0);
	check_two_gpus("nounits_reordered.csv", 1);
	check_two_gpus("no_index.csv", 2);
	check_two_gpus("smi_spacing_crlf.csv", 3);

	/* Without index or uuid and rows of one sample 5 ms apart: the count
	 * of GPUs comes from the caller. */
	const char *stagger =
		"timestamp,power.draw [W]\n"
		"2026/07/18 15:57:25.000,100.00\n2026/07/18 15:57:25.005,200.00\n"
		"2026/07/18 15:57:25.100,101.00\n2026/07/18 15:57:25.105,201.00\n"
		"2026/07/18 15:57:25.200,102.00\n2026/07/18 15:57:25.205,202.00\n";
	char *p = fixture("stagger.csv", stagger);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	samples s = { .n = 0 };
	opt.n_gpus = 2;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(s.n, 3);
	CHECK_NEAR(s.w[2][1], 202.0, 1e-12);
	free(p);

	/* Selecting GPUs by uuid: the other GPU's rows are ignored. */
	char *text = nvsmi_text(20, 0);
	p = fixture("select.csv", text);
	const char *sel[] = { "GPU-bbbb-1111" };
	opt = (wc_telemetry_options)WC_TELEMETRY_OPTIONS_INIT;
	opt.gpu_uuids = sel;
	opt.n_gpu_uuids = 1;
	memset(&s, 0, sizeof s);
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.n_gpus, 1);
	CHECK_INT(s.n, 20);
	CHECK_NEAR(s.w[3][0], 203.0, 1e-12);
	free(text);
	free(p);

	/* Timestamps: local wall time read as UTC. */
	double t;
	CHECK_INT(wc_nvsmi_parse_time("2026/07/18 15:57:25.621", 23, &t), 0);
	CHECK_NEAR(t + 25200.0, 1784415445.621, 1e-6);
	CHECK_INT(wc_nvsmi_parse_time("2024-02-29T00:00:00", 19, &t), 0);
	CHECK_NEAR(t, 1709164800.0, 1e-9);
	CHECK(wc_nvsmi_parse_time("2026/13/01 00:00:00.000", 23, &t) != 0);
	CHECK(wc_nvsmi_parse_time("2026/07/18 15:57", 16, &t) != 0);
}

/* Replace line `k` (1-based, header = 1) of a text. */
static char *
replace_line(const char *text, int k, const char *with)
{
	size_t cap = strlen(text) + strlen(with) + 2;
	char *out = malloc(cap);
	const char *p = text;
	size_t used = 0;
	for (int line = 1; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (line == k)
			used += (size_t)snprintf(out + used, cap - used, "%s\n", with);
		else {
			memcpy(out + used, p, n);
			used += n;
		}
		p += n;
	}
	out[used] = '\0';
	return out;
}

static void
test_nvsmi_bad_lines(void)
{
	char *base = nvsmi_text(200, 0); /* 400 data lines */
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	warnings w = { "", 0 };
	samples s = { .n = 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;

	/* 3 of 400 bad lines (0.75 %): reported as file:line, skipped, and
	 * their samples dropped. */
	char *t1 = replace_line(base, 11, "2026/07/18 15:57:25.400,1,GPU-bbbb-1111,[N/A],1410,87");
	char *t2 = replace_line(t1, 51, "2026/07/18 15:57:27.400,1,GPU-bbbb-1111,abc,1410,87");
	char *t3 = replace_line(t2, 101, "garbage");
	char *p = fixture("bad3.csv", t3);
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 3);
	CHECK_INT(info.samples, 197);
	CHECK_INT(info.dropped_samples, 3);
	CHECK_INT(w.count, 3);
	char want[1200];
	snprintf(want, sizeof want, "%s:11:41: no power reading (power.draw is '[N/A]')", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:51:41: unreadable power.draw 'abc'", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:101:8: expected 6 fields, found 1", p);
	CHECK_CONTAINS(w.text, want);
	free(p);

	/* 5 of 400 (1.25 %): the file is refused. */
	char *t4 = replace_line(t3, 151, "x,y");
	char *t5 = replace_line(t4, 201, "2026/07/18 15:57:34.900,1,GPU-bbbb-1111,,1410,87");
	p = fixture("bad5.csv", t5);
	w.text[0] = '\0';
	w.count = 0;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "5 of 400 data lines are malformed (more than 1 %)");
	snprintf(want, sizeof want, "%s:201:41: no power reading", p);
	CHECK_CONTAINS(w.text, want);
	free(p);

	/* A line longer than the line buffer is a bad line, not a crash. */
	char *huge = malloc(3 * WC_TELEMETRY_LINE_MAX);
	memset(huge, '7', 3 * WC_TELEMETRY_LINE_MAX - 1);
	huge[3 * WC_TELEMETRY_LINE_MAX - 1] = '\0';
	char *t6 = replace_line(base, 21, huge);
	p = fixture("long.csv", t6);
	w.text[0] = '\0';
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	snprintf(want, sizeof want, "%s:21:4097: line longer than 4096 bytes", p);
	CHECK_CONTAINS(w.text, want);
	free(p);

	/* A GPU missing from a sample, with no bad line to explain it (a
	 * lost line): that sample is dropped with a warning and counted as a
	 * bad line, every later one intact. */
	char *t7 = replace_line(base, 31, "");
	p = fixture("missing.csv", t7);
	w.text[0] = '\0';
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.samples, 199);
	CHECK_INT(info.wide_sweeps, 0);
	CHECK_CONTAINS(w.text, "GPU 1 is missing from the sample at line 30; sample dropped");
	free(p);

	/* A GPU that was never there: expecting 4 GPUs where the log has 2. */
	p = fixture("two.csv", base);
	opt.n_gpus = 4;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "the first sample holds 2 GPUs, expected 4");
	/* More GPUs than the run's (a node-wide log): no flag takes uuids,
	 * so the hint names where they go (docs/formats/telemetry.md). */
	opt.n_gpus = 1;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "the first sample holds 2 GPUs, expected 1 (name the run's GPUs: gpu_uuids in "
	               "wattcast-run.json, server.active_gpu_uuids in manifest.json)");
	opt.n_gpus = 0;
	free(p);

	/* No header, no power column. */
	p = fixture("noheader.csv", "2026/07/18 15:57:25.000, 0, 100.0\n");
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "no header line");
	free(p);
	p = fixture("nopower.csv", "timestamp,index,clocks.sm [MHz]\n");
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, ":1:1: no 'power.draw' column");
	free(p);

	/* The in-memory trace sums GPUs per sample. */
	wc_power_trace *pt;
	p = fixture("sum.csv", base);
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_OK);
	CHECK_INT(pt->n, 200);
	CHECK_NEAR(pt->group[10], 100 + 10 + 200 + 10, 1e-12);
	CHECK_NEAR(pt->power[1][10], 210, 1e-12);
	wc_power_trace_free(pt);
	CHECK_INT(wc_power_trace_read(p, &opt, 100, &pt, &err), WC_ERANGE);
	CHECK(pt == NULL);
	free(p);

	free(base);
	free(t1);
	free(t2);
	free(t3);
	free(t4);
	free(t5);
	free(t6);
	free(t7);
	free(huge);
}

static void
test_engine(void)
{
	const char *text =
		"timestamp,vllm:num_requests_running,num_requests_waiting,generation_tokens_total,"
		"request_prefill_time_seconds_sum,unknown_counter\r\n"
		"1000.0,0.0,0.0,10.0,0.5,7\r\n"
		"1001.0,2.0,1.0,30.0,0.5,7\r\n"
		"1002.0,3.0,,50.0,1.5,7\r\n"
		"1003.0,oops,0,60,1.5,7\r\n"
		"1004.0,1.0,0.0,5.0,2.0,7\r\n" /* counter reset: 5 after 50 */
		"1005.0,0.0,0.0,25.0,2.0,7\r\n";
	char *p = fixture("engine.csv", text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e;
	wc_error err;
	warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	opt.epoch_offset_s = 0.25;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK_INT(e->n, 5);
	CHECK_INT(e->bad_lines, 1);
	char want[1200];
	snprintf(want, sizeof want, "%s:5:8: num_requests_running: expected a number, got 'oops'", p);
	CHECK_CONTAINS(w.text, want);
	CHECK(e->col[WC_ENG_RUNNING] && e->col[WC_ENG_WAITING] && e->col[WC_ENG_GENERATION_TOKENS]);
	CHECK(e->col[WC_ENG_PROMPT_TOKENS] == NULL);
	CHECK_NEAR(e->t[0], 1000.25, 1e-12);
	/* Gauges hold, a blank holds the previous value. */
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.9), 2.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_WAITING, 1002.5), 1.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 900.0), 0.0, 0);
	/* Counters interpolate and continue across a reset: 50, then +5, +25. */
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1001.75), 40.0, 1e-9);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1005.25), 75.0, 1e-9);
	CHECK(isnan(wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1001.0)));
	wc_engine_free(e);
	/* One bad line of five is over 1 %. */
	opt.max_bad_fraction = WC_TELEMETRY_MAX_BAD;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "1 of 6 data lines are malformed");
	free(p);
	/* vLLM's newer name of the KV-cache gauge is the same column. */
	p = fixture("engine_kv.csv", "timestamp,vllm:kv_cache_usage_perc\n1000,0.25\n1001,0.5\n");
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK(e->col[WC_ENG_CACHE_USAGE] != NULL);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_CACHE_USAGE, 1001.5), 0.5, 0);
	wc_engine_free(e);
	free(p);
	/* SGLang's gauges under their own names. */
	p = fixture("engine_sglang.csv", "timestamp,sglang:num_running_reqs,sglang:num_queue_reqs,"
	            "sglang:token_usage,sglang:generation_tokens_total\n1000,3,1,0.25,10\n1001,5,0,0.5,90\n");
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK(e->col[WC_ENG_RUNNING] && e->col[WC_ENG_WAITING] && e->col[WC_ENG_CACHE_USAGE] &&
	      e->col[WC_ENG_GENERATION_TOKENS]);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.5), 5.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_WAITING, 1000.5), 1.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1001.25), 90.0, 1e-9);
	wc_engine_free(e);
	free(p);
	p = fixture("engine_notime.csv", "num_requests_running\n1\n");
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "no 'timestamp' column");
	free(p);
}

static void
test_manifests(void)
{
	const char *own =
		"{\"schema\": \"wattcast.run/1\", \"platform\": \"H100\", \"tp\": 2,"
		" \"model\": \"Qwen/Qwen3-14B\", \"utc_offset_s\": 3600, \"workload\": \"closed\","
		" \"concurrency\": 32, \"kv_cache\": \"fp8\","
		" \"idle_window\": {\"start_epoch\": 10, \"end_epoch\": 15},"
		" \"gpu_uuids\": [\"GPU-1\", \"GPU-2\"]}";
	char *p = fixture("wattcast-run.json", own);
	wc_run_manifest m, d;
	wc_error err;
	wc_run_manifest_init(&m);
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_OK);
	CHECK(strcmp(m.platform, "H100") == 0 && m.tp == 2 && m.utc_offset_s == 3600);
	CHECK(m.workload == WC_WORKLOAD_CLOSED && m.concurrency == 32 && m.kv == WC_PREC_FP8);
	CHECK(m.idle_start == 10 && m.idle_end == 15 && m.n_gpu_uuids == 2);
	CHECK(isnan(m.active_params_b));
	/* Flags fill gaps, never overwrite. */
	wc_run_manifest_init(&d);
	snprintf(d.platform, sizeof d.platform, "A100");
	d.active_params_b = 14.8;
	wc_run_manifest_fill(&m, &d);
	CHECK(strcmp(m.platform, "H100") == 0 && m.active_params_b == 14.8);
	free(p);

	p = fixture("typo.json", "{\"schema\": \"wattcast.run/1\", \"platfrom\": \"A100\"}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/platfrom: unknown key");
	CHECK(strcmp(m.platform, "H100") == 0); /* untouched */
	free(p);
	p = fixture("tp.json", "{\"schema\": \"wattcast.run/1\", \"tp\": 1.5}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/tp: expected a whole number");
	free(p);
	p = fixture("twice.json", "{\"schema\": \"wattcast.run/1\", \"gpu_uuids\": [\"GPU-1\", \"GPU-2\", \"GPU-1\"]}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/gpu_uuids/2: GPU-1 repeats /gpu_uuids/0: each of the run's GPUs is named once");
	free(p);

	/* A powertrace-sim manifest, trimmed to the parts wattcast reads. */
	const char *pts =
		"{\"manifest_version\": 2, \"run_id\": \"r1\", \"hardware\": \"A100\", \"tp\": 1,"
		" \"model\": \"Qwen/Qwen3-8B\", \"arch\": {\"n_active\": 8190427136.0, \"moe_frac\": 0.0,"
		" \"n_experts\": 1, \"fp8\": 0}, \"clock\": {\"local_utc_offset_s\": -25200.0,"
		" \"power_timestamp_basis\": \"local_wall_time\", \"engine_timestamp_basis\": \"unix_epoch\","
		" \"request_timestamp_basis\": \"unix_epoch\", \"power_epoch_offset_s\": 0.0,"
		" \"engine_epoch_offset_s\": 0.0}, \"probe\": {\"type\": \"validate\","
		" \"idle_window\": {\"start_epoch\": 5.0, \"end_epoch\": 5.001},"
		" \"levels\": [{\"concurrency\": -1, \"params\": {\"request_rate\": 2.5, \"burstiness\": 4.0},"
		" \"summary\": {\"completed\": 200}}]},"
		" \"server\": {\"kv_cache_dtype\": \"auto\", \"active_gpu_uuids\": [\"GPU-x\"]}}";
	p = fixture("manifest.json", pts);
	wc_run_manifest_init(&m);
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_OK);
	CHECK(strcmp(m.format, "powertrace-sim") == 0 && strcmp(m.run_id, "r1") == 0);
	CHECK(strcmp(m.platform, "A100") == 0 && m.tp == 1);
	CHECK_NEAR(m.active_params_b, 8.190427136, 1e-12);
	CHECK(m.architecture == WC_ARCH_DENSE && m.weights == WC_PREC_BF16 && m.kv == WC_PREC_BF16);
	CHECK(m.utc_offset_s == -25200 && m.requests == 200);
	CHECK(m.workload == WC_WORKLOAD_BURSTY && m.request_rate == 2.5 && m.burstiness == 4.0);
	CHECK(m.idle_start == 5.0 && m.n_gpu_uuids == 1 && strcmp(m.gpu_uuids[0], "GPU-x") == 0);
	free(p);
	p = fixture("bad_basis.json", "{\"manifest_version\": 2, \"clock\": {\"power_timestamp_basis\": \"tai\"}}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "unknown basis 'tai'");
	free(p);
	/* A value wattcast reads, of another type: refused at its pointer,
	 * as wattcast.run's reader refuses one. "hardware": 5 was read as no
	 * platform, and ingest asked for --platform the manifest states. */
	static const struct {
		const char *text, *said;
	} wrong[] = {
		{ "{\"manifest_version\": 2, \"hardware\": 5}", "/hardware: expected a string or null, got integer" },
		{ "{\"manifest_version\": 2, \"tp\": \"2\"}", "/tp: expected a whole number between 1 and" },
		{ "{\"manifest_version\": 2, \"arch\": [1]}", "/arch: expected an object or null, got array" },
		{ "{\"manifest_version\": 2, \"arch\": {\"n_active\": \"8e9\"}}",
		  "/arch/n_active: expected a number or null, got string" },
		{ "{\"manifest_version\": 2, \"server\": {\"active_gpu_uuids\": [\"GPU-x\", 3]}}",
		  "/server/active_gpu_uuids/1: expected a string, got integer" },
		{ "{\"manifest_version\": 2, \"tp\": 2, \"server\": {\"active_gpu_uuids\": [\"GPU-x\"]}}",
		  "manifest.json:1:31: /tp: 2, but /server/active_gpu_uuids names 1 GPU" },
		/* was "power.csv: GPU GPU-x of the run's 2 (gpu_uuids) is in no row" */
		{ "{\"manifest_version\": 2, \"tp\": 2, \"server\": {\"active_gpu_uuids\": [\"GPU-x\", \"GPU-x\"]}}",
		  "manifest.json:1:75: /server/active_gpu_uuids/1: GPU-x repeats /server/active_gpu_uuids/0" },
		{ "{\"manifest_version\": 2, \"probe\": {\"levels\": [{}, 7]}}",
		  "/probe/levels/1: expected an object, got integer" },
		{ "{\"manifest_version\": 2, \"probe\": {\"levels\": [{\"params\": {\"request_rate\": \"4\"}}]}}",
		  "/probe/levels/0/params/request_rate: expected a number or null, got string" },
	};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		p = fixture("manifest.json", wrong[i].text);
		CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "manifest.json:1:"); /* the value's line:column, then its path */
		CHECK_CONTAINS(err.msg, wrong[i].said);
		CHECK(strcmp(m.platform, "A100") == 0); /* untouched */
		free(p);
	}
	/* null states nothing, as absent does */
	p = fixture("manifest.json", "{\"manifest_version\": 2, \"hardware\": null, \"arch\": null}");
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_OK);
	free(p);
}

/* Bounded mode: beyond `exact_max` samples the stream keeps fixed memory;
 * what stays exact must equal the array metrics, quantiles within the
 * histogram's resolution. */
static void
test_stream_bounded(void)
{
	enum { N = 20000 };
	double *t = malloc(N * sizeof *t), *p = malloc(N * sizeof *p);
	wc_pcg32 rng;
	wc_trace_metrics exact, bounded, small;
	wc_error err;
	int is_exact;
	wc_pcg32_seed(&rng, 9, 9);
	for (size_t i = 0; i < N; i++) {
		t[i] = 1784415445.0 + 0.1 * (double)i;
		p[i] = 90.0 + 300.0 * (fmod(0.1 * (double)i, 12.0) < 7.0) + 20.0 * wc_pcg32_normal(&rng);
	}
	CHECK_INT(wc_trace_metrics_compute(t, p, N, &exact, &err), WC_OK);
	wc_trace_stream *s = wc_trace_stream_new(1000);
	int push_rc = WC_OK;
	for (size_t i = 0; i < N && push_rc == WC_OK; i++)
		push_rc = wc_trace_stream_push(s, t[i], p[i], &err);
	CHECK_INT(push_rc, WC_OK);
	CHECK_INT(wc_trace_stream_finish(s, &bounded, &is_exact, &err), WC_OK);
	CHECK_INT(is_exact, 0);
	CHECK_INT(bounded.samples, N);
	CHECK_NEAR(bounded.energy_j, exact.energy_j, 1e-9 * exact.energy_j);
	CHECK_NEAR(bounded.mean_w, exact.mean_w, 1e-9 * exact.mean_w);
	CHECK(bounded.max_w == exact.max_w);
	CHECK_NEAR(bounded.ramp_w_per_s, exact.ramp_w_per_s, 1e-9 * exact.ramp_w_per_s);
	CHECK_NEAR(bounded.p5_w, exact.p5_w, 2e-4 * exact.p5_w);
	CHECK_NEAR(bounded.p50_w, exact.p50_w, 2e-4 * exact.p50_w);
	CHECK_NEAR(bounded.p95_w, exact.p95_w, 2e-4 * exact.p95_w);
	CHECK_NEAR(bounded.ramp_p95_w_per_s, exact.ramp_p95_w_per_s, 2e-4 * exact.ramp_p95_w_per_s);
	CHECK_NEAR(bounded.grid_s, 1.0, 0);
	/* The 12-s duty cycle survives on the 1-s grid. */
	CHECK(fabs(bounded.period_s - 12.0) < 0.24 && fabs(exact.period_s - 12.0) < 0.24);
	CHECK(bounded.spectral_entropy >= 0 && bounded.spectral_entropy <= 1);
	wc_trace_stream_free(s);

	/* Within the exact limit the stream is the array computation. */
	s = wc_trace_stream_new(0);
	for (size_t i = 0; i < 3000; i++)
		wc_trace_stream_push(s, t[i], p[i], &err);
	CHECK_INT(wc_trace_stream_finish(s, &bounded, &is_exact, &err), WC_OK);
	CHECK_INT(wc_trace_metrics_compute(t, p, 3000, &small, &err), WC_OK);
	CHECK_INT(is_exact, 1);
	CHECK(bounded.p95_w == small.p95_w && bounded.spectral_entropy == small.spectral_entropy);
	CHECK_INT(wc_trace_stream_push(s, t[0], p[0], &err), WC_EINVAL); /* back in time */
	wc_trace_stream_free(s);
	wc_trace_stream_free(NULL);
	free(t);
	free(p);
}

/* Idle power: the window when it is long enough, else the lowest flat
 * quiet stretch (spikes tolerated, a cooling tail not), else short. */
static void
test_idle(void)
{
	enum { N = 400 };
	double t[N], p[N], idle;
	unsigned char quiet[N];
	for (size_t i = 0; i < N; i++) {
		double s = 0.25 * (double)i;
		t[i] = 1000.0 + s;
		/* busy 300 W for 20-60 s, then decaying 300 -> 95 W over 60-70 s,
		 * idle at 95 W with a spike every 2 s; idle 90 W for 0-20 s but
		 * with a request running during 0-18 s. */
		p[i] = s < 20 ? 90.0 : s < 60 ? 300.0 : s < 70 ? 300.0 - 20.5 * (s - 60) : 95.0;
		if (s >= 70 && i % 8 == 0)
			p[i] = 400.0;
		quiet[i] = !(s < 18 || (s >= 20 && s < 60));
	}
	const char *src = wc_trace_idle_power(t, p, N, quiet, NAN, NAN, &idle);
	/* 18-20 s is quiet but only 2 s long: the 95 W stretch wins. */
	CHECK(strcmp(src, "quiet_stretch") == 0);
	CHECK_NEAR(idle, 95.0, 1e-9);
	/* A long enough window is used as it is. */
	src = wc_trace_idle_power(t, p, N, quiet, 1002.0, 1006.0, &idle);
	CHECK(strcmp(src, "window") == 0);
	CHECK_NEAR(idle, 90.0, 1e-9);
	/* A 1-ms window (powertrace-sim's) is not. */
	src = wc_trace_idle_power(t, p, N, quiet, 1002.0, 1002.001, &idle);
	CHECK(strcmp(src, "quiet_stretch") == 0);
	/* Without n(t), the lowest flat stretch anywhere. */
	src = wc_trace_idle_power(t, p, N, NULL, NAN, NAN, &idle);
	CHECK(strcmp(src, "quiet_stretch") == 0);
	CHECK_NEAR(idle, 90.0, 1e-9);
	/* Nothing quiet for 1 s: the lowest quiet sample, flagged short. */
	for (size_t i = 0; i < N; i++)
		quiet[i] = i == 3 || i == 250;
	src = wc_trace_idle_power(t, p, N, quiet, NAN, NAN, &idle);
	CHECK(strcmp(src, "quiet_short") == 0);
	CHECK_NEAR(idle, 90.0, 1e-9);
	memset(quiet, 0, sizeof quiet);
	src = wc_trace_idle_power(t, p, N, quiet, NAN, NAN, &idle);
	CHECK(strcmp(src, "none") == 0 && isnan(idle));
}

int
main(void)
{
	dir = test_tmpdir("telemetry_readers");
	test_nvsmi_variants();
	test_nvsmi_bad_lines();
	test_engine();
	test_manifests();
	test_stream_bounded();
	test_idle();
	free(dir);
	return check_report("test_telemetry_readers");
}

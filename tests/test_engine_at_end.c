/*
 * Engine token counters that count a request's tokens when it finishes
 * (docs/formats/telemetry.md, "engine.csv"; docs/fleet.md, "Metrics"):
 * SGLang's sglang:prompt_tokens_total and sglang:generation_tokens_total
 * (TokenizerMetricsCollector.observe_one_finished_request adds a
 * request's tokens at once). They were read as vLLM's, which count tokens
 * as they are generated. The one table of names says so per counter
 * (wc_engine_exported_at_end); engine.csv's reader keeps the name read
 * (e->at_end) and gives no live column for it (wc_engine_live), a bare
 * name in an SGLang log included; SGLang's realtime_tokens_total, whose
 * mode="decode" series counts output tokens as generated, is read instead
 * wherever it is there, in either column order, its other modes not.
 * `ingest --scrapes` with SGLang's generation_tokens_total alone leaves
 * the token rates blank with one warning (they were 10 n tok/s of a
 * counter that moves in steps), and reads the realtime series when there.
 */
#include "data/data.h"
#include "data/engine_log.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static char *dir;

static wc_engine_log *
read_log(const char *name, const char *text)
{
	char *p = test_fixture(dir, name, text);
	wc_engine_log *e = NULL;
	wc_error err;
	wc_telemetry_options o;
	memset(&o, 0, sizeof o);
	o.max_bad_fraction = 0.01;
	int rc = wc_engine_read(p, &o, 0, &e, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	free(p);
	return rc == WC_OK ? e : NULL;
}

/* The exported names' attribute, one table. */
static void
names(void)
{
	CHECK(wc_engine_exported_at_end("sglang:generation_tokens_total"));
	CHECK(wc_engine_exported_at_end("sglang:prompt_tokens_total{tp_rank=\"0\"}"));
	CHECK(!wc_engine_exported_at_end("vllm:generation_tokens_total"));
	CHECK(!wc_engine_exported_at_end("vllm:prompt_tokens_total"));
	CHECK(!wc_engine_exported_at_end("sglang:realtime_tokens_total"));
	CHECK(!wc_engine_exported_at_end("sglang:num_running_reqs"));
	CHECK(wc_engine_exported_label("sglang:realtime_tokens_total") &&
	      strcmp(wc_engine_exported_label("sglang:realtime_tokens_total"), "mode=\"decode\"") == 0);
	CHECK(!wc_engine_exported_label("sglang:generation_tokens_total"));
	CHECK(wc_engine_labels_have("tp_rank=\"0\",mode=\"decode\"", "mode=\"decode\""));
	CHECK(!wc_engine_labels_have("tp_rank=\"0\",mode=\"prefill_compute\"", "mode=\"decode\""));
	CHECK(!wc_engine_labels_have("tp_rank=\"0\"", "mode=\"decode\""));
}

/* engine.csv: which counters count at the end, and what is read. */
static void
csv_logs(void)
{
	wc_engine_log *e = read_log("sglang.csv", "timestamp,sglang:num_running_reqs,sglang:prompt_tokens_total,"
	                                          "sglang:generation_tokens_total\n1000,1,0,0\n1001,1,0,0\n1002,0,90,"
	                                          "40\n");
	if (e) {
		CHECK(e->at_end[WC_ENG_GENERATION_TOKENS] &&
		      strcmp(e->at_end[WC_ENG_GENERATION_TOKENS], "sglang:generation_tokens_total") == 0);
		CHECK(e->at_end[WC_ENG_PROMPT_TOKENS] != NULL);
		CHECK(e->col[WC_ENG_GENERATION_TOKENS] != NULL);
		CHECK(wc_engine_live(e, WC_ENG_GENERATION_TOKENS) == NULL);
		CHECK(wc_engine_live(e, WC_ENG_PROMPT_TOKENS) == NULL);
		CHECK(wc_engine_live(e, WC_ENG_RUNNING) == e->col[WC_ENG_RUNNING]);
	}
	wc_engine_free(e);
	/* Without the prefix, in a log whose gauges are SGLang's. */
	e = read_log("sglang_bare.csv", "timestamp,num_running_reqs,generation_tokens_total\n1000,1,0\n1001,0,40\n");
	if (e)
		CHECK(e->at_end[WC_ENG_GENERATION_TOKENS] != NULL);
	wc_engine_free(e);
	/* vLLM's, prefixed or not, count as generated: read as before. */
	e = read_log("vllm.csv", "timestamp,vllm:num_requests_running,vllm:generation_tokens_total\n1000,1,0\n"
	                         "1001,1,20\n");
	if (e) {
		CHECK(e->at_end[WC_ENG_GENERATION_TOKENS] == NULL);
		CHECK(wc_engine_live(e, WC_ENG_GENERATION_TOKENS) == e->col[WC_ENG_GENERATION_TOKENS]);
	}
	wc_engine_free(e);
	e = read_log("bare.csv", "timestamp,num_requests_running,generation_tokens_total\n1000,1,0\n1001,1,20\n");
	if (e)
		CHECK(e->at_end[WC_ENG_GENERATION_TOKENS] == NULL);
	wc_engine_free(e);
	/* The realtime decode series wins over generation_tokens_total in
	 * either order; prefill_compute is not read. */
	for (int order = 0; order < 2; order++) {
		const char *gen = "sglang:generation_tokens_total{tp_rank=\"0\"}";
		const char *rt = "sglang:realtime_tokens_total{tp_rank=\"0\",mode=\"decode\"}";
		char text[1024];
		snprintf(text, sizeof text,
		         "timestamp,sglang:num_running_reqs{tp_rank=\"0\"},%s,sglang:realtime_tokens_total{tp_rank=\"0\","
		         "mode=\"prefill_compute\"},%s\n1000,2,0,500,0\n1001,2,%s,900,%s\n1002,0,40,1000,40\n",
		         order ? rt : gen, order ? gen : rt, order ? "15" : "0", order ? "0" : "15");
		wc_engine_log *r = read_log(order ? "realtime_first.csv" : "realtime_last.csv", text);
		if (!r)
			continue;
		CHECK(r->at_end[WC_ENG_GENERATION_TOKENS] == NULL);
		CHECK(wc_engine_live(r, WC_ENG_GENERATION_TOKENS) != NULL);
		if (r->col[WC_ENG_GENERATION_TOKENS] && r->n == 3)
			CHECK_NEAR(r->col[WC_ENG_GENERATION_TOKENS][1], 15, 0);
		wc_engine_free(r);
	}
}

/* Scrapes of one SGLang engine, n = 4 running for 120 s then 20, 10 n
 * tokens a second as generated; its generation_tokens_total steps by 1000
 * as requests finish, its prompt_tokens_total by 2000; with `realtime`,
 * the decode series too. */
static char *
scrapes(const char *name, int realtime)
{
	char *buf = NULL, *path = path_join(dir, name);
	size_t len = 0, cap = 0;
	double gen = 5000;
	for (int s = 0; s < 240; s++) {
		int n = s < 120 ? 4 : 20;
		gen += 10.0 * n;
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld a:30000\n", T0 + s);
		test_appendf(&buf, &len, &cap, "sglang:num_running_reqs{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"} %d\n"
		             "sglang:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"} %.0f\n"
		             "sglang:prompt_tokens_total{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"} %.0f\n", n,
		             1000.0 * floor(gen / 1000.0), 2000.0 * floor(gen / 1000.0));
		if (realtime)
			test_appendf(&buf, &len, &cap, "sglang:realtime_tokens_total{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\","
			             "mode=\"decode\"} %.0f\n", gen);
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm:9400\n", T0 + s);
		for (int g = 0; g < 2; g++)
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",Hostname=\"a\",modelName="
			             "\"NVIDIA H100 80GB HBM3\"} %d\n", g, 100 + 10 * n);
	}
	write_text(path, buf);
	free(buf);
	return path;
}

static void
fleet(void)
{
	for (int realtime = 0; realtime < 2; realtime++) {
		char *in = scrapes(realtime ? "realtime.prom" : "at_end.prom", realtime);
		char *out = path_join(dir, realtime ? "realtime.csv" : "at_end.csv");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", NULL };
		run_result r;
		wc_runs_table *t = NULL;
		CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
		if (r.status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
			t = NULL;
		CHECK(t && t->n_runs == 2);
		for (size_t i = 0; t && i < t->n_runs; i++) {
			double n = i == 0 ? 4 : 20;
			if (realtime) {
				CHECK_NEAR(t->runs[i].throughput_tok_s, 10.0 * n, 1e-9);
			} else {
				CHECK(isnan(t->runs[i].throughput_tok_s));
				CHECK(isnan(t->runs[i].energy_per_token_j));
			}
		}
		if (realtime)
			CHECK(!strstr(r.err, "sglang:generation_tokens_total counts"));
		else
			CHECK_CONTAINS(r.err, "group 'a': sglang:generation_tokens_total counts a request's tokens when it "
			                      "finishes: no rate, so generation_tok_s, throughput_tok_s and energy_per_token_j are blank "
			                      "(sglang:realtime_tokens_total{mode=\"decode\"} counts them as generated)");
		/* The prompt counter's blank rate is said too, once, with no way
		 * out: the realtime series' prefill modes are not read
		 * (docs/fleet.md, "Metrics"). Beside the generation counter it was
		 * silent; beside the decode series it offered that series. */
		const char *prompt = "group 'a': sglang:prompt_tokens_total counts a request's tokens when it finishes: "
		                     "no rate, so prompt_tok_s is blank\n";
		const char *said = strstr(r.err, prompt);
		CHECK(said != NULL);
		CHECK(said == NULL || !strstr(said + 1, prompt));

		wc_runs_free(t);
		run_result_free(&r);
		free(in);
		free(out);
	}
}

int
main(void)
{
	dir = test_tmpdir("engine_at_end");
	names();
	csv_logs();
	fleet();
	free(dir);
	return check_report("test_engine_at_end");
}

/*
 * engine.csv of data-parallel engines (vLLM's `engine` label, SGLang's
 * `dp_rank`) whose header has no column of a gauge for one engine it
 * names: num_requests_running{engine="1"} absent while engine 1's
 * counters are there. That engine served, so the gauge's sum is unknown,
 * not engine 0's part -- one rule with a counter lacking an engine
 * (docs/formats/telemetry.md, "Missing cells"): the column is read as
 * absent, said naming the engine's series, and n(t) comes from the
 * request log, else the run is refused naming it. Before, the gauge was
 * summed without it: n(t) read engine 0's requests alone (4 running of
 * 8, half), silently. A gauge without the labels is a server's whole
 * count, kept; a counter lacking an engine only a gauge names is unknown
 * by the same rule.
 */
#include "data/data.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0

static char *dir;

static wc_engine_log *
read_log(const char *name, const char *body, test_warnings *w)
{
	return test_engine_fixture(dir, name, body, WC_TELEMETRY_MAX_BAD, w);
}

/* The reader: engine 1 has counters but no running column. */
static void
reader(void)
{
	static const char *const label[] = { "vllm:", "num_requests_running", "engine",
		                             "sglang:", "num_running_reqs", "dp_rank" };
	for (int k = 0; k < 2; k++) {
		const char *pre = label[3 * k], *gauge = label[3 * k + 1], *lab = label[3 * k + 2];
		char body[1024], want[256];
		snprintf(body, sizeof body,
		         "timestamp,\"%s%s{%s=\"\"0\"\"}\",\"%sgeneration_tokens_total{%s=\"\"0\"\"}\","
		         "\"%sgeneration_tokens_total{%s=\"\"1\"\"}\"\n"
		         "1000,4,10,5\n1001,4,20,15\n1002,4,30,25\n",
		         pre, gauge, lab, pre, lab, pre, lab);
		test_warnings w;
		wc_engine_log *e = read_log(k ? "gauge_sglang.csv" : "gauge_vllm.csv", body, &w);
		if (!e)
			continue;
		snprintf(want, sizeof want, "num_requests_running{%s=\"1\"} has no column while that engine's other "
		         "columns do: their sum is unknown, not a part; num_requests_running read as absent", lab);
		CHECK_CONTAINS(w.text, want);
		/* read as 4 running, engine 0's alone */
		CHECK(e->col[WC_ENG_RUNNING] == NULL);
		CHECK(isnan(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0)));
		snprintf(want, sizeof want, "%s=\"1\"", lab);
		CHECK(strcmp(e->engine_without[WC_ENG_RUNNING], want) == 0);
		/* the counters both engines have are added up as before */
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1002.0) -
		           wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0), 40.0, 0);
		wc_engine_free(e);
	}

	/* every engine's gauge: summed, the cache's mean, no word */
	test_warnings w;
	wc_engine_log *e = read_log("gauge_both.csv",
	                            "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	                            "\"vllm:num_requests_running{engine=\"\"1\"\"}\","
	                            "\"vllm:gpu_cache_usage_perc{engine=\"\"0\"\"}\","
	                            "\"vllm:gpu_cache_usage_perc{engine=\"\"1\"\"}\","
	                            "\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	                            "1000,4,3,0.5,0.3,10,5\n1001,4,3,0.5,0.3,20,15\n", &w);
	if (e) {
		CHECK(w.text[0] == '\0');
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0), 7.0, 0);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_CACHE_USAGE, 1001.0), 0.4, 1e-12);
	}
	wc_engine_free(e);
	/* the cache gauge lacking engine 1: its mean is unknown alike */
	e = read_log("cache_one.csv",
	             "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	             "\"vllm:num_requests_running{engine=\"\"1\"\"}\","
	             "\"vllm:gpu_cache_usage_perc{engine=\"\"0\"\"}\"\n"
	             "1000,4,3,0.5\n1001,4,3,0.5\n", &w);
	if (e) {
		CHECK_CONTAINS(w.text, "gpu_cache_usage_perc{engine=\"1\"} has no column while that engine's other "
		               "columns do: their mean is unknown, not a part");
		CHECK(e->col[WC_ENG_CACHE_USAGE] == NULL);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0), 7.0, 0);
	}
	wc_engine_free(e);

	/* one rule: a counter lacking an engine only the gauges name */
	e = read_log("counter_gauge_named.csv",
	             "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	             "\"vllm:num_requests_running{engine=\"\"1\"\"}\","
	             "\"vllm:generation_tokens_total{engine=\"\"0\"\"}\"\n"
	             "1000,4,3,10\n1001,4,3,20\n", &w);
	if (e) {
		CHECK_CONTAINS(w.text, "generation_tokens_total{engine=\"1\"} has no column while that engine's other "
		               "columns do: their sum is unknown, not a part; generation_tokens_total read as absent");
		CHECK(e->col[WC_ENG_GENERATION_TOKENS] == NULL);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0), 7.0, 0);
	}
	wc_engine_free(e);

	/* a gauge without the labels is the server's whole count: kept */
	e = read_log("gauge_whole.csv",
	             "timestamp,num_requests_running,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	             "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	             "1000,8,10,5\n1001,8,20,15\n", &w);
	if (e) {
		CHECK(w.text[0] == '\0');
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0), 8.0, 0);
	}
	wc_engine_free(e);

	/* a header again that leaves engine 1's counter out ends the log
	 * there; the engines it names are none the rows had */
	e = read_log("ended.csv",
	             "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	             "\"vllm:num_requests_running{engine=\"\"1\"\"}\"\n"
	             "1000,4,3\n1001,4,3\n"
	             "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	             "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	             "1002,4,30\n", &w);
	if (e) {
		CHECK_INT(e->n, 2);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.0), 7.0, 0);
		CHECK(e->engine_without[WC_ENG_RUNNING][0] == '\0');
	}
	wc_engine_free(e);
}

/* A run folder dir/name: one GPU every 0.1 s over 20 s, 100 W for 5 s then
 * 300 W; engine.csv every 0.5 s, engine 0 running 4 from 5 s on and both
 * engines counting 50 tokens a row, engine 1 without a running column;
 * with `requests`, a requests.csv of 8 requests from 5 s to 20 s. Its
 * path. */
static char *
make_run(const char *name, int requests)
{
	char *run = path_join(dir, name), *p, *buf = malloc(16384);
	size_t len = 0;
	mkdir(run, 0755);
	len = (size_t)snprintf(buf, 16384, "index,timestamp,power.draw\n");
	for (int i = 0; i <= 200; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		len += (size_t)snprintf(buf + len, 16384 - len, "0,%s.%03d,%.2f\n", ts, (i % 10) * 100,
		                        i < 50 ? 100.0 : 300.0);
	}
	p = path_join(run, "power.csv");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	len = (size_t)snprintf(buf, 16384, "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\"}\","
	                       "\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                       "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%d,%d,%d\n", T0 + 0.5 * k, k < 10 ? 0 : 4,
		                        k < 10 ? 0 : 50 * (k - 10), k < 10 ? 0 : 50 * (k - 10));
	p = path_join(run, "engine.csv");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	if (requests) {
		len = (size_t)snprintf(buf, 16384, "arrival_s,completion_s,first_token_s,input_tokens,output_tokens\n");
		for (int k = 0; k < 8; k++)
			len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%.3f,%.3f,100,375\n",
			                        T0 + 5.0 + 0.01 * k, T0 + 20.0, T0 + 5.2 + 0.01 * k);
		p = path_join(run, "requests.csv");
		CHECK_INT(write_text(p, buf), 0);
		free(p);
	}
	free(buf);
	return run;
}

static void
ingest(void)
{
	char *run = make_run("no_log", 0), *table = path_join(dir, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", table, "--platform", "H100", "--model",
		               "Llama-3.1-8B", "--utc-offset", "0", NULL };
	run_result r;
	/* without a request log: no n(t), said naming the engine; it wrote
	 * 3.00 running (engine 0's 4 over 15 of 20 s) for the requests' 5.96 */
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "engine.csv: num_requests_running{engine=\"1\"} has no column while that engine's "
	               "other columns do: their sum is unknown, not a part; num_requests_running read as absent");
	CHECK_CONTAINS(r.err, "engine.csv: no n(t): num_requests_running{engine=\"1\"} has no column while that "
	               "engine's others do: the running sum is unknown, and no request log");
	run_result_free(&r);
	free(run);

	/* with one: n(t) from it, 8 running from 5 s on (5.96 over the row) */
	run = make_run("with_log", 1);
	argv[2] = run;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "num_requests_running{engine=\"1\"} has no column");
	char *text = r.status == 0 ? test_slurp(table) : NULL;
	char v[64];
	test_csv_field(text ? text : "", "n_source", v, sizeof v);
	CHECK(strcmp(v, "requests") == 0);
	test_csv_field(text ? text : "", "running", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 5.9626, 0.001);
	free(text);
	run_result_free(&r);
	free(run);
	free(table);
}

int
main(void)
{
	dir = test_tmpdir("engine_gauge_engine_missing");
	reader();
	ingest();
	free(dir);
	return check_report("test_engine_gauge_engine_missing");
}

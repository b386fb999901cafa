/*
 * engine.csv with blank or NaN cells on its first rows (a labelled counter
 * not exported yet while the server idles; pandas' NaN for a series not
 * scraped yet) reads as the Prometheus readers read the same data
 * (docs/formats/telemetry.md, "Missing cells"): a counter before its first
 * value has not started -- it stands at that value, nothing is counted
 * before it -- and a gauge before its first value is unknown, not 0.
 * Before, nothing filled the cells before a column's first value, so a
 * window starting there read every counter as unknown: the tokens,
 * iterations and phase split of a whole run were lost, and one blank cell
 * of one data-parallel engine on the first row did the same. A counter
 * whose first value is more than a spacing counts at its fastest pace
 * started mid-run: the row starts there (it counted from it over the
 * whole window, energy from the start); one blank on every line is
 * absent, not 0 (it gave 0 tok/s silently), and so is a sum of engines
 * one of which is blank on every line (it gave the others' tokens alone).
 * The mirror on the last rows: a counter blank after its last value is
 * unknown there, not held flat -- the row ends at its last value (held
 * flat, a run's tokens fell 25 % short with no word) -- and a sum of
 * engines one of which has no column of a counter its other counters
 * have is unknown, as one blank on every line (it gave half the tokens).
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

/* Counters blank, then NaN, on the first rows: the window from the log's
 * start counts from their first value, as the untouched log does; the
 * gauge blank there is unknown. */
static void
leading_counters(void)
{
	test_warnings w;
	wc_engine_log *e = read_log("lead.csv",
	                            "timestamp,num_requests_running,generation_tokens_total,iteration_tokens_total_count\n"
	                            "1000,,,nan\n1001,,NaN,\n1002,0,5,2\n1003,3,5,2\n1004,4,35,12\n1005,4,75,22\n", &w);
	if (!e)
		return;
	CHECK_INT(e->n, 6);
	CHECK(w.text[0] == '\0'); /* read as the Prometheus readers do: silently */
	CHECK_NEAR(e->col[WC_ENG_GENERATION_TOKENS][0], 5.0, 0);
	CHECK_NEAR(e->col[WC_ENG_ITERATIONS][1], 2.0, 0);
	/* over the whole log: 70 tokens and 20 steps, as from 1002 on */
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1005.0) -
	           wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0), 70.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_ITERATIONS, 1005.0) -
	           wc_engine_value_at(e, WC_ENG_ITERATIONS, 1000.0), 20.0, 0);
	/* the gauge: unknown before its first value, not 0 */
	CHECK_INT(wc_engine_first_row(e, WC_ENG_RUNNING), 2);
	CHECK(isnan(wc_engine_value_at(e, WC_ENG_RUNNING, 1001.5)));
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1002.5), 0.0, 0);
	CHECK_INT(wc_engine_first_row(e, WC_ENG_GENERATION_TOKENS), 0);
	CHECK_INT(wc_engine_first_row(e, WC_ENG_PROMPT_TOKENS), e->n); /* absent */
	wc_engine_free(e);
}

/* vLLM V1's data-parallel engines, added up: one blank cell of engine 1
 * on the first row; engine 1 had not started there. */
static void
engine_first_cell(void)
{
	test_warnings w;
	wc_engine_log *e = read_log("dp.csv",
	                            "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	                            "1000,10,\n1001,20,7\n1002,30,17\n1003,40,27\n", &w);
	if (!e)
		return;
	CHECK(w.text[0] == '\0');
	CHECK_NEAR(e->col[WC_ENG_GENERATION_TOKENS][0], 17.0, 0);
	CHECK_NEAR(e->col[WC_ENG_GENERATION_TOKENS][3], 67.0, 0);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1003.0) -
	           wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0), 50.0, 0);
	wc_engine_free(e);
	/* a cell of an engine counting already still holds the row before */
	e = read_log("dp_mid.csv",
	             "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	             "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	             "1000,10,5\n1001,20,\n1002,30,17\n", &w);
	if (e)
		CHECK_NEAR(e->col[WC_ENG_GENERATION_TOKENS][1], 15.0, 0);
	wc_engine_free(e);
}

/* An engine a later header adds: its first value is where it starts, not
 * tokens counted at once at the header (it had counted 500 before). */
static void
engine_added_later(void)
{
	test_warnings w;
	wc_engine_log *e = read_log("added.csv",
	                            "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\"\n"
	                            "1000,10\n1001,20\n"
	                            "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	                            "1002,30,500\n1003,40,510\n", &w);
	if (!e)
		return;
	CHECK_INT(e->n, 4);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1003.0) -
	           wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0), 40.0, 0);
	wc_engine_free(e);
}

/* A run folder dir/name: one GPU every 0.1 s over 20 s, 100 W for 5 s then
 * 300 W, and engine.csv `engine`; its path. */
static char *
make_run(const char *name, const char *engine)
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
	p = path_join(run, "engine.csv");
	CHECK_INT(write_text(p, engine), 0);
	free(p);
	free(buf);
	return run;
}

/* `wattcast ingest` of run `name` with engine.csv `engine` into *r; the
 * table's text (NULL on failure). */
static char *
ingest_run(const char *name, const char *engine, run_result *r)
{
	char *run = make_run(name, engine), *table = path_join(dir, "late.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", table, "--platform", "H100", "--model",
		               "Llama-3.1-8B", "--utc-offset", "0", NULL };
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	CHECK_INT(r->status, 0);
	char *text = r->status == 0 ? test_slurp(table) : NULL;
	free(table);
	free(run);
	return text;
}

/* The engine every 0.5 s, idle for 5 s then 8 running, its running gauge
 * blank on the first 20 rows (10 s, half of them under load). */
static void
gauge_late_ingest(void)
{
	char *buf = malloc(16384);
	size_t len = (size_t)snprintf(buf, 16384, "timestamp,num_requests_running,generation_tokens_total\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%s,%d\n", T0 + 0.5 * k,
		                        k < 20 ? "" : "8", k < 10 ? 0 : 100 * (k - 10));
	run_result r;
	char *text = ingest_run("late", buf, &r);
	/* the column and the span unknown, and the row cut to its first value */
	CHECK_CONTAINS(r.err, "engine.csv: num_requests_running has no value on the engine log's first 20 rows "
	               "(1700000000.000-1700000010.000, 10.000 s): unknown there, not 0");
	CHECK_CONTAINS(r.err, "cut to 1700000010.000-1700000020.000");
	/* the clock check matches where the gauge is known only: read as 0
	 * its blank head matched the power 5 s off */
	CHECK(r.err && strstr(r.err, "check the offset") == NULL);
	char v[64];
	/* 8 running over the span it is known; read as 0 before it was 4.0 */
	test_csv_field(text ? text : "", "running", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 8.0, 1e-9);
	test_csv_field(text ? text : "", "start_epoch", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), T0 + 10.0, 1e-3);
	free(text);
	run_result_free(&r);
	free(buf);
}

/* The same run with the gauge known throughout and the token counter
 * blank on its first 20 rows, 5 s of them under load (200 tokens/s):
 * its first value, 1000, is ten times what its fastest pace counts in a
 * spacing -- it started mid-run and counted 1000 tokens unseen. The row
 * starts at its first value, with its energy: 200 tok/s, 1.5 J/token;
 * counted from there over the whole window it read 100 tok/s and 2.5
 * J/token, silently. */
static void
counter_late_ingest(void)
{
	char *buf = malloc(16384);
	size_t len = (size_t)snprintf(buf, 16384, "timestamp,num_requests_running,generation_tokens_total\n");
	for (int k = 0; k <= 40; k++) {
		char cell[16] = "";
		if (k >= 20)
			snprintf(cell, sizeof cell, "%d", 100 * (k - 10));
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%d,%s\n", T0 + 0.5 * k, k < 10 ? 0 : 8, cell);
	}
	run_result r;
	char *text = ingest_run("counter_late", buf, &r);
	CHECK_CONTAINS(r.err, "engine.csv: generation_tokens_total blank on the first 20 rows (1700000000.000-"
	               "1700000010.000, 10.000 s), then 1000, more than its fastest pace (200/s) counts in 0.500 s: "
	               "counted unseen there, unknown");
	CHECK_CONTAINS(r.err, "cut to 1700000010.000-1700000020.000");
	char v[64];
	test_csv_field(text ? text : "", "throughput_tok_s", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 200.0, 1e-6);
	test_csv_field(text ? text : "", "energy_per_token_j", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 1.5, 1e-6);
	free(text);
	run_result_free(&r);

	/* blank on every line: unknown, as a log without the column -- no
	 * throughput, with the "no output-token count" warning; it read 0
	 * tok/s and 0 tokens silently */
	len = (size_t)snprintf(buf, 16384, "timestamp,num_requests_running,generation_tokens_total\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%d,%s\n", T0 + 0.5 * k, k < 10 ? 0 : 8,
		                        k % 2 ? "" : "NaN");
	text = ingest_run("counter_none", buf, &r);
	CHECK_CONTAINS(r.err, "engine.csv: generation_tokens_total has no value on any line (blank or NaN): "
	               "unknown, not 0; read as absent");
	CHECK_CONTAINS(r.err, "1 of 1 rows have no output-token count");
	test_csv_field(text ? text : "", "throughput_tok_s", v, sizeof v);
	CHECK(v[0] == '\0');
	free(text);
	run_result_free(&r);
	free(buf);
}

/* Two data-parallel engines, engine 1's token counter blank on every
 * line while engine 0 counts (vLLM V1's engine label, SGLang's dp_rank):
 * the sum is unknown, read as a log without the column, warned naming
 * engine 1's series; added up without it, it was engine 0's tokens alone,
 * silently. The step counter both engines fill is added up as before. */
static void
engine_never_counts(void)
{
	static const char *const label[] = { "vllm:", "engine", "sglang:", "dp_rank" };
	for (int k = 0; k < 2; k++) {
		const char *pre = label[2 * k], *lab = label[2 * k + 1];
		char body[1024], want[256];
		snprintf(body, sizeof body,
		         "timestamp,\"%sgeneration_tokens_total{%s=\"\"0\"\"}\",\"%sgeneration_tokens_total{%s=\"\"1\"\"}\","
		         "\"%sprompt_tokens_total{%s=\"\"0\"\"}\",\"%sprompt_tokens_total{%s=\"\"1\"\"}\"\n"
		         "1000,10,,4,3\n1001,20,,6,5\n1002,30,nan,8,7\n1003,40,,10,9\n",
		         pre, lab, pre, lab, pre, lab, pre, lab);
		test_warnings w;
		wc_engine_log *e = read_log(k ? "never_sglang.csv" : "never_vllm.csv", body, &w);
		if (!e)
			continue;
		snprintf(want, sizeof want, "generation_tokens_total{%s=\"1\"} has no value on any line (blank or NaN) "
		         "while the other engines count: their sum is unknown, not a part; generation_tokens_total read "
		         "as absent", lab);
		CHECK_CONTAINS(w.text, want);
		CHECK(e->col[WC_ENG_GENERATION_TOKENS] == NULL);
		CHECK(isnan(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1003.0)));
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1003.0) -
		           wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1000.0), 12.0, 0);
		wc_engine_free(e);
	}

	/* ingested without a manifest: no output-token count, no throughput;
	 * it read 100 tok/s, engine 0's half of the 200 */
	char *buf = malloc(16384);
	size_t len = (size_t)snprintf(buf, 16384, "timestamp,num_requests_running,"
	                              "\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                              "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%d,%d,\n", T0 + 0.5 * k, k < 10 ? 0 : 8,
		                        k < 10 ? 0 : 50 * (k - 10));
	run_result r;
	char v[64];
	char *text = ingest_run("engine_never", buf, &r);
	CHECK_CONTAINS(r.err, "engine.csv: generation_tokens_total{engine=\"1\"} has no value on any line");
	CHECK_CONTAINS(r.err, "1 of 1 rows have no output-token count");
	test_csv_field(text ? text : "", "throughput_tok_s", v, sizeof v);
	CHECK(v[0] == '\0');
	test_csv_field(text ? text : "", "energy_per_token_j", v, sizeof v);
	CHECK(v[0] == '\0');
	free(text);
	run_result_free(&r);
	free(buf);
}

/* The mirror of a late counter: the token counter blank on the last 10
 * rows (5 s under load, 200 tokens/s) is unknown there, not held flat:
 * the row ends at its last value, with its energy -- 2000 tokens in 15 s,
 * 133.3 tok/s, 1.75 J/token; held flat it read 100 tok/s and 2.5 J/token
 * over the whole 20 s, silently. Two engines, engine 1's counter blank on
 * the last rows: the sum is unknown from there, said naming engine 1. */
static void
counter_early_ingest(void)
{
	char *buf = malloc(16384);
	size_t len = (size_t)snprintf(buf, 16384, "timestamp,num_requests_running,generation_tokens_total\n");
	for (int k = 0; k <= 40; k++) {
		char cell[16] = "";
		if (k <= 30)
			snprintf(cell, sizeof cell, "%d", k < 10 ? 0 : 100 * (k - 10));
		len += (size_t)snprintf(buf + len, 16384 - len, "%.3f,%d,%s\n", T0 + 0.5 * k, k < 10 ? 0 : 8, cell);
	}
	run_result r;
	char *text = ingest_run("counter_early", buf, &r);
	CHECK_CONTAINS(r.err, "engine.csv: generation_tokens_total blank on the last 10 rows (1700000015.000-"
	               "1700000020.000, 5.000 s) after 2000: unknown there, not held flat; counted to its last value");
	CHECK_CONTAINS(r.err, "cut to 1700000000.000-1700000015.000");
	CHECK_CONTAINS(r.err, "engine's counters 1700000000.000-1700000015.000)");
	char v[64];
	test_csv_field(text ? text : "", "throughput_tok_s", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 2000.0 / 15.0, 1e-6);
	test_csv_field(text ? text : "", "energy_per_token_j", v, sizeof v);
	CHECK_NEAR(strtod(v, NULL), 1.75, 0.01);
	free(text);
	run_result_free(&r);
	free(buf);

	test_warnings w;
	wc_engine_log *e = read_log("dp_early.csv",
	                            "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:generation_tokens_total{engine=\"\"1\"\"}\"\n"
	                            "1000,10,5\n1001,20,7\n1002,30,nan\n1003,40,\n", &w);
	if (!e)
		return;
	CHECK_CONTAINS(w.text, "generation_tokens_total{engine=\"1\"} blank on the last 2 rows (1001.000-1003.000, "
	               "2.000 s) after 7");
	CHECK_INT(e->unknown_last[WC_ENG_GENERATION_TOKENS], 2);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1001.0), 27.0, 0);
	wc_engine_free(e);
}

/* Two data-parallel engines, engine 1 without a generation_tokens_total
 * column while its prompt counter has one: that engine served, so the sum
 * is unknown, read as absent as one blank on every line; added up without
 * it, it was engine 0's tokens alone, silently. An unlabelled column is a
 * server's whole count: kept. */
static void
engine_column_missing(void)
{
	test_warnings w;
	wc_engine_log *e = read_log("dp_nocol.csv",
	                            "timestamp,\"vllm:generation_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:prompt_tokens_total{engine=\"\"0\"\"}\","
	                            "\"vllm:prompt_tokens_total{engine=\"\"1\"\"}\"\n"
	                            "1000,10,4,3\n1001,20,6,5\n1002,30,8,7\n", &w);
	if (!e)
		return;
	CHECK_CONTAINS(w.text, "dp_nocol.csv: generation_tokens_total{engine=\"1\"} has no column while that engine's "
	               "other columns do: their sum is unknown, not a part; generation_tokens_total read as absent");
	CHECK(e->col[WC_ENG_GENERATION_TOKENS] == NULL);
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1002.0) -
	           wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1000.0), 8.0, 0);
	wc_engine_free(e);
	e = read_log("dp_whole.csv",
	             "timestamp,generation_tokens_total,\"vllm:prompt_tokens_total{engine=\"\"0\"\"}\","
	             "\"vllm:prompt_tokens_total{engine=\"\"1\"\"}\"\n"
	             "1000,10,4,3\n1001,20,6,5\n1002,30,8,7\n", &w);
	if (!e)
		return;
	CHECK(w.text[0] == '\0');
	CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1002.0), 30.0, 0);
	wc_engine_free(e);
}

int
main(void)
{
	dir = test_tmpdir("engine_leading_blanks");
	leading_counters();
	engine_first_cell();
	engine_added_later();
	gauge_late_ingest();
	counter_late_ingest();
	engine_never_counts();
	counter_early_ingest();
	engine_column_missing();
	free(dir);
	return check_report("test_engine_leading_blanks");
}

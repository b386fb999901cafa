/*
 * SGLang's `pid` label over time (docs/fleet.md, "Grouping";
 * docs/formats/telemetry.md, "engine.csv"): prometheus_client's
 * multiprocess mode tags each series with its scheduler process's pid, so
 * a restarted scheduler exports new series where vLLM's keeps its labels.
 * `ingest --scrapes` refused the restart as "two engines one after the
 * other ... differ in pid", and engine.csv refused the two processes'
 * columns as two servers. One engine (host a, 1 GPU drawing 100 + 10 n W,
 * n = 4 running requests for 120 s then 20, 10 n generated tokens/s)
 * restarts at 60 s under pid 90 (it was 82), its token counter from 0:
 * read as one engine restarted, with the known answer. Series differing
 * in pid alone at once, and two servers (model_name), are still refused.
 */
#include "data/data.h"
#include "data/engine_log.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600L
#define RESTART 60
#define RUN "sglang:num_running_reqs"
#define GEN "sglang:realtime_tokens_total"

static char *dir;

static int
level(int s)
{
	return s < 120 ? 4 : 20;
}

/* The generation counter at second s: 500000 before the restart, counted
 * from 0 one second before it by the new process. */
static double
counter_at(int s)
{
	double gen = s < RESTART ? 500000 : 0;
	for (int k = s < RESTART ? 0 : RESTART; k <= s; k++)
		gen += 10.0 * level(k);
	return gen;
}

/* What the whole run generated up to second s (the restart joined). */
static double
generated_at(int s)
{
	double gen = 500000;
	for (int k = 0; k <= s; k++)
		gen += 10.0 * level(k);
	return gen;
}

/* The labels of the first process (pid 82) or the second (pid 90);
 * `model` names the second's model instead (two servers). */
static void
labels_of(int second, const char *model, char *out, size_t size)
{
	snprintf(out, size, "model_name=\"%s\",pid=\"%s\",tp_rank=\"0\"",
	         second && model ? model : "Qwen/Qwen3-8B", second ? "90" : "82");
}

/* Scrapes (`name`.prom) and the engine.csv (`name`.csv, one column per
 * process, each empty while the other serves) of the run. both: the old
 * process's series goes on after the restart. */
static void
write_run(const char *name, int both, const char *model, char **prom, char **csv)
{
	char *buf = NULL, *eng = NULL, file[64], lab[2][160];
	size_t len = 0, cap = 0, elen = 0, ecap = 0;
	labels_of(0, model, lab[0], sizeof lab[0]);
	labels_of(1, model, lab[1], sizeof lab[1]);
	test_appendf(&eng, &elen, &ecap, "timestamp");
	for (int p = 0; p < 2; p++)
		test_appendf(&eng, &elen, &ecap, ",%s{%s},%s{%s,mode=\"decode\"}", RUN, lab[p], GEN, lab[p]);
	test_appendf(&eng, &elen, &ecap, "\n");
	for (int s = 0; s < 240; s++) {
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld a:8000\n", T0 + s);
		test_appendf(&eng, &elen, &ecap, "%ld", T0 + s);
		for (int p = 0; p < 2; p++) {
			int serves = p == 0 ? s < RESTART || both : s >= RESTART;
			double gen = p == 0 && s >= RESTART ? counter_at(RESTART - 1) : counter_at(s);
			if (!serves) {
				test_appendf(&eng, &elen, &ecap, ",,");
				continue;
			}
			test_appendf(&buf, &len, &cap, "%s{%s} %d\n%s{%s,mode=\"decode\"} %.1f\n", RUN, lab[p], level(s), GEN,
			             lab[p], gen);
			test_appendf(&eng, &elen, &ecap, ",%d,%.1f", level(s), gen);
		}
		test_appendf(&eng, &elen, &ecap, "\n");
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
		             "Hostname=\"a\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", T0 + s, 100 + 10 * level(s));
	}
	snprintf(file, sizeof file, "%s.prom", name);
	*prom = path_join(dir, file);
	CHECK(write_text(*prom, buf) == 0);
	snprintf(file, sizeof file, "%s.csv", name);
	*csv = path_join(dir, file);
	CHECK(write_text(*csv, eng) == 0);
	free(buf);
	free(eng);
}

/* ingest --scrapes: exit `status`, its stderr holding `says`. */
static wc_runs_table *
scrapes(const char *prom, int status, const char *says)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", prom, "-o", out, "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	unlink(out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, says);
	if (r.status != status)
		fprintf(stderr, "%s: %s\n", prom, r.err);
	if (r.status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
		t = NULL;
	run_result_free(&r);
	free(out);
	return t;
}

static void
check_restart(void)
{
	char *prom, *csv;
	write_run("restart", 0, NULL, &prom, &csv);
	/* Scrapes: one engine, its counter reset at the restart counted from
	 * 0 (the new process's first value, 40 tokens in its first second),
	 * the window cut there. */
	wc_runs_table *t = scrapes(prom, 0, "counter reset at 2026-01-01T00:01:00");
	CHECK(t && t->n_runs == 3);
	for (size_t i = 0; t && i < t->n_runs && i < 3; i++) {
		int n = i < 2 ? 4 : 20;
		CHECK_INT(t->runs[i].tp, 1);
		CHECK_NEAR(t->runs[i].mean_power_w, 100.0 + 10 * n, 1e-9);
		CHECK_NEAR(t->runs[i].running, n, 1e-12);
		CHECK_NEAR(t->runs[i].throughput_tok_s, 10.0 * n, 1e-9);
	}
	wc_runs_free(t);

	/* engine.csv: each process's column read where it has cells, the
	 * counter's restart joined. */
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err = { 0 };
	CHECK_INT(wc_engine_read(csv, &opt, 0, &e, &err), WC_OK);
	if (e) {
		CHECK_INT((int)e->n, 240);
		for (int s = 0; s < 240; s += 7) {
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, (double)(T0 + s)), level(s), 1e-12);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, (double)(T0 + s)), generated_at(s), 1e-6);
		}
	} else {
		fprintf(stderr, "%s: %s\n", csv, err.msg);
	}
	wc_engine_free(e);
	free(prom);
	free(csv);
}

/* One series of a query_range answer from second a to b, its labels
 * `labels` (JSON members), its values by `value`. */
static void
answer_series(char **buf, size_t *len, size_t *cap, const char *labels, int a, int b, double (*value)(int, int),
              int pid)
{
	test_appendf(buf, len, cap, "%s{\"metric\":{%s},\"values\":[", **buf && (*buf)[*len - 1] == '}' ? "," : "",
	             labels);
	for (int s = a; s <= b; s++)
		test_appendf(buf, len, cap, "%s[%ld,\"%.1f\"]", s > a ? "," : "", T0 + s, value(s, pid));
	test_appendf(buf, len, cap, "]}");
}

static double
power_of(int s, int pid)
{
	(void)pid;
	return 100.0 + 10 * level(s);
}

static double
running_of(int s, int pid)
{
	(void)pid;
	return level(s);
}

/* The old process's counter stands still after its last scrape. */
static double
counter_of(int s, int pid)
{
	return pid == 82 && s >= RESTART ? counter_at(RESTART - 1) : counter_at(s);
}

/* A server's answer (--prometheus-json): its queries take each series
 * over one step (trace/fleet.c), so the step of the restart holds the old
 * process's last value and the new one's first, both at one time; read
 * as the restart, the new process's value there. */
static void
check_answer(void)
{
	char *buf = NULL, lab[256];
	size_t len = 0, cap = 0;
	test_appendf(&buf, &len, &cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	answer_series(&buf, &len, &cap, "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"gpu\":\"0\",\"Hostname\":\"a\","
	              "\"modelName\":\"NVIDIA H100 80GB HBM3\"", 0, 239, power_of, 0);
	for (int p = 0; p < 2; p++) {
		int pid = p ? 90 : 82, a = p ? RESTART : 0, b = p ? 239 : RESTART;
		snprintf(lab, sizeof lab, "\"__name__\":\"%s\",\"instance\":\"a:8000\",\"model_name\":\"Qwen/Qwen3-8B\","
		         "\"pid\":\"%d\",\"tp_rank\":\"0\"", RUN, pid);
		answer_series(&buf, &len, &cap, lab, a, b, running_of, pid);
		snprintf(lab, sizeof lab, "\"__name__\":\"%s\",\"instance\":\"a:8000\",\"mode\":\"decode\",\"model_name\":"
		         "\"Qwen/Qwen3-8B\",\"pid\":\"%d\",\"tp_rank\":\"0\"", GEN, pid);
		answer_series(&buf, &len, &cap, lab, a, b, counter_of, pid);
	}
	test_appendf(&buf, &len, &cap, "]}}");
	char *json = path_join(dir, "answer.json"), *out = path_join(dir, "answer.csv");
	CHECK(write_text(json, buf) == 0);
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", json, "-o", out, "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s: %s\n", json, r.err);
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:01:00");
	if (r.status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
		t = NULL;
	CHECK(t && t->n_runs == 3);
	for (size_t i = 0; t && i < t->n_runs && i < 3; i++) {
		int n = i < 2 ? 4 : 20;
		CHECK_NEAR(t->runs[i].mean_power_w, 100.0 + 10 * n, 1e-9);
		CHECK_NEAR(t->runs[i].running, n, 1e-12);
		CHECK_NEAR(t->runs[i].throughput_tok_s, 10.0 * n, 1e-9);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(buf);
	free(json);
	free(out);
}

/* The old process's series at once with the new one's: no restart, no
 * --group-by parts them, refused naming pid. */
static void
check_at_once(void)
{
	char *prom, *csv;
	write_run("at_once", 1, NULL, &prom, &csv);
	wc_runs_table *t = scrapes(prom, 1, "group 'a' left out: one engine's series under two processes at once (an old "
	                           "process's left over?) differ in pid: '82' ");
	wc_runs_free(t);
	free(prom);
	free(csv);
}

/* Two servers, told apart by model_name: still refused, by both readers,
 * naming model_name, not pid. */
static void
check_two_servers(void)
{
	char *prom, *csv;
	write_run("servers", 1, "meta-llama/Llama-3.1-8B-Instruct", &prom, &csv);
	wc_runs_table *t = scrapes(prom, 1, "group 'a' left out: two engines at once, by a label no GPU has (give each "
	                           "server's scrape its GPU's gpu label, --group-by host,gpu; or run folders) differ "
	                           "in model_name");
	wc_runs_free(t);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err = { 0 };
	CHECK_INT(wc_engine_read(csv, &opt, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "header: num_requests_running twice, its labels differing in 'model_name' (two "
	               "servers?)");
	wc_engine_free(e);
	free(prom);
	free(csv);
}

int
main(void)
{
	dir = test_tmpdir("prom_pid");
	check_restart();
	check_answer();
	check_at_once();
	check_two_servers();
	free(dir);
	return check_report("test_prom_pid");
}

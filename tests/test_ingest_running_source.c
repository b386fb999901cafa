/*
 * A run's n(t) is one rule, ingest's and replay's alike
 * (docs/formats/telemetry.md, "n(t) on the 50 ms grid"): from the request
 * log when it places its requests (arrival and completion known), held
 * under the engine's running count where (and while) the engine shows
 * requests waiting; else from the engine's num_requests_running gauge. Ingest took
 * the gauge whenever there was one, and a gauge sampled every 0.5 s that
 * reports a request a second late read its prefill as nothing running
 * (on the PowerTrace smoke runs 42 of 131 steps at 0, mean 0.679 where
 * the request log runs one request 95 % of the time), while replay took
 * the request log for the same run.
 */
#include "data/data.h"
#include "trace/trace.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0

/* ------------------------------------------------ the rule itself */

static void
test_rule(void)
{
	/* Three requests [0, 2) s, one of them with its completion unknown
	 * in the second log. */
	double arr[3] = { 0.0, 0.0, 0.0 }, ft[3] = { 0.5, 0.5, 0.5 }, done[3] = { 2.0, 2.0, 2.0 };
	double undone[3] = { 2.0, 2.0, NAN }, tin[3] = { 1, 1, 1 }, tout[3] = { 1, 1, 1 };
	wc_request_log placed = { 3, arr, ft, done, tin, tout, 0, 0, 0, 0.0 };
	wc_request_log unplaced = { 3, arr, ft, undone, tin, tout, 0, 0, 0, 0.0 };
	/* The engine's gauge, a second late: 0 until 1 s, 2 running with 1
	 * waiting from then to 3 s. */
	double et[4] = { 0.0, 1.0, 2.0, 3.0 }, run[4] = { 0, 2, 2, 0 }, wait[4] = { 0, 1, 0, 0 };
	double nowait[4] = { 0, 0, 0, 0 };
	wc_engine_log eng;
	memset(&eng, 0, sizeof eng);
	eng.n = 4;
	eng.t = et;
	eng.col[WC_ENG_RUNNING] = run;
	eng.col[WC_ENG_WAITING] = wait;
	double n[60];

	CHECK(wc_trace_requests_placed(&placed) && !wc_trace_requests_placed(&unplaced));
	/* The verdict ingest judges once (run_ctx.log_accounts): no
	 * generation_tokens_total here, so it cannot be told (-1), which
	 * leaves the log standing. */
	const int verdict = wc_trace_log_accounts(&placed, &eng, NULL);
	CHECK_INT(verdict, -1);
	/* The request log, the queued third request not counted where the
	 * engine shows it waiting (its sample at 1 s, held to 2 s). */
	const char *src = wc_trace_running_series(&placed, verdict, &eng, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[2], 3, 0);   /* 0.1 s: the engine showed no queue yet */
	CHECK_NEAR(n[30], 2, 0);  /* 1.5 s: 2 running, 1 waiting */
	CHECK_NEAR(n[50], 0, 0);  /* 2.5 s: all done, the gauge still read 2 */
	/* No queue seen: the log's 3 stand, whatever the gauge's largest. */
	eng.col[WC_ENG_WAITING] = nowait;
	src = wc_trace_running_series(&placed, verdict, &eng, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[2], 3, 0);
	/* The verdict passed decides, not a judgement made again here: the
	 * same placed log judged whole stands, judged to leave out work
	 * (docs/formats/telemetry.md, "Request logs", Whole logs) gives way
	 * to the gauge. */
	src = wc_trace_running_series(&placed, 1, &eng, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[2], 3, 0);
	src = wc_trace_running_series(&placed, 0, &eng, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "engine") == 0);
	CHECK_NEAR(n[2], 0, 0);
	CHECK_NEAR(n[30], 2, 0);
	/* ... and without a gauge, a log judged partial is still all there is. */
	src = wc_trace_running_series(&placed, 0, NULL, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[2], 3, 0);
	/* A log that does not place every request: the gauge, whatever the
	 * verdict. */
	src = wc_trace_running_series(&unplaced, 1, &eng, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "engine") == 0);
	CHECK_NEAR(n[2], 0, 0);
	CHECK_NEAR(n[30], 2, 0);
	CHECK_NEAR(n[50], 2, 0);
	/* ... and without a gauge, the log as it is (its first token
	 * standing for the unknown completion). */
	src = wc_trace_running_series(&unplaced, -1, NULL, 0.0, 0.05, 60, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[2], 3, 0);
	CHECK_NEAR(n[30], 2, 0);
	CHECK(wc_trace_running_series(NULL, 0, NULL, 0.0, 0.05, 60, n) == NULL);
}

/* The cap is the engine's running count where it shows a queue, not the
 * run's largest: 30 short requests at once with nothing waiting, then 12
 * long ones of which the engine (its KV cache full) runs 4, the rest
 * waiting. One run-wide cap held the second phase at 30: nothing. */
static void
test_cap_local(void)
{
	double arr[42], ft[42], done[42], tin[42], tout[42];
	for (int i = 0; i < 30; i++) {
		arr[i] = 0.0;
		ft[i] = 0.1;
		done[i] = 1.0;
	}
	for (int i = 30; i < 42; i++) {
		int slot = (i - 30) / 4; /* three waves of four, 2 s each */
		arr[i] = 2.0;
		ft[i] = 2.1 + 2.0 * slot;
		done[i] = 4.0 + 2.0 * slot;
	}
	for (int i = 0; i < 42; i++)
		tin[i] = tout[i] = 1;
	wc_request_log log = { 42, arr, ft, done, tin, tout, 0, 0, 0, 0.0 };
	/* Samples every 0.5 s: 30 running at 0 and 0.5 s, none waiting; from
	 * 2 s 4 running with 8, then 4, then 0 waiting. */
	double et[21], run[21], wait[21];
	for (int k = 0; k < 21; k++) {
		double t = 0.5 * k;
		et[k] = t;
		run[k] = t < 1.0 ? 30 : t < 2.0 ? 0 : t < 8.0 ? 4 : 0;
		wait[k] = t < 2.0 ? 0 : t < 4.0 ? 8 : t < 6.0 ? 4 : 0;
	}
	wc_engine_log eng;
	memset(&eng, 0, sizeof eng);
	eng.n = 21;
	eng.t = et;
	eng.col[WC_ENG_RUNNING] = run;
	eng.col[WC_ENG_WAITING] = wait;
	double n[200];
	const char *src = wc_trace_running_series(&log, wc_trace_log_accounts(&log, &eng, NULL), &eng, 0.0, 0.05, 200, n);
	CHECK(src && strcmp(src, "requests") == 0);
	CHECK_NEAR(n[10], 30, 0); /* 0.5 s: nothing waits, the log's 30 stand */
	CHECK_NEAR(n[60], 4, 0);  /* 3 s: the log's 12, the engine runs 4 */
	CHECK_NEAR(n[100], 4, 0); /* 5 s: the log's 8 */
	CHECK_NEAR(n[140], 4, 0); /* 7 s: nothing waits, the log's 4 */
}

/* ------------------------------------- ingest and replay of one run */

/* One GPU, 100 ms samples over 20 s, 300 W while the request runs. */
static char *
power_csv(void)
{
	size_t cap = 210 * 64, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s, cap, "index,timestamp,power.draw\n");
	for (int i = 0; i <= 200; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		len += (size_t)snprintf(s + len, cap - len, "0,%s.%03d,%.2f\n", ts, (i % 10) * 100,
		                        i >= 50 && i < 150 ? 300.0 : 100.0);
	}
	return s;
}

/* The gauge every 0.5 s, reporting the request from 6.5 s to 15.5 s:
 * 1.5 s late at its start, 0.5 s at its end. */
static char *
engine_csv(void)
{
	size_t cap = 64 * 64, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s, cap, "timestamp,num_requests_running,num_requests_waiting\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(s + len, cap - len, "%.3f,%d,0\n", T0 + 0.5 * k, k >= 13 && k <= 31);
	return s;
}

static void
test_ingest_and_replay(void)
{
	char *root = test_tmpdir("ingest_running_source"), *d = path_join(root, "lagging");
	char *p, *text;
	mkdir(d, 0755);
	p = path_join(d, "power.csv");
	text = power_csv();
	CHECK(write_text(p, text) == 0);
	free(text);
	free(p);
	p = path_join(d, "engine.csv");
	text = engine_csv();
	CHECK(write_text(p, text) == 0);
	free(text);
	free(p);
	/* One request sent at 5 s: first token at 6 s, 900 gaps of 10 ms,
	 * done at 15 s. */
	char json[256];
	snprintf(json, sizeof json, "{\"request_timestamps\": [%.1f], \"ttfts\": [1.0], \"itls\": [0.01], "
	         "\"output_lens\": [901], \"input_lens\": [4000]}", T0 + 5.0);
	p = path_join(d, "requests.json");
	CHECK(write_text(p, json) == 0);
	free(p);

	char *out = path_join(root, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", d, "-o", out, "--platform", "A100", "--model", "Qwen3-8B",
		               "--utc-offset", "0", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK(strcmp(wc_runs_get_extra(t, 0, "n_source"), "requests") == 0);
		/* 200 of the 401 grid points lie in [5, 15) s; the gauge gave 190. */
		CHECK_NEAR(t->runs[0].running, 200.0 / 401.0, 1.01 / 401.0);
	}
	wc_runs_free(t);

	/* The series written: running at 5.5 s, where the gauge read 0. */
	p = path_join(root, "runs.series/lagging.csv");
	text = test_slurp(p);
	CHECK(text != NULL);
	CHECK_CONTAINS(text ? text : "", "\n5.500,1\n");
	CHECK_CONTAINS(text ? text : "", "\n15.200,0\n");
	free(text);
	free(p);

	/* Replay reads the same n(t). */
	wc_ingest_options opt;
	wc_ingest_options_init(&opt);
	snprintf(opt.defaults.platform, sizeof opt.defaults.platform, "A100");
	snprintf(opt.defaults.model, sizeof opt.defaults.model, "Qwen3-8B");
	opt.defaults.utc_offset_s = 0;
	wc_trace_replay *w = NULL;
	size_t nw = 0;
	int rc = wc_trace_replay_load(d, &opt, &w, &nw, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	if (rc == WC_OK && nw == 1) {
		CHECK(strcmp(w[0].n_source, "requests") == 0);
		CHECK_NEAR(w[0].running[110], 1, 0);
		CHECK_NEAR(w[0].running[304], 0, 0);
	}
	wc_trace_replay_free(w, nw);
	free(out);
	free(d);
	free(root);
}

int
main(void)
{
	test_rule();
	test_cap_local();
	test_ingest_and_replay();
	return check_report("test_ingest_running_source");
}

/*
 * A request log stands for a run's load only when it accounts for the
 * engine's work (docs/formats/telemetry.md, "Request logs", Whole logs):
 * its tokens over the counter's span are generation_tokens_total's rise
 * within the most the counter adds between two samples. A log leaving out
 * a request was taken whole: the real A100 replay 1784415083 without its
 * 281-token request said 0.366 running and 18.65 J/token (0.954 and
 * 5.4501 with it), silently; a perf_counter log holding half a run's
 * requests was placed 6.19 s off with only its rms said. Now such a log
 * is warned with both totals and n(t), tokens and replayed arrivals come
 * from the engine.
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

#define T0 1784415000.0
#define PERF0 1784400000.0 /* a perf_counter origin */
#define ITL 0.025

/* Three requests (s from T0), every time on the engine's 0.25 s grid:
 * A 1.0-5.0 (151 tokens), B 4.0-12.0 (311), C 13.0-16.0 (111); each's
 * first token 0.25 s after its arrival. 573 tokens. */
static const double arrival[3] = { 1.0, 4.0, 13.0 }, out_len[3] = { 151, 311, 111 };
#define TTFT 0.25

static double
done_at(int i)
{
	return arrival[i] + TTFT + ITL * (out_len[i] - 1);
}

static double
tokens_by(int i, double s)
{
	double f = arrival[i] + TTFT;
	return s < f ? 0.0 : s >= done_at(i) ? out_len[i] : 1.0 + floor((s - f) / ITL + 1e-9);
}

/* Power and engine every 0.25 s over 0-20 s (100 W idle, 200 W more per
 * request running), the gauge exact, the prefill and decode time sums
 * counted as vLLM does, when a request completes; the request log with the requests
 * whose bit is set in `keep`, on the epoch or (perf) on perf_counter;
 * the power log's samples pow_first..pow_last, the engine's 0..eng_last. */
static char *
write_run_span(const char *root, const char *name, unsigned keep, int perf, int eng_last, int pow_first,
               int pow_last)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *e = path_join(d, "engine.csv");
	char *m = path_join(d, "wattcast-run.json"), *q = path_join(d, "requests.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,num_requests_waiting,generation_tokens_total,"
	        "request_prefill_time_seconds_sum,request_decode_time_seconds_sum\n");
	for (int k = 0; k <= 80; k++) {
		double s = 0.25 * k, t = T0 + s, tok = 0.0, pre = 0.0, dec = 0.0;
		int running = 0;
		for (int i = 0; i < 3; i++) {
			running += s >= arrival[i] && s < done_at(i);
			tok += tokens_by(i, s);
			pre += s >= done_at(i) ? TTFT : 0.0;
			dec += s >= done_at(i) ? done_at(i) - arrival[i] - TTFT : 0.0;
		}
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		if (k >= pow_first && k <= pow_last)
			fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
			        ms / 1000 % 60, ms % 1000, 100.0 + 200.0 * running);
		if (k <= eng_last)
			fprintf(fe, "%.3f,%d,0,%.1f,%.3f,%.3f\n", t, running, tok, pre, dec);
	}
	fclose(fp);
	fclose(fe);
	char json[600];
	snprintf(json, sizeof json,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name);
	CHECK(write_text(m, json) == 0);
	char at[128] = "", ttft[64] = "", itl[64] = "", in[64] = "", out[64] = "";
	for (int i = 0; i < 3; i++) {
		if (!(keep >> i & 1))
			continue;
		const char *sep = at[0] ? ", " : "";
		snprintf(at + strlen(at), sizeof at - strlen(at), "%s%.3f", sep, (perf ? T0 - PERF0 : T0) + arrival[i]);
		snprintf(ttft + strlen(ttft), sizeof ttft - strlen(ttft), "%s%g", sep, TTFT);
		snprintf(itl + strlen(itl), sizeof itl - strlen(itl), "%s%g", sep, ITL);
		snprintf(in + strlen(in), sizeof in - strlen(in), "%s100", sep);
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%g", sep, out_len[i]);
	}
	snprintf(json, sizeof json, "{\"%s\": [%s], \"ttfts\": [%s], \"itls\": [%s], \"input_lens\": [%s], "
	         "\"output_lens\": [%s]}\n", perf ? "start_times" : "request_timestamps", at, ttft, itl, in, out);
	CHECK(write_text(q, json) == 0);
	free(p);
	free(e);
	free(m);
	free(q);
	return d;
}

static char *
write_run_to(const char *root, const char *name, unsigned keep, int perf, int eng_last)
{
	return write_run_span(root, name, keep, perf, eng_last, 0, 80);
}

static char *
write_run(const char *root, const char *name, unsigned keep, int perf)
{
	return write_run_to(root, name, keep, perf, 80);
}

static int
ingest(const char *dir, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	return test_ingest_run(dir, 0.0, res, w, err);
}

static double
row_tokens(const wc_ingest_row *r)
{
	return r->run.throughput_tok_s * (r->end_epoch - r->start_epoch);
}

/* The row agrees with itself: energy per request over the mean output
 * tokens is its energy per token, the window's tokens per request. */
static void
check_consistent(const wc_ingest_row *r)
{
	CHECK(r->requests > 0 && r->run.output_tokens > 0);
	if (r->requests > 0 && r->run.output_tokens > 0)
		CHECK_NEAR(r->energy_per_request_j / r->run.output_tokens, r->run.energy_per_token_j,
		           1e-9 * r->run.energy_per_token_j);
}

/* Every window end, not only a log's cut (docs/formats/telemetry.md,
 * "What ingest derives", Requests): a power log over 2-15 s while A
 * (1.0-5.0) runs across its start and C (13.0-16.0) across its end, the
 * engine log whole, is no cut, yet the row's energy and tokens hold their
 * shares. A count of those completed in it said 2 (A and B) while the
 * tokens held C's share, so energy per request over tokens per request
 * was not the row's energy per token (the real A100 smoke replay
 * 1784415161: 4.908 against 4.431). Now A counts 3/4, B 1, C 2/3. */
static void
window_ends(const char *root)
{
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char *d = write_run_span(root, "power_2_to_15", 7, 0, 80, 8, 60);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_NEAR(res.rows[0].requests, 0.75 + 1.0 + 2.0 / 3.0, 1e-12);
		CHECK_NEAR(res.rows[0].run.input_tokens, 100.0, 1e-9);
		check_consistent(&res.rows[0]);
	}
	CHECK_CONTAINS(w.text, "run power_2_to_15: requests: 2 crossing the window's ends counted by their share "
	                       "inside it (2.417 requests in all)");
	wc_ingest_result_clear(&res);

	/* 5 s segments 2-7, 7-12, 12-15: A 3/4 in the first; B (4-12) 3/8
	 * and 5/8; C 2/3 in the last. They add up to the row. */
	CHECK_INT(test_ingest_run(d, 5.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 3);
	if (res.n_rows == 3) {
		CHECK_NEAR(res.rows[0].requests, 0.75 + 3.0 / 8.0, 1e-12);
		CHECK_NEAR(res.rows[1].requests, 5.0 / 8.0, 1e-12);
		CHECK_NEAR(res.rows[2].requests, 2.0 / 3.0, 1e-12);
		for (int k = 0; k < 3; k++)
			check_consistent(&res.rows[k]);
	}
	wc_ingest_result_clear(&res);
	free(d);
}

/* A segment idle by the one rule has no energy per token, as a
 * Prometheus idle window (docs/fleet.md, "Rows"; trace/idle.h): the whole
 * run in 3 s segments, 15-18 s at 1/3 running with C's last tokens, said
 * its energy over them. */
static void
idle_segment(const char *root)
{
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char *d = write_run(root, "idle_segment", 7, 0);
	CHECK_INT(test_ingest_run(d, 3.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 7);
	if (res.n_rows == 7) {
		const wc_ingest_row *r = &res.rows[5];
		CHECK_NEAR(r->run.running, 1.0 / 3.0, 1e-9);
		CHECK(r->run.throughput_tok_s > 0);
		CHECK(isnan(r->run.energy_per_token_j));
		CHECK_CONTAINS(r->run.exclude, "idle: 0.33 running requests on average (< 0.5)");
		/* the loaded segment before it keeps its own */
		CHECK(res.rows[4].run.energy_per_token_j > 0 && res.rows[4].run.exclude[0] == '\0');
	}
	wc_ingest_result_clear(&res);
	free(d);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_whole_log");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	double running = NAN, energy = NAN, idle = NAN;

	/* The whole log: n(t) and tokens from it, nothing said. */
	char *d = write_run(root, "whole", 7, 0);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].n_source, "requests") == 0);
		CHECK_NEAR(row_tokens(&res.rows[0]), 573.0, 1e-6);
		running = res.rows[0].run.running;
		CHECK(res.rows[0].requests == 3 && res.rows[0].run.output_tokens == 191.0);
		energy = res.rows[0].metrics.energy_j;
		CHECK(strcmp(res.rows[0].phase_source, "requests") == 0);
		idle = res.rows[0].idle_energy_j;
	}
	CHECK(strstr(w.text, "generation_tokens_total rose") == NULL);
	/* A 4 s, B 8 s and C 3 s running, 20 grid points a second: 300 of
	 * the 401 points' counts. */
	CHECK_NEAR(running, 300.0 / 401.0, 1e-9);
	wc_ingest_result_clear(&res);
	free(d);

	/* B left out: the log counts 262 tokens where the counter rose 573
	 * (it said 262 tokens and 140 / 401 running). */
	d = write_run(root, "partial", 5, 0);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].n_source, "engine") == 0);
		CHECK_NEAR(row_tokens(&res.rows[0]), 573.0, 1e-6);
		CHECK_NEAR(res.rows[0].run.running, running, 1e-9);
		CHECK_NEAR(res.rows[0].run.energy_per_token_j, energy / 573.0, 1e-9);
		/* Nor are its per-request figures the load's (it said 2 requests,
		 * 131 tokens each, energy / 2 per request) and engine.csv counts
		 * no completed requests: blank. */
		CHECK(isnan(res.rows[0].requests) && isnan(res.rows[0].energy_per_request_j));
		CHECK(isnan(res.rows[0].run.output_tokens) && isnan(res.rows[0].run.input_tokens));
		CHECK(isnan(res.rows[0].ttft_s) && isnan(res.rows[0].itl_s));
		/* Nor does it split the phases: the engine counters do, as for
		 * n(t) and tokens (docs/trace-metrics.md, "Phases"). From the
		 * log, the cells where B ran alone were idle: it said 2725 J
		 * idle where the whole log says 650 J. */
		const wc_ingest_row *r = &res.rows[0];
		fprintf(stderr, "partial log: prefill %.1f, decode %.1f, idle %.1f J (%s); whole log: idle %.1f J\n",
		        r->prefill_energy_j, r->decode_energy_j, r->idle_energy_j, r->phase_source, idle);
		CHECK(strcmp(r->phase_source, "engine") == 0);
		CHECK_NEAR(r->idle_energy_j, idle, 0.05 * energy);
	}
	CHECK_CONTAINS(w.text, "from engine.csv, requests and their means blank");
	CHECK_CONTAINS(w.text, "262.0 output tokens over 1784415000.000-1784415020.000, but "
	                       "generation_tokens_total rose 573 (one sample adds up to 20); n(t) and tokens "
	                       "from engine.csv");
	wc_ingest_result_clear(&res);

	/* Replay (envelope --measured) replays the engine's arrivals, not the
	 * log's two. */
	wc_ingest_options opt;
	wc_ingest_options_init(&opt);
	wc_trace_replay *rw = NULL;
	size_t nw = 0;
	CHECK_INT(wc_trace_replay_load(d, &opt, &rw, &nw, &err), WC_OK);
	CHECK(nw == 1);
	if (nw == 1) {
		CHECK(strcmp(rw[0].n_source, "engine") == 0);
		CHECK(strcmp(rw[0].arrival_source, "requests") != 0);
	}
	wc_trace_replay_free(rw, nw);
	free(d);

	/* The same on perf_counter's clock: placed where it fits the counter
	 * least badly, its rms is far beyond one sample's tokens, and it is
	 * not used. */
	d = write_run(root, "partial_perf", 5, 1);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].n_source, "engine") == 0);
		CHECK_NEAR(row_tokens(&res.rows[0]), 573.0, 1e-6);
	}
	CHECK_CONTAINS(w.text, "placed with rms ");
	CHECK_CONTAINS(w.text, "more than the 20 the counter adds in one sample; n(t) and tokens from engine.csv");
	wc_ingest_result_clear(&res);
	free(d);

	/* The whole log on perf_counter's clock is placed and used. */
	d = write_run(root, "whole_perf", 7, 1);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].n_source, "requests") == 0);
		CHECK_NEAR(row_tokens(&res.rows[0]), 573.0, 1.0);
	}
	CHECK(strstr(w.text, "from engine.csv") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* engine.csv ends at 10 s while B runs (4.0-12.0): the row is cut
	 * there and B counts by the share of its lifetime before the cut,
	 * 2/8, as its energy and tokens do (docs/formats/telemetry.md, "What
	 * ingest derives", Requests): 1.75 requests; it said 1, then blank. */
	d = write_run_to(root, "cut", 7, 0, 40);
	CHECK_INT(ingest(d, &res, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "the row cut to 1784415000.000-1784415010.000");
	if (res.n_rows == 1) {
		CHECK_NEAR(res.rows[0].requests, 1.75, 1e-12);
		CHECK(isfinite(res.rows[0].run.input_tokens) && isfinite(res.rows[0].run.energy_per_token_j));
		check_consistent(&res.rows[0]);
	}
	wc_ingest_result_clear(&res);

	/* In 4 s segments each request splits by its share: A (1.0-5.0)
	 * 3/4 and 1/4, B (4.0-12.0) 4/8 and 2/8 of its 8 s; the segments add
	 * up to the row. */
	CHECK_INT(test_ingest_run(d, 4.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 3);
	if (res.n_rows == 3) {
		CHECK_NEAR(res.rows[0].requests, 0.75, 1e-12);
		CHECK_NEAR(res.rows[1].requests, 0.75, 1e-12);
		CHECK_NEAR(res.rows[2].requests, 0.25, 1e-12);
		for (int k = 0; k < 3; k++)
			check_consistent(&res.rows[k]);
	}
	wc_ingest_result_clear(&res);
	free(d);

	window_ends(root);
	idle_segment(root);
	free(root);
	return check_report("test_ingest_whole_log");
}

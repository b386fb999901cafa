/*
 * A request log with vLLM's start_times (a perf_counter clock, no epoch)
 * placed on the engine's clock (trace/request_align.h,
 * docs/formats/telemetry.md "Request logs"): synthetic runs with a known
 * offset, engine samples every 0.25 s. From generated tokens the offset
 * comes back within 5 ms; from the requests in flight (no token counter)
 * within 20 ms (within one sampling interval when counted from their
 * arrivals: their prefills read as running); no engine log, or one that never shows
 * work, is refused by name. Start times that are epoch seconds stay as
 * they are.
 */
#include "data/data.h"
#include "data/request_log.h"
#include "trace/request_align.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPOCH 1784415000.0
#define ORIGIN 5800000.0 /* the perf_counter reading at EPOCH */

/* 30 requests: request i sent at 1.3 i s (+ a jitter), first token 0.2 s
 * later, then 40 + 7 (i % 5) tokens at 12.5 ms each. */
static double
sent(int i)
{
	return 2.0 + 1.3 * i + 0.17 * ((i * 7) % 5);
}
static int
out_len(int i)
{
	return 40 + 7 * (i % 5);
}

/* Tokens generated and requests in flight by epoch time t. */
static void
truth_at(double t, double *tokens, double *running)
{
	*tokens = 1000.0; /* the counter's level before the run: unknown to the log */
	*running = 0.0;
	for (int i = 0; i < 30; i++) {
		double a = EPOCH + sent(i), f = a + 0.2, c = f + 0.0125 * (out_len(i) - 1);
		if (t >= f)
			*tokens += t >= c ? out_len(i) : 1.0 + floor((t - f) / 0.0125);
		/* vLLM sets the gauge at the end of an engine step: a request
		 * sent while another decodes counts from then, one sent to an
		 * idle engine from its prefill's end, its first token */
		double from = f;
		for (int j = 0; j < i; j++) {
			double fj = EPOCH + sent(j) + 0.2, cj = fj + 0.0125 * (out_len(j) - 1);
			if (fj <= a && a < cj)
				from = a;
		}
		if (t >= from && t < c)
			*running += 1.0;
	}
}

static char *
engine_csv(const char *dir, int with_tokens)
{
	char *path = path_join(dir, with_tokens ? "engine.csv" : "engine_running.csv");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return path;
	fprintf(f, with_tokens ? "timestamp,num_requests_running,generation_tokens_total\n"
	                       : "timestamp,num_requests_running\n");
	for (int k = 0; k < 240; k++) {
		double t = EPOCH + 0.1 + 0.25 * k, tok, run;
		truth_at(t, &tok, &run);
		if (with_tokens)
			fprintf(f, "%.4f,%.0f,%.0f\n", t, run, tok);
		else
			fprintf(f, "%.4f,%.0f\n", t, run);
	}
	fclose(f);
	return path;
}

static wc_request_log *
request_log(double origin)
{
	char buf[16384];
	size_t n = 0;
	n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"start_times\": [");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.6f", i ? ", " : "", origin + sent(i));
	n += (size_t)snprintf(buf + n, sizeof buf - n, "], \"ttfts\": [");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s0.2", i ? ", " : "");
	n += (size_t)snprintf(buf + n, sizeof buf - n, "], \"itls\": [");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s0.0125", i ? ", " : "");
	n += (size_t)snprintf(buf + n, sizeof buf - n, "], \"output_lens\": [");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? ", " : "", out_len(i));
	snprintf(buf + n, sizeof buf - n, "]}");
	wc_request_log *log = NULL;
	wc_error err;
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.epoch_offset_s = 7.0; /* an engine clock correction: not for a perf_counter clock */
	CHECK_INT(wc_request_log_read_json_buffer(buf, strlen(buf), "requests.json", &opt, &log, &err), WC_OK);
	return log;
}

static void
check_align(const char *engine, int tokens, double tol)
{
	wc_engine_log *e = NULL;
	wc_error err;
	wc_request_alignment al;
	CHECK_INT(wc_engine_read(engine, NULL, 0, &e, &err), WC_OK);
	wc_request_log *log = request_log(ORIGIN);
	if (!e || !log)
		return;
	CHECK_INT(log->relative_clock, 1);
	CHECK_NEAR(log->arrival[0], ORIGIN + sent(0), 1e-6);
	CHECK_INT(wc_request_log_align(log, e, "requests.json", &al, &err), WC_OK);
	CHECK_INT(al.tokens, tokens);
	CHECK_INT(log->relative_clock, 0);
	if (fabs(al.offset_s - (EPOCH - ORIGIN)) > tol)
		fprintf(stderr, "offset %.4f, truth %.4f\n", al.offset_s, EPOCH - ORIGIN);
	CHECK_NEAR(al.offset_s, EPOCH - ORIGIN, tol);
	CHECK_NEAR(log->arrival[3], EPOCH + sent(3), tol);
	CHECK_NEAR(log->completion[3], EPOCH + sent(3) + 0.2 + 0.0125 * (out_len(3) - 1), tol);
	wc_request_log_free(log);
	wc_engine_free(e);
}

int
main(void)
{
	char *dir = test_tmpdir("request_align");
	char *with_tokens = engine_csv(dir, 1), *running_only = engine_csv(dir, 0);
	check_align(with_tokens, 1, 0.005);
	check_align(running_only, 0, 0.02);

	/* Refused by name: no engine log; an engine log with no work. */
	wc_request_log *log = request_log(ORIGIN);
	wc_request_alignment al;
	wc_error err;
	CHECK_INT(wc_request_log_align(log, NULL, "requests.json", &al, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "requests.json: its times are not epoch seconds");
	char *idle = path_join(dir, "idle.csv");
	write_text(idle, "timestamp,num_requests_running\n1784415000,0\n1784415001,0\n1784415002,0\n");
	wc_engine_log *e = NULL;
	CHECK_INT(wc_engine_read(idle, NULL, 0, &e, &err), WC_OK);
	CHECK_INT(wc_request_log_align(log, e, "requests.json", &al, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "the engine log never shows work");
	wc_engine_free(e);
	wc_request_log_free(log);

	/* A failed request (vLLM lists it with its error text) is left out. */
	const char *failed = "{\"start_times\": [10.0, 11.0], \"ttfts\": [0.2, 0.0], \"itls\": [[0.01, 0.01], []], "
	                     "\"output_lens\": [3, 0], \"errors\": [\"\", \"Bad Request\"]}";
	test_warnings w = { "", 0 };
	wc_telemetry_options wopt = WC_TELEMETRY_OPTIONS_INIT;
	wopt.warn = test_collect_warning;
	wopt.warn_payload = &w;
	wopt.max_bad_fraction = 0.5;
	CHECK_INT(wc_request_log_read_json_buffer(failed, strlen(failed), "f.json", &wopt, &log, &err), WC_OK);
	CHECK(log && log->n == 1 && log->relative_clock == 1);
	if (log && log->n == 1)
		CHECK_NEAR(log->completion[0], 10.22, 1e-9);
	CHECK_CONTAINS(w.text, "f.json: 1 of 2 requests failed");
	wc_request_log_free(log);

	/* Python writes a statistic without requests as bare NaN: the run is
	 * read, the value unknown, and the count said. */
	const char *nan = "{\"mean_ttft_ms\": NaN, \"std_itl_ms\": Infinity, \"start_times\": [10.0, 11.0], "
	                  "\"ttfts\": [0.2, NaN], \"itls\": [[0.01, 0.01], [0.02]], \"output_lens\": [3, 2]}";
	w.text[0] = 0;
	CHECK_INT(wc_request_log_read_json_buffer(nan, strlen(nan), "n.json", &wopt, &log, &err), WC_OK);
	CHECK(log && log->n == 1);
	if (log && log->n == 1)
		CHECK_NEAR(log->completion[0], 10.22, 1e-9);
	CHECK_CONTAINS(w.text, "n.json: 3 NaN or Infinity values (Python's JSON) read as unknown");
	CHECK_CONTAINS(w.text, "n.json: 1 of 2 requests have no usable timing");
	wc_request_log_free(log);

	/* start_times already in epoch seconds: read as they are, with the
	 * clock correction. */
	log = request_log(EPOCH);
	CHECK(log && log->relative_clock == 0);
	if (log)
		CHECK_NEAR(log->arrival[0], EPOCH + sent(0) + 7.0, 1e-6);
	wc_request_log_free(log);

	free(idle);
	free(with_tokens);
	free(running_only);
	free(dir);
	return check_report("test_request_align");
}

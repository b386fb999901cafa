/*
 * `wattcast ingest`, requests at a window's edge (docs/formats/telemetry.md,
 * "What ingest derives", Requests and Tokens). A request of no duration
 * (arrival = first token = completion) on a window's start or a segment
 * boundary was counted in the window after the point ([a, b)) while its
 * tokens went to the one before it ((a, b]): at the power log's first
 * sample its tokens were in no row (a real A100 replay's row: 353 tokens
 * for 397), at a segment boundary one segment had the request and none of
 * its tokens. Both now follow one rule, wc_trace_in_window. The warning
 * on requests crossing a window's ends was given only without --segment;
 * it is given once per window with segments too. A negative time to first
 * token was named as the itls that came after it. Every level's end was
 * inclusive, so a request on the edge of two levels back to back was in
 * both, with its tokens and latencies (test_adjacent_levels).
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

/* Four requests (s from T0): A arrives at 0.5, first token at 1.0, 401
 * tokens at 20 ms to 9.0; B and C of no duration, 44 tokens each, at 0.0
 * (the power log's first sample) and 5.0 (a 5 s segment's boundary); D
 * arrives at 9.5, first token at 9.7, 41 tokens to 10.5, past the power
 * log's end at 10.0 (share 0.5, 0.5 + 50 tok/s x 0.3 s = 15.5 tokens). */
static void
write_power(const char *dir)
{
	char *p = path_join(dir, "power.csv");
	FILE *fp = fopen(p, "w");
	CHECK(fp != NULL);
	if (!fp)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k <= 40; k++) {
		long ms = (long)llround(fmod(T0 + 0.25 * k, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, 300.00 W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000);
	}
	fclose(fp);
	free(p);
}

static char *
write_run(const char *root)
{
	char *d = path_join(root, "pt");
	mkdir(d, 0755);
	char *m = path_join(d, "wattcast-run.json"), *q = path_join(d, "requests.json");
	write_power(d);
	CHECK(write_text(m, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"pt\", \"platform\": \"A100\", \"tp\": 1, "
	                    "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n") == 0);
	char json[400];
	snprintf(json, sizeof json,
	         "{\"request_timestamps\": [%.3f, %.3f, %.3f, %.3f], \"ttfts\": [0.5, 0, 0, 0.2], "
	         "\"itls\": [0.02, 0, 0, 0.02], \"input_lens\": [100, 100, 100, 100], "
	         "\"output_lens\": [401, 44, 44, 41]}\n", T0 + 0.5, T0, T0 + 5.0, T0 + 9.5);
	CHECK(write_text(q, json) == 0);
	free(m);
	free(q);
	return d;
}

static double
row_tokens(const wc_ingest_row *r)
{
	return r->run.throughput_tok_s * (r->end_epoch - r->start_epoch);
}

static int
count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static const char crossing[] = "run pt: requests: 1 crossing the window's ends counted by their share inside it "
                               "(3.500 requests in all)";

static void
test_edges(const char *root)
{
	char *d = write_run(root);
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* One row: B at its start counts with its tokens (they were in no
	 * row: 460.5 tokens for 3.5 requests). */
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_NEAR(res.rows[0].requests, 3.5, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[0]), 401 + 44 + 44 + 15.5, 1e-4);
	}
	CHECK_INT(count_of(w.text, "crossing"), 1);
	CHECK_CONTAINS(w.text, crossing);
	wc_ingest_result_clear(&res);

	/* 5 s segments: B in the first with its 44 tokens, C in the second
	 * with its 44 (they went to the first: 200.5 + 44 and 216 tokens
	 * against 1.53 and 1.97 requests). The warning once, the window's. */
	CHECK_INT(test_ingest_run(d, 5.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	if (res.n_rows == 2) {
		CHECK_NEAR(res.rows[0].requests, 4.5 / 8.5 + 1.0, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[0]), 200.5 + 44, 1e-4);
		CHECK_NEAR(res.rows[1].requests, 4.0 / 8.5 + 1.0 + 0.5, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[1]), 200.5 + 44 + 15.5, 1e-4);
	}
	CHECK_INT(count_of(w.text, "crossing"), 1);
	CHECK_CONTAINS(w.text, crossing);
	wc_ingest_result_clear(&res);
	free(d);
}

/* A, B and C as in write_run, and E of no duration, 44 tokens, at 10.0
 * (the power log's last sample); level a over 0-5 s, level b from
 * `b_start` to 10 s (no levels when b_start < 0). */
static char *
write_levels(const char *root, const char *name, double b_start)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *m = path_join(d, "wattcast-run.json"), *q = path_join(d, "requests.json");
	write_power(d);
	char json[600];
	if (b_start < 0)
		snprintf(json, sizeof json, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", "
		         "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name);
	else
		snprintf(json, sizeof json, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", "
		         "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"levels\": ["
		         "{\"label\": \"a\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, \"concurrency\": 1}, "
		         "{\"label\": \"b\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, \"concurrency\": 1}]}\n",
		         name, T0, T0 + 5.0, T0 + b_start, T0 + 10.0);
	CHECK(write_text(m, json) == 0);
	snprintf(json, sizeof json,
	         "{\"request_timestamps\": [%.3f, %.3f, %.3f, %.3f], \"ttfts\": [0.5, 0, 0, 0], "
	         "\"itls\": [0.02, 0, 0, 0], \"input_lens\": [100, 100, 100, 100], "
	         "\"output_lens\": [401, 44, 44, 44]}\n", T0 + 0.5, T0, T0 + 5.0, T0 + 10.0);
	CHECK(write_text(q, json) == 0);
	free(m);
	free(q);
	return d;
}

/* Sums of the rows' requests and output tokens. */
static void
sum_rows(const wc_ingest_result *res, double *req, double *tok)
{
	*req = *tok = 0.0;
	for (size_t i = 0; i < res->n_rows; i++) {
		*req += res->rows[i].requests;
		*tok += row_tokens(&res->rows[i]);
	}
}

/* C on the edge of two levels back to back is in the later one only (it
 * was in both: 5 requests and 577 tokens for the run's 4 and 533, as the
 * real 1784415161 replay's levels had 7.889 requests for 6.889); E on
 * the run's very end is still counted, once. A level no other starts
 * at the end of keeps its end. */
static void
test_adjacent_levels(const char *root)
{
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	double req, tok;
	const double tok_a = 200.5 + 44; /* A's in [0, 5) and B's */

	char *d = write_levels(root, "whole", -1);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	sum_rows(&res, &req, &tok);
	CHECK_NEAR(req, 4.0, 1e-9);
	CHECK_NEAR(tok, 401 + 3 * 44, 1e-4);
	wc_ingest_result_clear(&res);
	free(d);

	d = write_levels(root, "adjacent", 5.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	if (res.n_rows == 2) {
		CHECK_NEAR(res.rows[0].requests, 1.0 + 4.5 / 8.5, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[0]), tok_a, 1e-4);
		CHECK_NEAR(res.rows[1].requests, 2.0 + 4.0 / 8.5, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[1]), 401 + 3 * 44 - tok_a, 1e-4);
	}
	sum_rows(&res, &req, &tok);
	CHECK_NEAR(req, 4.0, 1e-9);
	CHECK_NEAR(tok, 401 + 3 * 44, 1e-4);
	CHECK_CONTAINS(w.text, "run adjacent#a: requests: 1 crossing the window's ends counted by their share "
	                       "inside it (1.529 requests in all)");
	wc_ingest_result_clear(&res);

	/* Segments: a#seg2 ends where b#seg1 starts. */
	CHECK_INT(test_ingest_run(d, 2.5, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 4);
	sum_rows(&res, &req, &tok);
	CHECK_NEAR(req, 4.0, 1e-9);
	CHECK_NEAR(tok, 401 + 3 * 44, 1e-4);
	wc_ingest_result_clear(&res);
	free(d);

	/* Level b from 5.5 s: nothing follows a at once, C stays in it. */
	d = write_levels(root, "gap", 5.5);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	if (res.n_rows == 2) {
		CHECK_NEAR(res.rows[0].requests, 2.0 + 4.5 / 8.5, 1e-9);
		CHECK_NEAR(row_tokens(&res.rows[0]), tok_a + 44, 1e-4);
		CHECK_NEAR(res.rows[1].requests, 1.0 + 3.5 / 8.5, 1e-9);
	}
	wc_ingest_result_clear(&res);
	free(d);
}

/* A negative ttft is named at /ttfts/N, itls making the completion come
 * before the arrival at /itls/N. */
static void
test_negative_ttft(const char *root)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.9;
	char *p = test_fixture(root, "requests.json",
	                       "{\"request_timestamps\": [100, 101, 102], \"ttfts\": [0.1, -5, 0.1],"
	                       " \"itls\": [0.01, 0.01, [0.1, -1.1]], \"output_lens\": [10, 10, 3]}");
	wc_request_log *log = NULL;
	wc_error err;
	CHECK_INT(wc_request_log_read(p, &opt, &log, &err), WC_OK);
	CHECK(log && log->n == 1);
	CHECK_CONTAINS(w.text, "/ttfts/1: -5 must be >= 0");
	CHECK(strstr(w.text, "/itls/1") == NULL);
	CHECK_CONTAINS(w.text, "/itls/2: the completion comes 0.9 s before the arrival");
	wc_request_log_free(log);
	free(p);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_point_requests");
	test_edges(root);
	test_adjacent_levels(root);
	test_negative_ttft(root);
	free(root);
	return check_report("test_ingest_point_requests");
}

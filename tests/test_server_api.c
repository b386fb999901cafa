/*
 * The REST API over real HTTP (libcurl) against an in-process server on
 * 127.0.0.1:0: the published anchors through POST /v1/predict/inference,
 * model names, series, warnings, intervals after a reload, a batch mixing
 * good and bad items, the read-only routes, the answer memo and reloads
 * under load. Every error status and the Prometheus counters are in
 * test_server_api_errors.c.
 */
#include "data/data.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

static CURL *h;

/* POST one inference body; returns node_power_w (NaN unless 200). */
static double
predict(const char *body, json_t **answer)
{
	http_reply r;
	double v = NAN;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	CHECK_CONTAINS(r.content_type, "application/json");
	if (r.status == 200 && r.json)
		v = http_json_num(r.json, "node_power_w");
	else
		fprintf(stderr, "  body %s -> %ld %s\n", body, r.status, r.body ? r.body : "");
	if (answer) {
		*answer = r.json;
		r.json = NULL;
	}
	http_reply_free(&r);
	return v;
}

static void
test_anchors(const char *paper_version)
{
	static const struct {
		const char *platform;
		double active, watts;
	} anchors[] = {
		{ "A100", 8.19, 362.8 }, { "A100", 14.8, 373.5 }, { "H100", 8.19, 551.3 },
		{ "H100", 14.8, 579.5 }, { "H200", 8.19, 613.3 }, { "H200", 14.8, 642.0 },
	};
	char body[256];
	for (size_t i = 0; i < sizeof anchors / sizeof anchors[0]; i++) {
		json_t *a = NULL;
		snprintf(body, sizeof body,
		         "{\"platform\":\"%s\",\"tp\":1,\"active_params_b\":%g,\"concurrency\":32}",
		         anchors[i].platform, anchors[i].active);
		CHECK_NEAR(predict(body, &a), anchors[i].watts, 0.5);
		/* The profile's interval is its held-out error: it contains the
		 * answer and has width (docs/intervals.md). */
		json_t *iv = json_object_get(a, "interval_95"), *np = json_object_get(iv, "node_power_w");
		CHECK(json_number_value(json_array_get(np, 0)) < anchors[i].watts - 1 &&
		      json_number_value(json_array_get(np, 1)) > anchors[i].watts + 1);
		/* no draws: the held-out error alone, and the answer says so */
		CHECK_INT((int)json_integer_value(json_object_get(iv, "draws")), 0);
		CHECK(strcmp(json_string_value(json_object_get(iv, "covers")), "held-out error") == 0);
		CHECK_INT(json_array_size(json_object_get(a, "warnings")), 0);
		CHECK(json_string_value(json_object_get(a, "params_version")) &&
		      strcmp(json_string_value(json_object_get(a, "params_version")), paper_version) == 0);
		CHECK_NEAR(http_json_num(a, "per_gpu_power_w"), http_json_num(a, "node_power_w"), 1e-9);
		json_decref(a);
	}
	/* Catalog names (Hugging Face id, -Instruct suffix) give the same N. */
	double by_n = predict("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8.19,\"concurrency\":32}", NULL);
	CHECK_NEAR(predict("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"concurrency\":32}", NULL), by_n, 1e-9);
	CHECK_NEAR(predict("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B-Instruct-2507\",\"concurrency\":32}", NULL), by_n, 1e-9);
	/* tp written as 1.0 is the integer 1. */
	CHECK_NEAR(predict("{\"platform\":\"H100\",\"tp\":1.0,\"active_params_b\":8.19,\"concurrency\":32}", NULL), by_n, 1e-9);
	/* Idle: tp * P0 exactly. */
	CHECK_NEAR(predict("{\"platform\":\"A100\",\"tp\":2,\"active_params_b\":8,\"concurrency\":0}", NULL), 2 * 72.9, 1e-9);
	/* A series is the time average of the law: half idle, half at 32. */
	double at32 = predict("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", NULL);
	CHECK_NEAR(predict("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[0,32,32,0],\"dt_s\":0.05}", NULL),
	           (72.9 + at32) / 2, 1e-6);
	/* sm_clock_mhz null = not locked. */
	CHECK_NEAR(predict("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"sm_clock_mhz\":null}", NULL), at32, 1e-9);
	/* Outside the calibrated range: one warning per input, field first. */
	json_t *a = NULL;
	predict("{\"platform\":\"A100\",\"tp\":8,\"model\":\"Llama-3.1-70B\",\"concurrency\":512,\"weights\":\"fp8\"}", &a);
	json_t *w = json_object_get(a, "warnings");
	CHECK_INT(json_array_size(w), 4);
	const char *starts[] = { "active_params_b:", "concurrency:", "tp:", "weights:" };
	for (size_t i = 0; i < 4; i++) {
		int found = 0;
		for (size_t j = 0; j < json_array_size(w); j++)
			found |= strncmp(json_string_value(json_array_get(w, j)), starts[i], strlen(starts[i])) == 0;
		CHECK(found);
	}
	json_t *cfg = json_object_get(a, "config");
	CHECK_INT(json_integer_value(json_object_get(cfg, "tp")), 8);
	CHECK_NEAR(http_json_num(cfg, "active_params_b"), 70.6, 1e-9);
	CHECK(strcmp(json_string_value(json_object_get(cfg, "weights")), "fp8") == 0);
	json_decref(a);
}

static void
test_batch(const char *version)
{
	http_reply r, one;
	const char *items =
		"[{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-14B\",\"concurrency\":32},"
		"{\"platform\":\"H200\",\"tp\":0,\"model\":\"Qwen3-14B\",\"concurrency\":32},"
		"{\"platform\":\"H200\",\"tp\":1,\"model\":\"GPT-7\",\"concurrency\":32},"
		"\"not an object\","
		"{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-14B\",\"running_series\":[32,32],\"dt_s\":0.1},"
		"{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-14B\",\"concurrency\":32,\"colour\":1}]";
	http_post_json(h, url("/v1/predict/batch"), items, &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), 6);
	CHECK_INT(json_integer_value(json_object_get(r.json, "failed")), 4);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "params_version")), version) == 0);
	json_t *res = json_object_get(r.json, "results");
	CHECK_INT(json_array_size(res), 6);
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-14B\",\"concurrency\":32}", &one);
	/* whole numbers are written as integers (docs/http-api.md): it read
	 * "mean_running":32.0, in the batch too */
	CHECK(one.body && strstr(one.body, "\"mean_running\":32,") != NULL);
	CHECK(r.body && strstr(r.body, "\"mean_running\":32,") != NULL);
	CHECK(json_is_integer(json_object_get(one.json, "mean_running")));
	CHECK_NEAR(http_json_num(json_array_get(res, 0), "node_power_w"), 642.0, 0.5);
	CHECK_NEAR(http_json_num(json_array_get(res, 0), "node_power_w"), http_json_num(one.json, "node_power_w"), 1e-9);
	CHECK_NEAR(http_json_num(json_array_get(res, 4), "node_power_w"), http_json_num(one.json, "node_power_w"), 1e-9);
	static const struct {
		size_t i;
		int status;
		const char *code, *field;
	} bad[] = {
		{ 1, 422, "invalid_value", "/1/tp" },
		{ 2, 404, "unknown_model", "/2/model" },
		{ 3, 422, "wrong_type", "/3" },
		{ 5, 422, "unknown_field", "/5/colour" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		json_t *e = json_object_get(json_array_get(res, bad[k].i), "error");
		CHECK(e != NULL);
		CHECK_INT(json_integer_value(json_object_get(e, "status")), bad[k].status);
		CHECK_INT(json_integer_value(json_object_get(e, "index")), (long long)bad[k].i);
		CHECK(json_string_value(json_object_get(e, "code")) &&
		      strcmp(json_string_value(json_object_get(e, "code")), bad[k].code) == 0);
		CHECK(json_string_value(json_object_get(e, "field")) &&
		      strcmp(json_string_value(json_object_get(e, "field")), bad[k].field) == 0);
	}
	http_reply_free(&one);
	http_reply_free(&r);

	/* The batch as a whole: an array, at most 10 000 items. */
	http_expect_error(h, "POST", "/v1/predict/batch", "application/json", "{\"platform\":\"A100\"}", 422,
	                     "wrong_type", "");
	http_post_json(h, url("/v1/predict/batch"), "[]", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), 0);
	http_reply_free(&r);

	/* 10 000 typical items fit the default batch limit; 10 001 do not. */
	wc_buf b = { 0 };
	const char *item = "{\"platform\":\"H100\",\"tp\":2,\"model\":\"Qwen/Qwen3-32B-Instruct\","
	                   "\"concurrency\":%d,\"weights\":\"bf16\",\"kv_cache\":\"fp8\",\"sm_clock_mhz\":null}";
	wc_buf_append(&b, "[", 1);
	for (int i = 0; i < WC_SERVER_BATCH_MAX_ITEMS; i++) {
		if (i)
			wc_buf_append(&b, ",", 1);
		wc_buf_printf(&b, item, 1 + i % 256);
	}
	wc_buf_append(&b, "]", 1);
	CHECK(!b.failed);
	http_post_json(h, url("/v1/predict/batch"), b.data, &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), WC_SERVER_BATCH_MAX_ITEMS);
	CHECK_INT(json_integer_value(json_object_get(r.json, "failed")), 0);
	res = json_object_get(r.json, "results");
	CHECK_INT(json_array_size(res), WC_SERVER_BATCH_MAX_ITEMS);
	/* In order: item i ran at concurrency 1 + i % 256. */
	CHECK_NEAR(http_json_num(json_array_get(res, 9999), "mean_running"), 1 + 9999 % 256, 1e-12);
	CHECK_NEAR(http_json_num(json_array_get(res, 255), "mean_running"), 256, 1e-12);
	http_reply_free(&r);
	b.data[b.len - 1] = ',';
	wc_buf_printf(&b, item, 1);
	wc_buf_append(&b, "]", 1);
	http_expect_error(h, "POST", "/v1/predict/batch", "application/json", b.data, 422, "too_many_items", "");
	wc_buf_free(&b);
}

static void
test_info(const char *version, int n_levels, int n_draws)
{
	http_reply r;
	http_get(h, url("/v1/params"), &r);
	CHECK_INT(r.status, 200);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "params_version")), version) == 0);
	CHECK_INT(json_integer_value(json_object_get(r.json, "n_draws")), n_draws);
	json_t *p = json_object_get(r.json, "params");
	CHECK(strcmp(json_string_value(json_object_get(p, "schema")), WC_PARAMS_SCHEMA) == 0);
	CHECK_INT(json_array_size(json_object_get(p, "levels")), n_levels);
	/* Intervals are there: S of A100 has its published ci95. */
	json_t *ci = json_object_get(json_object_get(json_array_get(json_object_get(p, "levels"), 0), "s_w"), "ci95");
	CHECK_NEAR(json_number_value(json_array_get(ci, 0)), 318, 1e-9);
	CHECK(json_is_null(json_object_get(p, "draws")));
	http_reply_free(&r);

	http_get(h, url("/v1/models"), &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), (long long)wc_model_count());
	json_t *models = json_object_get(r.json, "models");
	CHECK_INT(json_array_size(models), (long long)wc_model_count());
	int seen = 0;
	for (size_t i = 0; i < json_array_size(models); i++) {
		json_t *m = json_array_get(models, i);
		if (strcmp(json_string_value(json_object_get(m, "name")), "Qwen3-30B-A3B") == 0) {
			seen = 1;
			CHECK_NEAR(http_json_num(m, "active_params_b"), 3.3, 1e-12);
			CHECK_INT(json_integer_value(json_object_get(m, "experts")), 128);
			CHECK(strcmp(json_string_value(json_object_get(m, "weights")), "bf16") == 0);
		}
		if (strcmp(json_string_value(json_object_get(m, "name")), "gpt-oss-120b") == 0) {
			seen++; /* published in MXFP4, the int4 class */
			CHECK(strcmp(json_string_value(json_object_get(m, "weights")), "int4") == 0);
			CHECK_INT(json_integer_value(json_object_get(m, "context_tokens")), 131072);
		}
		if (strcmp(json_string_value(json_object_get(m, "name")), "gemma-4-26B-A4B") == 0)
			CHECK(json_is_null(json_object_get(m, "context_tokens"))); /* not stated */
	}
	CHECK_INT(seen, 2);
	http_reply_free(&r);

	http_get(h, url("/v1/health"), &r);
	CHECK_INT(r.status, 200);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "status")), "ok") == 0);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "params_version")), version) == 0);
	http_reply_free(&r);
}

/* The answer memo's lookups as /metrics counts them (hit, miss). */
static void
memo_counts(double *hit, double *miss)
{
	http_reply r;
	http_get(h, url("/metrics"), &r);
	*hit = http_metric(r.body, "wattcast_answer_cache_lookups_total{result=\"hit\"}");
	*miss = http_metric(r.body, "wattcast_answer_cache_lookups_total{result=\"miss\"}");
	http_reply_free(&r);
}

/* POST /v1/predict/inference: the raw bytes of the answer (malloc'd). */
static char *
predict_bytes(const char *body, long *status)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	*status = r.status;
	char *bytes = r.body ? strdup(r.body) : NULL;
	http_reply_free(&r);
	return bytes;
}

/* A repeated body is answered from the memo with the same bytes; a body
 * that differs by one byte, an error answer, and the first request after
 * a reload are computed (docs/http-api.md, "Answer cache"). */
static void
test_answer_memo(wc_server *srv, const wc_params *next, const char *next_version)
{
	const char *body = "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":17,"
	                   "\"input_tokens\":700,\"output_tokens\":300,\"price_per_kwh\":0.2}";
	const char *spaced = "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":17,"
	                     "\"input_tokens\":700,\"output_tokens\":300,\"price_per_kwh\":0.2 }";
	const char *bad = "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":-17}";
	double hit0, miss0, hit, miss;
	long st1, st2, st3, st4;
	wc_error err;

	memo_counts(&hit0, &miss0);
	CHECK(hit0 >= 0 && miss0 >= 0);
	char *first = predict_bytes(body, &st1), *again = predict_bytes(body, &st2);
	char *other = predict_bytes(spaced, &st3);
	CHECK_INT(st1, 200);
	CHECK_INT(st2, 200);
	CHECK_INT(st3, 200);
	CHECK(first && again && other && strcmp(first, again) == 0 && strcmp(first, other) == 0);
	memo_counts(&hit, &miss);
	CHECK_NEAR(hit, hit0 + 1, 0);
	CHECK_NEAR(miss, miss0 + 2, 0);
	free(predict_bytes(bad, &st4));
	free(predict_bytes(bad, &st4));
	CHECK_INT(st4, 422);
	memo_counts(&hit, &miss);
	CHECK_NEAR(hit, hit0 + 1, 0);
	CHECK_NEAR(miss, miss0 + 4, 0);

	/* New parameters: the memo starts empty and the answer names them. */
	CHECK_INT(wc_server_reload(srv, next, "memo", &err), WC_OK);
	memo_counts(&hit, &miss);
	CHECK_NEAR(hit, 0, 0);
	CHECK_NEAR(miss, 0, 0);
	char *after = predict_bytes(body, &st1);
	CHECK_INT(st1, 200);
	CHECK(after && strstr(after, next_version) != NULL && strcmp(after, first) != 0);
	free(first);
	free(again);
	free(other);
	free(after);
}

/* Readers of /v1/params (whose body is borrowed from the state) and of
 * predictions while the main thread swaps sets as fast as it can: every
 * answer is complete and names one of the two versions. Under ASan this
 * also catches a state freed while an answer still points into it. */
typedef struct {
	const char *v1, *v2;
	int ok, bad;
} swap_reader;

static atomic_int swapping;

static void *
swap_reader_run(void *arg)
{
	swap_reader *sr = arg;
	CURL *c = curl_easy_init();
	for (int i = 0; atomic_load(&swapping) || i < 20; i++) {
		http_reply r;
		const char *u = url(i % 2 ? "/v1/params" : "/v1/predict/inference");
		if (i % 2)
			http_get(c, u, &r);
		else
			http_post_json(c, u, "{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", &r);
		const char *v = json_string_value(json_object_get(r.json, "params_version"));
		if (r.status == 200 && v && (strcmp(v, sr->v1) == 0 || strcmp(v, sr->v2) == 0))
			sr->ok++;
		else
			sr->bad++;
		http_reply_free(&r);
	}
	curl_easy_cleanup(c);
	return NULL;
}

static void
test_swap_under_load(wc_server *srv, const wc_params *a, const char *va, const wc_params *b,
                     const char *vb)
{
	pthread_t th[2];
	swap_reader sr[2] = { { va, vb, 0, 0 }, { va, vb, 0, 0 } };
	wc_error err;
	atomic_store(&swapping, 1);
	for (int i = 0; i < 2; i++)
		CHECK_INT(pthread_create(&th[i], NULL, swap_reader_run, &sr[i]), 0);
	for (int i = 0; i < 60; i++)
		CHECK_INT(wc_server_reload(srv, i % 2 ? a : b, "swap", &err), WC_OK);
	atomic_store(&swapping, 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(sr[i].bad, 0);
		CHECK(sr[i].ok >= 20);
	}
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, drawn = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	char v_paper[17], v_drawn[17], v[17];

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	test_drawn_params(&drawn);
	CHECK_INT(wc_params_fingerprint(&paper, v_paper, &err), WC_OK);
	CHECK_INT(wc_params_fingerprint(&drawn, v_drawn, &err), WC_OK);

	srv = http_server_start(&paper, "profile:paper", 4);
	if (!srv)
		return check_report("test_server_api");
	CHECK(wc_server_port(srv) > 0);
	wc_server_params_version(srv, v);
	CHECK(strcmp(v, v_paper) == 0);

	test_anchors(v_paper);
	test_batch(v_paper);
	test_info(v_paper, 4, 0);

	/* Reload in process: new requests see the new set and its interval. */
	CHECK_INT(wc_server_reload(srv, &drawn, "drawn", &err), WC_OK);
	wc_server_params_version(srv, v);
	CHECK(strcmp(v, v_drawn) == 0);
	json_t *a = NULL;
	double node = predict("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", &a);
	json_t *iv = json_object_get(a, "interval_95");
	CHECK(json_is_object(iv));
	CHECK_INT(json_integer_value(json_object_get(iv, "draws")), 101);
	double lo = json_number_value(json_array_get(json_object_get(iv, "node_power_w"), 0));
	double hi = json_number_value(json_array_get(json_object_get(iv, "node_power_w"), 1));
	CHECK(lo < node && node < hi);
	CHECK_NEAR(lo, 72.9 + 329 / (1 + exp(-(1.5 + 2.5 * 0.01))), 1e-3);
	CHECK(strcmp(json_string_value(json_object_get(a, "params_version")), v_drawn) == 0);
	json_decref(a);
	test_info(v_drawn, 4, 101);
	/* A set that fails validation is refused and the old one stays. */
	wc_params broken = WC_PARAMS_INIT;
	wc_params_default(&broken);
	broken.levels[1].s.value = -5;
	CHECK(wc_server_reload(srv, &broken, "broken", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "levels/1/s_w");
	wc_server_params_version(srv, v);
	CHECK(strcmp(v, v_drawn) == 0);
	test_answer_memo(srv, &paper, v_paper);
	/* 60 swaps under load, ending on the drawn set. */
	test_swap_under_load(srv, &drawn, v_drawn, &paper, v_paper);

	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&drawn);
	wc_params_clear(&paper);
	return check_report("test_server_api");
}

/*
 * The capacity fields over real HTTP: a closed-loop answer with its
 * capacity block (the same numbers as the CLI), an open loop and its
 * solved running count, over-capacity rates, cost and CO2, explicit
 * architectures, and every bad input refused with 422 and its field:
 * negative tokens, rate <= 0, a capacity request without architecture, a
 * model that does not fit (weights, or the requests' KV cache).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>

static CURL *h;

/* The capacity answer's warnings as one string (a static buffer). */
static const char *
capacity_warnings(const json_t *a)
{
	static char buf[8192];
	char *s = json_dumps(json_object_get(json_object_get(a, "capacity"), "warnings"), 0);
	snprintf(buf, sizeof buf, "%s", s ? s : "");
	free(s);
	return buf;
}

static json_t *
answer(const char *body)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "  body %s -> %ld %s\n", body, r.status, r.body ? r.body : "");
	json_t *o = r.json;
	r.json = NULL;
	http_reply_free(&r);
	return o;
}

static double
cap(const json_t *a, const char *key)
{
	const json_t *v = json_object_get(json_object_get(a, "capacity"), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void
expect_422(const char *body, const char *field, const char *needle)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 422);
	CHECK(http_error_str(&r, "field") && strcmp(http_error_str(&r, "field"), field) == 0);
	CHECK(http_error_str(&r, "message") && strstr(http_error_str(&r, "message"), needle));
	if (r.status != 422 || !http_error_str(&r, "field") || strcmp(http_error_str(&r, "field"), field) != 0 ||
	    !strstr(http_error_str(&r, "message"), needle))
		fprintf(stderr, "  body %s -> %ld %s\n", body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

/* expert_parallel: every GPU reads the shared weights, so an MoE model's
 * decode is slower than tensor parallel; anything but a boolean is 422. */
static void
expert_parallel(void)
{
	static const char *const fmt = "{\"platform\":\"H100\",\"tp\":8,\"model\":\"Qwen3-235B-A22B\",\"concurrency\":16,"
	                               "\"input_tokens\":500,\"output_tokens\":500%s}";
	char body[256];
	snprintf(body, sizeof body, fmt, "");
	json_t *tp = answer(body);
	snprintf(body, sizeof body, fmt, ",\"expert_parallel\":false");
	json_t *tp2 = answer(body);
	snprintf(body, sizeof body, fmt, ",\"expert_parallel\":true");
	json_t *ep = answer(body);
	CHECK(cap(ep, "latency_s") > 1.01 * cap(tp, "latency_s"));
	CHECK_NEAR(cap(tp2, "latency_s"), cap(tp, "latency_s"), 0);
	json_decref(tp);
	json_decref(tp2);
	json_decref(ep);
	snprintf(body, sizeof body, fmt, ",\"expert_parallel\":1");
	expect_422(body, "/expert_parallel", "expected true or false");
	/* experts without the total parameters: refused naming the missing
	 * field (answered as a dense model, the experts holding nothing) */
	expect_422("{\"platform\":\"H100\",\"active_params_b\":13,\"architecture\":{\"layers\":32,\"kv_heads\":8,"
	           "\"head_dim\":128,\"experts\":8,\"experts_per_token\":2},\"concurrency\":16,\"input_tokens\":512,"
	           "\"output_tokens\":256}", "/architecture/total_params_b", "required with experts");
	/* and the converse: the total or experts_per_token without experts
	 * (answered as a dense model reading every weight), experts without
	 * experts_per_token (it said "got 0") */
	expect_422("{\"platform\":\"H100\",\"active_params_b\":3,\"architecture\":{\"layers\":48,\"kv_heads\":4,"
	           "\"head_dim\":128,\"total_params_b\":30,\"experts_per_token\":8},\"rate\":1,\"input_tokens\":512,"
	           "\"output_tokens\":128}", "/architecture/experts", "required with experts per token (8)");
	expect_422("{\"platform\":\"H100\",\"active_params_b\":3,\"architecture\":{\"layers\":48,\"kv_heads\":4,"
	           "\"head_dim\":128,\"total_params_b\":30},\"rate\":1,\"input_tokens\":512,"
	           "\"output_tokens\":128}", "/architecture/experts", "required with a total (30 B)");
	expect_422("{\"platform\":\"H100\",\"active_params_b\":3,\"architecture\":{\"layers\":48,\"kv_heads\":4,"
	           "\"head_dim\":128,\"total_params_b\":30,\"experts\":128},\"rate\":1,\"input_tokens\":512,"
	           "\"output_tokens\":128}", "/architecture/experts_per_token", "required with experts (128)");
}

/* An architecture fact never sent is missing, not 0: 422 missing_field on
 * the first of layers, kv_heads, head_dim absent, saying the three go
 * together, on every route that takes "architecture" (it said "got 0"
 * with invalid_value); a 0 sent is still invalid_value. */
static void
missing_facts(void)
{
	static const struct {
		const char *path, *arch, *tail, *code, *field, *needle;
	} cases[] = {
		{ "/v1/predict/inference", "{\"layers\":36}", "", "missing_field", "/architecture/kv_heads",
		  "architecture/kv_heads: required: layers, kv_heads and head_dim are all needed" },
		{ "/v1/predict/inference", "{\"layers\":36,\"kv_heads\":8}", "", "missing_field",
		  "/architecture/head_dim", "architecture/head_dim: required: layers, kv_heads and head_dim" },
		{ "/v1/predict/inference", "{\"kv_heads\":8,\"head_dim\":128}", ",\"input_tokens\":9,\"output_tokens\":9",
		  "missing_field", "/architecture/layers", "architecture/layers: required:" },
		{ "/v1/predict/inference", "{\"experts\":8,\"experts_per_token\":2,\"total_params_b\":40}", "",
		  "missing_field", "/architecture/layers", "are all needed for a model the catalog does not have" },
		{ "/v1/predict/inference", "{\"layers\":36,\"kv_heads\":0}", "", "invalid_value",
		  "/architecture/kv_heads", "got 0" },
		{ "/v1/predict/flexibility", "{\"layers\":36}", ",\"input_tokens\":9,\"output_tokens\":9",
		  "missing_field", "/architecture/kv_heads", "architecture/kv_heads: required:" },
		{ "/v1/predict/batch", "{\"layers\":36,\"kv_heads\":8}", "", "missing_field",
		  "/0/architecture/head_dim", "architecture/head_dim: required:" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char body[512];
		const int batch = strcmp(cases[i].path, "/v1/predict/batch") == 0;
		snprintf(body, sizeof body, "%s{\"platform\":\"H100\",\"active_params_b\":8,\"architecture\":%s,"
		         "\"concurrency\":32%s}%s", batch ? "[" : "", cases[i].arch, cases[i].tail, batch ? "]" : "");
		http_reply r;
		http_post_json(h, url(cases[i].path), body, &r);
		const json_t *err = batch ? json_object_get(json_array_get(json_object_get(r.json, "results"), 0), "error")
		                          : json_object_get(r.json, "error");
		const char *code = json_string_value(json_object_get(err, "code"));
		const char *field = json_string_value(json_object_get(err, "field"));
		const char *msg = json_string_value(json_object_get(err, "message"));
		int before = check_failures;
		CHECK_INT(r.status, batch ? 200 : 422);
		CHECK_INT(json_integer_value(json_object_get(err, "status")), 422);
		CHECK(code && strcmp(code, cases[i].code) == 0);
		CHECK(field && strcmp(field, cases[i].field) == 0);
		CHECK(msg && strstr(msg, cases[i].needle) && strlen(msg) <= 255);
		if (check_failures != before)
			fprintf(stderr, "  POST %s %s -> %ld %s\n", cases[i].path, body, r.status, r.body ? r.body : "");
		http_reply_free(&r);
	}
}

static void
closed_and_open(void)
{
	json_t *a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":32,"
	                   "\"input_tokens\":107.43645143771522,\"output_tokens\":512,\"price_per_kwh\":0.2,"
	                   "\"grams_co2_per_kwh\":400}");
	double lat = cap(a, "latency_s"), ept = cap(a, "energy_per_output_token_j");
	CHECK_NEAR(lat, 4.18, 0.02);
	CHECK_NEAR(cap(a, "throughput_tok_s"), 32 * 512 / lat, 1e-6);
	CHECK_NEAR(ept, json_number_value(json_object_get(a, "node_power_w")) * lat / (32 * 512), 1e-9);
	CHECK_NEAR(cap(a, "energy_per_request_j") / (ept * 512), 1.0, 1e-8);
	json_t *cost = json_object_get(json_object_get(a, "capacity"), "cost");
	CHECK_NEAR(json_number_value(json_object_get(cost, "per_million_output_tokens")), ept * 1e6 / 3.6e6 * 0.2, 1e-9);
	CHECK(json_number_value(json_object_get(a, "max_concurrency_fit")) > 100);
	/* tp absent is one GPU, as the CLI's --tp: the same answer, said */
	json_t *one = answer("{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":32,"
	                     "\"input_tokens\":107.43645143771522,\"output_tokens\":512,\"price_per_kwh\":0.2,"
	                     "\"grams_co2_per_kwh\":400}");
	CHECK_INT(json_integer_value(json_object_get(json_object_get(one, "config"), "tp")), 1);
	CHECK_NEAR(cap(one, "latency_s"), lat, 0);
	CHECK_NEAR(json_number_value(json_object_get(one, "node_power_w")),
	           json_number_value(json_object_get(a, "node_power_w")), 0);
	json_decref(one);
	json_decref(a);
	/* a board the set has no capacity level for: its datasheet, said */
	a = answer("{\"platform\":\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":16,"
	           "\"input_tokens\":500,\"output_tokens\":300}");
	json_t *capo = json_object_get(a, "capacity");
	CHECK(strcmp(json_string_value(json_object_get(capo, "level_source")), "datasheet") == 0);
	CHECK(strcmp(json_string_value(json_object_get(a, "level_source")), "datasheet") == 0);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(capo, "warnings"), 0)),
	               "platform: no fitted capacity level for L40S");
	CHECK(cap(a, "latency_s") > 0);
	json_decref(a);
	a = answer("{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":16,"
	           "\"input_tokens\":500,\"output_tokens\":300}");
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(a, "capacity"), "level_source")), "fitted") == 0);
	json_decref(a);
	/* open loop: n = rate x latency(n), below the engine's cap */
	a = answer("{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":2,\"concurrency\":64,"
	           "\"input_tokens\":200,\"output_tokens\":256}");
	double n = json_number_value(json_object_get(a, "mean_running"));
	CHECK(n > 1 && n < 64);
	CHECK_NEAR(n, 2 * cap(a, "latency_s"), 1e-6 * n);
	CHECK(json_is_false(json_object_get(json_object_get(a, "capacity"), "over_capacity")));
	json_decref(a);
	/* beyond capacity: flagged, answered at the cap */
	a = answer("{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":1000,\"concurrency\":64,"
	           "\"input_tokens\":200,\"output_tokens\":256}");
	CHECK(json_is_true(json_object_get(json_object_get(a, "capacity"), "over_capacity")));
	CHECK_NEAR(json_number_value(json_object_get(a, "mean_running")), 64, 0);
	CHECK(cap(a, "capacity_rate") < 1000);
	json_decref(a);
	/* a model the catalog does not have, by its architecture */
	a = answer("{\"platform\":\"H200\",\"tp\":1,\"active_params_b\":9,\"architecture\":{\"layers\":40,"
	           "\"kv_heads\":8,\"head_dim\":128,\"d_model\":4096},\"concurrency\":16,\"input_tokens\":200,"
	           "\"output_tokens\":300}");
	CHECK(cap(a, "latency_s") > 0);
	json_decref(a);
	/* local attention by its facts answers as the catalog entry that has
	 * them (gemma-3-27b: 10 full layers, a 1024-token window) */
	a = answer("{\"platform\":\"H100\",\"tp\":2,\"model\":\"gemma-3-27b\",\"concurrency\":16,"
	           "\"input_tokens\":16000,\"output_tokens\":500}");
	json_t *b = answer("{\"platform\":\"H100\",\"tp\":2,\"active_params_b\":27,\"architecture\":{\"layers\":62,"
	                   "\"kv_heads\":16,\"head_dim\":128,\"d_model\":5376,\"attention_heads\":32,\"cache_layers\":10,"
	                   "\"sliding_window\":1024},\"concurrency\":16,\"input_tokens\":16000,\"output_tokens\":500}");
	CHECK(cap(a, "latency_s") > 0);
	CHECK_NEAR(cap(b, "latency_s"), cap(a, "latency_s"), 1e-9 * cap(a, "latency_s"));
	json_decref(b);
	/* without the window every layer caches the 16 k tokens: slower */
	b = answer("{\"platform\":\"H100\",\"tp\":2,\"active_params_b\":27,\"architecture\":{\"layers\":62,"
	           "\"kv_heads\":16,\"head_dim\":128,\"d_model\":5376},\"concurrency\":16,\"input_tokens\":16000,"
	           "\"output_tokens\":500}");
	CHECK(cap(b, "latency_s") > 1.2 * cap(a, "latency_s"));
	json_decref(b);
	json_decref(a);
}

static void
refusals(void)
{
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":-1,"
	           "\"output_tokens\":100}", "/input_tokens", "input_tokens");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":10,"
	           "\"output_tokens\":0}", "/output_tokens", "output_tokens");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":0,\"input_tokens\":10,"
	           "\"output_tokens\":100}", "/rate", "must be > 0");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":-2,\"input_tokens\":10,"
	           "\"output_tokens\":100}", "/rate", "must be > 0");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":8,\"input_tokens\":10,"
	           "\"output_tokens\":100}", "/model", "need the architecture");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Llama-3.1-405B\",\"concurrency\":32}", "/tp",
	           "the weights need 810.0 GB");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":405,\"concurrency\":32}", "/tp", "at least 11 GPUs");
	/* More requests than the KV cache holds are answered as vLLM runs them
	 * (docs/capacity.md, "Memory as vLLM does it"): fewer run, with a
	 * warning; it used to be refused. */
	json_t *a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":1000,"
	                   "\"input_tokens\":4000,\"output_tokens\":1000}");
	double fit = json_number_value(json_object_get(a, "max_concurrency_fit"));
	CHECK(fit >= 1 && fit < 1000);
	CHECK_NEAR(json_number_value(json_object_get(a, "mean_running")), fit, 0);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(json_object_get(a, "capacity"), "warnings"), 0)),
	               "and preempts the rest");
	/* the warning names the cache's precision, and an fp8 cache holds
	 * about twice the requests (vLLM's --kv-cache-dtype fp8) */
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(json_object_get(a, "capacity"), "warnings"), 0)),
	               "after the weights, bf16)");
	json_decref(a);
	a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":1000,"
	           "\"kv_cache\":\"fp8\",\"input_tokens\":4000,\"output_tokens\":1000}");
	double fit8 = json_number_value(json_object_get(a, "max_concurrency_fit"));
	CHECK(fit8 >= 1.9 * fit && fit8 <= 2.1 * fit);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(json_object_get(a, "capacity"), "warnings"), 0)),
	               "after the weights, fp8)");
	json_decref(a);
	/* A prompt past the model card's context: answered (memory holds it),
	 * with one warning naming the field and the context */
	a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Llama-3.1-8B\",\"concurrency\":1,"
	           "\"input_tokens\":300000,\"output_tokens\":512}");
	CHECK_CONTAINS(capacity_warnings(a),
	               "input_tokens: 300000 + 512 tokens exceed Llama-3.1-8B's context of 131072 tokens (config.json)");
	json_decref(a);
	a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Llama-3.1-8B\",\"concurrency\":1,"
	           "\"input_tokens\":100000,\"output_tokens\":512}");
	CHECK(strstr(capacity_warnings(a), "context of") == NULL);
	json_decref(a);
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":10}",
	           "/output_tokens", "required");
	/* bounded workloads: every answer a finite number (latency overflowed
	 * to null at 1e308 running and 1e5 output tokens) */
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":1e308,\"input_tokens\":512,"
	           "\"output_tokens\":100000}", "/concurrency", "at most 1e+06 requests at once");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":512,"
	           "\"output_tokens\":1e12}", "/output_tokens", "from 1 to 1e+08");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":1e9,\"input_tokens\":512,"
	           "\"output_tokens\":100}", "/rate", "at most 1e+06 requests/s");
	/* a context that cannot fit blames the length that makes most of it */
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":512,"
	           "\"output_tokens\":1e7}", "/output_tokens", "512 + 10000000 tokens exceed");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"architecture\":{\"layers\":-1},"
	           "\"concurrency\":8}", "/architecture/layers", "between");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"architecture\":{\"layers\":32,"
	           "\"kv_heads\":8,\"head_dim\":128,\"d_model\":4096,\"sliding_window\":4096},\"concurrency\":8,\"input_tokens\":10,"
	           "\"output_tokens\":10}", "/architecture/sliding_window", "no layer attends within it");
	expect_422("{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"architecture\":{\"layers\":32,"
	           "\"kv_heads\":8,\"head_dim\":128,\"d_model\":4096,\"cache_layers\":8},\"concurrency\":8,\"input_tokens\":10,"
	           "\"output_tokens\":10}", "/architecture/sliding_window", "the other 24 layers would cache nothing");
}

/* Every null interval of a capacity answer has its covers_by_quantity
 * entry starting "none: " (docs/http-api.md, the capacity answer's
 * interval_95), a closed loop's running count too (it had none: it is the
 * concurrency asked, not an estimate); an open loop's is estimated. With
 * the measured profile, which has held-out errors, so intervals exist. */
static void
null_intervals_say_why(wc_server *srv)
{
	wc_params measured = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	CHECK_INT(wc_server_reload(srv, &measured, "profile:measured", NULL), WC_OK);
	static const char *const bodies[] = {
		"{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":32,\"input_tokens\":500,"
		"\"output_tokens\":512}",
		"{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":2,\"concurrency\":64,"
		"\"input_tokens\":200,\"output_tokens\":256}",
	};
	for (int b = 0; b < 2; b++) {
		json_t *a = answer(bodies[b]);
		const json_t *iv = json_object_get(json_object_get(a, "capacity"), "interval_95");
		const json_t *each = json_object_get(iv, "covers_by_quantity"), *v;
		const char *k;
		int nulls = 0;
		CHECK(json_is_object(iv));
		json_object_foreach((json_t *)iv, k, v)
			if (json_is_null(v)) {
				const char *why = json_string_value(json_object_get(each, k));
				nulls++;
				CHECK(why && strncmp(why, "none: ", 6) == 0);
				if (!why)
					fprintf(stderr, "  %s: interval_95.%s null without its reason\n", bodies[b], k);
			}
		const char *running = json_string_value(json_object_get(each, "mean_running"));
		if (b == 0) {
			CHECK(json_is_null(json_object_get(iv, "mean_running")));
			CHECK(running && strstr(running, "none: a closed loop's running count is the concurrency asked"));
		} else {
			CHECK(json_is_array(json_object_get(iv, "mean_running")));
			CHECK(running && strncmp(running, "none: ", 6) != 0);
		}
		CHECK(nulls >= 1); /* TTFT: no held-out error, no draws */
		json_decref(a);
	}
	wc_params_clear(&measured);
}

/* Fields that enter only the capacity answers, given without the token
 * lengths, are named in a warning as ignored (they were silently); with
 * the lengths, or expert_parallel false (the default), no such warning. */
static void
ignored_without_tokens(void)
{
	static const char *const fields[] = { "price_per_kwh", "grams_co2_per_kwh", "expert_parallel" };
	json_t *a = answer("{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	                   "\"price_per_kwh\":0.2,\"grams_co2_per_kwh\":400,\"expert_parallel\":true}");
	const json_t *w = json_object_get(a, "warnings");
	for (int f = 0; f < 3; f++) {
		int found = 0;
		char want[96];
		snprintf(want, sizeof want, "%s: ignored: it enters only the capacity answers", fields[f]);
		for (size_t i = 0; i < json_array_size(w); i++)
			found |= strncmp(json_string_value(json_array_get(w, i)), want, strlen(want)) == 0;
		CHECK(found);
	}
	json_decref(a);
	static const char *const quiet[] = {
		"{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":100,"
		"\"output_tokens\":100,\"price_per_kwh\":0.2,\"grams_co2_per_kwh\":400}",
		"{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"expert_parallel\":false}",
	};
	for (int q = 0; q < 2; q++) {
		a = answer(quiet[q]);
		w = json_object_get(a, "warnings");
		for (size_t i = 0; i < json_array_size(w); i++)
			CHECK(strstr(json_string_value(json_array_get(w, i)), ": ignored:") == NULL);
		json_decref(a);
	}
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	if (!(srv = http_server_start(&paper, "profile:paper", 4)))
		return check_report("test_server_capacity");
	closed_and_open();
	expert_parallel();
	missing_facts();
	refusals();
	ignored_without_tokens();
	null_intervals_say_why(srv);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_capacity");
}

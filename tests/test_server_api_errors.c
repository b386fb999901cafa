/*
 * The REST API's error answers over real HTTP (libcurl) against an
 * in-process server on 127.0.0.1:0 (docs/http-api.md, "Errors"): every
 * error status with its code and field (400, 404, 405, 413, 415, 422),
 * then the Prometheus counters, which count exactly those answers, per
 * route and status, with the latency histogram and the loaded set's info
 * after a reload. The successful answers are in test_server_api.c.
 */
#include "data/data.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static void
expect_422(const char *body, const char *code, const char *field)
{
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", body, 422, code, field);
}

static void
test_errors(void)
{
	const char *good = "{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}";
	http_reply r;

	/* 400: malformed JSON with line and column. */
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\": \"A100\",\n \"tp\": }", &r);
	CHECK_INT(r.status, 400);
	CHECK(strcmp(http_error_str(&r, "code"), "malformed_json") == 0);
	CHECK_INT(http_error_int(&r, "line"), 2);
	CHECK(http_error_int(&r, "column") > 1);
	http_reply_free(&r);
	/* Non-finite numbers cannot be written in JSON; 1e999 fails parsing. */
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":1e999,\"concurrency\":32}", &r);
	CHECK_INT(r.status, 400);
	CHECK(strcmp(http_error_str(&r, "code"), "number_out_of_range") == 0);
	CHECK_INT(http_error_int(&r, "line"), 1);
	CHECK(http_error_int(&r, "column") >= 40);
	http_reply_free(&r);
	/* An integer literal past 64 bits that a double holds reached no
	 * field check (400 "too big integer", no field), while 1e20 did: it
	 * is read as that double, and its field refuses it. */
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json",
	                  "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"tp\":18446744073709551616,\"concurrency\":1}",
	                  422, "invalid_value", "/tp");
	http_expect_error(h, "POST", "/v1/forecast/envelope", "application/json",
	                  "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":4},"
	                  "\"seed\":9223372036854775808}", 422, "invalid_value", "/seed");
	/* ... and so is a concurrency past 64 bits: read as its double, refused
	 * by the field's own range (docs/http-api.md, "Limits") */
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json",
	                  "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":100000000000000000000}",
	                  422, "invalid_value", "/concurrency");
	/* Each is quoted by the digits sent (docs/http-api.md, "Errors": "quoted
	 * as sent"), not as its double: "got 9.223372036854776e+18", with a
	 * hint to write it as an integer, though it was one. The hint stays
	 * for a whole number within the bound written with an exponent. */
	static const struct {
		const char *path, *body, *says;
	} quoted[] = {
		{ "/v1/forecast/envelope", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":"
		  "\"poisson\",\"rate\":2},\"seed\":9223372036854775808}",
		  "seed: must be a whole number 0..2^63-1, got 9223372036854775808" },
		{ "/v1/forecast/envelope", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":"
		  "\"poisson\",\"rate\":2},\"seed\":-9223372036854775809}",
		  "seed: must be a whole number 0..2^63-1, got -9223372036854775809" },
		{ "/v1/forecast/envelope", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":"
		  "\"poisson\",\"rate\":2},\"seed\":1e17}",
		  "seed: must be a whole number 0..2^63-1 (above 2^53 written as an integer: a fraction or exponent is "
		  "exact only to 2^53), got 1e+17" },
		{ "/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"tp\":18446744073709551617,"
		  "\"concurrency\":1}", "got 18446744073709551617" },
		/* two literals of one double: the one refused is not told apart */
		{ "/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"tp\":18446744073709551617,"
		  "\"concurrency\":18446744073709551616}", "got 1.8446744073709552e+19" },
	};
	for (size_t i = 0; i < sizeof quoted / sizeof quoted[0]; i++) {
		http_post_json(h, url(quoted[i].path), quoted[i].body, &r);
		const char *m = http_error_str(&r, "message");
		CHECK(r.status == 422 && m && strstr(m, quoted[i].says) && strlen(m) <= 255);
		if (r.status != 422 || !m || !strstr(m, quoted[i].says))
			fprintf(stderr, "  %s: %s\n", quoted[i].says, r.body ? r.body : "");
		http_reply_free(&r);
	}
	/* a later malformation's column counts the text as sent */
	http_post_json(h, url("/v1/predict/inference"), "[100000000000000000000, 1, }", &r);
	CHECK_INT(r.status, 400);
	CHECK_INT(http_error_int(&r, "column"), 28);
	http_reply_free(&r);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", "NaN", 400, "malformed_json", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json",
	                     "{\"tp\":1,\"tp\":2}", 400, "duplicate_key", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", "", 400, "malformed_json", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", "{} trailing", 400,
	                     "malformed_json", NULL);
	/* Deep nesting is refused before the (recursive) parser sees it, and
	 * the server lives on; brackets inside strings do not count. */
	char deep[4002];
	memset(deep, '[', 2000);
	memset(deep + 2000, ']', 2000);
	deep[4000] = '\0';
	http_expect_error(h, "POST", "/v1/predict/batch", "application/json", deep, 400, "malformed_json", NULL);
	/* ...at the position of the bracket one level too deep, as every
	 * malformed body (docs/http-api.md, "Errors"): 33 x "[" then 33 x "]"
	 * goes past 32 at line 1, column 33; on line 2 after a string holding
	 * an escaped quote, a bracket and "é" (two bytes, one character), at
	 * the column counted in characters. */
	memset(deep, '[', 33);
	memset(deep + 33, ']', 33);
	deep[66] = '\0';
	http_post_json(h, url("/v1/predict/batch"), deep, &r);
	CHECK_INT(r.status, 400);
	CHECK(http_error_str(&r, "code") && strcmp(http_error_str(&r, "code"), "malformed_json") == 0);
	CHECK_INT(http_error_int(&r, "line"), 1);
	CHECK_INT(http_error_int(&r, "column"), 33);
	CHECK_CONTAINS(http_error_str(&r, "message"), "(line 1, column 33)");
	http_reply_free(&r);
	snprintf(deep, sizeof deep, "{\"a\":\n \"\\\"[\xc3\xa9\", \"b\":%.*s", 32, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
	http_post_json(h, url("/v1/predict/inference"), deep, &r);
	CHECK_INT(r.status, 400);
	CHECK_INT(http_error_int(&r, "line"), 2);
	/* 13 characters (' "\\"[é", "b":') before the brackets; the 32nd is level 33 */
	CHECK_INT(http_error_int(&r, "column"), 45);
	http_reply_free(&r);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json",
	                     "{\"platform\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\",\"tp\":1,\"active_params_b\":8,\"concurrency\":1}",
	                     422, "unknown_platform", "/platform");
	http_post_json(h, url("/v1/predict/batch"), "[[[[[[[[1]]]]]]]]", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "failed")), 1);
	http_reply_free(&r);

	/* 404: unknown routes; routes are anchored (no prefix matches). */
	http_expect_error(h, "GET", "/v1/nope", NULL, NULL, 404, "not_found", NULL);
	http_expect_error(h, "POST", "/v1/predict/inferenceX", "application/json", good, 404, "not_found", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference/", "application/json", good, 404, "not_found", NULL);
	http_expect_error(h, "POST", "/v1/predict", "application/json", good, 404, "not_found", NULL);
	http_expect_error(h, "GET", "/v1/healthz", NULL, NULL, 404, "not_found", NULL);
	http_expect_error(h, "GET", "/index.html", NULL, NULL, 404, "not_found", NULL); /* the page is at / */
	http_expect_error(h, "GET", "/page.jsx", NULL, NULL, 404, "not_found", NULL);
	http_expect_error(h, "GET", "/v1/bench/trivial", NULL, NULL, 404, "not_found", NULL); /* off by default */
	/* 404: unknown model, with its field. */
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json",
	                     "{\"platform\":\"A100\",\"tp\":1,\"model\":\"GPT-7\",\"concurrency\":32}", 404,
	                     "unknown_model", "/model");

	/* 405 with Allow. */
	http_get(h, url("/v1/predict/inference"), &r);
	CHECK_INT(r.status, 405);
	CHECK(strcmp(r.allow, "POST") == 0);
	CHECK(strcmp(http_error_str(&r, "code"), "method_not_allowed") == 0);
	http_reply_free(&r);
	http_post_json(h, url("/v1/health"), "{}", &r);
	CHECK_INT(r.status, 405);
	CHECK(strcmp(r.allow, "GET") == 0);
	http_reply_free(&r);
	http_request(h, "DELETE", url("/v1/params"), NULL, NULL, 0, 0, &r);
	CHECK_INT(r.status, 405);
	CHECK(strcmp(r.allow, "GET") == 0);
	http_reply_free(&r);
	/* HEAD: a 405 without a body, and the connection stays usable. */
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url("/v1/health"));
	curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	CHECK_INT(curl_easy_perform(h), CURLE_OK);
	long head_status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &head_status);
	CHECK_INT(head_status, 405);
	http_get(h, url("/v1/health"), &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(r.connects, 0);
	http_reply_free(&r);

	/* 415: no or wrong Content-Type; parameters after the type are fine. */
	http_expect_error(h, "POST", "/v1/predict/inference", "text/plain", good, 415, "unsupported_media_type", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference", NULL, good, 415, "unsupported_media_type", NULL);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/jsonx", good, 415, "unsupported_media_type", NULL);
	http_request(h, "POST", url("/v1/predict/inference"), "application/json; charset=utf-8", good,
	             strlen(good), 0, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);

	/* 413: announced length over the limit (refused before reading), and
	 * a chunked body that only turns out too long while reading. */
	size_t big = WC_SERVER_DEFAULT_MAX_BODY + 1;
	char *blob = malloc(big + 1);
	memset(blob, ' ', big);
	blob[0] = '{';
	blob[big - 1] = '}';
	blob[big] = '\0';
	http_request(h, "POST", url("/v1/predict/inference"), "application/json", blob, big, 0, &r);
	CHECK_INT(r.status, 413);
	CHECK(strcmp(http_error_str(&r, "code"), "payload_too_large") == 0);
	CHECK(strcasecmp(r.connection, "close") == 0);
	http_reply_free(&r);
	http_request(h, "POST", url("/v1/predict/inference"), "application/json", blob, big, 1, &r);
	CHECK_INT(r.status, 413);
	http_reply_free(&r);
	/* One byte less is within the limit: it is read (and is valid JSON). */
	blob[big - 2] = '}';
	http_request(h, "POST", url("/v1/predict/inference"), "application/json", blob, big - 1, 1, &r);
	CHECK_INT(r.status, 422); /* {} lacks platform: read, parsed, validated */
	http_reply_free(&r);
	free(blob);
	/* The connection after a 413 is a fresh one and works; the next
	 * request reuses it (keep-alive with Content-Length). */
	http_post_json(h, url("/v1/predict/inference"), good, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	http_post_json(h, url("/v1/predict/inference"), good, &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(r.connects, 0);
	http_reply_free(&r);

	/* 422: well-formed but invalid, each with the field it concerns. */
	expect_422("[1,2]", "wrong_type", "");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"colour\":\"red\"}",
	           "unknown_field", "/colour");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"a/b~c\":1}",
	           "unknown_field", "/a~1b~0c");
	/* a sweep's field names the route it belongs to */
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"steps\":5}", &r);
	CHECK_INT(r.status, 422);
	CHECK(strcmp(http_error_str(&r, "field"), "/steps") == 0);
	CHECK_CONTAINS(http_error_str(&r, "message"), "steps belongs to POST /v1/predict/flexibility");
	http_reply_free(&r);
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"sweep\":\"clock\"}",
	           "unknown_field", "/sweep");
	expect_422("{\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", "missing_field", "/platform");
	expect_422("{\"platform\":7,\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", "wrong_type", "/platform");
	expect_422("{\"platform\":\"TPUv9\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", "unknown_platform", "/platform");
	expect_422("{\"platform\":\"A100\",\"tp\":\"1\",\"active_params_b\":8,\"concurrency\":32}", "wrong_type", "/tp");
	expect_422("{\"platform\":\"A100\",\"tp\":0,\"active_params_b\":8,\"concurrency\":32}", "invalid_value", "/tp");
	expect_422("{\"platform\":\"A100\",\"tp\":-2,\"active_params_b\":8,\"concurrency\":32}", "invalid_value", "/tp");
	expect_422("{\"platform\":\"A100\",\"tp\":1.5,\"active_params_b\":8,\"concurrency\":32}", "wrong_type", "/tp");
	expect_422("{\"platform\":\"A100\",\"tp\":100000,\"active_params_b\":8,\"concurrency\":32}", "invalid_value", "/tp");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"concurrency\":32}", "missing_field", "/active_params_b");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"model\":\"Qwen3-8B\",\"concurrency\":32}",
	           "conflicting_fields", "/model");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":0,\"concurrency\":32}", "invalid_value", "/active_params_b");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":true,\"concurrency\":32}", "wrong_type", "/active_params_b");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"model\":8,\"concurrency\":32}", "wrong_type", "/model");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8}", "missing_field", "/concurrency");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":-1}", "invalid_value", "/concurrency");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":\"32\"}", "wrong_type", "/concurrency");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"running_series\":[1],\"dt_s\":1}",
	           "conflicting_fields", "/running_series");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"dt_s\":1}", "conflicting_fields", "/dt_s");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[1,2]}", "missing_field", "/dt_s");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[1,2],\"dt_s\":0}", "invalid_value", "/dt_s");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[],\"dt_s\":1}", "invalid_value", "/running_series");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":{},\"dt_s\":1}", "wrong_type", "/running_series");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[1,2,-3],\"dt_s\":1}", "invalid_value", "/running_series/2");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[1,null],\"dt_s\":1}", "wrong_type", "/running_series/1");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"weights\":\"fp4\"}", "invalid_value", "/weights");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"kv_cache\":\"int4\"}", "invalid_value", "/kv_cache");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"kv_cache\":8}", "wrong_type", "/kv_cache");
	expect_422("{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"sm_clock_mhz\":0}", "invalid_value", "/sm_clock_mhz");
	/* A clock whose power would overflow: refused at the field, as
	 * beyond the board's clock range (it was a 422 on the whole item
	 * once the power had overflowed). */
	expect_422("{\"platform\":\"A100\",\"tp\":4096,\"active_params_b\":8,\"concurrency\":32,\"sm_clock_mhz\":1e308}",
	           "invalid_value", "/sm_clock_mhz");
}

/* The counters after test_errors on the same server (its 422s, 404s and
 * 405 are what the first read finds), then exactly the requests made in
 * between two reads (docs/http-api.md, "Read-only routes": GET /metrics). */
static void
test_metrics(const char *version)
{
	http_reply r;
	const char *s422 = "wattcast_http_requests_total{route=\"/v1/predict/inference\",status=\"422\"}";
	const char *s404 = "wattcast_http_requests_total{route=\"unmatched\",status=\"404\"}";
	const char *s405 = "wattcast_http_requests_total{route=\"/v1/health\",status=\"405\"}";
	http_get(h, url("/metrics"), &r);
	CHECK_INT(r.status, 200);
	CHECK_CONTAINS(r.content_type, "text/plain");
	double n422 = http_metric(r.body, s422), n404 = http_metric(r.body, s404), n405 = http_metric(r.body, s405);
	CHECK(n422 > 30 && n404 >= 6 && n405 >= 1);
	http_reply_free(&r);

	/* Exactly the requests made in between are counted. */
	for (int i = 0; i < 3; i++)
		expect_422("{\"platform\":\"A100\",\"tp\":0,\"active_params_b\":8,\"concurrency\":32}", "invalid_value", "/tp");
	http_expect_error(h, "GET", "/nope", NULL, NULL, 404, "not_found", NULL);
	http_expect_error(h, "GET", "/nope/2", NULL, NULL, 404, "not_found", NULL);
	http_expect_error(h, "DELETE", "/v1/health", NULL, NULL, 405, "method_not_allowed", NULL);
	http_get(h, url("/metrics"), &r);
	CHECK_NEAR(http_metric(r.body, s422), n422 + 3, 0);
	CHECK_NEAR(http_metric(r.body, s404), n404 + 2, 0);
	CHECK_NEAR(http_metric(r.body, s405), n405 + 1, 0);

	/* The histogram of a route: cumulative buckets ending in its count,
	 * which is the sum of its requests over every status. */
	const char *route = "/v1/predict/inference";
	double total = 0, prev = 0;
	const char *statuses[] = { "200", "400", "404", "405", "413", "415", "422", "500", "503", "other" };
	for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
		char s[160];
		snprintf(s, sizeof s, "wattcast_http_requests_total{route=\"%s\",status=\"%s\"}", route, statuses[i]);
		double v = http_metric(r.body, s);
		if (v > 0)
			total += v;
	}
	const char *les[] = { "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
	                      "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf" };
	for (size_t i = 0; i < sizeof les / sizeof les[0]; i++) {
		char s[160];
		snprintf(s, sizeof s, "wattcast_http_request_duration_seconds_bucket{route=\"%s\",le=\"%s\"}", route, les[i]);
		double v = http_metric(r.body, s);
		CHECK(v >= prev);
		prev = v;
	}
	char s[160];
	snprintf(s, sizeof s, "wattcast_http_request_duration_seconds_count{route=\"%s\"}", route);
	CHECK_NEAR(http_metric(r.body, s), total, 0);
	CHECK_NEAR(prev, total, 0);
	char info[160];
	snprintf(info, sizeof info, "wattcast_params_info{version=\"%s\",name=\"drawn\"}", version);
	CHECK_NEAR(http_metric(r.body, info), 1, 0);
	CHECK_NEAR(http_metric(r.body, "wattcast_params_reloads_total{result=\"ok\"}"), 1, 0);
	CHECK(http_metric(r.body, "wattcast_params_loaded_timestamp_seconds") > 1.6e9);
	CHECK_NEAR(http_metric(r.body, "wattcast_http_requests_in_flight"), 1, 0);
	http_reply_free(&r);
}

/* A raw POST of the inference example with `coding` as its
 * Content-Encoding (NULL: none); the answer in `answer`. */
static int
post_coded(int port, const char *coding, char *answer, size_t cap)
{
	static const char body[] = "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":3}";
	char req[512], ce[64] = "";
	if (coding)
		snprintf(ce, sizeof ce, "Content-Encoding: %s\r\n", coding);
	snprintf(req, sizeof req, "POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	         "%sContent-Length: %zu\r\nConnection: close\r\n\r\n%s", ce, strlen(body), body);
	int fd = raw_connect(port);
	answer[0] = '\0';
	if (fd < 0)
		return 0;
	raw_send(fd, req, strlen(req));
	size_t n = raw_read_all(fd, answer, cap);
	close(fd);
	return n > 12 && strncmp(answer, "HTTP/1.1 ", 9) == 0 ? atoi(answer + 9) : 0;
}

/* A body labelled gzip was read as if plain (a real gzip body was blamed
 * as malformed JSON at line 1): any coding but identity is 415 naming
 * Content-Encoding (RFC 9110, 15.5.16). */
static void
test_content_encoding(int port)
{
	char answer[16384];
	CHECK_INT(post_coded(port, "gzip", answer, sizeof answer), 415);
	CHECK_CONTAINS(answer, "\"unsupported_media_type\"");
	CHECK_CONTAINS(answer, "Content-Encoding");
	CHECK_INT(post_coded(port, "br", answer, sizeof answer), 415);
	CHECK_INT(post_coded(port, "Identity", answer, sizeof answer), 200);
	CHECK_INT(post_coded(port, NULL, answer, sizeof answer), 200);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, drawn = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	char v_drawn[17];

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	test_drawn_params(&drawn);
	CHECK_INT(wc_params_fingerprint(&drawn, v_drawn, &err), WC_OK);

	if (!(srv = http_server_start(&paper, "profile:paper", 4)))
		return check_report("test_server_api_errors");

	test_errors();
	test_content_encoding(wc_server_port(srv));
	/* One reload, so the counters also show the loaded set's info and
	 * one successful reload. */
	CHECK_INT(wc_server_reload(srv, &drawn, "drawn", &err), WC_OK);
	test_metrics(v_drawn);

	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&drawn);
	wc_params_clear(&paper);
	return check_report("test_server_api_errors");
}

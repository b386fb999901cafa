/*
 * The serving stack a request names (docs/capacity.md, "Serving stacks"),
 * on every route that answers from the laws: inference, batch items,
 * flexibility, envelope and budget. "vllm" (any case) answers byte for byte
 * what no engine answers; another stack is echoed in config.engine with
 * vLLM's numbers and exactly one warning "engine: ..." (at most 255 bytes)
 * saying so; an unknown name is 422 invalid_value on /engine with the
 * accepted names and a likely typo's stack; a non-string is wrong_type.
 */
#include "models/catalog.h"
#include "models/profile_measured.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

#define INF "\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8"
#define FLEX INF ",\"input_tokens\":512,\"output_tokens\":256"
#define ENV "\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":1}," \
            "\"horizon_s\":30,\"replicas\":2"
#define BUD "\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":1}," \
            "\"horizon_s\":30,\"budget_w\":3000"

static const struct {
	const char *path, *fields;
} routes[] = {
	{ "/v1/predict/inference", INF },
	{ "/v1/predict/flexibility", FLEX },
	{ "/v1/forecast/envelope", ENV },
	{ "/v1/plan/budget", BUD },
};

static void
post(const char *path, const char *fields, const char *extra, http_reply *r)
{
	char body[1024];
	snprintf(body, sizeof body, "{%s%s}", fields, extra);
	http_post_json(h, url(path), body, r);
}

/* The warnings that start "engine: ", each at most 255 bytes. */
static int
engine_warnings(const json_t *answer, const char **first)
{
	const json_t *ws = json_object_get(answer, "warnings");
	int n = 0;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *w = json_string_value(json_array_get(ws, i));
		if (w && strncmp(w, "engine: ", 8) == 0) {
			CHECK(strlen(w) <= 255);
			if (!n++ && first)
				*first = w;
		}
	}
	return n;
}

/* The budget plan's own search time differs from call to call. */
static void
drop_seconds(json_t *answer)
{
	json_object_del(json_object_get(answer, "plan"), "seconds");
}

static void
test_route(const char *path, const char *fields)
{
	http_reply base, same, other, bad;
	post(path, fields, "", &base);
	CHECK_INT(base.status, 200);
	CHECK_INT(engine_warnings(base.json, NULL), 0);
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(base.json, "config"), "engine")), "vllm") == 0);
	/* vllm given is vllm absent */
	post(path, fields, ",\"engine\":\"vLLM\"", &same);
	CHECK_INT(same.status, 200);
	drop_seconds(base.json);
	drop_seconds(same.json);
	CHECK(json_equal(base.json, same.json));
	if (strcmp(path, "/v1/plan/budget") != 0)
		CHECK(base.body && same.body && strcmp(base.body, same.body) == 0);
	/* another stack: echoed, warned once, vLLM's numbers */
	post(path, fields, ",\"engine\":\"SGLang\"", &other);
	CHECK_INT(other.status, 200);
	const char *eng = json_string_value(json_object_get(json_object_get(other.json, "config"), "engine"));
	CHECK(eng && strcmp(eng, "sglang") == 0);
	const char *w = NULL;
	CHECK_INT(engine_warnings(other.json, &w), 1);
	CHECK_CONTAINS(w, "engine: laws calibrated on vLLM runs; SGLang is unmeasured and stacks draw differently at the "
	                  "same batch");
	CHECK_CONTAINS(w, "wattcast calibrate (docs/calibration.md)");
	CHECK_INT((int)json_array_size(json_object_get(other.json, "warnings")),
	          (int)json_array_size(json_object_get(base.json, "warnings")) + 1);
	static const char *const numbers[] = { "node_power_w", "steps", "server", "plan" };
	for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
		if (json_object_get(base.json, numbers[i])) {
			drop_seconds(other.json);
			CHECK(json_equal(json_object_get(base.json, numbers[i]), json_object_get(other.json, numbers[i])));
		}
	/* refused: a typo, another name, not a string */
	post(path, fields, ",\"engine\":\"sglng\"", &bad);
	CHECK_INT(bad.status, 422);
	CHECK(strcmp(http_error_str(&bad, "code") ? http_error_str(&bad, "code") : "", "invalid_value") == 0);
	CHECK(strcmp(http_error_str(&bad, "field") ? http_error_str(&bad, "field") : "", "/engine") == 0);
	CHECK_CONTAINS(http_error_str(&bad, "message"), "engine: unknown serving stack 'sglng': did you mean sglang? "
	                                                "(accepted: vllm, sglang, tensorrt-llm, tgi, deepspeed-mii, "
	                                                "transformers)");
	http_reply_free(&bad);
	/* one edit of a 3-letter name: a typo too (docs/capacity.md) */
	post(path, fields, ",\"engine\":\"tgl\"", &bad);
	CHECK_INT(bad.status, 422);
	CHECK_CONTAINS(http_error_str(&bad, "message"), "engine: unknown serving stack 'tgl': did you mean tgi? ");
	http_reply_free(&bad);
	post(path, fields, ",\"engine\":\"ollama\"", &bad);
	CHECK_INT(bad.status, 422);
	CHECK(strcmp(http_error_str(&bad, "field") ? http_error_str(&bad, "field") : "", "/engine") == 0);
	CHECK(http_error_str(&bad, "message") && !strstr(http_error_str(&bad, "message"), "did you mean"));
	http_reply_free(&bad);
	post(path, fields, ",\"engine\":1", &bad);
	CHECK_INT(bad.status, 422);
	CHECK(strcmp(http_error_str(&bad, "code") ? http_error_str(&bad, "code") : "", "wrong_type") == 0);
	CHECK(strcmp(http_error_str(&bad, "field") ? http_error_str(&bad, "field") : "", "/engine") == 0);
	http_reply_free(&bad);
	http_reply_free(&base);
	http_reply_free(&same);
	http_reply_free(&other);
}

static void
test_batch(void)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/batch"),
	               "[{" INF "},{" INF ",\"engine\":\"trt-llm\"},{" INF ",\"engine\":\"vllm2\"}]", &r);
	CHECK_INT(r.status, 200);
	const json_t *res = json_object_get(r.json, "results");
	CHECK_INT(engine_warnings(json_array_get(res, 0), NULL), 0);
	const char *w = NULL;
	CHECK_INT(engine_warnings(json_array_get(res, 1), &w), 1);
	CHECK_CONTAINS(w, "TensorRT-LLM draws differently at the same batch (on H100 its power stays nearly flat with "
	                  "batch size)");
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(json_array_get(res, 1), "config"), "engine")),
	             "tensorrt-llm") == 0);
	const json_t *e = json_object_get(json_array_get(res, 2), "error");
	CHECK(strcmp(json_string_value(json_object_get(e, "field")), "/2/engine") == 0);
	CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "did you mean vllm?");
	http_reply_free(&r);
}

/* Every stack's warning says it whole: none is cut at 255 bytes. */
static void
test_every_note_fits(void)
{
	for (size_t i = 0; i < wc_engine_count(); i++) {
		wc_config c = WC_CONFIG_INIT;
		c.engine = wc_engine_at(i)->name;
		char buf[1024];
		int has = wc_predict_engine_note(&c, buf, sizeof buf);
		CHECK_INT(has, strcmp(c.engine, WC_CALIBRATED_ENGINE) != 0);
		CHECK(strlen(buf) <= 255);
		const char *ok = NULL;
		CHECK_INT(wc_engine_parse(c.engine, &ok, &(wc_error){ 0 }), WC_OK);
		CHECK(ok == c.engine);
	}
}

int
main(void)
{
	test_every_note_fits();
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p); /* the CLI's default */
	srv = http_server_start(&p, NULL, 2);
	if (srv) {
		for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
			test_route(routes[i].path, routes[i].fields);
		test_batch();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_engine");
}

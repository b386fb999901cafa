/*
 * The routes' refusals agree with each other and with docs/http-api.md
 * ("Errors"): a malformed body's position is 1-based in the message as in
 * "line"/"column", and a \u0000 escape is refused in the API's words (no
 * library flag names); an empty string is 422 invalid_value on any route;
 * a field the flexibility sweep sets itself conflicts with it, whichever
 * of the two; a minimum is stated; a warning about the load names the
 * request's field, not the law's "running"; a fine-tuning platform is a
 * level or a catalog board, as on every other route.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* POST `body` to `path`: `status` with `code`, `field` (NULL = none) and
 * a message containing `needle` and not `absent` (NULL = no check). */
static void
expect(const char *path, const char *body, long status, const char *code, const char *field, const char *needle,
       const char *absent)
{
	http_reply r;
	int before = check_failures;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, status);
	const char *c = http_error_str(&r, "code"), *f = http_error_str(&r, "field"),
		   *m = http_error_str(&r, "message");
	CHECK(c && strcmp(c, code) == 0);
	CHECK(field ? f && strcmp(f, field) == 0 : f == NULL);
	CHECK(m != NULL);
	if (m) {
		CHECK_CONTAINS(m, needle);
		CHECK(!absent || strstr(m, absent) == NULL);
	}
	if (check_failures != before)
		fprintf(stderr, "  case: %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

#define INF "/v1/predict/inference"

static void
test_malformed(void)
{
	expect(INF, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\\u0000\",\"concurrency\":1}", 400, "malformed_json",
	       NULL, "a string or key holds \\u0000 (NUL), which the API does not accept (line 1, column", "JSON_ALLOW_NUL");
	/* in a key too: jansson's own words were "NUL byte in object key not supported" */
	expect(INF, "{\"x\\u0000\":1,\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":1}", 400,
	       "malformed_json", NULL, "a string or key holds \\u0000 (NUL)", "not supported");
	/* An empty body: column 1 in the message as in "column". */
	expect(INF, "", 400, "malformed_json", NULL, "(line 1, column 1)", "column 0");
	http_reply r;
	http_post_json(h, url(INF), "", &r);
	CHECK_INT(http_error_int(&r, "line"), 1);
	CHECK_INT(http_error_int(&r, "column"), 1);
	http_reply_free(&r);
}

#define CFG "\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\""
#define FLEX_BODY "{" CFG ",\"concurrency\":32,\"input_tokens\":512,\"output_tokens\":256"

static void
test_values(void)
{
	/* empty strings: the docs' 422 invalid_value, not 404 unknown_model */
	expect(INF, "{\"platform\":\"H100\",\"model\":\"\",\"concurrency\":1}", 422, "invalid_value", "/model",
	       "model: expected a non-empty string, got \"\"", NULL);
	expect(INF, "{\"platform\":\"\",\"model\":\"Qwen3-8B\",\"concurrency\":1}", 422, "invalid_value", "/platform",
	       "platform: expected a non-empty string", NULL);
	expect(INF, "{" CFG ",\"concurrency\":1,\"profile\":\"\"}", 422, "invalid_value", "/profile",
	       "profile: expected a non-empty string", NULL);
	expect("/v1/predict/finetune", "{\"method\":\"lora\",\"model\":\"\",\"micro_batch\":8,\"seq_len\":512,"
	       "\"lora_rank\":16}", 422, "invalid_value", "/model", "model: expected a non-empty string", NULL);
	/* concurrency 0 is loaded idle without token lengths, refused with
	 * them (docs/http-api.md says both; it described 0 as valid alone) */
	expect(INF, "{" CFG ",\"concurrency\":0,\"input_tokens\":500,\"output_tokens\":512}", 422, "invalid_value",
	       "/concurrency", "concurrency: must be > 0 for latency and energy per token", NULL);
	/* with rate it is the engine's limit: 0 runs nothing, refused (it was
	 * answered as no limit, 12 % more capacity than the default 256) */
	expect(INF, "{" CFG ",\"rate\":100,\"concurrency\":0,\"input_tokens\":512,\"output_tokens\":256}", 422,
	       "invalid_value", "/concurrency", "concurrency: with rate it is the engine's limit on running requests",
	       NULL);
	expect("/v1/predict/flexibility", "{" CFG ",\"rate\":1,\"concurrency\":0,\"input_tokens\":512,"
	       "\"output_tokens\":256,\"steps\":2}", 422, "invalid_value", "/concurrency",
	       "concurrency: with rate it is the engine's limit", NULL);
	{
		http_reply r;
		http_post_json(h, url(INF), "{" CFG ",\"concurrency\":0}", &r);
		CHECK_INT(r.status, 200);
		CHECK_NEAR(http_json_num(r.json, "node_power_w"), http_json_num(r.json, "idle_power_w"), 1e-9);
		http_reply_free(&r);
	}
	/* the sweep sets the clock: both fields conflict alike */
	expect("/v1/predict/flexibility", FLEX_BODY ",\"sm_clock_mhz\":1500}", 422, "conflicting_fields",
	       "/sm_clock_mhz", "sm_clock_mhz: the sweep sets the clock itself", NULL);
	expect("/v1/predict/flexibility", FLEX_BODY ",\"power_cap_w\":500}", 422, "conflicting_fields",
	       "/power_cap_w", "power_cap_w: the sweep sets the clock itself", NULL);
	/* the minimum, stated */
	expect(INF, "{" CFG ",\"concurrency\":32,\"input_tokens\":512,\"output_tokens\":0.5}", 422, "invalid_value",
	       "/output_tokens", "output_tokens: must be >= 1, got 0.5", "below the minimum");
}

/* The first warning of `body`'s answer at `path` starting with `prefix`,
 * among its warnings and its capacity answer's: 1 when there is one. No
 * warning may start with the law's "running:". */
static int
warns(const char *path, const char *body, const char *prefix)
{
	http_reply r;
	size_t i;
	const json_t *w;
	int found = 0;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	json_array_foreach(json_object_get(r.json, "warnings"), i, w) {
		found |= strncmp(json_string_value(w), prefix, strlen(prefix)) == 0;
		CHECK(strncmp(json_string_value(w), "running:", 8) != 0);
	}
	json_array_foreach(json_object_get(json_object_get(r.json, "capacity"), "warnings"), i, w) {
		found |= strncmp(json_string_value(w), prefix, strlen(prefix)) == 0;
		CHECK(strncmp(json_string_value(w), "running:", 8) != 0);
	}
	if (!found)
		fprintf(stderr, "  no \"%s\" warning: %s %s -> %s\n", prefix, path, body, r.body ? r.body : "");
	http_reply_free(&r);
	return found;
}

/* How many of `body`'s span lines (a warning starting with `field`
 * naming a span) its answer and its capacity answer carry, the first of
 * them starting with `line` (else -1). */
static int
span_lines(const char *body, const char *field, const char *line)
{
	http_reply r;
	size_t i;
	const json_t *w;
	int n = 0, first = 0;
	http_post_json(h, url(INF), body, &r);
	CHECK_INT(r.status, 200);
	const json_t *lists[] = { json_object_get(r.json, "warnings"),
		                  json_object_get(json_object_get(r.json, "capacity"), "warnings") };
	for (int k = 0; k < 2; k++)
		json_array_foreach(lists[k], i, w) {
			const char *s = json_string_value(w);
			if (strncmp(s, field, strlen(field)) == 0 && strstr(s, " span ")) {
				first |= n == 0 && strncmp(s, line, strlen(line)) == 0;
				n++;
			}
		}
	if (n != 1 || !first)
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
	return first ? n : -1;
}

static void
test_load_warnings(void)
{
	/* a group or a size outside both calibrations: one line naming both
	 * spans, as the load's (docs/capacity.md, "Warnings") */
	CHECK_INT(span_lines("{\"platform\":\"H100\",\"model\":\"Llama-3.1-70B\",\"tp\":16,\"concurrency\":64,"
	                     "\"input_tokens\":1000,\"output_tokens\":500}", "tp: ",
	                     "tp: 16 is outside the calibrated span 1-8 and the capacity calibration's span 1-8 on H100"), 1);
	CHECK_INT(span_lines("{\"platform\":\"H100\",\"model\":\"Qwen3-0.6B\",\"concurrency\":32,"
	                     "\"input_tokens\":512,\"output_tokens\":256}", "active_params_b: ",
	                     "active_params_b: 0.6 B is outside the calibrated span 3-70 B and the capacity calibration's "
	                     "span 3.3-70.6 B on H100"), 1);
	CHECK(warns(INF, "{" CFG ",\"concurrency\":4000}", "concurrency: load 4000 is outside"));
	CHECK(warns(INF, "{" CFG ",\"running_series\":[4000,4000],\"dt_s\":1}", "running_series: load 4000"));
	/* the sweep's are predict inference's: 616 run (the KV cache's), a load
	 * inside the span, and the 3000 asked is said by the cache's warning
	 * (it warned "load 3000", the power answer at the count asked) */
	CHECK(warns("/v1/predict/flexibility", "{" CFG ",\"concurrency\":3000,\"input_tokens\":512,"
	            "\"output_tokens\":256}", "concurrency: 3000 requests asked; the KV cache"));
	CHECK(warns(INF, "{" CFG ",\"concurrency\":0.5,\"input_tokens\":8192,\"output_tokens\":512}",
	            "concurrency: load 0.5 is outside the calibrated span 7.9-1915 and the capacity calibration's span "
	            "5.13-1915 on H100"));
	CHECK(warns(INF, "{" CFG ",\"rate\":0.01,\"input_tokens\":8192,\"output_tokens\":512}",
	            "rate: load 0.0457 is outside the calibrated span 7.9-1915 and the capacity calibration's span"));
	/* a cap above the board's limit cannot bind: said, as on the CLI (it
	 * was echoed without a word) */
	CHECK(warns(INF, "{" CFG ",\"concurrency\":32,\"power_cap_w\":5000}",
	            "power_cap_w: 5000 W per GPU is above H100's board power limit of 700 W: it cannot bind"));
}

#define FT "\"method\":\"lora\",\"model\":\"Qwen3-4B\",\"micro_batch\":16,\"seq_len\":512,\"lora_rank\":16"

static void
test_finetune_platform(void)
{
	expect("/v1/predict/finetune", "{" FT ",\"platform\":\"FooGPU\"}", 422, "unknown_platform", "/platform",
	       "platform: unknown platform \"FooGPU\"", NULL);
	expect(INF, "{\"platform\":\"FooGPU\",\"model\":\"Qwen3-8B\",\"concurrency\":1}", 422, "unknown_platform",
	       "/platform", "platform: unknown platform \"FooGPU\"", NULL);
	/* a catalog board the set has no level for, by an alias: answered
	 * under the catalog's name */
	http_reply r;
	http_post_json(h, url("/v1/predict/finetune"), "{" FT ",\"platform\":\"l40s\"}", &r);
	CHECK_INT(r.status, 200);
	const char *name = json_string_value(json_object_get(json_object_get(r.json, "config"), "platform"));
	CHECK(name && strcmp(name, "L40S") == 0);
	http_reply_free(&r);
	/* each item of the batch alike */
	http_post_json(h, url("/v1/predict/finetune/batch"), "[{" FT ",\"platform\":\"FooGPU\"}]", &r);
	const char *code = json_string_value(json_object_get(json_object_get(json_array_get(
		json_object_get(r.json, "results"), 0), "error"), "code"));
	CHECK(code && strcmp(code, "unknown_platform") == 0);
	if (!code || strcmp(code, "unknown_platform") != 0)
		fprintf(stderr, "  finetune batch -> %ld %s\n", r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 4)))
		return check_report("test_server_consistency");
	test_malformed();
	test_values();
	test_load_warnings();
	test_finetune_platform();
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_consistency");
}

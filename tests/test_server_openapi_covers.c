/*
 * What an interval covers, as server/openapi.json documents it
 * (docs/intervals.md): every string models/interval.c can return
 * (wc_interval_covers_at walks them) is accepted by every schema of the
 * document that carries one -- each property named `covers` and each
 * `covers_by_quantity` value, wherever they are (inference, capacity,
 * flexibility, fine-tuning, envelopes) -- found by walking the document,
 * not listed here. And the answers of a live server on a datasheet
 * platform (L4, "held-out error of mean power of datasheet transfers",
 * once outside the enum) validate against the documented 200 schemas.
 */
#include "data/data.h"
#include "data/params_file.h"
#include "models/interval.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/schema_check.h"
#include "tests/support/support.h"

static CURL *h;
static json_t *doc;
static int carriers;

/* Every covers string is valid against `schema` (at `where`). */
static void
accepts_every_covers(const json_t *schema, const char *where)
{
	carriers++;
	for (size_t i = 0; wc_interval_covers_at(i); i++) {
		json_t *v = json_string(wc_interval_covers_at(i));
		char what[640];
		snprintf(what, sizeof what, "%s = \"%s\"", where, wc_interval_covers_at(i));
		CHECK(wc_schema_valid(schema, v, what));
		json_decref(v);
	}
}

/* Walk the document: a `covers` property, or the values of a
 * `covers_by_quantity` one, carry the strings. */
static void
walk(const json_t *node, const char *where)
{
	const char *key;
	const json_t *v;
	size_t i;
	char sub[512];
	if (json_is_array(node)) {
		json_array_foreach(node, i, v) {
			snprintf(sub, sizeof sub, "%s/%zu", where, i);
			walk(v, sub);
		}
		return;
	}
	if (!json_is_object(node))
		return;
	const json_t *props = json_object_get(node, "properties");
	if (json_is_object(props)) {
		if ((v = json_object_get(props, "covers"))) {
			snprintf(sub, sizeof sub, "%s/properties/covers", where);
			accepts_every_covers(v, sub);
		}
		if ((v = json_object_get(props, "covers_by_quantity"))) {
			const json_t *addl = json_object_get(wc_schema_resolve(v), "additionalProperties");
			snprintf(sub, sizeof sub, "%s/properties/covers_by_quantity", where);
			CHECK(json_is_object(addl));
			if (json_is_object(addl))
				accepts_every_covers(addl, sub);
		}
	}
	json_object_foreach((json_t *)node, key, v) {
		snprintf(sub, sizeof sub, "%s/%s", where, key);
		walk(v, sub);
	}
}

static void
test_every_covers_documented(void)
{
	size_t n = 0;
	while (wc_interval_covers_at(n))
		n++;
	/* "parameters", alone or not of latency or of mean power, 10 kinds
	 * of held-out error alone and with it, and mean power's two with an
	 * open loop's caveat, alone and with it */
	CHECK_INT(n, 27);
	walk(doc, "#");
	/* inference, capacity, fine-tuning, envelope covers; capacity and
	 * flexibility covers_by_quantity */
	CHECK(carriers >= 6);
}

/* POST `body` to `path`; the 200 answer validates against the document. */
static void
live_answer_valid(const char *path, const char *body, const char *expect_covers)
{
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	const json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), path), "post");
	const json_t *resp = wc_schema_resolve(json_object_get(json_object_get(op, "responses"), "200"));
	const json_t *schema = json_object_get(json_object_get(json_object_get(resp, "content"), "application/json"),
	                                       "schema");
	CHECK(schema != NULL);
	CHECK(r.json && schema && wc_schema_valid(schema, r.json, body));
	if (expect_covers) {
		const char *c = json_string_value(json_object_get(json_object_get(r.json, "interval_95"), "covers"));
		CHECK(c && strcmp(c, expect_covers) == 0);
		if (!c || strcmp(c, expect_covers) != 0)
			fprintf(stderr, "%s: covers \"%s\"\n", body, c ? c : "(none)");
	}
	http_reply_free(&r);
}

static void
test_datasheet_answers_valid(void)
{
	live_answer_valid("/v1/predict/inference", "{\"platform\":\"L4\",\"model\":\"Qwen3-0.6B\",\"concurrency\":8}",
	                  "held-out error of mean power of datasheet transfers");
	live_answer_valid("/v1/predict/inference", "{\"platform\":\"L4\",\"model\":\"Qwen3-0.6B\",\"concurrency\":8,"
	                  "\"input_tokens\":500,\"output_tokens\":200}", NULL);
	/* an open loop's caveat on a datasheet board too (it dropped it:
	 * "held-out error of mean power of datasheet transfers") */
	live_answer_valid("/v1/predict/inference", "{\"platform\":\"L4\",\"model\":\"Qwen3-0.6B\",\"rate\":2,"
	                  "\"input_tokens\":500,\"output_tokens\":200}",
	                  "held-out error of mean power of datasheet transfers at the load answered (not of an open "
	                  "loop's count)");
	live_answer_valid("/v1/predict/flexibility", "{\"platform\":\"L4\",\"model\":\"Qwen3-0.6B\",\"rate\":2,"
	                  "\"input_tokens\":500,\"output_tokens\":200}", NULL);
	/* the capacity block's summary on a datasheet board said just
	 * "held-out error" beside each quantity's "... of datasheet transfers" */
	static const char *const boards[] = { "A10G", "L40S", "H100" };
	for (int b = 0; b < 3; b++) {
		char body[256];
		snprintf(body, sizeof body, "{\"platform\":\"%s\",\"model\":\"Qwen3-8B\",\"concurrency\":4,"
		         "\"input_tokens\":500,\"output_tokens\":200}", boards[b]);
		http_reply r;
		http_post_json(h, url("/v1/predict/inference"), body, &r);
		CHECK_INT(r.status, 200);
		const json_t *iv = json_object_get(json_object_get(r.json, "capacity"), "interval_95");
		const char *c = json_string_value(json_object_get(iv, "covers"));
		const char *want = b < 2 ? "held-out error of datasheet transfers" : "held-out error";
		CHECK(c && strcmp(c, want) == 0);
		if (!c || strcmp(c, want) != 0)
			fprintf(stderr, "  %s: capacity covers \"%s\", not \"%s\"\n", boards[b], c ? c : "(none)", want);
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	doc = wc_schema_load_served();
	/* the profile `wattcast serve` answers from by default */
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	if (doc && (srv = http_server_start(&p, "profile:measured", 2))) {
		test_every_covers_documented();
		test_datasheet_answers_valid();
		wc_server_stop(srv);
	}
	json_decref(doc);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_openapi_covers");
}

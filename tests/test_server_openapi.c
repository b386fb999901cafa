/*
 * GET /openapi.json stays in sync with the server: the served document is
 * byte for byte server/openapi.json; its paths are exactly the router's
 * routes; every request example validates against its schema, is sent to
 * a live server and answered 200 with a body that validates against the
 * documented 200 schema, every key of it declared there
 * (wc_schema_declared); the JSON read-only routes (declared too) and the
 * error answers validate against theirs.
 *
 * The validator (tests/support/schema_check.c) covers only the JSON Schema
 * subset the document uses; a keyword outside it fails the test, so the
 * document cannot silently rely on something unchecked.
 */
#include "data/data.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/schema_check.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>

static CURL *h;
static json_t *doc;

/* The JSON schema of an operation's answer with `status` (NULL if none). */
static const json_t *
response_schema(const json_t *op, const char *status)
{
	const json_t *r = wc_schema_resolve(json_object_get(json_object_get(op, "responses"), status));
	return json_object_get(json_object_get(json_object_get(r, "content"), "application/json"), "schema");
}

/* ------------------------------------------------------------ checks */

static void
test_document_matches_source(void)
{
	http_reply r;
	char *src = NULL;
	size_t src_len = 0;
	wc_error err;
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "server/openapi.json");
	http_get(h, url("/openapi.json"), &r);
	CHECK_INT(r.status, 200);
	CHECK_CONTAINS(r.content_type, "application/json");
	CHECK_INT(wc_read_file(path, 1 << 22, &src, &src_len, &err), WC_OK);
	/* A stale build would serve an older document than the source. */
	int same = src && r.body && src_len == r.len && memcmp(src, r.body, r.len) == 0;
	if (!same)
		fprintf(stderr, "GET /openapi.json differs from %s: the build embeds an older copy "
		        "(touch server/openapi.c and rebuild)\n", path);
	CHECK(same);
	doc = r.json;
	wc_schema_set_document(doc);
	r.json = NULL;
	CHECK(doc != NULL);
	CHECK(strcmp(json_string_value(json_object_get(doc, "openapi")), "3.1.0") == 0);
	free(src);
	free(path);
	http_reply_free(&r);
}

static void
test_paths_are_routes(void)
{
	const json_t *paths = json_object_get(doc, "paths"), *item;
	const char *path;
	/* Every route (except the benchmark's, off by default) is documented... */
	for (size_t i = 0; i < wc_route_count(); i++) {
		const wc_route *rt = wc_route_at(i);
		char method[16];
		size_t k;
		if (rt->bench_only)
			continue;
		for (k = 0; rt->method[k] && k + 1 < sizeof method; k++)
			method[k] = (char)tolower((unsigned char)rt->method[k]);
		method[k] = '\0';
		int documented = json_object_get(json_object_get(paths, rt->path), method) != NULL;
		if (!documented)
			fprintf(stderr, "route %s %s is not in openapi.json\n", rt->method, rt->path);
		CHECK(documented);
	}
	/* ...and every documented operation is a route. */
	json_object_foreach((json_t *)paths, path, item) {
		const char *m;
		const json_t *op;
		json_object_foreach((json_t *)item, m, op) {
			int found = 0;
			for (size_t i = 0; i < wc_route_count(); i++)
				found |= strcmp(wc_route_at(i)->path, path) == 0 &&
				         strcasecmp(wc_route_at(i)->method, m) == 0;
			if (!found)
				fprintf(stderr, "openapi.json documents %s %s, which no route serves\n", m, path);
			CHECK(found);
		}
	}
}

static void
test_schemas_use_supported_keywords(void)
{
	const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas"), *s;
	const char *name;
	CHECK(json_object_size(schemas) >= 8);
	json_object_foreach((json_t *)schemas, name, s)
		CHECK(wc_schema_keywords_supported(s, name));
}

/* Every request example: valid against its schema, answered 200, and the
 * answer valid against the 200 schema, each of its keys declared. */
static void
test_examples(void)
{
	const json_t *paths = json_object_get(doc, "paths"), *item;
	const char *path;
	int n_examples = 0;
	json_object_foreach((json_t *)paths, path, item) {
		const json_t *op = json_object_get(item, "post");
		const json_t *media = json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"),
		                                      "application/json");
		const json_t *schema = json_object_get(media, "schema"), *ex;
		const char *name;
		if (!op)
			continue;
		CHECK(schema != NULL);
		CHECK(json_object_size(json_object_get(media, "examples")) >= 1);
		json_object_foreach(json_object_get(media, "examples"), name, ex) {
			const json_t *value = json_object_get(ex, "value");
			char what[160];
			snprintf(what, sizeof what, "POST %s example '%s'", path, name);
			CHECK(wc_schema_valid(schema, value, what));
			char *text = json_dumps(value, JSON_COMPACT);
			http_reply r;
			http_post_json(h, url(path), text, &r);
			CHECK_INT(r.status, 200);
			if (r.status != 200)
				fprintf(stderr, "%s -> %ld %s\n", what, r.status, r.body ? r.body : "");
			snprintf(what, sizeof what, "answer to POST %s example '%s'", path, name);
			CHECK(r.json && wc_schema_valid(response_schema(op, "200"), r.json, what));
			CHECK(r.json && wc_schema_all_declared(response_schema(op, "200"), r.json, what));
			free(text);
			http_reply_free(&r);
			n_examples++;
		}
	}
	CHECK(n_examples >= 5);
}

static void
test_get_routes(void)
{
	const json_t *paths = json_object_get(doc, "paths"), *item;
	const char *path;
	json_object_foreach((json_t *)paths, path, item) {
		const json_t *op = json_object_get(item, "get");
		const json_t *schema = response_schema(op, "200");
		http_reply r;
		if (!op)
			continue;
		http_get(h, url(path), &r);
		CHECK_INT(r.status, 200);
		if (schema) {
			CHECK(r.json && wc_schema_valid(schema, r.json, path));
			CHECK(r.json && wc_schema_all_declared(schema, r.json, path));
		} else {
			/* Other answers (metrics as text/plain, the page and its
			 * assets) carry the one media type documented for them. */
			const json_t *content = json_object_get(json_object_get(json_object_get(op, "responses"), "200"),
			                                        "content");
			const char *type = NULL;
			const json_t *unused;
			CHECK_INT(json_object_size(content), 1);
			json_object_foreach((json_t *)content, type, unused)
				break;
			CHECK(type && strncmp(r.content_type, type, strlen(type)) == 0);
			if (type && strncmp(r.content_type, type, strlen(type)) != 0)
				fprintf(stderr, "GET %s: Content-Type %s, documented %s\n", path, r.content_type, type);
		}
		http_reply_free(&r);
	}
}

/* Error answers: the status is documented for the operation and the body
 * matches its schema (the shared Error shape). */
static void
test_error_answers(void)
{
	static const struct {
		const char *method, *path, *ctype, *body, *status;
	} cases[] = {
		{ "POST", "/v1/predict/inference", "application/json", "{\"platform\":", "400" },
		{ "POST", "/v1/predict/inference", "application/json", "{\"platform\":\"A100\",\"tp\":1,\"model\":\"GPT-7\",\"concurrency\":1}", "404" },
		{ "GET", "/v1/predict/inference", NULL, NULL, "405" },
		{ "POST", "/v1/predict/inference", "text/plain", "{}", "415" },
		{ "POST", "/v1/predict/inference", "application/json", "{\"platform\":\"A100\",\"tp\":1.5}", "422" },
		{ "POST", "/v1/predict/batch", "application/json", "{}", "422" },
		{ "POST", "/v1/predict/batch", "application/json", "[1,", "400" },
		{ "POST", "/v1/params", "application/json", "{}", "405" },
		/* capacity answers without an architecture; a refused calibration */
		{ "POST", "/v1/predict/inference", "application/json",
		  "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":8,\"input_tokens\":512,"
		  "\"output_tokens\":256}", "422" },
		{ "POST", "/v1/calibrate", "application/json",
		  "{\"runs\":[{\"platform\":\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32,"
		  "\"mean_power_w\":300}]}", "422" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		http_reply r;
		char method[8];
		size_t k;
		for (k = 0; cases[i].method[k]; k++)
			method[k] = (char)tolower((unsigned char)cases[i].method[k]);
		method[k] = '\0';
		const json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), cases[i].path), method);
		/* 405 answers are documented on the operation the path has. */
		if (!op && strcmp(cases[i].status, "405") == 0)
			op = json_object_get(json_object_get(json_object_get(doc, "paths"), cases[i].path),
			                     strcmp(method, "get") == 0 ? "post" : "get");
		const json_t *schema = response_schema(op, cases[i].status);
		http_request(h, cases[i].method, url(cases[i].path), cases[i].ctype, cases[i].body,
		             cases[i].body ? strlen(cases[i].body) : 0, 0, &r);
		CHECK_INT(r.status, atol(cases[i].status));
		CHECK(schema != NULL);
		CHECK(r.json && wc_schema_valid(schema, r.json, cases[i].path));
		http_reply_free(&r);
	}
}

/* Every error code the server's sources set is one the document lists. */
static void
test_error_codes_documented(void)
{
	static const char *const path[] = { "components", "schemas", "Error", "properties", "error",
		                            "properties", "code", "enum" };
	const json_t *codes = doc;
	for (size_t i = 0; i < sizeof path / sizeof path[0]; i++)
		codes = json_object_get(codes, path[i]);
	CHECK(json_is_array(codes));
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/server", test_env("WC_SOURCE_DIR", "."));
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	int seen = 0;
	for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
		size_t n = strlen(de->d_name);
		if (n < 3 || strcmp(de->d_name + n - 2, ".c") != 0)
			continue;
		char file[1400];
		snprintf(file, sizeof file, "%s/%s", dir, de->d_name);
		char *src = NULL;
		size_t src_len = 0;
		wc_error err;
		CHECK_INT(wc_read_file(file, 1 << 22, &src, &src_len, &err), WC_OK);
		for (const char *p = src; p && (p = strstr(p, "wc_api_error_set(")) != NULL; p++) {
			/* the third argument: the code, when it is a literal */
			const char *q = strchr(p, ',');
			q = q ? strchr(q + 1, ',') : NULL;
			while (q && (*++q == ' ' || *q == '\t' || *q == '\n'))
				;
			const char *end = q && *q == '"' ? strchr(q + 1, '"') : NULL;
			if (!end)
				continue;
			char code[64];
			snprintf(code, sizeof code, "%.*s", (int)(end - q - 1), q + 1);
			int found = 0;
			for (size_t i = 0; i < json_array_size(codes); i++)
				found |= strcmp(json_string_value(json_array_get(codes, i)), code) == 0;
			if (!found)
				fprintf(stderr, "%s: error code '%s' is not in the Error schema's enum\n", de->d_name, code);
			CHECK(found);
			seen++;
		}
		free(src);
	}
	if (d)
		closedir(d);
	CHECK(seen >= 10);
}

/* The validator refuses what the server refuses (it is not vacuous). */
static void
test_validator_refuses(void)
{
	const json_t *req = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"),
	                                    "InferenceRequest");
	const char *bad[] = {
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":1,\"colour\":1}",
		"{\"platform\":\"A100\",\"tp\":1.5,\"active_params_b\":8,\"concurrency\":1}",
		"{\"platform\":\"A100\",\"tp\":0,\"active_params_b\":8,\"concurrency\":1}",
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8}",
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"running_series\":[1]}",
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":1,\"dt_s\":1}",
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":1,\"kv_cache\":\"int4\"}",
		"{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":0,\"concurrency\":1}",
		"{\"tp\":1,\"active_params_b\":8,\"concurrency\":1}",
	};
	char why[512];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *v = json_loads(bad[i], 0, NULL);
		int ok = wc_schema_validate(req, v, "", why, sizeof why);
		if (ok)
			fprintf(stderr, "schema accepts %s\n", bad[i]);
		CHECK(!ok);
		/* ...and so does the server, with 422. */
		http_reply r;
		http_post_json(h, url("/v1/predict/inference"), bad[i], &r);
		CHECK_INT(r.status, 422);
		http_reply_free(&r);
		json_decref(v);
	}
}

/* A model of one's own, a name beside active_params_b, is documented
 * ("model, active_params_b, or both":
 * docs/http-api.md, "POST /v1/predict/inference") and answered 200 by the
 * routes that take it; their schemas accept it (a oneOf refused it).
 * Fine-tuning takes it too, with the shape (refused until 2026-12-07); a
 * catalog name beside a size, which no schema can tell from one of your
 * own, is the server's 422. */
static void
test_model_with_active_params(void)
{
	const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
#define OWN "\"platform\":\"H100\",\"model\":\"my-own-8b\",\"active_params_b\":8"
#define CLOSED ",\"workload\":{\"type\":\"closed\",\"concurrency\":16},\"horizon_s\":30"
	static const struct {
		const char *schema, *route, *body;
	} cases[] = {
		{ "InferenceRequest", "/v1/predict/inference", "{" OWN ",\"concurrency\":8}" },
		{ "EnvelopeRequest", "/v1/forecast/envelope", "{" OWN CLOSED "}" },
		{ "BudgetRequest", "/v1/plan/budget", "{" OWN CLOSED ",\"budget_w\":5000}" },
		{ "FinetuneRequest", "/v1/predict/finetune",
		  "{" OWN ",\"method\":\"full\",\"layers\":36,\"d_model\":4096,\"micro_batch\":1,\"seq_len\":512}" },
	};
#undef OWN
#undef CLOSED
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *v = json_loads(cases[i].body, 0, NULL);
		CHECK(wc_schema_valid(json_object_get(schemas, cases[i].schema), v, cases[i].body));
		http_reply r;
		http_post_json(h, url(cases[i].route), cases[i].body, &r);
		CHECK_INT(r.status, 200);
		http_reply_free(&r);
		json_decref(v);
	}
	http_reply r;
	http_post_json(h, url("/v1/predict/finetune"), "{\"platform\":\"H100\",\"method\":\"full\",\"model\":\"Qwen3-8B\","
	               "\"active_params_b\":8,\"layers\":36,\"d_model\":4096,\"micro_batch\":1,\"seq_len\":512}", &r);
	CHECK_INT(r.status, 422);
	CHECK(http_error_str(&r, "field") && strcmp(http_error_str(&r, "field"), "/model") == 0);
	http_reply_free(&r);
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
		return check_report("test_server_openapi");

	test_document_matches_source();
	if (doc) {
		test_paths_are_routes();
		test_schemas_use_supported_keywords();
		test_examples();
		test_get_routes();
		test_error_answers();
		test_error_codes_documented();
		test_validator_refuses();
		test_model_with_active_params();
	}

	json_decref(doc);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_openapi");
}

/*
 * Every request schema of the served OpenAPI document is closed
 * (additionalProperties false) exactly where the server refuses a field it
 * does not know (422 unknown_field naming it), so a body valid against the
 * document is not refused for an extra key, nor the reverse: each request
 * example is sent again with a key no schema names added to one of its
 * objects at a time (the body itself, a batch's item, a nested object such
 * as an envelope's workload), and the answer is compared with that
 * object's schema. FlexibilityRequest was open while the route refused
 * unknown fields, so a client validated against the document sent
 * running_series or power_cap_w and failed only at run time.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/schema_check.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

#define STRAY "zz_not_a_field"

static CURL *h;
static int closed_seen, open_seen;

/* The object schema `v` is checked against under `node`: its "$ref"s
 * followed, and of a oneOf/anyOf the branch with properties `v` is valid
 * against (a length given as a distribution object). NULL when there is
 * none (a number where the schema also takes one). */
static const json_t *
object_schema(const json_t *node, const json_t *v)
{
	node = wc_schema_resolve(node);
	if (!node || !json_is_object(v))
		return NULL;
	if (json_object_get(node, "properties"))
		return node;
	static const char *const kws[] = { "oneOf", "anyOf" };
	for (size_t k = 0; k < 2; k++) {
		const json_t *list = json_object_get(node, kws[k]);
		for (size_t i = 0; i < json_array_size(list); i++) {
			const json_t *b = wc_schema_resolve(json_array_get(list, i));
			char why[256];
			if (b && json_object_get(b, "properties") && wc_schema_validate(b, v, "", why, sizeof why))
				return b;
		}
	}
	return NULL;
}

/* The error object of answer `r` to a body whose key `pointer` is the
 * stray one: the answer's own, or a batch item's. */
static const json_t *
error_of(const http_reply *r, const char *pointer)
{
	const json_t *e = json_object_get(r->json, "error"), *results = json_object_get(r->json, "results");
	if (e || !json_is_array(results))
		return e;
	/* a batch answers each item in its results; the pointer's first
	 * segment is the item */
	size_t item = strtoul(pointer + 1, NULL, 10);
	return json_object_get(json_array_get(results, item), "error");
}

/* Send `body` (the example with the stray key at `pointer`) and check the
 * server refuses it iff `closed`. */
static void
send_stray(const char *path, const char *name, const json_t *body, const char *pointer, int closed)
{
	char *text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
	http_reply r;
	http_post_json(h, url(path), text, &r);
	const json_t *e = error_of(&r, pointer);
	const int refused = r.status == 422 || (e && json_integer_value(json_object_get(e, "status")) == 422);
	const char *code = json_string_value(json_object_get(e, "code")),
	           *field = json_string_value(json_object_get(e, "field"));
	const int named = code && field && strcmp(code, "unknown_field") == 0 && strcmp(field, pointer) == 0;
	CHECK(closed ? refused && named : r.status >= 200 && r.status < 300 && !e);
	if (closed ? !(refused && named) : !(r.status >= 200 && r.status < 300 && !e))
		fprintf(stderr, "  %s example '%s' with %s: the schema is %s, the server answered %ld %.300s\n", path, name,
		        pointer, closed ? "closed" : "open", r.status, r.body ? r.body : "");
	closed_seen += closed;
	open_seen += !closed;
	http_reply_free(&r);
	free(text);
}

/* Walk `v` (inside example `body`, at `pointer`) with its schema `node`:
 * each object met gets the stray key, one at a time. */
static void
walk(const char *path, const char *name, json_t *body, json_t *v, const json_t *node, const char *pointer)
{
	node = wc_schema_resolve(node);
	if (!node)
		return;
	char at[512];
	if (json_is_array(v)) {
		const json_t *items = json_object_get(node, "items");
		for (size_t i = 0; items && i < json_array_size(v); i++) {
			snprintf(at, sizeof at, "%s/%zu", pointer, i);
			walk(path, name, body, json_array_get(v, i), items, at);
		}
		return;
	}
	const json_t *schema = object_schema(node, v);
	if (!schema)
		return;
	const json_t *extra = json_object_get(schema, "additionalProperties");
	CHECK(extra == NULL || json_is_boolean(extra) || json_is_object(extra));
	const int closed = json_is_false(extra);
	snprintf(at, sizeof at, "%s/" STRAY, pointer);
	json_object_set_new(v, STRAY, json_integer(1));
	send_stray(path, name, body, at, closed);
	json_object_del(v, STRAY);
	const char *key;
	json_t *sub;
	void *tmp;
	json_object_foreach_safe(v, tmp, key, sub) {
		const json_t *p = json_object_get(json_object_get(schema, "properties"), key);
		snprintf(at, sizeof at, "%s/%s", pointer, key);
		if (p && (json_is_object(sub) || json_is_array(sub)))
			walk(path, name, body, sub, p, at);
	}
}

static void
examples_walked(const json_t *doc)
{
	const json_t *paths = json_object_get(doc, "paths"), *item, *op, *media, *ex;
	const char *path, *method, *type, *name;
	json_object_foreach((json_t *)paths, path, item) {
		json_object_foreach((json_t *)item, method, op) {
			json_object_foreach(json_object_get(json_object_get(op, "requestBody"), "content"), type, media) {
				json_object_foreach(json_object_get(media, "examples"), name, ex) {
					json_t *body = json_deep_copy(json_object_get(ex, "value"));
					walk(path, name, body, body, json_object_get(media, "schema"), "");
					json_decref(body);
				}
			}
		}
	}
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:" WC_DEFAULT_PROFILE, 4)))
		return check_report("test_server_openapi_closed");
	json_t *doc = wc_schema_load_served();
	if (doc)
		examples_walked(doc);
	/* every route's body and the nested objects its examples give */
	printf("  %d closed and %d open objects sent a stray key\n", closed_seen, open_seen);
	CHECK(closed_seen >= 20);
	json_decref(doc);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_openapi_closed");
}

/*
 * The JSON Schema subset server/openapi.json uses (type, enum, properties,
 * required, additionalProperties, items, minItems/maxItems, minLength,
 * minimum/maximum/exclusiveMinimum, allOf/oneOf/anyOf, dependentRequired,
 * local $ref), checked against answers by the server's document tests. A
 * keyword outside it fails wc_schema_keywords_supported, so the document
 * cannot silently rely on something unchecked. wc_schema_declared walks an
 * answer for keys no schema declares (a client generated from the document
 * drops them).
 */
#include "tests/support/schema_check.h"

#include "server/routes_internal.h"
#include "tests/support/check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const json_t *schema_doc;

void
wc_schema_set_document(const json_t *doc)
{
	schema_doc = doc;
}


static const char *const keywords[] = {
	"$ref", "type", "enum", "properties", "required", "additionalProperties", "items",
	"minItems", "maxItems", "minLength", "minimum", "maximum", "exclusiveMinimum", "allOf", "oneOf",
	"anyOf", "dependentRequired",
	/* annotations: no effect on validity */
	"description", "summary", "title", "default", "examples", "format", "$comment", NULL,
};

/* Every schema in the document uses only the supported keywords. */
int
wc_schema_keywords_supported(const json_t *schema, const char *where)
{
	const char *key;
	const json_t *v;
	int ok = 1;
	if (!json_is_object(schema))
		return 1;
	json_object_foreach((json_t *)schema, key, v) {
		int known = 0;
		for (const char *const *k = keywords; *k && !known; k++)
			known = strcmp(*k, key) == 0;
		if (!known) {
			fprintf(stderr, "%s: schema keyword '%s' is not checked by this test\n", where, key);
			ok = 0;
		}
	}
	const json_t *props = json_object_get(schema, "properties");
	json_object_foreach((json_t *)props, key, v)
		ok &= wc_schema_keywords_supported(v, where);
	const char *subs[] = { "items", "additionalProperties", NULL };
	for (const char **s = subs; *s; s++)
		ok &= wc_schema_keywords_supported(json_object_get(schema, *s), where);
	const char *lists[] = { "allOf", "oneOf", "anyOf", NULL };
	for (const char **l = lists; *l; l++) {
		size_t i;
		json_array_foreach(json_object_get(schema, *l), i, v)
			ok &= wc_schema_keywords_supported(v, where);
	}
	return ok;
}

const json_t *
wc_schema_resolve(const json_t *node)
{
	/* Local references only: "#/a/b/c". */
	for (int depth = 0; depth < 8 && json_is_object(node); depth++) {
		const char *ref = json_string_value(json_object_get(node, "$ref"));
		if (!ref)
			return node;
		if (strncmp(ref, "#/", 2) != 0)
			return NULL;
		const json_t *cur = schema_doc;
		char part[128];
		for (const char *p = ref + 2; *p && cur;) {
			size_t n = strcspn(p, "/");
			snprintf(part, sizeof part, "%.*s", (int)n, p);
			cur = json_object_get(cur, part);
			p += n + (p[n] == '/');
		}
		node = cur;
	}
	return node;
}

static int
type_matches(const char *type, const json_t *v)
{
	if (strcmp(type, "object") == 0) return json_is_object(v);
	if (strcmp(type, "array") == 0) return json_is_array(v);
	if (strcmp(type, "string") == 0) return json_is_string(v);
	if (strcmp(type, "boolean") == 0) return json_is_boolean(v);
	if (strcmp(type, "null") == 0) return json_is_null(v);
	if (strcmp(type, "number") == 0) return json_is_number(v);
	if (strcmp(type, "integer") == 0)
		return json_is_integer(v) ||
		       (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)));
	return 0;
}


static int
fail(char *why, size_t cap, const char *path, const char *what)
{
	snprintf(why, cap, "%s: %s", path[0] ? path : "(root)", what);
	return 0;
}

static int
validate_object(const json_t *s, const json_t *v, const char *path, char *why, size_t cap)
{
	const json_t *props = json_object_get(s, "properties"), *addl = json_object_get(s, "additionalProperties");
	const json_t *x;
	const char *key;
	size_t i;
	char sub[512];
	json_array_foreach(json_object_get(s, "required"), i, x)
		if (!json_object_get(v, json_string_value(x))) {
			snprintf(sub, sizeof sub, "missing required '%s'", json_string_value(x));
			return fail(why, cap, path, sub);
		}
	json_object_foreach((json_t *)v, key, x) {
		const json_t *ps = json_object_get(props, key);
		snprintf(sub, sizeof sub, "%s/%s", path, key);
		if (ps) {
			if (!wc_schema_validate(ps, x, sub, why, cap))
				return 0;
		} else if (json_is_false(addl)) {
			return fail(why, cap, sub, "property not allowed");
		} else if (json_is_object(addl) && !wc_schema_validate(addl, x, sub, why, cap)) {
			return 0;
		}
	}
	const json_t *dep = json_object_get(s, "dependentRequired");
	json_object_foreach((json_t *)dep, key, x) {
		const json_t *need;
		if (!json_object_get(v, key))
			continue;
		json_array_foreach(x, i, need)
			if (!json_object_get(v, json_string_value(need))) {
				snprintf(sub, sizeof sub, "'%s' requires '%s'", key, json_string_value(need));
				return fail(why, cap, path, sub);
			}
	}
	return 1;
}

int
wc_schema_validate(const json_t *schema, const json_t *v, const char *path, char *why, size_t cap)
{
	const json_t *s = wc_schema_resolve(schema), *t, *x;
	size_t i;
	char sub[512];
	if (!s)
		return fail(why, cap, path, "unresolvable $ref");
	if ((t = json_object_get(s, "type"))) {
		int ok = 0;
		if (json_is_string(t))
			ok = type_matches(json_string_value(t), v);
		json_array_foreach(t, i, x)
			ok |= type_matches(json_string_value(x), v);
		if (!ok)
			return fail(why, cap, path, "wrong type");
	}
	if ((t = json_object_get(s, "enum"))) {
		int ok = 0;
		json_array_foreach(t, i, x)
			ok |= json_equal(x, (json_t *)v);
		if (!ok)
			return fail(why, cap, path, "not in enum");
	}
	if (json_is_number(v)) {
		double d = json_number_value(v);
		if ((t = json_object_get(s, "minimum")) && d < json_number_value(t))
			return fail(why, cap, path, "below minimum");
		if ((t = json_object_get(s, "maximum")) && d > json_number_value(t))
			return fail(why, cap, path, "above maximum");
		if ((t = json_object_get(s, "exclusiveMinimum")) && d <= json_number_value(t))
			return fail(why, cap, path, "not above exclusiveMinimum");
	}
	/* minLength counts characters: the bytes that do not continue one. */
	if (json_is_string(v) && (t = json_object_get(s, "minLength"))) {
		json_int_t n = 0;
		for (const char *c = json_string_value(v); *c; c++)
			n += ((unsigned char)*c & 0xC0) != 0x80;
		if (n < json_integer_value(t))
			return fail(why, cap, path, "shorter than minLength");
	}
	if (json_is_array(v)) {
		if ((t = json_object_get(s, "minItems")) && json_array_size(v) < (size_t)json_integer_value(t))
			return fail(why, cap, path, "too few items");
		if ((t = json_object_get(s, "maxItems")) && json_array_size(v) > (size_t)json_integer_value(t))
			return fail(why, cap, path, "too many items");
		if ((t = json_object_get(s, "items")))
			json_array_foreach(v, i, x) {
				snprintf(sub, sizeof sub, "%s/%zu", path, i);
				if (!wc_schema_validate(t, x, sub, why, cap))
					return 0;
			}
	}
	if (json_is_object(v) && !validate_object(s, v, path, why, cap))
		return 0;
	json_array_foreach(json_object_get(s, "allOf"), i, x)
		if (!wc_schema_validate(x, v, path, why, cap))
			return 0;
	if ((t = json_object_get(s, "anyOf"))) {
		int ok = 0;
		json_array_foreach(t, i, x)
			ok |= wc_schema_validate(x, v, path, sub, sizeof sub);
		if (!ok)
			return fail(why, cap, path, "matches no anyOf branch");
	}
	if ((t = json_object_get(s, "oneOf"))) {
		int n = 0;
		json_array_foreach(t, i, x)
			n += wc_schema_validate(x, v, path, sub, sizeof sub);
		if (n != 1)
			return fail(why, cap, path, n ? "matches several oneOf branches" : "matches no oneOf branch");
	}
	return 1;
}

int
wc_schema_valid(const json_t *schema, const json_t *v, const char *what)
{
	char why[512] = "";
	if (wc_schema_validate(schema, v, "", why, sizeof why))
		return 1;
	fprintf(stderr, "%s: invalid: %s\n", what, why);
	return 0;
}

/* ------------------------------------------------- declared keys only */

/* Up to this many schemas describe one value (itself and its branches). */
#define DECLARED_MAX_BRANCHES 32

/* `s` and the branches that describe `v` with it: every allOf branch, the
 * oneOf/anyOf branches `v` is valid against -- all of them when it is
 * valid against none, as when a branch's closed object meets a key it does
 * not declare: the walk then names that key -- and theirs in turn. */
static size_t
describing(const json_t *schema, const json_t *v, const json_t **out, size_t n)
{
	const json_t *s = wc_schema_resolve(schema), *x;
	size_t i;
	char scratch[512];
	if (!json_is_object(s) || n >= DECLARED_MAX_BRANCHES)
		return n;
	out[n++] = s;
	json_array_foreach(json_object_get(s, "allOf"), i, x)
		n = describing(x, v, out, n);
	const char *choices[] = { "oneOf", "anyOf", NULL };
	for (const char **c = choices; *c; c++) {
		const json_t *list = json_object_get(s, *c);
		int any = 0;
		json_array_foreach(list, i, x)
			any |= wc_schema_validate(x, v, "", scratch, sizeof scratch);
		json_array_foreach(list, i, x)
			if (!any || wc_schema_validate(x, v, "", scratch, sizeof scratch))
				n = describing(x, v, out, n);
	}
	return n;
}

int
wc_schema_declared(const json_t *schema, const json_t *v, const char *path, char *why, size_t cap)
{
	const json_t *list[DECLARED_MAX_BRANCHES], *x;
	size_t n = describing(schema, v, list, 0), i;
	const char *key;
	char sub[512];
	if (json_is_array(v)) {
		for (size_t k = 0; k < n; k++)
			if (json_object_get(list[k], "items"))
				json_array_foreach(v, i, x) {
					snprintf(sub, sizeof sub, "%s/%zu", path, i);
					if (!wc_schema_declared(json_object_get(list[k], "items"), x, sub, why, cap))
						return 0;
				}
		return 1;
	}
	if (!json_is_object(v))
		return 1;
	int described = 0;
	for (size_t k = 0; k < n; k++)
		described |= json_object_get(list[k], "properties") != NULL ||
		             json_object_get(list[k], "additionalProperties") != NULL;
	if (!described)
		return 1;
	json_object_foreach((json_t *)v, key, x) {
		int declared = 0;
		snprintf(sub, sizeof sub, "%s/%s", path, key);
		for (size_t k = 0; k < n; k++) {
			const json_t *ps = json_object_get(json_object_get(list[k], "properties"), key);
			if (ps && (declared = 1) && !wc_schema_declared(ps, x, sub, why, cap))
				return 0;
		}
		for (size_t k = 0; k < n && !declared; k++) {
			const json_t *addl = json_object_get(list[k], "additionalProperties");
			if (json_is_true(addl))
				declared = 1;
			else if (json_is_object(addl) && (declared = 1) && !wc_schema_declared(addl, x, sub, why, cap))
				return 0;
		}
		if (!declared)
			return fail(why, cap, sub, "not declared by the schema");
	}
	return 1;
}

int
wc_schema_all_declared(const json_t *schema, const json_t *v, const char *what)
{
	char why[512] = "";
	if (wc_schema_declared(schema, v, "", why, sizeof why))
		return 1;
	fprintf(stderr, "%s: %s\n", what, why);
	return 0;
}

json_t *
wc_schema_load_served(void)
{
	size_t len;
	const char *text = wc_openapi_document(&len);
	json_t *doc = json_loadb(text, len, 0, NULL);
	CHECK(doc != NULL);
	wc_schema_set_document(doc);
	return doc;
}

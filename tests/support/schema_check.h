/*
 * A validator of the JSON Schema subset server/openapi.json uses, for the
 * tests of that document (tests/support/schema_check.c says which).
 */
#ifndef WC_TEST_SCHEMA_CHECK_H
#define WC_TEST_SCHEMA_CHECK_H

#include <jansson.h>
#include <stddef.h>

/** The document local "$ref"s resolve in (kept, not copied). */
void wc_schema_set_document(const json_t *doc);
/** The served server/openapi.json, parsed and set as that document (NULL
 *  after a failed CHECK); the caller owns it (json_decref). */
json_t *wc_schema_load_served(void);
/** `node`, or what its "$ref"s lead to; NULL when one does not resolve. */
const json_t *wc_schema_resolve(const json_t *node);
/** 1 when `schema` uses only the checked keywords; else 0, each stray
 *  keyword said on stderr with `where`. */
int wc_schema_keywords_supported(const json_t *schema, const char *where);
/** 1 when `v` is valid; else 0 with `why` saying where and why. */
int wc_schema_validate(const json_t *schema, const json_t *v, const char *path, char *why, size_t cap);
/** wc_schema_validate, the reason printed on stderr with `what`. */
int wc_schema_valid(const json_t *schema, const json_t *v, const char *what);
/** 1 when every key of every object in `v` is declared for it: named in
 *  the `properties` of its schema, of an allOf branch or of a oneOf/anyOf
 *  branch `v` is valid against (each, when it is valid against none), or
 *  taken by an `additionalProperties` schema (true or an object). An
 *  object schema with neither (no `properties`, no `additionalProperties`)
 *  is opaque: its keys are not walked. Else 0 with `why` naming the first
 *  undeclared key's path. */
int wc_schema_declared(const json_t *schema, const json_t *v, const char *path, char *why, size_t cap);
/** wc_schema_declared, the undeclared key printed on stderr with `what`. */
int wc_schema_all_declared(const json_t *schema, const json_t *v, const char *what);

#endif

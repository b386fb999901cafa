/*
 * The API's one error shape:
 *   {"error": {"status": 422, "code": "...", "message": "...", "field": "/tp"}}
 * `field` is a JSON pointer (RFC 6901) into the request body; malformed
 * JSON carries "line" and "column" instead.
 */
#include "server_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
wc_api_error_set(wc_api_error *e, int status, const char *code, const char *field,
                 const char *fmt, ...)
{
	va_list ap;
	memset(e, 0, sizeof *e);
	e->status = status;
	e->code = code;
	if (field) {
		e->has_field = 1;
		snprintf(e->field, sizeof e->field, "%s", field);
	}
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
}

void
wc_json_pointer_append(char *ptr, size_t cap, const char *key)
{
	size_t n = strlen(ptr);
	if (n + 1 >= cap)
		return;
	ptr[n++] = '/';
	for (const char *k = key; *k && n + 2 < cap; k++) {
		if (*k == '~' || *k == '/') {
			ptr[n++] = '~';
			ptr[n++] = *k == '~' ? '0' : '1';
		} else {
			ptr[n++] = *k;
		}
	}
	ptr[n] = '\0';
}

json_t *
wc_api_error_json(const wc_api_error *e, const char *prefix)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "status", json_integer(e->status));
	json_object_set_new(o, "code", json_string(e->code ? e->code : "error"));
	/* Messages quote client input; keep the answer valid UTF-8 even when
	 * a quoted fragment was cut mid-character. */
	json_t *msg = json_string(e->message);
	json_object_set_new(o, "message", msg ? msg : json_string("(message not valid UTF-8)"));
	if (e->has_field) {
		char field[sizeof e->field + 32];
		snprintf(field, sizeof field, "%s%s", prefix ? prefix : "", e->field);
		json_t *f = json_string(field);
		json_object_set_new(o, "field", f ? f : json_string(prefix ? prefix : ""));
	}
	if (e->line > 0) {
		json_object_set_new(o, "line", json_integer(e->line));
		json_object_set_new(o, "column", json_integer(e->column));
	}
	return o;
}

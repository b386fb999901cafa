/*
 * The API's one error shape:
 *   {"error": {"status": 422, "code": "...", "message": "...", "field": "/tp"}}
 * `field` is a JSON pointer (RFC 6901) into the request body; malformed
 * JSON carries "line" and "column" instead.
 */
#include "api_error_internal.h"

#include "data/fileio.h"
#include "models/catalog.h"
#include "models/error.h"
#include "models/law.h"
#include "models/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence starting at s (1-4), or 0 when it is not
 * a valid one, by the one rule (wc_utf8_check, models/error.h). `avail`
 * bytes may be read; a sequence running past them is invalid too. */
static size_t
utf8_seq_len(const unsigned char *s, size_t avail)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
	if (n > avail)
		return 0;
	return wc_utf8_check((const char *)s, n) == n ? n : 0;
}

/* The cut is a byte count, as the CLI's "%.64s": when it ends inside a
 * UTF-8 character, wc_error_vformat (wc_text_mend_cut) puts "..." in place
 * of the half character before wc_utf8_repair could drop it silently
 * (docs/architecture.md, "Errors"). */
size_t
wc_utf8_prefix(const char *s, size_t max)
{
	return strnlen(s, max);
}

void
wc_utf8_repair(char *s)
{
	unsigned char *u = (unsigned char *)s;
	size_t len = strlen(s), r = 0, w = 0;
	while (r < len) {
		size_t k = utf8_seq_len(u + r, len - r);
		if (k == 0) {
			/* A sequence cut by the end of a bounded buffer is
			 * dropped; any other invalid byte becomes '?'. */
			size_t want = u[r] >= 0xF0 ? 4 : u[r] >= 0xE0 ? 3 : u[r] >= 0xC2 ? 2 : 1;
			int tail = want > 1 && r + want > len;
			for (size_t i = r + 1; tail && i < len; i++)
				tail = (u[i] & 0xC0) == 0x80;
			if (tail)
				break;
			u[w++] = '?';
			r++;
			continue;
		}
		memmove(u + w, u + r, k);
		w += k;
		r += k;
	}
	u[w] = '\0';
}

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
		wc_utf8_repair(e->field);
	}
	va_start(ap, fmt);
	wc_error_vformat(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	/* Messages quote client input and are cut to a bounded buffer: never
	 * leave half a character (or a byte that is not UTF-8) behind, nor a
	 * control byte (one printable line, as every wc_error). */
	wc_utf8_repair(e->message);
	wc_error_printable(e->message);
}

void
wc_json_pointer_append(char *ptr, size_t cap, const char *key)
{
	size_t n = strlen(ptr);
	if (n + 1 >= cap)
		return;
	ptr[n++] = '/';
	for (const char *k = key; *k;) {
		size_t step = utf8_seq_len((const unsigned char *)k, strnlen(k, 4));
		if (step == 0)
			step = 1;
		if (*k == '~' || *k == '/') {
			if (n + 2 >= cap)
				break;
			ptr[n++] = '~';
			ptr[n++] = *k == '~' ? '0' : '1';
		} else {
			/* Whole characters only: a cut key stays valid UTF-8. */
			if (n + step >= cap)
				break;
			memcpy(ptr + n, k, step);
			n += step;
		}
		k += step;
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

int
wc_api_wrong_type(wc_api_error *e, const char *field, const char *want, const json_t *got)
{
	wc_api_error_set(e, 422, "wrong_type", field, "%s: expected %s, got %s", field + 1, want,
	                 wc_json_type_name(got));
	return -1;
}

static int
listed(const char *key, const char *const *list)
{
	for (const char *const *f = list; f && *f; f++)
		if (strcmp(key, *f) == 0)
			return 1;
	return 0;
}

int
wc_api_check_fields(const json_t *obj, const char *at, const char *const *known,
                    const char *const *more, wc_api_error *e)
{
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		if (listed(key, known) || listed(key, more))
			continue;
		char field[sizeof e->field];
		snprintf(field, sizeof field, "%s", at);
		wc_json_pointer_append(field, sizeof field, key);
		wc_api_error_set(e, 422, "unknown_field", field, "unknown field \"%.*s\" (see GET /openapi.json)",
		                 (int)wc_utf8_prefix(key, 64), key);
		return -1;
	}
	(void)v;
	return 0;
}

int
wc_api_check_nonempty(const json_t *obj, const char *at, wc_api_error *e)
{
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		if (!json_is_string(v) || json_string_length(v) > 0)
			continue;
		char field[sizeof e->field];
		snprintf(field, sizeof field, "%s", at);
		wc_json_pointer_append(field, sizeof field, key);
		wc_api_error_set(e, 422, "invalid_value", field, "%s: expected a non-empty string, got \"\"", field + 1);
		return -1;
	}
	return 0;
}

int
wc_api_seed(const json_t *obj, const char *key, uint64_t *out, wc_api_error *e)
{
	const json_t *v = json_object_get(obj, key);
	char field[sizeof e->field] = "";
	if (!v)
		return 0;
	wc_json_pointer_append(field, sizeof field, key);
	/* A JSON integer is exact to 2^63 - 1 in jansson, as on the CLI's
	 * --seed; a number with a fraction part or an exponent is exact only
	 * to 2^53. */
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	double x = json_is_real(v) ? json_real_value(v) : -1.0;
	if (json_is_number(v) && x >= 0 && x <= WC_WHOLE_EXACT_MAX && x == floor(x)) {
		*out = (uint64_t)x;
		return 0;
	}
	if (!json_is_number(v))
		return wc_api_wrong_type(e, field, "a whole number", v);
	/* the value as sent: -100000000000000001 read "-1e+17". The hint is
	 * for a whole number within the bound written with a fraction or an
	 * exponent, exact only to 2^53; not for one past the bound, which no
	 * way of writing it brings in (docs/http-api.md, "Errors"). */
	const int inexact = x > WC_WHOLE_EXACT_MAX && x < 0x1p63 && x == floor(x);
	return wc_api_invalid_json(e, field, v, json_number_value(v), "must be a whole number 0..2^63-1%s",
	                           inexact ? " (above 2^53 written as an integer: a fraction or exponent is exact only "
	                                     "to 2^53)" : "");
}

const char *
wc_api_num_text(char buf[32], double v)
{
	return wc_num_text(buf, v);
}

static int invalid_got(wc_api_error *e, const char *field, const char *got, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static int
invalid_got(wc_api_error *e, const char *field, const char *got, const char *fmt, va_list ap)
{
	char what[128];
	vsnprintf(what, sizeof what, fmt, ap);
	wc_api_error_set(e, 422, "invalid_value", field, "%s: %s, got %s", field + 1, what, got);
	return -1;
}

int
wc_api_invalid(wc_api_error *e, const char *field, double v, const char *fmt, ...)
{
	char got[32];
	va_list ap;
	va_start(ap, fmt);
	invalid_got(e, field, wc_api_num_text(got, v), fmt, ap);
	va_end(ap);
	return -1;
}

/* The integer literals past 64 bits of the body the thread reads: jansson
 * has none, so server/body.c reads each as a double and notes its digits
 * here. A literal longer than a quote holds, or two literals of one
 * double, leave that double quoted as a double. */
#define WIDE_NOTES 16
static _Thread_local struct {
	int n;
	double x[WIDE_NOTES];
	char text[WIDE_NOTES][32];
} wide;

void
wc_api_wide_clear(void)
{
	wide.n = 0;
}

void
wc_api_wide_note(const char *text, size_t len, double x)
{
	if (wide.n >= WIDE_NOTES)
		return;
	wide.x[wide.n] = x;
	/* too long to quote: kept empty, so that its double is not quoted
	 * as another literal's */
	snprintf(wide.text[wide.n], sizeof wide.text[0], "%.*s", len < sizeof wide.text[0] ? (int)len : 0, text);
	wide.n++;
}

/* The one literal the body held for `x`, or NULL. */
static const char *
wide_text(double x)
{
	const char *found = NULL;
	for (int i = 0; i < wide.n; i++)
		if (wide.x[i] == x) {
			if (!wide.text[i][0] || (found && strcmp(found, wide.text[i]) != 0))
				return NULL;
			found = wide.text[i];
		}
	return found;
}

const char *
wc_api_value_text(char buf[32], const json_t *v, double x)
{
	/* jansson keeps an integer as sent (json_int_t, to 2^63 - 1), where
	 * its double rounds above 2^53: 100000000000000001 read "1e+17"
	 * (docs/http-api.md, "Errors") */
	if (v && json_is_integer(v) && (double)json_integer_value(v) == x) {
		snprintf(buf, 32, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	/* past 2^63 - 1 the body's own digits, read as a double by body.c:
	 * 9223372036854775808 read "9.223372036854776e+18" */
	const char *sent = v && json_is_real(v) && json_real_value(v) == x && fabs(x) >= 0x1p63 ? wide_text(x) : NULL;
	if (sent) {
		snprintf(buf, 32, "%s", sent);
		return buf;
	}
	return wc_api_num_text(buf, x);
}

int
wc_api_refused_value(wc_api_error *e, const char *field, const json_t *v, double x, const char *msg)
{
	char lib[32], sent[32];
	size_t n = strlen(msg), k = strlen(wc_api_num_text(lib, x));
	if (n >= k && strcmp(msg + n - k, lib) == 0)
		wc_api_error_set(e, 422, "invalid_value", field, "%.*s%s", (int)(n - k), msg, wc_api_value_text(sent, v, x));
	else
		wc_api_error_set(e, 422, "invalid_value", field, "%s", msg);
	return -1;
}

int
wc_api_invalid_json(wc_api_error *e, const char *field, const json_t *v, double x, const char *fmt, ...)
{
	char got[32];
	va_list ap;
	va_start(ap, fmt);
	invalid_got(e, field, wc_api_value_text(got, v, x), fmt, ap);
	va_end(ap);
	return -1;
}

int
wc_api_whole(wc_api_error *e, const char *field, const json_t *v, double *x)
{
	if (!json_is_number(v))
		return wc_api_wrong_type(e, field, "an integer", v);
	*x = json_number_value(v);
	if (*x != floor(*x)) { /* the value: "got number" would not say which */
		char got[32];
		wc_api_error_set(e, 422, "wrong_type", field, "%s: expected an integer, got %s", field + 1,
		                 wc_api_num_text(got, *x));
		return -1;
	}
	return 0;
}

int
wc_api_bounded(const json_t *obj, const char *at, const char *name, int whole, double lo, int open, double hi,
               double *out, wc_api_error *e)
{
	char field[sizeof e->field];
	const json_t *v = json_object_get(obj, name);
	if (!v)
		return 1;
	snprintf(field, sizeof field, "%s/%s", at, name);
	double x;
	if (whole && wc_api_whole(e, field, v, &x) != 0)
		return -1;
	if (!whole && !json_is_number(v))
		return wc_api_wrong_type(e, field, "a number", v);
	x = json_number_value(v);
	if (!(open ? x > lo : x >= lo) || !(x <= hi)) {
		/* the value as sent, so that it never reads as the bound */
		if (whole)
			return wc_api_invalid_json(e, field, v, x, "must be between %g and %g", lo, hi);
		return wc_api_invalid_json(e, field, v, x, "must be %s %g and <= %g", open ? ">" : ">=", lo, hi);
	}
	*out = x;
	return 0;
}

int
wc_api_unknown_model_at(wc_api_error *e, const char *field, const char *name, const char *instead)
{
	char other[160];
	/* a name of another size: why it is not the entry it starts with,
	 * rather than a "did you mean" of it (docs/capacity.md, "Model names") */
	if (wc_model_name_other(name, other, sizeof other)) {
		wc_api_error_set(e, 404, "unknown_model", field, "%s: unknown model \"%.*s\": %s (%s)", field + 1,
		                 (int)wc_utf8_prefix(name, 64), name, other, instead);
		return -1;
	}
	const wc_model_info *typo = wc_model_suggest(name);
	wc_api_error_set(e, 404, "unknown_model", field, "%s: unknown model \"%.*s\"%s%s%s (see GET /v1/models, "
	                 "or %s)", field + 1, (int)wc_utf8_prefix(name, 64), name, typo ? ": did you mean " : "",
	                 typo ? typo->name : "", typo ? "?" : "", instead);
	return -1;
}

int
wc_api_unknown_model(wc_api_error *e, const char *name, const char *instead)
{
	return wc_api_unknown_model_at(e, "/model", name, instead);
}

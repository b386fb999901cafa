/*
 * Strict JSON reading shared by every loader of wattcast's own formats
 * (parameter files, wattcast-run.json): each object lists its allowed and
 * required keys, and each refusal names the JSON path (RFC 6901 pointer)
 * and the reason, so a user editing a file by hand finds the mistake at
 * once.
 */
#include "json_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int
wc__json_fail(wc__json_loader *ld, const char *path, const char *fmt, ...)
{
	char reason[192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	int line, col;
	size_t at, n;
	if (ld->text && wc__json_value_at(ld->text, ld->text_len, path, &line, &col, &at, &n))
		return wc_error_set_path(ld->err, WC_EINVAL, ld->source, ":%d:%d: %s: %s", line, col, path[0] ? path : "/",
		                         reason);
	return wc_error_set_path(ld->err, WC_EINVAL, ld->source, ": %s: %s", path[0] ? path : "/", reason);
}

int
wc__json_fail_said(wc__json_loader *ld, int code, const char *said)
{
	char pointer[WC__JSON_PATH_MAX];
	const char *colon = strstr(said, ": ");
	int line, col;
	size_t at, n, k = colon ? (size_t)(colon - said) : 0;
	snprintf(pointer, sizeof pointer, "/%.*s", (int)k, said);
	if (k > 0 && k + 1 < sizeof pointer && ld->text &&
	    wc__json_value_at(ld->text, ld->text_len, pointer, &line, &col, &at, &n))
		return wc_error_set_path(ld->err, code, ld->source, ":%d:%d: /%s", line, col, said);
	return wc_error_set_path(ld->err, code, ld->source, ": /%s", said);
}

const char *
wc_json_type_name(const json_t *v)
{
	/* An absent key reaches here as NULL: say so instead of crashing. */
	if (!v)
		return "nothing (the key is missing)";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "number";
	case JSON_TRUE:
	case JSON_FALSE: return "boolean";
	default: return "null";
	}
}

/* The token quoted by the "near '<token>'" that ends jansson's reason
 * (its `len` bytes), or NULL: none ("near end of file"; jansson quotes no
 * token over 20 bytes). */
static const char *
near_token(const json_error_t *e, size_t *len)
{
	const char *q = strstr(e->text, " near '");
	size_t n = strlen(e->text);
	if (!q || n < 1 || e->text[n - 1] != '\'')
		return NULL;
	q += 7;
	if (q > e->text + n - 1)
		return NULL;
	*len = (size_t)(e->text + n - 1 - q);
	return *len ? q : NULL;
}

/* Byte offset in text[0..len) of character `column` (1-based, counted
 * as jansson counts: UTF-8 characters) of line `line`, or -1. */
static long
char_at(const char *text, size_t len, int line, int column)
{
	size_t i = 0;
	for (int l = 1; l < line; l++) {
		const char *nl = memchr(text + i, '\n', len - i);
		if (!nl)
			return -1;
		i = (size_t)(nl - text) + 1;
	}
	for (int c = 0; i < len && text[i] != '\n'; i++)
		if (((unsigned char)text[i] & 0xC0) != 0x80 && ++c == column)
			return (long)i;
	return -1;
}

/* Characters (UTF-8 lead bytes) in text[from, to): the one count of a
 * JSON column, for jansson's errors here and a value's position
 * (data/json_position.c). */
int
wc__json_chars_in(const char *text, size_t from, size_t to)
{
	int n = 0;
	for (size_t i = from; i < to; i++)
		n += ((unsigned char)text[i] & 0xC0) != 0x80;
	return n;
}

/* A byte jansson lexes into a literal or number token. */
static int
token_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '+' || c == '-';
}

/* The first byte of the token whose last byte is text[at]: a string's
 * opening quote (the first '"' before not escaped), or the start of a
 * run of literal and number bytes; at itself for any other token. */
static size_t
token_start(const char *text, size_t at)
{
	if (text[at] == '"') {
		for (size_t i = at; i-- > 0 && text[i] != '\n';) {
			size_t bs = 0;
			while (bs < i && text[i - 1 - bs] == '\\')
				bs++;
			if (text[i] == '"' && bs % 2 == 0)
				return i;
		}
		return at;
	}
	size_t i = at;
	while (token_byte(text[at]) && i > 0 && token_byte(text[i - 1]))
		i--;
	return i;
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void
wc_json_error_at(const json_error_t *e, const char *text, size_t len, int *line, int *column)
{
	*line = e->line > 0 ? e->line : 1;
	*column = e->column > 0 ? e->column : 1;
	if (e->column <= 0)
		return;
	/* jansson's column is the last character it read (counted in UTF-8
	 * characters; `position` counts bytes of the text it was given, not
	 * always the caller's: a Python NaN becomes null), and its "near"
	 * token is quoted only up to 20 bytes. The rule (docs/http-api.md,
	 * "Errors"; docs/formats/params-file.md, "Loading is strict"): a bad
	 * escape in a string at its backslash; a control character or line
	 * end inside a string at itself (jansson read up to the character
	 * before it); any other error at the first character of the token
	 * jansson had read, whatever its length, from the text where given. */
	size_t len_tok = 0, chars = 0;
	const char *tok = near_token(e, &len_tok);
	long at = text ? char_at(text, len, e->line, e->column) : -1;
	if (starts(e->text, "invalid escape")) {
		if (at >= 0) {
			size_t b = (size_t)at;
			while (b > 0 && (size_t)at - b < 6 && text[b] != '\\' && text[b - 1] != '\n')
				b--;
			if (text[b] == '\\')
				*column = e->column - wc__json_chars_in(text, b, (size_t)at);
		} else if (tok) {
			const char *b = tok + len_tok - 1;
			while (b > tok && *b != '\\')
				b--;
			if (*b == '\\')
				*column = e->column - wc__json_chars_in(b, 1, (size_t)(tok + len_tok - b));
		}
		return;
	}
	if (starts(e->text, "unexpected newline") || starts(e->text, "control character")) {
		*column = e->column + 1;
		return;
	}
	for (size_t i = 0; tok && i < len_tok; i++) {
		if (tok[i] == '\n')
			return;
		chars += ((unsigned char)tok[i] & 0xC0) != 0x80;
	}
	if (tok) {
		if (chars >= 1 && (int)chars <= e->column)
			*column = e->column - (int)chars + 1;
		return;
	}
	/* No token quoted: one over 20 bytes, or none (the end of the text,
	 * a byte that is not UTF-8, the end of a string never closed). */
	if (at >= 0 && !strstr(e->text, "near end of file") && json_error_code(e) != json_error_invalid_utf8 &&
	    json_error_code(e) != json_error_premature_end_of_input)
		*column = e->column - wc__json_chars_in(text, token_start(text, (size_t)at), (size_t)at);
}

const char *
wc_json_error_text(const json_error_t *e, char *buf, size_t cap)
{
	size_t len;
	/* jansson's text for a \u0000 names its own flag (JSON_ALLOW_NUL),
	 * which no user sets: the character is named instead, as the API
	 * names it (docs/http-api.md, "Errors"). */
	if (json_error_code(e) == json_error_null_character || json_error_code(e) == json_error_null_byte_in_key)
		return "a string or key holds \\u0000 (a NUL character), which is not read";
	const char *tok = near_token(e, &len);
	/* A byte-order mark inside the text is named, not quoted as an
	 * invisible token (docs/formats/telemetry.md, "Bad lines"). */
	if (!tok || len != wc_text_bom_len(tok, len))
		return e->text;
	snprintf(buf, cap, "%.*s a byte-order mark (U+FEFF): remove it", (int)(tok - 2 - e->text), e->text);
	return buf;
}

int
wc_json_error_set(wc_error *err, const char *source, const char *lead, const json_error_t *e, const char *buf,
                  size_t len)
{
	int line, column;
	char text[WC_JSON_ERROR_TEXT_MAX];
	wc_json_error_at(e, buf, len, &line, &column);
	return wc_error_set_path(err, WC_EPARSE, source, ":%d:%d: %s%s", line, column, lead,
	                         wc_json_error_text(e, text, sizeof text));
}

static int
in_list(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(key, *list) == 0)
			return 1;
	return 0;
}

/* Refuse keys outside `allowed` and report the first missing `required`. */
int
wc__json_check_keys(wc__json_loader *ld, json_t *obj, const char *path, const char *const *allowed,
           const char *const *required)
{
	const char *key;
	json_t *v;
	if (!json_is_object(obj))
		return wc__json_fail(ld, path, "expected an object, got %s", wc_json_type_name(obj));
	json_object_foreach(obj, key, v) {
		if (!in_list(key, allowed)) {
			char p[WC__JSON_PATH_MAX];
			wc__json_join(p, path, key);
			return wc__json_fail(ld, p, "unknown key '%s'", key);
		}
	}
	for (; *required; required++)
		if (!json_object_get(obj, *required))
			return wc__json_fail(ld, path, "missing required key '%s'", *required);
	return WC_OK;
}

void
wc__json_join(char *out, const char *path, const char *key)
{
	snprintf(out, WC__JSON_PATH_MAX, "%s/%s", path, key);
}

void
wc__json_join_index(char *out, const char *path, size_t i)
{
	snprintf(out, WC__JSON_PATH_MAX, "%s/%zu", path, i);
}

int
wc__json_number(wc__json_loader *ld, json_t *v, const char *path, double *out)
{
	if (!json_is_number(v))
		return wc__json_fail(ld, path, "expected a number, got %s", wc_json_type_name(v));
	*out = json_number_value(v);
	if (!isfinite(*out))
		return wc__json_fail(ld, path, "number is not finite");
	return WC_OK;
}

int
wc__json_int(wc__json_loader *ld, json_t *v, const char *path, long long lo, long long hi, long long *out)
{
	if (!json_is_integer(v))
		return wc__json_fail(ld, path, "expected an integer, got %s", wc_json_type_name(v));
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return wc__json_fail(ld, path, "integer %lld outside [%lld, %lld]", *out, lo, hi);
	return WC_OK;
}

/* String into a fixed buffer; NULL JSON allowed when `nullable`. */
int
wc__json_string(wc__json_loader *ld, json_t *v, const char *path, int nullable, char *out, size_t cap)
{
	if (nullable && json_is_null(v)) {
		out[0] = '\0';
		return WC_OK;
	}
	if (!json_is_string(v))
		return wc__json_fail(ld, path, "expected a string%s, got %s", nullable ? " or null" : "", wc_json_type_name(v));
	if (json_string_length(v) >= cap)
		return wc__json_fail(ld, path, "string too long: %zu bytes, at most %zu", json_string_length(v), cap - 1);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return WC_OK;
}

int
wc__json_pair(wc__json_loader *ld, json_t *v, const char *path, double *lo, double *hi)
{
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!json_is_array(v) || json_array_size(v) != 2)
		return wc__json_fail(ld, path, "expected an array of two numbers");
	wc__json_join_index(p, path, 0);
	if ((rc = wc__json_number(ld, json_array_get(v, 0), p, lo)))
		return rc;
	wc__json_join_index(p, path, 1);
	if ((rc = wc__json_number(ld, json_array_get(v, 1), p, hi)))
		return rc;
	if (*lo > *hi)
		return wc__json_fail(ld, path, "lower bound %g above upper bound %g", *lo, *hi);
	return WC_OK;
}

int
wc__json_optional_number(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                         double lo, double hi, double *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(obj, key);
	if (!v)
		return WC_OK;
	wc__json_join(p, path, key);
	if (json_is_null(v)) {
		*out = NAN;
		return WC_OK;
	}
	int rc = wc__json_number(ld, v, p, out);
	if (rc == WC_OK && (*out < lo || *out > hi))
		return wc__json_fail(ld, p, "%g is outside [%g, %g]", *out, lo, hi);
	return rc;
}

int
wc__json_is_count(double v, double lo, double hi)
{
	return v >= lo && v <= hi && v == floor(v);
}

int
wc__json_optional_count(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                        const char *what, double lo, double hi, double *out)
{
	char p[WC__JSON_PATH_MAX];
	int rc = wc__json_optional_number(ld, obj, path, key, -HUGE_VAL, HUGE_VAL, out);
	if (rc != WC_OK || !json_object_get(obj, key) || isnan(*out) || wc__json_is_count(*out, lo, hi))
		return rc;
	wc__json_join(p, path, key);
	return wc__json_fail(ld, p, "%s is no %s (a whole number, %g to %g)", WC_NUM_TEXT(*out), what, lo, hi);
}

int
wc__json_optional_string(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                         char *out, size_t cap)
{
	char p[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(obj, key);
	if (!v)
		return WC_OK;
	wc__json_join(p, path, key);
	return wc__json_string(ld, v, p, 1, out, cap);
}

json_t *
wc__json_number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* jansson's json_string returns NULL for text that is not UTF-8, and
 * json_object_set_new and json_array_append_new then drop the key or the
 * item without a word: a calibration of model "caf\xe9" was written with
 * "model_terms": [] (docs/formats/params-file.md). Kept unchecked here,
 * so that wc__json_check_text finds it and the writer refuses the file. */
json_t *
wc__json_text(const char *s)
{
	json_t *v = json_string(s);
	return v ? v : json_stringn_nocheck(s, strlen(s));
}

static int
check_text(json_t *v, char *path, size_t used, wc_error *err)
{
	const char *key;
	json_t *x;
	char why[48];
	if (json_is_string(v)) {
		size_t len = json_string_length(v), at = wc_utf8_check(json_string_value(v), len);
		if (at == len)
			return WC_OK;
		snprintf(why, sizeof why, "not valid UTF-8 at byte %zu", at + 1);
		return wc_error_set(err, WC_EINVAL, "%s: %s", path[0] ? path + 1 : "", why);
	}
	int rc = WC_OK;
	if (json_is_array(v))
		for (size_t i = 0; i < json_array_size(v) && rc == WC_OK; i++) {
			snprintf(path + used, WC__JSON_PATH_MAX - used, "/%zu", i);
			rc = check_text(json_array_get(v, i), path, strlen(path), err);
		}
	else if (json_is_object(v))
		json_object_foreach(v, key, x) {
			snprintf(path + used, WC__JSON_PATH_MAX - used, "/%s", key);
			if ((rc = check_text(x, path, strlen(path), err)) != WC_OK)
				break;
		}
	path[used] = '\0';
	return rc;
}

int
wc__json_check_text(json_t *root, wc_error *err)
{
	char path[WC__JSON_PATH_MAX] = "";
	return check_text(root, path, 0, err);
}

int
wc__json_refuse_utf8(const char *path, const char *buf, size_t len, wc_error *err)
{
	size_t at = wc_utf8_check(buf, len);
	if (at == len)
		return WC_OK;
	/* Named as a table's cell is: the string's line and the column where
	 * its text starts, and the byte within it (jansson's own message
	 * counted characters, one short of the byte). */
	size_t line = 1, line_start = 0, text = at, line_of_text = 1, start_of_line = 0;
	int in_str = 0, esc = 0;
	for (size_t i = 0; i < at; i++) {
		char c = buf[i];
		if (c == '\n') {
			line++;
			line_start = i + 1;
		}
		if (in_str && esc)
			esc = 0;
		else if (in_str && c == '\\')
			esc = 1;
		else if (c == '"' && (in_str = !in_str)) {
			text = i + 1;
			line_of_text = line;
			start_of_line = line_start;
		}
	}
	if (!in_str) {
		text = at;
		line_of_text = line;
		start_of_line = line_start;
	}
	return wc_error_set_path(err, WC_EPARSE, path, ":%zu:%zu: not valid UTF-8 at byte %zu", line_of_text,
	                         text - start_of_line + 1, at - text + 1);
}

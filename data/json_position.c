/*
 * Where a value stands in a JSON text. jansson keeps no positions of the
 * values it parsed, so a refusal of one names its line:column from the
 * text (characters from 1, as jansson's syntax errors count them:
 * docs/formats/params-file.md, "Loading is strict"): the text is walked
 * again along the refusal's JSON pointer.
 * One walk serves every refusal of a loader given its text
 * (wc__json_fail) and the quoting of a value as the file writes it.
 */
#include "json_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *p, *end;
} cursor;

static void
blanks(cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

/* Past a string whose opening quote is at c->p. */
static void
skip_string(cursor *c)
{
	for (c->p++; c->p < c->end && *c->p != '"'; c->p++)
		if (*c->p == '\\' && c->p + 1 < c->end)
			c->p++;
	if (c->p < c->end)
		c->p++;
}

/* Past the value at c->p: a string, an object or array with all it holds,
 * or a bare token (a number, true, null, Python's NaN) up to the next
 * ',', '}', ']' or blank. */
static void
skip_value(cursor *c)
{
	int depth = 0;
	do {
		if (c->p >= c->end)
			return;
		if (*c->p == '"') {
			skip_string(c);
			continue;
		}
		if (*c->p == '{' || *c->p == '[')
			depth++;
		else if (*c->p == '}' || *c->p == ']')
			depth--;
		else if (depth == 0) {
			while (c->p < c->end && !strchr(",}] \t\r\n", *c->p))
				c->p++;
			return;
		}
		c->p++;
	} while (depth > 0);
}

static int
hex4(const char *p, const char *end, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++, p++) {
		if (p >= end)
			return 0;
		int h = *p | 0x20, d = *p >= '0' && *p <= '9' ? *p - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		*u = *u * 16 + (unsigned)d;
	}
	return 1;
}

/* The key whose opening quote is at c->p, decoded as jansson decodes it
 * (Python's json.dump writes a dataset name's non-ASCII letters as \u
 * escapes), into out[cap]; c->p past it. 0 when it does not fit. */
static int
read_key(cursor *c, char *out, size_t cap, size_t *n)
{
	size_t o = 0;
	int fits = 1;
	for (c->p++; c->p < c->end && *c->p != '"'; c->p++) {
		char b[4];
		size_t k = 1;
		unsigned u, lo;
		b[0] = *c->p;
		if (*c->p == '\\' && c->p + 1 < c->end) {
			char e = *++c->p;
			b[0] = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
			if (e == 'u' && hex4(c->p + 1, c->end, &u)) {
				c->p += 4;
				if (u >= 0xD800 && u < 0xDC00 && c->p + 2 < c->end && c->p[1] == '\\' && c->p[2] == 'u' &&
				    hex4(c->p + 3, c->end, &lo) && lo >= 0xDC00 && lo < 0xE000) {
					u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
					c->p += 6;
				}
				if (u < 0x80)
					b[0] = (char)u;
				else if (u < 0x800)
					b[0] = (char)(0xC0 | u >> 6), b[1] = (char)(0x80 | (u & 0x3F)), k = 2;
				else if (u < 0x10000)
					b[0] = (char)(0xE0 | u >> 12), b[1] = (char)(0x80 | ((u >> 6) & 0x3F)),
					b[2] = (char)(0x80 | (u & 0x3F)), k = 3;
				else
					b[0] = (char)(0xF0 | u >> 18), b[1] = (char)(0x80 | ((u >> 12) & 0x3F)),
					b[2] = (char)(0x80 | ((u >> 6) & 0x3F)), b[3] = (char)(0x80 | (u & 0x3F)), k = 4;
			}
		}
		if (o + k > cap)
			fits = 0;
		else
			memcpy(out + o, b, k);
		o += k;
	}
	if (c->p < c->end)
		c->p++;
	*n = o;
	return fits;
}

/* One step of the pointer `rest` (past its '/') into the object or array
 * at c->p: the member's value, else 0. A key is matched whole against
 * the pointer's next segments, so one holding a '/' (the paths are joined
 * unescaped, wc__json_join) is found too; of the same key the last, as
 * jansson keeps the last. `*used` is the pointer's bytes taken. */
static int
step_into(cursor *c, const char *rest, size_t *used)
{
	const char *found = NULL;
	size_t best = 0;
	if (c->p < c->end && *c->p == '[') {
		char *stop;
		unsigned long long want = strtoull(rest, &stop, 10);
		if (stop == rest || (*stop && *stop != '/'))
			return 0;
		c->p++;
		for (unsigned long long i = 0;; i++) {
			blanks(c);
			if (c->p >= c->end || *c->p == ']')
				return 0;
			if (i == want) {
				*used = (size_t)(stop - rest);
				return 1;
			}
			skip_value(c);
			blanks(c);
			if (c->p < c->end && *c->p == ',')
				c->p++;
		}
	}
	if (c->p >= c->end || *c->p != '{')
		return 0;
	c->p++;
	for (;;) {
		char key[WC__JSON_PATH_MAX];
		size_t n;
		blanks(c);
		if (c->p >= c->end || *c->p != '"')
			break;
		int fits = read_key(c, key, sizeof key, &n);
		blanks(c);
		if (c->p >= c->end || *c->p != ':')
			break;
		c->p++;
		blanks(c);
		if (fits && n >= best && strncmp(rest, key, n) == 0 && memchr(key, 0, n) == NULL &&
		    (rest[n] == '\0' || rest[n] == '/')) {
			found = c->p;
			best = n;
		}
		skip_value(c);
		blanks(c);
		if (c->p >= c->end || *c->p != ',')
			break;
		c->p++;
	}
	if (!found)
		return 0;
	c->p = found;
	*used = best;
	return 1;
}

int
wc__json_value_at(const char *buf, size_t len, const char *pointer, int *line, int *column, size_t *at, size_t *n)
{
	cursor c = { buf, buf + len };
	blanks(&c);
	while (*pointer == '/') {
		size_t used = 0;
		if (!step_into(&c, pointer + 1, &used))
			return 0;
		pointer += 1 + used;
	}
	if (*pointer || c.p >= c.end)
		return 0;
	const char *start = c.p, *line_start = buf, *e = c.p;
	int ln = 1;
	for (const char *q = buf; q < start; q++)
		if (*q == '\n') {
			ln++;
			line_start = q + 1;
		}
	while (e < c.end && !strchr(",}] \t\r\n", *e))
		e++;
	*line = ln;
	/* characters, not bytes: a syntax error's column counts them
	 * (wc__json_chars_in); "héllo" before a value put it 1 column off */
	*column = wc__json_chars_in(buf, (size_t)(line_start - buf), (size_t)(start - buf)) + 1;
	*at = (size_t)(start - buf);
	*n = (size_t)(e - start);
	return 1;
}

/* Error detail for callers: one line, written into caller-owned storage. */
#include "models/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
wc_error_set(wc_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		wc_error_vformat(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		wc_error_printable(err->msg);
	}
	return code;
}

/* A "%.64s" of a UTF-8 name cuts it after a byte count, which can fall
 * inside a character: the message then holds half a character before its
 * next text ("'模模\xe6' ("). Such a partial character, a lead byte with
 * fewer continuation bytes than it announces, becomes "...", which also
 * says the name was cut; bytes that are no UTF-8 at all (text read from a
 * file) are left for the reader to see (docs/architecture.md, "Errors"). */
void
wc_text_mend_cut(char *buf, size_t size)
{
	size_t len = strlen(buf);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)buf[i];
		int need = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
		size_t k = 1;
		while (need > 0 && k <= (size_t)need && i + k < len && ((unsigned char)buf[i + k] & 0xC0) == 0x80)
			k++;
		if (need <= 0 || k == (size_t)need + 1) {
			i += need > 0 ? k : 1;
			continue;
		}
		/* k bytes of a character that needs need + 1 */
		size_t rest = len - i - k;
		if (len - k + 3 < size) {
			memmove(buf + i + 3, buf + i + k, rest + 1);
			memcpy(buf + i, "...", 3);
			len = len - k + 3;
			i += 3;
		} else {
			memmove(buf + i, buf + i + k, rest + 1);
			len -= k;
		}
	}
}

size_t
wc_utf8_keep(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

size_t
wc_utf8_keep_end(const char *s, size_t len, size_t max)
{
	size_t from = len > max ? len - max : 0;
	while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
		from++;
	return from;
}

size_t
wc_utf8_check(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		unsigned c = u[i], cp;
		size_t n;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			n = 2, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			n = 3, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			n = 4, cp = c & 0x07;
		else
			return i;
		if (n > len - i)
			return i;
		for (size_t k = 1; k < n; k++) {
			if ((u[i + k] & 0xC0) != 0x80)
				return i;
			cp = (cp << 6) | (u[i + k] & 0x3F);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += n;
	}
	return len;
}

/* A name that is not UTF-8 (a Latin-1 "caf\xe9") cannot be written to a
 * parameter file, whose strings jansson checks: refused where it enters,
 * with the byte, so a fit never freezes a file predict refuses. */
int
wc_utf8_refuse(const char *s, char *why, size_t cap)
{
	size_t len = strlen(s), at = wc_utf8_check(s, len);
	if (at == len)
		return 0;
	snprintf(why, cap, "not valid UTF-8 at byte %zu", at + 1);
	return 1;
}

/* A path is bytes, not a name: refusing it (as a name is refused) would
 * refuse a file every other reader opens. Shown in JSON, each byte that is
 * not UTF-8 becomes U+FFFD, the Unicode replacement character. */
size_t
wc_utf8_mend(const char *s, char *out, size_t cap)
{
	size_t len = strlen(s), i = 0, o = 0, bad = 0;
	if (cap == 0)
		return 0;
	while (i < len) {
		size_t ok = i + wc_utf8_check(s + i, len - i), n = ok - i;
		/* the valid run s[i..ok): copy what fits whole */
		if (n > 0) {
			size_t room = cap - 1 - o;
			size_t keep = n <= room ? n : room;
			while (keep > 0 && keep < n && ((unsigned char)s[i + keep] & 0xC0) == 0x80)
				keep--;
			memcpy(out + o, s + i, keep);
			o += keep;
			if (keep < n)
				break;
			i = ok;
			continue;
		}
		if (cap - 1 - o < 3)
			break;
		memcpy(out + o, "\xEF\xBF\xBD", 3);
		o += 3;
		bad++;
		i++;
	}
	out[o] = '\0';
	return bad;
}

/* The marks of a message's quoted parts (WC_QUOTE_OPEN, WC_QUOTE_CLOSE)
 * are never shown: removed here, in every wc_error format. */
static void
quote_unmark(char *s)
{
	char *o = s;
	for (const char *c = s; *c; c++)
		if (*c != WC_QUOTE_OPEN[0] && *c != WC_QUOTE_CLOSE[0])
			*o++ = *c;
	*o = '\0';
}

static size_t quote_len(const char *s);
static size_t quote_shrink(char *s, size_t excess);

/* The one place a message meets its bound (WC_ERROR_MSG_MAX,
 * WC_WARNING_LEN): cut silently, a message ended mid-word ("of the loa",
 * "MI325" for MI325X) and read as whole text (docs/architecture.md,
 * "Errors"). */
int
wc_error_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	if (!buf || size == 0)
		return 0;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(buf, size, fmt, aq);
	va_end(aq);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	/* whole, so that the marks it drops leave their bytes to the text */
	char *whole = (size_t)n >= size ? malloc((size_t)n + 1) : NULL;
	if (whole) {
		vsnprintf(whole, (size_t)n + 1, fmt, ap);
		/* its quoted parts (a series with all its labels) give way
		 * before its end, which says what went wrong */
		size_t text = quote_len(whole);
		if (text > size - 1)
			quote_shrink(whole, text - (size - 1));
		quote_unmark(whole);
		n = snprintf(buf, size, "%s", whole);
		free(whole);
	} else {
		quote_unmark(buf);
		if ((size_t)n < size)
			n = (int)strlen(buf);
	}
	wc_text_mend_cut(buf, size);
	if ((size_t)n < size || size < 4)
		return 0;
	memcpy(buf + wc_utf8_keep(buf, size - 4), "...", 4); /* not inside a UTF-8 character */
	return 1;
}

int
wc_error_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cut = wc_error_vformat(buf, size, fmt, ap);
	va_end(ap);
	return cut;
}

/* Where the kept end of a path that gives way starts: the file name, from
 * its '/'; one longer than half the room keeps its end, from a
 * character's first byte. A folder's path ending in '/' keeps its last
 * name with the slash ("...run/"): the slash alone named no run. */
static size_t
path_tail(const char *path, size_t len, size_t cap)
{
	size_t end = len;
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t tail = end;
	while (tail > 0 && path[tail - 1] != '/')
		tail--;
	tail = tail > 0 ? tail - 1 : 0;
	return wc_utf8_keep_end(path, len, len - tail > cap / 2 ? cap / 2 : len - tail);
}

/* The same with the file's folder before it ("/r1/engine.csv"): the
 * folder names the run when several runs each hold an engine.csv. It is
 * kept when it fits in half the room and beside `text` bytes; else the
 * file name alone, by path_tail (docs/architecture.md, "Errors"). */
static size_t
path_tail_parent(const char *path, size_t len, size_t cap, size_t text)
{
	size_t tail = path_tail(path, len, cap);
	if (tail == 0 || path[tail] != '/')
		return tail;
	size_t parent = tail;
	while (parent > 0 && path[parent - 1] != '/')
		parent--;
	if (parent == 0 || parent == tail)
		return tail;
	parent--; /* from the folder's '/' */
	size_t keep = len - parent;
	return keep <= cap / 2 && keep + 3 + text <= cap ? parent : tail;
}

/* Bytes of `s` without its marks. */
static size_t
quote_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s != WC_QUOTE_OPEN[0] && *s != WC_QUOTE_CLOSE[0];
	return n;
}

/* The marked parts of `s` (WC_QUOTE_OPEN ... WC_QUOTE_CLOSE) shortened,
 * in order, by up to `excess` bytes in all, each ending in "..." after
 * its last whole UTF-8 character; the bytes taken. */
static size_t
quote_shrink(char *s, size_t excess)
{
	size_t taken = 0;
	char *open = s;
	while (taken < excess && (open = strchr(open, WC_QUOTE_OPEN[0])) != NULL) {
		char *close = strchr(open + 1, WC_QUOTE_CLOSE[0]);
		if (!close)
			break;
		size_t len = (size_t)(close - open - 1), want = excess - taken;
		size_t k = len > want + 3 ? wc_utf8_keep(open + 1, len - want - 3) : 0;
		if (k + 3 < len) {
			memcpy(open + 1 + k, "...", 3);
			memmove(open + 1 + k + 3, close, strlen(close) + 1);
			taken += len - k - 3;
			close = open + 1 + k + 3;
		}
		open = close;
	}
	return taken;
}

/* The path, as it fits beside `text` (unmarked), then the text. */
static int
path_then_text(char *buf, size_t size, const char *path, const char *text_s)
{
	size_t len = strlen(path), cap = size - 1, text = strlen(text_s);
	if (len + text <= cap) {
		memcpy(buf, path, len);
		return wc_error_format(buf + len, size - len, "%s", text_s);
	}
	size_t tail = path_tail_parent(path, len, cap, text);
	size_t room = cap > text ? cap - text : 0, keep = len - tail;
	size_t head = room > keep + 3 ? wc_utf8_keep(path, room - keep - 3) : 0;
	memcpy(buf, path, head);
	memcpy(buf + head, "...", 3);
	memcpy(buf + head + 3, path + tail, keep);
	size_t used = head + 3 + keep;
	wc_error_format(buf + used, size - used, "%s", text_s);
	return 1;
}

/* A reader quotes the file's path before its text; under a deep folder
 * the path alone filled the 255 bytes and the reason, the part that says
 * what is wrong, was what got cut (docs/architecture.md, "Errors"). The
 * path gives way first, in its middle: its head says where the tree is,
 * its file name which file, and "..." that some was left out. The
 * text's quoted parts give way before the file's folder, when that is
 * enough to keep it: a 40-byte GPU uuid in a refusal left
 * "runs4.../power.csv", and every run holds a power.csv. */
int
wc_error_vformat_path(char *buf, size_t size, const char *path, const char *fmt, va_list ap)
{
	if (!buf || size == 0)
		return 0;
	if (!path || size < 16)
		return wc_error_vformat(buf, size, fmt, ap);
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!t) {
		char cut[WC_ERROR_MSG_MAX];
		wc_error_vformat(cut, sizeof cut, fmt, ap);
		return path_then_text(buf, size, path, cut);
	}
	vsnprintf(t, (size_t)n + 1, fmt, ap);
	size_t len = strlen(path), cap = size - 1, text = quote_len(t), shrunk = 0;
	size_t need = len - path_tail_parent(path, len, cap, 0) + 3; /* "...", the folder and the file name */
	need = need < len ? need : len;
	if (len + text > cap && need + text > cap) {
		/* shortened only when that keeps the folder: else the folder
		 * goes, as before, and the quotes are left whole */
		char *was = malloc((size_t)n + 1);
		if (was)
			memcpy(was, t, (size_t)n + 1);
		shrunk = was ? quote_shrink(t, need + text - cap) : 0;
		if (shrunk > 0 && shrunk < need + text - cap) {
			memcpy(t, was, (size_t)n + 1);
			shrunk = 0;
		}
		free(was);
	}
	quote_unmark(t);
	int cut = path_then_text(buf, size, path, t);
	free(t);
	return cut || shrunk > 0;
}

int
wc_error_format_path(char *buf, size_t size, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cut = wc_error_vformat_path(buf, size, path, fmt, ap);
	va_end(ap);
	return cut;
}

int
wc_error_set_path(wc_error *err, int code, const char *path, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		wc_error_vformat_path(err->msg, sizeof err->msg, path, fmt, ap);
		va_end(ap);
		wc_error_printable(err->msg);
	}
	return code;
}

size_t
wc_error_path_least(const char *path)
{
	size_t len = path ? strlen(path) : 0;
	return len ? 3 + len - path_tail(path, len, WC_ERROR_MSG_MAX - 1) : 0;
}

size_t
wc_error_name_room(size_t fixed, size_t n)
{
	size_t avail = WC_ERROR_MSG_MAX - 1;
	return n && fixed + 16 * n < avail ? (avail - fixed) / n : 16;
}

void
wc_error_name_cut(const char *name, size_t room, char *out, size_t size)
{
	/* the one cut of a message (wc_error_format), at room + 1 bytes */
	wc_error_format(out, room < size ? room + 1 : size, "%s", name);
}

/* A caller that puts its own words (a flag) before a reader's message
 * gives the path less room: it takes the text back and quotes the path
 * again by the same rule, rather than cutting the reason at the end. */
const char *
wc_error_path_text(const char *msg, const char *path)
{
	size_t len = strlen(path);
	if (strncmp(msg, path, len) == 0)
		return msg + len;
	/* kept with its folder or without, as the text allowed */
	size_t cap = WC_ERROR_MSG_MAX - 1, tails[2] = { path_tail_parent(path, len, cap, 0), path_tail(path, len, cap) };
	for (int k = 0; k < 2; k++) {
		size_t keep = len - tails[k];
		for (const char *q = strstr(msg, "..."); q; q = strstr(q + 1, "..."))
			if (strncmp(q + 3, path + tails[k], keep) == 0)
				return q + 3 + keep;
	}
	return NULL;
}

/* One line, always (docs/architecture.md, "Errors"): a message may quote
 * the input (jansson's error text shows the bytes near the fault), and a
 * newline or other control byte from a hostile file or request would
 * split a log line or move a terminal's cursor. */
size_t
wc_text_control_at(const char *s)
{
	for (size_t i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return i + 1;
	return 0;
}

void
wc_error_printable(char *msg)
{
	for (size_t k; (k = wc_text_control_at(msg)) > 0; msg += k)
		msg[k - 1] = '?';
}

const char *
wc_num_text(char buf[32], double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

const char *
wc_num_against(char buf[32], double v, double other)
{
	for (int prec = 4; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		double r = strtod(buf, NULL);
		if ((r > other) == (v > other) && (r < other) == (v < other))
			break;
	}
	return buf;
}

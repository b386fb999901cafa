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

/* The one place a message meets its bound (WC_ERROR_MSG_MAX,
 * WC_WARNING_LEN): cut silently, a message ended mid-word ("of the loa",
 * "MI325" for MI325X) and read as whole text (docs/architecture.md,
 * "Errors"). */
int
wc_error_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	if (!buf || size == 0)
		return 0;
	int n = vsnprintf(buf, size, fmt, ap);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	if ((size_t)n < size || size < 4)
		return 0;
	size_t k = size - 4;
	while (k > 0 && ((unsigned char)buf[k] & 0xC0) == 0x80)
		k--; /* not inside a UTF-8 character */
	memcpy(buf + k, "...", 4);
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

/* One line, always (docs/architecture.md, "Errors"): a message may quote
 * the input (jansson's error text shows the bytes near the fault), and a
 * newline or other control byte from a hostile file or request would
 * split a log line or move a terminal's cursor. */
void
wc_error_printable(char *msg)
{
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
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

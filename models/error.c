/* Error detail for callers: one line, written into caller-owned storage. */
#include "models/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int
wc_error_set(wc_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		wc_error_printable(err->msg);
	}
	return code;
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

/* Error detail for callers: one line, written into caller-owned storage. */
#include "models/error.h"

#include <stdarg.h>
#include <stdio.h>

int
wc_error_set(wc_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

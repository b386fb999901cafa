/*
 * The one warnings list (models/warnings.h).
 */
#include "models/warnings.h"

#include <stdio.h>

int
wc_warnings_vadd(char (*list)[WC_WARNING_LEN], int *n, const char *fmt, va_list ap)
{
	if (*n < 0 || *n >= WC_WARNINGS_MAX)
		return 0;
	vsnprintf(list[*n], WC_WARNING_LEN, fmt, ap);
	(*n)++;
	return 1;
}

int
wc_warnings_add(char (*list)[WC_WARNING_LEN], int *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int added = wc_warnings_vadd(list, n, fmt, ap);
	va_end(ap);
	return added;
}

/*
 * The one warnings list (models/warnings.h).
 */
#include "models/warnings.h"

#include "models/error.h"
#include "models/grow.h"

#include <stdio.h>

int
wc_warnings_vadd(char (*list)[WC_WARNING_LEN], int *n, const char *fmt, va_list ap)
{
	if (*n < 0 || *n >= WC_WARNINGS_MAX)
		return 0;
	wc_error_vformat(list[*n], WC_WARNING_LEN, fmt, ap);
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

int
wc_warnings_keep(char (**list)[WC_WARNING_LEN], size_t *n, size_t *cap, const char *msg)
{
	size_t c = *cap;
	char (*w)[WC_WARNING_LEN] = wc_grow(*list, &c, *n + 1, sizeof *w, 8);
	if (!w)
		return 0;
	*list = w;
	*cap = c;
	wc_error_format(w[(*n)++], WC_WARNING_LEN, "%s", msg);
	return 1;
}

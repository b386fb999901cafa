/*
 * Lists of names within a byte budget (models/error.h,
 * docs/architecture.md "Errors").
 */
#include "models/error.h"

#include <stdio.h>
#include <string.h>

void
wc_name_list_init(wc_name_list *l, char *buf, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->buf = buf;
	l->cap = cap;
	if (cap)
		buf[0] = '\0';
}

void
wc_name_list_add(wc_name_list *l, const char *name, size_t len)
{
	size_t sep = l->shown || l->left ? 2 : 0;
	l->full += sep + len;
	if (l->left || !l->cap || l->used + sep + len > l->cap - 1) {
		l->left++;
		return;
	}
	l->starts[l->shown % WC_NAME_LIST_BACK] = l->used;
	memcpy(l->buf + l->used, ", ", sep);
	memcpy(l->buf + l->used + sep, name, len);
	l->used += sep + len;
	l->buf[l->used] = '\0';
	l->shown++;
}

const char *
wc_name_list_end(wc_name_list *l)
{
	char more[40];
	if (!l->left || !l->cap)
		return l->buf;
	for (;;) {
		int n = l->shown ? snprintf(more, sizeof more, " and %d more", l->left)
		                 : snprintf(more, sizeof more, "%d name%s", l->left, l->left == 1 ? "" : "s");
		if (l->used + (size_t)n <= l->cap - 1 || !l->shown)
			break;
		/* the last name written gives its room (and its ", ") */
		l->shown--;
		l->left++;
		l->used = l->starts[l->shown % WC_NAME_LIST_BACK];
		l->buf[l->used] = '\0';
	}
	snprintf(l->buf + l->used, l->cap - l->used, "%s", more);
	l->used = strlen(l->buf);
	return l->buf;
}

size_t
wc_name_lists_share(size_t room, size_t full_a, size_t full_b)
{
	if (full_a + full_b <= room)
		return full_a;
	size_t rest = full_b < room ? room - full_b : 0;
	size_t a = room / 2 > rest ? room / 2 : rest;
	return a < full_a ? a : full_a;
}

/*
 * Lists of names within a byte budget (wc_name_list, models/error.h;
 * docs/http-api.md "Errors"): whole when they fit, else cut at a name with
 * how many were left out, the names written giving their room to " and N
 * more" when it needs it, "N names" when no name fits beside it; two lists
 * share a message's room.
 */
#include "models/error.h"
#include "tests/support/support.h"

#include <string.h>

static const char *
join(char *buf, size_t cap, const char *const *names, int n)
{
	wc_name_list l;
	wc_name_list_init(&l, buf, cap);
	for (int i = 0; i < n; i++)
		wc_name_list_add(&l, names[i], strlen(names[i]));
	return wc_name_list_end(&l);
}

int
main(void)
{
	const char *four[] = { "aaaa", "bbbb", "cccc", "dddd" };
	const char *tiny[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l" };
	char buf[64];
	CHECK(strcmp(join(buf, sizeof buf, four, 4), "aaaa, bbbb, cccc, dddd") == 0);
	CHECK(strcmp(join(buf, 23, four, 4), "aaaa, bbbb, cccc, dddd") == 0); /* 22 bytes: exactly */
	CHECK(strcmp(join(buf, 22, four, 4), "aaaa, bbbb and 2 more") == 0);
	CHECK(strcmp(join(buf, 16, four, 4), "aaaa and 3 more") == 0);
	CHECK(strcmp(join(buf, 15, four, 4), "4 names") == 0);
	/* names of one byte give back three each: four go for " and 9 more" */
	CHECK(strcmp(join(buf, 21, tiny, 12), "a, b, c and 9 more") == 0);
	CHECK(strlen(join(buf, 21, tiny, 12)) <= 20);
	wc_name_list m;
	wc_name_list_init(&m, NULL, 0);
	for (int i = 0; i < 4; i++)
		wc_name_list_add(&m, four[i], 4);
	CHECK_INT((int)m.full, 22);
	CHECK_INT((int)wc_name_lists_share(100, 30, 40), 30);
	CHECK_INT((int)wc_name_lists_share(100, 80, 80), 50);
	CHECK_INT((int)wc_name_lists_share(100, 80, 10), 80);
	CHECK_INT((int)wc_name_lists_share(100, 120, 10), 90);
	return check_report("test_name_list");
}

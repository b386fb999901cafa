/*
 * The body of a batch request for the server tests (tests/support/
 * batch_body.h).
 */
#include "tests/support/batch_body.h"
#include "tests/support/support.h"

char *
test_batch_body(const char *item, int n)
{
	char *s = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&s, &len, &cap, "[");
	for (int k = 0; k < n; k++) {
		if (k)
			test_appendf(&s, &len, &cap, ",");
		test_appendf(&s, &len, &cap, item, k);
	}
	test_appendf(&s, &len, &cap, "]");
	return s;
}

/*
 * A message holds 255 bytes (docs/architecture.md, "Errors"): text that
 * does not fit ends with "..." (wc_error_format, the one place the bound
 * is met), never cut silently mid-word nor inside a UTF-8 character.
 */
#include "models/error.h"
#include "models/warnings.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* Valid UTF-8: no character cut in two. */
static int
utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (n < 0)
			return 0;
		p++;
		for (int k = 0; k < n; k++, p++)
			if ((*p & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

static void
helpers(void)
{
	char text[600];
	memset(text, 'x', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	wc_error err;
	/* too long: 255 bytes, the last three "..." */
	CHECK_INT(wc_error_set(&err, WC_EINVAL, "head: %s", text), WC_EINVAL);
	CHECK_INT((int)strlen(err.msg), WC_ERROR_MSG_MAX - 1);
	CHECK(ends_with(err.msg, "x..."));
	/* exactly 255 bytes: whole, no "..." */
	CHECK_INT(wc_error_set(&err, WC_EINVAL, "%.255s", text), WC_EINVAL);
	CHECK_INT((int)strlen(err.msg), 255);
	CHECK(ends_with(err.msg, "xxxx"));
	/* the cut never falls inside a character: "ü" is 2 bytes, "€" 3 */
	for (int shift = 0; shift < 3; shift++) {
		char u[700] = "";
		memset(u, 'a', (size_t)shift);
		for (int i = 0; i < 200; i++)
			strcat(u, i % 2 ? "ü" : "€");
		CHECK_INT(wc_error_set(&err, WC_EINVAL, "%s", u), WC_EINVAL);
		CHECK(ends_with(err.msg, "..."));
		CHECK(strlen(err.msg) <= 255 && strlen(err.msg) >= 252);
		CHECK(utf8_ok(err.msg));
	}
	char buf[16];
	CHECK_INT(wc_error_format(buf, sizeof buf, "%s", "short"), 0);
	CHECK(strcmp(buf, "short") == 0);
	CHECK_INT(wc_error_format(buf, sizeof buf, "%s", "sixteen letters!"), 1);
	CHECK(strcmp(buf, "sixteen let...") == 0 || strcmp(buf, "sixteen lett...") == 0);
	CHECK_INT((int)strlen(buf), 15);

	/* the warnings list, and the list kept from a reader's callback */
	struct {
		char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
		int n_warnings;
	} w = { .n_warnings = 0 };
	CHECK_INT(WC_WARN(&w, "warn: %s", text), 1);
	CHECK_INT((int)strlen(w.warnings[0]), WC_WARNING_LEN - 1);
	CHECK(ends_with(w.warnings[0], "x..."));
	char (*kept)[WC_WARNING_LEN] = NULL;
	size_t n = 0, cap = 0;
	CHECK_INT(wc_warnings_keep(&kept, &n, &cap, text), 1);
	CHECK(n == 1 && ends_with(kept[0], "x...") && strlen(kept[0]) == WC_WARNING_LEN - 1);
	free(kept);
}

int
main(void)
{
	helpers();
	return check_report("test_message_cut");
}

/*
 * wc__skip_reason keeps each reason of its one line whole within the
 * bytes a message holds (docs/validation.md, "Forms on real runs"): the
 * longest wording of what left the other runs out that fits after the
 * refits' count and first reason, else the reason left out whole, never
 * a phrase cut at a fixed byte count ('..., power no board').
 */
#include "tests/support/check.h"
#include "validation/validation_internal.h"

#include <stdio.h>
#include <string.h>

int
main(void)
{
	char buf[WC_ERROR_MSG_MAX], why[200], longest[211];
	const char *shortest = "1 predicted over twice their boards' ceiling";
	memset(why, 'w', sizeof why - 1);
	why[sizeof why - 1] = '\0';
	memset(longest, 'r', sizeof longest - 1);
	longest[sizeof longest - 1] = '\0';
	const char *none[] = { NULL };
	const char *rest[] = { longest, shortest, NULL };

	/* everything fits: the first wording after the count and the reason */
	const char *fits[] = { "the rest's level had no training run", NULL };
	wc__skip_reason(buf, sizeof buf, 1, 7, "without 'Qwen3-8B': fit: 1 usable runs for 3 parameters", fits);
	CHECK(strcmp(buf, "1 refit(s) failed (7 runs; without 'Qwen3-8B': fit: 1 usable runs for 3 parameters), "
	                  "the rest's level had no training run") == 0);

	/* the long wording does not fit after the reason: the short one does */
	wc__skip_reason(buf, sizeof buf, 1, 7, "without 'M': fit: too few", rest);
	CHECK(strcmp(buf, "1 refit(s) failed (7 runs; without 'M': fit: too few), 1 predicted over twice their "
	                  "boards' ceiling") == 0);

	/* a reason longer than any room left: left out whole, the wording kept */
	const char *only_long[] = { longest, NULL };
	wc__skip_reason(buf, sizeof buf, 2, 9, why, only_long);
	CHECK(strncmp(buf, "2 refit(s) failed (9 runs), rrrr", 32) == 0);
	CHECK(strchr(buf, 'w') == NULL);
	CHECK(strlen(buf) <= WC_ERROR_MSG_MAX - 1);

	/* no other reason: the refits' alone, and no refit: the wording alone */
	wc__skip_reason(buf, sizeof buf, 1, 3, "without 'M': x", none);
	CHECK(strcmp(buf, "1 refit(s) failed (3 runs; without 'M': x)") == 0);
	wc__skip_reason(buf, sizeof buf, 0, 0, "", rest);
	CHECK(strcmp(buf, longest) == 0);

	/* nothing fits: cut once, marked "..." */
	char huge[400];
	memset(huge, 'h', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	const char *too_long[] = { huge, NULL };
	wc__skip_reason(buf, sizeof buf, 0, 0, "", too_long);
	CHECK(strlen(buf) == WC_ERROR_MSG_MAX - 1);
	CHECK(strcmp(buf + strlen(buf) - 3, "...") == 0);
	return check_report("test_skip_reason_whole");
}

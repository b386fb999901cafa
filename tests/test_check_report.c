/*
 * The test harness itself (tests/support/check.h): check_report fails a
 * test that ran no checks, passes one whose checks all held, and fails
 * one with a failed check.
 */
#include "tests/support/support.h"

int
main(void)
{
	/* Nothing checked yet: a report now must fail. */
	int empty = check_report("test_check_report (no checks)");

	/* One failing check: counted, and the report fails. */
	int saved_failures = check_failures;
	CHECK(1 == 2);
	int failing = check_report("test_check_report (a failing check)");
	check_failures = saved_failures;
	check_count = 0;

	/* From here on the real checks; they all hold. */
	CHECK_INT(empty, 1);
	CHECK_INT(failing, 1);
	CHECK_INT(check_failures, 0);
	return check_report("test_check_report");
}

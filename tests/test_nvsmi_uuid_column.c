/*
 * power.csv (nvidia-smi): an empty `uuid` cell was named one byte short of
 * the column the other empty cells get: at the blank nvidia-smi writes
 * after the comma, where a missing power reading is named where its value
 * starts, past it. Both now count the same way: 1-based bytes to the
 * value's start (docs/formats/telemetry.md, "Bad lines").
 */
#include "data/nvsmi.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2 GPUs told apart by uuid over 40 samples at 0.25 s; the data line
 * `bad_line` is `bad` (the rest of the line after the timestamp). */
static char *
uuid_log(const char *dir, const char *name, int bad_line, const char *bad)
{
	char body[8192];
	snprintf(body, sizeof body, "timestamp, uuid, power.draw [W]\n");
	for (int k = 0; k < 40; k++)
		for (int g = 0; g < 2; g++) {
			int line = 2 + 2 * k + g;
			char rest[64];
			snprintf(rest, sizeof rest, ", GPU-%d, %.2f W", g, 200.0 + k + g);
			snprintf(body + strlen(body), sizeof body - strlen(body), "2026/07/18 15:00:%02d.%03d%s\n", k / 4,
			         250 * (k % 4), line == bad_line ? bad : rest);
		}
	return test_fixture(dir, name, body);
}

static void
expect_warning(const char *dir, const char *name, const char *bad, const char *needle)
{
	char *path = uuid_log(dir, name, 7, bad);
	test_warnings w = { "", 0 };
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = 0.5;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_power_trace *pt = NULL;
	wc_error err = { 0, "" };
	CHECK_INT(wc_power_trace_read(path, &opt, 0, &pt, &err), WC_OK);
	CHECK_CONTAINS(w.text, needle);
	if (pt)
		CHECK_INT(pt->info.bad_lines, 1);
	wc_power_trace_free(pt);
	free(path);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_uuid_column");
	/* "2026/07/18 15:00:01.250" is 23 bytes, its comma byte 24: the uuid
	 * cell " " starts at 25 and its value (none) at 26 */
	expect_warning(dir, "blank.csv", ", , 205.00 W", "blank.csv:7:26: no GPU uuid");
	/* no blank: the value's start is the field's, 25 */
	expect_warning(dir, "empty.csv", ",, 205.00 W", "empty.csv:7:25: no GPU uuid");
	expect_warning(dir, "na.csv", ", [N/A], 205.00 W", "na.csv:7:26: no GPU uuid");
	/* the rule of the other empty cells: a power reading missing at the
	 * same place is named where its value starts too */
	expect_warning(dir, "power.csv", ", GPU-0, [N/A]", "power.csv:7:33: no power reading");
	free(dir);
	return check_report("test_nvsmi_uuid_column");
}

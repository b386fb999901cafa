/*
 * `wattcast ingest --help` said malformed lines are reported "as
 * file:line", while a bad cell is named at its column, file:line:column
 * (docs/formats/telemetry.md, "Bad lines"). It says file:line:column now,
 * and file:line for a reason of the whole line (a sample missing a GPU);
 * both forms are checked here against what ingest prints.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main(void)
{
	const char *help[] = { "wattcast", "ingest", "--help", NULL };
	run_result r;
	CHECK(run_wattcast(help, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "Malformed lines are reported\nas file:line:column -- file:line for a reason of the "
	                      "whole line, as a sample\nmissing a GPU");
	CHECK(strstr(r.out, "as file:line and skipped") == NULL);
	run_result_free(&r);

	/* two GPUs at 100 ms: line 103 lacks GPU 1, line 201 an unreadable reading */
	char *dir = test_tmpdir("ingest_help_bad_lines"), *run = path_join(dir, "run");
	mkdir(run, 0755);
	char *text = malloc(64 * 800 + 64), *p = text;
	p += sprintf(p, "timestamp, index, uuid, power.draw [W]\n");
	for (int i = 0; i < 400; i++) {
		int ms = 100 * i;
		for (int g = 0; g < 2; g++) {
			if (i == 50 && g == 1)
				continue;
			p += sprintf(p, "2026/12/01 10:%02d:%02d.%03d, %d, GPU-%d, %s\n", ms / 60000 % 60, ms / 1000 % 60,
			             ms % 1000, g, g, i == 100 && g == 0 ? "abc" : "300.00 W");
		}
	}
	char *power = test_fixture(run, "power.csv", text);
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "--power-only", "--platform", "H100", "--model",
		               "Llama-3.1-8B", "--utc-offset", "0", "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "power.csv:103: GPU 1 is missing from the sample at line 102");
	CHECK_CONTAINS(r.err, "power.csv:201:36: unreadable power.draw 'abc'");
	run_result_free(&r);
	free(out);
	free(power);
	free(text);
	free(run);
	free(dir);
	return check_report("test_ingest_help_bad_lines");
}

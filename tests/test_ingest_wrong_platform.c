/*
 * A run labelled with the wrong platform (docs/formats/telemetry.md, "Bad
 * lines", units and plausibility): an A100 log whose manifest said L4 had
 * 75 % of its readings above twice the L4's 72 W board limit. The refusal
 * listed them as bad lines and said to allow more with --max-bad; with
 * --max-bad 0.8 the readings left had a 55-s hole, refused with "split
 * the log at its gaps" in a log without gaps. Now both refusals say the
 * platform is likely wrong, naming the bound and where the platform came
 * from (wattcast-run.json, --platform, power.csv's product name); a few
 * readings beyond the bound among other bad lines still get the old
 * advice.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINES 300

static char *dir;

/* A run folder `name`: LINES readings 0.25 s apart, those from line
 * `hot_from` to `hot_to` (0-based) at 280 W, the rest at 80 W; every
 * `bad_every`-th line (0: none) unreadable; a `name` column when
 * `product` is given; wattcast-run.json stating `platform` ("" none). */
static char *
run_folder(const char *name, int hot_from, int hot_to, int bad_every, const char *product,
           const char *platform)
{
	char *run = path_join(dir, name), cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", run);
	CHECK_INT(system(cmd), 0);
	size_t cap = 64 * (LINES + 2), len;
	char *csv = malloc(cap);
	snprintf(csv, cap, "timestamp, %sindex, power.draw [W]\n", product ? "name, " : "");
	for (int i = 0; i < LINES; i++) {
		len = strlen(csv);
		int ms = 250 * i;
		snprintf(csv + len, cap - len, "2026/07/18 15:%02d:%02d.%03d, %s%s0, %s\n", 57 + (25 + ms / 1000) / 60,
		         (25 + ms / 1000) % 60, ms % 1000, product ? product : "", product ? ", " : "",
		         bad_every && i % bad_every == bad_every - 1 ? "x"
		         : i >= hot_from && i <= hot_to              ? "280.53"
		                                                     : "80.12");
	}
	free(test_fixture(run, "power.csv", csv));
	free(csv);
	char man[400];
	snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", %s%s%s\"model\": "
	         "\"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name, platform[0] ? "\"platform\": \"" : "",
	         platform, platform[0] ? "\", " : "");
	free(test_fixture(run, "wattcast-run.json", man));
	return run;
}

/* `ingest --power-only` of `run` (with `flag` and `value` when given):
 * refused, its stderr holding `want` and not `not`. */
static void
refused(const char *run, const char *flag, const char *value, const char *want, const char *not)
{
	char *out = path_join(dir, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--power-only", flag, value, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, want);
	if (not && r.err && strstr(r.err, not)) {
		CHECK(!"a refusal with the advice it should not give");
		fprintf(stderr, "%s\n", r.err);
	}
	/* every stderr line, the refusal and the reader's streamed warnings,
	 * within its 255 bytes after the CLI's "wattcast ingest: " (and
	 * "warning: "): under a long temporary path the path gives way in its
	 * middle, not the text (docs/architecture.md, "Errors") */
	for (const char *l = r.err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *msg = l;
		if (strncmp(msg, "wattcast ingest: ", 17) == 0)
			msg += 17;
		if (strncmp(msg, "warning: ", 9) == 0)
			msg += 9;
		CHECK(strcspn(msg, "\n") <= 255);
	}
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("ingest_wrong_platform");
	/* 222 of 300 readings beyond 144 W: the platform, not the lines */
	char *l4 = run_folder("l4", 40, 261, 0, NULL, "L4");
	refused(l4, NULL, NULL, "power.csv: 222 of 300 lines read above 144 W per GPU, 2 x the 72 W board limit "
	        "of L4 (from wattcast-run.json): the platform is likely wrong", "FRACTION");
	/* allowed, the readings left have a 55-s hole: the same, not a split */
	refused(l4, "--max-bad", "0.8", "222 of 300 lines read above 144 W per GPU, 2 x the 72 W board limit of "
	        "L4 (from wattcast-run.json)", "split the log");
	char *flag = run_folder("flag", 40, 261, 0, NULL, "");
	refused(flag, "--platform", "L4", "2 x the 72 W board limit of L4 (from --platform): the platform is "
	        "likely wrong", "FRACTION");
	char *named = run_folder("named", 40, 261, 0, "NVIDIA L4", "");
	refused(named, NULL, NULL, "2 x the 72 W board limit of L4 (from power.csv's name): the platform is "
	        "likely wrong", "FRACTION");
	/* 30 unreadable lines and 9 beyond the bound: the lines are what is
	 * wrong, as before */
	char *mixed = run_folder("mixed", 100, 109, 10, NULL, "L4");
	refused(mixed, NULL, NULL, "fix the bad lines or allow more with --max-bad FRACTION: 39 of 300 data lines "
	        "are malformed", "platform is likely wrong");
	free(l4);
	free(flag);
	free(named);
	free(mixed);
	free(dir);
	return check_report("test_ingest_wrong_platform");
}

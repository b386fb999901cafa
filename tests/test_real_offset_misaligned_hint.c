/*
 * A UTC offset an hour off (a DST hour) in the real A100 validate run
 * (label realdata): power.csv's every time moved an hour on, the manifest
 * still saying -25200. The clocks cannot be aligned; the refusal now
 * suggests the offset the engine clock implies, -21600 (as the refusal of
 * a run with no offset does), and names the override that works where the
 * offset came from (docs/formats/telemetry.md, "Clocks and UTC offsets"):
 * manifest.json's is overridden by wattcast-run.json, not by --utc-offset,
 * which is "not applied" and now says so; wattcast-run.json's own is set
 * there; a flag's is given again. It said "check the offset" alone. With
 * wattcast-run.json's -21600 the run reads 251.4 W. Each message within
 * 255 bytes, whole, under the run's own 48-byte folder name.
 * Skipped (77) when ../shared is absent.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439"

/* The message of the stderr line holding `what`, without the CLI's
 * prefixes; checked within 255 bytes and ending in `end`. */
static void
check_line(const char *err, const char *what, const char *end)
{
	char *line = test_line_with(err ? err : "", what);
	const char *m = line;
	if (strncmp(m, "wattcast ingest: ", 17) == 0)
		m += 17;
	if (strncmp(m, "warning: ", 9) == 0)
		m += 9;
	fprintf(stderr, "said (%zu bytes): %s\n", strlen(m), m);
	CHECK_CONTAINS(m, what);
	CHECK(strlen(m) <= 255);
	CHECK(strlen(m) >= strlen(end) && strcmp(m + strlen(m) - strlen(end), end) == 0);
	free(line);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/" RUN);
	char *root = test_tmpdir("real_offset_misaligned_hint"), *run = path_join(root, RUN);
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	mkdir(run, 0755);
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_offset_misaligned_hint");
	/* every sample of this log lies in 15:xx local time: an hour on */
	for (char *p = strstr(text[0], "\n2026/07/18 15:"); p; p = strstr(p + 1, "\n2026/07/18 15:"))
		p[13] = '6';
	CHECK(strstr(text[0], " 15:") == NULL);
	for (int k = 0; k < 3; k++)
		free(test_fixture(run, files[k], text[k]));
	char *out = path_join(root, "out.csv"), *own = path_join(run, "wattcast-run.json");
	run_result r;

	/* manifest.json's offset: wattcast-run.json overrides it */
	const char *plain[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_wattcast(plain, NULL, &r);
	CHECK(r.status != 0);
	CHECK(!test_exists(out));
	check_line(r.err, "clocks cannot be aligned at UTC offset -25200 s: power starts 3600.0 s after the "
	           "engine; it suggests -21600",
	           "wattcast-run.json's \"utc_offset_s\": -21600 overrides manifest.json's (a flag does not)");
	run_result_free(&r);
	const char *flag[] = { "wattcast", "ingest", run, "-o", out, "--utc-offset", "-21600", NULL };
	run_wattcast(flag, NULL, &r);
	CHECK(r.status != 0);
	check_line(r.err, "--utc-offset -21600 (the run says -25200): not applied",
	           "; wattcast-run.json's \"utc_offset_s\" wins over manifest.json's");
	run_result_free(&r);

	/* the override named works: the run's 251.4 W */
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/4\", \"utc_offset_s\": -21600}\n"));
	run_wattcast(plain, NULL, &r);
	CHECK_INT(r.status, 0);
	char *table = test_slurp(out), power[64];
	test_csv_field(table, "mean_power_w", power, sizeof power);
	CHECK_NEAR(atof(power), 251.4, 0.05);
	free(table);
	run_result_free(&r);
	unlink(out);

	/* wattcast-run.json's own offset wrong: set there */
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/4\", \"utc_offset_s\": -25200}\n"));
	run_wattcast(plain, NULL, &r);
	CHECK(r.status != 0);
	check_line(r.err, "clocks cannot be aligned at UTC offset -25200 s", "it suggests -21600: set "
	           "wattcast-run.json's \"utc_offset_s\" to -21600");
	run_result_free(&r);
	unlink(own);

	/* no manifest: the flag's offset, given again */
	char *man = path_join(run, "manifest.json");
	unlink(man);
	const char *bare[] = { "wattcast", "ingest", run, "-o", out, "--platform", "A100", "--model", "Qwen/Qwen3-8B",
		               "--utc-offset", "-25200", NULL };
	run_wattcast(bare, NULL, &r);
	CHECK(r.status != 0);
	check_line(r.err, "clocks cannot be aligned at UTC offset -25200 s", "it suggests -21600: give --utc-offset "
	           "-21600");
	run_result_free(&r);

	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(man);
	free(own);
	free(out);
	free(run);
	free(root);
	free(src);
	return check_report("test_real_offset_misaligned_hint");
}

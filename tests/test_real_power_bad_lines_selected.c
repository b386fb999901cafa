/*
 * Every power.csv line malformed in a run whose manifest names its GPUs
 * (label realdata): the real A100 validate run with a decimal comma in
 * each power cell (82,37: 11 fields for the header's 10), its manifest's
 * server.active_gpu_uuids naming the one GPU. The refusal is the bad
 * lines' ("298 of 298 data lines are malformed ...; the first: line 2:94:
 * expected 10 fields, found 11"), as without the manifest; it blamed the
 * selection ("GPU-03a8... of the run's 1 (gpu_uuids) is in no row of the
 * log: it holds other GPUs only"), the GPU's rows being the bad lines
 * (docs/formats/telemetry.md, "Bad lines"). A log whose rows are read and
 * hold other GPUs only is still refused for the selection.
 * Skipped (77) when ../shared is absent.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* `csv` with the first '.' of each data line's 4th field a ',', or its
 * GPU's uuid changed (`comma` 0). */
static char *
edited(const char *csv, int comma)
{
	size_t n = strlen(csv);
	char *out = malloc(2 * n + 1), *o = out;
	const char *p = csv;
	int line = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		int field = 1, done = 0;
		for (size_t i = 0; i < len; i++) {
			char c = p[i];
			if (line > 0 && comma && field == 4 && c == '.' && !done)
				c = ',', done = 1;
			if (line > 0 && !comma && field == 3 && c == '0' && !done && i > 0 && p[i - 1] == '-')
				c = '1', done = 1; /* GPU-03a8... becomes GPU-13a8... */
			field += p[i] == ',';
			*o++ = c;
		}
		p += len;
		line++;
	}
	*o = '\0';
	return out;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_power_bad_lines_selected");
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_power_bad_lines_selected");
	CHECK_CONTAINS(text[2], "\"active_gpu_uuids\"");
	for (int comma = 1; comma >= 0; comma--) {
		char *run = path_join(root, comma ? "t6" : "other_gpu"), *power = edited(text[0], comma);
		mkdir(run, 0755);
		free(test_fixture(run, "power.csv", power));
		free(test_fixture(run, "engine.csv", text[1]));
		free(test_fixture(run, "manifest.json", text[2]));
		wc_ingest_options o;
		wc_ingest_result res = { NULL, 0, 0 };
		test_warnings w;
		wc_error err = { 0, "" };
		wc_ingest_options_init(&o);
		CHECK(test_ingest_with(run, &o, &res, &w, &err) != WC_OK);
		fprintf(stderr, "%s: %s\n", comma ? "t6" : "other_gpu", err.msg);
		if (comma) {
			CHECK_CONTAINS(err.msg, "298 of 298 data lines are malformed");
			CHECK_CONTAINS(err.msg, "the first: line 2:94: expected 10 fields, found 11");
			CHECK(strstr(err.msg, "gpu_uuids") == NULL);
		} else {
			CHECK_CONTAINS(err.msg, "GPU-03a84180-d660-dbdc-17f4-0e0655717066 of the run's 1 (gpu_uuids) is in no "
			               "row of the log: it holds other GPUs only");
		}
		wc_ingest_result_clear(&res);
		free(power);
		free(run);
	}
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(root);
	free(src);
	return check_report("test_real_power_bad_lines_selected");
}

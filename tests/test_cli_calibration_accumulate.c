/*
 * A set calibrated twice is in-sample for both calibrations' runs. The
 * record's row_hashes held the newest calibration's rows only, so the
 * first one's runs were then scored as held out without a word (A100
 * calibrated, then H200, on the published design: the A100 rows' 11.55 %
 * read as held out), and the built-in `measured` profile, calibrated so,
 * recorded no rows at all. A /14 record keeps every calibration's rows,
 * each once, and the profile carries its own (docs/formats/params-file.md,
 * "Provenance"; docs/validation.md, "Frozen-law accuracy").
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's comment and header lines and the rows holding `key`. */
static char *
only(const char *text, const char *key)
{
	char *out = calloc(1, strlen(text) + 1);
	for (const char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		size_t len = next ? (size_t)(next - line) : strlen(line);
		char keep[1024] = "";
		memcpy(keep, line, len < sizeof keep - 1 ? len : sizeof keep - 1);
		if (keep[0] == '#' || !strncmp(keep, "run_id,", 7) || strstr(keep, key))
			strcat(out, keep);
	}
	return out;
}

static void
expect_err(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_calibration_accumulate");
	char *table = path_join(dir, "table.csv"), *h200 = path_join(dir, "h200.csv"), *h100 = path_join(dir, "h100.csv"),
	     *c1 = path_join(dir, "c1.json"), *c2 = path_join(dir, "c2.json"), *bad = path_join(dir, "bad.json");
	run_result r;
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", table, NULL };
	CHECK(run_wattcast(sim, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	char *text = test_slurp(table), *a = only(text, ",H200,1,Qwen3-8B,"), *b = only(text, ",H100,1,Qwen3-8B,");
	CHECK(write_text(h200, a) == 0);
	CHECK(write_text(h100, b) == 0);
	const char *k1[] = { "wattcast", "calibrate", "--profile", "paper", h200, "-o", c1, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(k1, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *k2[] = { "wattcast", "calibrate", "--params", c1, h100, "-o", c2, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(k2, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);

	/* The first calibration's 14 H200 rows after the second's 10 H100
	 * ones: still in-sample (no word before), the record counting both. */
	const char *v1[] = { "wattcast", "validate", "heldout", "--params", c2, h200, NULL };
	expect_err(v1, 0, "h200.csv holds 14 of the 24 rows the set was calibrated on (its provenance calibration "
	                  "row_hashes): these errors are in-sample, not held out");
	const char *v2[] = { "wattcast", "validate", "heldout", "--params", c2, h100, NULL };
	expect_err(v2, 0, "h100.csv is the very table the set was calibrated on (");

	/* The newest record's own count stays its runs; the list counts both,
	 * each once: the same rows calibrated again add nothing. */
	char *json = test_slurp(c2);
	CHECK_CONTAINS(json, "\"runs\": 10,");
	const char *k3[] = { "wattcast", "calibrate", "--params", c2, h100, "-o", c1, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(k3, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	expect_err(v1, 0, "h200.csv holds 14 of the 24 rows");
	/* A /14 list repeating a row is refused naming the entry. */
	char *twice = strdup(json), *first = strstr(twice, "\"row_hashes\": [");
	CHECK(first != NULL);
	if (first) {
		char *q = strchr(first + 15, '"'), h[17] = "";
		memcpy(h, q + 1, 16);
		char *second = strchr(strchr(q + 1, '"') + 1, '"');
		memcpy(second + 1, h, 16);
	}
	CHECK(write_text(bad, twice) == 0);
	const char *vb[] = { "wattcast", "validate", "heldout", "--params", bad, h200, NULL };
	expect_err(vb, 1, "/provenance/calibration/row_hashes/1: '");
	expect_err(vb, 1, "' repeats entry 0: each row is listed once");

	/* The built-in measured profile's A100 and H200 levels were
	 * calibrated on the published design: its 159 rows of them are
	 * in-sample (it said nothing), its H100 reference rows held out. */
	char *design = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	const char *vm[] = { "wattcast", "validate", "heldout", "--profile", "measured", design, NULL };
	expect_err(vm, 0, "paper-design-seed42.csv is the very table the set was calibrated on (its provenance "
	                  "calibration input_sha256 7470e6403722f560): in-sample for the 159 row(s) it used on the "
	                  "levels and models it calibrated; its 88 others are held out");

	free(design);
	free(twice);
	free(json);
	free(text);
	free(a);
	free(b);
	free(table);
	free(h200);
	free(h100);
	free(c1);
	free(c2);
	free(bad);
	free(dir);
	return check_report("test_cli_calibration_accumulate");
}

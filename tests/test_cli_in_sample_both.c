/*
 * A set calibrated on some rows of its own fit's table keeps the fit's
 * record (provenance.input_sha256 and runs), so the table's rows are
 * in-sample for its law, the calibrated ones for its calibration too.
 * The calibration's rows, found first, stopped the fit's check: `validate
 * heldout` and `validate fewshot` said "in-sample for the 43 row(s) it
 * used ...; its 204 others are held out" of rows the law was fitted on
 * (ML.ENERGY: the `measured` profile calibrated on 12 rows read 313 of its
 * own 325 as held out). Both checks run now and the warning names each;
 * the JSON of both says it too (law_in_sample, calibration_in_sample,
 * rows_in_sample, coverage_in_sample; docs/validation.md, "Frozen-law
 * accuracy"), where it said nothing.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `argv`'s stderr holds `needle` in a warning of at most 255 bytes, and
 * not `absent` (NULL: no such check). */
static void
expect_warning(const char *const *argv, const char *needle, const char *absent)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, needle);
	CHECK(!absent || !r.err || !strstr(r.err, absent));
	const char *msg = r.err ? strstr(r.err, "warning: ") : NULL;
	CHECK(msg && strcspn(msg + 9, "\n") <= 255);
	run_result_free(&r);
}

/* `argv` (a --json report): its in-sample fields are these. */
static void
expect_json(const char *const *argv, long law, long cal, long rows, int coverage)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	CHECK(json_is_integer(json_object_get(j, "law_in_sample")));
	CHECK_INT((long)json_integer_value(json_object_get(j, "law_in_sample")), law);
	CHECK_INT((long)json_integer_value(json_object_get(j, "calibration_in_sample")), cal);
	CHECK_INT((long)json_integer_value(json_object_get(j, "rows_in_sample")), rows);
	CHECK(json_is_boolean(json_object_get(j, "coverage_in_sample")));
	CHECK_INT(json_is_true(json_object_get(j, "coverage_in_sample")), coverage);
	json_decref(j);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_in_sample_both");
	char *runs = path_join(dir, "sim.csv"), *other = path_join(dir, "other.csv"), *set = path_join(dir, "set.json");
	char *qwen = path_join(dir, "qwen.csv"), *cal = path_join(dir, "cal.json"), *calm = path_join(dir, "calm.json");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "3", "-o", runs, NULL };
	const char *sim2[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", other, NULL };
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", set, "--bootstrap", "0", NULL };
	test_run_ok(sim);
	test_run_ok(sim2);
	test_run_ok(fit);
	/* the fit's Qwen3-8B rows, on their own */
	char *all = test_slurp(runs), *only = calloc(1, strlen(all) + 1);
	size_t at = 0;
	for (char *line = all, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		size_t n = next ? (size_t)(next - line) : strlen(line);
		char *row = strndup(line, n);
		if (row[0] == '#' || !strncmp(row, "run_id,", 7) || strstr(row, ",Qwen3-8B,")) {
			memcpy(only + at, row, n);
			at += n;
		}
		free(row);
	}
	CHECK(write_text(qwen, only) == 0);
	const char *cq[] = { "wattcast", "calibrate", "--params", set, qwen, "-o", cal, "--bootstrap", "0", NULL };
	const char *cm[] = { "wattcast", "calibrate", "--params", set, runs, "--model", "Qwen3-8B", "-o", calm,
		             "--bootstrap", "0", NULL };
	test_run_ok(cq);
	test_run_ok(cm);

	/* The fit's table, the calibration's 43 rows among its 247: 218 rows
	 * the fit used, 9 more the calibration did; the 20 others held out. */
	const char *hc[] = { "wattcast", "validate", "heldout", "--params", cal, runs, NULL };
	expect_warning(hc, "sim.csv is the very table the set was fitted on (input_sha256 ", NULL);
	expect_warning(hc, ") and 43 of the 43 it was calibrated on: in-sample: 218 for the law, 43 for its calibration; "
	                   "its 20 others are held out (sets: llama31_70b_closed_loop, fitted", "204 others");
	const char *fc[] = { "wattcast", "validate", "fewshot", runs, "--params", cal, "--k", "1", NULL };
	expect_warning(fc, "in-sample: 218 for the law, 43 for its calibration; its 20 others are held out", "204 others");
	/* calibrated on the fit's very table (--model Qwen3-8B) */
	const char *hm[] = { "wattcast", "validate", "heldout", "--params", calm, runs, NULL };
	expect_warning(hm, ") and calibrated on: in-sample: 218 for the law, 43 for its calibration; its 20 others are "
	                   "held out (sets: llama31_70b_closed_loop, fitted, a100_fp8_int4_weights)", "204 others");
	/* the calibration's table alone: in-sample for it, and (schema 19,
	 * the fit's row hashes) for the law on the 34 of its 43 rows the fit
	 * used -- a subset of the fitted table, once called held out */
	const char *hq[] = { "wattcast", "validate", "heldout", "--params", cal, qwen, NULL };
	expect_warning(hq, "qwen.csv holds 34 row(s) of the 218 runs the set was fitted on (its provenance "
	                   "row_hashes) and the very table it was calibrated on (", NULL);

	const char *jc[] = { "wattcast", "validate", "heldout", "--params", cal, runs, "--json", NULL };
	expect_json(jc, 218, 43, 227, 0);
	const char *jf[] = { "wattcast", "validate", "fewshot", runs, "--params", cal, "--k", "1", "--json", NULL };
	expect_json(jf, 218, 43, 227, 0);
	const char *js[] = { "wattcast", "validate", "heldout", "--params", set, runs, "--json", NULL };
	expect_json(js, 218, 0, 218, 0);
	const char *jq[] = { "wattcast", "validate", "heldout", "--params", cal, qwen, "--json", NULL };
	expect_json(jq, 34, 43, 43, 0);
	/* other runs of the same boards and models: held out, and said so */
	const char *jo[] = { "wattcast", "validate", "heldout", "--params", cal, other, "--json", NULL };
	expect_json(jo, 0, 0, 0, 0);
	const char *jfo[] = { "wattcast", "validate", "fewshot", other, "--params", cal, "--k", "1", "--json", NULL };
	expect_json(jfo, 0, 0, 0, 0);

	free(all);
	free(only);
	free(runs);
	free(other);
	free(set);
	free(qwen);
	free(cal);
	free(calm);
	free(dir);
	return check_report("test_cli_in_sample_both");
}

/*
 * A set calibrated on some runs of a model and level, scored on a table
 * holding them among other runs of the same model and level, is
 * in-sample for those runs. It said nothing: the check recalibrated the
 * table's rows of the model and level, which the other runs moved off the
 * set's terms, and gave up (12 ML.ENERGY Qwen3-32B chat runs on H100,
 * scored in the Qwen3-32B table with its gpqa runs, read as 6.21 %
 * held-out error). The set now records its rows by content (schema 12,
 * provenance.calibration.row_hashes; docs/validation.md, "Frozen-law
 * accuracy"), and a set without them keeps the older rule.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's comment and header lines, and its Qwen3-8B H200 rows, every
 * other one (`odd` 0 or 1) or all of them in reverse order (`odd` -1). */
static char *
cut(const char *text, int odd)
{
	char *out = calloc(1, strlen(text) + 64), *rows[64];
	int n = 0, k = 0;
	const char *line = text;
	while (line && *line) {
		const char *next = strchr(line, '\n');
		size_t len = next ? (size_t)(next - line) + 1 : strlen(line);
		char keep[1024] = "";
		memcpy(keep, line, len < sizeof keep - 1 ? len : sizeof keep - 1);
		if (keep[0] == '#' || !strncmp(keep, "run_id,", 7))
			strcat(out, keep);
		else if (strstr(keep, ",H200,1,Qwen3-8B,") && n < 64)
			rows[n++] = strdup(keep);
		line = next ? next + 1 : NULL;
	}
	for (int i = 0; i < n; i++) {
		const char *row = odd < 0 ? rows[n - 1 - i] : rows[i];
		if (odd < 0 || i % 2 == odd)
			strcat(out, row), k++;
	}
	for (int i = 0; i < n; i++)
		free(rows[i]);
	CHECK(k >= 5);
	return out;
}

static void
expect_warning(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, needle);
	/* each warning's message within 255 bytes (there may be several:
	 * `fit intervals` also says when its quantile rests on few groups) */
	for (const char *w = r.err ? strstr(r.err, "warning: ") : NULL; w; w = strstr(w + 9, "warning: "))
		CHECK(strcspn(w + 9, "\n") <= 255);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_calibration_rows");
	char *table = path_join(dir, "table.csv"), *half = path_join(dir, "half.csv"),
	     *twins = path_join(dir, "twins.csv"), *cal = path_join(dir, "cal.json"),
	     *old = path_join(dir, "old.json"), *bad = path_join(dir, "bad.json"), *iv = path_join(dir, "iv.json");
	run_result r;
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", table, NULL };
	CHECK(run_wattcast(sim, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	char *text = test_slurp(table), *h = cut(text, 0), *other = cut(text, 1);
	CHECK(write_text(half, h) == 0);
	CHECK(write_text(twins, other) == 0);
	const char *cm[] = { "wattcast", "calibrate", "--profile", "paper", half, "-o", cal, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(cm, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	char *json = test_slurp(cal);
	CHECK_CONTAINS(json, "\"schema\": \"wattcast.params/19\"");
	CHECK_CONTAINS(json, "\"row_hashes\": [");

	/* The table the 7 rows were cut from, with its 7 other Qwen3-8B H200
	 * runs: in-sample for the 7, and said so (it said nothing). */
	const char *ho[] = { "wattcast", "validate", "heldout", "--params", cal, table, NULL };
	expect_warning(ho, "table.csv holds 7 of the 7 rows the set was calibrated on (its provenance calibration "
	                   "row_hashes): in-sample for the 7 row(s) it used on the levels and models it calibrated; "
	                   "its 240 others are held out");
	const char *fz[] = { "wattcast", "fit", "intervals", table, "--params", cal, "--folds", "frozen", "-o", iv,
		             NULL };
	expect_warning(fz, "in-sample for the 7 row(s) it used on the levels and models it calibrated; its 240 others "
	                   "are held out");
	/* the very table: in-sample, as before */
	const char *hh[] = { "wattcast", "validate", "heldout", "--params", cal, half, NULL };
	expect_warning(hh, "half.csv is the very table the set was calibrated on (its provenance calibration "
	                   "input_sha256 ");
	expect_warning(hh, "): these errors are in-sample, not held out");
	/* the same model and level's other runs alone are held out: no word */
	const char *ht[] = { "wattcast", "validate", "heldout", "--params", cal, twins, NULL };
	CHECK(run_wattcast(ht, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "in-sample"));
	run_result_free(&r);
	/* all 14 in reverse order behind a comment: other bytes, its 7 rows */
	char *rev = cut(text, -1), *noted = calloc(1, strlen(rev) + 16), *rpath = path_join(dir, "rev.csv");
	strcpy(noted, "# re-sorted\n");
	strcat(noted, rev);
	CHECK(write_text(rpath, noted) == 0);
	const char *hr[] = { "wattcast", "validate", "heldout", "--params", cal, rpath, NULL };
	expect_warning(hr, "rev.csv holds 7 of the 7 rows the set was calibrated on (its provenance calibration "
	                   "row_hashes): in-sample for the 7 row(s) it used on the levels and models it calibrated; "
	                   "its 7 others are held out");

	/* A /11 set has no row hashes and may carry none; without them it
	 * loads and keeps the older rule: the very table is in-sample. (Nor
	 * its terms' idle, schema 13.) */
	char *v11 = test_replaced(strdup(json), "\"wattcast.params/19\"", "\"wattcast.params/11\"");
	v11 = test_simulated_as_measured(v11);
	v11 = test_without_object(v11, "\"model_terms\": [", "p0_w");
	v11 = test_without_object(v11, "\"model_terms\": [", "range"); /* nor their span (schema 19) */
	CHECK(write_text(bad, v11) == 0);
	const char *hb[] = { "wattcast", "validate", "heldout", "--params", bad, half, NULL };
	CHECK(run_wattcast(hb, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/provenance/calibration/row_hashes: needs \"wattcast.params/12\" or later");
	run_result_free(&r);
	char *at = strstr(v11, ",\n      \"row_hashes\": [");
	CHECK(at != NULL);
	if (at) {
		char *end = strchr(at, ']');
		memmove(at, end + 1, strlen(end + 1) + 1);
	}
	CHECK(write_text(old, v11) == 0);
	const char *hv[] = { "wattcast", "validate", "heldout", "--params", old, half, NULL };
	expect_warning(hv, "half.csv is the very table the set was calibrated on (");
	/* a list that does not match the record's runs is refused, naming it */
	char *cut1 = strdup(json), *first = strstr(cut1, "\"row_hashes\": [");
	CHECK(first != NULL);
	if (first) {
		char *q = strchr(first + 15, '"'), *next = strchr(q + 1, '"');
		next = strchr(next + 1, '"');
		memmove(q, next, strlen(next) + 1);
	}
	/* (a /13 record's: a /14 one keeps every calibration's rows, each
	 * once, and counts no runs of its own) */
	cut1 = test_simulated_as_measured(test_replaced(cut1, "\"wattcast.params/19\"", "\"wattcast.params/13\""));
	cut1 = test_without_object(cut1, "\"model_terms\": [", "range");
	CHECK(write_text(bad, cut1) == 0);
	CHECK(run_wattcast(hb, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/provenance/calibration/row_hashes: holds 6 row hash(es) for the record's 7 runs");
	run_result_free(&r);

	/* A new level calibrated relative to H100 records the H100 runs it
	 * used under their own platform, as the table holds them; they stay
	 * held out, predicted by the base's H100, which they did not move. */
	char *mixed = calloc(1, strlen(text) + 1), *mpath = path_join(dir, "mixed.csv"),
	     *rel = path_join(dir, "rel.json");
	for (const char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		size_t len = next ? (size_t)(next - line) : strlen(line);
		char keep[1024] = "";
		memcpy(keep, line, len < sizeof keep - 1 ? len : sizeof keep - 1);
		if (keep[0] == '#' || !strncmp(keep, "run_id,", 7) || strstr(keep, ",H100,1,Qwen3-8B,"))
			strcat(mixed, keep);
		else if (strstr(keep, ",H200,1,Qwen3-8B,")) {
			char *b200 = test_replaced(strdup(keep), ",H200,", ",B200,");
			strcat(mixed, b200);
			free(b200);
		}
	}
	CHECK(write_text(mpath, mixed) == 0);
	const char *cr[] = { "wattcast", "calibrate", "--profile", "paper", mpath, "--scope", "platform", "--platform",
		             "B200", "--relative-to", "H100", "-o", rel, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(cr, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *hm[] = { "wattcast", "validate", "heldout", "--params", rel, mpath, NULL };
	expect_warning(hm, "mixed.csv is the very table the set was calibrated on (");
	expect_warning(hm, "in-sample for the 14 row(s) it used on the levels and models it calibrated; its 10 others "
	                   "are held out");
	char *noted2 = calloc(1, strlen(mixed) + 16), *npath = path_join(dir, "mixed2.csv");
	strcpy(noted2, "# a note\n");
	strcat(noted2, mixed);
	CHECK(write_text(npath, noted2) == 0);
	const char *hm2[] = { "wattcast", "validate", "heldout", "--params", rel, npath, NULL };
	expect_warning(hm2, "mixed2.csv holds 24 of the 24 rows the set was calibrated on (its provenance calibration "
	                    "row_hashes): in-sample for the 14 row(s) it used on the levels and models it calibrated; "
	                    "its 10 others are held out");

	free(noted2);
	free(npath);
	free(mixed);
	free(mpath);
	free(rel);
	free(cut1);
	free(v11);
	free(rev);
	free(noted);
	free(rpath);
	free(json);
	free(text);
	free(h);
	free(other);
	free(table);
	free(half);
	free(twins);
	free(cal);
	free(old);
	free(bad);
	free(iv);
	free(dir);
	return check_report("test_cli_calibration_rows");
}

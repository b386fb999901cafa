/*
 * `validate heldout` and `fit intervals --folds frozen` on the very table
 * a set was fitted on (its provenance's input_sha256 is the table's)
 * score it in-sample; they said nothing, and reported ML.ENERGY's own
 * fit as "frozen-law accuracy" (8.41 %, 96.9 % coverage) and stored a
 * frozen q of 0.357 against 0.381 from model folds. Now both warn,
 * naming the table (docs/validation.md); another table does not warn.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_in_sample_under_a_folder_as_deep_as_a_clean_clone_of_the_ci_puts_it");
	char *runs = path_join(dir, "sim.csv"), *other = path_join(dir, "other.csv");
	char *set = path_join(dir, "set.json"), *iv = path_join(dir, "iv.json");
	run_result r;
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "3", "-o", runs, NULL };
	CHECK(run_wattcast(sim, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *sim2[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", other, NULL };
	CHECK(run_wattcast(sim2, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", set, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(fit, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);

	const char *ho[] = { "wattcast", "validate", "heldout", "--params", set, runs, NULL };
	CHECK(run_wattcast(ho, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast validate heldout: warning: ");
	CHECK_CONTAINS(r.err, "sim.csv is the very table the set was fitted on (its provenance input_sha256 ");
	/* only the rows the fit used are in-sample: the design's excluded and
	 * left-out rows (the Llama-3.1-70B set among them) are held out even
	 * here, and the warning called every error in-sample */
	CHECK_CONTAINS(r.err, "in-sample for the 218 row(s) the fit used; its 29 others are held out (sets: ");
	/* every set, the one the table holds out (its rows marked `exclude`)
	 * first: under this folder the path's last 40 bytes pushed it, listed
	 * last, out of the message ("(sets: fitted, a100_fp8_int4_weights,
	 * ...)"); the path now gives way in its middle, down to its file name */
	CHECK_CONTAINS(r.err, "(sets: llama31_70b_closed_loop, fitted, a100_fp8_int4_weights)\n");
	CHECK(strlen(strstr(r.err, "warning: ") + 9) <= 256); /* the message, its newline aside */
	run_result_free(&r);
	const char *ho2[] = { "wattcast", "validate", "heldout", "--params", set, other, NULL };
	CHECK(run_wattcast(ho2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "in-sample"));
	run_result_free(&r);

	/* validate fewshot's frozen base on its own table: k = 0 and the
	 * calibrations on top of it are in-sample too (it said nothing) */
	const char *fs[] = { "wattcast", "validate", "fewshot", runs, "--params", set, "--k", "1", NULL };
	CHECK(run_wattcast(fs, NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: warning: ");
	CHECK_CONTAINS(r.err, "in-sample for the 218 row(s) the fit used; its 29 others are held out");
	run_result_free(&r);

	const char *fz[] = { "wattcast", "fit", "intervals", runs, "--params", set, "--folds", "frozen", "-o", iv, NULL };
	CHECK(run_wattcast(fz, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast fit intervals: warning: ");
	CHECK_CONTAINS(r.err, "in-sample for the 218 row(s) the fit used; its 29 others are held out");
	run_result_free(&r);
	const char *fz2[] = { "wattcast", "fit", "intervals", other, "--params", set, "--folds", "frozen", "-o", iv, NULL };
	CHECK(run_wattcast(fz2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "in-sample"));
	run_result_free(&r);

	/* The same rows behind a comment line, and in reverse order: other
	 * bytes, the same runs -- refitted as the set was they give its own
	 * parameters, so still in-sample (only the file's hash was compared,
	 * and one comment line made the in-sample q "held out"). */
	char *text = test_slurp(runs), *moved = path_join(dir, "moved.csv");
	size_t len = strlen(text);
	char *rev = calloc(1, len + 32);
	strcpy(rev, "# copy\n");
	char *body = strstr(text, "\nrun_id,") + 1, *first = strchr(body, '\n') + 1;
	strncat(rev, text, (size_t)(body - text));
	strncat(rev, body, (size_t)(first - body)); /* the header row */
	for (char *end = text + len; end > first;) {
		char *start = end - 1;
		while (start > first && start[-1] != '\n')
			start--;
		strncat(rev, start, (size_t)(end - start));
		end = start;
	}
	CHECK(write_text(moved, rev) == 0);
	const char *hm[] = { "wattcast", "validate", "heldout", "--params", set, moved, NULL };
	CHECK(run_wattcast(hm, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	/* schema 19: found by the fit's row hashes, not by a refit */
	CHECK_CONTAINS(r.err, "moved.csv holds 218 row(s) of the 218 runs the set was fitted on (its provenance row_hashes)");
	CHECK_CONTAINS(r.err, "in-sample for the 218 row(s) the fit used; its 29 others are held out");
	run_result_free(&r);
	const char *fm[] = { "wattcast", "fit", "intervals", moved, "--params", set, "--folds", "frozen", "-o", iv, NULL };
	CHECK(run_wattcast(fm, NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "in-sample for the 218 row(s) the fit used");
	run_result_free(&r);
	free(rev);
	free(text);
	free(moved);

	/* A set calibrated on the table scored: its calibration's input_sha256
	 * is the table's, so the rows on what it estimated are in-sample (it
	 * said nothing, and a calibrated level's own runs read as held out);
	 * rows on other models are held out. */
	{
		char *cal = path_join(dir, "cal.json"), *qwen = path_join(dir, "qwen.csv");
		const char *cm[] = { "wattcast", "calibrate", "--params", set, other, "--model", "Qwen3-8B", "-o", cal,
		                     "--bootstrap", "0", NULL };
		CHECK(run_wattcast(cm, NULL, &r) == 0 && r.status == 0);
		run_result_free(&r);
		const char *hc[] = { "wattcast", "validate", "heldout", "--params", cal, other, NULL };
		CHECK(run_wattcast(hc, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "other.csv is the very table the set was calibrated on (its provenance calibration "
		                      "input_sha256 ");
		CHECK_CONTAINS(r.err, "in-sample for the 43 row(s) it used on the levels and models it calibrated; its 204 others are held out");
		run_result_free(&r);
		/* the Qwen3-8B rows alone: every row is in-sample */
		char *all = test_slurp(other), *only = calloc(1, strlen(all) + 1);
		for (char *line = all, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			next = next ? next + 1 : NULL;
			size_t n = next ? (size_t)(next - line) : strlen(line);
			char keep[1024] = "";
			memcpy(keep, line, n < sizeof keep - 1 ? n : sizeof keep - 1);
			if (keep[0] == '#' || !strncmp(keep, "run_id,", 7) || strstr(keep, ",Qwen3-8B,"))
				strcat(only, keep);
		}
		CHECK(write_text(qwen, only) == 0);
		const char *cq[] = { "wattcast", "calibrate", "--params", set, qwen, "-o", cal, "--bootstrap", "0", NULL };
		CHECK(run_wattcast(cq, NULL, &r) == 0 && r.status == 0);
		run_result_free(&r);
		const char *hq[] = { "wattcast", "validate", "heldout", "--params", cal, qwen, NULL };
		CHECK(run_wattcast(hq, NULL, &r) == 0);
		CHECK_CONTAINS(r.err, "qwen.csv is the very table the set was calibrated on (");
		CHECK_CONTAINS(r.err, "): these errors are in-sample, not held out");
		run_result_free(&r);
		/* The same rows behind a comment line: recalibrated as the set
		 * was, they give its own terms, so still in-sample (only the
		 * file's hash was compared for a calibrated set, and one comment
		 * line made its in-sample scores "held out"). */
		char *noted = path_join(dir, "noted.csv"), *copy = calloc(1, strlen(only) + 16);
		strcpy(copy, "# my note\n");
		strcat(copy, only);
		CHECK(write_text(noted, copy) == 0);
		const char *hn[] = { "wattcast", "validate", "heldout", "--params", cal, noted, NULL };
		CHECK(run_wattcast(hn, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "noted.csv holds 43 of the 43 rows the set was calibrated on (its provenance "
		                      "calibration row_hashes): these errors are in-sample, not held out");
		run_result_free(&r);
		/* The table they were cut from holds them too: its Qwen3-8B rows
		 * are in-sample, the others held out (this said nothing, as of
		 * any other table: the same hash was all it looked for). */
		const char *ho3[] = { "wattcast", "validate", "heldout", "--params", cal, other, NULL };
		CHECK(run_wattcast(ho3, NULL, &r) == 0);
		CHECK_CONTAINS(r.err, "other.csv holds 43 of the 43 rows the set was calibrated on (");
		CHECK_CONTAINS(r.err, "in-sample for the 43 row(s) it used on the levels and models it calibrated; its 204 others are held out");
		run_result_free(&r);
		/* A /11 set records no rows: recalibrated as the set was, the
		 * same rows give its own terms, so they are found all the same. */
		char *js = test_slurp(cal), *v11 = path_join(dir, "v11.json");
		js = test_without_object(test_simulated_as_measured(test_replaced(js, "\"wattcast.params/19\"",
		                                                                  "\"wattcast.params/11\"")),
		                         "\"model_terms\": [", "p0_w"); /* nor its terms' idle (schema 13) */
		js = test_without_object(js, "\"model_terms\": [", "range"); /* nor their span (schema 19) */
		char *at = strstr(js, ",\n      \"row_hashes\": [");
		CHECK(at != NULL);
		if (at)
			memmove(at, strchr(at, ']') + 1, strlen(strchr(at, ']') + 1) + 1);
		for (const char *key = "row_hashes"; key; key = key[1] == 'o' ? "run_hashes" : NULL) {
			char pat[64]; /* the fit's own (schema 19) */
			snprintf(pat, sizeof pat, ",\n    \"%s\": [", key);
			char *f = strstr(js, pat);
			if (f)
				memmove(f, strchr(f, ']') + 1, strlen(strchr(f, ']') + 1) + 1);
		}
		CHECK(write_text(v11, js) == 0);
		const char *hn11[] = { "wattcast", "validate", "heldout", "--params", v11, noted, NULL };
		CHECK(run_wattcast(hn11, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "noted.csv holds the rows the set was calibrated on (recalibrated as the set was, "
		                      "its 43 runs give the set's model terms): these errors are in-sample, not held out");
		run_result_free(&r);
		const char *ho11[] = { "wattcast", "validate", "heldout", "--params", v11, other, NULL };
		CHECK(run_wattcast(ho11, NULL, &r) == 0);
		CHECK_CONTAINS(r.err, "other.csv holds the rows the set was calibrated on (");
		CHECK_CONTAINS(r.err, "in-sample for the 43 row(s) on the levels and models it calibrated; its 204 others "
		                      "are held out");
		run_result_free(&r);
		free(js);
		free(v11);
		/* other measurements of the same boards and models: no warning */
		const char *ho4[] = { "wattcast", "validate", "heldout", "--params", cal, runs, NULL };
		CHECK(run_wattcast(ho4, NULL, &r) == 0);
		CHECK(!r.err || !strstr(r.err, "calibrated on"));
		run_result_free(&r);
		free(copy);
		free(noted);
		free(all);
		free(only);
		free(qwen);
		free(cal);
	}

	free(runs);
	free(other);
	free(set);
	free(iv);
	free(dir);
	return check_report("test_cli_in_sample");
}

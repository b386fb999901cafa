/*
 * What a set saw, found in any table that holds it (label realdata: the
 * PowerTrace-Sim runs and ML.ENERGY, read in place from ../shared;
 * docs/validation.md, "Frozen-law accuracy"):
 *  - pieces of a run (`ingest --segment`) whose other pieces a set was
 *    calibrated on were "held out" (3 of 7 pieces calibrated on: "its 4
 *    others are held out", 0.43 %), and a law fitted on pieces scored the
 *    same runs uncut as held out (law_in_sample 0, 7.77 %); the fit said
 *    "45 runs used" for 8 runs (its bootstrap: tests/test_fit_pieces_bootstrap.c);
 *  - validate fewshot calibrated on some pieces of a run and scored its
 *    other pieces (k = 1: 2.39 % against 11.85 % at k = 0);
 *  - a subset of the `measured` profile's own table (ML.ENERGY's 172 B200
 *    rows) was held out (law_in_sample 0): the fit now records its rows
 *    by content (schema 19, provenance row_hashes); an older file says it
 *    cannot tell;
 *  - the PowerTrace-Sim runs whose idle set the profile's A100 P0 were
 *    held out without a word (provenance idle_row_hashes).
 */
#include "tests/support/support.h"
#include "tests/support/run_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header and the rows of `text` holding `part` (and, when `seg` is
 * not NULL, one of its "#segN," tails) into `path`; how many rows. */
static int
pick(const char *text, const char *part, const char *const *seg, const char *path)
{
	char *out = calloc(1, strlen(text) + 1);
	int n = 0;
	size_t at = 0;
	for (const char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		size_t len = next ? (size_t)(next - line) : strlen(line);
		char row[4096] = "";
		memcpy(row, line, len < sizeof row - 1 ? len : sizeof row - 1);
		int keep = !strncmp(row, "run_id,", 7);
		if (!keep && row[0] != '#' && strstr(row, part)) {
			keep = !seg;
			for (int k = 0; seg && seg[k] && !keep; k++)
				keep = strstr(row, seg[k]) != NULL;
			n += keep;
		}
		if (keep) {
			memcpy(out + at, line, len);
			at += len;
		}
	}
	CHECK(write_text(path, out) == 0);
	free(out);
	return n;
}

static json_t *
heldout_json(const char *params_flag, const char *params, const char *table, char **err)
{
	const char *argv[] = { "wattcast", "validate", "heldout", params_flag, params, table, "--json", NULL };
	return test_run_json(argv, err);
}

/* every warning whole, within 255 bytes */
static void
check_warnings(const char *err)
{
	for (const char *w = err ? strstr(err, "warning: ") : NULL; w; w = strstr(w + 9, "warning: "))
		CHECK(strcspn(w + 9, "\n") <= 255 && strncmp(w + 9 + strcspn(w + 9, "\n") - 3, "...", 3) != 0);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *dir = test_tmpdir("real_fit_rows");
	char *pts = test_ingest_powertrace(shared, dir);
	char *runs = path_join(shared, "data/real/powertrace-sim");
	char *seg = path_join(dir, "seg.csv"), *h100 = path_join(dir, "seg_h100.csv"), *cal3 = path_join(dir, "seg_cal.csv");
	char *segcal = path_join(dir, "segcal.json"), *segfit = path_join(dir, "segfit.json");
	const char *ing[] = { "wattcast", "ingest", runs, "-o", seg, "--platform", "A100", "--tp", "1", "--model",
	                      "Qwen/Qwen3-8B", "--utc-offset", "-25200", "--segment", "10", "--quiet", NULL };
	test_run_ok(ing);
	char *segtext = test_slurp(seg);
	CHECK(segtext != NULL);
	CHECK_INT(pick(segtext, "h100_validate", NULL, h100), 7);
	const char *tails[] = { "#seg3,", "#seg4,", "#seg6,", NULL };
	CHECK_INT(pick(segtext, "h100_validate", tails, cal3), 3);

	/* 1a: three pieces calibrated on, the run's other four in-sample too */
	const char *cal[] = { "wattcast", "calibrate", "--profile", "paper", cal3, "-o", segcal, NULL };
	test_run_ok(cal);
	char *err = NULL;
	json_t *j = heldout_json("--params", segcal, h100, &err);
	CHECK(test_json_num(j, "calibration_in_sample") == 7);
	CHECK(test_json_num(j, "rows_in_sample") == 7);
	CHECK(err && !strstr(err, "held out (") && !strstr(err, "others are held out"));
	check_warnings(err);
	json_decref(j);
	free(err);

	/* 1b: a law fitted on pieces counts runs, and knows the runs uncut */
	const char *fit[] = { "wattcast", "fit", "inference", seg, "--profile", "paper", "-o", segfit,
	                      "--bootstrap", "0", NULL };
	char *said = test_run_said(fit);
	CHECK_CONTAINS(said, "8 runs (45 pieces) used");
	free(said);
	j = heldout_json("--params", segfit, pts, &err);
	CHECK(test_json_num(j, "law_in_sample") == 8);
	CHECK_CONTAINS(err, "run_hashes");
	check_warnings(err);
	json_decref(j);
	free(err);
	/* 2: fewshot groups by run: one run cut in 7 has nothing held out */
	const char *fs[] = { "wattcast", "validate", "fewshot", h100, "--profile", "measured", "--k", "1,3", "--json",
	                     NULL };
	run_result rr;
	CHECK(run_wattcast(fs, NULL, &rr) == 0);
	CHECK(rr.status != 0); /* before: k = 1 scored 4 pieces, 2.39 % */
	CHECK_CONTAINS(rr.err, "each of the 1 groups (model and level) has at most 1 runs");
	run_result_free(&rr);

	/* 3: a subset of the measured profile's own table is in-sample */
	char *ml = path_join(dir, "ml.csv"), *b200 = path_join(dir, "ml_b200.csv");
	char *src = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	const char *imp[] = { "wattcast", "import", "mlenergy", src, "-o", ml, NULL };
	test_run_ok(imp);
	char *mltext = test_slurp(ml);
	CHECK_INT(pick(mltext, ",B200,", NULL, b200), 172);
	j = heldout_json("--profile", "measured", b200, &err);
	CHECK(test_json_num(j, "law_in_sample") == 172);
	CHECK(test_json_num(j, "rows_in_sample") == 172);
	check_warnings(err);
	json_decref(j);
	free(err);
	/* a set of an older schema, which records no rows, cannot tell */
	char *old = path_join(dir, "old.json");
	char *t = test_slurp(segfit);
	CHECK(t != NULL);
	json_t *o = json_loads(t, 0, NULL);
	json_t *prov = json_object_get(o, "provenance");
	json_object_del(prov, "row_hashes");
	json_object_del(prov, "run_hashes");
	json_object_set_new(o, "schema", json_string("wattcast.params/19"));
	CHECK(json_dump_file(o, old, 0) == 0);
	json_decref(o);
	free(t);
	j = heldout_json("--params", old, pts, &err);
	CHECK_CONTAINS(err, "cannot be told");
	check_warnings(err);
	json_decref(j);
	free(err);

	/* 4: the runs whose idle set the measured A100 P0 */
	j = heldout_json("--profile", "measured", pts, &err);
	CHECK(test_json_num(j, "level_in_sample") > 0);
	CHECK_CONTAINS(err, "P0 of A100");
	check_warnings(err);
	json_decref(j);
	free(err);

	free(mltext);
	free(segtext);
	char *paths[] = { runs, seg, h100, cal3, segcal, segfit, ml, b200, src, old, pts, dir };
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		free(paths[i]);
	return check_report("test_real_fit_rows");
}

/*
 * A set whose capacity section was fitted on the very table it is scored
 * on scores it in-sample where that section enters the power: the
 * prefill-aware form's prefill share of each row (docs/inference-law.md,
 * "Prefill-aware form"), the prompt-share term's input length of a row
 * that gives none. `validate heldout --params cap.json pts.csv` on
 * PowerTrace-Sim (`fit capacity pts.csv --profile paper-prefill`) said
 * nothing and its JSON held law_in_sample, calibration_in_sample and
 * rows_in_sample 0, though the section's provenance named that table and
 * moved the replays from +1.2 / +10.8 % to -10.2 / -1.6 %. Now a warning,
 * `capacity_in_sample` and `rows_in_sample` say so, in validate heldout,
 * validate fewshot's base and fit intervals --folds frozen; a row the
 * section does not move (no output tokens: no prefill share) stays held
 * out, as does every row under the published form, and another table
 * (docs/validation.md, "Frozen-law accuracy").
 * The section fitted on several inputs (the `measured` profile's: runs,
 * ML.ENERGY, periods) has a fingerprint no one table has, so its rows
 * were never found: it records each runs-table row it used by platform
 * and run id (provenance run_hashes, schema 16), and the same runs in
 * another file are in-sample too.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARGS(...) ((const char *const[]){ "wattcast", __VA_ARGS__, NULL })

/* PowerTrace-Sim's rows as test_cli_capacity.c has them, three times each
 * (fit intervals needs 19 predictions), and a replay without tokens. */
static const char *const rows[7] = {
	"a1,A100,1,Qwen/Qwen3-8B,8.19,5.703,261.5,335.575,213.44,429.954,,",
	"a2,A100,1,Qwen/Qwen3-8B,8.19,6.049,275.7,335.575,213.44,452.028,,",
	"a3,A100,1,Qwen/Qwen3-8B,8.19,0.679,332.2,4605.25,99.25,60.485,0.32844,0.012626",
	"a4,A100,1,Qwen/Qwen3-8B,8.19,0.724,303.8,4435.33,118.667,67.455,0.33342,0.012628",
	"a5,A100,2,google/gemma-4-26B-A4B-it,4,7.569,421.6,354.85,194.23,578.58,,",
	"h1,H100,1,Qwen/Qwen3-8B,8.19,5.132,349.3,335.575,213.44,645.966,,",
	"a6,A100,1,Qwen/Qwen3-8B,8.19,8.075,251.4,335.575,213.44,570.291,,",
};

/* The table, `blank_input` rows (a1, a2, h1, a6) without input_tokens in
 * set w1 (the capacity fit estimates its length); other runs (ids x...)
 * with `blank_input`, `head` before the header. */
static char *
table(const char *dir, const char *name, int blank_input, const char *head)
{
	char text[4096];
	snprintf(text, sizeof text, "%srun_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
	         "output_tokens,throughput_tok_s,ttft_s,itl_s,set\n", head);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 7; i++) {
			const char *r = rows[i], *f7 = r;
			for (int c = 0; c < 7; c++) /* the start of input_tokens */
				f7 = strchr(f7, ',') + 1;
			const int blank = blank_input && (!strncmp(r, "a1", 2) || !strncmp(r, "a2", 2) ||
			                                  !strncmp(r, "h1", 2) || !strncmp(r, "a6", 2));
			size_t len = strlen(text);
			if (blank)
				snprintf(text + len, sizeof text - len, "x%.2sr%d%.*s%s,w1\n", r, k, (int)(f7 - r - 2), r + 2,
				         strchr(f7, ','));
			else
				snprintf(text + len, sizeof text - len, "%s%.2sr%d%s,w0\n", blank_input ? "x" : "", r, k, r + 2);
		}
	size_t len = strlen(text);
	snprintf(text + len, sizeof text - len, "s1,A100,1,Qwen/Qwen3-8B,8.19,1.058,178.3,,,,,,w0\n");
	return test_fixture(dir, name, text);
}

/* `validate heldout --params set runs --json`: its capacity_in_sample and
 * rows_in_sample into `cap` and `all` (-1 when absent); stderr into `err`. */
static void
heldout(const char *set, const char *runs, long *cap, long *all, char **err)
{
	run_result r;
	*cap = *all = -1;
	*err = NULL;
	if (run_wattcast(ARGS("validate", "heldout", "--params", set, runs, "--json"), NULL, &r) != 0)
		return;
	CHECK_INT(r.status, 0);
	json_t *j = r.out ? json_loads(r.out, 0, NULL) : NULL;
	CHECK(j != NULL);
	if (json_is_integer(json_object_get(j, "capacity_in_sample")))
		*cap = (long)json_integer_value(json_object_get(j, "capacity_in_sample"));
	if (json_is_integer(json_object_get(j, "rows_in_sample")))
		*all = (long)json_integer_value(json_object_get(j, "rows_in_sample"));
	CHECK(json_integer_value(json_object_get(j, "law_in_sample")) == 0);
	json_decref(j);
	*err = r.err ? strdup(r.err) : NULL;
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_capacity_in_sample");
	char *runs = table(dir, "pts.csv", 0, ""), *other = table(dir, "other.csv", 1, "");
	char *copy = table(dir, "copy.csv", 0, "# the same runs, other bytes\n");
	char *cap = path_join(dir, "cap.json"), *plain = path_join(dir, "plain.json"), *iv = path_join(dir, "iv.json");
	run_result r;
	long n_cap, n_rows;
	char *err;

	CHECK(run_wattcast(ARGS("fit", "capacity", runs, "--profile", "paper-prefill", "--bootstrap", "0", "-o", cap),
	                   NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	heldout(cap, runs, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 21); /* s1 has no output tokens: no prefill share */
	CHECK_INT(n_rows, 21);
	CHECK_CONTAINS(err, "wattcast validate heldout: warning: ");
	CHECK_CONTAINS(err, "pts.csv is the very table the set's capacity section was fitted on (its provenance "
	                    "capacity input_sha256 ");
	CHECK_CONTAINS(err, "): in-sample for the 21 row(s) whose prefill share it sets; its 1 others are held out\n");
	CHECK(err && strlen(strstr(err, "warning: ") + 9) <= 256);
	free(err);
	/* the same runs in another file: known by their run hashes, one per
	 * row the fit used (s1 gave no time), in a schema-16 file */
	json_t *f = json_load_file(cap, 0, NULL);
	CHECK(f && !strcmp(json_string_value(json_object_get(f, "schema")), "wattcast.params/19"));
	json_t *hashes = json_object_get(json_object_get(json_object_get(f, "capacity"), "provenance"), "run_hashes");
	CHECK_INT((int)json_array_size(hashes), 21);
	heldout(cap, copy, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 21);
	CHECK_INT(n_rows, 21);
	CHECK_CONTAINS(err, "copy.csv holds runs the set's capacity section was fitted on (its provenance capacity "
	                    "run_hashes): in-sample for the 21 row(s) whose prefill share it sets");
	free(err);
	/* ... which a /15 file may not carry */
	char *old = path_join(dir, "old.json");
	json_object_set_new(f, "schema", json_string("wattcast.params/15"));
	CHECK_INT(json_dump_file(f, old, JSON_INDENT(2)), 0);
	wc_params p15 = WC_PARAMS_INIT;
	wc_error e;
	CHECK(wc_params_load_file(old, &p15, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "/capacity/provenance/run_hashes: needs \"wattcast.params/16\" or later");
	wc_params_clear(&p15);
	/* one hash per run among the section's rows, each of a platform and
	 * run id: more than `rows` is refused at the list, file:line:column
	 * (until 2026-12-07 831 hashes beside 343 rows loaded without a word),
	 * and a bad one is not called a content hash */
	json_object_set_new(f, "schema", json_string("wattcast.params/16"));
	json_array_append_new(hashes, json_string("0000000000000001"));
	json_array_append_new(hashes, json_string("0000000000000002"));
	CHECK_INT(json_dump_file(f, old, JSON_INDENT(1)), 0);
	CHECK(wc_params_load_file(old, &p15, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "old.json:");
	CHECK_CONTAINS(e.msg, ": /capacity/provenance/run_hashes: holds 23 run hash(es) for the record's ");
	CHECK_CONTAINS(e.msg, " rows: at most one per row the fit used");
	wc_params_clear(&p15);
	json_array_remove(hashes, 22);
	json_array_set_new(hashes, 21, json_string("abc"));
	CHECK_INT(json_dump_file(f, old, JSON_INDENT(1)), 0);
	CHECK(wc_params_load_file(old, &p15, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "/capacity/provenance/run_hashes/21: expected 16 lowercase hex digits (the hash of a "
	                      "run's platform and run id)");
	wc_params_clear(&p15);
	json_array_remove(hashes, 21);
	json_object_set_new(f, "schema", json_string("wattcast.params/15"));
	/* without them it loads, as before, and knows the table by its bytes only */
	json_object_del(json_object_get(json_object_get(f, "capacity"), "provenance"), "run_hashes");
	CHECK_INT(json_dump_file(f, old, JSON_INDENT(2)), 0);
	heldout(old, copy, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 0);
	free(err);
	heldout(old, runs, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 21);
	free(err);
	json_decref(f);
	free(old);
	free(copy);

	/* another table: the section never saw it */
	heldout(cap, other, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 0);
	CHECK_INT(n_rows, 0);
	CHECK(!err || !strstr(err, "in-sample"));
	free(err);

	/* validate fewshot's base and fit intervals --folds frozen: the same check */
	CHECK(run_wattcast(ARGS("validate", "fewshot", runs, "--params", cap, "--k", "1", "--json"), NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: warning: ");
	CHECK_CONTAINS(r.err, "in-sample for the 21 row(s) whose prefill share it sets");
	CHECK_CONTAINS(r.out, "\"capacity_in_sample\": 21,");
	run_result_free(&r);
	CHECK(run_wattcast(ARGS("fit", "intervals", runs, "--params", cap, "--folds", "frozen", "-o", iv), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast fit intervals: warning: ");
	CHECK_CONTAINS(r.err, "in-sample for the 21 row(s) whose prefill share it sets");
	run_result_free(&r);

	/* The published form reads no prefill share: the same section, fitted
	 * on this table, moves no row's power, and nothing is in-sample. */
	CHECK(run_wattcast(ARGS("fit", "capacity", other, "--profile", "measured", "--bootstrap", "0", "-o", plain),
	                   NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	heldout(plain, other, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 0);
	CHECK_INT(n_rows, 0);
	CHECK(!err || !strstr(err, "in-sample"));
	free(err);
	/* ... unless the law has the prompt-share term: then the section's
	 * input length for w1 enters the 12 rows that give none. */
	json_t *o = json_load_file(plain, 0, NULL);
	CHECK(o != NULL);
	json_object_set_new(json_object_get(o, "shared"), "prompt_share",
	                    json_pack("{s:f, s:s}", "value", 0.5, "source", "fitted"));
	CHECK(json_dump_file(o, plain, JSON_INDENT(2)) == 0);
	json_decref(o);
	heldout(plain, other, &n_cap, &n_rows, &err);
	CHECK_INT(n_cap, 12);
	CHECK_INT(n_rows, 12);
	CHECK_CONTAINS(err, "other.csv is the very table the set's capacity section was fitted on");
	CHECK_CONTAINS(err, "in-sample for the 12 row(s) whose input length it sets; its 10 others are held out");
	free(err);

	free(runs);
	free(other);
	free(cap);
	free(plain);
	free(iv);
	free(dir);
	return check_report("test_cli_capacity_in_sample");
}

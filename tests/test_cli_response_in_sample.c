/*
 * validate envelope --response params knows the runs the response was
 * fitted on by their samples (response.provenance.run_hashes, schema 14;
 * docs/validation.md, "Envelopes"), not by the path string: a run under a
 * subfolder of the fit's folder, under the second folder of a two-folder
 * fit, or named by a relative path was scored as held out
 * (`response_in_sample` false, 0.07 % on a run the fit had seen) while the
 * note said such a run is scored in-sample. An older file without the
 * hashes keeps the path rule, and its note says so, by what the record
 * lacks (a /14 file calibrated from a /13 one lacks them too; the note
 * called it "older"), counting folders given as folders; a /13 file may
 * not carry them, and a /14 list names each run once.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_envelope.h"

#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* validate envelope on `dirs` (NULL-terminated, at most 3): its
 * response_in_sample, -1 when it failed; its stderr into `err`. */
static int
in_sample(const char *params, const char *const *dirs, char **err)
{
	const char *argv[24] = { "wattcast", "validate", "envelope", "--params", params };
	int k = 5;
	for (int i = 0; dirs[i] && i < 3; i++)
		argv[k++] = dirs[i];
	const char *tail[] = { "--platform", "A100", "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2",
		               "--json", NULL };
	for (int i = 0; tail[i]; i++)
		argv[k++] = tail[i];
	argv[k] = NULL;
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	json_t *j = r.status == 0 ? json_loads(r.out ? r.out : "", 0, NULL) : NULL;
	json_t *flag = json_object_get(j, "response_in_sample");
	int v = json_is_boolean(flag) ? json_is_true(flag) : -1;
	if (v < 0)
		fprintf(stderr, "  validate envelope %s: status %d: %s\n", dirs[0], r.status, r.err ? r.err : "");
	*err = strdup(r.err ? r.err : "");
	json_decref(j);
	run_result_free(&r);
	return v;
}

static void
expect(const char *params, const char *const *dirs, int flag, const char *said)
{
	char *err = NULL;
	CHECK_INT(in_sample(params, dirs, &err), flag);
	if (said)
		CHECK_CONTAINS(err, said);
	else
		CHECK(err && !strstr(err, "in-sample") && !strstr(err, "fitted on"));
	free(err);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_response_in_sample"), *fit = path_join(dir, "fit");
	char *fa = path_join(fit, "a"), *fb = path_join(fit, "b"), *other = path_join(dir, "other");
	mkdir(fit, 0755);
	mkdir(fa, 0755);
	mkdir(fb, 0755);
	mkdir(other, 0755);
	free(synth_envelope_run(fa, "r1", 0));
	free(synth_envelope_run(fa, "r2", 5));
	free(synth_envelope_run(fb, "r3", -5));
	free(synth_envelope_run(other, "r4", 12));
	char *out = path_join(dir, "resp.json");
	const char *fitv[] = { "wattcast", "fit", "response", fa, fb, "-o", out, "--platform", "A100", "--model",
		               "Qwen3-8B", "--utc-offset", "0", "--bootstrap", "0", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(fitv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	/* the runs by their samples, one per run */
	json_t *js = json_load_file(out, 0, NULL);
	json_t *prov = json_object_get(json_object_get(js, "response"), "provenance");
	CHECK_INT((int)json_array_size(json_object_get(prov, "run_hashes")), 3);
	CHECK(strcmp(json_string_value(json_object_get(js, "schema")), "wattcast.params/19") == 0);

	/* from inside the folder holding them: every path below is relative */
	char *base = strdup(dir), *name = basename(base), up[512];
	CHECK_INT(chdir(dir), 0);
	snprintf(up, sizeof up, "../%s/fit/a", name);
	const char *sub[] = { "fit/a/r1", NULL }, *second[] = { "fit/b", NULL }, *rel[] = { up, NULL },
		   *mixed[] = { "fit/a/r2", "other", NULL }, *held[] = { "other/r4", NULL };
	const char *all = "warning: the response of the parameter set was fitted on these runs";
	expect(out, sub, 1, all);    /* a subfolder of the fit's first folder */
	expect(out, second, 1, all); /* the second folder, which fitted_on names as "and 1 more" or after ", " */
	expect(out, rel, 1, all);    /* the fit's folder by another path */
	expect(out, mixed, 1, "warning: 1 of the 2 runs (first r2) are among those the response");
	expect(out, held, 0, NULL);  /* a run it did not see: held out, nothing said */

	/* An older file has no hashes: the path rule, and the note says what
	 * it cannot see. */
	char *old = path_join(dir, "old.json");
	json_object_del(prov, "run_hashes");
	json_object_set_new(js, "schema", json_string("wattcast.params/13"));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	expect(old, sub, 0, "its record has no run hashes, only its inputs' paths: the same runs under another path "
	                    "are not recognised");
	/* A /14 file may lack them too (calibrated from a /13 one): the note
	 * says what its record lacks, not that the file is older. */
	json_object_set_new(js, "schema", json_string("wattcast.params/14"));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	char *said = NULL;
	CHECK_INT(in_sample(old, sub, &said), 0);
	CHECK_CONTAINS(said, "its record has no run hashes");
	CHECK(said && !strstr(said, "older"));
	free(said);
	/* By path, the inputs given are folders: counted as folders, the
	 * first named as one (they were counted as runs). */
	const char *two[] = { fa, other, NULL };
	json_object_set_new(js, "schema", json_string("wattcast.params/13"));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	expect(old, two, 1, "warning: 1 of the 2 folders given (first ");
	/* A record that kept its first input only ("X and 1 more"): the
	 * second folder given exactly as fitted is not found, and the note
	 * says so rather than "under another path". */
	char label[1024];
	snprintf(label, sizeof label, "%s and 1 more (2 inputs)", fa);
	json_object_set_new(prov, "fitted_on", json_string(label));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	const char *second_abs[] = { fb, NULL };
	expect(old, second_abs, 0, "its record has no run hashes and names only its first input by path: the others' "
	                           "runs are not recognised, however given");
	/* ... and may not carry them */
	json_object_set_new(prov, "run_hashes", json_pack("[sss]", "0000000000000001", "0000000000000002",
	                                                  "0000000000000003"));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	wc_params p = WC_PARAMS_INIT;
	wc_error e;
	CHECK(wc_params_load_file(old, &p, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "/response/provenance/run_hashes: needs \"wattcast.params/14\" or later");
	wc_params_clear(&p);
	/* A /14 list repeating a run is refused naming the entry (it loaded);
	 * one whose section lacks `runs` says so (it said "the record's 0
	 * runs"). */
	json_object_set_new(js, "schema", json_string("wattcast.params/14"));
	json_object_set_new(prov, "run_hashes", json_pack("[sss]", "0000000000000001", "0000000000000002",
	                                                  "0000000000000001"));
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	CHECK(wc_params_load_file(old, &p, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "/response/provenance/run_hashes/2: '0000000000000001' repeats entry 0: each run is "
	                      "listed once");
	wc_params_clear(&p);
	json_object_del(json_object_get(js, "response"), "runs");
	CHECK_INT(json_dump_file(js, old, JSON_INDENT(2)), 0);
	CHECK(wc_params_load_file(old, &p, &e) != WC_OK);
	CHECK_CONTAINS(e.msg, "/response/provenance/run_hashes: holds 3 run hash(es), one per run, but the section's "
	                      "`runs` they count is missing: give `runs`");
	CHECK(strlen(e.msg) <= 255);
	wc_params_clear(&p);
	json_decref(js);
	free(old);
	free(base);
	free(out);
	free(fa);
	free(fb);
	free(other);
	free(fit);
	free(dir);
	return check_report("test_cli_response_in_sample");
}

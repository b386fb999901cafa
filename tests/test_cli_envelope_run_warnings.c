/*
 * validate envelope judges the load each replay ran as `envelope
 * --measured` does (docs/validation.md, "Envelopes"): the A100 smoke
 * replay's `mean_running: load 1.03 is outside the calibrated span 7.9-256
 * on A100`, on the run with a -32 % error of the mean. Those lines reached
 * only the --per-run rows' warnings; the text and the JSON runs[] had none.
 * Each run's JSON now has `warnings` (the lines its rows carry, less the
 * report's own notes), and the text says each line once under the table,
 * with the runs it applies to ("all N runs" when every run says it).
 */
#include "tests/support/support.h"
#include "tests/support/synth_envelope.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void
validate(const char *set, const char *a, const char *b, const char *per_run, int json, run_result *r)
{
	const char *argv[24] = { "wattcast", "validate", "envelope", "--params", set, a, "--platform", "A100",
		                 "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2", "--quiet",
		                 "--per-run", per_run };
	int n = 17;
	if (b)
		argv[n++] = b;
	if (json)
		argv[n++] = "--json";
	argv[n] = NULL;
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	CHECK_INT(r->status, 0);
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *at = hay ? strstr(hay, needle) : NULL; at; at = strstr(at + 1, needle))
		n++;
	return n;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_run_warnings");
	char *a = path_join(dir, "a"), *b = path_join(dir, "b"), *set = path_join(dir, "paper.json");
	char *csv = path_join(dir, "per_run.csv");
	mkdir(a, 0755);
	mkdir(b, 0755);
	free(synth_envelope_run(a, "r1", 0));
	free(synth_envelope_run(b, "r4", 12));
	test_run_ok((const char *[]){ "wattcast", "profile", "export", "paper", "-o", set, NULL });

	/* one run: its JSON warnings are its rows' lines, the load's among them */
	run_result r;
	validate(set, a, NULL, csv, 1, &r);
	json_t *rep = json_loads(r.out ? r.out : "", 0, NULL);
	json_t *run = json_array_get(json_object_get(rep, "runs"), 0);
	json_t *said = json_object_get(run, "warnings");
	const char *id = json_string_value(json_object_get(run, "run_id"));
	CHECK(json_is_array(said) && json_array_size(said) >= 1);
	char *rows = test_slurp(csv);
	int load = 0;
	for (size_t k = 0; k < json_array_size(said); k++) {
		const char *w = json_string_value(json_array_get(said, k));
		CHECK(w && rows && strstr(rows, w)); /* the same line as the rows' */
		load += w && strncmp(w, "mean_running: load 0.427 is outside the calibrated span", 55) == 0;
	}
	CHECK_INT(load, 1);
	/* the report's own note on the replay is in its header, not here */
	CHECK(!strstr(r.out, "\"the replay draws nothing at random"));
	run_result_free(&r);

	/* the text says it under the table, naming the run */
	validate(set, a, NULL, csv, 0, &r);
	char line[512];
	snprintf(line, sizeof line, "\nwarning: %s: mean_running: load 0.427 is outside the calibrated span",
	         id ? id : "?");
	CHECK_CONTAINS(r.out, line);
	CHECK(r.out && strstr(r.out, line) > strstr(r.out, "law_level\n"));
	CHECK(r.out && strstr(r.out, line) < strstr(r.out, "median |error|"));
	run_result_free(&r);
	json_decref(rep);
	free(rows);

	/* two runs saying the same lines: each said once, for both */
	validate(set, a, b, csv, 0, &r);
	CHECK_INT((int)count(r.out, "mean_running: load 0.427"), 1);
	CHECK_INT((int)count(r.out, "max_running: the KV cache holds"), 1);
	CHECK_CONTAINS(r.out, "\nwarning: all 2 runs: mean_running: load 0.427 is outside the calibrated span");
	run_result_free(&r);
	validate(set, a, b, csv, 1, &r);
	rep = json_loads(r.out ? r.out : "", 0, NULL);
	for (size_t i = 0; i < 2; i++) {
		json_t *w = json_object_get(json_array_get(json_object_get(rep, "runs"), i), "warnings");
		CHECK(json_array_size(w) >= 1);
	}
	json_decref(rep);
	run_result_free(&r);

	free(csv);
	free(a);
	free(b);
	free(set);
	free(dir);
	return check_report("test_cli_envelope_run_warnings");
}

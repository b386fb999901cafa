/*
 * validate envelope replays each run with service times from the set's
 * capacity section; where that section was fitted on the run itself, the
 * run's n(t) is in-sample. `validate envelope --profile measured` on the
 * PowerTrace-Sim runs (14.04 % zero-shot) took A100 service times fitted
 * on 11 rows, 6 of them the runs scored, and said nothing: every run
 * read service_times=capacity. The section now records the runs it was
 * fitted on (provenance run_hashes, schema 16) and the replay of one of
 * them says service_times "capacity (in-sample)", the JSON counts them
 * (capacity_in_sample) and a warning names the first, remedy first
 * (docs/validation.md, "Envelopes"); the other runs stay held out. A
 * section fitted on a run's segments (`<run>#seg<k>`) knows the run.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_envelope.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* validate envelope --params `params` on folders a and b (--json): the
 * report, stderr into `err`. */
static json_t *
envelope(const char *params, const char *a, const char *b, char **err)
{
	const char *argv[] = { "wattcast", "validate", "envelope", "--params", params, a, b, "--platform", "A100",
		               "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = r.status == 0 ? json_loads(r.out ? r.out : "", 0, NULL) : NULL;
	*err = strdup(r.err ? r.err : "");
	run_result_free(&r);
	return j;
}

static const char *
run_field(json_t *rep, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(rep, "runs"), i), key));
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_capacity_in_sample");
	char *a = path_join(dir, "a"), *b = path_join(dir, "b"), *set = path_join(dir, "paper.json");
	mkdir(a, 0755);
	mkdir(b, 0755);
	free(synth_envelope_run(a, "r1", 0));
	free(synth_envelope_run(b, "r4", 12));
	const char *exp[] = { "wattcast", "profile", "export", "paper", "-o", set, NULL };
	run_result r;
	CHECK_INT(run_wattcast(exp, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	/* a section that records no run: both held out, nothing said */
	char *err = NULL;
	json_t *rep = envelope(set, a, b, &err);
	CHECK(rep != NULL);
	CHECK_INT((int)json_integer_value(json_object_get(rep, "capacity_in_sample")), 0);
	CHECK(!strcmp(run_field(rep, 0, "service_times") ? run_field(rep, 0, "service_times") : "", "capacity"));
	CHECK(err && !strstr(err, "in-sample"));
	char id[256];
	snprintf(id, sizeof id, "%s", run_field(rep, 0, "run_id") ? run_field(rep, 0, "run_id") : "");
	json_decref(rep);
	free(err);

	/* the section fitted on r1: its replay is in-sample, r4's is not */
	json_t *js = json_load_file(set, 0, NULL);
	json_t *prov = json_object_get(json_object_get(js, "capacity"), "provenance");
	CHECK(prov != NULL);
	char hex[17];
	snprintf(hex, sizeof hex, "%016" PRIx64, wc_run_id_hash("A100", id));
	json_object_set_new(prov, "run_hashes", json_pack("[s]", hex));
	CHECK_INT(json_dump_file(js, set, JSON_INDENT(2)), 0);
	json_decref(js);
	rep = envelope(set, a, b, &err);
	CHECK(rep != NULL);
	CHECK_INT((int)json_integer_value(json_object_get(rep, "capacity_in_sample")), 1);
	CHECK(!strcmp(run_field(rep, 0, "service_times") ? run_field(rep, 0, "service_times") : "",
	              "capacity (in-sample)"));
	CHECK(!strcmp(run_field(rep, 1, "service_times") ? run_field(rep, 1, "service_times") : "", "capacity"));
	CHECK(!strcmp(json_string_value(json_object_get(rep, "service_times")), "mixed"));
	CHECK_CONTAINS(err, "wattcast validate envelope: warning: give --params a set whose capacity section was "
	                    "fitted without them for held-out service times: 1 of the 2 runs (first ");
	CHECK_CONTAINS(err, ") are among those the capacity section was fitted on (its run_hashes): their n(t) is "
	                    "in-sample\n");
	const char *w = err ? strstr(err, "wattcast validate envelope: warning: give") : NULL;
	CHECK(w && strcspn(w, "\n") <= 255);
	json_decref(rep);
	free(err);

	/* a section fitted on r1's segments (`ingest --segment`, rows
	 * `<id>#seg<k>`) knows r1 replayed whole: a segment is its run's
	 * (wc_run_id_hash). Until 2026-12-07 its hashes were the segments'
	 * own, and both runs read held out */
	char *tab = path_join(dir, "seg.csv");
	const char *ing[] = { "wattcast", "ingest", a, "-o", tab, "--platform", "A100", "--tp", "1", "--model",
		              "Qwen3-8B", "--utc-offset", "0", "--segment", "5", "--quiet", NULL };
	CHECK_INT(run_wattcast(ing, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(tab, &t, NULL), WC_OK);
	const char *seg = t && t->n_runs > 1 ? t->runs[1].run_id : "";
	CHECK(!strncmp(seg, id, strlen(id)) && !strcmp(seg + strlen(id), "#seg2"));
	js = json_load_file(set, 0, NULL);
	prov = json_object_get(json_object_get(js, "capacity"), "provenance");
	snprintf(hex, sizeof hex, "%016" PRIx64, wc_run_id_hash("A100", seg));
	json_object_set_new(prov, "run_hashes", json_pack("[s]", hex));
	CHECK_INT(json_dump_file(js, set, JSON_INDENT(2)), 0);
	json_decref(js);
	wc_runs_free(t);
	rep = envelope(set, a, b, &err);
	CHECK(rep != NULL);
	CHECK_INT((int)json_integer_value(json_object_get(rep, "capacity_in_sample")), 1);
	CHECK(!strcmp(run_field(rep, 0, "service_times") ? run_field(rep, 0, "service_times") : "",
	              "capacity (in-sample)"));
	CHECK(!strcmp(run_field(rep, 1, "service_times") ? run_field(rep, 1, "service_times") : "", "capacity"));
	json_decref(rep);
	free(err);
	free(tab);

	free(a);
	free(b);
	free(set);
	free(dir);
	return check_report("test_cli_envelope_capacity_in_sample");
}

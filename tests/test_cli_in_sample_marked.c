/*
 * A row marked `exclude` after the fit is no reason to call the table's
 * other rows held out (docs/validation.md, "Frozen-law accuracy"): the
 * ML.ENERGY table with one of its 325 rows marked scored the `measured`
 * profile's own rows as held out (law_in_sample 0, no warning; 325
 * without the mark), since the in-sample check refitted the 324 unmarked
 * rows. A table that does not refit to the set as marked is now refitted
 * with its marks ignored: here a set fitted on an unmarked table, scored
 * on it with one row marked, is in-sample for every row the fit used,
 * and the warning says the marked row is among them; another table
 * marked alike stays held out.
 */
#include "data/data.h"
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `seed`'s simulated table with every mark cleared, then (mark >= 0)
 * row `mark` marked, written to `out`. */
static void
table(const char *dir, const char *seed, long mark, const char *out)
{
	char *sim = path_join(dir, "sim.csv");
	test_run_ok((const char *[]){ "wattcast", "simulate", "inference", "--seed", seed, "-o", sim, NULL });
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(sim, &t, &err), WC_OK);
	for (size_t i = 0; t && i < t->n_runs; i++)
		t->runs[i].exclude[0] = '\0';
	if (t && mark >= 0)
		snprintf(t->runs[mark].exclude, sizeof t->runs[mark].exclude, "suspect meter");
	CHECK_INT(t ? wc_runs_write(out, t, NULL, &err) : WC_EINVAL, WC_OK);
	wc_runs_free(t);
	free(sim);
}

/* The command's JSON report (--json), stderr into *said. */
static json_t *
report(const char *what, const char *set, const char *runs, char **said)
{
	const char *argv[] = { "wattcast", "validate", what, "--params", set, runs, "--json", NULL };
	return test_run_json(argv, said);
}

static long
field(const json_t *j, const char *key)
{
	return (long)json_integer_value(json_object_get(j, key));
}

int
main(void)
{
	char *dir = test_tmpdir("cli_in_sample_marked");
	char *plain = path_join(dir, "plain.csv"), *marked = path_join(dir, "marked.csv");
	char *other = path_join(dir, "other.csv"), *set = path_join(dir, "set.json");
	table(dir, "3", -1, plain);
	table(dir, "3", 0, marked);
	table(dir, "4", 0, other);
	test_run_ok((const char *[]){ "wattcast", "fit", "inference", plain, "-o", set, "--bootstrap", "0", NULL });

	char *said;
	json_t *j = report("heldout", set, plain, &said);
	const long fitted = field(j, "law_in_sample");
	CHECK(fitted > 100);
	json_decref(j);
	free(said);

	/* one row marked: the same rows in-sample, the marked one among them */
	const char *each[] = { "heldout", "fewshot" };
	for (int k = 0; k < 2; k++) {
		j = report(each[k], set, marked, &said);
		CHECK_INT(field(j, "law_in_sample"), fitted);
		CHECK_INT(field(j, "rows_in_sample"), fitted);
		/* schema 19: the marked row's content is among the fit's row hashes */
		CHECK_CONTAINS(said, "marked.csv holds 225 row(s) of the 225 runs the set was fitted on (its provenance "
		                     "row_hashes): ");
		CHECK(strlen(strstr(said, "warning: ") + 9) <= 256);
		json_decref(j);
		free(said);
	}

	/* other runs marked alike are held out: nothing said */
	j = report("heldout", set, other, &said);
	CHECK_INT(field(j, "law_in_sample"), 0);
	CHECK(!strstr(said, "in-sample"));
	json_decref(j);
	free(said);

	free(plain);
	free(marked);
	free(other);
	free(set);
	free(dir);
	return check_report("test_cli_in_sample_marked");
}

/*
 * `fit intervals` with folds other than `platform` measures the pooled and
 * per-platform strata only; the set's `datasheet` stratum (each platform
 * left out) is no fold of theirs and stays, as `--folds platform` keeps the
 * strata it does not replace (docs/intervals.md, "Strata"). It was
 * dropped without a word: cli.md's own `--profile paper --folds frozen`
 * answered a B200 or an L40S with the fitted levels' error, the L40S's
 * lower end 180.2 -> 212.8 W. And a datasheet board answered with a
 * fitted level's error says so, as the capacity answer does
 * (docs/intervals.md, "Capacity levels from a datasheet").
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* Strata of the file's prediction_error with source `source`. */
static int
strata_of(const char *path, const char *source)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	CHECK(root != NULL);
	const json_t *strata = json_object_get(json_object_get(root, "prediction_error"), "strata");
	int n = 0;
	for (size_t i = 0; i < json_array_size(strata); i++) {
		const char *s = json_string_value(json_object_get(json_array_get(strata, i), "source"));
		n += s && strcmp(s, source) == 0;
	}
	json_decref(root);
	return n;
}

/* The L40S answer (a datasheet transfer in every set here). */
static char *
answer_l40s(const char *params)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--params", params, "--platform", "L40S",
		               "--model", "Qwen3-8B", "--concurrency", "16", "--json", NULL };
	return test_run_said(argv);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_datasheet_kept");
	char *sim = path_join(dir, "sim.csv"), *base = path_join(dir, "paper.json"), *out = path_join(dir, "p.json");
	char *set = path_join(dir, "set.json"), *fpe = path_join(dir, "fpe.json"), *ds = path_join(dir, "ds.json");
	const char *make[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", sim, NULL };
	test_run_ok(make);
	const char *exp[] = { "wattcast", "profile", "export", "paper", "-o", base, NULL };
	test_run_ok(exp);
	CHECK_INT(strata_of(base, "datasheet"), 1);

	/* --folds frozen on the paper profile: its datasheet stratum stays,
	 * said on stdout, and the L40S answer still names the transfer. */
	const char *frozen[] = { "wattcast", "fit", "intervals", sim, "--profile", "paper", "--folds", "frozen",
		                 "-o", out, NULL };
	char *said = test_run_said(frozen);
	CHECK_CONTAINS(said, "  kept the set's datasheet stratum (n 325, q 0.5548; --folds platform measures it again)");
	free(said);
	CHECK_INT(strata_of(out, "datasheet"), 1);
	said = answer_l40s(out);
	CHECK_CONTAINS(said, "\"covers\": \"held-out error of mean power of datasheet transfers\"");
	CHECK(!strstr(said, "no held-out error of datasheet power levels"));
	free(said);

	/* A fitted set with no datasheet stratum: its L40S answer is widened
	 * by the fitted levels' error, and says it is not the transfer's. */
	const char *fit[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "0", "-o", set, "--quiet", NULL };
	test_run_ok(fit);
	const char *iv[] = { "wattcast", "fit", "intervals", sim, "--params", set, "--folds", "frozen", "-o", fpe,
		             NULL };
	said = test_run_said(iv);
	CHECK(!strstr(said, "kept the set's"));
	free(said);
	CHECK_INT(strata_of(fpe, "datasheet"), 0);
	said = answer_l40s(fpe);
	CHECK_CONTAINS(said, "interval_95: the parameter set has no held-out error of datasheet power levels; the "
	                     "intervals of mean power cover held-out models on fitted levels, not this transfer "
	                     "(docs/intervals.md)");
	free(said);

	/* Its own datasheet stratum (--folds platform), then --folds model:
	 * the model folds replace the pooled stratum and keep that one. */
	const char *plat[] = { "wattcast", "fit", "intervals", sim, "--params", fpe, "--folds", "platform", "-o", ds,
		               NULL };
	test_run_ok(plat);
	CHECK_INT(strata_of(ds, "datasheet"), 1);
	const char *model[] = { "wattcast", "fit", "intervals", sim, "--params", ds, "-o", out, NULL };
	said = test_run_said(model);
	CHECK_CONTAINS(said, "(folds: model)");
	CHECK_CONTAINS(said, "  kept the set's datasheet stratum (n ");
	free(said);
	CHECK_INT(strata_of(out, "datasheet"), 1);
	said = answer_l40s(out);
	CHECK_CONTAINS(said, "of datasheet transfers\"");
	CHECK(!strstr(said, "no held-out error of datasheet power levels"));
	free(said);

	free(sim);
	free(base);
	free(out);
	free(set);
	free(fpe);
	free(ds);
	free(dir);
	return check_report("test_cli_intervals_datasheet_kept");
}

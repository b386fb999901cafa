/*
 * `validate heldout` of a set whose prediction_error was measured frozen
 * on the very runs it scores (`fit intervals --folds frozen`, and
 * `--folds platform` for the datasheet stratum) reported the interval
 * coverage as held out, with no warning: the quantile is the k-th
 * smallest of these residuals, so the coverage is true by construction
 * (the `paper` profile on ML.ENERGY: 147 of 153). Now it warns, naming
 * `validate lomo` (docs/validation.md, "Frozen-law accuracy"); the same
 * rows re-sorted behind a comment warn too, another table does not.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *in_sample = "coverage in-sample: the interval's quantile was computed on these rows (they give ";

static void
heldout(const char *set, const char *runs, int datasheet, const char *want)
{
	run_result r;
	const char *plain[] = { "wattcast", "validate", "heldout", "--params", set, runs, NULL };
	const char *sheet[] = { "wattcast", "validate", "heldout", "--params", set, "--datasheet", runs, NULL };
	CHECK(run_wattcast(datasheet ? sheet : plain, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (want) {
		CHECK_CONTAINS(r.err, "wattcast validate heldout: warning: ");
		CHECK_CONTAINS(r.err, in_sample);
		CHECK_CONTAINS(r.err, want);
		CHECK_CONTAINS(r.err, " again); `validate lomo` is the held-out check\n");
		const char *msg = r.err ? strstr(r.err, "warning: ") : NULL;
		CHECK(msg && strlen(msg + 9) <= 256); /* the message, its newline aside */
	} else {
		CHECK(!r.err || !strstr(r.err, "coverage in-sample"));
	}
	run_result_free(&r);
}

/* validate fewshot of the frozen set on `runs`: its k = 0 column is
 * validate heldout's on the same rows, and its coverage in-sample the
 * same way; fewshot said nothing, in its text or its JSON. */
static void
fewshot(const char *set, const char *runs, const char *want)
{
	run_result r;
	const char *text[] = { "wattcast", "validate", "fewshot", runs, "--params", set, "--k", "1", NULL };
	const char *json[] = { "wattcast", "validate", "fewshot", runs, "--params", set, "--k", "1", "--json", NULL };
	CHECK(run_wattcast(text, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (want) {
		CHECK_CONTAINS(r.err, "wattcast validate fewshot: warning: ");
		CHECK_CONTAINS(r.err, in_sample);
		CHECK_CONTAINS(r.err, want);
	} else {
		CHECK(!r.err || !strstr(r.err, "coverage in-sample"));
	}
	run_result_free(&r);
	CHECK(run_wattcast(json, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, want ? "\"coverage_in_sample\": true" : "\"coverage_in_sample\": false");
	run_result_free(&r);
}

/* validate heldout --json of `set` on `runs`: its coverage_in_sample. */
static void
heldout_json(const char *set, const char *runs, int in)
{
	run_result r;
	const char *json[] = { "wattcast", "validate", "heldout", "--params", set, runs, "--json", NULL };
	CHECK(run_wattcast(json, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, in ? "\"coverage_in_sample\": true" : "\"coverage_in_sample\": false");
	run_result_free(&r);
}

/* `s` with every `from` as `to` (same length), a copy. */
static char *
every_replaced(const char *s, const char *from, const char *to)
{
	char *o = strdup(s);
	for (char *at = o ? strstr(o, from) : NULL; at; at = strstr(at + strlen(to), from))
		memcpy(at, to, strlen(to));
	return o;
}

static void
run_ok(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_interval_in_sample");
	char *runs = path_join(dir, "sim.csv"), *other = path_join(dir, "other.csv");
	char *set = path_join(dir, "set.json"), *moved = path_join(dir, "moved.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "3", "-o", runs, NULL };
	const char *sim2[] = { "wattcast", "simulate", "inference", "--seed", "4", "-o", other, NULL };
	run_ok(sim);
	run_ok(sim2);
	/* the published law's frozen error on the simulated runs: the paper
	 * profile never saw them, but its stored quantile now has */
	const char *fz[] = { "wattcast", "fit", "intervals", runs, "--profile", "paper", "--folds", "frozen", "-o", set,
		             NULL };
	run_ok(fz);
	heldout(set, runs, 0, "the set's frozen q 0.057 from 247 runs");
	heldout(set, other, 0, NULL);
	heldout_json(set, runs, 1);
	heldout_json(set, other, 0);
	fewshot(set, runs, "the set's frozen q 0.057 from 247 runs again); `validate lomo` is the held-out check\n");
	fewshot(set, other, NULL);
	/* the built-in profile itself: its quantile is ML.ENERGY's, not these */
	{
		run_result r;
		const char *pp[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, NULL };
		CHECK(run_wattcast(pp, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK(!r.err || !strstr(r.err, "coverage in-sample"));
		run_result_free(&r);
	}

	/* Other bytes, the same runs: a comment line and the rows reversed
	 * give the same residuals, so the same quantile. */
	char *text = test_slurp(runs);
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
	heldout(set, moved, 0, "the set's frozen q 0.057 from 247 runs");

	/* A board the set has no level for, scored by its datasheet transfer
	 * (`--datasheet`): the H200 rows as a B200's. Its datasheet stratum
	 * was measured leaving each platform out on these rows, so their
	 * coverage is in-sample too; without --datasheet only the frozen
	 * stratum's rows are scored. */
	char *b200 = path_join(dir, "b200.csv"), *sheet = path_join(dir, "sheet.json");
	char *renamed = every_replaced(text, ",H200,", ",B200,");
	CHECK(renamed && strstr(renamed, ",B200,") && write_text(b200, renamed) == 0);
	free(renamed);
	const char *fb[] = { "wattcast", "fit", "intervals", b200, "--profile", "paper", "--folds", "frozen", "-o", sheet,
		             NULL };
	const char *fp[] = { "wattcast", "fit", "intervals", b200, "--params", sheet, "--folds", "platform", "-o", sheet,
		             NULL };
	run_ok(fb);
	run_ok(fp);
	heldout(sheet, b200, 1, "the set's frozen q 0.057 from 165 runs and datasheet q 0.247 from 237");
	heldout(sheet, b200, 0, "the set's frozen q 0.057 from 165 runs again");
	heldout(sheet, other, 1, NULL);

	free(b200);
	free(sheet);
	free(rev);
	free(text);
	free(moved);
	free(runs);
	free(other);
	free(set);
	free(dir);
	return check_report("test_cli_interval_in_sample");
}

/*
 * validate envelope --json gives each run its predictive 95 % interval of
 * the mean and p95 under the names its --per-run rows carry them
 * (interval_95_lo, interval_95_hi; docs/validation.md, "Envelopes") with
 * the same values (to the report's 6 significant digits), and what it covers: the JSON's coverage_mean_pct and
 * coverage_p95_pct recount from the JSON alone. Until 2026-12-07 runs[]
 * had no interval, and only the CSV let anyone check the coverage.
 */
#include "tests/support/support.h"

#include "tests/support/synth_envelope.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Cell `col` of CSV line `line` (no quoted cell before it), as a number;
 * NaN when blank. */
static double
cell_number(const char *line, int col)
{
	const char *cell = line;
	for (int c = 0; c < col && cell; c++) {
		cell = strchr(cell, ',');
		cell = cell ? cell + 1 : NULL;
	}
	if (!cell || *cell == ',' || *cell == '\0')
		return NAN;
	return strtod(cell, NULL);
}

/* The per-run row of run `id` and metric `quantity`'s column `name`. */
static double
per_run(const char *csv, const char *id, const char *quantity, const char *name)
{
	size_t head_len = strcspn(csv, "\n");
	char head[2048];
	snprintf(head, sizeof head, "%.*s", (int)head_len, csv);
	int col = test_csv_column(head, name), qcol = test_csv_column(head, "quantity");
	CHECK(col > 0 && qcol > 0);
	char key[256];
	snprintf(key, sizeof key, "%s,", id);
	for (const char *line = csv + head_len + 1; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		if (strncmp(line, key, strlen(key)) != 0)
			continue;
		const char *q = line;
		for (int c = 0; c < qcol && q; c++) {
			q = strchr(q, ',');
			q = q ? q + 1 : NULL;
		}
		if (q && strncmp(q, quantity, strlen(quantity)) == 0 && q[strlen(quantity)] == ',')
			return cell_number(line, col);
	}
	CHECK(!"row found");
	return NAN;
}

static double
number_of(const json_t *o, const char *key, const char *metric)
{
	return json_number_value(json_object_get(json_object_get(o, key), metric));
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_json_interval");
	char *folders[3], *pr = path_join(dir, "pr.csv");
	static const char *const names[] = { "a", "b", "c" }, *const ids[] = { "r1", "r2", "r3" };
	static const double offsets[] = { 0, 40, -30 };
	for (int k = 0; k < 3; k++) {
		folders[k] = path_join(dir, names[k]);
		mkdir(folders[k], 0755);
		free(synth_envelope_run(folders[k], ids[k], offsets[k]));
	}
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", "paper", folders[0], folders[1],
		               folders[2], "--platform", "A100", "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas",
		               "2", "--per-run", pr, "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	char *csv = test_slurp(pr);
	CHECK(csv != NULL);
	const json_t *runs = json_object_get(j, "runs");
	CHECK_INT((int)json_array_size(runs), 3);
	int in_mean = 0, in_p95 = 0, with = 0;
	for (size_t i = 0; csv && i < json_array_size(runs); i++) {
		const json_t *run = json_array_get(runs, i);
		const char *id = json_string_value(json_object_get(run, "run_id"));
		CHECK(id != NULL);
		if (!id)
			continue;
		static const char *const metrics[] = { "mean_w", "p95_w" };
		for (int m = 0; m < 2; m++) {
			const double lo = number_of(run, "interval_95_lo", metrics[m]);
			const double hi = number_of(run, "interval_95_hi", metrics[m]);
			/* the paper profile has a held-out error of mean power: every
			 * run has an interval */
			CHECK(isfinite(lo) && isfinite(hi) && lo < hi);
			const double clo = per_run(csv, id, metrics[m], "interval_95_lo");
			const double chi = per_run(csv, id, metrics[m], "interval_95_hi");
			/* the report prints 6 significant digits, the CSV 10 */
			CHECK_NEAR(lo, clo, 5e-6 * fabs(clo));
			CHECK_NEAR(hi, chi, 5e-6 * fabs(chi));
		}
		/* the other metrics have none, in the CSV as in the JSON */
		CHECK(isnan(per_run(csv, id, "p5_w", "interval_95_lo")));
		CHECK(json_object_get(json_object_get(run, "interval_95_lo"), "p5_w") == NULL);
		const char *covers = json_string_value(json_object_get(run, "interval_95_covers"));
		CHECK(covers && strstr(covers, "the law's held-out error of mean power (prediction_error); not the "
		                                "Monte-Carlo spread over replicas"));
		with++;
		const double mean = number_of(run, "measured", "mean_w"), p95 = number_of(run, "measured", "p95_w");
		in_mean += mean >= number_of(run, "interval_95_lo", "mean_w") && mean <= number_of(run, "interval_95_hi", "mean_w");
		in_p95 += p95 >= number_of(run, "interval_95_lo", "p95_w") && p95 <= number_of(run, "interval_95_hi", "p95_w");
	}
	CHECK_INT(with, 3);
	CHECK_INT((int)json_integer_value(json_object_get(j, "runs_with_interval")), with);
	CHECK_NEAR(json_number_value(json_object_get(j, "coverage_mean_pct")), 100.0 * in_mean / 3, 1e-4);
	CHECK_NEAR(json_number_value(json_object_get(j, "coverage_p95_pct")), 100.0 * in_p95 / 3, 1e-4);
	CHECK(test_doc_says("docs/cli.md", "`interval_95_lo` and `interval_95_hi`, each `mean_w` and `p95_w`"));
	json_decref(j);
	run_result_free(&r);
	free(csv);
	for (int k = 0; k < 3; k++)
		free(folders[k]);
	free(pr);
	free(dir);
	return check_report("test_cli_envelope_json_interval");
}

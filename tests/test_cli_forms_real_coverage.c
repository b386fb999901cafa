/*
 * `validate forms --real` writes each run's 95 % interval (`lo`, `hi` of
 * --per-run) and reports what share of them hold the measured value, per
 * pass and platform, in the text and in --json (`n_interval`,
 * `coverage_95`, `median_rel_width`), as lomo does (docs/validation.md,
 * "Forms on real runs"). It wrote the intervals on every row and reported
 * no coverage anywhere.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Four models on two boards under two workloads, six loads each, with a
 * deterministic ripple: enough other-fold residuals for every interval. */
static char *
table_of(const char *dir, const char *name, int n_models, int n_loads)
{
	static const char *models[] = { "Qwen3-8B", "Qwen3-14B", "Qwen3-32B", "Llama-3.1-8B" };
	static const double params[] = { 8, 14, 32, 8 };
	static const int loads[] = { 2, 4, 8, 16, 64, 128 };
	char *text = malloc(1 << 16);
	size_t at = (size_t)snprintf(text, 1 << 16, "run_id,platform,tp,model,active_params_b,running,mean_power_w,set\n");
	int k = 0;
	for (int m = 0; m < n_models; m++)
		for (int p = 0; p < 2; p++)
			for (int w = 0; w < 2; w++)
				for (int l = 0; l < n_loads; l++, k++) {
					double base = p ? 450 : 300, rise = (p ? 600 : 400) * (1 + 0.01 * params[m]);
					double watts = (base + rise * (1 - exp(-loads[l] / 40.0)) * (w ? 1.05 : 1.0)) *
					               (1 + 0.04 * sin(1.7 * k));
					at += (size_t)snprintf(text + at, (1 << 16) - at, "r%d,%s,1,%s,%g,%d,%.1f,%s\n", k,
					                       p ? "B200" : "H100", models[m], params[m], loads[l], watts,
					                       w ? "code" : "chat");
				}
	char *path = test_fixture(dir, name, text);
	free(text);
	return path;
}

static char *
table(const char *dir)
{
	return table_of(dir, "four.csv", 4, 6);
}

/* Two models at three loads: a model held out has the other's 12
 * residuals, too few for a 95 % quantile -- the cover tables read `–`
 * and, as validate lomo does, a note says why (it said nothing). */
static void
too_few_residuals(const char *dir)
{
	char *in = table_of(dir, "two.csv", 2, 3);
	const char *argv[] = { "wattcast", "validate", "forms", "--real", in, NULL };
	char *said = test_run_said(argv);
	CHECK(said != NULL);
	if (said && strstr(said, " have no 95 % interval") == NULL)
		fprintf(stderr, "%s\n", said);
	CHECK_CONTAINS(said ? said : "", "note: power_law, leave one model out: ");
	CHECK_CONTAINS(said ? said : "", " have no 95 % interval: the other models held out beside theirs hold "
	               "fewer than the 19 residuals a 95 % quantile needs (docs/intervals.md, \"The quantile\")\n");
	free(said);
	free(in);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_forms_real_coverage");
	char *in = table(dir), *pr = path_join(dir, "pr.csv");
	const char *json_argv[] = { "wattcast", "validate", "forms", "--real", in, "--json", "--per-run", pr, NULL };
	run_result j;
	CHECK_INT(run_wattcast(json_argv, NULL, &j), 0);
	CHECK_INT(j.status, 0);
	json_t *root = j.out ? json_loads(j.out, 0, NULL) : NULL;
	CHECK(root != NULL);
	const char *text_argv[] = { "wattcast", "validate", "forms", "--real", in, NULL };
	char *said = test_run_said(text_argv);
	const char *cover_lomo = said ? strstr(said, "leave one model out, cover 95% (runs with an interval)\n") : NULL;
	CHECK(cover_lomo != NULL);

	/* The per-run rows of saturating_quadratic_load leaving a model out:
	 * their share inside [lo, hi] is the reported coverage. */
	char *rows = test_slurp(pr);
	int fold = -1, lo = -1, hi = -1, measured = -1, n = 0, inside = 0;
	{
		char head[4096];
		size_t len = rows ? strcspn(rows, "\n") : 0;
		snprintf(head, sizeof head, "%.*s", (int)len, rows ? rows : "");
		fold = test_csv_column(head, "fold");
		lo = test_csv_column(head, "lo");
		hi = test_csv_column(head, "hi");
		measured = test_csv_column(head, "measured");
	}
	CHECK(fold >= 0 && lo >= 0 && hi >= 0 && measured >= 0);
	for (char *line = rows ? strtok(rows, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char *cell[64];
		int c = 0;
		for (char *s = line; c < 64; c++) { /* no quoted cells in this table */
			cell[c] = s;
			char *comma = strchr(s, ',');
			if (!comma) {
				c++;
				break;
			}
			*comma = '\0';
			s = comma + 1;
		}
		if (c <= hi || c <= fold || strncmp(cell[fold], "saturating_quadratic_load lomo ", 31) != 0 ||
		    !cell[lo][0])
			continue;
		n++;
		double v = atof(cell[measured]);
		inside += atof(cell[lo]) <= v && v <= atof(cell[hi]);
	}
	CHECK(n > 0);

	json_t *forms = json_object_get(root, "forms"), *form;
	size_t i;
	int seen = 0;
	json_array_foreach(forms, i, form) {
		if (strcmp(json_string_value(json_object_get(form, "form")), "saturating_quadratic_load") != 0)
			continue;
		seen = 1;
		json_t *r = json_object_get(form, "lomo");
		CHECK_INT((int)json_integer_value(json_object_get(r, "n_interval")), n);
		CHECK_NEAR(json_number_value(json_object_get(r, "coverage_95")), (double)inside / (n ? n : 1), 1e-9);
		CHECK(json_number_value(json_object_get(r, "median_rel_width")) > 0);
		CHECK(json_object_get(json_object_get(json_object_get(r, "platforms"), "B200"), "coverage_95") != NULL);
		/* the text row reads the same share */
		char want[128];
		snprintf(want, sizeof want, "%-28s %7.1f (%3d)", "saturating_quadratic_load",
		         100.0 * json_number_value(json_object_get(r, "coverage_95")), n);
		if (cover_lomo)
			CHECK_CONTAINS(cover_lomo, want);
	}
	CHECK(seen);
	too_few_residuals(dir);

	free(rows);
	free(said);
	json_decref(root);
	run_result_free(&j);
	free(pr);
	free(in);
	free(dir);
	return check_report("test_cli_forms_real_coverage");
}

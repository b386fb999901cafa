/*
 * `fit intervals` says when its pooled quantile rests on fewer held-out
 * groups than a stratum needs (docs/intervals.md, "Strata": exchangeability
 * is between groups, and a quantile over a few groups is itself noisy;
 * WC_PE_MIN_GROUPS). `--folds workload` on ML.ENERGY's two sets wrote a
 * "95 %" quantile from 2 groups without a word. Here: the paper design
 * (seed 42) left out by workload holds 2 groups with predictions, and the
 * same table with its runs dealt into 24 sets holds 24, which is enough.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `src`'s table with column `set` of data row i replaced by "w<i mod 24>"
 * (no quotes in the design table), written to `path`. */
static void
dealt(const char *src, const char *path)
{
	char *text = test_slurp(src), *buf = NULL;
	size_t len = 0, cap = 0;
	const char *p = text;
	while (*p == '#') {
		const char *end = strchr(p, '\n');
		test_appendf(&buf, &len, &cap, "%.*s\n", (int)(end - p), p);
		p = end + 1;
	}
	int c_set = test_csv_column(p, "set");
	CHECK(c_set >= 0);
	const char *end = strchr(p, '\n');
	test_appendf(&buf, &len, &cap, "%.*s\n", (int)(end - p), p);
	p = end + 1;
	for (int row = 0; *p; row++) {
		end = strchr(p, '\n');
		int col = 0;
		for (const char *f = p; f < end; col++) {
			size_t w = strcspn(f, ",\n");
			if (col == c_set)
				test_appendf(&buf, &len, &cap, "%sw%02d", col ? "," : "", row % 24);
			else
				test_appendf(&buf, &len, &cap, "%s%.*s", col ? "," : "", (int)w, f);
			f += w;
			if (*f == ',' && f + 1 == end) { /* an empty last field */
				test_appendf(&buf, &len, &cap, ",");
				break;
			}
			if (*f == ',')
				f++;
		}
		test_appendf(&buf, &len, &cap, "\n");
		p = end + 1;
	}
	CHECK(write_text(path, buf) == 0);
	free(buf);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_few_groups");
	char *table = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	char *many = path_join(dir, "many.csv"), *out = path_join(dir, "p.json");
	run_result r;

	const char *two[] = { "wattcast", "fit", "intervals", table, "--profile", "paper", "--folds", "workload", "-o",
		              out, NULL };
	CHECK(run_wattcast(two, NULL, &r) == 0);
	CHECK_INT(r.status, 0); /* said, not refused */
	CHECK_CONTAINS(r.err, "wattcast fit intervals: warning: mean_power_w: hold out more groups, or read its 95 % "
	                      "as rough: the quantile rests on 2 held-out group(s) (folds workload), fewer than the 20 "
	                      "a stratum needs (docs/intervals.md, \"Strata\")");
	const char *msg = r.err ? strstr(r.err, "warning: mean_power_w") : NULL;
	CHECK(msg && strcspn(msg + 9, "\n") <= 255);
	run_result_free(&r);

	dealt(table, many);
	const char *enough[] = { "wattcast", "fit", "intervals", many, "--profile", "paper", "--folds", "workload",
		                 "-o", out, NULL };
	CHECK(run_wattcast(enough, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && strstr(r.out, "(pooled)"));
	CHECK(!r.err || !strstr(r.err, "held-out group(s)"));
	run_result_free(&r);

	free(out);
	free(many);
	free(table);
	free(dir);
	return check_report("test_cli_intervals_few_groups");
}

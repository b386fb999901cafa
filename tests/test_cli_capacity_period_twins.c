/*
 * `validate capacity` leave one out over periods rows holds a period's
 * twins (rows equal in every measured field: a table given twice, a row
 * repeated; wc_fit_period_twins) out with it and says so
 * (docs/validation.md, "Capacity"). Each period was trained on its own
 * twin: the published periods given twice, or with every row repeated,
 * scored 0.51 % against the table's 6.78 %, with no warning.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fold and prediction of each per-run row, by run id. */
static int
fold_of(const char *per_run, const char *id, char *fold, size_t cap, double *pred)
{
	char *text = test_slurp(per_run), key[128];
	snprintf(key, sizeof key, "\n%s,", id);
	const char *at = text ? strstr(text, key) : NULL;
	int ok = 0;
	if (at) {
		/* run_id,set,fold,...,quantity,predicted: the 12th column */
		const char *p = at + 1;
		char cell[12][96];
		int k = 0;
		for (; k < 12; k++) {
			size_t n = strcspn(p, ",\n");
			snprintf(cell[k], sizeof cell[k], "%.*s", (int)(n < 95 ? n : 95), p);
			if (p[n] != ',')
				break;
			p += n + 1;
		}
		if (k == 12) {
			snprintf(fold, cap, "%s", cell[2]);
			*pred = atof(cell[11]);
			ok = 1;
		}
	}
	free(text);
	return ok;
}

int
main(void)
{
	char *periods = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/published-periods.csv");
	char *dir = test_tmpdir("cli_capacity_period_twins");
	char *dup = path_join(dir, "dup.csv"), *per = path_join(dir, "per.csv"), *text = test_slurp(periods);
	CHECK(text != NULL);
	/* the table, then its rows again (lines 25 on) */
	FILE *f = fopen(dup, "w");
	CHECK(f != NULL);
	if (f && text) {
		fputs(text, f);
		char *rows = strstr(text, "\nplatform,");
		rows = rows ? strchr(rows + 1, '\n') + 1 : NULL;
		fputs(rows ? rows : "", f);
		fclose(f);
	}

	/* once: no twins, no warning */
	const char *once[] = { "wattcast", "validate", "capacity", periods, NULL };
	run_result r;
	CHECK_INT(run_wattcast(once, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "(all)                     11           6.78 ");
	CHECK(!r.err || !strstr(r.err, "periods row(s) equal"));
	run_result_free(&r);

	/* every row repeated: said, the first pair named, and each twin in
	 * its twin's fold with its prediction */
	const char *twice[] = { "wattcast", "validate", "capacity", dup, "--per-run", per, NULL };
	CHECK_INT(run_wattcast(twice, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast validate capacity: warning: 11 periods row(s) equal an earlier one in every "
	                      "measured field, e.g. 'A100|Qwen3-8B|tp1|line9' and 'A100|Qwen3-8B|tp1|line25': one "
	                      "period given twice? each is held out with its twins");
	CHECK(!strstr(r.out ? r.out : "", "0.51 "));
	run_result_free(&r);
	char fa[96] = "", fb[96] = "";
	double pa = 0, pb = 1;
	CHECK(fold_of(per, "A100|Qwen3-8B|tp1|line9", fa, sizeof fa, &pa));
	CHECK(fold_of(per, "A100|Qwen3-8B|tp1|line25", fb, sizeof fb, &pb));
	CHECK(!strcmp(fb, "A100|Qwen3-8B|tp1|line9"));
	CHECK(!strcmp(fa, fb));
	CHECK(pa == pb);
	/* trained without its twin, the period is not its own prediction */
	CHECK(pa < 7.4 * 0.95 || pa > 7.4 * 1.05);

	/* the same table given twice (its ids alike): said so */
	const char *copy[] = { "wattcast", "validate", "capacity", periods, dup, NULL };
	CHECK_INT(run_wattcast(copy, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "e.g. 'A100|Qwen3-8B|tp1|line9' twice: one period given twice?");
	run_result_free(&r);

	free(text);
	free(per);
	free(dup);
	free(dir);
	free(periods);
	return check_report("test_cli_capacity_period_twins");
}

/*
 * `validate capacity` leave one out over periods rows holds a period's
 * twins (rows equal in every measured field: a table given twice, a row
 * repeated; wc_fit_period_twins) out with it and says so
 * (docs/validation.md, "Capacity"). Each period was trained on its own
 * twin: the published periods given twice, or with every row repeated,
 * scored 0.51 % against the table's 6.78 %, with no warning.
 *
 * In every fit a period given k times counts once (docs/capacity.md,
 * "Twins count once"): held out together, the twins still weighed twice
 * in each fold's fit, and the table with every row repeated scored 7.68 %;
 * `fit capacity` on it ran Huber's weights (22 observations for 9
 * parameters) and gave other values (eta[H200] 1.1407 for 1.0364). Both
 * now equal the table given once, and a period filed under two models'
 * names weighs 1/2 under each (Kish's effective count 11 of 12).
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

/* The "(all)" line of `argv`'s report: its median |error|, share within
 * 5 % and bias (not its count: the table given twice scores each period
 * twice; nor its interval columns, docs/validation.md, "Capacity"). */
static int
all_line(const char *const *argv, char *out, size_t cap)
{
	run_result r;
	int ok = 0;
	if (run_wattcast(argv, NULL, &r) == 0 && r.status == 0 && r.out) {
		const char *at = strstr(r.out, "\n(all) ");
		if (at) {
			at += strlen("\n(all) ");
			at += strspn(at, " ");
			at += strspn(at, "0123456789");
			double med, within, bias;
			ok = sscanf(at, "%lf %lf %lf", &med, &within, &bias) == 3;
			snprintf(out, cap, "%.2f %.1f %+.2f", med, within, bias);
		}
	}
	run_result_free(&r);
	return ok;
}

/* `out` from the line starting with `head` to the first warning
 * (malloc'd), or NULL: the parameter table. */
static char *
section(const char *out, const char *head)
{
	const char *a = out ? strstr(out, head) : NULL, *b = a ? strstr(a, "\n  warning: ") : NULL;
	if (!a || !b)
		return NULL;
	char *s = malloc((size_t)(b - a) + 1);
	if (s) {
		memcpy(s, a, (size_t)(b - a));
		s[b - a] = '\0';
	}
	return s;
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
	/* the intervals' quantile counts a twin once too: the table given
	 * twice has the 11 residuals of the table given once, under the 19 a
	 * quantile needs, so no intervals, as once (it had cover 90.9 %, width
	 * 24.0 % with each twin's residual counted again) */
	CHECK_CONTAINS(r.out, "(all)                     22           6.78        45.5     +0.06         \xe2\x80\x93        "
	                      "\xe2\x80\x93");
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

	/* every fold fits as the table given once: its scores, to the digit */
	char line_once[160], line_twice[160];
	CHECK(all_line(once, line_once, sizeof line_once));
	CHECK(all_line(twice, line_twice, sizeof line_twice));
	CHECK(!strcmp(line_once, line_twice));
	CHECK(!strcmp(line_twice, "6.78 45.5 +0.06"));

	/* fit capacity: the same section, draws and all, with a warning */
	char *fa_json = path_join(dir, "once.json"), *fb_json = path_join(dir, "twice.json");
	const char *fit_once[] = { "wattcast", "fit", "capacity", periods, "-o", fa_json, "--bootstrap", "40", NULL };
	const char *fit_twice[] = { "wattcast", "fit", "capacity", dup, "-o", fb_json, "--bootstrap", "40", NULL };
	run_result ro, rt;
	CHECK_INT(run_wattcast(fit_once, NULL, &ro), 0);
	CHECK_INT(run_wattcast(fit_twice, NULL, &rt), 0);
	CHECK_INT(ro.status, 0);
	CHECK_INT(rt.status, 0);
	CHECK_CONTAINS(rt.out, "warning: capacity fit: 11 periods row(s) equal an earlier one in every measured field "
	                       "(one period given twice?): each period counts once");
	CHECK(!strstr(ro.out ? ro.out : "", "periods row(s) equal"));
	CHECK_CONTAINS(rt.out, "fit capacity: 11 rows (11 observations, 0 skipped), 9 parameters");
	CHECK_CONTAINS(rt.out, "fitted by plain least squares");
	char *po = section(ro.out, "  parameter"), *pt = section(rt.out, "  parameter");
	CHECK(po && pt && !strcmp(po, pt));
	CHECK_CONTAINS(pt, "  eta[H200]                          1.0364 ");
	free(po);
	free(pt);
	char *jo = test_slurp(fa_json), *jt = test_slurp(fb_json);
	char *draws_o = jo ? strstr(jo, "\"draws\"") : NULL, *draws_t = jt ? strstr(jt, "\"draws\"") : NULL;
	CHECK(draws_o && draws_t);
	if (draws_o && draws_t) {
		char *end_o = strchr(draws_o, ']'), *end_t = strchr(draws_t, ']');
		CHECK(end_o && end_t && end_o - draws_o == end_t - draws_t &&
		      !strncmp(draws_o, draws_t, (size_t)(end_o - draws_o)));
	}
	free(jo);
	free(jt);
	run_result_free(&ro);
	run_result_free(&rt);

	/* one period under two models' names: 1/2 each, one observation */
	char *two = path_join(dir, "two.csv");
	f = fopen(two, "w");
	CHECK(f != NULL);
	if (f && text) {
		fputs(text, f);
		fputs("A100,Qwen3-14B,1,32,,512,7.4,bf16,bf16,powertrace-paper,\n", f);
		fclose(f);
	}
	const char *fit_two[] = { "wattcast", "fit", "capacity", two, "-o", fb_json, "--bootstrap", "40", NULL };
	CHECK_INT(run_wattcast(fit_two, NULL, &rt), 0);
	CHECK_INT(rt.status, 0);
	CHECK_CONTAINS(rt.out, "fit capacity: 12 rows (12 observations, 11.0 effective, 0 skipped)");
	CHECK_CONTAINS(rt.out, "capacity fit: 1 periods row(s) equal an earlier one");
	run_result_free(&rt);
	free(two);
	free(fa_json);
	free(fb_json);

	free(text);
	free(per);
	free(dup);
	free(dir);
	free(periods);
	return check_report("test_cli_capacity_period_twins");
}

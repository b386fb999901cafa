/*
 * `fit intervals` refits the set's own form (docs/intervals.md, "Folds:
 * match the use"): a set fitted with --form power_law was refitted as
 * saturating_quadratic_load under the default --folds model, and that
 * other law's held-out error (q 0.0618 on the seed-7 paper design, drawn
 * --uncapped as it was then: docs/intervals.md) was
 * stored where the set's own (0.2845; 0.1914 with its predictions above a
 * board's limit settled as predict settles them) belonged. A --form other than the
 * set's is refused before any fold; the set's own is accepted.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pooled stratum's line of a `fit intervals` report (malloc'd). */
static char *
pooled_line(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	const char *at = r.out ? strstr(r.out, "(pooled)") : NULL;
	CHECK(at != NULL);
	char *line = strndup(at ? at : "", at ? strcspn(at, "\n") : 0);
	run_result_free(&r);
	return line;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_form");
	char *sim = path_join(dir, "sim.csv"), *pl = path_join(dir, "pl.json");
	char *out1 = path_join(dir, "i1.json"), *out2 = path_join(dir, "i2.json"), *out3 = path_join(dir, "i3.json");
	const char *s[] = { "wattcast", "simulate", "inference", "--seed", "7", "--uncapped", "-o", sim, NULL };
	test_run_ok(s);
	const char *f[] = { "wattcast", "fit", "inference", sim, "--form", "power_law", "--bootstrap", "0", "-o", pl, NULL };
	test_run_ok(f);

	const char *own[] = { "wattcast", "fit", "intervals", sim, "--params", pl, "-o", out1, NULL };
	const char *named[] = { "wattcast", "fit", "intervals", sim, "--params", pl, "--form", "power_law",
		                "-o", out2, NULL };
	char *a = pooled_line(own), *b = pooled_line(named);
	CHECK(a && b && strcmp(a, b) == 0);
	if (a && b && strcmp(a, b) != 0)
		fprintf(stderr, "the set's own form: '%s'; --form power_law: '%s'\n", a, b);
	CHECK(a && strstr(a, "0.1914"));
	free(a);
	free(b);

	const char *other[] = { "wattcast", "fit", "intervals", sim, "--params", pl, "--form", "saturating",
		                "-o", out3, NULL };
	test_usage_error(other, "--form: the set's law is power_law and its held-out error must be that law's");
	FILE *written = fopen(out3, "r");
	CHECK(written == NULL);
	if (written)
		fclose(written);

	free(sim);
	free(pl);
	free(out1);
	free(out2);
	free(out3);
	free(dir);
	return check_report("test_cli_intervals_form");
}

/*
 * A simulated table's "Made by" line reproduces it (docs/cli.md,
 * simulate): it left out --profile and --params, so the line run as
 * written drew from the default truth (247 rows, not 237 from
 * 'measured'). The line now carries the truth's flag; run as written it
 * makes the same file byte for byte.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The words of the "# Made by: wattcast ..." line after "wattcast",
 * with "-o out" appended: at most 31 (none is quoted here). */
static void
rerun(const char *file, const char *out)
{
	char *text = test_slurp(file), *argv[32];
	int n = 0;
	CHECK(text != NULL);
	char *line = text ? strstr(text, "# Made by: wattcast ") : NULL;
	CHECK(line != NULL);
	if (!line) {
		free(text);
		return;
	}
	line += strlen("# Made by: ");
	line[strcspn(line, "\n")] = '\0';
	for (char *w = strtok(line, " "); w && n < 29; w = strtok(NULL, " "))
		argv[n++] = w;
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n] = NULL;
	test_run_ok((const char *const *)argv);
	char *a = test_slurp(file), *b = test_slurp(out);
	CHECK(a && b && strcmp(a, b) == 0);
	free(a);
	free(b);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_simulate_made_by");
	char *m = path_join(dir, "m.csv"), *m2 = path_join(dir, "m2.csv"), *pf = path_join(dir, "params.json");
	char *f = path_join(dir, "f.csv"), *f2 = path_join(dir, "f2.csv");
	const char *sim[] = { "wattcast", "simulate", "inference", "--profile", "measured", "--seed", "7", "--noise",
		              "0.005", "-o", m, NULL };
	test_run_ok(sim);
	char *text = test_slurp(m);
	CHECK_CONTAINS(text, "# Made by: wattcast simulate inference --design paper --seed 7 --noise 0.005 --profile "
	                     "measured\n");
	free(text);
	rerun(m, m2);
	const char *exp[] = { "wattcast", "profile", "export", "measured", "-o", pf, NULL };
	test_run_ok(exp);
	const char *ft[] = { "wattcast", "simulate", "finetune", "--params", pf, "--seed", "3", "-o", f, NULL };
	test_run_ok(ft);
	text = test_slurp(f);
	char want[512];
	snprintf(want, sizeof want, "# Made by: wattcast simulate finetune --seed 3 --noise 0.02 --params %s\n", pf);
	CHECK_CONTAINS(text, want);
	free(text);
	rerun(f, f2);
	free(m);
	free(m2);
	free(pf);
	free(f);
	free(f2);
	free(dir);
	return check_report("test_cli_simulate_made_by");
}

/*
 * `validate capacity` says how many rows it left out for a non-empty
 * `exclude`, as lomo does (docs/validation.md, "Capacity"; docs/cli.md,
 * "validate"). On the published periods (16 rows, 5 marked: the clock held
 * at 1155 MHz, the 575 W power limit) it scored 11 and never counted the
 * other 5: no line, `periods_loo.skipped` 0, `unscored.rows` 0.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *periods = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/published-periods.csv");
	const char *text_argv[] = { "wattcast", "validate", "capacity", periods, NULL };
	char *said = test_run_said(text_argv);
	CHECK_CONTAINS(said, "(all)                     11 ");
	CHECK_CONTAINS(said, "5 row(s) excluded, neither fitted nor predicted: a non-empty `exclude` "
	                     "(A100|Qwen3-8B|tp2|line10's: 'clock held at 1155 MHz')");
	free(said);

	const char *json_argv[] = { "wattcast", "validate", "capacity", periods, "--json", NULL };
	run_result j;
	CHECK_INT(run_wattcast(json_argv, NULL, &j), 0);
	CHECK_INT(j.status, 0);
	json_t *root = j.out ? json_loads(j.out, 0, NULL) : NULL;
	CHECK(root != NULL);
	json_t *ex = json_object_get(root, "excluded");
	CHECK_INT((int)json_integer_value(json_object_get(ex, "rows")), 5);
	CHECK_CONTAINS(json_string_value(json_object_get(ex, "note")), "5 row(s) excluded");
	/* every row accounted for: scored, skipped by its fold, or excluded */
	json_t *loo = json_object_get(root, "periods_loo");
	CHECK_INT((int)(json_integer_value(json_object_get(json_object_get(loo, "overall"), "n")) +
	                json_integer_value(json_object_get(loo, "skipped")) + json_integer_value(json_object_get(ex, "rows"))),
	          16);
	json_decref(root);
	run_result_free(&j);

	/* a table with no row marked says nothing of exclusion */
	char *dir = test_tmpdir("cli_capacity_excluded");
	char *all_in = path_join(dir, "kept.csv");
	char *text = test_slurp(periods);
	FILE *f = fopen(all_in, "w");
	CHECK(f != NULL);
	for (char *line = text ? strtok(text, "\n") : NULL; f && line; line = strtok(NULL, "\n")) {
		char *last = strrchr(line, ',');
		if (line[0] != '#' && strncmp(line, "platform,", 9) != 0 && last)
			last[1] = '\0'; /* the exclude column emptied */
		fprintf(f, "%s\n", line);
	}
	if (f)
		fclose(f);
	const char *kept_argv[] = { "wattcast", "validate", "capacity", all_in, "--json", NULL };
	CHECK_INT(run_wattcast(kept_argv, NULL, &j), 0);
	CHECK_INT(j.status, 0);
	root = j.out ? json_loads(j.out, 0, NULL) : NULL;
	CHECK_INT((int)json_integer_value(json_object_get(json_object_get(root, "excluded"), "rows")), 0);
	CHECK(json_object_get(json_object_get(root, "excluded"), "note") == NULL);
	json_decref(root);
	run_result_free(&j);
	const char *kept_text[] = { "wattcast", "validate", "capacity", all_in, NULL };
	said = test_run_said(kept_text);
	CHECK(said && strstr(said, "excluded") == NULL);
	free(said);

	free(text);
	free(all_in);
	free(dir);
	free(periods);
	return check_report("test_cli_capacity_excluded");
}

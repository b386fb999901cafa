/*
 * `validate forms --real` prints, per pass, the median |error| per platform
 * that --json gives (docs/validation.md, "Forms on real runs"). A table of
 * one model on two boards scores nothing leaving the model out; the text
 * took its platform columns from that pass alone and showed only "all" in
 * both, while the JSON's leave-one-workload-out report kept each board.
 */
#include "tests/support/forms_one_model.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_forms_real_platforms");
	char *table = test_forms_one_model(dir);

	const char *json_argv[] = { "wattcast", "validate", "forms", "--real", table, "--json", NULL };
	run_result j;
	CHECK_INT(run_wattcast(json_argv, NULL, &j), 0);
	CHECK_INT(j.status, 0);
	json_t *root = j.out ? json_loads(j.out, 0, NULL) : NULL;
	CHECK(root != NULL);
	const char *text_argv[] = { "wattcast", "validate", "forms", "--real", table, NULL };
	run_result t;
	CHECK_INT(run_wattcast(text_argv, NULL, &t), 0);
	CHECK_INT(t.status, 0);
	const char *lowo = t.out ? strstr(t.out, "leave one workload out\n") : NULL;
	CHECK(lowo != NULL);
	/* The columns follow "all" in order of first appearance: H100 then B200. */
	char header[128];
	snprintf(header, sizeof header, "%-28s %13s %13s %13s\n", "form", "all", "H100", "B200");
	CHECK_CONTAINS(lowo, header);
	CHECK_CONTAINS(t.out, header); /* the leave-one-model-out table too */

	/* Every scored form's row reads the JSON's numbers, board by board. */
	int rows = 0;
	json_t *forms = json_object_get(root, "forms"), *form;
	size_t i;
	json_array_foreach(forms, i, form) {
		json_t *r = json_object_get(form, "lowo");
		if (json_integer_value(json_object_get(r, "n")) == 0)
			continue;
		char want[256];
		int at = snprintf(want, sizeof want, "%-28s %7.2f (%3d)", json_string_value(json_object_get(form, "form")),
		                  json_real_value(json_object_get(r, "median_abs_err_pct")),
		                  (int)json_integer_value(json_object_get(r, "n")));
		const char *boards[] = { "H100", "B200" };
		for (int b = 0; b < 2; b++) {
			json_t *p = json_object_get(json_object_get(r, "platforms"), boards[b]);
			CHECK(p != NULL);
			at += snprintf(want + at, sizeof want - (size_t)at, " %7.2f (%3d)",
			               json_real_value(json_object_get(p, "median_abs_err_pct")),
			               (int)json_integer_value(json_object_get(p, "n")));
		}
		snprintf(want + at, sizeof want - (size_t)at, "\n");
		if (lowo)
			CHECK_CONTAINS(lowo, want);
		rows++;
	}
	CHECK(rows >= 4);

	json_decref(root);
	run_result_free(&j);
	run_result_free(&t);
	free(table);
	free(dir);
	return check_report("test_cli_forms_real_platforms");
}

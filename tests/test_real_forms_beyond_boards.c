/*
 * `validate forms --real` with the prompt-share term (label realdata; the
 * raw ML.ENERGY table read in place from ../shared, prior `measured`):
 * leaving a workload out, power_law's and power_law_quadratic_load's fold
 * fitted on gpqa alone predicts lm-arena-chat's runs at power no board
 * draws (up to 29.7 MW for an 8 x H100 node); they were scored, for medians of
 * 474 423.66 % and 2 922 388.53 %. Such runs are not scored now, with the
 * reason, and the medians are over the rest (docs/validation.md, "Candidate
 * terms"); the published choice's row is unchanged.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const json_t *
form_lowo(const json_t *root, const char *form)
{
	size_t i;
	const json_t *f;
	json_array_foreach(json_object_get(root, "forms"), i, f) if (strcmp(json_string_value(json_object_get(f, "form")),
	                                                                    form) == 0) return json_object_get(f, "lowo");
	return NULL;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *raw = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	const char *argv[] = { "wattcast", "validate", "forms", "--real", raw, "--terms", "as-bf16", "--law-terms",
		               "prompt", "--profile", "measured", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_error_t je;
	json_t *root = r.out ? json_loads(r.out, 0, &je) : NULL;
	CHECK(root != NULL);
	static const char *const beyond[] = { "power_law", "power_law_quadratic_load" };
	for (int k = 0; root && k < 2; k++) {
		const json_t *l = form_lowo(root, beyond[k]);
		CHECK(l != NULL);
		double med = json_real_value(json_object_get(l, "median_abs_err_pct"));
		CHECK(med < 100.0); /* 474 423.66 and 2 922 388.53 % when scored */
		if (!(med < 100.0))
			fprintf(stderr, "%s: median %.2f %%\n", beyond[k], med);
		CHECK_INT((int)json_integer_value(json_object_get(l, "n")), 95);
		CHECK_INT((int)json_integer_value(json_object_get(l, "skipped")), 230);
		const char *why = json_string_value(json_object_get(l, "skip_reason"));
		CHECK(why && strstr(why, "230 predicted over twice their boards' ceiling, power no board draws"));
	}
	const json_t *sq = root ? form_lowo(root, "saturating_quadratic_load") : NULL;
	CHECK(sq && json_integer_value(json_object_get(sq, "n")) == 325);
	CHECK(sq && json_integer_value(json_object_get(sq, "skipped")) == 0);
	json_decref(root);
	run_result_free(&r);
	free(raw);
	return check_report("test_real_forms_beyond_boards");
}

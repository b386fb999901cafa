/*
 * An answer no clock holds under the board's power limit (a level whose
 * S puts even the clock of least power above it, docs/capacity.md "The
 * board's power limit"): the CLI's header says the answer is still above
 * the limit (it said the limit "is not reached", which reads as power
 * below it), and the warning that explains it is whole in the text and
 * in --json, ending with its reference (it was cut at 255 bytes in the
 * middle of its parenthesis).
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_power_limit");
	char *base = path_join(dir, "measured.json"), *big = path_join(dir, "big-s.json");
	test_run_ok((const char *[]){ "wattcast", "profile", "export", "measured", "-o", base, NULL });
	/* S of A100 hand-set to 5000 W, inside the loader's range; its
	 * interval dropped, as it no longer contains the value */
	json_t *p = json_load_file(base, 0, NULL);
	CHECK(p != NULL);
	size_t i;
	json_t *lvl;
	int edited = 0;
	json_array_foreach(json_object_get(p, "levels"), i, lvl)
		if (strcmp(json_string_value(json_object_get(lvl, "name")), "A100") == 0)
			edited += json_object_set_new(json_object_get(lvl, "s_w"), "value", json_real(5000.0)) == 0 &&
			          json_object_del(json_object_get(lvl, "s_w"), "ci95") == 0;
	CHECK_INT(edited, 1);
	CHECK_INT(json_dump_file(p, big, JSON_INDENT(1)), 0);
	json_decref(p);

	run_result r;
	const char *text[] = { "wattcast", "predict", "inference", "--params", big, "--platform", "A100",
		               "--active-params", "8", "--concurrency", "8", NULL };
	CHECK(run_wattcast(text, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "sm clock 210 MHz (the clock of least power, still above the board's 400 W limit per GPU)\n");
	CHECK(strstr(r.out, "not reached") == NULL);
	const char *w = strstr(r.out, "warning: platform: the law gives");
	CHECK(w != NULL);
	CHECK_CONTAINS(w ? w : "", "; no clock meets it, so this answers at the clock of least power, 210 MHz, "
	               "still above the limit (docs/capacity.md)\n");
	run_result_free(&r);

	const char *js[] = { "wattcast", "predict", "inference", "--params", big, "--platform", "A100",
		             "--active-params", "8", "--concurrency", "8", "--json", NULL };
	CHECK(run_wattcast(js, NULL, &r) == 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	int whole = 0;
	json_t *s;
	json_array_foreach(json_object_get(o, "warnings"), i, s) {
		const char *t = json_string_value(s);
		if (t && strncmp(t, "platform: the law gives", 23) == 0) {
			size_t n = strlen(t);
			whole += n < 255 && n > 18 && strcmp(t + n - 18, "(docs/capacity.md)") == 0;
		}
	}
	CHECK_INT(whole, 1);
	CHECK(json_is_false(json_object_get(json_object_get(o, "config"), "power_limit_met")));
	json_decref(o);
	run_result_free(&r);
	free(big);
	free(base);
	free(dir);
	return check_report("test_cli_power_limit");
}

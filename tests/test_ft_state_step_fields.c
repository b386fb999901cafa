/*
 * A trainer_state.json's step counts, global_step and max_steps, by one
 * rule (docs/formats/finetune-telemetry.md, "Step logs"): a whole number
 * from 1 to 10^9, each refusal quoting the value, naming its reason and
 * its file:line:column. Before, null and Python's Infinity (json.dump of
 * 1e400) were both "expected the number of optimizer steps done (>= 1)",
 * 0 and -1 were not quoted, and max_steps 400.5 was cut to 400 while
 * max_steps 2147483648 and 1e15 were dropped without a word (and with
 * them the "global_step 100 is below max_steps" warning).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *value, *why;
} case_t;

/* `value` as `key`'s in a state on two lines, its value at 2:16 */
static void
refused(const char *path, const char *key, const case_t *c)
{
	char text[256], want[256];
	wc_trainer_state st;
	wc_error err = { 0, "" };
	const char *other = strcmp(key, "global_step") == 0 ? "max_steps" : "global_step";
	snprintf(text, sizeof text, "{\"%s\": 100,\n \"%s\":%*s%s, \"log_history\": []}\n", other, key,
	         16 - (int)strlen(key) - 4, "", c->value);
	CHECK_INT(write_text(path, text), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	snprintf(want, sizeof want, "trainer_state.json:2:17: /%s: %s", key, c->why);
	if (!strstr(err.msg, want))
		fprintf(stderr, "%s %s:\n  got  %s\n  want %s\n", key, c->value, err.msg, want);
	CHECK_CONTAINS(err.msg, want);
	CHECK(strlen(err.msg) < 256);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_step_fields"), *path = path_join(dir, "trainer_state.json");
	static const char *const keys[] = { "global_step", "max_steps" };
	static const char *const what[] = { "the number of optimizer steps done",
		                            "the steps the run was set to take" };
	for (int k = 0; k < 2; k++) {
		char wrong[160], below0[160], below1[160], nan_why[160];
		snprintf(wrong, sizeof wrong, "null is the wrong type: expected %s (a whole number from 1 to 1000000000)",
		         what[k]);
		snprintf(nan_why, sizeof nan_why, "NaN is not a number: expected %s (a whole number from 1 to 1000000000)",
		         what[k]);
		snprintf(below0, sizeof below0, "0 is below 1: expected %s (>= 1)", what[k]);
		snprintf(below1, sizeof below1, "-1 is below 1: expected %s (>= 1)", what[k]);
		const case_t cases[] = {
			{ "null", wrong },
			{ "NaN", nan_why },
			{ "Infinity", "Infinity optimizer steps is past 1000000000, more than any run's" },
			{ "1e400", "1e400 optimizer steps is past 1000000000, more than any run's" },
			{ "0", below0 },
			{ "-1", below1 },
			{ "400.5", "400.5 is not a whole number of optimizer steps" },
			{ "2147483648", "2147483648 optimizer steps is past 1000000000, more than any run's" },
			{ "1e15", "1e15 optimizer steps is past 1000000000, more than any run's" },
		};
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
			if (k == 0 || (strcmp(cases[i].value, "null") && strcmp(cases[i].value, "0") &&
			               strcmp(cases[i].value, "-1")))
				refused(path, keys[k], &cases[i]);
	}
	/* max_steps null, 0 or -1 is not stated (TrainerState's default 0,
	 * TrainingArguments' -1), read as unknown, not refused */
	static const char *const unstated[] = { "null", "0", "-1" };
	for (int i = 0; i < 3; i++) {
		char text[128];
		wc_trainer_state st0;
		wc_error err0 = { 0, "" };
		snprintf(text, sizeof text, "{\"global_step\": 100, \"max_steps\": %s, \"log_history\": []}", unstated[i]);
		CHECK_INT(write_text(path, text), 0);
		CHECK_INT(wc_trainer_state_read(path, &st0, &err0), WC_OK);
		CHECK_INT(st0.max_steps, 0);
		wc_trainer_state_free(&st0);
	}
	/* a string or array is the wrong type, quoted or named */
	wc_trainer_state st;
	wc_error err = { 0, "" };
	CHECK_INT(write_text(path, "{\"global_step\": \"1,00\"}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:17: /global_step: '1,00' is the wrong type");
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"max_steps\": [400]}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:34: /max_steps: an array is the wrong type");
	/* the position of the top-level key, not of one nested under another */
	CHECK_INT(write_text(path, "{\"log_history\": [{\"global_step\": 5}],\n \"global_step\": 0}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:2:17: /global_step: 0 is below 1");
	/* absent: global_step is required, max_steps may be unknown */
	CHECK_INT(write_text(path, "{\"log_history\": []}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json: /global_step: missing: expected the number of optimizer steps done");
	CHECK_INT(write_text(path, "{\"global_step\": 100}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.max_steps, 0);
	wc_trainer_state_free(&st);
	/* the bounds themselves are read */
	CHECK_INT(write_text(path, "{\"global_step\": 1, \"max_steps\": 1000000000}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.global_step, 1);
	CHECK_INT(st.max_steps, 1000000000);
	wc_trainer_state_free(&st);
	/* a syntax error elsewhere is jansson's, at its place */
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"x\": 1e400}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:");
	CHECK_CONTAINS(err.msg, "real number overflow");
	free(path);
	free(dir);
	return check_report("test_ft_state_step_fields");
}

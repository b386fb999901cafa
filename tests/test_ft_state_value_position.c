/*
 * Every refusal of a value in a trainer_state.json names the value's
 * file:line:column with its JSON path (docs/formats/finetune-telemetry.md,
 * "Step logs"), as global_step's and max_steps' did: "logging_steps": "10",
 * a log_history entry's "step": "50" and an "eval_a_runtime": -20 were
 * refused with the path alone ("trainer_state.json: /logging_steps:
 * expected a number, got string"), leaving a 400-line file to search.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `text` refused with `want` (a message's tail from the file name on) */
static void
refused(const char *path, const char *text, const char *want)
{
	wc_trainer_state st;
	wc_error err = { 0, "" };
	CHECK_INT(write_text(path, text), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_EINVAL);
	if (!strstr(err.msg, want))
		fprintf(stderr, "got  %s\nwant %s\n", err.msg, want);
	CHECK_CONTAINS(err.msg, want);
	CHECK(strlen(err.msg) < 256);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_value_position"), *path = path_join(dir, "trainer_state.json");
	/* as the Trainer writes it: indent 2, a key a line */
	const char *head = "{\n  \"global_step\": 360,\n  \"max_steps\": 360,\n";
	char text[1024];
	snprintf(text, sizeof text, "%s  \"logging_steps\": \"10\",\n  \"log_history\": []\n}\n", head);
	refused(path, text, "trainer_state.json:4:20: /logging_steps: expected a number, got string");
	snprintf(text, sizeof text, "%s  \"save_steps\": [500]\n}\n", head);
	refused(path, text, "trainer_state.json:4:17: /save_steps: expected a number, got array");
	snprintf(text, sizeof text, "%s  \"log_history\": [\n    {\n      \"loss\": 2.0,\n      \"step\": 10\n    },\n"
	         "    {\n      \"loss\": 1.9,\n      \"step\": \"50\"\n    }\n  ]\n}\n", head);
	refused(path, text, "trainer_state.json:11:15: /log_history/1/step: expected a number, got string");
	snprintf(text, sizeof text, "%s  \"log_history\": [\n    {\n      \"eval_a_loss\": 2.1,\n"
	         "      \"eval_a_runtime\": -20,\n      \"step\": 0\n    }\n  ]\n}\n", head);
	refused(path, text, "trainer_state.json:7:25: /log_history/0/eval_a_runtime: expected the evaluation's seconds "
	        "(>= 0), got -20");
	/* the containers too */
	snprintf(text, sizeof text, "%s  \"log_history\": {\"step\": 1}\n}\n", head);
	refused(path, text, "trainer_state.json:4:18: /log_history: expected an array, got object");
	snprintf(text, sizeof text, "%s  \"log_history\": [{\"step\": 1},\n   7]\n}\n", head);
	refused(path, text, "trainer_state.json:5:4: /log_history/1: expected an object, got integer");
	refused(path, "\n [1, 2]\n", "trainer_state.json:2:2: /: expected an object, got array");
	/* a dataset's name as json.dump writes it (ensure_ascii: \u escapes),
	 * one holding a '/', and strings holding brackets before it */
	snprintf(text, sizeof text, "%s  \"log_history\": [{\"note\": \"a}]\\\"[{\", \"step\": 5},\n"
	         "  {\"eval_caf\\u00e9_runtime\": -1, \"step\": 5}]\n}\n", head);
	refused(path, text, "trainer_state.json:5:30: /log_history/1/eval_café_runtime: expected the evaluation's "
	        "seconds (>= 0), got -1");
	snprintf(text, sizeof text, "%s  \"log_history\": [{\"eval_squad/v2_runtime\": -1, \"step\": 5}]\n}\n", head);
	refused(path, text, "trainer_state.json:4:45: /log_history/0/eval_squad/v2_runtime: expected the evaluation's "
	        "seconds (>= 0), got -1");
	/* a column counts characters, as a syntax error's does (jansson's;
	 * docs/formats/params-file.md): the "10" after "héllo wörld" is
	 * character 42, byte 44 (it said 1:44) */
	refused(path, "{\"note\": \"h\xc3\xa9llo w\xc3\xb6rld\", \"logging_steps\": \"10\", \"global_step\": 1,"
	        " \"max_steps\": 1}", "trainer_state.json:1:42: /logging_steps: expected a number, got string");
	/* of a key given twice, jansson keeps the last: its place is named */
	snprintf(text, sizeof text, "%s  \"eval_steps\": 100,\n  \"eval_steps\": \"100\"\n}\n", head);
	refused(path, text, "trainer_state.json:5:17: /eval_steps: expected a number, got string");
	/* the step counts' as before, and a missing one has no place */
	refused(path, "{\n  \"global_step\": \"360\"\n}\n", "trainer_state.json:2:18: /global_step: '360' is the wrong type");
	refused(path, "{\"max_steps\": 10}", "trainer_state.json: /global_step: missing");
	free(path);
	free(dir);
	return check_report("test_ft_state_value_position");
}

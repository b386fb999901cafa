/*
 * "did you mean" for serving stacks and models: one rule,
 * wc_name_is_typo. It allowed fewer edits than a third of the name, so a
 * one-edit typo of a 3-letter name (`tgl`, `tgii` for tgi) got no
 * suggestion, where docs/capacity.md ("Serving stacks") promises one for
 * a typo of at most 2 edits. One edit of a name of 3 is a typo now when
 * no other name is as near; longer names keep the rule they had.
 */
#include "models/catalog.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static void
expect(const char *name, const char *typo_of)
{
	const char *out = NULL;
	wc_error err = { 0, "" };
	CHECK_INT(wc_engine_parse(name, &out, &err), WC_EINVAL);
	char want[128];
	if (typo_of) {
		snprintf(want, sizeof want, "unknown serving stack '%s': did you mean %s? (accepted: ", name, typo_of);
		CHECK_CONTAINS(err.msg, want);
	} else {
		CHECK(strstr(err.msg, "did you mean") == NULL);
		if (strstr(err.msg, "did you mean"))
			fprintf(stderr, "  %s: %s\n", name, err.msg);
	}
}

int
main(void)
{
	/* one edit of tgi: substituted, added, left out */
	expect("tgl", "tgi");
	expect("tgii", "tgi");
	expect("tg", "tgi");
	expect("TGL", "tgi");
	/* as before: longer names, and names that are no typo */
	expect("sglng", "sglang");
	expect("tensorrtllm", "tensorrt-llm");
	expect("vlm", "vllm");
	expect("xyz", NULL);
	expect("ollama", NULL);
	expect("llama.cpp", NULL);
	/* the rule itself: a third of the name, or one edit of a short name
	 * nearest to it alone */
	CHECK_INT(wc_name_is_typo(1, 3, 1), 1);
	CHECK_INT(wc_name_is_typo(1, 3, 0), 0);
	CHECK_INT(wc_name_is_typo(2, 3, 1), 0);
	CHECK_INT(wc_name_is_typo(1, 2, 1), 0);
	CHECK_INT(wc_name_is_typo(1, 4, 0), 1);
	CHECK_INT(wc_name_is_typo(2, 7, 0), 1);
	CHECK_INT(wc_name_is_typo(3, 12, 1), 0);
	/* models: the rule they had (their names are 5 characters and more) */
	const wc_model_info *m = wc_model_suggest("Lama-3.1-8B");
	CHECK(m && strcmp(m->name, "Llama-3.1-8B") == 0);
	CHECK(wc_model_suggest("Qwen3-9B") == NULL);
	CHECK(wc_model_suggest("Qwen2-7B-Instruct") == NULL);
	return check_report("test_engine_typo");
}

/*
 * The context a model name is served with is its release's
 * (docs/capacity.md, "The model's context"): the catalog gave the original
 * Qwen3-4B, Qwen3-30B-A3B and Qwen3-235B-A22B the 262144 tokens of their
 * "-2507" Instruct and Thinking releases, and Kimi-K2 the 262144 of
 * "Kimi-K2-Instruct-0905", though the originals' config.json says 40960
 * (131072 for Kimi-K2-Instruct): a 40000 + 1000 token request on the
 * original Qwen3-30B-A3B, which vLLM refuses, was answered without a word.
 * The entry now holds the original's context and wc_model_context the
 * release's, read from the name; inference, envelopes and fine-tuning warn
 * past it.
 */
#include "models/catalog.h"
#include "tests/support/support.h"

static void
test_contexts(void)
{
	static const struct {
		const char *name;
		int context;
	} cases[] = {
		{ "Qwen/Qwen3-4B", 40960 },
		{ "Qwen/Qwen3-4B-Instruct-2507", 262144 },
		{ "Qwen/Qwen3-4B-Thinking-2507-FP8", 262144 },
		{ "Qwen/Qwen3-30B-A3B", 40960 },
		{ "Qwen/Qwen3-30B-A3B-FP8", 40960 },
		{ "Qwen/Qwen3-30B-A3B-Instruct-2507", 262144 },
		{ "Qwen/Qwen3-235B-A22B-FP8", 40960 },
		{ "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", 262144 },
		{ "Qwen/Qwen3-235B-A22B-Thinking-2507", 262144 },
		{ "Qwen/Qwen3-Coder-30B-A3B-Instruct", 262144 },
		{ "Qwen/Qwen3-8B", 40960 },
		{ "moonshotai/Kimi-K2-Instruct", 131072 },
		{ "moonshotai/Kimi-K2-Instruct-0905", 262144 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const wc_model_info *m = wc_model_lookup(cases[i].name);
		int got = wc_model_context(m, cases[i].name);
		CHECK_INT(got, cases[i].context);
		if (got != cases[i].context)
			fprintf(stderr, "%s: %d (want %d)\n", cases[i].name, got, cases[i].context);
	}
	/* a caller's amended copy of the entry is the same entry */
	wc_model_info copy = *wc_model_lookup("Qwen3-30B-A3B");
	CHECK_INT(wc_model_context(&copy, "Qwen3-30B-A3B-Instruct-2507"), 262144);
	CHECK_INT(wc_model_context(&copy, "Qwen3-30B-A3B"), 40960);
	CHECK_INT(wc_model_context(NULL, "Qwen3-30B-A3B"), 0);
}

#define PAST "exceed Qwen3-30B-A3B's context of 40960 tokens (config.json)"

static void
test_answers(void)
{
	run_result r;
	const char *orig[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen/Qwen3-30B-A3B",
		               "--concurrency", "1", "--input-tokens", "40000", "--output-tokens", "1000", NULL };
	CHECK(run_wattcast(orig, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: input_tokens: 40000 + 1000 tokens " PAST);
	run_result_free(&r);
	orig[6] = "Qwen/Qwen3-30B-A3B-Instruct-2507";
	CHECK(run_wattcast(orig, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "context of"));
	run_result_free(&r);
	const char *ft[] = { "wattcast", "predict", "finetune", "--method", "lora", "--lora-rank", "8", "--model",
		             "Qwen/Qwen3-4B", "--micro-batch", "1", "--seq-len", "65536", NULL };
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "seq_len: 65536 tokens exceed Qwen3-4B's context of 40960 tokens");
	run_result_free(&r);
	ft[8] = "Qwen/Qwen3-4B-Instruct-2507";
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "context of"));
	run_result_free(&r);
	const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen/Qwen3-30B-A3B",
		              "--closed", "1", "--input-tokens", "40000", "--output-tokens", "1000", "--horizon", "60", NULL };
	CHECK(run_wattcast(env, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "40000 + 1000 tokens exceed the model's context of 40960 tokens");
	run_result_free(&r);
}

int
main(void)
{
	test_contexts();
	test_answers();
	return check_report("test_model_release_context");
}

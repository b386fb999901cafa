/*
 * A tensor-parallel group vLLM cannot start for its KV heads is refused
 * (docs/capacity.md, "Memory as vLLM does it"): with K KV heads and a
 * group of G, G must divide K when K >= G, and K must divide G when
 * fewer. phi-4 (10 KV heads) on 4 or 8 GPUs and Qwen3-14B (8) on 5 were
 * answered; only the attention heads were checked. An architecture
 * override whose kv_heads do not divide the attention heads (more of them,
 * or groups of unequal size) is refused on its field too. Groups that
 * start -- KV heads copied over a larger group as vLLM does -- still answer.
 */
#include "data/data.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static void
cli_tp(const char *model, const char *tp, const char *needle)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", model, "--tp", tp,
		               "--concurrency", "32", "--input-tokens", "1000", "--output-tokens", "200", NULL };
	if (needle) {
		test_usage_error(argv, needle);
		return;
	}
	test_run_ok(argv);
}

static void
http_refused(CURL *h, const char *body, const char *field, const char *needle)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 422);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, field) == 0);
	CHECK(m && strstr(m, needle) && strlen(m) <= 255);
	if (!(f && strcmp(f, field) == 0 && m && strstr(m, needle)))
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	/* the predictor: the one rule, beside the attention heads' */
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	wc_params_default(&p);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	static const struct {
		const char *model;
		int tp, ok;
	} cases[] = {
		{ "phi-4", 2, 1 },           { "phi-4", 4, 0 },     { "phi-4", 5, 1 },     { "phi-4", 8, 0 },
		{ "phi-4", 10, 1 },          { "Qwen3-14B", 5, 0 }, { "Qwen3-14B", 8, 1 }, { "Qwen3-8B", 16, 1 },
		{ "Qwen3-235B-A22B", 8, 1 }, { "Qwen3-235B-A22B", 16, 1 }, { "phi-4", 20, 1 },
		{ "Llama-2-13B", 8, 1 },     { "Llama-2-13B", 10, 1 },     { "gemma-4-26B-A4B", 2, 1 },
		{ "gemma-4-26B-A4B", 3, 0 }, { "gemma-4-26B-A4B", 16, 1 }, { "gemma-4-26B-A4B", 12, 0 },
		{ "DeepSeek-V3.1", 8, 1 },   { "Kimi-K2", 16, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wc_inference_query q = { .config = test_catalog_config("B200", cases[i].tp, cases[i].model, 8) };
		wc_inference_prediction pw;
		int rc = wc_predict_inference(pr, &q, &pw, &err);
		CHECK_INT(rc, cases[i].ok ? WC_OK : WC_EINVAL);
		if (!cases[i].ok)
			CHECK_CONTAINS(err.msg, "KV heads; vLLM's tensor parallelism cannot start such a group");
		if ((rc == WC_OK) != cases[i].ok)
			fprintf(stderr, "  %s tp %d: %s\n", cases[i].model, cases[i].tp, rc == WC_OK ? "answered" : err.msg);
	}
	wc_predictor_free(pr);

	/* the CLI names --tp and the model's KV heads */
	cli_tp("microsoft/phi-4", "4", "--tp: 4 does not divide phi-4's 10 KV heads; vLLM's tensor parallelism "
	                               "cannot start such a group");
	cli_tp("microsoft/phi-4", "8", "--tp: 8 does not divide phi-4's 10 KV heads");
	cli_tp("Qwen3-14B", "5", "--tp: 5 does not divide Qwen3-14B's 8 KV heads");
	cli_tp("gemma-4-26B-A4B", "12", "--tp: 12 is not a multiple of gemma-4-26B-A4B's 8 KV heads");
	cli_tp("microsoft/phi-4", "2", NULL);
	cli_tp("Qwen3-14B", "8", NULL);
	/* the group a refusal for memory names is one vLLM can start: 3 GPUs
	 * hold phi-4 at u 0.5 on A10G, 4 divide its 40 attention heads but not
	 * its 10 KV heads (tp 4 was named) */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "A10G-24GB", "--model",
	                                        "phi-4", "--gpu-memory-utilization", "0.5", "--concurrency", "1", NULL },
	                 "at least 3 GPUs needed: tp 5, the smallest phi-4's 40 attention and 10 KV heads allow");
	/* No group the heads allow holds the weights: Kimi-K2 in bf16 (2052 GB)
	 * on A10Gs, whose 64 heads allow at most 64 (1286 GB); the refusal
	 * said "at least 103 GPUs needed", a group vLLM cannot start */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "A10G", "--model",
	                                        "Kimi-K2", "--weights", "bf16", "--concurrency", "1", NULL },
	                 "; no tensor-parallel group of this board holds them (at most 64 GPUs by the heads: 1286 GB)");
	/* an override of the KV heads is checked against the attention heads */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100", "--model",
	                                        "Qwen3-8B", "--kv-heads", "64", "--concurrency", "4", NULL },
	                 "--kv-heads: must be at most Qwen3-8B's 32 attention heads");
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100", "--model",
	                                        "Qwen3-8B", "--kv-heads", "12", "--concurrency", "4", NULL },
	                 "--kv-heads: must divide Qwen3-8B's 32 attention heads");
	/* a custom model's KV heads are known: the rule holds for it too */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100",
	                                        "--active-params", "13", "--layers", "40", "--kv-heads", "8",
	                                        "--head-dim", "128", "--d-model", "5120", "--tp", "3",
	                                        "--concurrency", "4", NULL },
	                 "--tp: 3 does not divide custom model's 8 KV heads");
	/* one the user named is called by its name (--model NAME beside it) */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100",
	                                        "--active-params", "13", "--model", "MyDense", "--layers", "40",
	                                        "--kv-heads", "8", "--head-dim", "128", "--d-model", "5120", "--tp",
	                                        "3", "--concurrency", "4", NULL },
	                 "--tp: 3 does not divide MyDense's 8 KV heads");

	/* HTTP: 422 on /tp, and on /architecture/kv_heads */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "default", 2);
	if (srv) {
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"microsoft/phi-4\",\"tp\":4,\"concurrency\":32,"
		                "\"input_tokens\":1000,\"output_tokens\":200}",
		             "/tp", "tp: 4 does not divide phi-4's 10 KV heads");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-14B\",\"tp\":5,\"concurrency\":32}", "/tp",
		             "tp: 5 does not divide Qwen3-14B's 8 KV heads");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"kv_heads\":64},"
		                "\"concurrency\":32,\"input_tokens\":1000,\"output_tokens\":200}",
		             "/architecture/kv_heads", "architecture/kv_heads: must be at most Qwen3-8B's 32 attention heads");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"kv_heads\":12},"
		                "\"concurrency\":32}",
		             "/architecture/kv_heads", "architecture/kv_heads: must divide Qwen3-8B's 32 attention heads");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"MyMoE\",\"active_params_b\":20,\"tp\":3,"
		                "\"architecture\":{\"layers\":48,\"kv_heads\":8,\"head_dim\":128,\"d_model\":6144},"
		                "\"concurrency\":32}",
		             "/tp", "tp: 3 does not divide MyMoE's 8 KV heads");
		/* architecture integers as tp's: 12.0 counts as 12, 1.5 names its
		 * value, a whole number out of range gets the range */
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"kv_heads\":12.0},"
		                "\"concurrency\":32}",
		             "/architecture/kv_heads", "must divide Qwen3-8B's 32 attention heads");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"d_model\":4096.5},"
		                "\"concurrency\":32}",
		             "/architecture/d_model", "architecture/d_model: expected an integer, got 4096.5");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"d_model\":2e6},"
		                "\"concurrency\":32}",
		             "/architecture/d_model", "must be between 1 and 1000000");
		http_reply r;
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-14B\",\"concurrency\":8,\"input_tokens\":3200,"
		               "\"output_tokens\":300,\"architecture\":{\"d_model\":5120.0,\"layers\":4e1}}", &r);
		CHECK_INT(r.status, 200);
		http_reply_free(&r);
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"microsoft/phi-4\",\"tp\":2,\"concurrency\":32,"
		               "\"input_tokens\":1000,\"output_tokens\":200}", &r);
		CHECK_INT(r.status, 200);
		http_reply_free(&r);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_tp_kv_heads");
}

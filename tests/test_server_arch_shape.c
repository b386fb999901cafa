/*
 * A layer count fine-tuning refuses as a typo was answered by inference
 * without a word: Qwen3-8B with --layers 4000 on H100 said 3 requests fit
 * (377 at its 36 layers) and 7.8 s of latency (1.04 s); 13 B with 400
 * layers for 40 fit 14 for 142. A shape whose attention projections alone
 * hold more than the model's active parameters is refused by one rule
 * (wc_model_shape_check, docs/finetune.md "The adapters", docs/capacity.md
 * "Bytes and FLOPs"), naming the fact given: --layers on the CLI, 422
 * invalid_value on /architecture/layers over HTTP, for inference and the
 * flexibility sweep alike; layers 1e6 with head_dim 1e6 was refused on
 * /input_tokens, not on the fact at fault. Every catalog model passes it.
 */
#include "models/catalog.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define QWEN_FLAGS(cmd)                                                                                           \
	"wattcast", "predict", cmd, "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8",            \
	        "--input-tokens", "1000", "--output-tokens", "100"

static const char why[] = "4000 layers of width 4096 hold 167.8 B parameters in their attention projections alone, "
			  "more than the model's 8.19 B: a mistyped width, layer count or parameter count?";

/* Every catalog model, its own layer count given as a fact, passes. */
static void
catalog_passes(void)
{
	for (size_t i = 0; i < wc_model_count(); i++) {
		const wc_model_info *m = wc_model_at(i);
		wc_arch_facts f;
		wc_arch_facts_init(&f);
		f.ints[WC_ARCH_FACT_LAYERS] = m->layers;
		wc_model_info out;
		wc_model_info_with_facts(m, m->name, m->active_params_b, &f, &out);
		wc_error err;
		if (wc_arch_facts_shape_check(&out, &f, &err) != WC_OK) {
			fprintf(stderr, "%s: %s\n", m->name, err.msg);
			CHECK(0);
		}
	}
}

/* Over HTTP: the same refusal on /architecture/layers, inference and the
 * flexibility sweep alike, and a mixture of experts bound by its active
 * parameters. */
static void
http_cases(CURL *h)
{
	static const char *const archs[] = { "{\"layers\":4000}", "{\"layers\":1000000,\"head_dim\":1000000}" };
	static const char *const routes[] = { "/v1/predict/inference", "/v1/predict/flexibility" };
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 2; i++) {
			char body[300];
			snprintf(body, sizeof body,
			         "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":%s,"
			         "\"concurrency\":8,\"input_tokens\":1000,\"output_tokens\":100}", archs[i]);
			http_expect_error(h, "POST", routes[k], "application/json", body, 422, "invalid_value",
			                  "/architecture/layers");
			http_reply r;
			http_post_json(h, url(routes[k]), body, &r);
			const char *m = http_error_str(&r, "message");
			CHECK(m && strlen(m) <= 255);
			if (i == 0)
				CHECK(m && strstr(m, why));
			http_reply_free(&r);
		}
	/* a mixture of experts: its active parameters bound the shape */
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"H100\",\"model\":\"DeepSeek-V3\",\"tp\":8,\"architecture\":{\"layers\":610},"
	               "\"concurrency\":8}", &r);
	CHECK_INT(r.status, 422);
	const char *m = http_error_str(&r, "message");
	CHECK(m && strstr(m, "more than the model's 37 B active"));
	http_reply_free(&r);
}

int
main(void)
{
	catalog_passes();
	char msg[300];
	snprintf(msg, sizeof msg, "--layers: %s", why);
	test_usage_error((const char *const[]){ QWEN_FLAGS("inference"), "--layers", "4000", NULL }, msg);
	test_usage_error((const char *const[]){ QWEN_FLAGS("flexibility"), "--layers", "4000", NULL }, msg);
	test_run_ok((const char *const[]){ QWEN_FLAGS("inference"), "--layers", "40", NULL });
	/* without d_model the heads' width stands for it: 400 x 5120 x
	 * (2 x 5120 + 2 x 1024) = 25.17 B in a 13 B model */
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100",
	                                        "--active-params", "13", "--layers", "400", "--kv-heads", "8",
	                                        "--head-dim", "128", "--attention-heads", "40", "--concurrency", "8",
	                                        NULL },
	                 "--layers: 400 layers of width 5120 hold 25.17 B parameters in their attention projections "
	                 "alone, more than the model's 13 B");

	http_with_default_server(http_cases);
	return check_report("test_server_arch_shape");
}

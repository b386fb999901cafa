/*
 * A model described by its architecture without its attention width
 * answered a prompt's prefill without its attention term (about 2 layers
 * width L_in^2 FLOPs, docs/capacity.md, "Step time"): 13 B, 40 layers on
 * H100 at 32000 tokens in said 1.022 s to the first token, 1.527 s with
 * the width 5120. The width is attention_heads x head_dim, d_model
 * standing in without the heads, so a prompt with neither is refused,
 * naming --attention-heads (HTTP: 422 missing_field
 * /architecture/attention_heads); without a prompt, or with either, it
 * is answered, the heads' width over d_model's.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define ARCH_FLAGS                                                                                            \
	"wattcast", "predict", "inference", "--platform", "H100", "--active-params", "13", "--layers", "40",  \
	        "--kv-heads", "8", "--head-dim", "128", "--concurrency", "4"

/* Over HTTP: a prompt without the width refused on
 * /architecture/attention_heads; the width given enters the prefill. */
static void
http_cases(CURL *h)
{
	const char *body = "{\"platform\":\"H100\",\"active_params_b\":13,\"architecture\":{\"layers\":40,"
	                   "\"kv_heads\":8,\"head_dim\":128},\"concurrency\":4,\"input_tokens\":32000,"
	                   "\"output_tokens\":300}";
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", body, 422, "missing_field",
	                  "/architecture/attention_heads");
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	const char *m = http_error_str(&r, "message");
	CHECK(m && strstr(m, "architecture/attention_heads: required for a prompt of 32000 tokens") &&
	      strlen(m) <= 255);
	http_reply_free(&r);
	/* the catalog's width stands under facts that override others */
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":{\"layers\":30},"
	               "\"concurrency\":4,\"input_tokens\":32000,\"output_tokens\":300}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	/* the width given enters the prefill: a third of the time to
	 * the first token at 32000 tokens, against a width of 1; 40
	 * heads of 128 are d_model 5120's width, and the heads' width
	 * stands over d_model's (64 x 128 = 8192 over 5120) */
	static const char *const widths[] = { "\"d_model\":1", "\"d_model\":5120", "\"attention_heads\":40",
		                              "\"attention_heads\":64,\"d_model\":5120" };
	double ttft[4];
	for (int k = 0; k < 4; k++) {
		char req[400];
		snprintf(req, sizeof req,
		         "{\"platform\":\"H100\",\"active_params_b\":13,\"architecture\":{\"layers\":40,"
		         "\"kv_heads\":8,\"head_dim\":128,%s},\"concurrency\":4,"
		         "\"input_tokens\":32000,\"output_tokens\":300}", widths[k]);
		http_post_json(h, url("/v1/predict/inference"), req, &r);
		CHECK_INT(r.status, 200);
		ttft[k] = json_number_value(json_object_get(json_object_get(r.json, "capacity"), "ttft_s"));
		http_reply_free(&r);
	}
	fprintf(stderr, "HTTP ttft %.4g s at d_model 1, %.4g s at 5120, %.4g s at 40 heads, %.4g at 64\n",
	        ttft[0], ttft[1], ttft[2], ttft[3]);
	CHECK(ttft[1] > 1.3 * ttft[0]);
	CHECK_NEAR(ttft[2], ttft[1], 1e-12);
	CHECK(ttft[3] > 1.2 * ttft[1]);
}

int
main(void)
{
	test_usage_error((const char *const[]){ ARCH_FLAGS, "--input-tokens", "32000", "--output-tokens", "300", NULL },
	                 "--attention-heads: required for a prompt of 32000 tokens: the prefill's attention costs 2 x "
	                 "layers x heads x head_dim x L_in^2 FLOPs");
	/* with the width: the attention term is in (1.527 s, not 1.022) */
	{
		const char *argv[] = { ARCH_FLAGS, "--input-tokens", "32000", "--output-tokens", "300", "--d-model",
			               "5120", "--json", NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
		double ttft = json_number_value(json_object_get(json_object_get(j, "capacity"), "ttft_s"));
		fprintf(stderr, "ttft with d_model %.4g s\n", ttft);
		CHECK(ttft > 1.4 && ttft < 1.7);
		json_decref(j);
		run_result_free(&r);
	}
	/* no prompt, no prefill: nothing to refuse; an empty prompt is no
	 * request vLLM serves, refused naming the flag */
	test_run_ok((const char *const[]){ ARCH_FLAGS, NULL });
	test_run_ok((const char *const[]){ ARCH_FLAGS, "--input-tokens", "32000", "--output-tokens", "300",
	                                   "--attention-heads", "40", NULL });
	test_usage_error((const char *const[]){ ARCH_FLAGS, "--input-tokens", "0", "--output-tokens", "300", NULL },
	                 "--input-tokens");

	http_with_default_server(http_cases);
	return check_report("test_server_prefill_d_model");
}

/*
 * A request past the model's context that the memory cannot hold either
 * (docs/capacity.md, "Memory as vLLM does it"): Llama-3.1-8B on one H100
 * with 460 000 + 1 tokens was refused as "one request of 460001 tokens
 * needs 60.30 GB of KV cache ...; tp 2 holds it; or gpu_memory_utilization
 * 0.92 or more", though vLLM refuses a request past the 131072 tokens of
 * the model's context whatever the GPUs: tp 2 then answered with a warning
 * saying so. The refusal now names the context first and offers no group
 * nor utilization. Its token counts were %g's ("one request of 1.23457e+06
 * tokens" for 1234567 + 1, "2.00026e+06" for 2000000 + 256) and silently
 * summed: they are now printed as given, input + output, in the refusal
 * within the context and in the context's warning too. Whole within 255
 * bytes, CLI and HTTP alike.
 */
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

/* the CLI's refusal of Llama-3.1-8B on `tp` H100s with these lengths: its
 * line is whole (ends as the message does) and within 255 bytes */
static void
cli_refused(const char *tp, const char *in, const char *out, const char *needle, const char *not_said)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Llama-3.1-8B",
		               "--tp", tp, "--concurrency", "1", "--input-tokens", in, "--output-tokens", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, needle);
	const char *msg = strstr(r.err, "--input-tokens: ");
	CHECK(msg != NULL);
	if (msg) {
		const size_t len = strcspn(msg, "\n");
		CHECK(len <= 255);
		CHECK(len > 17 && strncmp(msg + len - 17, "after the weights", 17) == 0);
	}
	CHECK(strstr(r.err, not_said) == NULL);
	CHECK(strstr(r.err, "e+0") == NULL);
	run_result_free(&r);
}

static void
http_refused(CURL *h, const char *body, const char *needle)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 422);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, "/input_tokens") == 0);
	const int ok = m && strstr(m, needle) && strlen(m) <= 255 && !strstr(m, "holds it") &&
	               !strstr(m, "gpu_memory_utilization 0.") && !strstr(m, "e+0") &&
	               strstr(m, "GB are left after the weights");
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	double fit;
	wc_params_default(&p);

	/* the predictor: the context first, no remedy */
	wc_config c = test_catalog_config("H100", 1, "Llama-3.1-8B", 1);
	c.input_tokens = 460000;
	c.output_tokens = 1;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "input_tokens: 460000 + 1 tokens exceed Llama-3.1-8B's context of 131072 tokens "
	                        "(config.json), which vLLM refuses; nor would 1 x H100 (85.5 GB each) hold its 60.30 GB "
	                        "of KV cache: 59.27 GB are left after the weights");
	CHECK(strstr(err.msg, "tp 2") == NULL);
	CHECK(strstr(err.msg, "gpu_memory_utilization 0.") == NULL);
	CHECK(strlen(err.msg) + 2 <= 255);
	/* an output past the context names its field */
	c.input_tokens = 100;
	c.output_tokens = 460000;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "output_tokens: 100 + 460000 tokens exceed Llama-3.1-8B's context");
	/* weights that do not fit either: still the context first, no group */
	c = test_catalog_config("H100", 1, "Llama-3.1-405B", 1);
	c.input_tokens = 1234567;
	c.output_tokens = 1;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "input_tokens: 1234567 + 1 tokens exceed Llama-3.1-405B's context of 131072 tokens "
	                        "(config.json), which vLLM refuses; nor do 1 x H100");
	CHECK(strstr(err.msg, "GPUs needed") == NULL && strstr(err.msg, "tp 16") == NULL);
	/* within the context the remedies stay, the counts as given */
	c = test_catalog_config("H100", 2, "Llama-3.1-70B", 1);
	c.input_tokens = 120000;
	c.output_tokens = 1000;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "input_tokens: one request of 120000 + 1000 tokens needs 39.65 GB");
	CHECK_CONTAINS(err.msg, "; tp 4 holds it");

	/* the CLI, counts exact */
	cli_refused("1", "460000", "1", "--input-tokens: 460000 + 1 tokens exceed Llama-3.1-8B's context of 131072 "
	            "tokens (config.json), which vLLM refuses", "holds it");
	cli_refused("1", "1234567", "1", "--input-tokens: 1234567 + 1 tokens exceed", "gpu-memory-utilization 0.");
	cli_refused("1", "2000000", "256", "--input-tokens: 2000000 + 256 tokens exceed", "holds it");
	/* the warning of a request past the context that memory holds */
	{
		const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model",
			               "Llama-3.1-8B", "--tp", "8", "--concurrency", "1", "--input-tokens", "1234567",
			               "--output-tokens", "1", NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "warning: input_tokens: 1234567 + 1 tokens exceed Llama-3.1-8B's context of 131072 "
		                      "tokens (config.json); vLLM refuses");
		CHECK(strstr(r.out, "1.23457e+06") == NULL);
		run_result_free(&r);
	}

	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "default", 2);
	CHECK(srv != NULL);
	if (srv) {
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Llama-3.1-8B\",\"concurrency\":1,\"input_tokens\":460000,"
		                "\"output_tokens\":1}",
		             "input_tokens: 460000 + 1 tokens exceed Llama-3.1-8B's context of 131072 tokens (config.json), "
		             "which vLLM refuses; nor would 1 x H100");
		http_refused(h, "{\"platform\":\"H100\",\"model\":\"Llama-3.1-8B\",\"concurrency\":1,"
		                "\"input_tokens\":1234567,\"output_tokens\":1}",
		             "input_tokens: 1234567 + 1 tokens exceed");
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_context_refusal");
}

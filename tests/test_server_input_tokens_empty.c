/*
 * An empty prompt is no request vLLM serves: input_tokens 0 is refused,
 * HTTP 422 invalid_value on /input_tokens and CLI exit 2 naming
 * --input-tokens (docs/http-api.md, docs/cli.md). Both answered it as a
 * request, TTFT a bare decode step and no warning.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

/* Over HTTP: input_tokens 0 refused on /input_tokens, 1 answered. */
static void
http_cases(CURL *h)
{
	http_expect_says(h, "POST", "/v1/predict/inference",
	                 "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":0,"
	                 "\"output_tokens\":100}",
	                 422, "invalid_value", "/input_tokens", "input_tokens: must be", NULL);
	http_expect_says(h, "POST", "/v1/predict/flexibility",
	                 "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":0,"
	                 "\"output_tokens\":100}",
	                 422, "invalid_value", "/input_tokens", "input_tokens: must be", NULL);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":1,"
	               "\"output_tokens\":100}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
}

int
main(void)
{
	const char *inf[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		              "--concurrency", "8", "--input-tokens", "0", "--output-tokens", "100", NULL };
	test_usage_error(inf, "--input-tokens: must be >= 1, got '0'");
	const char *flex[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "8", "--input-tokens", "0", "--output-tokens", "100", NULL };
	test_usage_error(flex, "--input-tokens: must be >= 1, got '0'");
	const char *one[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		              "--concurrency", "8", "--input-tokens", "1", "--output-tokens", "100", NULL };
	test_run_ok(one);

	http_with_default_server(http_cases);
	return check_report("test_server_input_tokens_empty");
}

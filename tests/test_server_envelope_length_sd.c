/*
 * A lognormal length's sd on POST /v1/forecast/envelope and
 * /v1/plan/budget (docs/http-api.md, "Envelopes"; docs/envelopes.md,
 * "Workloads"): its bound is 100 times the mean (wc_envelope_length_max_sd),
 * where the docs and the schema gave only 10^9, and its refusal named the
 * length, /workload/input_tokens, with the library's words ("input_tokens:
 * sd must be ..."). It is now 422 invalid_value on /workload/input_tokens/sd,
 * with the bound and the value as sent; the CLI's lognormal:MEAN:SD says
 * the same bound.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define ENV(length)                                                                                          \
	"{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":1," length "},"      \
	"\"horizon_s\":10,\"include_bins\":false}"
#define PLAN(length)                                                                                         \
	"{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":1," length "},"      \
	"\"horizon_s\":10,\"budget_w\":5000}"

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "envelope-length-sd", 2);
	if (!srv)
		return check_report("test_server_envelope_length_sd");
	CURL *h = curl_easy_init();

	http_expect_invalid(h, "/v1/forecast/envelope", ENV("\"input_tokens\":{\"mean\":500,\"sd\":50001}"),
	                    "/workload/input_tokens/sd",
	                    "workload/input_tokens/sd: must be at most 100 times the mean, 50000, got 50001");
	/* within the schema's 1e9, still beyond the mean's bound */
	http_expect_invalid(h, "/v1/forecast/envelope", ENV("\"input_tokens\":{\"mean\":500,\"sd\":1e9}"),
	                    "/workload/input_tokens/sd",
	                    "workload/input_tokens/sd: must be at most 100 times the mean, 50000, got 1000000000");
	http_expect_invalid(h, "/v1/plan/budget", PLAN("\"output_tokens\":{\"mean\":5,\"sd\":501}"),
	                    "/workload/output_tokens/sd",
	                    "workload/output_tokens/sd: must be at most 100 times the mean, 500, got 501");

	/* at the bound: answered */
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), ENV("\"input_tokens\":{\"mean\":500,\"sd\":50000}"), &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);

	/* the command line's lognormal:MEAN:SD, the same bound */
	const char *cli[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		              "--input-tokens", "lognormal:500:50001", "--horizon", "10", NULL };
	test_usage_error(cli, "--input-tokens: sd must be >= 0 and at most 100 times the mean, 50000, got 50001");

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_envelope_length_sd");
}

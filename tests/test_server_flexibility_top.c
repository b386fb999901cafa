/*
 * POST /v1/predict/flexibility's power-cap sweep starts at the
 * unconstrained point (docs/capacity.md, "Power flexibility"), as the
 * CLI's does (one code path, tests/test_flexibility_top.c): H100
 * Llama-3.1-70B on 4 GPUs at 2.2 requests/s of 8 192 + 64 tokens began at
 * a 496.5 W cap, over capacity, shedding -7.4 W, with no knee nor optimum,
 * though a 550 W cap serves the rate at the unconstrained point.
 */
#include "data/data.h"
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

static CURL *h;

static void
top_step(const char *body, double rate_tokens)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/flexibility"), body, &r);
	CHECK_INT(r.status, 200);
	const json_t *s0 = json_array_get(json_object_get(r.json, "steps"), 0);
	CHECK(s0 != NULL);
	fprintf(stderr, "%s\n  -> top cap %.1f W at %.0f MHz, shed %.3f W, %.5g tokens/s\n", body,
	        http_json_num(s0, "power_cap_w"), http_json_num(s0, "sm_clock_mhz"), http_json_num(s0, "power_shed_w"),
	        http_json_num(s0, "throughput_tok_s"));
	CHECK(http_json_num(s0, "power_shed_w") >= -0.5 && http_json_num(s0, "power_shed_w") <= 0.5);
	CHECK(json_is_false(json_object_get(s0, "over_capacity")));
	CHECK_NEAR(http_json_num(s0, "throughput_tok_s"), rate_tokens, 1e-6 * rate_tokens);
	CHECK(isfinite(http_json_num(r.json, "knee_clock_mhz")));
	CHECK(isfinite(http_json_num(r.json, "energy_optimal_clock_mhz")));
	http_reply_free(&r);
}

int
main(void)
{
	wc_params measured = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	srv = http_server_start(&measured, "profile:measured", 2);
	if (!srv)
		return check_report("test_server_flexibility_top");
	top_step("{\"platform\":\"H100\",\"tp\":4,\"model\":\"Llama-3.1-70B\",\"rate\":2.2,\"input_tokens\":8192,"
	         "\"output_tokens\":64,\"sweep\":\"power_cap\",\"steps\":6}", 2.2 * 64);
	top_step("{\"platform\":\"B200\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":4.8,\"input_tokens\":8192,"
	         "\"output_tokens\":64,\"sweep\":\"power_cap\",\"steps\":4}", 4.8 * 64);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_flexibility_top");
}

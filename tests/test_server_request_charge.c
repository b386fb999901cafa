/*
 * A single inference request is charged by the profile it names
 * (docs/http-api.md, "Limits"): a 40 000-sample series on a set without
 * draws took 0.03 s, yet on a server also serving a set of 1000 draws it
 * was refused with 413, charged by that other set's draws. On the set of
 * 1000 draws it is 413, as a batch item would be. A flexibility sweep is
 * charged its steps the same way.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
series_body(const char *profile, int samples)
{
	size_t cap = (size_t)samples * 2 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s, cap, "{%s%s%s\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"dt_s\":0.05,"
	                        "\"running_series\":[", profile ? "\"profile\":\"" : "", profile ? profile : "",
	                        profile ? "\"," : "");
	for (int k = 0; k < samples; k++) {
		if (k)
			s[len++] = ',';
		s[len++] = '1';
	}
	snprintf(s + len, cap - len, "]}");
	return s;
}

/* A flexibility sweep is held to the same budget (docs/http-api.md, "POST
 * /v1/predict/flexibility"): steps + 2 capacity answers at the set's
 * draws, each (1 + 6 + 175) x 3000 for an open loop on the set of 3000
 * draws (546000 each), and a clock sweep's knee and energy optimum caps
 * 2 items with power_cap_w more (846240 each: at a rate the cap settles
 * the point and both ends of its interval): 64 steps need 37728480,
 * 59 fit. Unbounded, a sweep took what
 * its steps took, outside the heavy cap too. */
static void
sweep_charge(CURL *h)
{
	static const char *const bodies[] = {
		"{\"profile\":\"swept\",\"steps\":64,\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"rate\":2,"
		"\"input_tokens\":1000,\"output_tokens\":300}",
		"{\"profile\":\"swept\",\"steps\":59,\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"rate\":2,"
		"\"input_tokens\":1000,\"output_tokens\":300}",
		"{\"steps\":64,\"sweep\":\"power_cap\",\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"rate\":2,"
		"\"input_tokens\":1000,\"output_tokens\":300}",
	};
	for (int i = 0; i < 3; i++) {
		http_reply r;
		http_post_json(h, url("/v1/predict/flexibility"), bodies[i], &r);
		CHECK_INT(r.status, i == 0 ? 413 : 200);
		if (i == 0 && r.json) {
			CHECK(strcmp(http_error_str(&r, "code"), "work_budget_exceeded") == 0);
			CHECK(strcmp(http_error_str(&r, "field"), "/steps") == 0);
			CHECK_CONTAINS(http_error_str(&r, "message"), "steps: a sweep of 64 steps (clock, each open-loop "
			               "capacity) needs 37728480 law evaluations, more than the budget of 35000000");
			CHECK_CONTAINS(http_error_str(&r, "message"), "ask at most 59 steps");
			CHECK(strlen(http_error_str(&r, "message")) <= 255);
		}
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params plain = WC_PARAMS_INIT, drawn = WC_PARAMS_INIT, swept = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	char names[1][WC_LABEL_MAX] = { "theta[H100]" };
	static double draws[1000];
	CURL *h;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&plain);
	wc_params_default(&drawn);
	snprintf(drawn.name, sizeof drawn.name, "drawn");
	for (int i = 0; i < 1000; i++)
		draws[i] = drawn.levels[1].theta.value + 1e-4 * (i - 500);
	CHECK_INT(wc_params_set_draws(&drawn, 1000, 1, (const char (*)[WC_LABEL_MAX])names, draws, &err), WC_OK);
	static double more[3000];
	wc_params_default(&swept);
	snprintf(swept.name, sizeof swept.name, "swept");
	for (int i = 0; i < 3000; i++)
		more[i] = swept.levels[1].theta.value + 1e-5 * (i - 1500);
	CHECK_INT(wc_params_set_draws(&swept, 3000, 1, (const char (*)[WC_LABEL_MAX])names, more, &err), WC_OK);
	const wc_params *sets[3] = { &plain, &drawn, &swept };
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	CHECK_INT(wc_server_start_profiles(&so, 3, sets, NULL, &srv, &err), WC_OK);
	if (srv) {
		http_set_base(wc_server_port(srv));
		const char *asked[3] = { NULL, "paper", "drawn" };
		for (int i = 0; i < 3; i++) {
			http_reply r;
			char *body = series_body(asked[i], 40000);
			http_post_json(h, url("/v1/predict/inference"), body, &r);
			CHECK_INT(r.status, i < 2 ? 200 : 413);
			if (i == 2)
				CHECK(r.json && strcmp(http_error_str(&r, "field"), "/running_series") == 0);
			http_reply_free(&r);
			free(body);
		}
		sweep_charge(h);
		wc_server_stop(srv);
	}
	wc_params_clear(&plain);
	wc_params_clear(&drawn);
	wc_params_clear(&swept);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_request_charge");
}

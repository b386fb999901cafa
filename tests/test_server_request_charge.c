/*
 * A single inference request is charged by the profile it names
 * (docs/http-api.md, "Limits"): a 40 000-sample series on a set without
 * draws took 0.03 s, yet on a server also serving a set of 1000 draws it
 * was refused with 413, charged by that other set's draws. On the set of
 * 1000 draws it is 413, as a batch item would be.
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

int
main(void)
{
	wc_params plain = WC_PARAMS_INIT, drawn = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	char names[1][WC_NAME_MAX] = { "theta[H100]" };
	static double draws[1000];
	CURL *h;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&plain);
	wc_params_default(&drawn);
	snprintf(drawn.name, sizeof drawn.name, "drawn");
	for (int i = 0; i < 1000; i++)
		draws[i] = drawn.levels[1].theta.value + 1e-4 * (i - 500);
	CHECK_INT(wc_params_set_draws(&drawn, 1000, 1, (const char (*)[WC_NAME_MAX])names, draws, &err), WC_OK);
	const wc_params *sets[2] = { &plain, &drawn };
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	CHECK_INT(wc_server_start_profiles(&so, 2, sets, NULL, &srv, &err), WC_OK);
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
		wc_server_stop(srv);
	}
	wc_params_clear(&plain);
	wc_params_clear(&drawn);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_request_charge");
}

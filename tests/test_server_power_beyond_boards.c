/*
 * Power no board draws is no answer over HTTP as on the command line
 * (docs/intervals.md, "Physical ceiling"), load by load: with the `paper`
 * profile's A100 S raised to 9000 W (the law gives 1318 W per GPU at 64
 * running at the clock of least power, 8434 W at the top clock), a
 * running_series [64, 64, 0, 0] averaged 695.5 W per GPU, under the bound,
 * and was answered; an envelope's n(t) of the same series was held at the
 * board's limit (238.1 W), and a budget plan of 64 clients sized a fleet of
 * 12 by the limit. Each is now 422 invalid_value on /platform naming the
 * load; the profile itself still answers every one of them.
 */
#include "data/params_file.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

#define BEYOND "over twice the 440 W A100 boards can average (1.1 x their limit): no board draws that"
#define CONFIG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"tp\":1,"

static const char *const req[][3] = {
	{ "/v1/predict/inference", "{" CONFIG "\"running_series\":[64,64,0,0],\"dt_s\":1}",
	  "1318 W per GPU at 64 running, 50.0 % of the series, " },
	{ "/v1/forecast/envelope", "{" CONFIG "\"include_bins\":false,\"horizon_s\":4,"
	  "\"workload\":{\"type\":\"n_series\",\"running_series\":[64,64,0,0],\"dt_s\":1}}",
	  "8434 W per GPU at 64 running, 50.0 % of the series, " },
	{ "/v1/forecast/envelope", "{" CONFIG "\"include_bins\":false,\"horizon_s\":60,\"replicas\":2,"
	  "\"workload\":{\"type\":\"closed\",\"concurrency\":64}}", "1318 W per GPU at 64 running, " },
	{ "/v1/plan/budget", "{" CONFIG "\"budget_w\":5000,\"horizon_s\":60,"
	  "\"workload\":{\"type\":\"closed\",\"concurrency\":64}}", "8434 W per GPU at 64 running, " },
};

static void
ask(int refused)
{
	for (size_t k = 0; k < sizeof req / sizeof req[0]; k++) {
		http_reply r;
		http_post_json(h, url(req[k][0]), req[k][1], &r);
		CHECK_INT(r.status, refused ? 422 : 200);
		if (refused) {
			const char *f = http_error_str(&r, "field"), *c = http_error_str(&r, "code");
			const char *m = http_error_str(&r, "message");
			CHECK(f && strcmp(f, "/platform") == 0);
			CHECK(c && strcmp(c, "invalid_value") == 0);
			CHECK(m && strncmp(m, "platform: the law gives ", 24) == 0 && strlen(m) <= 255);
			CHECK_CONTAINS(m, req[k][2]);
			CHECK_CONTAINS(m, BEYOND);
		}
		if (r.status != (refused ? 422 : 200))
			fprintf(stderr, "%s -> %ld %s\n", req[k][0], r.status, r.body ? r.body : "");
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params paper, huge;
	wc_error err;
	gsl_set_error_handler_off();
	CHECK_INT(wc_params_profile("paper", &paper, &err), WC_OK);
	CHECK_INT(wc_params_profile("paper", &huge, &err), WC_OK);
	wc_level *a100 = (wc_level *)wc_params_level(&huge, "A100");
	CHECK(a100 && a100->s.value == 329.0);
	if (!a100)
		return check_report("test_server_power_beyond_boards");
	a100->s.value = 9000.0; /* huge.json of tests/test_cli_power_beyond_boards.c */
	a100->s.lo = 8900.0;
	a100->s.hi = 9100.0;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	const wc_params *sets[2] = { &huge, &paper };
	for (int i = 0; i < 2; i++) {
		wc_server *srv = http_server_start(sets[i], i ? "profile:paper" : "huge", 2);
		if (!srv)
			continue;
		ask(i == 0);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&huge);
	wc_params_clear(&paper);
	return check_report("test_server_power_beyond_boards");
}

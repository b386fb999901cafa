/*
 * A budget plan that fits not even one server says its level and load as
 * a plan that fits some does (docs/envelopes.md, "Budget plans"): its
 * next_stat_w is one server's draw, from the same level, at that server's
 * load. H100, Qwen3-8B, Poisson 2/s of 512 + 256 tokens under the
 * `measured` profile: under 1e12 W the plan warned "platform: the fit of
 * level 'H100' ended at a physical bound ..." and "mean_running: load ...
 * is outside ..."; under 300 W (0 servers, one drawing 394.4 W) it gave
 * "warnings": [] over HTTP and no warning line on the CLI.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static const char *const level_words[] = { "platform: the fit of level 'H100' ended at a physical bound",
	                                   "mean_running: load " };

/* The warnings of the plan under `budget` that start with each of
 * level_words, into found[]; its fleet size returned. */
static int
http_plan(CURL *h, const char *budget, int found[2])
{
	char body[400];
	snprintf(body, sizeof body,
	         "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":2,"
	         "\"input_tokens\":512,\"output_tokens\":256},\"budget_w\":%s,\"horizon_s\":60,\"max_fleet\":50}",
	         budget);
	http_reply r;
	http_post_json(h, url("/v1/plan/budget"), body, &r);
	CHECK_INT(r.status, 200);
	const json_t *w = json_object_get(r.json, "warnings");
	found[0] = found[1] = 0;
	for (size_t i = 0; i < json_array_size(w); i++)
		for (int k = 0; k < 2; k++) {
			const char *s = json_string_value(json_array_get(w, i));
			found[k] += s && strncmp(s, level_words[k], strlen(level_words[k])) == 0;
		}
	const int size = (int)json_integer_value(json_object_get(json_object_get(r.json, "plan"), "fleet_size"));
	http_reply_free(&r);
	return size;
}

static void
http_cases(CURL *h)
{
	int big[2], zero[2];
	CHECK_INT(http_plan(h, "1e12", big), 50);
	CHECK_INT(http_plan(h, "300", zero), 0);
	for (int k = 0; k < 2; k++) {
		CHECK_INT(big[k], 1);
		CHECK_INT(zero[k], 1);
	}
}

/* The CLI's text and --json answers of the plan of 0 servers. */
static void
cli_cases(void)
{
	for (int json = 0; json < 2; json++) {
		const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--platform", "H100", "--model",
			               "Qwen3-8B", "--poisson", "2", "--input-tokens", "512", "--output-tokens", "256",
			               "--horizon", "60", "--budget", "300", "--max-fleet", "50",
			               json ? "--json" : NULL, NULL };
		char *said = test_run_said(argv);
		CHECK(said && strstr(said, json ? "\"fleet_size\": 0" : "budget plan: 0 servers"));
		for (int k = 0; k < 2; k++)
			CHECK(said && strstr(said, level_words[k]));
		free(said);
	}
}

int
main(void)
{
	cli_cases();
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "measured", 2);
	if (srv) {
		http_cases(h);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_plan_zero_warnings");
}

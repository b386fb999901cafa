/*
 * A budget plan on the assumed response carries the envelope's hold
 * warning by the same rule (docs/envelopes.md, "Assumed response"): the
 * hold changes the fleet a budget allows. An n(t) of 32 running and idle
 * by turns every 0.25 s on A100, Qwen3-8B (measured profile) under 3 kW
 * (max of 1 s means) plans 11 servers at the assumed 0.1 s hold and 13 at
 * hold 0, and said nothing of it (POST /v1/plan/budget, `wattcast envelope
 * --budget`), where the envelope of the same workload warned. Now the
 * plan says it, naming the plan at hold 0 for lockstep servers (one
 * server simulated again) and the servers' mean otherwise; a hold given
 * says nothing.
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"
#include "tests/support/synth_hold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

/* the body's members after its workload */
#define TAIL "\"horizon_s\":600,\"budget_w\":3000,\"stat\":\"max\""

static const char *const said_head = "hold_s: the assumed hold of 0.1 s (not fitted) keeps the busy power over "
                                     "idle gaps for 20 % of the horizon: at hold 0 mean_w would be about ";
static const char *const said_tail = "; fitted holds are under 1 ms (docs/envelopes.md, \"Assumed response\")";

static int
fleet(const json_t *plan)
{
	return (int)json_integer_value(json_object_get(json_object_get(plan, "plan"), "fleet_size"));
}

static void
test_plan_said(void)
{
	http_reply r, r0, rg;
	char *b = synth_hold_body(TAIL, ""), *b0 = synth_hold_body(TAIL, "\"response\":{\"hold_s\":0}"),
	     *bg = synth_hold_body(TAIL, "\"response\":{\"hold_s\":0.1}");
	http_post_json(h, url("/v1/plan/budget"), b, &r);
	http_post_json(h, url("/v1/plan/budget"), b0, &r0);
	http_post_json(h, url("/v1/plan/budget"), bg, &rg);
	CHECK_INT(r.status, 200);
	CHECK_INT(r0.status, 200);
	CHECK_INT(rg.status, 200);
	printf("plan: %d servers at the assumed hold, %d at hold 0\n", fleet(r.json), fleet(r0.json));
	CHECK(fleet(r0.json) > fleet(r.json)); /* 13 and 11: the hold changes the fleet */
	const char *said = synth_hold_warning(json_object_get(r.json, "warnings"));
	CHECK(said != NULL);
	if (said) {
		printf("said: %s\n", said);
		CHECK(strncmp(said, said_head, strlen(said_head)) == 0);
		CHECK(strlen(said) < WC_WARNING_LEN);
		char want[64];
		snprintf(want, sizeof want, " %% lower, the plan %d servers;", fleet(r0.json));
		CHECK_CONTAINS(said, want);
		CHECK(strlen(said) > strlen(said_tail) && strcmp(said + strlen(said) - strlen(said_tail), said_tail) == 0);
	}
	/* a hold given (0, or the same 0.1 s) is the user's: nothing said */
	CHECK(synth_hold_warning(json_object_get(r0.json, "warnings")) == NULL);
	CHECK(synth_hold_warning(json_object_get(rg.json, "warnings")) == NULL);
	/* the CLI says it in the same words, text and --json */
	char *dir = test_tmpdir("plan_hold"), *csv = path_join(dir, "alt.csv");
	CHECK(synth_hold_series_file(csv) == 0);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", csv,
		               "--horizon", "600", "--budget", "3000", "--budget-stat", "max", "--quiet", "--json",
		               NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	json_t *cli = json_loads(rr.out ? rr.out : "", 0, NULL);
	const char *cli_said = synth_hold_warning(json_object_get(cli, "warnings"));
	CHECK(said && cli_said && strcmp(said, cli_said) == 0);
	json_decref(cli);
	run_result_free(&rr);
	argv[15] = NULL; /* text */
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_CONTAINS(rr.out, "warning: hold_s: the assumed hold of 0.1 s (not fitted)");
	run_result_free(&rr);
	/* servers that draw at random are not simulated again: the warning
	 * says whose mean it is (a closed loop of one client thinking 0.05 s
	 * between short requests is held 18 % of its horizon) */
	const char *closed[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "1",
		                 "--think", "0.05", "--input-tokens", "512", "--output-tokens", "lognormal:16:8",
		                 "--horizon", "600", "--budget", "3000", "--quiet", NULL };
	CHECK_INT(run_wattcast(closed, NULL, &rr), 0);
	CHECK_CONTAINS(rr.out, "warning: hold_s: the assumed hold of 0.1 s (not fitted)");
	CHECK_CONTAINS(rr.out, " % lower, per server; fitted holds are under 1 ms");
	run_result_free(&rr);
	const char *given[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", csv,
		                "--horizon", "600", "--budget", "3000", "--budget-stat", "max", "--quiet", "--hold",
		                "0.1", NULL };
	CHECK_INT(run_wattcast(given, NULL, &rr), 0);
	CHECK(rr.out && strstr(rr.out, "hold_s:") == NULL);
	run_result_free(&rr);
	free(csv);
	free(dir);
	free(b);
	free(b0);
	free(bg);
	http_reply_free(&r);
	http_reply_free(&r0);
	http_reply_free(&rg);
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
	if (!(srv = http_server_start(&measured, "profile:measured", 2)))
		return check_report("test_server_plan_hold");
	test_plan_said();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_plan_hold");
}

/*
 * A plan of a shared arrival process is charged what it simulates
 * (docs/http-api.md, "Bounds"). Its worst case, the largest sum of
 * probes over every fleet that may fit, was charged before any work: 5 kW
 * of round-robin A100 servers over the default 600 s at Poisson 2 req/s
 * was 413 at 395 server runs x 8 x 12 000 bins (3.79e7 > 2e7), though
 * the plan simulates 72 (15 servers fit) and the CLI answers it in 0.2 s
 * of CPU. Its search now meters each probe before it runs: that plan
 * answers 200, the CLI's plan; one whose probes really pass the bound (a
 * near-idle Poisson 0.01 req/s, which fits nearly as many servers as the
 * idle power allows) is 413 naming /budget_w and the budget that always
 * answers, which does.
 */
#include "data/params_file.h"
#include "predict/envelope_budget.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

static void
post(const char *tail, http_reply *r)
{
	char body[512];
	snprintf(body, sizeof body, "{" CFG ",%s}", tail);
	http_post_json(h, url("/v1/plan/budget"), body, r);
}

static void
test_shared_plan_answers(void)
{
	http_reply r;
	post("\"workload\":{\"type\":\"poisson\",\"rate\":2},\"budget_w\":5000,\"fleet_mode\":\"round_robin\"", &r);
	CHECK_INT(r.status, 200);
	const json_t *plan = json_object_get(r.json, "plan");
	/* `wattcast envelope --platform A100 --model Qwen3-8B --poisson 2 --budget 5000 --fleet-mode round_robin` */
	CHECK_NEAR(http_json_num(plan, "fleet_size"), 15, 0);
	CHECK_NEAR(http_json_num(plan, "servers_simulated"), 72, 0);
	if (r.status != 200)
		fprintf(stderr, "  -> %s\n", r.body ? r.body : "");
	http_reply_free(&r);
}

static void
test_too_big_says_how_much(void)
{
	http_reply r;
	post("\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"budget_w\":5000,\"fleet_mode\":\"round_robin\"", &r);
	CHECK_INT(r.status, 413);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, "/budget_w") == 0);
	CHECK(m && strstr(m, "budget_w: the plan's probes would take "));
	CHECK(m && strstr(m, "over this server's limit of 20000000"));
	const char *up = m ? strstr(m, "lower budget_w to ") : NULL;
	CHECK(up != NULL);
	CHECK(m && strlen(m) <= 255 && strcmp(m + strlen(m) - strlen("shorten the horizon"), "shorten the horizon") == 0);
	if (!up) {
		fprintf(stderr, "  -> %s\n", r.body ? r.body : "");
		http_reply_free(&r);
		return;
	}
	const double said = strtod(up + strlen("lower budget_w to "), NULL);
	http_reply_free(&r);
	/* the budget it names answers, and a watt more is charged more */
	char tail[256];
	snprintf(tail, sizeof tail, "\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"budget_w\":%.0f,"
	         "\"fleet_mode\":\"round_robin\"", said);
	post(tail, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
}

/* Independent servers are charged their largest probe, which they
 * simulate, before any work; the 413 names the budget that passes (it
 * said "lower max_fleet or budget_w", and max_fleet changed nothing). */
static void
test_independent_says_how_much(void)
{
	http_reply r;
	post("\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"budget_w\":5000,\"horizon_s\":20000", &r);
	CHECK_INT(r.status, 413);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, "/budget_w") == 0);
	const char *up = m ? strstr(m, "shorten the horizon, or lower budget_w to ") : NULL;
	CHECK(up != NULL && strlen(m) <= 255 && strcmp(m + strlen(m) - strlen(" W or less"), " W or less") == 0);
	if (!up) {
		fprintf(stderr, "  -> %s\n", r.body ? r.body : "");
		http_reply_free(&r);
		return;
	}
	const double said = strtod(up + strlen("shorten the horizon, or lower budget_w to "), NULL);
	http_reply_free(&r);
	char tail[256];
	snprintf(tail, sizeof tail, "\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"budget_w\":%.0f,"
	         "\"horizon_s\":20000", said);
	post(tail, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
}

/* The charge grows with the budget, so "up to" is a bound below which every
 * budget answers (envelope_walk.c's bisection relies on it). */
static void
test_charge_grows(void)
{
	wc_power_map pm = { 0 };
	pm.tp = 1;
	pm.idle_w = 84.212;
	double last = 0.0;
	int grows = 1;
	for (double b = 10.0; b < 300 * pm.idle_w; b += 7.0) {
		wc_budget_options bo = { b, WC_BUDGET_P95, 1000, 1.0 };
		const double c = wc_envelope_budget_servers(&bo, &pm, WC_FLEET_ROUND_ROBIN);
		grows &= c >= last;
		last = c;
	}
	CHECK(grows);
	for (int f = 1, prev = 0; f < 400; f++) {
		wc_budget_options bo = { 1e7, WC_BUDGET_P95, f, 1.0 };
		const int c = (int)wc_envelope_budget_servers(&bo, &pm, WC_FLEET_ROUND_ROBIN);
		CHECK(c >= prev);
		prev = c;
	}
}

int
main(void)
{
	wc_params meas = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	gsl_set_error_handler_off();
	test_charge_grows();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &meas, &err), WC_OK);
	srv = http_server_start(&meas, "profile:measured", 2);
	CHECK(srv != NULL);
	if (srv) {
		test_shared_plan_answers();
		test_too_big_says_how_much();
		test_independent_says_how_much();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&meas);
	return check_report("test_server_plan_metered");
}

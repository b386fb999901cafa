/*
 * What a budget plan's 413 names (docs/http-api.md, "Bounds"): the field
 * that sets the servers it can simulate, which is budget_w where the
 * budget's idle-power bound (budget_w / (tp x P0) + 1, the first fleet
 * surely over it) is at most max_fleet, else max_fleet. 1000 W over
 * A100's 72.9 W idle allows 14 servers whatever max_fleet 16 or 1000
 * says; the 413 named /max_fleet, which changed nothing. What it charges
 * a shared arrival process: the worst case of the sizes its search
 * probes, so ordinary plans answer (5 kW of round-robin servers over
 * 300 s was charged 1152 server runs and refused; it simulates 72). And
 * budget_w's range, the CLI's --budget's too (models/limits.h): > 0 and
 * at most 1e12 W.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <string.h>

static CURL *h;

#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

/* The 413's field and message for a plan of `tail` (the body after CFG). */
static void
expect_413(const char *tail, const char *field, const char *names)
{
	char body[512];
	snprintf(body, sizeof body, "{" CFG ",%s}", tail);
	http_reply r;
	http_post_json(h, url("/v1/plan/budget"), body, &r);
	CHECK_INT(r.status, 413);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, field) == 0);
	CHECK(m && strstr(m, names));
	if (!f || strcmp(f, field) != 0 || !m || !strstr(m, names))
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

static void
test_names_what_sets_servers(void)
{
	/* a day's grid x 14 servers: the budget's 14 */
	const char *day = "\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"horizon_s\":86400,\"budget_w\":1000";
	char tail[256];
	snprintf(tail, sizeof tail, "%s,\"max_fleet\":16", day);
	expect_413(tail, "/budget_w", "budget_w: the simulation would take ");
	snprintf(tail, sizeof tail, "%s,\"max_fleet\":1000", day);
	expect_413(tail, "/budget_w", "14 server runs");
	/* max_fleet under the budget's bound sets them: it is named */
	expect_413("\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"horizon_s\":86400,\"budget_w\":1e6,"
	           "\"max_fleet\":200", "/max_fleet", "max_fleet: the simulation would take ");
}

/* A plan of `tail` answers, simulating no more than `charged` servers. */
static void
expect_plan(const char *tail, double charged)
{
	char body[512];
	snprintf(body, sizeof body, "{" CFG ",%s}", tail);
	http_reply r;
	http_post_json(h, url("/v1/plan/budget"), body, &r);
	CHECK_INT(r.status, 200);
	const double simulated = http_json_num(json_object_get(r.json, "plan"), "servers_simulated");
	CHECK(simulated >= 1 && simulated <= charged);
	if (r.status != 200 || !(simulated <= charged))
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

static void
test_shared_plans_answer(void)
{
	/* 5 kW: 69 servers surely over it; the worst fit, 63, takes 416 runs
	 * (1 to 32, 64, then 48 to 63); 416 x 6000 bins x 8 is under 2e7 */
	const char *rr = "\"workload\":{\"type\":\"poisson\",\"rate\":2},\"budget_w\":5000,"
	                 "\"fleet_mode\":\"round_robin\"";
	char tail[256];
	snprintf(tail, sizeof tail, "%s,\"horizon_s\":300", rr);
	expect_plan(tail, 416);
	/* 10 kW of closed loops over 120 s: charged 960 (2560 before) */
	expect_plan("\"workload\":{\"type\":\"closed\",\"concurrency\":8,\"input_tokens\":{\"mean\":500,\"sd\":300},"
	            "\"output_tokens\":256},\"budget_w\":10000,\"horizon_s\":120,\"fleet_mode\":\"least_loaded\"", 960);
	/* over the default 600 s its worst case, 416 runs, is over the bound,
	 * but the search is charged what it simulates (72): it answers */
	expect_plan(rr, 416);
}

static void
test_budget_range(void)
{
	http_reply r;
	http_post_json(h, url("/v1/plan/budget"),
	               "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":1},\"budget_w\":2e12}", &r);
	CHECK_INT(r.status, 422);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	CHECK(f && strcmp(f, "/budget_w") == 0);
	CHECK(m && strstr(m, "budget_w: must be > 0 and <= 1e+12"));
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper;
	wc_server *srv = NULL;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	srv = http_server_start(&paper, "profile:paper", 2);
	if (srv) {
		test_names_what_sets_servers();
		test_shared_plans_answer();
		test_budget_range();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_plan_bounds");
}

/*
 * What a budget plan's 413 names (docs/http-api.md, "Bounds"): the field
 * that sets the servers it can simulate, which is budget_w where the
 * budget's idle-power bound (the first power of two past budget_w /
 * (tp x P0)) is at most max_fleet, else max_fleet. 1000 W over A100's
 * 72.9 W idle allows 16 servers whatever max_fleet 16 or 1000 says; the
 * 413 named /max_fleet, which changed nothing. And budget_w's range, the
 * CLI's --budget's too (models/limits.h): > 0 and at most 1e12 W.
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
	/* a day's grid x 16 servers: the budget's 16 */
	const char *day = "\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"horizon_s\":86400,\"budget_w\":1000";
	char tail[256];
	snprintf(tail, sizeof tail, "%s,\"max_fleet\":16", day);
	expect_413(tail, "/budget_w", "budget_w: the simulation would take ");
	snprintf(tail, sizeof tail, "%s,\"max_fleet\":1000", day);
	expect_413(tail, "/budget_w", "16 server runs");
	/* max_fleet under the budget's bound sets them: it is named */
	expect_413("\"workload\":{\"type\":\"poisson\",\"rate\":0.01},\"horizon_s\":86400,\"budget_w\":1e6,"
	           "\"max_fleet\":200", "/max_fleet", "max_fleet: the simulation would take ");
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
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	CHECK_INT(wc_server_start(&so, &paper, "profile:paper", &srv, &err), WC_OK);
	if (srv) {
		http_set_base(wc_server_port(srv));
		test_names_what_sets_servers();
		test_budget_range();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_plan_bounds");
}

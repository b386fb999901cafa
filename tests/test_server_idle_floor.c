/*
 * One bound on an idle power per GPU (wc_params_check_idle,
 * docs/http-api.md "POST /v1/forecast/envelope"): an envelope's and a
 * budget plan's idle_power_w of 0.001 W was simulated without a word while
 * calibrate refused a run's power under 1 W per GPU as a unit slip; it is
 * refused now (422 on /idle_power_w, the CLI's --idle-power exit 2), as a
 * calibration's option is. The range message said "must be > 0 and <=
 * 100000" where the page said "below the board's limit": the bound is any
 * board's (5000 W) and the page quotes the message.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define BASE(idle)                                                                                            \
	"{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"idle_power_w\":" idle ","                     \
	"\"workload\":{\"type\":\"poisson\",\"rate\":2},\"horizon_s\":30"
#define ENVELOPE(idle) BASE(idle) ",\"replicas\":2,\"bin_s\":10"

static void
cases(CURL *h)
{
	http_expect_says(h, "POST", "/v1/forecast/envelope", ENVELOPE("0.001") "}", 422, "invalid_value",
	                 "/idle_power_w", "idle_power_w: 0.001 W per GPU is under 1 W, below any GPU's idle: a unit slip",
	                 NULL);
	http_expect_says(h, "POST", "/v1/plan/budget", BASE("0.5") ",\"budget_w\":2000,\"max_fleet\":4}", 422,
	                 "invalid_value", "/idle_power_w", "idle_power_w: 0.5 W per GPU is under 1 W", NULL);
	http_expect_says(h, "POST", "/v1/forecast/envelope", ENVELOPE("1e6") "}", 422, "invalid_value",
	                 "/idle_power_w", "idle_power_w: must be > 0 and <= 5000, got 1000000", NULL);
	/* 1 W itself is an idle, as a run's mean power of 1 W is a power */
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), ENVELOPE("1") "}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	/* the page words the bounds as the messages do */
	CHECK(test_doc_says("docs/http-api.md", "`idle_power_w: must be > 0 and <= 5000, got 1000000`"));
	CHECK(test_doc_says("docs/http-api.md", "`idle_power_w: 0.001 W per GPU is under 1 W, below any GPU's idle: a "
	                                        "unit slip (kW given as W?); …`"));
}

int
main(void)
{
	http_with_default_server(cases);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--idle-power",
		               "0.001", "--poisson", "1", "--horizon", "10", NULL };
	test_usage_error(argv, "--idle-power: 0.001 W per GPU is under 1 W, below any GPU's idle");
	return check_report("test_server_idle_floor");
}

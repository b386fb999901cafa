/*
 * The 413 for the grid bins x server runs bound (docs/http-api.md,
 * "Bounds") names only what changes the work: a knob the request set
 * above its minimum (replicas over 1, a fleet over 1 not in lockstep),
 * besides the horizon. A day at 0.5 req/s on a fleet of 20, one replica,
 * was 413 on /fleet/size advising "lower the replicas or the fleet", and
 * 20 replicas of one server "the replicas or the fleet" on /replicas:
 * the replicas at 1, or a fleet of 1, are at their minimum.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <string.h>

static CURL *h;

#define ENV "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":0.5},"

static void
expect_413(const char *tail, const char *field, const char *names, const char *not_named)
{
	char body[512];
	snprintf(body, sizeof body, ENV "%s}", tail);
	http_expect_413(h, "/v1/forecast/envelope", body, field, names, not_named);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params p;
	wc_params_default(&p);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "profile:measured", 2);
	if (srv) {
		/* 1 728 000 bins x 20 server runs, over 2e7 */
		expect_413("\"horizon_s\":86400,\"replicas\":1,\"fleet\":{\"size\":20}", "/fleet/size",
		           "; shorten the horizon, or lower the fleet", "replicas");
		expect_413("\"horizon_s\":86400,\"replicas\":20", "/replicas", "; shorten the horizon, or lower the replicas",
		           "fleet");
		expect_413("\"horizon_s\":86400,\"replicas\":4,\"fleet\":{\"size\":5}", "/fleet/size",
		           "; shorten the horizon, or lower the replicas or the fleet", NULL);
		wc_server_stop(srv);
	}
	wc_params_clear(&p);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_work_advice");
}

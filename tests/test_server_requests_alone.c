/*
 * One server run's requests over the requests bound alone (docs/http-api.md,
 * "Bounds") refuse the work whatever the replicas, fleet or budget: the 413
 * names the workload's field and advises the rate (the clients) or the
 * horizon only. 10^6 req/s over a day with the default replicas was 413 on
 * /replicas, "lower the replicas or the fleet", which could not help (the
 * grid bins were counted first); with "replicas": 1 it named the rate.
 * Over only with the servers, the knobs set above their minimum are
 * named: 10 replicas of one server, "the replicas", not the fleet.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <string.h>

static CURL *h;

#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

static void
expect_413(const char *path, const char *tail, const char *field, const char *names, const char *not_named)
{
	char body[512];
	snprintf(body, sizeof body, "{" CFG ",%s}", tail);
	http_expect_413(h, path, body, field, names, not_named);
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
		const char *env = "/v1/forecast/envelope", *plan = "/v1/plan/budget";
		/* a day at 10^6 req/s: the default replicas, and a fleet */
		expect_413(env, "\"workload\":{\"type\":\"poisson\",\"rate\":1e6},\"horizon_s\":86400", "/workload/rate",
		           "lower the rate or the horizon", "replicas");
		expect_413(env, "\"workload\":{\"type\":\"poisson\",\"rate\":1e6},\"horizon_s\":86400,\"replicas\":1000,"
		           "\"fleet\":{\"size\":100}", "/workload/rate", "lower the rate or the horizon", "fleet");
		expect_413(env, "\"workload\":{\"type\":\"poisson\",\"rate\":1e6},\"horizon_s\":86400,\"replicas\":1",
		           "/workload/rate", "lower the rate or the horizon", "replicas");
		expect_413(plan, "\"workload\":{\"type\":\"poisson\",\"rate\":1e4},\"budget_w\":1e4", "/workload/rate",
		           "lower the rate or the horizon", "max_fleet");
		/* a closed loop's clients alone: 256 of 1-token requests over a day */
		expect_413(env, "\"workload\":{\"type\":\"closed\",\"concurrency\":256,\"input_tokens\":1,"
		           "\"output_tokens\":1},\"horizon_s\":86400", "/workload/concurrency",
		           "lower the clients or the horizon", "replicas");
		/* over only with the servers: they are named too */
		expect_413(env, "\"workload\":{\"type\":\"poisson\",\"rate\":2000},\"horizon_s\":600,\"replicas\":10",
		           "/workload/rate", "lower the rate, the horizon, the replicas", "fleet");
		wc_server_stop(srv);
	}
	wc_params_clear(&p);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_requests_alone");
}

/*
 * A long horizon_s a fraction of a step off the 0.05 s grid
 * (docs/http-api.md, "POST /v1/forecast/envelope"): the grid's test
 * tolerated 1e-6 of the step count, 1.7 steps at a day, so 86399.9136 s
 * (0.27 of a step off) passed as on the grid and was 413
 * simulation_too_large on /replicas counting "34559965.44 grid bins",
 * where 10.03 s is 422 on /horizon_s; with one replica 20000.0136 s was
 * simulated and answered. The test is now to 1e-6 of a step
 * (wc_envelope_on_grid, for horizon_s, warmup_s, bin_s, sample_s and a
 * plan's budget_bin_s): each is 422 invalid_value on its field, on both
 * routes and the command line. A plan's options are checked before its
 * work is charged, as the simulation's are: an off-grid budget_bin_s
 * beside a plan too large was 413 on /budget_w.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define WORK "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":1},"

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "envelope-off-grid", 2);
	if (!srv)
		return check_report("test_server_envelope_off_grid");
	CURL *h = curl_easy_init();

	http_expect_invalid(h, "/v1/forecast/envelope", WORK "\"horizon_s\":86399.9136,\"include_bins\":false}",
	                    "/horizon_s", "horizon_s: must be a multiple of 0.05 s, got 86399.9136");
	http_expect_invalid(h, "/v1/forecast/envelope",
	                    WORK "\"horizon_s\":20000.0136,\"replicas\":1,\"include_bins\":false}", "/horizon_s",
	                    "horizon_s: must be a multiple of 0.05 s, got 20000.0136");
	http_expect_invalid(h, "/v1/forecast/envelope",
	                    WORK "\"horizon_s\":10,\"warmup_s\":20000.0136,\"replicas\":1,\"include_bins\":false}",
	                    "/warmup_s", "warmup_s: must be 0 or a multiple of 0.05 s, got 20000.0136");
	http_expect_invalid(h, "/v1/plan/budget", WORK "\"horizon_s\":86399.9136,\"budget_w\":5000}", "/horizon_s",
	                    "horizon_s: must be a multiple of 0.05 s, got 86399.9136");
	http_expect_invalid(h, "/v1/plan/budget",
	                    WORK "\"horizon_s\":20001,\"budget_bin_s\":20000.0136,\"budget_w\":600,\"max_fleet\":2}",
	                    "/budget_bin_s", "budget_bin_s: must be a multiple of 0.05 s up to the horizon, got 20000.0136");
	http_expect_invalid(h, "/v1/plan/budget", WORK "\"horizon_s\":30000,\"budget_bin_s\":20000.0136,\"budget_w\":5000}",
	                    "/budget_bin_s", "budget_bin_s: must be a multiple of 0.05 s up to the horizon, got 20000.0136");

	/* on the grid, however long: answered */
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), WORK "\"horizon_s\":20000.05,\"replicas\":1,\"include_bins\":false}",
	               &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);

	const char *cli[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		              "--horizon", "20000.0136", "--replicas", "1", NULL };
	test_usage_error(cli, "--horizon: must be a multiple of 0.05 s, got 20000.0136");

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_envelope_off_grid");
}

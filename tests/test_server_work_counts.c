/*
 * The work bound's refusal (docs/http-api.md, "Bounds"; docs/envelopes.md)
 * prints the server runs it charges in full: they are a count (a plan's,
 * a sum of counts), and %.3g printed 1024 servers as 1.02e+03, 1234 as
 * 1.23e+03, 10240 as 1.02e+04 and the default max_fleet's 1000 as 1e+03.
 * The 413 of POST /v1/plan/budget and the CLI's refusals of `envelope`
 * (grid bins and requests drawn) alike, each message within 255 bytes;
 * and the answer's per-bin values (413 on /bin_s), a count too.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <string.h>

static CURL *h;

#define PLAN "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":86400,\"budget_w\":10000000," \
             "\"workload\":{\"type\":\"poisson\",\"rate\":0.5}"

static void
expect_runs(const char *tail, const char *names)
{
	char body[512];
	snprintf(body, sizeof body, PLAN "%s}", tail);
	http_expect_413(h, "/v1/plan/budget", body, "/max_fleet", names, "e+0");
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
		expect_runs(",\"max_fleet\":1024", "(86400 s on the 0.05 s grid, 1024 server runs)");
		expect_runs(",\"max_fleet\":1234", "(86400 s on the 0.05 s grid, 1234 server runs)");
		expect_runs("", "(86400 s on the 0.05 s grid, 1000 server runs)"); /* the default max_fleet */
		/* 1728000 bins x 5 arrays x one band */
		http_expect_413(h, "/v1/forecast/envelope",
		                "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":86400,\"bin_s\":0.05,"
		                "\"include_bins\":true,\"workload\":{\"type\":\"closed\",\"concurrency\":4}}",
		                "/bin_s", "would carry 8640000 per-bin values", "e+0");
		wc_server_stop(srv);
	}
	const char *cli[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "0.5",
	                      "--horizon", "604800", "--replicas", "1", "--fleet", "10240", NULL };
	test_usage_error(cli, "(604800 s on the 0.05 s grid, 10240 server runs)");
	/* the requests bound's refusal counts the same server runs */
	const char *drawn[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "500",
	                        "--horizon", "10000", "--replicas", "1", "--fleet", "1024", NULL };
	test_usage_error(drawn, "per server x 1024 server runs over 10000 s)");
	wc_params_clear(&p);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_work_counts");
}

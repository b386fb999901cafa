/*
 * POST /v1/forecast/envelope's 413s end whole, within 255 bytes, and name
 * the field (docs/http-api.md, "Limits"): a fleet's per-bin refusal was
 * cut at 255 bytes ("...or a longer bin_s (at least 0.9 s f"), losing its
 * advice, where the one server's ended whole. An overloaded open loop
 * (2000 req/s over a day, 1.7e8 requests queued on the command line) is
 * 413 on /workload/rate, never a 500, and so is a shared fleet past the
 * grids its servers' limits may hold, on /fleet/size.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static CURL *h;

#define HEAD "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\",\"rate\":"

static void
expect_413(const char *body, const char *field, const char *ends, const char *has)
{
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), body, &r);
	CHECK_INT(r.status, 413);
	const json_t *e = json_object_get(r.json, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));
	const char *f = json_string_value(json_object_get(e, "field"));
	CHECK(f && strcmp(f, field) == 0);
	CHECK(msg && strlen(msg) <= 255);
	if (msg && ends) {
		size_t n = strlen(msg), k = strlen(ends);
		CHECK(n >= k && strcmp(msg + n - k, ends) == 0);
		if (!(n >= k && strcmp(msg + n - k, ends) == 0))
			fprintf(stderr, "message: %s\n", msg);
	}
	if (has)
		CHECK_CONTAINS(msg, has);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	srv = http_server_start(&paper, "profile:paper", 2);
	if (!srv)
		return check_report("test_server_envelope_bounds");
	/* the fleet's per-bin refusal whole, as the one server's */
	expect_413(HEAD "0.1},\"horizon_s\":86400,\"replicas\":1,\"bin_s\":0.05,\"fleet\":{\"size\":2}}", "/bin_s",
	           "or a bin_s of at least 0.9 s", "x 2 bands, server and fleet)");
	expect_413(HEAD "0.1},\"horizon_s\":86400,\"replicas\":1,\"bin_s\":0.05}", "/bin_s",
	           "or a bin_s of at least 0.45 s", "x 1 band)");
	/* the command line's overloaded queue: 413, not a 500 */
	expect_413(HEAD "2000},\"horizon_s\":86400,\"replicas\":1}", "/workload/rate", NULL, "172800000 requests");
	expect_413(HEAD "0.5},\"horizon_s\":3600,\"replicas\":1,\"fleet\":{\"size\":234,\"mode\":\"round_robin\"}}",
	           "/fleet/size", NULL, NULL);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_envelope_bounds");
}

/*
 * An HTTP message quotes a name cut to a byte count as the CLI does
 * (docs/architecture.md, "Errors"): a cut inside a UTF-8 character shows
 * "..." in place of the half character (it was dropped silently, the name
 * read as if whole). And a bound message quotes a JSON integer above 2^53
 * as sent, not as its rounded double ("got 1e+17").
 */
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* "ab" and 40 CJK characters of 3 bytes: a 64-byte quote ends 2 bytes
 * into the 21st */
#define CJK40 "模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模"
#define CJK20 "模模模模模模模模模模模模模模模模模模模模"
#define CJK15 "模模模模模模模模模模模模模模模"

static void
check_message(const char *body, int status, const char *want)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(http_error_str(&r, "message") ? http_error_str(&r, "message") : "", want);
	http_reply_free(&r);
}

static void
test_name_cut(void)
{
	check_message("{\"platform\":\"H100\",\"model\":\"ab" CJK40 "\",\"concurrency\":8}", 404,
	              "model: unknown model \"ab" CJK20 "...\" (see GET /v1/models");
	/* the CLI says the same of the same name */
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "ab" CJK40,
		               "--concurrency", "8", NULL };
	run_result c;
	CHECK_INT(run_wattcast(argv, NULL, &c), 0);
	CHECK_INT(c.status, 2);
	CHECK_CONTAINS(c.err, "'ab" CJK20 "...'");
	run_result_free(&c);
	check_message("{\"platform\":\"ab" CJK40 "\",\"model\":\"Llama-3.1-8B-Instruct\",\"concurrency\":8}", 422,
	              "platform: unknown platform \"ab" CJK15 "...\" (known:");
	check_message("{\"platform\":\"H100\",\"profile\":\"ab" CJK40 "\",\"model\":\"Llama-3.1-8B-Instruct\","
	              "\"concurrency\":8}", 422, "profile: unknown profile \"ab" CJK15 "...\" (serving:");
}

static void
test_big_integer(void)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/flexibility"), "{\"platform\":\"H100\",\"model\":\"Llama-3.1-8B-Instruct\","
	               "\"concurrency\":100000000000000001,\"input_tokens\":100,\"output_tokens\":100}", &r);
	CHECK_INT(r.status, 422);
	CHECK_CONTAINS(http_error_str(&r, "message") ? http_error_str(&r, "message") : "",
	               "concurrency: must be at most 1e+06 requests at once, got 100000000000000001");
	http_reply_free(&r);
	/* a number written with a fraction is quoted as its double */
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\",\"model\":\"Llama-3.1-8B-Instruct\","
	               "\"concurrency\":8,\"input_tokens\":1e17,\"output_tokens\":100}", &r);
	CHECK_INT(r.status, 422);
	CHECK_CONTAINS(http_error_str(&r, "message") ? http_error_str(&r, "message") : "", "got 1e+17");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p);
	srv = http_server_start(&p, NULL, 2);
	if (srv) {
		test_name_cut();
		test_big_integer();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_name_cut");
}

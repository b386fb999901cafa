/*
 * The routes' refusals agree with each other and with docs/http-api.md
 * ("Errors"): a malformed body's position is 1-based in the message as in
 * "line"/"column", and a \u0000 escape is refused in the API's words (no
 * library flag names).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* POST `body` to `path`: `status` with `code`, `field` (NULL = none) and
 * a message containing `needle` and not `absent` (NULL = no check). */
static void
expect(const char *path, const char *body, long status, const char *code, const char *field, const char *needle,
       const char *absent)
{
	http_reply r;
	int before = check_failures;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, status);
	const char *c = http_error_str(&r, "code"), *f = http_error_str(&r, "field"),
		   *m = http_error_str(&r, "message");
	CHECK(c && strcmp(c, code) == 0);
	CHECK(field ? f && strcmp(f, field) == 0 : f == NULL);
	CHECK(m != NULL);
	if (m) {
		CHECK_CONTAINS(m, needle);
		CHECK(!absent || strstr(m, absent) == NULL);
	}
	if (check_failures != before)
		fprintf(stderr, "  case: %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

#define INF "/v1/predict/inference"

static void
test_malformed(void)
{
	expect(INF, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\\u0000\",\"concurrency\":1}", 400, "malformed_json",
	       NULL, "a string holds \\u0000 (NUL), which the API does not accept (line 1, column", "JSON_ALLOW_NUL");
	/* An empty body: column 1 in the message as in "column". */
	expect(INF, "", 400, "malformed_json", NULL, "(line 1, column 1)", "column 0");
	http_reply r;
	http_post_json(h, url(INF), "", &r);
	CHECK_INT(http_error_int(&r, "line"), 1);
	CHECK_INT(http_error_int(&r, "column"), 1);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 4)))
		return check_report("test_server_consistency");
	test_malformed();
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_consistency");
}

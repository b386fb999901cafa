/*
 * A UTF-16 request body is refused as every file reader refuses a UTF-16
 * file (data/fileio.c, wc_text_utf16_what; docs/http-api.md, "Errors"):
 * 400 naming the encoding and "re-send as UTF-8", on every route that
 * parses a body, with or without a byte order mark and whatever charset
 * the Content-Type claims. Before, jansson's first error answered: "string
 * or '}' expected near end of file" (LE), "invalid token" (BE), "unable to
 * decode byte 0xff" (with the mark).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* `text` (ASCII) in UTF-16: `be` big-endian, `bom` with the mark; into
 * buf, its length returned */
static size_t
utf16(const char *text, int be, int bom, char *buf, size_t cap)
{
	size_t n = 0;
	if (bom && n + 2 <= cap) {
		buf[n++] = be ? (char)0xFE : (char)0xFF;
		buf[n++] = be ? (char)0xFF : (char)0xFE;
	}
	for (const char *p = text; *p && n + 2 <= cap; p++) {
		buf[n++] = be ? 0 : *p;
		buf[n++] = be ? *p : 0;
	}
	return n;
}

static void
expect_refused(const char *path, const char *ctype, const char *text, int be, int bom, const char *want)
{
	char body[1024];
	size_t n = utf16(text, be, bom, body, sizeof body);
	http_reply r;
	int before = check_failures;
	http_request(h, "POST", url(path), ctype, body, n, 0, &r);
	CHECK_INT(r.status, 400);
	const char *code = http_error_str(&r, "code"), *field = http_error_str(&r, "field"),
		   *msg = http_error_str(&r, "message");
	CHECK(code && strcmp(code, "malformed_json") == 0);
	CHECK(field && strcmp(field, "") == 0); /* the body as a whole */
	CHECK(msg != NULL);
	if (msg) {
		CHECK_CONTAINS(msg, want);
		CHECK_CONTAINS(msg, "re-send as UTF-8");
		CHECK(strlen(msg) <= 255);
	}
	if (check_failures != before)
		fprintf(stderr, "  case: %s be=%d bom=%d -> %ld %s\n", path, be, bom, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	static const char one[] = "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8}";
	static const char many[] = "[{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8}]";

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 2)))
		return check_report("test_server_utf16_body");
	expect_refused("/v1/predict/inference", "application/json", one, 0, 0,
	               "body: UTF-16LE text (no byte order mark): re-send as UTF-8");
	expect_refused("/v1/predict/inference", "application/json", one, 1, 0,
	               "body: UTF-16BE text (no byte order mark)");
	expect_refused("/v1/predict/inference", "application/json; charset=utf-16", one, 0, 1,
	               "body: UTF-16 text (byte order mark FF FE)");
	expect_refused("/v1/predict/batch", "application/json", many, 0, 1, "body: UTF-16 text (byte order mark FF FE)");
	expect_refused("/v1/predict/batch", "application/json; charset=utf-16", many, 1, 0,
	               "body: UTF-16BE text (no byte order mark)");
	expect_refused("/v1/forecast/envelope", "application/json", one, 0, 0, "body: UTF-16LE text");
	/* the same request in UTF-8 is answered */
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), one, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_utf16_body");
}

/*
 * A request body that begins with a UTF-8 byte order mark is read as the
 * JSON after it, as every file reader skips the mark
 * (data/fileio.c, wc_text_bom_len; docs/http-api.md, "Errors"): answered
 * on every route that parses a body, and a malformed body's line and
 * column count from after the mark, as in a file. Before, the mark was
 * jansson's first error: 400 malformed_json "invalid token near
 * '<U+FEFF>' (line 1, column 1)".
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static void
post_bom(const char *path, const char *text, http_reply *r)
{
	char body[1024];
	size_t n = strlen(text);
	memcpy(body, "\xEF\xBB\xBF", 3);
	memcpy(body + 3, text, n);
	http_request(h, "POST", url(path), "application/json", body, n + 3, 0, r);
}

static void
expect_answered(const char *path, const char *text)
{
	http_reply r;
	post_bom(path, text, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "  case: %s -> %ld %s\n", path, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	static const char one[] = "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"concurrency\":8}";
	static const char many[] = "[{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"concurrency\":8}]";

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 2)))
		return check_report("test_server_utf8_bom_body");
	expect_answered("/v1/predict/inference", one);
	expect_answered("/v1/predict/batch", many);
	/* the same answer as without the mark */
	http_reply a, b;
	post_bom("/v1/predict/inference", one, &a);
	http_post_json(h, url("/v1/predict/inference"), one, &b);
	CHECK(a.body && b.body && strcmp(a.body, b.body) == 0);
	http_reply_free(&a);
	http_reply_free(&b);
	/* a malformed body names its place after the mark */
	http_reply r;
	post_bom("/v1/predict/inference", "{\"platform\" 1}", &r);
	CHECK_INT(r.status, 400);
	const char *code = http_error_str(&r, "code"), *msg = http_error_str(&r, "message");
	CHECK(code && strcmp(code, "malformed_json") == 0);
	CHECK(msg && !strstr(msg, "U+FEFF"));
	CHECK(msg && strstr(msg, "(line 1, column 13)"));
	if (msg)
		fprintf(stderr, "  malformed after the mark: %s\n", msg);
	http_reply_free(&r);
	/* a second mark is named, not quoted as an invisible token */
	post_bom("/v1/predict/inference", "\xEF\xBB\xBF{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":32}", &r);
	CHECK_INT(r.status, 400);
	code = http_error_str(&r, "code");
	msg = http_error_str(&r, "message");
	CHECK(code && strcmp(code, "malformed_json") == 0);
	CHECK(msg && strstr(msg, "a second byte-order mark (U+FEFF)"));
	CHECK(msg && strstr(msg, "(line 1, column 1)"));
	CHECK(msg && !strstr(msg, "\xEF\xBB\xBF"));
	if (msg)
		fprintf(stderr, "  two marks: %s\n", msg);
	http_reply_free(&r);
	/* past a blank (or a line end) between them, named where it is (it
	 * was jansson's "invalid token near '<U+FEFF>' (line 1, column 2)") */
	post_bom("/v1/predict/inference", " \xEF\xBB\xBF{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":32}", &r);
	CHECK_INT(r.status, 400);
	msg = http_error_str(&r, "message");
	CHECK(msg && strstr(msg, "a second byte-order mark (U+FEFF) before the JSON: send at most one (line 1, "
	                         "column 2)"));
	CHECK(msg && !strstr(msg, "\xEF\xBB\xBF"));
	http_reply_free(&r);
	/* a mark inside the JSON is named at its place, not quoted as an
	 * invisible token (docs/http-api.md, "Errors") */
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"H100\",\xEF\xBB\xBF\"model\":\"Qwen3-8B\",\"concurrency\":8}", &r);
	CHECK_INT(r.status, 400);
	msg = http_error_str(&r, "message");
	CHECK(msg && strstr(msg, "string or '}' expected near a byte-order mark (U+FEFF): remove it (line 1, "
	                         "column 20)"));
	CHECK(msg && !strstr(msg, "\xEF\xBB\xBF"));
	http_reply_free(&r);
	/* a bad token is placed at its first character (jansson: its last, 34) */
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\", \"model\": truee}", &r);
	CHECK_INT(r.status, 400);
	CHECK_INT(http_error_int(&r, "column"), 30);
	msg = http_error_str(&r, "message");
	CHECK(msg && strstr(msg, "invalid token near 'truee' (line 1, column 30)"));
	http_reply_free(&r);
	/* whatever its length: jansson quotes none over 20 bytes and gave
	 * its last character, column 331 */
	char big[512];
	snprintf(big, sizeof big, "{\"platform\":\"H100\", \"model\": true");
	for (int i = 0; i < 300; i++)
		strcat(big, "e");
	strcat(big, "}");
	http_post_json(h, url("/v1/predict/inference"), big, &r);
	CHECK_INT(r.status, 400);
	CHECK_INT(http_error_int(&r, "column"), 30);
	http_reply_free(&r);
	/* a bad escape at its backslash, 16 (it was the string's quote, 13;
	 * jansson says 17, the character after) */
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"C:\\data\"}", &r);
	CHECK_INT(r.status, 400);
	CHECK_INT(http_error_int(&r, "column"), 16);
	msg = http_error_str(&r, "message");
	CHECK(msg && strstr(msg, "invalid escape near '\"C:\\d' (line 1, column 16)"));
	http_reply_free(&r);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_utf8_bom_body");
}

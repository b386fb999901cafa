/*
 * The body's framing (docs/http-api.md, "Errors" and "Limits"): a request
 * whose body's end the server cannot be sure of is refused and its
 * connection closed, so no body is ever read as the next request. Each
 * case sends a POST whose body is itself a request (GET /v1/health) on
 * one kept-alive connection: a desync shows as a second answer.
 *
 *  - 64 header fields or more: CivetWeb keeps 64 and dropped the rest, a
 *    Content-Length among them (the body was answered as a GET);
 *  - a Content-Length not all digits ("2abc", "2 3", "2.5", "+2") was
 *    read as its leading number; now 411 length_required;
 *  - Transfer-Encoding "identity" was taken for no body; two
 *    "Transfer-Encoding: chunked" headers were read as one;
 *  - whitespace before a header's colon was accepted (RFC 9112, 5.1);
 *  - a chunk extension (";foo=bar"), which CivetWeb 1.15 cannot read, is
 *    refused with a message that says so (it said only "could not read
 *    the request body");
 *  - a POST with neither Content-Length nor Transfer-Encoding had its
 *    body read as empty (400 malformed_json) and the body's bytes as the
 *    next request; now 411 length_required, closed;
 *  - blanks after a value (RFC 9110, 5.5) are read by one rule: "2 " and
 *    "2" are one Content-Length (they were refused as conflicting); a
 *    lone "chunked ", which CivetWeb 1.15 refuses before any handler, is
 *    refused with a message naming the blanks (it said the coding had to
 *    be "chunked");
 *  - a folded header line (obs-fold: a line starting with a space or
 *    tab) made CivetWeb drop it and every header after it: a
 *    Content-Length after it was lost (411 "needs Content-Length"), a
 *    Content-Type (415), a Connection: close (kept alive); now 400 naming
 *    the folded line, closed (RFC 9112, 5.2). A fold by a tab CivetWeb
 *    1.15 refuses itself, as a malformed head.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <signal.h>

static int port;

static const char inner[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
static const char body[] = "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":4}";

/* Send `raw` on a fresh connection, read until the server closes (or the
 * client's read timeout), and return how many answers came. */
static int
exchange(const char *raw, size_t len, char *answer, size_t cap)
{
	answer[0] = '\0';
	int fd = raw_connect(port);
	CHECK(fd >= 0);
	if (fd < 0)
		return 0;
	raw_send(fd, raw, len);
	raw_read_all(fd, answer, cap);
	close(fd);
	int n = 0;
	/* a status line: "HTTP/1.1 " and a digit (a message may name HTTP/1.1) */
	for (const char *p = answer; (p = strstr(p, "HTTP/1.1 ")) != NULL; p += 9)
		n += p[9] >= '1' && p[9] <= '5';
	return n;
}

/* One answer, `status` and `code`, the connection closed, the message
 * holding `part` and within 255 bytes. */
static void
expect_refusal(const char *what, const char *raw, size_t len, int status, const char *code,
               const char *part)
{
	static char answer[65536];
	char line[32], c[64];
	int answers = exchange(raw, len, answer, sizeof answer);
	snprintf(line, sizeof line, "HTTP/1.1 %d ", status);
	snprintf(c, sizeof c, "\"code\":\"%s\"", code);
	const char *m = strstr(answer, "\"message\":\"");
	const char *end = m ? strstr(m + 11, "\"}") : NULL;
	int ok = answers == 1 && strncmp(answer, line, strlen(line)) == 0 && strstr(answer, c) &&
	         strstr(answer, "Connection: close\r\n") && strstr(answer, part) && end &&
	         end - (m + 11) <= 255;
	if (!ok)
		fprintf(stderr, "%s: expected one %d %s with \"%s\", got %d answers:\n%.1200s\n", what,
		        status, code, part, answers, answer);
	CHECK(ok);
}

/* A POST of `payload` with `extra` headers, then `inner` on the same
 * connection. */
static size_t
post(char *raw, size_t cap, const char *extra, const char *payload)
{
	int n = snprintf(raw, cap,
	                 "POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\n"
	                 "Content-Type: application/json\r\n%s\r\n%s%s",
	                 extra, payload, inner);
	return (size_t)n;
}

static void
test_header_count(void)
{
	static char raw[16384], extra[8192], answer[65536];
	/* 62 pads + Host + Content-Type + Content-Length: the length is the
	 * 65th field, the one CivetWeb drops. */
	for (int pads = 62; pads >= 60; pads--) {
		size_t n = 0;
		for (int i = 0; i < pads; i++)
			n += (size_t)snprintf(extra + n, sizeof extra - n, "X-Pad-%d: a\r\n", i);
		snprintf(extra + n, sizeof extra - n, "Content-Length: %zu\r\n", sizeof body - 1);
		size_t len = post(raw, sizeof raw, extra, body);
		if (pads + 3 >= 64) {
			expect_refusal("64 or more headers", raw, len, 400, "bad_request",
			               "64 or more header fields");
		} else {
			/* 63 fields: answered, and the next request too. */
			int answers = exchange(raw, len, answer, sizeof answer);
			CHECK_INT(answers, 2);
			CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0);
		}
	}
}

static void
test_content_length_digits(void)
{
	static const char *const bad[] = { "2abc", "2 3", "2.5", "+2", "0x2" };
	char raw[1024], extra[128], answer[4096];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(extra, sizeof extra, "Content-Length: %s\r\n", bad[i]);
		size_t len = post(raw, sizeof raw, extra, "42");
		expect_refusal(bad[i], raw, len, 411, "length_required", "digits only (RFC 9110, 8.6)");
	}
	/* Leading zeros and blanks around the digits are a length. */
	size_t len = post(raw, sizeof raw, "Content-Length: 02 \r\n", "42");
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 2);
	CHECK(strncmp(answer, "HTTP/1.1 422 ", 13) == 0);
	/* Blanks after the value are not part of it (RFC 9110, 5.5): the
	 * same length twice. */
	len = post(raw, sizeof raw, "Content-Length: 2 \r\nContent-Length: 2\r\n", "42");
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 2);
	CHECK(strncmp(answer, "HTTP/1.1 422 ", 13) == 0);
	len = post(raw, sizeof raw, "Content-Length: 2 \r\nContent-Length: 3\r\n", "42");
	expect_refusal("two lengths", raw, len, 400, "bad_request",
	               "conflicting Content-Length headers (\\\"2\\\" and \\\"3\\\")");
	/* Whitespace before the colon (RFC 9112, 5.1). */
	len = post(raw, sizeof raw, "Content-Length : 2\r\n", "42");
	expect_refusal("space before colon", raw, len, 400, "bad_request",
	               "whitespace between the header name \\\"Content-Length\\\" and its colon");
}

static void
test_transfer_coding(void)
{
	char raw[1024], chunked[256], answer[4096];
	snprintf(chunked, sizeof chunked, "%zx\r\n%s\r\n0\r\n\r\n", sizeof body - 1, body);
	size_t len = post(raw, sizeof raw, "Transfer-Encoding: identity\r\n", body);
	expect_refusal("identity", raw, len, 400, "bad_request", "got \\\"identity\\\"");
	len = post(raw, sizeof raw, "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunked);
	expect_refusal("two codings", raw, len, 400, "bad_request", "in more than one header");
	/* CivetWeb's own refusal names the coding too. */
	len = post(raw, sizeof raw, "Transfer-Encoding: gzip, chunked\r\n", chunked);
	expect_refusal("gzip, chunked", raw, len, 400, "bad_request", "got \\\"gzip, chunked\\\"");
	/* CivetWeb 1.15 refuses "chunked " itself (it compares the value as
	 * sent): the message names the blanks, not the coding. */
	len = post(raw, sizeof raw, "Transfer-Encoding: chunked \r\n", chunked);
	expect_refusal("chunked and a blank", raw, len, 400, "bad_request",
	               "blanks after \\\"chunked\\\" are not accepted");
	/* "chunked" in any case is read, and answered closing (test_trailer). */
	len = post(raw, sizeof raw, "Transfer-Encoding: Chunked\r\n", chunked);
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 1);
	CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0 && strstr(answer, "Connection: close\r\n"));
}

/* A trailer section after the last chunk (RFC 9112, 7.1.2): CivetWeb
 * 1.15 closes after one and does not say so, and the answer said
 * keep-alive, so the next request on the connection went unanswered.
 * Every chunked body is answered with Connection: close: each request is
 * answered or the client told to reconnect. */
static void
test_trailer(void)
{
	static const char *const trailers[] = { "", "X-Trailer: 1\r\n", "X-A: 1\r\nX-B: 2\r\n" };
	char raw[1024], chunked[256], answer[4096];
	for (size_t i = 0; i < sizeof trailers / sizeof trailers[0]; i++) {
		snprintf(chunked, sizeof chunked, "%zx\r\n%s\r\n0\r\n%s\r\n", sizeof body - 1, body, trailers[i]);
		size_t len = post(raw, sizeof raw, "Transfer-Encoding: chunked\r\n", chunked);
		int answers = exchange(raw, len, answer, sizeof answer);
		int ok = strncmp(answer, "HTTP/1.1 200 ", 13) == 0 &&
		         (answers == 2 || (answers == 1 && strstr(answer, "Connection: close\r\n")));
		if (!ok)
			fprintf(stderr, "trailer \"%s\": %d answers, the first not closing:\n%.600s\n", trailers[i],
			        answers, answer);
		CHECK(ok);
	}
}

/* HTTP/1.1 without Host, or with two (RFC 9112, 3.2: 400); HTTP/1.0
 * may leave it out. */
static void
test_host(void)
{
	char answer[4096];
	static const char none[] = "GET /v1/health HTTP/1.1\r\n\r\n";
	static const char two[] = "GET /v1/health HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n";
	static const char old[] = "GET /v1/health HTTP/1.0\r\n\r\n";
	expect_refusal("no Host", none, sizeof none - 1, 400, "bad_request",
	               "an HTTP/1.1 request needs a Host header (RFC 9112, 3.2)");
	expect_refusal("two Host", two, sizeof two - 1, 400, "bad_request",
	               "2 Host headers: an HTTP/1.1 request takes exactly one");
	CHECK_INT(exchange(old, sizeof old - 1, answer, sizeof answer), 1);
	CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0);
}

/* Every Content-Encoding and Content-Type line is read, not the first:
 * "identity" then "gzip" is a gzip body (RFC 9110, 5.3: 415, it was
 * parsed as JSON), two different Content-Types are refused (the first
 * was read: application/json then text/plain was 200, the other order
 * 415); the same one twice is one. */
static void
test_repeated_body_headers(void)
{
	char raw[1024], extra[256], answer[4096];
	snprintf(extra, sizeof extra, "Content-Encoding: identity\r\nContent-Encoding: gzip\r\nContent-Length: %zu\r\n",
	         sizeof body - 1);
	size_t len = post(raw, sizeof raw, extra, body);
	CHECK(exchange(raw, len, answer, sizeof answer) >= 1);
	CHECK(strncmp(answer, "HTTP/1.1 415 ", 13) == 0 && strstr(answer, "Content-Encoding: only identity"));
	snprintf(extra, sizeof extra, "Content-Type: text/plain\r\nContent-Length: %zu\r\n", sizeof body - 1);
	len = post(raw, sizeof raw, extra, body);
	expect_refusal("two Content-Types", raw, len, 400, "bad_request",
	               "conflicting Content-Type headers (\\\"application/json\\\" and \\\"text/plain\\\")");
	snprintf(extra, sizeof extra, "content-type: application/json \r\nContent-Length: %zu\r\n", sizeof body - 1);
	len = post(raw, sizeof raw, extra, body);
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 2);
	CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0);
}

static void
test_chunk_extension(void)
{
	char raw[1024], chunked[256];
	snprintf(chunked, sizeof chunked, "%zx;foo=bar\r\n%s\r\n0\r\n\r\n", sizeof body - 1, body);
	size_t len = post(raw, sizeof raw, "Transfer-Encoding: chunked\r\n", chunked);
	expect_refusal("chunk extension", raw, len, 400, "bad_request",
	               "chunk extensions, \\\";name=value\\\", are not accepted");
}

/* A POST with neither Content-Length nor Transfer-Encoding: 411 before
 * its body is read, and closed, so the body is never a next request. */
static void
test_no_length(void)
{
	char raw[1024], answer[4096];
	size_t len = post(raw, sizeof raw, "", body);
	expect_refusal("no length", raw, len, 411, "length_required",
	               "a POST body needs Content-Length or Transfer-Encoding: chunked");
	len = (size_t)snprintf(raw, sizeof raw,
	                       "POST /v1/predict/inference HTTP/1.0\r\nHost: x\r\n"
	                       "Content-Type: application/json\r\n\r\n%s", body);
	expect_refusal("no length, HTTP/1.0", raw, len, 411, "length_required",
	               "a POST body needs Content-Length");
	/* An empty body said so is read as empty, and the next request after it. */
	len = post(raw, sizeof raw, "Content-Length: 0\r\n", "");
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 2);
	CHECK(strncmp(answer, "HTTP/1.1 400 ", 13) == 0 && strstr(answer, "\"code\":\"malformed_json\""));
}

static void
test_obs_fold(void)
{
	char raw[1024], extra[256], answer[4096];
	/* before the length, and after it (the Content-Type then lost) */
	snprintf(extra, sizeof extra, "X-A: a\r\n b\r\nContent-Length: %zu\r\n", sizeof body - 1);
	size_t len = post(raw, sizeof raw, extra, body);
	expect_refusal("fold before Content-Length", raw, len, 400, "bad_request",
	               "a folded header line (obs-fold, RFC 9112, 5.2) after header \\\"X-A\\\": \\\" b\\\"");
	len = (size_t)snprintf(raw, sizeof raw,
	                       "POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
	                       "X-B: a\r\n  b c\r\nContent-Type: application/json\r\n\r\n%s%s",
	                       sizeof body - 1, body, inner);
	expect_refusal("fold before Content-Type", raw, len, 400, "bad_request",
	               "after header \\\"X-B\\\": \\\"  b c\\\"");
	/* a GET's Connection: close after the fold was lost, and the
	 * connection kept alive */
	len = (size_t)snprintf(raw, sizeof raw, "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n"
	                                        "Connection: close\r\n\r\n");
	expect_refusal("fold in a GET", raw, len, 400, "bad_request", "send each header on one line");
	/* a space inside a value is no fold: answered, and the next request */
	snprintf(extra, sizeof extra, "X-A: a b\r\nContent-Length: %zu\r\n", sizeof body - 1);
	len = post(raw, sizeof raw, extra, body);
	CHECK_INT(exchange(raw, len, answer, sizeof answer), 2);
	CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;

	signal(SIGPIPE, SIG_IGN);
	wc_params_default(&p);
	srv = http_server_start(&p, "framing", 4);
	if (!srv)
		return check_report("test_server_framing");
	port = wc_server_port(srv);

	test_header_count();
	test_content_length_digits();
	test_transfer_coding();
	test_chunk_extension();
	test_trailer();
	test_host();
	test_repeated_body_headers();
	test_no_length();
	test_obs_fold();

	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_framing");
}

/*
 * Request bodies: media type (415), size limit (413) checked on the
 * announced Content-Length before anything is read and again while
 * reading (chunked or lying clients), then strict JSON parsing (400 with
 * line and column; duplicate keys refused). CivetWeb's max_request_size
 * bounds the headers only, so the body limit lives here.
 */
#include "http_internal.h"
#include "data/fileio.h"

#include <civetweb.h>
#include <stdlib.h>
#include "models/grow.h"
#include <string.h>
#include <strings.h>
#include <time.h>

/* "application/json", optionally with parameters ("; charset=utf-8"). */
static int
is_json_media_type(const char *ct)
{
	static const char want[] = "application/json";
	if (!ct)
		return 0;
	ct += strspn(ct, " \t");
	if (strncasecmp(ct, want, sizeof want - 1) != 0)
		return 0;
	ct += sizeof want - 1;
	ct += strspn(ct, " \t");
	return *ct == '\0' || *ct == ';';
}

/* No Content-Encoding, or "identity": the only coding the API reads. */
static int
is_identity_coding(const char *ce)
{
	static const char id[] = "identity";
	if (!ce)
		return 1;
	ce += strspn(ce, " \t");
	if (strncasecmp(ce, id, sizeof id - 1) == 0)
		ce += sizeof id - 1;
	ce += strspn(ce, " \t");
	return *ce == '\0';
}

/* Every Content-Encoding line "identity": repeated lines make one list
 * (RFC 9110, 5.3), so "identity" then "gzip" is a gzip body, which was
 * read as JSON when only the first line was looked at. */
static int
all_identity(const struct mg_connection *conn)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	for (int i = 0; i < ri->num_headers; i++) {
		const char *name = ri->http_headers[i].name;
		if (name && strcasecmp(name, "Content-Encoding") == 0 && !is_identity_coding(ri->http_headers[i].value))
			return 0;
	}
	return 1;
}

static void
too_large(wc_response *res, size_t limit)
{
	wc_api_error e;
	wc_api_error_set(&e, 413, "payload_too_large", NULL,
	                 "request body larger than %zu bytes", limit);
	wc_response_error(res, &e);
	res->close = 1;
}

static double
ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return 1e3 * (double)(t1.tv_sec - t0->tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Answer `e` and close: the rest of the body is not worth reading. */
static void
read_failed(wc_response *res, const wc_api_error *e)
{
	wc_response_error(res, e);
	res->close = 1;
}

/* 408 for a body not complete at its deadline (counted from the headers;
 * docs/http-api.md, "Limits"). */
static void
overdue(const wc_request *req, size_t len, wc_response *res) /* len: of a Content-Length body */
{
	wc_api_error e;
	if (req->content_length >= 0)
		wc_api_error_set(&e, 408, "request_timeout", NULL,
		                 "request body not complete %d ms after its headers (%zu of %lld bytes)",
		                 req->srv->request_timeout_ms, len, req->content_length);
	else
		wc_api_error_set(&e, 408, "request_timeout", NULL,
		                 "request body not complete %d ms after its headers (a chunked body)",
		                 req->srv->request_timeout_ms);
	read_failed(res, &e);
}

/* The read loop: `buf` of `*cap` bytes grows up to limit + 1. CivetWeb's
 * mg_read returns 0 when nothing came for its I/O timeout (a declared
 * length not reached yet) or when a chunked body ended, and -1 when the
 * client closed; a read that keeps getting bytes goes on until its buffer
 * is full, so the deadline is the watchdog's (deadline.c), which ends
 * such a read by shutting the socket's reading side: whatever a read
 * returns past the deadline is a 408. */
static int
read_loop(wc_request *req, size_t limit, char **bufp, size_t *cap, size_t *len, wc_response *res)
{
	const wc_server *srv = req->srv;
	char *buf = *bufp;
	wc_api_error e;
	for (;;) {
		if (*len == *cap) {
			if (*cap > limit) {
				too_large(res, limit);
				return -1;
			}
			size_t ncap = *cap * 2 > limit + 1 ? limit + 1 : *cap * 2;
			char *nb = wc_resize_array(buf, ncap, 1);
			if (!nb)
				return -2;
			*bufp = buf = nb;
			*cap = ncap;
		}
		if (ms_since(&req->started) >= (double)srv->request_timeout_ms) {
			overdue(req, *len, res);
			return -1;
		}
		int n = mg_read(req->conn, buf + *len, *cap - *len);
		if (n > 0)
			*len += (size_t)n;
		if ((n == 0 && req->content_length < 0) ||
		    (n >= 0 && req->content_length >= 0 && *len >= (size_t)req->content_length))
			return 0;
		if (ms_since(&req->started) >= (double)srv->request_timeout_ms) {
			overdue(req, *len, res);
			return -1;
		}
		if (n < 0 && req->content_length >= 0) {
			wc_api_error_set(&e, 400, "bad_request", NULL,
			                 "request body ended after %zu of %lld bytes", *len,
			                 req->content_length);
			read_failed(res, &e);
			return -1;
		}
		if (n < 0) {
			/* Only a chunked body gets here. CivetWeb 1.15 decodes it
			 * and refuses a size line that is not hex digits and CRLF,
			 * a chunk extension included, with the same -1 as a client
			 * that closed early, so the message names both
			 * (docs/http-api.md, "Limits"). */
			wc_api_error_set(&e, 400, "bad_request", NULL,
			                 "could not read the chunked request body: it ended early or a chunk "
			                 "size line was not hex digits and CRLF (chunk extensions, \";name=value\", "
			                 "are not accepted)");
			read_failed(res, &e);
			return -1;
		}
	}
}

/* "Expect: 100-continue": the request passed every check made on its
 * headers (size, media type, a free body reader), so the client may send
 * its body now instead of after its own timeout (curl waits 1 s for
 * bodies over 1 MiB; RFC 9110, 10.1.1). CivetWeb sends it only for the
 * files it serves itself. */
static void
expect_continue(wc_request *req)
{
	static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n";
	const char *ex = mg_get_header(req->conn, "Expect");
	const struct mg_request_info *ri = mg_get_request_info(req->conn);
	if (ex && strcasecmp(ex, "100-continue") == 0 && ri->http_version &&
	    strcmp(ri->http_version, "1.1") == 0)
		mg_write(req->conn, interim, sizeof interim - 1);
}

/* Read the whole body into a malloc'd buffer of at most `limit` bytes.
 * While it waits for the body the worker counts against
 * srv->max_body_readers: past it the request is refused at once (503), so
 * slow bodies never hold the reserve of workers that keeps /v1/health and
 * fast clients answered. */
static int
read_body(wc_request *req, size_t limit, char **out, size_t *len_out, wc_response *res)
{
	wc_server *srv = req->srv;
	size_t cap, len = 0;
	char *buf;
	wc_api_error e;
	int rc;

	*out = NULL;
	*len_out = 0;
	if (req->content_length > (long long)limit) {
		too_large(res, limit);
		return -1;
	}
	if (atomic_fetch_add(&srv->body_readers, 1) >= srv->max_body_readers) {
		atomic_fetch_sub(&srv->body_readers, 1);
		wc_api_error_set(&e, 503, "server_busy", NULL,
		                 "all %d body-reader workers are busy receiving request bodies (--threads %d "
		                 "keeps %d in reserve for requests without one); retry shortly",
		                 srv->max_body_readers, srv->threads, srv->threads - srv->max_body_readers);
		wc_response_error(res, &e);
		res->extra_headers = "Retry-After: 1\r\n"; /* as the heavy cap's 503 (docs/http-api.md) */
		res->close = 1;
		return -1;
	}
	/* Known length: one allocation (+1 to notice a longer body). Unknown
	 * (chunked): grow geometrically up to limit + 1. */
	cap = req->content_length >= 0 ? (size_t)req->content_length + 1 : 4096;
	if (cap > limit + 1)
		cap = limit + 1;
	buf = wc_alloc_array(cap, 1);
	expect_continue(req);
	int watch = wc_watchdog_arm(req);
	rc = buf ? read_loop(req, limit, &buf, &cap, &len, res) : -2;
	wc_watchdog_disarm(req, watch);
	atomic_fetch_sub(&srv->body_readers, 1);
	if (rc == 0) {
		req->body_pending = 0;
		if (len > limit) {
			too_large(res, limit);
			rc = -1;
		}
	}
	if (rc == -2) {
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory reading the body");
		read_failed(res, &e);
	}
	/* A heavy route computes only within the server's cap (router.c). */
	if (rc == 0 && wc_request_heavy_enter(req, res) != 0)
		rc = -1;
	if (rc != 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*len_out = len;
	return 0;
}

/* Does the JSON text nest arrays/objects deeper than `max`? jansson
 * parses (and frees) recursively, and CivetWeb's worker stacks are small,
 * so depth is bounded before parsing. Brackets inside strings do not
 * count. A malformed text is left for the parser to report. When too
 * deep, *line and *column give the bracket that went past `max`, counted
 * as jansson counts its errors' positions (lines from 1; columns from 1,
 * in characters, not bytes), since the answer promises both for every
 * malformed body (docs/http-api.md, "Errors"). */
static int
too_deep(const char *p, size_t n, int max, int *line, int *column)
{
	int depth = 0, in_string = 0;
	*line = 1;
	*column = 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c == '\n') {
			(*line)++;
			*column = 0;
		} else if (((unsigned char)c & 0xC0) != 0x80) {
			(*column)++;
		}
		if (in_string) {
			if (c == '\\' && i + 1 < n) {
				/* the escaped character is one more column (never a newline:
				 * a raw one in a string is malformed anyway) */
				i++;
				if (((unsigned char)p[i] & 0xC0) != 0x80)
					(*column)++;
			} else if (c == '"') {
				in_string = 0;
			}
		} else if (c == '"') {
			in_string = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				return 1;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return 0;
}

/* A number literal that is not zero but reads as 0 (1e-400: below the
 * least double, strtod underflows): jansson accepts it as 0, which a
 * positive `concurrency` must never become (the idle answer). It is the
 * mirror of 1e400, which jansson refuses as too big, and is refused the
 * same way, 400 number_out_of_range at its line and column
 * (docs/http-api.md, "Errors"). The text has parsed, so only number
 * tokens outside strings are looked at; 1 with the position and the
 * literal's span, else 0. */
static int
underflows(const char *p, size_t n, int *line, int *column, size_t *at, size_t *len)
{
	int in_string = 0, col = 0, ln = 1;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c == '\n') {
			ln++;
			col = 0;
			continue;
		}
		if (((unsigned char)c & 0xC0) != 0x80)
			col++;
		if (in_string) {
			if (c == '\\')
				i++; /* never a newline, nor a quote that ends the string */
			else if (c == '"')
				in_string = 0;
			continue;
		}
		if (c == '"') {
			in_string = 1;
			continue;
		}
		if (c != '-' && (c < '0' || c > '9'))
			continue;
		size_t k = i, nonzero = 0, exp = 0;
		for (; k < n && strchr("+-0123456789.eE", p[k]) && p[k]; k++) {
			exp |= p[k] == 'e' || p[k] == 'E';
			nonzero |= !exp && p[k] >= '1' && p[k] <= '9';
		}
		/* Without an exponent only 300 and more zeros after the point
		 * underflow; strtod is spared the others. */
		if (nonzero && (exp || k - i > 300)) {
			char small[64], *text = k - i < sizeof small ? small : malloc(k - i + 1);
			if (text) {
				memcpy(text, p + i, k - i);
				text[k - i] = '\0';
				double v = strtod(text, NULL);
				if (text != small)
					free(text);
				if (v == 0.0) {
					*line = ln;
					*column = col;
					*at = i;
					*len = k - i;
					return 1;
				}
			}
		}
		col += (int)(k - i) - 1;
		i = k - 1;
	}
	return 0;
}

/* An integer literal past jansson's 64 bits that a double holds
 * (100000000000000000000, 2^63) is read as that double, as 1e20 is:
 * whether a request parses must not depend on how the client's library
 * prints numbers; its field's check then answers (docs/http-api.md,
 * "Errors"). jansson's error points just past such a literal: ".0" is
 * added there and the text parsed again, for at most WIDE_INTS literals
 * (each pass parses the whole body). A later error's column is given in
 * the text as sent. */
#define WIDE_INTS 16

static json_t *
load_json(const char *body, size_t len, json_error_t *jerr)
{
	const size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY;
	json_t *v = json_loadb(body, len, flags, jerr);
	char *text = NULL;
	size_t at[WIDE_INTS], n = len;
	int k = 0;
	wc_api_wide_clear();
	while (!v && k < WIDE_INTS && json_error_code(jerr) == json_error_numeric_overflow &&
	       strncmp(jerr->text, "too big", 7) == 0 && jerr->position > 0 && (size_t)jerr->position <= n) {
		const char *t = text ? text : body;
		size_t p = (size_t)jerr->position;
		char *wider = t[p - 1] >= '0' && t[p - 1] <= '9' ? malloc(n + 2) : NULL;
		if (!wider)
			break;
		/* its digits, so that a refusal quotes it as sent
		 * (wc_api_value_text) */
		size_t from = p;
		while (from > 0 && ((t[from - 1] >= '0' && t[from - 1] <= '9') || t[from - 1] == '-'))
			from--;
		char *digits = malloc(p - from + 1);
		if (digits) {
			memcpy(digits, t + from, p - from);
			digits[p - from] = '\0';
			wc_api_wide_note(digits, p - from, strtod(digits, NULL));
			free(digits);
		}
		memcpy(wider, t, p);
		memcpy(wider + p, ".0", 2);
		memcpy(wider + p + 2, t + p, n - p);
		free(text);
		text = wider;
		n += 2;
		at[k++] = p;
		v = json_loadb(text, n, flags, jerr);
	}
	for (int i = 0; !v && i < k; i++)
		if (at[i] < (size_t)jerr->position && !memchr(text + at[i], '\n', (size_t)jerr->position - at[i]))
			jerr->column -= 2;
	free(text);
	return v;
}

int
wc_request_parse_json(const char *body, size_t len, json_t **out, wc_response *res)
{
	json_error_t jerr;
	wc_api_error e;

	*out = NULL;
	int line, column;
	/* A second mark is no JSON either; named, not quoted as jansson's
	 * invisible "invalid token near '\xEF\xBB\xBF'" (the test every file
	 * reader makes, wc_text_second_bom). */
	int bom_col, bom_line = wc_text_second_bom(body, len, &bom_col);
	if (bom_line) {
		wc_api_error_set(&e, 400, "malformed_json", NULL, "malformed JSON: " WC_TEXT_SECOND_BOM
		                 " before the JSON: send at most one (line %d, column %d)", bom_line, bom_col);
		e.line = bom_line;
		e.column = bom_col;
		wc_response_error(res, &e);
		return -1;
	}
	/* A UTF-8 byte order mark before the JSON is skipped, as every text
	 * file reader skips it (wc_text_bom_len; docs/http-api.md, "Errors");
	 * line and column count from after it, as in a file. */
	size_t bom = wc_text_bom_len(body, len);
	body += bom;
	len -= bom;
	/* A UTF-16 body (PowerShell's, or a client's charset=utf-16) is
	 * refused as every file reader refuses such a file, not as the JSON
	 * error its first bytes make (docs/http-api.md, "Errors"). */
	char what[48];
	const char *enc = wc_text_utf16_what(body, len, what);
	if (enc) {
		wc_api_error_set(&e, 400, "malformed_json", "", "body: %s: re-send as UTF-8 (JSON is UTF-8, RFC 8259 "
		                 "8.1; e.g. iconv -f %s -t UTF-8)", what, enc);
		e.line = e.column = 1;
		wc_response_error(res, &e);
		return -1;
	}
	if (too_deep(body, len, WC_JSON_MAX_DEPTH, &line, &column)) {
		wc_api_error_set(&e, 400, "malformed_json", NULL, "JSON nested deeper than %d levels (line %d, column %d)",
		                 WC_JSON_MAX_DEPTH, line, column);
		e.line = line;
		e.column = column;
		wc_response_error(res, &e);
		return -1;
	}
	/* JSON_DECODE_ANY: a body of `42` or `null` is valid JSON of the
	 * wrong type, which each route answers 422 wrong_type
	 * (docs/http-api.md, "Errors"), not malformed text. */
	*out = load_json(body, len, &jerr);
	size_t at, n;
	if (*out && underflows(body, len, &line, &column, &at, &n)) {
		json_decref(*out);
		*out = NULL;
		wc_api_error_set(&e, 400, "number_out_of_range", NULL,
		                 "number %.*s%s is not 0 but below the least double, so it would read as 0 "
		                 "(line %d, column %d)", (int)(n < 40 ? n : 40), body + at, n > 40 ? "..." : "",
		                 line, column);
		e.line = line;
		e.column = column;
		wc_response_error(res, &e);
		return -1;
	}
	if (*out)
		return 0;
	/* Numbers JSON cannot hold as a finite double (1e999) fail here too:
	 * jansson refuses them while parsing, so they are reported like any
	 * other malformed text, with the position of the literal. Positions
	 * are 1-based in the message as in "line"/"column", by the rule every
	 * file reader's message takes (wc_json_error_at; docs/http-api.md,
	 * "Errors"). */
	int at_line, at_col;
	char text[WC_JSON_ERROR_TEXT_MAX];
	wc_json_error_at(&jerr, body, len, &at_line, &at_col);
	if (json_error_code(&jerr) == json_error_null_character || json_error_code(&jerr) == json_error_null_byte_in_key)
		/* A \u0000 escape is refused (C strings would end at it), in the
		 * API's words rather than jansson's, which name its flag. */
		wc_api_error_set(&e, 400, "malformed_json", NULL, "malformed JSON: a string or key holds \\u0000 (NUL), "
		                 "which the API does not accept (line %d, column %d)", at_line, at_col);
	else
		wc_api_error_set(&e, 400,
		                 json_error_code(&jerr) == json_error_numeric_overflow ? "number_out_of_range"
		                 : json_error_code(&jerr) == json_error_duplicate_key  ? "duplicate_key"
		                                                                       : "malformed_json",
		                 NULL, "malformed JSON: %s (line %d, column %d)",
		                 wc_json_error_text(&jerr, text, sizeof text), at_line, at_col);
	e.line = at_line;
	e.column = at_col;
	wc_response_error(res, &e);
	return -1;
}

int
wc_request_read_body(wc_request *req, size_t limit, char **body, size_t *len, wc_response *res)
{
	wc_api_error e;

	*body = NULL;
	*len = 0;
	if (req->content_length > (long long)limit) {
		too_large(res, limit);
		return -1;
	}
	if (!is_json_media_type(mg_get_header(req->conn, "Content-Type"))) {
		wc_api_error_set(&e, 415, "unsupported_media_type", NULL,
		                 "send the body as Content-Type: application/json");
		wc_response_error(res, &e);
		return -1;
	}
	if (!all_identity(req->conn)) {
		/* A gzip body was read as JSON text and blamed at line 1
		 * (RFC 9110, 15.5.16; docs/http-api.md, Errors). */
		wc_api_error_set(&e, 415, "unsupported_media_type", NULL,
		                 "Content-Encoding: only identity is accepted; send the body uncompressed");
		wc_response_error(res, &e);
		return -1;
	}
	return read_body(req, limit, body, len, res);
}

int
wc_request_read_json(wc_request *req, size_t limit, json_t **out, wc_response *res)
{
	char *body;
	size_t len;
	if (wc_request_read_body(req, limit, &body, &len, res) != 0)
		return -1;
	int rc = wc_request_parse_json(body, len, out, res);
	free(body);
	return rc;
}

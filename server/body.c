/*
 * Request bodies: media type (415), size limit (413) checked on the
 * announced Content-Length before anything is read and again while
 * reading (chunked or lying clients), then strict JSON parsing (400 with
 * line and column; duplicate keys refused). CivetWeb's max_request_size
 * bounds the headers only, so the body limit lives here.
 */
#include "server_internal.h"

#include <civetweb.h>
#include <stdlib.h>
#include "models/grow.h"
#include <string.h>
#include <strings.h>

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

static void
too_large(wc_response *res, size_t limit)
{
	wc_api_error e;
	wc_api_error_set(&e, 413, "payload_too_large", NULL,
	                 "request body larger than %zu bytes", limit);
	wc_response_error(res, &e);
	res->close = 1;
}

/* Read the whole body into a malloc'd buffer of at most `limit` bytes. */
static int
read_body(wc_request *req, size_t limit, char **out, size_t *len_out, wc_response *res)
{
	size_t cap, len = 0;
	char *buf;
	wc_api_error e;

	*out = NULL;
	*len_out = 0;
	if (req->content_length > (long long)limit) {
		too_large(res, limit);
		return -1;
	}
	/* Known length: one allocation (+1 to notice a longer body). Unknown
	 * (chunked): grow geometrically up to limit + 1. */
	cap = req->content_length >= 0 ? (size_t)req->content_length + 1 : 4096;
	if (cap > limit + 1)
		cap = limit + 1;
	if (!(buf = malloc(cap)))
		goto oom;
	for (;;) {
		if (len == cap) {
			if (cap > limit) {
				free(buf);
				too_large(res, limit);
				return -1;
			}
			size_t ncap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			char *nb = wc_resize_array(buf, ncap, 1);
			if (!nb) {
				free(buf);
				goto oom;
			}
			buf = nb;
			cap = ncap;
		}
		int n = mg_read(req->conn, buf + len, cap - len);
		if (n < 0) {
			free(buf);
			wc_api_error_set(&e, 400, "bad_request", NULL, "could not read the request body");
			wc_response_error(res, &e);
			res->close = 1;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	req->body_pending = 0;
	if (len > limit) {
		free(buf);
		too_large(res, limit);
		return -1;
	}
	if (req->content_length >= 0 && len < (size_t)req->content_length) {
		free(buf);
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "request body ended after %zu of %lld bytes", len, req->content_length);
		wc_response_error(res, &e);
		res->close = 1;
		return -1;
	}
	*out = buf;
	*len_out = len;
	return 0;
oom:
	wc_api_error_set(&e, 500, "internal", NULL, "out of memory reading the body");
	wc_response_error(res, &e);
	res->close = 1;
	return -1;
}

/* Does the JSON text nest arrays/objects deeper than `max`? jansson
 * parses (and frees) recursively, and CivetWeb's worker stacks are small,
 * so depth is bounded before parsing. Brackets inside strings do not
 * count. A malformed text is left for the parser to report. */
static int
too_deep(const char *p, size_t n, int max)
{
	int depth = 0, in_string = 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
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

int
wc_request_read_json(wc_request *req, size_t limit, json_t **out, wc_response *res)
{
	char *body = NULL;
	size_t len;
	json_error_t jerr;
	wc_api_error e;

	*out = NULL;
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
	if (read_body(req, limit, &body, &len, res) != 0)
		return -1;
	if (too_deep(body, len, WC_JSON_MAX_DEPTH)) {
		free(body);
		wc_api_error_set(&e, 400, "malformed_json", NULL,
		                 "JSON nested deeper than %d levels", WC_JSON_MAX_DEPTH);
		wc_response_error(res, &e);
		return -1;
	}
	*out = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	free(body);
	if (*out)
		return 0;
	/* Numbers JSON cannot hold as a finite double (1e999) fail here too:
	 * jansson refuses them while parsing, so they are reported like any
	 * other malformed text, with the position of the literal. */
	wc_api_error_set(&e, 400,
	                 json_error_code(&jerr) == json_error_numeric_overflow ? "number_out_of_range"
	                 : json_error_code(&jerr) == json_error_duplicate_key  ? "duplicate_key"
	                                                                       : "malformed_json",
	                 NULL, "malformed JSON: %s (line %d, column %d)", jerr.text, jerr.line,
	                 jerr.column);
	e.line = jerr.line > 0 ? jerr.line : 1;
	e.column = jerr.column > 0 ? jerr.column : 1;
	wc_response_error(res, &e);
	return -1;
}

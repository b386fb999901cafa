/*
 * Answers the HTTP layer gives itself, in the API's error shape
 * (docs/http-api.md, "Errors"). CivetWeb refuses some requests before any
 * handler sees them -- a malformed request line, an unknown or lower-case
 * method, a bad Content-Length, too many or too long headers, an HTTP
 * version it does not speak -- and would answer in plain text; its
 * http_error callback hands them to us instead. Two kinds it parses but
 * then drops without a word: the asterisk form (`GET *`) and absolute-form
 * URIs (`GET http://host/path`), which it would pass to a proxy; its
 * connection_close callback is the last point where the connection can
 * still be answered. Both callbacks run on the worker thread that served
 * the connection, so a thread-local flag tells the second whether the
 * first already answered.
 */
#include "http_internal.h"

#include <civetweb.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Set when wc_protocol_http_error answered on this worker's connection;
 * cleared when that connection closes. */
static _Thread_local int answered_by_http_error;
/* Since when this worker's connection has been waiting for the head of
 * its next request (CLOCK_MONOTONIC): its start, then each answer. */
static _Thread_local struct timespec head_since;
/* The Allow header of the refusal being made (a TRACE's 405), or NULL. */
static _Thread_local const char *refusal_allow;

void
wc_protocol_head_wait_begins(void)
{
	clock_gettime(CLOCK_MONOTONIC, &head_since);
}

int
wc_protocol_init_connection(const struct mg_connection *conn, void **conn_data)
{
	wc_server *srv = mg_get_user_data(mg_get_context(conn));
	(void)conn_data;
	if (srv)
		atomic_fetch_add(&srv->connections, 1);
	wc_protocol_head_wait_begins();
	return 0;
}

static wc_server *
server_of(const struct mg_connection *conn)
{
	return mg_get_user_data(mg_get_context(conn));
}

/* Write `e` as a complete answer and close; counted as an unmatched
 * route (no handler ran). */
static void
send_refusal(struct mg_connection *conn, const wc_api_error *e)
{
	wc_response res = { 0 };
	wc_server *srv = server_of(conn);
	wc_response_error(&res, e);
	res.close = 1;
	res.allow = refusal_allow;
	refusal_allow = NULL;
	if (srv)
		wc_metrics_record(&srv->metrics, WC_ROUTE_UNMATCHED, res.status, 0.0);
	wc_response_send(conn, &res, 0);
	wc_response_free(&res);
}

/* Had this worker's connection waited for its head as long as CivetWeb
 * lets it (the I/O timeout) when CivetWeb gave up on it? A head over
 * 16 KiB comes in at once, not over a second. */
static int
head_overdue(const struct mg_connection *conn)
{
	struct timespec now;
	wc_server *srv = server_of(conn);
	clock_gettime(CLOCK_MONOTONIC, &now);
	double ms = 1e3 * (double)(now.tv_sec - head_since.tv_sec) + 1e-6 * (double)(now.tv_nsec - head_since.tv_nsec);
	return srv && head_since.tv_sec != 0 && ms >= 0.9 * srv->io_timeout_ms;
}

/* TRACE is a method CivetWeb 1.15 refuses as a bad request; on a known
 * path it is answered as every other wrong method (docs/http-api.md,
 * "Routes"): 405 with Allow. Returns 1 with `e` set, else 0. The Allow
 * header is sent by send_refusal from e's route. */
static int
trace_of_route(struct mg_connection *conn, wc_api_error *e)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	wc_server *srv = server_of(conn);
	char path[256];
	/* CivetWeb refuses it before splitting the target: the path is the
	 * target up to its query. */
	if (!srv || !ri || !ri->request_method || strcmp(ri->request_method, "TRACE") != 0 ||
	    !ri->request_uri || ri->request_uri[0] != '/')
		return 0;
	snprintf(path, sizeof path, "%.*s", (int)strcspn(ri->request_uri, "?"), ri->request_uri);
	int route = wc_router_find(srv, path);
	if (route < 0)
		return 0;
	const wc_route *r = wc_route_at((size_t)route);
	wc_api_error_set(e, 405, "method_not_allowed", NULL, "%s takes %s, not TRACE", r->path, r->method);
	refusal_allow = r->method;
	return 1;
}

/* 411 for a Content-Length that is not a whole number of bytes. */
static void
length_refused(wc_api_error *e, const char *value)
{
	wc_api_error_set(e, 411, "length_required", NULL,
	                 "Content-Length must be a whole number of bytes, digits only (RFC 9110, 8.6), "
	                 "got \"%.*s\"", (int)wc_utf8_prefix(value, 40), value);
}

/* A field value without the blanks (SP, HTAB) around it: RFC 9110, 5.5,
 * excludes them from the value. CivetWeb drops those before it, not those
 * after it. The one rule the framing checks read Content-Length and
 * Transfer-Encoding by (docs/http-api.md, "Limits"). The value starts at
 * the result, `*len` bytes long. */
static const char *
field_value(const char *v, size_t *len)
{
	v += strspn(v, " \t");
	size_t n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	*len = n;
	return v;
}

/* A Content-Length CivetWeb reads with strtoll, which stops at the first
 * non-digit: "2abc", "2 3" and "2.5" were read as 2 and the rest of the
 * body taken for the next request. RFC 9110, 8.6: 1*DIGIT. */
static int
is_length(const char *v)
{
	size_t n;
	const char *d = field_value(v, &n);
	return n > 0 && strspn(d, "0123456789") >= n;
}

/* Is a Transfer-Encoding value the coding "chunked", in any case? */
static int
is_chunked(const char *v)
{
	size_t n;
	const char *c = field_value(v, &n);
	return n == 7 && strncasecmp(c, "chunked", 7) == 0;
}

/* Is `name` a header that CivetWeb found with spaces before its colon
 * ("Content-Length : 54")? RFC 9112, 5.1, has a server refuse such a
 * request with 400. CivetWeb 1.15 parses the head in place and writes a
 * NUL over each of those spaces and over the colon, so right after the
 * name's end comes a second NUL before the value; after "Name:" comes the
 * value or its blanks, or, for an empty value, the value itself (its CR
 * made NUL). */
static int
space_before_colon(const char *name, const char *value)
{
	size_t len = strlen(name);
	return name[len + 1] == '\0' && value != name + len + 1;
}

/* The folded line (obs-fold: a line that starts with a space or tab,
 * RFC 9112, 5.2) CivetWeb 1.15 stopped at, or NULL. Its header parser
 * takes such a line for the end of the head, so that line and every
 * header after it were dropped without a word. Parsed in place, the last
 * header it kept ends with a NUL over its CR and one over its LF (one
 * alone for a bare LF): the next byte starts the line it stopped at, a CR
 * or LF where the head really ends, which is still in the buffer. `*len`
 * gets the folded line's length up to its line end. */
static const char *
folded_line(const struct mg_request_info *ri, size_t *len)
{
	if (ri->num_headers < 1 || !ri->http_headers[ri->num_headers - 1].value)
		return NULL;
	const char *v = ri->http_headers[ri->num_headers - 1].value;
	const char *next = v + strlen(v) + 1;
	if (*next == '\0')
		next++;
	if (*next != ' ' && *next != '\t')
		return NULL;
	*len = strcspn(next, "\r\n");
	return next;
}

/* 400 when a Transfer-Encoding is given that is not one "chunked": the
 * only coding the server reads (RFC 9112, 6.1). CivetWeb refuses most
 * others itself ("gzip, chunked"), but took "identity" for no body and
 * read the body as the next request; two headers (a proxy joins them as
 * "chunked, chunked") it read as one. A lone "chunked " (blanks after it)
 * CivetWeb 1.15 refuses too, before any handler: it compares the value
 * with "chunked" as sent, so the message says that the blanks are the
 * reason. Returns 1 with `e` set, else 0. */
static int
transfer_coding_refused(const struct mg_connection *conn, wc_api_error *e)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	const char *te = NULL;
	int count = 0;
	for (int i = 0; ri && i < ri->num_headers; i++) {
		const char *name = ri->http_headers[i].name, *value = ri->http_headers[i].value;
		if (!name || !value || strcasecmp(name, "Transfer-Encoding") != 0)
			continue;
		count++;
		if (!te || is_chunked(te))
			te = value; /* the first that is not "chunked" is quoted */
	}
	if (count == 0 || (count == 1 && strcasecmp(te, "chunked") == 0))
		return 0;
	if (count == 1 && is_chunked(te))
		wc_api_error_set(e, 400, "bad_request", NULL,
		                 "Transfer-Encoding \"%.*s\": blanks after \"chunked\" are not accepted "
		                 "(the HTTP layer, CivetWeb 1.15, compares the value as sent, though RFC "
		                 "9110, 5.5, allows them); send \"chunked\" without them",
		                 (int)wc_utf8_prefix(te, 40), te);
	else
		wc_api_error_set(e, 400, "bad_request", NULL,
		                 "Transfer-Encoding must be given once and be \"chunked\" (RFC 9112, 6.1), got "
		                 "\"%.*s\"%s; or send Content-Length",
		                 (int)wc_utf8_prefix(te, 40), te, count > 1 ? " in more than one header" : "");
	return 1;
}

/* Does `s` hold `word`, in any case? */
static int
holds_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return 1;
	return 0;
}

/* Does the request ask for a WebSocket, by CivetWeb 1.15's own test (its
 * first Upgrade header naming "websocket", any Connection header naming
 * "upgrade", in any case)? */
static int
asks_websocket(const struct mg_connection *conn)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	const char *upgrade = mg_get_header(conn, "Upgrade");
	if (!ri || !upgrade || !holds_word(upgrade, "websocket"))
		return 0;
	for (int i = 0; i < ri->num_headers; i++) {
		const char *name = ri->http_headers[i].name, *value = ri->http_headers[i].value;
		if (name && value && strcasecmp(name, "Connection") == 0 && holds_word(value, "upgrade"))
			return 1;
	}
	return 0;
}

int
wc_protocol_begin_request(struct mg_connection *conn)
{
	if (!asks_websocket(conn))
		return 0;
	/* CivetWeb would look for a WebSocket handler, find none and refuse
	 * the request as 404 "Not found" from deep in its own frames, which
	 * overflowed the worker's stack before any answer (under
	 * AddressSanitizer even in its own formatting). Refused here, at the
	 * depth a route's refusal is made (router.c). RFC 9110, 7.8, would let
	 * the server ignore the header and answer; CivetWeb does not, so the
	 * refusal says what to leave out (docs/http-api.md, "Errors"). Closed:
	 * a body is left unread. */
	wc_api_error e;
	wc_api_error_set(&e, 400, "bad_request", NULL,
	                 "Upgrade: websocket is not offered: this server answers plain HTTP/1.0 and HTTP/1.1 requests; send the "
	                 "request without the Upgrade header and Connection: Upgrade");
	mg_disable_connection_keep_alive(conn);
	send_refusal(conn, &e);
	return 400;
}

typedef struct {
	struct mg_connection *conn;
	int status;
	const char *msg;
} http_error_call;

/* wc_protocol_http_error's answer, on the route stack (stack.c). */
static void
http_error_answer(void *arg)
{
	const http_error_call *c = arg;
	struct mg_connection *conn = c->conn;
	int status = c->status;
	wc_api_error e;
	const char *why = c->msg ? c->msg : "";
	int n = (int)wc_utf8_prefix(why, 120);
	switch (status) {
	case 411: {
		/* The headers are parsed by now: quote the value, as the
		 * handler's own check does (length_refused). */
		const char *cl = mg_get_header(conn, "Content-Length");
		length_refused(&e, cl ? cl : why);
		break;
	}
	case 413:
	case 431:
		wc_api_error_set(&e, status, "headers_too_large", NULL,
		                 "request line and headers larger than the server accepts (%.*s)", n, why);
		break;
	case 414:
		wc_api_error_set(&e, 414, "uri_too_long", NULL, "request URI too long (%.*s)", n, why);
		break;
	case 505:
		wc_api_error_set(&e, 505, "http_version_not_supported", NULL,
		                 "HTTP version not supported: send HTTP/1.0 or HTTP/1.1 (%.*s)", n, why);
		break;
	default:
		if (status >= 500)
			wc_api_error_set(&e, status, "internal", NULL, "the HTTP layer failed (%.*s)", n, why);
		else if (strcmp(why, "Malformed message") == 0 && head_overdue(conn))
			/* CivetWeb says this too when the head did not come in time
			 * (docs/http-api.md, "Limits"). */
			wc_api_error_set(&e, 408, "request_timeout", NULL,
			                 "request line and headers not complete within %d ms (%s ms on a kept-alive "
			                 "connection; CivetWeb reports a head over %d bytes alike)",
			                 server_of(conn)->io_timeout_ms, WC_SERVER_KEEP_ALIVE_MS, WC_SERVER_MAX_HEAD);
		else if (status == 400 && trace_of_route(conn, &e))
			; /* 405, and the Allow header, as for any other method */
		else if (status == 400 && transfer_coding_refused(conn, &e))
			; /* CivetWeb's "Bad request" for a coding it does not know */
		else if (strcmp(why, "Malformed message") == 0)
			/* CivetWeb says this also of a request line and headers past
			 * its 16 KiB buffer, and cannot tell which: both are named, so
			 * a long URL or header can be told (docs/http-api.md, Errors). */
			wc_api_error_set(&e, 400, "bad_request", NULL,
			                 "the request could not be parsed (Malformed message: a bad request line or "
			                 "header, or request line and headers together over %d bytes); see GET "
			                 "/openapi.json", WC_SERVER_MAX_HEAD);
		else
			wc_api_error_set(&e, status >= 400 ? status : 400, "bad_request", NULL,
			                 "the request could not be parsed (%.*s); see GET /openapi.json", n,
			                 why);
		break;
	}
	send_refusal(conn, &e);
}

int
wc_protocol_http_error(struct mg_connection *conn, int status, const char *msg)
{
	/* CivetWeb may call this deep in its own frames: on its no-WebSocket-
	 * handler path (now never taken: wc_protocol_begin_request) the
	 * worker's stack had about 7 KiB left, and formatting the refusal
	 * overflowed it. The answer is built and written on the stack the
	 * routes run on (stack.c); CivetWeb 1.15 has no option for its
	 * workers' stack size (a build-time constant, 100 KiB in Debian's).
	 * Without memory for that stack, CivetWeb answers itself, in plain
	 * text. */
	http_error_call c = { conn, status, msg };
	if (wc_server_call_deep(http_error_answer, &c) != 0)
		return 1;
	answered_by_http_error = 1;
	return 0;
}

void
wc_protocol_connection_close(const struct mg_connection *conn)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	/* A request that was parsed (it has a method and a target), reached no
	 * handler (no local URI) and got no error answer: CivetWeb is about to
	 * close on it silently. The connection is not written to otherwise, so
	 * the cast is safe; the write is bounded by the I/O timeout. */
	if (ri && ri->request_method && ri->request_uri && !ri->local_uri && !answered_by_http_error) {
		wc_api_error e;
		const char *t = ri->request_uri;
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "request target \"%.*s\" is not a path: this server takes origin-form "
		                 "targets only (POST /v1/predict/inference, not * or http://host/...)",
		                 (int)wc_utf8_prefix(t, 80), t);
		send_refusal((struct mg_connection *)conn, &e);
	}
	answered_by_http_error = 0;
	wc_server *srv = server_of(conn);
	if (srv)
		atomic_fetch_sub(&srv->connections, 1);
}

/* Answer `e` and close: the body's end is not known for sure, so what
 * follows on the connection cannot be read as a next request. */
static int
framing_refused(wc_response *res, const wc_api_error *e)
{
	wc_response_error(res, e);
	res->close = 1;
	return -1;
}

/* 400 for an HTTP/1.1 request without a Host header or with more than
 * one (RFC 9112, 3.2: a server MUST answer such a request 400); an
 * HTTP/1.0 one may leave it out. Returns 1 with `e` set, else 0. */
static int
host_refused(const struct mg_request_info *ri, wc_api_error *e)
{
	int count = 0;
	for (int i = 0; i < ri->num_headers; i++)
		if (ri->http_headers[i].name && strcasecmp(ri->http_headers[i].name, "Host") == 0)
			count++;
	if (count == 1 || !ri->http_version || strcmp(ri->http_version, "1.1") != 0)
		return 0;
	if (count == 0)
		wc_api_error_set(e, 400, "bad_request", NULL,
		                 "an HTTP/1.1 request needs a Host header (RFC 9112, 3.2): send Host: with the "
		                 "server's host name");
	else
		wc_api_error_set(e, 400, "bad_request", NULL,
		                 "%d Host headers: an HTTP/1.1 request takes exactly one (RFC 9112, 3.2)", count);
	return 1;
}

/* Two different Content-Type values (a singleton field, RFC 9110, 8.3):
 * which one the body is in cannot be told, and the first alone was read,
 * so the answer depended on the headers' order. The same value repeated
 * is one, as for Content-Length. Returns 1 with `e` set, else 0. */
static int
content_type_conflict(const struct mg_request_info *ri, wc_api_error *e)
{
	const char *first = NULL;
	size_t first_n = 0;
	for (int i = 0; i < ri->num_headers; i++) {
		const char *name = ri->http_headers[i].name, *value = ri->http_headers[i].value;
		if (!name || !value || strcasecmp(name, "Content-Type") != 0)
			continue;
		size_t n;
		const char *v = field_value(value, &n);
		if (first && (n != first_n || strncasecmp(first, v, n) != 0)) {
			int a = (int)wc_utf8_prefix(first, first_n < 40 ? first_n : 40);
			int b = (int)wc_utf8_prefix(v, n < 40 ? n : 40);
			wc_api_error_set(e, 400, "bad_request", NULL,
			                 "conflicting Content-Type headers (\"%.*s\" and \"%.*s\"): send one, "
			                 "application/json", a, first, b, v);
			return 1;
		}
		if (!first) {
			first = v;
			first_n = n;
		}
	}
	return 0;
}

int
wc_protocol_check_headers(struct mg_connection *conn, wc_response *res)
{
	const struct mg_request_info *ri = mg_get_request_info(conn);
	const char *first = NULL; /* the Content-Length's digits, first_n of them */
	size_t first_n = 0;
	int chunked = 0;
	wc_api_error e;
	/* CivetWeb keeps MG_MAX_HEADERS fields and drops the rest without a
	 * word (a Content-Length past them was lost, and the body read as the
	 * next request); it cannot tell that many from more, so that many is
	 * refused (docs/http-api.md, "Limits"). */
	if (ri->num_headers >= MG_MAX_HEADERS) {
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "%d or more header fields: the HTTP layer reads only the first %d and "
		                 "would drop the rest unread; send at most %d",
		                 MG_MAX_HEADERS, MG_MAX_HEADERS, MG_MAX_HEADERS - 1);
		return framing_refused(res, &e);
	}
	/* The same silent drop, from a folded line: refused, as RFC 9112,
	 * 5.2, allows, rather than answered without the headers after it
	 * (a Content-Length lost became 411). */
	size_t fold_n;
	const char *fold = folded_line(ri, &fold_n);
	if (fold) {
		const char *after = ri->http_headers[ri->num_headers - 1].name;
		int shown = (int)wc_utf8_prefix(fold, fold_n < 40 ? fold_n : 40);
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "a folded header line (obs-fold, RFC 9112, 5.2) after header \"%.*s\": \"%.*s\"%s; "
		                 "the HTTP layer would drop it and every header after it: send each header on "
		                 "one line", (int)wc_utf8_prefix(after, 40), after, shown, fold,
		                 (size_t)shown < fold_n ? "..." : "");
		return framing_refused(res, &e);
	}
	if (transfer_coding_refused(conn, &e))
		return framing_refused(res, &e);
	if (host_refused(ri, &e) || content_type_conflict(ri, &e))
		return framing_refused(res, &e);
	for (int i = 0; i < ri->num_headers; i++) {
		const char *name = ri->http_headers[i].name, *value = ri->http_headers[i].value;
		if (!name || !value)
			continue;
		if (space_before_colon(name, value)) {
			wc_api_error_set(&e, 400, "bad_request", NULL,
			                 "whitespace between the header name \"%.*s\" and its colon "
			                 "(RFC 9112, 5.1)", (int)wc_utf8_prefix(name, 60), name);
			return framing_refused(res, &e);
		}
		if (strcasecmp(name, "Transfer-Encoding") == 0)
			chunked = 1;
		if (strcasecmp(name, "Content-Length") != 0)
			continue;
		if (!is_length(value)) {
			length_refused(&e, value);
			return framing_refused(res, &e);
		}
		/* Repeating the same length is allowed (RFC 9110, 8.6); two
		 * different ones leave the body's end ambiguous (smuggling). */
		size_t n;
		const char *length = field_value(value, &n);
		if (first && (n != first_n || strncmp(first, length, n) != 0)) {
			/* Both are digits only (is_length): no UTF-8 to cut. */
			wc_api_error_set(&e, 400, "bad_request", NULL,
			                 "conflicting Content-Length headers (\"%.*s\" and \"%.*s\")",
			                 (int)(first_n < 24 ? first_n : 24), first, (int)(n < 24 ? n : 24),
			                 length);
			return framing_refused(res, &e);
		}
		first = length;
		first_n = n;
	}
	/* Both framings at once: a proxy in front may pick the other one, so
	 * the body's end is ambiguous (request smuggling); RFC 9112, 6.3,
	 * lets a server refuse such a message, and it must then close. */
	if (chunked && first) {
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "both Transfer-Encoding and Content-Length given: send one of them "
		                 "(RFC 9112, 6.3)");
		return framing_refused(res, &e);
	}
	/* A POST with neither: RFC 9112, 6.3, reads its body as empty, and
	 * what the client sent as the body came in as the next request (a
	 * 400 malformed_json, then a 408 for the body's bytes). RFC 9110,
	 * 8.6, lets a server ask for the length instead: 411, closing, as
	 * the body's bytes may follow (docs/http-api.md, "Errors"). */
	if (!chunked && !first && ri->request_method && strcmp(ri->request_method, "POST") == 0) {
		wc_api_error_set(&e, 411, "length_required", NULL,
		                 "a POST body needs Content-Length or Transfer-Encoding: chunked");
		return framing_refused(res, &e);
	}
	return 0;
}

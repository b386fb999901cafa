/*
 * Building and writing HTTP answers. The status line, the headers and the
 * body go out in a single mg_write: CivetWeb's mg_response_header_* API
 * sends every header line with its own write, which costs a system call
 * per line and, with Nagle's algorithm, can stall a keep-alive client on
 * delayed ACKs. Content-Length is always sent (keep-alive needs it).
 */
#include "render_internal.h"
#include "http_internal.h"

#include <civetweb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include "models/grow.h"
#include <string.h>

/* -------------------------------------------------------- growable text */

static int
buf_reserve(wc_buf *b, size_t extra)
{
	if (b->failed)
		return -1;
	if (extra > SIZE_MAX - b->len - 1) {
		b->failed = 1;
		return -1;
	}
	char *nd = wc_grow(b->data, &b->cap, b->len + extra + 1, 1, 1024);
	if (!nd) {
		b->failed = 1;
		return -1;
	}
	b->data = nd;
	return 0;
}

void
wc_buf_append(wc_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n) != 0)
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
wc_buf_printf(wc_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof small) {
		wc_buf_append(b, small, (size_t)n);
		return;
	}
	if (buf_reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
wc_buf_free(wc_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------- answers */

void
wc_response_free(wc_response *res)
{
	if (!res->borrowed)
		free(res->body);
	res->body = NULL;
	res->len = 0;
	res->borrowed = 0;
}

static const char oom_body[] =
	"{\"error\":{\"status\":500,\"code\":\"internal\",\"message\":\"out of memory\"}}";

static void
response_oom(wc_response *res)
{
	wc_response_free(res);
	res->status = 500;
	res->content_type = NULL;
	res->body = (char *)oom_body;
	res->len = sizeof oom_body - 1;
	res->borrowed = 1;
}

void
wc_response_text(wc_response *res, int status, char *body, size_t len)
{
	wc_response_free(res);
	if (!body) {
		response_oom(res);
		return;
	}
	res->status = status;
	res->body = body;
	res->len = len;
}

/* A per-thread block for response_dump_small, on the heap (released when
 * the thread ends): CivetWeb's worker stacks are small, and glibc carves
 * static thread-local storage out of them. */
#define DUMP_BLOCK 16384
static pthread_key_t dump_key;
static pthread_once_t dump_once = PTHREAD_ONCE_INIT;
static int dump_key_ok;

static void
dump_key_make(void)
{
	dump_key_ok = pthread_key_create(&dump_key, free) == 0;
}

static char *
dump_block(void)
{
	pthread_once(&dump_once, dump_key_make);
	if (!dump_key_ok)
		return NULL;
	char *b = pthread_getspecific(dump_key);
	if (!b && (b = malloc(DUMP_BLOCK)) != NULL && pthread_setspecific(dump_key, b) != 0) {
		free(b);
		b = NULL;
	}
	return b;
}

/* json_dumps's text of `o` (NUL-terminated, the caller frees; its length
 * in *len), or NULL. Printed into the thread's block first and copied out
 * once at its final size: json_dumps grows its buffer by doubling (a dozen
 * reallocs for a 3 KB answer, the larger ones making glibc consolidate its
 * free lists) and then copies it once more. A document larger than the
 * block is printed twice, hence only for answers that are usually small.
 * The same bytes as json_dumps (docs/results.md, "Server speed"). */
static char *
response_dump_small(const json_t *o, size_t *len)
{
	char *block = dump_block();
	if (!block) {
		char *s = json_dumps(o, WC_JSON_FLAGS);
		*len = s ? strlen(s) : 0;
		return s;
	}
	size_t n = json_dumpb(o, block, DUMP_BLOCK, WC_JSON_FLAGS);
	char *s = n ? wc_alloc_array(n + 1, 1) : NULL;
	if (s && n <= DUMP_BLOCK)
		memcpy(s, block, n);
	else if (s && json_dumpb(o, s, n, WC_JSON_FLAGS) != n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	*len = s ? n : 0;
	return s;
}

void
wc_response_json(wc_response *res, int status, json_t *body)
{
	wc__render_whole(body);
	char *s = body ? json_dumps(body, WC_JSON_FLAGS) : NULL;
	json_decref(body);
	wc_response_text(res, status, s, s ? wc__render_digits_fix(s, strlen(s)) : 0);
}

void
wc_response_json_small(wc_response *res, int status, json_t *body)
{
	size_t len = 0;
	wc__render_whole(body);
	char *s = body ? response_dump_small(body, &len) : NULL;
	json_decref(body);
	wc_response_text(res, status, s, s ? wc__render_digits_fix(s, len) : 0);
}

void
wc_response_static(wc_response *res, int status, const char *content_type, const char *body,
                   size_t len)
{
	wc_response_free(res);
	res->status = status;
	res->content_type = content_type;
	res->body = (char *)body;
	res->len = len;
	res->borrowed = 1;
}

void
wc_response_error(wc_response *res, const wc_api_error *e)
{
	json_t *inner = wc_api_error_json(e, NULL);
	json_t *root = inner ? json_pack("{s:o}", "error", inner) : NULL;
	res->content_type = NULL;
	wc_response_json(res, e->status, root);
}

static const char *
reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Content";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Unknown";
	}
}

int
wc_response_send(struct mg_connection *conn, const wc_response *res, int keep_alive)
{
	char head[1024];
	int n = snprintf(head, sizeof head,
	                 "HTTP/1.1 %d %s\r\n"
	                 "Content-Type: %s\r\n"
	                 "Content-Length: %zu\r\n"
	                 "Cache-Control: no-store\r\n"
	                 "%s%s%s"
	                 "%s"
	                 "Connection: %s\r\n\r\n",
	                 res->status, reason_phrase(res->status),
	                 res->content_type ? res->content_type : "application/json",
	                 res->len,
	                 res->allow ? "Allow: " : "", res->allow ? res->allow : "",
	                 res->allow ? "\r\n" : "",
	                 res->extra_headers ? res->extra_headers : "",
	                 keep_alive ? "keep-alive" : "close");
	if (n < 0 || (size_t)n >= sizeof head)
		return -1;
	if (res->omit_body)
		return mg_write(conn, head, (size_t)n) < 0 ? -1 : 0;
	/* Small answers are copied behind the headers so that one write
	 * carries everything; large ones go in two writes (the copy would cost
	 * more than the extra system call). The copy lives on the heap:
	 * CivetWeb's worker threads have small stacks (about 100 KiB). */
	if (res->len <= 65536) {
		char *one = wc_alloc_array((size_t)n + res->len, 1);
		if (one) {
			memcpy(one, head, (size_t)n);
			if (res->len)
				memcpy(one + n, res->body, res->len);
			int rc = mg_write(conn, one, (size_t)n + res->len) < 0 ? -1 : 0;
			free(one);
			return rc;
		}
	}
	if (mg_write(conn, head, (size_t)n) < 0)
		return -1;
	return mg_write(conn, res->body, res->len) < 0 ? -1 : 0;
}

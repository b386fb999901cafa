/*
 * Private to server/: the HTTP layer -- the server, a request and its
 * answer, the route table, and what runs around every route. Only files
 * under server/ include civetweb.h; this header merely forward-declares
 * its connection type.
 *
 * Request life cycle (router.c): find the route (exact path match), check
 * the method, take a reference on the current parameter state, run the
 * route, record metrics, write the response in one piece, drop the
 * reference.
 *
 * Stack: CivetWeb's worker threads have about 15 KiB of their 100 KiB
 * stack left when a request arrives, so every route runs on a stack of
 * WC_HTTP_HANDLER_STACK bytes (stack.c); the router itself and the
 * response writer stay on the worker's, with their buffers on the heap.
 */
#ifndef WC_SERVER_HTTP_INTERNAL_H
#define WC_SERVER_HTTP_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "server/server.h"
#include "api_error_internal.h"
#include "metrics_internal.h"
#include "state_internal.h"

struct mg_connection;
struct mg_context;

/* Growable text (response.c): answers and the metrics exposition. */

/** A growable byte buffer (always NUL-terminated when non-empty). */
typedef struct {
	char *data;
	size_t len, cap;
	int failed; /* an allocation failed; contents are incomplete */
} wc_buf;

void wc_buf_append(wc_buf *b, const char *s, size_t n);
void wc_buf_printf(wc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wc_buf_free(wc_buf *b);

/** The wall-clock deadline of request bodies (deadline.c). */
typedef struct wc_watchdog wc_watchdog;

struct wc_server {
	struct mg_context *ctx;
	int port;
	size_t max_body, max_batch_body;
	int request_timeout_ms;      /* a request's body, after its headers */
	int io_timeout_ms;           /* CivetWeb's: headers, and each read or write */
	int bench_trivial_route;
	int threads;
	int max_body_readers;        /* workers that may wait for a body at once */
	atomic_int body_readers;
	int max_kept_alive;          /* connections that may stay open between requests */
	atomic_int connections;      /* connections a worker is serving */
	wc_watchdog *watchdog;       /* cuts bodies at their deadline */
	int max_heavy;               /* heavy routes running at once (router.c) */
	atomic_int heavy;
	char *busy_body;             /* the 503 beyond max_heavy, built once */
	char *calibrate_worker;      /* the wattcast executable, or NULL (route_calibrate.c) */
	int calibrate_timeout_ms;
	size_t busy_len;

	pthread_mutex_t state_lock;  /* guards `profiles` (the pointer only) */
	wc_profiles *profiles;

	atomic_int in_flight;        /* requests inside the handler */
	atomic_int draining;         /* 1 once wc_server_stop began */
	struct timespec started;     /* CLOCK_MONOTONIC */
	wc_metrics metrics;

	char *models_body;           /* GET /v1/models answer, built once */
	size_t models_len;
};

/** New reference on the current profiles (the caller releases them). */
wc_profiles *wc_server_acquire_profiles(wc_server *srv);

/* ------------------------------------------------------------- routing */

/** An answer about to be written. `body` is malloc'd unless `borrowed`. */
typedef struct {
	int status;
	const char *content_type;    /* NULL = application/json */
	char *body;
	size_t len;
	int borrowed;
	const char *allow;           /* 405: the Allow header */
	const char *extra_headers;   /* static "Name: value\r\n" lines, or NULL */
	char timing[64];             /* a Server-Timing line extra_headers may point to */
	int close;                   /* send Connection: close and drop it */
	int omit_body;               /* HEAD: headers (with Content-Length) only */
} wc_response;

/** One request as the routes see it. */
typedef struct {
	struct mg_connection *conn;
	wc_server *srv;
	wc_profiles *profiles;       /* referenced for the request's duration */
	const wc_state *state;       /* the default profile (borrowed from `profiles`) */
	const char *method;
	long long content_length;    /* -1 = not given (chunked or none) */
	int body_pending;            /* the client announced a body not yet read */
	int heavy;                   /* the route is heavy (wc_route.heavy) */
	int heavy_held;              /* holds one of the server's heavy slots */
	struct timespec started;     /* CLOCK_MONOTONIC, when the headers were in */
} wc_request;

typedef void (*wc_route_fn)(wc_request *req, wc_response *res);

typedef struct {
	const char *path;            /* matched exactly (no prefixes) */
	const char *method;
	wc_route_fn run;
	int bench_only;              /* only with bench_trivial_route */
	int heavy;                   /* counts against the server's max_heavy */
	int query;                   /* reads a query string (?profile=); others refuse one */
} wc_route;

enum { WC_ROUTE_UNMATCHED = WC_ROUTE_MAX - 1 };

/** The route table (also read by the tests and by metrics.c). */
size_t wc_route_count(void);
const wc_route *wc_route_at(size_t i);

/** Stack each route runs on (stack.c), one per worker, mapped on
 *  first use and touched only as deep as an answer goes: the deepest (a
 *  flexibility sweep's warnings) uses about 30 KiB under AddressSanitizer
 *  (a calibration, a few hundred KiB, runs in a worker process of its own:
 *  route_calibrate.c); 8 MiB is a main thread's stack. */
#define WC_HTTP_HANDLER_STACK (8u << 20)

/** Run fn(arg) on this worker's WC_HTTP_HANDLER_STACK stack and return
 *  when it has; 0, or -1 when the stack cannot be mapped (stack.c). */
int wc_server_call_deep(void (*fn)(void *), void *arg);

/** The CivetWeb handler registered for every URI. */
int wc_router_handle(struct mg_connection *conn, void *cbdata);
/** The index of the route of a raw (percent-encoded) path, or -1. */
int wc_router_find(const wc_server *srv, const char *raw);

/* The HTTP layer's own refusals in the API's shape (protocol.c). */

/** CivetWeb's http_error callback: a request CivetWeb refuses before any
 *  handler (bad request line, method, Content-Length, version, headers
 *  too long or too many) is answered as JSON, on the routes' stack. Returns 0; 1 (CivetWeb answers itself) when that stack
 *  cannot be mapped. */
int wc_protocol_http_error(struct mg_connection *conn, int status, const char *msg);
/** CivetWeb's begin_request callback: a WebSocket upgrade, which CivetWeb
 *  would refuse only deep in its own frames, is refused as 400 in the API's
 *  shape and the connection closed (returns 400); any other request goes
 *  on to the router (returns 0). */
int wc_protocol_begin_request(struct mg_connection *conn);
/** CivetWeb's connection_close callback: a request CivetWeb parsed but
 *  closes without any answer (`GET *`, an absolute-form URI) gets a 400
 *  in the API's shape before the connection goes. */
void wc_protocol_connection_close(const struct mg_connection *conn);
/** CivetWeb's init_connection callback: counts the connection a worker
 *  takes (srv->connections; connection_close uncounts it) and starts
 *  its wait for a head. Always returns 0. */
int wc_protocol_init_connection(const struct mg_connection *conn, void **conn_data);
/** This worker's connection waits for a new head from now on (after each
 *  answer; a head not complete within the I/O timeout is a 408). */
void wc_protocol_head_wait_begins(void);
/** Framing checks CivetWeb does not make (docs/http-api.md, "Errors"):
 *  MG_MAX_HEADERS header fields or more, a Transfer-Encoding other than
 *  one "chunked", whitespace before a header's colon, a Content-Length
 *  not all digits (411) or two different ones, Transfer-Encoding beside
 *  Content-Length, a POST with neither (411): 0, or -1 with `res` holding
 *  the refusal (closing). */
int wc_protocol_check_headers(struct mg_connection *conn, wc_response *res);

/* The body deadline (deadline.c): a request's body must be complete
 * srv->request_timeout_ms after its headers, on the wall clock
 * (docs/http-api.md, "Limits"). */
/** Start (0) or fail to start (-1) the watchdog thread of `srv`. */
int wc_watchdog_start(wc_server *srv);
/** Stop and free it; after mg_stop, when no body is read any more. */
void wc_watchdog_stop(wc_server *srv);
/** Watch the body `req` is about to read: at its deadline the reading
 *  side of its connection is shut, so the read in progress returns. The
 *  slot to disarm with, or -1 (not watched). */
int wc_watchdog_arm(wc_request *req);
void wc_watchdog_disarm(wc_request *req, int slot);

/* Answers. Each replaces what `res` held. */
void wc_response_json(wc_response *res, int status, json_t *body);   /* steals body */
/* The same for an answer that is usually a few KB (one prediction): printed
 * through a per-thread block, one allocation at its final size. */
void wc_response_json_small(wc_response *res, int status, json_t *body); /* steals body */
void wc_response_text(wc_response *res, int status, char *body, size_t len); /* steals */
void wc_response_static(wc_response *res, int status, const char *content_type,
                        const char *body, size_t len);
void wc_response_error(wc_response *res, const wc_api_error *e);
void wc_response_free(wc_response *res);
/** Write status line, headers and body with one write. */
int wc_response_send(struct mg_connection *conn, const wc_response *res, int keep_alive);

/** Heavy routes (batches, calibrations, envelopes, budgets) compute at
 *  most srv->max_heavy at a time (docs/http-api.md, "Limits"): each holds
 *  CPU for seconds and tens of MB, and many at once leave the allocator's
 *  per-thread arenas holding gigabytes. Taken once the body is read (a
 *  slow client holds a body reader, never a heavy slot) and released by
 *  the router after the answer is written. 0 = go on (also for a light
 *  route); -1 with `res` holding the 503 and its Retry-After (router.c). */
int wc_request_heavy_enter(wc_request *req, wc_response *res);

/* Request bodies (body.c). On failure `res` holds the error answer.
 * Bodies nested deeper than WC_JSON_MAX_DEPTH are refused (400) before
 * parsing: jansson recurses, and CivetWeb's worker stacks are small. */
#define WC_JSON_MAX_DEPTH 32
/** Read the body of a JSON route (415 unless application/json, 413 over
 *  `limit`) into a malloc'd buffer the caller frees. */
int wc_request_read_body(wc_request *req, size_t limit, char **body, size_t *len,
                         wc_response *res);
/** Parse body bytes as one JSON value (400 with line and column, depth
 *  limited, duplicate keys refused). */
int wc_request_parse_json(const char *body, size_t len, json_t **out, wc_response *res);
/** Both: read the body and parse it. */
int wc_request_read_json(wc_request *req, size_t limit, json_t **out, wc_response *res);

#endif

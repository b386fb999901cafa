/*
 * Private to server/ (and to the white-box server tests): the pieces the
 * routes share. Only files under server/ include civetweb.h; this header
 * merely forward-declares its connection type.
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
#ifndef WC_SERVER_INTERNAL_H
#define WC_SERVER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "server/server.h"

struct mg_connection;
struct mg_context;

/* ------------------------------------------------------------ rendering */

/** Print an answer's JSON (10 significant digits, keys in order; compact
 *  unless `indent` > 0) and release it (the reference is stolen). A
 *  malloc'd string, or NULL with `err` set. Every wc_render_* ends here. */
char *wc__render_dump(json_t *o, int indent, wc_error *err);
/** Every whole-valued real in `o` (to 2^53) made an integer, in place:
 *  the one rule by which answers write whole numbers as integers
 *  (docs/http-api.md), applied by wc__render_dump and wc_response_json*. */
void wc__render_whole(json_t *o);

/** New reference: the JSON object of a power-flexibility sweep. */
json_t *wc_flexibility_json(const wc_inference_query *q, const wc_flexibility *f, const char *params_version);
/** New reference: the JSON object of one inference prediction. */
json_t *wc_inference_json(const wc_inference_query *q, const wc_inference_prediction *pred,
                          const wc_capacity_prediction *cap, double max_fit,
                          const char *params_version);

/** New reference: the JSON object of one fine-tuning prediction. */
json_t *wc_finetune_json(const wc_finetune_query *q, const wc_finetune_prediction *pred,
                         const char *params_version);
/** New references: the JSON objects behind wc_render_envelope and
 *  wc_render_budget (server/render_envelope.c). */
json_t *wc_envelope_json(const wc_envelope_render *ctx, const wc_envelope_result *res);
/** The per-bin arrays of one band of an envelope answer (t_s, mean_w,
 *  p5_w, p95_w, mean_running): what WC_HTTP_MAX_BIN_VALUES counts. */
#define WC_ENVELOPE_BAND_ARRAYS 5
json_t *wc_budget_json(const wc_envelope_render *ctx, const wc_budget_options *bo,
                       const wc_budget_plan *plan, double seconds);

/** jansson flags of every JSON answer (the CLI's --json uses the same). */
#define WC_JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) | JSON_COMPACT)

/* -------------------------------------------------------- growable text */

/** A growable byte buffer (always NUL-terminated when non-empty). */
typedef struct {
	char *data;
	size_t len, cap;
	int failed; /* an allocation failed; contents are incomplete */
} wc_buf;

void wc_buf_append(wc_buf *b, const char *s, size_t n);
void wc_buf_printf(wc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wc_buf_free(wc_buf *b);

/* ------------------------------------------------------------- errors */

/** An API error before it becomes an HTTP body (or a batch item). `field`
 *  is a JSON pointer relative to the validated item ("" = the item itself);
 *  has_field = 0 leaves it out of the answer. */
typedef struct {
	int status;
	const char *code;
	int has_field;
	char field[160];
	char message[WC_ERROR_MSG_MAX];
	int line, column; /* > 0 for malformed JSON */
} wc_api_error;

void wc_api_error_set(wc_api_error *e, int status, const char *code, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/** 422 `wrong_type` at `field`: "NAME: expected WANT, got TYPE". Returns -1. */
int wc_api_wrong_type(wc_api_error *e, const char *field, const char *want, const json_t *got);
/** Every key of the object `obj` must be in `known` or `more` (NULL-ended
 *  lists; `more` may be NULL): the first other one is refused with 422
 *  `unknown_field` at the JSON pointer `at` + key. Returns 0 or -1. */
/** 422 invalid_value on the first member of `obj` that is the empty
 *  string (field `at`/key); 0 when none is. */
int wc_api_check_nonempty(const json_t *obj, const char *at, wc_api_error *e);
int wc_api_check_fields(const json_t *obj, const char *at, const char *const *known,
                        const char *const *more, wc_api_error *e);
/** `v` as the shortest text that reads back as the same double
 *  (wc_num_text; docs/http-api.md, "Errors"). */
const char *wc_api_num_text(char buf[32], double v);
/** 422 `invalid_value` at `field`: "NAME: WHAT, got V", WHAT formatted
 *  from `fmt` and V printed in full (wc_api_num_text). A limit of
 *  models/limits.h is worded as the predictor words it (predict/capacity.c)
 *  so that the CLI and every route say the same. Returns -1. */
int wc_api_invalid(wc_api_error *e, const char *field, double v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** 404 `unknown_model` at /model: `name` is no catalog model. Every route
 *  that takes a model refuses it in these words, with the catalog entry it
 *  is likely a typo of (wc_model_suggest, as the CLI's refusal;
 *  docs/http-api.md, "Errors") and `instead`, how that route takes a
 *  model of one's own. Returns -1. */
int wc_api_unknown_model(wc_api_error *e, const char *name, const char *instead);
/** The seed at obj[key], when present: a JSON integer 0..2^63-1 (as the
 *  CLI's --seed), or a whole number up to 2^53 written otherwise; 422
 *  naming /key else. Returns 0 or -1. */
int wc_api_seed(const json_t *obj, const char *key, uint64_t *out, wc_api_error *e);
/** Bytes of `s` to keep so that at most `max` remain without cutting a
 *  UTF-8 character (for "%.*s" quotes of client text in messages). */
size_t wc_utf8_prefix(const char *s, size_t max);
/** Make `s` valid UTF-8 in place: a character cut at the end is dropped,
 *  any other invalid byte becomes '?'. */
void wc_utf8_repair(char *s);
/** Append `key` to a JSON pointer, escaping '~' and '/' (RFC 6901); a key
 *  that does not fit is cut between characters. */
void wc_json_pointer_append(char *ptr, size_t cap, const char *key);
/** New reference: {"status", "code", "message", "field"?, "line"?, "column"?}
 *  with `prefix` put in front of the field (a batch item's "/3"). */
json_t *wc_api_error_json(const wc_api_error *e, const char *prefix);

/* ------------------------------------------------- parameter state */

/** One loaded parameter set and everything precomputed from it. Immutable
 *  once published; freed when the last reference is dropped. */
typedef struct wc_state {
	atomic_int refs;
	wc_predictor *pred;          /* owns the params */
	char version[17];            /* wc_params_fingerprint */
	char loaded_utc[24];
	double loaded_unix;          /* seconds since the epoch */
	char source[256];
	char *params_body;           /* GET /v1/params answer */
	size_t params_len;
	char known_platforms[256];   /* "A100, H100, ..." for error messages */
	char datasheet_platforms[256]; /* the catalog boards without a level: "A10G, L4, ..." */
} wc_state;

/** Build a state from a copy of `p`. New object with one reference. */
int wc_state_new(const wc_params *p, const char *source, wc_state **out, wc_error *err);
void wc_state_retain(wc_state *st);
/** Drop one reference; the last one frees. NULL is a no-op. */
void wc_state_release(wc_state *st);

/* ------------------------------------------------------- answer cache */

/** Recent answers keyed by the exact request body bytes (answer_cache.c;
 *  docs/http-api.md, "Answer cache"). Owned by one wc_profiles, so a
 *  reload starts with an empty memo and never answers from old
 *  parameters. Thread-safe. */
typedef struct wc_answer_cache wc_answer_cache;

#define WC_ANSWER_CACHE_SLOTS 1024         /* per profiles object */
#define WC_ANSWER_CACHE_MAX_SLOTS (1u << 20)
#define WC_ANSWER_CACHE_MAX_KEY 4096       /* longer bodies are not remembered */
#define WC_ANSWER_CACHE_MAX_ANSWER 16384

/** New empty memo of `n_slots` entries (1..WC_ANSWER_CACHE_MAX_SLOTS);
 *  NULL when out of memory or out of range. Free with
 *  wc_answer_cache_free. */
wc_answer_cache *wc_answer_cache_new(size_t n_slots);
void wc_answer_cache_free(wc_answer_cache *c);
/** A malloc'd, NUL-terminated copy of the answer remembered for exactly
 *  these body bytes (caller frees), or NULL. Counts a hit or a miss. */
char *wc_answer_cache_get(wc_answer_cache *c, const char *body, size_t len, size_t *answer_len);
/** Remember `answer` for `body` (both copied), replacing what its slot
 *  held. Bodies or answers over the limits above are not remembered. */
void wc_answer_cache_put(wc_answer_cache *c, const char *body, size_t len, const char *answer,
                         size_t answer_len);
/** Hits and misses of wc_answer_cache_get so far. */
void wc_answer_cache_counts(const wc_answer_cache *c, unsigned long long *hits,
                            unsigned long long *misses);

/** The profiles a server answers from (docs/http-api.md, "Profiles"):
 *  one state per parameter set, named by the set's name, the first the
 *  default. Swapped as a whole on reload; immutable once published (the answer
 *  memo locks itself). */
typedef struct wc_profiles {
	atomic_int refs;
	int n;
	wc_state *st[WC_SERVER_MAX_PROFILES];
	char *profiles_body;         /* GET /v1/profiles answer */
	size_t profiles_len;
	char names[512];             /* "a, b" for error messages */
	wc_answer_cache *answers;    /* POST /v1/predict/inference memo (owned) */
} wc_profiles;

/** Build the profiles from copies of `sets` (names must differ). New
 *  object with one reference. */
int wc_profiles_new(int n, const wc_params *const *sets, const char *const *sources,
                    wc_profiles **out, wc_error *err);
void wc_profiles_retain(wc_profiles *pf);
void wc_profiles_release(wc_profiles *pf);
/** The profile named `name` (NULL = the default), or NULL. Borrowed. */
const wc_state *wc_profiles_find(const wc_profiles *pf, const char *name);
/** The profile a request object names in "profile" (absent = the
 *  default); NULL with a 422 (field /profile) in `e` otherwise. Every
 *  route selects first, so an empty top-level string is refused here
 *  (422 invalid_value on its field, docs/http-api.md "Errors"). */
const wc_state *wc_profiles_select(const wc_profiles *pf, const json_t *item, wc_api_error *e);

/* ------------------------------------------------------------ metrics */

/* Statuses counted one by one (metrics.c); the last slot counts the rest. */
enum { WC_METRIC_N_STATUS = 10, WC_METRIC_N_BUCKETS = 15 };
#define WC_ROUTE_MAX 32

/** Counters of one server; all atomic, updated lock-free by handlers. */
typedef struct {
	atomic_ullong requests[WC_ROUTE_MAX][WC_METRIC_N_STATUS];
	atomic_ullong latency_bucket[WC_ROUTE_MAX][WC_METRIC_N_BUCKETS];
	atomic_ullong latency_ns_sum[WC_ROUTE_MAX];
	atomic_ullong reloads_ok, reloads_failed;
} wc_metrics;

/** Count one answer of route `route` (WC_ROUTE_UNMATCHED for none). */
void wc_metrics_record(wc_metrics *m, int route, int status, double seconds);

/* ------------------------------------------------------------- server */

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
 *  too long or too many) is answered as JSON. Always returns 0. */
int wc_protocol_http_error(struct mg_connection *conn, int status, const char *msg);
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
/** Header checks CivetWeb does not make (two different Content-Length
 *  values; Transfer-Encoding beside Content-Length): 0, or -1 with `res`
 *  holding the 400. */
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

/* Body routes after their body is read: bytes in, answer out, no
 * connection. The routes call them; so do the fuzz harnesses
 * (tests/fuzz/), with arbitrary bytes, which is why they take the raw
 * body and not parsed JSON. */
void wc_answer_predict_inference(const wc_profiles *pf, const char *body, size_t len,
                                 wc_response *res);
void wc_answer_predict_batch(const wc_profiles *pf, const char *body, size_t len,
                             wc_response *res);

/* Inference requests (request.c). */

/** One parsed inference request: the query, what backs its pointers, and
 *  the capacity fields (docs/http-api.md). */
typedef struct {
	wc_inference_query q;
	double *series;          /* malloc'd (may be NULL): backs q.running_series */
	wc_model_info arch;      /* the catalog's, with explicit fields applied */
	int have_arch;           /* q.config.arch points at `arch` */
	int want_capacity;       /* output_tokens (and input_tokens) were given */
	double price_per_kwh, grams_co2_per_kwh; /* NaN = the parameter file's */
	double power_cap_w;      /* > 0: settle the clock under this cap per GPU */
} wc_inference_request;

/** Turn one request object into `r`; strings are borrowed from `item`.
 *  Free r->series afterwards (also on failure). */
int wc_inference_request_parse(const json_t *item, const wc_state *st, wc_inference_request *r,
                               wc_api_error *e);
/** The configuration fields every route shares -- platform, tp,
 *  active_params_b | model (the catalog entry goes to c->arch), weights,
 *  kv_cache, sm_clock_mhz -- into `c` (other fields are the caller's
 *  business). Strings are borrowed from `item`. */
int wc_config_request_parse(const json_t *item, const wc_state *st, wc_config *c, wc_api_error *e);
/** Parse, predict and render one item with the profile it names: a new
 *  JSON object, or NULL with `e` set. */
json_t *wc_inference_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e);

/* Fine-tuning requests (request_finetune.c): one request object -> a
 * prediction object from the profile it names (default: the first), or
 * NULL with `e` set (422 with the field, 404 for an unknown model).
 * Strings are borrowed from `item`. */
json_t *wc_finetune_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e);

/** One batch item -> its answer object, or NULL with `e` set. */
/* The batch's work rule (server/route_batch.c, docs/http-api.md): the
 * draws an item pays for, and one item's charge in law evaluations
 * (`kind` names what it was charged as). A single inference request is
 * held to the same budget. */
void wc__batch_draws(const wc_profiles *pf, double *law, double *cap);
/** The same for one served set: *law, *cap raised to its draws. */
void wc__state_draws(const wc_state *st, double *law, double *cap);
double wc__item_work(const json_t *item, int inference, double law, double cap, const char **kind);

typedef json_t *(*wc_item_answer_fn)(const json_t *item, const wc_profiles *pf, wc_api_error *e);
/** Answer a batch body (a JSON array) item by item with `answer`;
 *  `what` names the items in the error for a body that is no array. The
 *  first reads the request's body; the second answers from its bytes. */
void wc_route_batch_of(wc_request *req, wc_response *res, wc_item_answer_fn answer, const char *what);
void wc_answer_batch_of(const wc_profiles *pf, const char *text, size_t len, wc_item_answer_fn answer,
                        const char *what, wc_response *res);

/* Envelope and budget requests (envelope_request.c). */

/** Bounds of the envelope routes (docs/http-api.md, "Limits"): values
 *  beyond them are 422; total work beyond WC_HTTP_MAX_WORK (grid bins x
 *  servers simulated) is 413. */
#define WC_HTTP_MAX_HORIZON_S 86400.0
#define WC_HTTP_MAX_REPLICAS 1000
#define WC_HTTP_MAX_FLEET 10000
#define WC_HTTP_MAX_PLAN_FLEET 100000
#define WC_HTTP_MAX_WORK 2e7
/** A shared arrival process (least_loaded, round_robin) charges each grid
 *  bin x server this many times: its servers cannot batch decode steps
 *  past the fleet's next arrival, which may be anyone's (measured: 1 600
 *  A100 servers at 0.4 req/s each over 600 s, 0.35 s independent, 10.5 s
 *  round robin; 8 keeps a bound's cost near 1.5 s). */
#define WC_HTTP_SHARED_WORK_COST 8.0
/** Requests one envelope or plan may simulate (expected arrivals per
 *  server x server runs); beyond, 413 naming the workload's rate. */
#define WC_HTTP_MAX_REQUESTS 5e6

/** One envelope or budget request, parsed; owns its arrays. */
typedef struct {
	wc_config c;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_response_params resp;
	const char *resp_source;
	int include_bins;
	wc_budget_options bo;
	wc_service_choice service;      /* "service": auto (absent), capacity or standin */
	double *arrival_s, *arrival_in, *arrival_out, *series, *in_values, *out_values;
	double *profile_until, *profile_rate;
} wc_envelope_request;

/** Parse `body` for POST /v1/forecast/envelope (budget = 0) or POST
 *  /v1/plan/budget (budget = 1) against the profile `st` it names (the
 *  caller selects it: wc_profiles_select). Strings are borrowed from
 *  `body`. */
int wc_envelope_request_parse(const json_t *body, const wc_state *st, int budget,
                              wc_envelope_request *r, wc_api_error *e);
void wc_envelope_request_free(wc_envelope_request *r);
/** The work bound of an envelope or plan (docs/http-api.md, "Bounds"),
 *  charged after the power map is bound (what a plan can simulate depends
 *  on the idle power; a closed loop's requests on `st`, NULL for n(t)):
 *  0, or -1 with a 413 naming the field to lower
 *  (server/route_envelope.c). */
int wc_envelope_request_bound(const wc_envelope_request *r, const wc_service_times *st, int budget,
                              const wc_power_map *pm, wc_api_error *e);
/** A library error whose message starts with a field, as an API error:
 *  `budget` 1 for the plan route (fleet_mode), 0 for the envelope route
 *  (the library's fleet_size / fleet_mode are its /fleet/size, /fleet/mode). */
void wc_envelope_library_error(const wc_error *err, int budget, wc_api_error *e);

/* Routes. */
void wc_route_predict_inference(wc_request *req, wc_response *res);
void wc_route_predict_flexibility(wc_request *req, wc_response *res);
void wc_route_predict_batch(wc_request *req, wc_response *res);
void wc_route_predict_finetune(wc_request *req, wc_response *res);
void wc_route_predict_finetune_batch(wc_request *req, wc_response *res);
void wc_route_forecast_envelope(wc_request *req, wc_response *res);
void wc_route_plan_budget(wc_request *req, wc_response *res);
void wc_route_params(wc_request *req, wc_response *res);
void wc_route_profiles(wc_request *req, wc_response *res);
void wc_route_calibrate(wc_request *req, wc_response *res);
void wc_route_models(wc_request *req, wc_response *res);
void wc_route_platforms(wc_request *req, wc_response *res);
/** The profile a GET names in ?profile=NAME (absent = the request's
 *  default); NULL when refused, with the 422 answered on `res`. */
const wc_state *wc_request_profile(wc_request *req, wc_response *res);
void wc_route_health(wc_request *req, wc_response *res);
void wc_route_metrics(wc_request *req, wc_response *res);
void wc_route_openapi(wc_request *req, wc_response *res);
void wc_route_bench_trivial(wc_request *req, wc_response *res);
/* The planner page and its assets (page.c; docs/planner.md). */
void wc_route_page(wc_request *req, wc_response *res);
void wc_route_page_script(wc_request *req, wc_response *res); /* page.js, form.js, answers.js, panels.js */
void wc_route_page_css(wc_request *req, wc_response *res);

/** POST /v1/calibrate's body into `out` (calibrate_request.c): the
 *  fields, the options, then the runs; 422 at the field at fault. */
int wc__calibrate_request_parse(const json_t *body, const wc_params *base, wc_calibrate_request *out,
                                wc_api_error *e);
/** Run `wattcast calibrate --http-worker DIR` (calibrate_spawn.c) in
 *  the private folder `dir`, which holds its inputs, and wait for it at
 *  most the server's calibrate_timeout_ms; the child is always reaped.
 *  0 with `*status` its exit status, else -1 with the 500/504 in `e`. */
int wc__calibrate_spawn(const wc_server *srv, const char *dir, int *status, wc_api_error *e);
/** A private folder for one calibration (mkdtemp, 0700) into `dir`. */
int wc__calibrate_dir_make(char *dir, size_t cap, wc_api_error *e);
/** Remove `dir` and every file in it (the worker's inputs and answer). */
void wc__calibrate_dir_remove(const char *dir);

/** GET /v1/models body, built once at start-up (malloc'd). */
char *wc_models_body(size_t *len);
/** The embedded OpenAPI document (server/openapi.json; static). */
const char *wc_openapi_document(size_t *len);

#endif

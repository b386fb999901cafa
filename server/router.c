/*
 * The router: one CivetWeb handler serves every URI and looks the path up
 * in a table by exact comparison. CivetWeb matches registered URIs by
 * prefix ("/v1/predict" would also serve "/v1/predictX"), so routing here
 * keeps routes anchored and lets one place answer 404 and 405 (with Allow)
 * in the API's JSON shape. New endpoints are one line in `routes`.
 */
#include "routes_internal.h"

#include <civetweb.h>
#include <malloc.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const wc_route routes[] = {
	{ "/v1/predict/inference", "POST", wc_route_predict_inference, 0, 0, 0 },
	{ "/v1/predict/batch", "POST", wc_route_predict_batch, 0, 1, 0 },
	{ "/v1/predict/flexibility", "POST", wc_route_predict_flexibility, 0, 1, 0 },
	{ "/v1/predict/finetune", "POST", wc_route_predict_finetune, 0, 0, 0 },
	{ "/v1/predict/finetune/batch", "POST", wc_route_predict_finetune_batch, 0, 1, 0 },
	{ "/v1/forecast/envelope", "POST", wc_route_forecast_envelope, 0, 1, 0 },
	{ "/v1/plan/budget", "POST", wc_route_plan_budget, 0, 1, 0 },
	{ "/v1/params", "GET", wc_route_params, 0, 0, 1 },
	{ "/v1/profiles", "GET", wc_route_profiles, 0, 0, 0 },
	{ "/v1/calibrate", "POST", wc_route_calibrate, 0, 1, 0 },
	{ "/v1/models", "GET", wc_route_models, 0, 0, 0 },
	{ "/v1/platforms", "GET", wc_route_platforms, 0, 0, 1 },
	{ "/v1/health", "GET", wc_route_health, 0, 0, 0 },
	{ "/metrics", "GET", wc_route_metrics, 0, 0, 0 },
	{ "/openapi.json", "GET", wc_route_openapi, 0, 0, 0 },
	{ "/", "GET", wc_route_page, 0, 0, 1 },
	{ "/page.js", "GET", wc_route_page_script, 0, 0, 0 },
	{ "/form.js", "GET", wc_route_page_script, 0, 0, 0 },
	{ "/answers.js", "GET", wc_route_page_script, 0, 0, 0 },
	{ "/panels.js", "GET", wc_route_page_script, 0, 0, 0 },
	{ "/calibration.js", "GET", wc_route_page_script, 0, 0, 0 },
	{ "/page.css", "GET", wc_route_page_css, 0, 0, 0 },
	{ "/v1/bench/trivial", "GET", wc_route_bench_trivial, 1, 0, 0 },
};
#define N_ROUTES (sizeof routes / sizeof routes[0])
_Static_assert(N_ROUTES < WC_ROUTE_UNMATCHED, "metrics need a slot per route");

size_t
wc_route_count(void)
{
	return N_ROUTES;
}

const wc_route *
wc_route_at(size_t i)
{
	return i < N_ROUTES ? &routes[i] : NULL;
}

/* The route of a raw (still percent-encoded) path. CivetWeb decodes in
 * place when asked to, and a decoded "%00" ends the C string early, so
 * "/v1/health%00" would read as "/v1/health"; the server therefore asks
 * CivetWeb not to decode (server.c) and decodes here, where a NUL inside
 * the path is seen and matches nothing. Routes are short: a path whose
 * raw form is longer than WC_ROUTE_RAW_MAX cannot decode to one. */
#define WC_ROUTE_RAW_MAX 192
int
wc_router_find(const wc_server *srv, const char *raw)
{
	char path[WC_ROUTE_RAW_MAX + 1];
	size_t n = raw ? strlen(raw) : 0;
	if (!raw || n > WC_ROUTE_RAW_MAX)
		return -1;
	int len = mg_url_decode(raw, (int)n, path, (int)sizeof path, 0);
	if (len < 0 || (size_t)len != strlen(path))
		return -1;
	for (size_t i = 0; i < N_ROUTES; i++)
		if (strcmp(path, routes[i].path) == 0 && (!routes[i].bench_only || srv->bench_trivial_route))
			return (int)i;
	return -1;
}

/* Does the client expect the connection to stay open? (HTTP/1.1 unless
 * "Connection: close"; HTTP/1.0 only with "Connection: keep-alive".) */
static int
client_keeps_alive(struct mg_connection *conn, const struct mg_request_info *ri)
{
	const char *c = mg_get_header(conn, "Connection");
	if (!c)
		return ri->http_version && strcmp(ri->http_version, "1.1") == 0;
	/* A comma-separated token list, e.g. "keep-alive, Upgrade". */
	while (*c) {
		c += strspn(c, " \t,");
		size_t n = strcspn(c, " \t,");
		if (n == 10 && strncasecmp(c, "keep-alive", 10) == 0)
			return 1;
		c += n;
	}
	return 0;
}

/* May this connection stay open for another request? CivetWeb keeps the
 * worker with it while it waits (up to the 2 s keep-alive timeout), so
 * connections are kept alive only while they leave the reserve of
 * workers free: beyond, each is closed after its answer, and a new
 * connection (a health probe) always finds a worker (docs/http-api.md,
 * "Limits"). */
static int
kept_alive_fits(wc_server *srv)
{
	return atomic_load(&srv->connections) <= srv->max_kept_alive;
}

static double
seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

int
wc_request_heavy_enter(wc_request *req, wc_response *res)
{
	wc_server *srv = req->srv;
	if (!req->heavy || req->heavy_held)
		return 0;
	if (atomic_fetch_add(&srv->heavy, 1) < srv->max_heavy) {
		req->heavy_held = 1;
		return 0;
	}
	atomic_fetch_sub(&srv->heavy, 1);
	/* Rendered at start-up (server.c): this runs deep inside a route, on
	 * CivetWeb's small worker stack, where jansson's dump would not fit
	 * in a sanitizer build. */
	wc_response_static(res, 503, NULL, srv->busy_body, srv->busy_len);
	res->extra_headers = "Retry-After: 1\r\n";
	return -1;
}

typedef struct {
	wc_route_fn run;
	wc_request *req;
	wc_response *res;
} route_call;

static void
route_run(void *arg)
{
	route_call *c = arg;
	c->run(c->req, c->res);
}

int
wc_router_handle(struct mg_connection *conn, void *cbdata)
{
	wc_server *srv = cbdata;
	const struct mg_request_info *ri = mg_get_request_info(conn);
	struct timespec t0;
	wc_api_error e;
	wc_response res = { 0 };
	int route;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	atomic_fetch_add(&srv->in_flight, 1);
	wc_api_wide_clear(); /* no earlier request's literals on this thread */
	wc_request req = {
		.conn = conn,
		.srv = srv,
		.method = ri->request_method ? ri->request_method : "",
		.content_length = ri->content_length,
		/* A body is announced by Content-Length > 0 or by chunked
		 * transfer encoding (CivetWeb reports -1 for both "none" and
		 * "chunked", hence the header check). */
		.body_pending = ri->content_length > 0 ||
		                (ri->content_length < 0 && mg_get_header(conn, "Transfer-Encoding")),
		.started = t0,
	};
	/* local_uri_raw: not "cleaned", so /v1/../v1/health is not silently
	 * rewritten into a route, and not decoded (find_route decodes). */
	route = wc_router_find(srv, ri->local_uri_raw ? ri->local_uri_raw : ri->local_uri);

	if (atomic_load(&srv->draining)) {
		wc_api_error_set(&e, 503, "shutting_down", NULL, "the server is shutting down");
		wc_response_error(&res, &e);
		res.close = 1;
	} else if (wc_protocol_check_headers(conn, &res) != 0) {
		/* answered: the body's framing is not sure (protocol.c) */
	} else if (route < 0) {
		wc_api_error_set(&e, 404, "not_found", NULL, "no route %s %s (see GET /openapi.json)",
		                 req.method, ri->local_uri_raw ? ri->local_uri_raw : "");
		wc_response_error(&res, &e);
	} else if (strcmp(req.method, routes[route].method) != 0) {
		wc_api_error_set(&e, 405, "method_not_allowed", NULL, "%s takes %s, not %s",
		                 routes[route].path, routes[route].method, req.method);
		wc_response_error(&res, &e);
		res.allow = routes[route].method;
	} else if (ri->query_string && !routes[route].query) {
		/* A query a route does not read would be ignored without a word
		 * (?profile= on a POST answered from the default profile):
		 * refused instead (docs/http-api.md, "Routes"). */
		wc_api_error_set(&e, 400, "bad_request", NULL,
		                 "%s takes no query string, got ?%.*s%s", routes[route].path,
		                 (int)wc_utf8_prefix(ri->query_string, 60), ri->query_string,
		                 routes[route].method[0] == 'P' ? " (give \"profile\" in the body)" : "");
		wc_response_error(&res, &e);
	} else {
		req.heavy = routes[route].heavy;
		/* Held until the answer is written: some answers (GET
		 * /v1/params) are borrowed from the state. */
		req.profiles = wc_server_acquire_profiles(srv);
		req.state = req.profiles->st[0];
		/* Every route runs on a stack of its own (stack.c): the
		 * worker's has about 15 KiB left. */
		route_call rc = { routes[route].run, &req, &res };
		if (wc_server_call_deep(route_run, &rc) != 0) {
			wc_api_error_set(&e, 503, "server_busy", NULL, "no memory for this request's stack; retry later");
			wc_response_error(&res, &e);
		}
		if (res.status == 0) { /* a route that forgot to answer */
			wc_api_error_set(&e, 500, "internal", NULL, "no answer");
			wc_response_error(&res, &e);
		}
	}

	/* A HEAD answer carries no body (routes only take GET or POST, so
	 * HEAD is always a 405, but the client must not wait for its body). */
	res.omit_body = strcmp(req.method, "HEAD") == 0;
	/* A body left unread would be read and thrown away by CivetWeb before
	 * the next request on this connection; for a refused (possibly huge
	 * or endless) body, closing the connection is cheaper and safer. */
	/* A chunked body's answer closes too: after the last chunk CivetWeb
	 * 1.15 reads two bytes and keeps the connection only if they end the
	 * body (CRLF); after a trailer field it closes, and it tells no
	 * handler which it was, so an answer saying keep-alive had its next
	 * request dropped unanswered (docs/http-api.md, "Limits"). */
	int chunked = ri->content_length < 0 && mg_get_header(conn, "Transfer-Encoding");
	int keep_alive = !res.close && !req.body_pending && !chunked && client_keeps_alive(conn, ri) &&
	                 kept_alive_fits(srv);
	if (!keep_alive)
		mg_disable_connection_keep_alive(conn);
	/* Counted before the write, so a client that reads /metrics right
	 * after an answer finds it counted; the latency is dispatch to answer
	 * ready (the write to a loopback or LAN socket does not block). */
	wc_metrics_record(&srv->metrics, route < 0 ? WC_ROUTE_UNMATCHED : route, res.status,
	                  seconds_since(&t0));
	/* A heavy answer is computed: its slot is free before the client can
	 * read it, so a client that sends one request after another never
	 * finds its own last one still counted (503 server_busy). */
	if (req.heavy_held)
		atomic_fetch_sub(&srv->heavy, 1);
	wc_response_send(conn, &res, keep_alive);
	wc_response_free(&res);
	wc_profiles_release(req.profiles);
	/* ...and once written and freed, the memory it used goes back to the
	 * system (glibc keeps freed pages in the worker's arena otherwise,
	 * and 64 workers' arenas add up). */
	if (req.heavy_held)
		malloc_trim(0);
	wc_protocol_head_wait_begins();
	atomic_fetch_sub(&srv->in_flight, 1);
	return res.status;
}

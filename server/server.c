/*
 * Server life cycle: start CivetWeb with one catch-all handler (router.c),
 * swap parameter states on reload, and stop gracefully (drain requests in
 * flight, then mg_stop, which joins every worker).
 */
#include "routes_internal.h"
#include "models/grow.h"
#include "models/limits.h"

#include "data/data.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gsl/gsl_errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

wc_profiles *
wc_server_acquire_profiles(wc_server *srv)
{
	pthread_mutex_lock(&srv->state_lock);
	wc_profiles *pf = srv->profiles;
	wc_profiles_retain(pf);
	pthread_mutex_unlock(&srv->state_lock);
	return pf;
}

static void
free_server(wc_server *srv)
{
	wc_profiles_release(srv->profiles);
	free(srv->models_body);
	free(srv->busy_body);
	free(srv->calibrate_worker);
	pthread_mutex_destroy(&srv->state_lock);
	free(srv);
}

int
wc_server_start(const wc_server_options *opt, const wc_params *params, const char *source,
                wc_server **out, wc_error *err)
{
	return wc_server_start_profiles(opt, 1, &params, &source, out, err);
}

/* The server's limits from the options (docs/http-api.md, "Limits"). */
static void
apply_options(wc_server *srv, const wc_server_options *opt)
{
	pthread_mutex_init(&srv->state_lock, NULL);
	srv->max_body = opt->max_body ? opt->max_body : WC_SERVER_DEFAULT_MAX_BODY;
	srv->max_batch_body = opt->max_batch_body ? opt->max_batch_body : 8 * srv->max_body;
	srv->request_timeout_ms = opt->request_timeout_ms > 0 ? opt->request_timeout_ms : 10000;
	srv->io_timeout_ms = srv->request_timeout_ms < WC_SERVER_IO_TIMEOUT_MS ? srv->request_timeout_ms
	                                                                       : WC_SERVER_IO_TIMEOUT_MS;
	srv->threads = opt->threads > 0 ? opt->threads : WC_SERVER_DEFAULT_THREADS;
	if (srv->threads < WC_SERVE_THREADS_MIN)
		srv->threads = WC_SERVE_THREADS_MIN;
	/* Slow bodies may hold all workers but a reserve, which keeps serving
	 * everything else (health above all) while they trickle in; and as
	 * CivetWeb keeps a worker with its connection between requests, only
	 * as many connections stay open as leave the reserve free. */
	int reserve = srv->threads / 8;
	if (reserve < 1)
		reserve = 1;
	srv->max_body_readers = srv->threads - reserve;
	srv->max_kept_alive = srv->threads - reserve;
	srv->bench_trivial_route = opt->bench_trivial_route;
	srv->calibrate_timeout_ms = opt->calibrate_timeout_ms > 0 ? opt->calibrate_timeout_ms
	                                                          : WC_SERVER_CALIBRATE_TIMEOUT_MS;
	/* Heavy work is CPU-bound: more at once than cores only adds memory
	 * and latency. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	srv->max_heavy = opt->max_heavy > 0 ? opt->max_heavy
	                 : cpus > WC_SERVER_MIN_HEAVY ? (int)(cpus < 1024 ? cpus : 1024) : WC_SERVER_MIN_HEAVY;
}

/* The 503 a heavy request beyond the cap gets (router.c): rendered here,
 * on the main thread's stack, and answered as a borrowed body. */
static int
build_busy_body(wc_server *srv)
{
	wc_api_error e;
	wc_response res = { 0 };
	wc_api_error_set(&e, 503, "server_busy", NULL,
	                 "%d heavy requests (batches, sweeps, calibrations, envelopes, budgets) are already "
	                 "running, the server's limit; retry after the Retry-After seconds",
	                 srv->max_heavy);
	wc_response_error(&res, &e);
	if (res.status != 503 || !res.body || res.borrowed) {
		wc_response_free(&res);
		return -1;
	}
	srv->busy_body = res.body; /* taken over: freed with the server */
	srv->busy_len = res.len;
	return 0;
}

/* glibc's allocator, process-wide, before the workers exist: memory that
 * heavy answers used must go back to the system (docs/http-api.md,
 * "Limits"). Blocks of 256 KiB and more (bodies, answer texts) are mapped
 * on their own and unmapped when freed (a fixed threshold: glibc would
 * otherwise raise it to the largest block freed, keeping those in the
 * heap); and the workers share a few arenas -- heavy requests, the only
 * big allocators, are capped anyway -- instead of up to eight per core,
 * each keeping its own freed pages. */
static void
limit_allocator(int max_heavy)
{
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	mallopt(M_ARENA_MAX, 2 * max_heavy);
}

/* Why `addr` ("HOST:PORT") cannot be listened on, in the system's words:
 * CivetWeb says only "Failed to setup server ports" (docs/cli.md,
 * "serve"). The same bind, tried again with CivetWeb's SO_REUSEADDR,
 * fails for the same reason; 1 with `why` set, 0 when it did not fail. */
static int
listen_failure(const char *addr, char *why, size_t cap)
{
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64];
	int one = 1, ok = 0;
	if (!colon || (size_t)(colon - addr) >= sizeof host)
		return 0;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(why, cap, "%s", strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0) {
		snprintf(why, cap, "%s", strerror(errno));
		ok = 1;
	}
	close(fd);
	return ok;
}

int
wc_server_start_profiles(const wc_server_options *opt, int n, const wc_params *const *sets,
                         const char *const *sources, wc_server **out, wc_error *err)
{
	static const wc_server_options defaults = WC_SERVER_OPTIONS_INIT;
	char threads[16], timeout[16], head[16], errtext[256] = "";
	unsigned errcode = 0;
	struct mg_server_port ports[4];
	int rc;

	*out = NULL;
	if (!opt)
		opt = &defaults;
	/* Process-wide settings, before any worker thread exists: GSL must
	 * report errors instead of aborting, and jansson's hash seed must be
	 * fixed before objects are built concurrently. */
	gsl_set_error_handler_off();
	json_object_seed(0);

	wc_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		return wc_error_set(err, WC_ENOMEM, "serve: out of memory");
	apply_options(srv, opt);
	limit_allocator(srv->max_heavy);
	clock_gettime(CLOCK_MONOTONIC, &srv->started);
	if ((rc = wc_profiles_new(n, sets, sources, &srv->profiles, err)) != WC_OK) {
		free_server(srv);
		return rc;
	}
	if (!(srv->models_body = wc_models_body(&srv->models_len)) || build_busy_body(srv) != 0 ||
	    (opt->calibrate_worker && !(srv->calibrate_worker = strdup(opt->calibrate_worker)))) {
		free_server(srv);
		return wc_error_set(err, WC_ENOMEM, "serve: out of memory");
	}

	snprintf(threads, sizeof threads, "%d", srv->threads);
	snprintf(timeout, sizeof timeout, "%d", srv->io_timeout_ms);
	snprintf(head, sizeof head, "%d", WC_SERVER_MAX_HEAD);
	/* No document_root: nothing but the routes is served. tcp_nodelay:
	 * answers are single small writes that must not wait for an ACK.
	 * CivetWeb's request_timeout_ms bounds the wait for the headers and
	 * every single read or write; the body as a whole is bounded by our
	 * own deadline on the wall clock (deadline.c, body.c), so no wait can
	 * add up past it. keep_alive_timeout_ms bounds an idle kept-alive
	 * connection, which holds its worker meanwhile: the router keeps
	 * only as many alive as leave the reserve free (router.c). */
	const char *options[] = {
		"listening_ports", opt->listen ? opt->listen : "127.0.0.1:8080",
		"num_threads", threads,
		"request_timeout_ms", timeout,
		"enable_keep_alive", "yes",
		"keep_alive_timeout_ms", WC_SERVER_KEEP_ALIVE_MS,
		"tcp_nodelay", "1",
		/* Paths stay percent-encoded: the router decodes them itself
		 * and so sees an encoded NUL (router.c, find_route). */
		"decode_url", "no",
		"max_request_size", head,
		NULL,
	};
	struct mg_callbacks callbacks;
	memset(&callbacks, 0, sizeof callbacks);
	callbacks.begin_request = wc_protocol_begin_request;
	callbacks.http_error = wc_protocol_http_error;
	callbacks.connection_close = wc_protocol_connection_close;
	callbacks.init_connection = wc_protocol_init_connection;
	struct mg_init_data init = { &callbacks, srv, options };
	struct mg_error_data error = { &errcode, errtext, sizeof errtext };

	if (wc_watchdog_start(srv) != 0) {
		free_server(srv);
		return wc_error_set(err, WC_ENOMEM, "serve: cannot start the body deadline's thread");
	}
	mg_init_library(0);
	if (!(srv->ctx = mg_start2(&init, &error))) {
		const char *addr = opt->listen ? opt->listen : "127.0.0.1:8080";
		char why[160];
		mg_exit_library();
		wc_watchdog_stop(srv);
		free_server(srv);
		return wc_error_set(err, WC_EIO, "serve: cannot listen on %s: %s", addr,
		                    listen_failure(addr, why, sizeof why) ? why
		                    : errtext[0] ? errtext : "unknown error");
	}
	/* "/" matches every URI by prefix; the router anchors the paths. */
	mg_set_request_handler(srv->ctx, "/", wc_router_handle, srv);
	int n_ports = mg_get_server_ports(srv->ctx, 4, ports);
	srv->port = n_ports > 0 ? ports[0].port : -1;
	*out = srv;
	return WC_OK;
}

int
wc_server_port(const wc_server *srv)
{
	return srv->port;
}

void
wc_server_params_version(wc_server *srv, char out[17])
{
	wc_profiles *pf = wc_server_acquire_profiles(srv);
	memcpy(out, pf->st[0]->version, 17);
	wc_profiles_release(pf);
}

int
wc_server_profiles(wc_server *srv, wc_server_profile out[WC_SERVER_MAX_PROFILES])
{
	wc_profiles *pf = wc_server_acquire_profiles(srv);
	const int n = pf->n;
	for (int i = 0; i < n; i++) {
		snprintf(out[i].name, sizeof out[i].name, "%s", wc_predictor_params(pf->st[i]->pred)->name);
		memcpy(out[i].version, pf->st[i]->version, sizeof out[i].version);
		snprintf(out[i].source, sizeof out[i].source, "%s", pf->st[i]->source);
	}
	wc_profiles_release(pf);
	return n;
}

/* The index of the profile read from `source` in `ps`, or -1. */
static int
profile_from(const wc_server_profile *ps, int n, const char *source)
{
	for (int i = 0; i < n; i++)
		if (strcmp(ps[i].source, source) == 0)
			return i;
	return -1;
}

/* The index of the profile named `name` in `ps`, or -1. */
static int
profile_named(const wc_server_profile *ps, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(ps[i].name, name) == 0)
			return i;
	return -1;
}

/* One line more of `buf`, cut at its end. */
static void append_line(char *buf, size_t cap, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
append_line(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
	va_list ap;
	if (*used + 1 >= cap)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
	va_end(ap);
	*used = n < 0 ? *used : *used + (size_t)n < cap ? *used + (size_t)n : cap - 1;
}

void
wc_server_profile_changes(const wc_server_profile *before, int n_before, const wc_server_profile *after,
                          int n_after, char *buf, size_t cap)
{
	size_t used = 0;
	if (cap == 0)
		return;
	buf[0] = '\0';
	/* a request naming a profile no longer served is 422 unknown_profile:
	 * a scheduler pinned to it learns the name from here */
	for (int i = 0; i < n_before; i++) {
		const wc_server_profile *b = &before[i];
		const int k = profile_from(after, n_after, b->source);
		const char *gone = profile_named(after, n_after, b->name) < 0 ? "; requests naming it get 422 "
		                   "unknown_profile" : "";
		if (k < 0)
			append_line(buf, cap, &used, "profile '%s' (%s, params %s) dropped%s\n", b->name, b->source,
			            b->version, gone);
		else if (strcmp(after[k].name, b->name) != 0)
			append_line(buf, cap, &used, "profile '%s' (%s) renamed '%s': params %s (was %s)%s\n", b->name,
			            b->source, after[k].name, after[k].version, b->version, gone);
		else if (strcmp(after[k].version, b->version) != 0)
			append_line(buf, cap, &used, "profile '%s' (%s): params %s (was %s)\n", b->name, b->source,
			            after[k].version, b->version);
	}
	for (int k = 0; k < n_after; k++)
		if (profile_from(before, n_before, after[k].source) < 0)
			append_line(buf, cap, &used, "profile '%s' (%s) added: params %s\n", after[k].name,
			            after[k].source, after[k].version);
}

int
wc_server_reload_profiles(wc_server *srv, int n, const wc_params *const *sets,
                          const char *const *sources, wc_error *err)
{
	wc_profiles *pf, *old;
	int rc = wc_profiles_new(n, sets, sources, &pf, err);
	if (rc != WC_OK) {
		atomic_fetch_add(&srv->metrics.reloads_failed, 1);
		return rc;
	}
	pthread_mutex_lock(&srv->state_lock);
	old = srv->profiles;
	srv->profiles = pf;
	pthread_mutex_unlock(&srv->state_lock);
	/* Requests still holding `old` keep it alive until they finish. */
	wc_profiles_release(old);
	atomic_fetch_add(&srv->metrics.reloads_ok, 1);
	return WC_OK;
}

int
wc_server_reload(wc_server *srv, const wc_params *params, const char *source, wc_error *err)
{
	return wc_server_reload_profiles(srv, 1, &params, &source, err);
}

int
wc_server_reload_files(wc_server *srv, int n, const char *const *paths, wc_error *err)
{
	wc_params *sets = wc_alloc_zeroed((size_t)(n > 0 ? n : 1), sizeof *sets);
	const wc_params **ptrs = wc_alloc_zeroed((size_t)(n > 0 ? n : 1), sizeof *ptrs);
	int rc = sets && ptrs ? WC_OK : wc_error_set(err, WC_ENOMEM, "reload: out of memory");
	/* Every file is loaded before anything is swapped: one broken file
	 * keeps the old profiles, all of them. */
	for (int i = 0; rc == WC_OK && i < n; i++) {
		ptrs[i] = &sets[i];
		rc = wc_params_load_file(paths[i], &sets[i], err);
	}
	if (rc == WC_OK)
		rc = wc_server_reload_profiles(srv, n, ptrs, paths, err);
	else
		atomic_fetch_add(&srv->metrics.reloads_failed, 1);
	for (int i = 0; sets && i < n; i++)
		wc_params_clear(&sets[i]);
	free(sets);
	free(ptrs);
	return rc;
}

int
wc_server_reload_file(wc_server *srv, const char *path, wc_error *err)
{
	return wc_server_reload_files(srv, 1, &path, err);
}

void
wc_server_stop(wc_server *srv)
{
	if (!srv)
		return;
	/* Drain: from here on new requests get 503 while those already in a
	 * handler finish. mg_stop would cut their reads and writes short. A
	 * client that stalls is bounded by the request timeout. */
	atomic_store(&srv->draining, 1);
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	for (long waited = 0; atomic_load(&srv->in_flight) > 0 &&
	                      waited < srv->request_timeout_ms + 2000; waited += 5)
		nanosleep(&tick, NULL);
	mg_stop(srv->ctx);
	mg_exit_library();
	wc_watchdog_stop(srv);
	free_server(srv);
}

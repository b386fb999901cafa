/*
 * Every status code the server answers on a route is documented under that
 * route's path in server/openapi.json (docs/http-api.md, "Errors"). The
 * codes come from the server, not from a list here: the real server is
 * driven into each answer it gives every route -- a body shorter than its
 * Content-Length (408), a wrong Content-Type (415), a request naming an
 * unknown model (404 unknown_model from the routes that look models up, a
 * 422 or 200 from the others) -- and the route table (server/router.c)
 * gives the rest: while stopping, every route answers 503 shutting_down,
 * and a heavy route beyond max_heavy 503 server_busy.
 */
#include "data/data.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <signal.h>

static int port;
static json_t *doc;

/* Is `status` documented for `method` `path`? Said on stderr if not. */
static void
documented(const wc_route *rt, int status, const char *how)
{
	char method[16], code[8];
	size_t k;
	for (k = 0; rt->method[k] && k + 1 < sizeof method; k++)
		method[k] = (char)tolower((unsigned char)rt->method[k]);
	method[k] = '\0';
	snprintf(code, sizeof code, "%d", status);
	const json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), rt->path), method);
	int ok = json_object_get(json_object_get(op, "responses"), code) != NULL;
	if (!ok)
		fprintf(stderr, "%s %s answers %d (%s), which openapi.json does not document there\n", rt->method,
		        rt->path, status, how);
	CHECK(ok);
}

/* The status of a raw request (0 when none came back). */
static int
raw_status(const char *request)
{
	static char answer[65536];
	int fd = raw_connect(port);
	if (fd < 0)
		return 0;
	raw_send(fd, request, strlen(request));
	size_t n = raw_read_all(fd, answer, sizeof answer);
	close(fd);
	return n > 12 && strncmp(answer, "HTTP/1.1 ", 9) == 0 ? atoi(answer + 9) : 0;
}

static void
drive(const wc_route *rt)
{
	char req[1024];
	int st;
	/* the route table: every route, while the server stops; heavy ones
	 * beyond the cap (server/router.c) */
	documented(rt, 503, "shutting_down");
	if (rt->heavy)
		documented(rt, 503, "server_busy");
	if (strcmp(rt->method, "POST") != 0) {
		snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", rt->path);
		if ((st = raw_status(req)) != 0)
			documented(rt, st, "a plain GET");
		return;
	}
	/* 10 of 100 announced bytes, then silence until the deadline */
	snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	         "Content-Length: 100\r\nConnection: close\r\n\r\n{\"platfor", rt->path);
	st = raw_status(req);
	CHECK_INT(st, 408);
	documented(rt, st, "a body shorter than its Content-Length");
	snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
	         "Content-Length: 2\r\nConnection: close\r\n\r\n{}", rt->path);
	st = raw_status(req);
	CHECK_INT(st, 415);
	documented(rt, st, "a wrong Content-Type");
	/* an unknown model, in each body shape the routes take */
	static const char *const bodies[] = {
		"{\"platform\":\"H100\",\"model\":\"NoSuchModel-1B\",\"concurrency\":4,\"input_tokens\":100,"
		"\"output_tokens\":50}",
		"[{\"platform\":\"H100\",\"model\":\"NoSuchModel-1B\",\"concurrency\":4}]",
		"{\"platform\":\"H100\",\"model\":\"NoSuchModel-1B\",\"workload\":{\"rate\":1,\"input_tokens\":100,"
		"\"output_tokens\":50},\"horizon_s\":10,\"budget_w\":1000}",
		"{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"NoSuchModel-1B\",\"running\":8,"
		"\"mean_power_w\":400}]}",
		NULL,
	};
	for (const char *const *b = bodies; *b; b++) {
		snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", rt->path, strlen(*b), *b);
		if ((st = raw_status(req)) != 0)
			documented(rt, st, *b);
	}
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	size_t len;
	const char *text = wc_openapi_document(&len);

	signal(SIGPIPE, SIG_IGN);
	doc = json_loadb(text, len, 0, NULL);
	CHECK(doc != NULL);
	wc_params_default(&p);
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 4;
	so.request_timeout_ms = 300; /* the 408s come quickly */
	CHECK_INT(wc_server_start(&so, &p, "profile:paper", &srv, &err), WC_OK);
	if (doc && srv) {
		port = wc_server_port(srv);
		for (size_t i = 0; i < wc_route_count(); i++)
			if (!wc_route_at(i)->bench_only)
				drive(wc_route_at(i));
	}
	if (srv)
		wc_server_stop(srv);
	json_decref(doc);
	wc_params_clear(&p);
	return check_report("test_server_openapi_status");
}

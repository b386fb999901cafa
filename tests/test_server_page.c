/*
 * The planner page's routes (docs/planner.md): GET /, its scripts
 * (/page.js, /form.js, /answers.js, /panels.js, /calibration.js) and
 * /page.css serve the
 * files of server/page/ byte for byte (a stale build would not) with
 * their media types, the page's security headers, 405 for
 * other methods, and metrics per route. The page needs no network beyond
 * this server: its files name no other origin, and every endpoint its
 * script calls is either a route or called only after the OpenAPI
 * document shows that it exists (feature detection).
 */
#include "data/data.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static char *
source_file(const char *rel, size_t *len)
{
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), rel);
	char *text = NULL;
	wc_error err;
	CHECK_INT(wc_read_file(path, 1 << 22, &text, len, &err), WC_OK);
	free(path);
	return text;
}

static void
test_assets(void)
{
	static const struct {
		const char *path, *file, *type;
	} assets[] = {
		{ "/", "server/page/index.html", "text/html; charset=utf-8" },
		{ "/page.js", "server/page/page.js", "text/javascript; charset=utf-8" },
		{ "/form.js", "server/page/form.js", "text/javascript; charset=utf-8" },
		{ "/answers.js", "server/page/answers.js", "text/javascript; charset=utf-8" },
		{ "/panels.js", "server/page/panels.js", "text/javascript; charset=utf-8" },
		{ "/calibration.js", "server/page/calibration.js", "text/javascript; charset=utf-8" },
		{ "/page.css", "server/page/page.css", "text/css; charset=utf-8" },
	};
	for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
		http_reply r;
		size_t len = 0;
		char *src = source_file(assets[i].file, &len);
		http_get(h, url(assets[i].path), &r);
		CHECK_INT(r.status, 200);
		CHECK(strcmp(r.content_type, assets[i].type) == 0);
		int same = src && r.body && r.len == len && memcmp(src, r.body, len) == 0;
		if (!same)
			fprintf(stderr, "GET %s differs from %s: the build embeds an older copy\n",
			        assets[i].path, assets[i].file);
		CHECK(same);
		/* No other origin: the only URL is the SVG namespace name. */
		for (const char *p = src ? strstr(src, "://") : NULL; p; p = strstr(p + 3, "://")) {
			int ns = p - src >= 4 && strncmp(p - 4, "http://www.w3.org/2000/svg", 26) == 0;
			if (!ns)
				fprintf(stderr, "%s names another origin: %.40s\n", assets[i].file, p - 5);
			CHECK(ns);
		}
		free(src);
		http_reply_free(&r);
		/* Only GET. */
		http_post_json(h, url(assets[i].path), "{}", &r);
		CHECK_INT(r.status, 405);
		CHECK(strcmp(r.allow, "GET") == 0);
		http_reply_free(&r);
	}
}

/* Security headers of the page itself (read raw: the test client keeps
 * only a few headers). */
static void
test_page_headers(int port)
{
	char *answer = malloc(1 << 16);
	int fd = raw_connect(port);
	CHECK(fd >= 0);
	if (fd < 0 || !answer) {
		free(answer);
		return;
	}
	const char req[] = "GET / HTTP/1.0\r\n\r\n";
	CHECK_INT(raw_send(fd, req, sizeof req - 1), 0);
	raw_read_all(fd, answer, 1 << 16);
	close(fd);
	char *end = strstr(answer, "\r\n\r\n");
	if (end)
		*end = '\0';
	CHECK_CONTAINS(answer, "HTTP/1.1 200 OK");
	CHECK_CONTAINS(answer, "Content-Security-Policy: default-src 'none'; script-src 'self'; "
	                       "style-src 'self'; connect-src 'self'");
	CHECK_CONTAINS(answer, "X-Content-Type-Options: nosniff");
	free(answer);
}

/* Every api('/...') in the script is a route, or feature-detected with
 * hasPath('/...') before it is called. The page's five scripts share their
 * top-level declarations (docs/planner.md, "Serving"), so they are read
 * as one text: a call in one may be guarded in another. */
static void
test_script_calls(void)
{
	static const char *const scripts[] = { "server/page/page.js", "server/page/form.js",
		                               "server/page/answers.js", "server/page/panels.js",
		                               "server/page/calibration.js" };
	wc_buf all = { 0 };
	for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
		size_t len = 0;
		char *src = source_file(scripts[i], &len);
		if (src)
			wc_buf_append(&all, src, len);
		wc_buf_append(&all, "\n", 1);
		free(src);
	}
	CHECK(!all.failed);
	const char *js = all.data;
	int calls = 0;
	for (const char *p = js ? strstr(js, "api('") : NULL; p; p = strstr(p + 1, "api('")) {
		char path[128], guard[160];
		size_t n = strcspn(p + 5, "'");
		snprintf(path, sizeof path, "%.*s", (int)n, p + 5);
		int routed = 0;
		for (size_t i = 0; i < wc_route_count(); i++)
			routed |= strcmp(wc_route_at(i)->path, path) == 0;
		snprintf(guard, sizeof guard, "hasPath('%s')", path);
		if (!routed && !strstr(js, guard))
			fprintf(stderr, "the page's script calls %s, which is neither a route nor feature-detected\n", path);
		CHECK(routed || strstr(js, guard));
		calls++;
	}
	CHECK(calls >= 5);
	wc_buf_free(&all);
}

static void
test_metrics(void)
{
	http_reply r;
	http_get(h, url("/metrics"), &r);
	CHECK_CONTAINS(r.body, "wattcast_http_requests_total{route=\"/\",status=\"200\"}");
	CHECK_CONTAINS(r.body, "wattcast_http_requests_total{route=\"/page.js\",status=\"405\"} 1");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	srv = http_server_start(&paper, "profile:paper", 4);
	if (srv) {
		test_assets();
		test_page_headers(wc_server_port(srv));
		test_script_calls();
		test_metrics();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_page");
}

/*
 * A Prometheus server's HTTP API through libcurl: GET
 * /api/v1/query_range?query=...&start=...&end=...&step=... and the
 * response parsed by wc_prom_json_parse (docs/formats/prometheus.md).
 * Every failure names the URL and the reason: connection refused, an
 * HTTP status with the server's own error text, or an error status.
 *
 * libcurl is opened on first use (dlopen), not linked: it brings about 25
 * libraries (TLS, Kerberos, LDAP, ...) whose loading cost every wattcast
 * command about 25 ms of CPU at start-up, a tenth of `wattcast metrics` on
 * a 256 MB log (docs/results.md, telemetry reading).
 */
#include "data/prom.h"
#include "models/limits.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* The libcurl calls used here, from the library opened on first use. */
static struct {
	CURL *(*easy_init)(void);
	char *(*easy_escape)(CURL *, const char *, int);
	void (*free_text)(void *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	const char *(*easy_strerror)(CURLcode);
	void (*easy_cleanup)(CURL *);
	int ok;
	/* the URL API, for wc_prom_url_mask */
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
	void (*url_cleanup)(CURLU *);
	int url_ok;
} cu;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

/* The symbol `name` of `lib` into the function pointer at `slot`. */
static int
cu_sym(void *lib, const char *name, void *slot)
{
	void *f = dlsym(lib, name);
	memcpy(slot, &f, sizeof f); /* ISO C has no void * -> function pointer cast */
	return f != NULL;
}

static void
cu_load(void)
{
	/* Debian's libcurl4 (OpenSSL), else its GnuTLS flavour. */
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so" };
	void *lib = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	cu.ok = cu_sym(lib, "curl_easy_init", &cu.easy_init) &&
	        cu_sym(lib, "curl_easy_escape", &cu.easy_escape) &&
	        cu_sym(lib, "curl_free", &cu.free_text) &&
	        cu_sym(lib, "curl_easy_setopt", &cu.easy_setopt) &&
	        cu_sym(lib, "curl_easy_perform", &cu.easy_perform) &&
	        cu_sym(lib, "curl_easy_getinfo", &cu.easy_getinfo) &&
	        cu_sym(lib, "curl_easy_strerror", &cu.easy_strerror) &&
	        cu_sym(lib, "curl_easy_cleanup", &cu.easy_cleanup);
	cu.url_ok = cu_sym(lib, "curl_url", &cu.url) && cu_sym(lib, "curl_url_set", &cu.url_set) &&
	            cu_sym(lib, "curl_url_get", &cu.url_get) && cu_sym(lib, "curl_url_cleanup", &cu.url_cleanup) &&
	            cu_sym(lib, "curl_free", &cu.free_text);
	/* curl_easy_init would do this on the first call, but not
	 * thread-safely; here it runs once, under pthread_once. */
	CURLcode (*global_init)(long) = NULL;
	if (cu.ok && cu_sym(lib, "curl_global_init", &global_init))
		global_init(CURL_GLOBAL_DEFAULT);
}

/* The URL as libcurl parses it (CURLU), its user, password and login
 * options cleared and "***@" put in their place: the user's URL went
 * whole into every message and the runs table's first line, password
 * included (docs/fleet.md, "Queries"). Without the URL API a URL with an
 * '@' is shown as its scheme alone. */
void
wc_prom_url_mask(const char *url, char *buf, size_t size)
{
	char *user = NULL, *pass = NULL, *bare = NULL;
	if (!size)
		return;
	pthread_once(&cu_once, cu_load);
	CURLU *u = cu.url_ok ? cu.url() : NULL;
	int parsed = u && cu.url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK;
	if (parsed) {
		cu.url_get(u, CURLUPART_USER, &user, 0);
		cu.url_get(u, CURLUPART_PASSWORD, &pass, 0);
	}
	if (parsed && !user && !pass) {
		snprintf(buf, size, "%s", url);
	} else if (parsed && cu.url_set(u, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
	           cu.url_set(u, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
	           cu.url_set(u, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
	           cu.url_get(u, CURLUPART_URL, &bare, 0) == CURLUE_OK && strstr(bare, "://")) {
		const char *host = strstr(bare, "://") + 3;
		size_t n = strlen(host), un = strlen(url);
		/* libcurl adds the path "/" that a base URL often lacks */
		if (n && host[n - 1] == '/' && un && url[un - 1] != '/')
			n--;
		snprintf(buf, size, "%.*s***@%.*s", (int)(host - bare), bare, (int)n, host);
	} else {
		const char *sep = strstr(url, "://");
		if (strchr(url, '@'))
			snprintf(buf, size, "%.*s***", sep ? (int)(sep - url + 3) : 0, url);
		else
			snprintf(buf, size, "%s", url);
	}
	if (user)
		cu.free_text(user);
	if (pass)
		cu.free_text(pass);
	if (bare)
		cu.free_text(bare);
	if (u)
		cu.url_cleanup(u);
}

typedef struct {
	char *buf;
	size_t len, cap;
	int too_big;
} body;

static size_t
on_data(char *data, size_t size, size_t nmemb, void *payload)
{
	body *b = payload;
	size_t n = size * nmemb;
	if (b->len + n + 1 > WC_PROM_JSON_MAX_BYTES) {
		b->too_big = 1;
		return 0;
	}
	char *nb = wc_grow(b->buf, &b->cap, b->len + n + 1, 1, 65536);
	if (!nb)
		return 0;
	b->buf = nb;
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

/* base + path + the escaped query parameters; NULL when out of memory. */
static char *
make_url(CURL *h, const char *base, const char *query, double start, double end, double step)
{
	char *q = cu.easy_escape(h, query, 0);
	if (!q)
		return NULL;
	size_t blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	size_t n = blen + strlen(q) + 160;
	char *url = wc_alloc_array(n, 1);
	if (url)
		snprintf(url, n, "%.*s/api/v1/query_range?query=%s&start=%.3f&end=%.3f&step=%.3f",
		         (int)blen, base, q, start, end, step);
	cu.free_text(q);
	return url;
}

/* "HTTP 400 from URL: <the server's error>" from an error body. */
static int
http_error(const char *shown, long status, const body *b, const char *metric, wc_error *err)
{
	wc_error inner;
	wc_prom_set none = { 0 };
	if (b->buf && wc_prom_json_parse(b->buf, b->len, "", metric, &none, NULL, NULL, &inner) != WC_OK &&
	    strstr(inner.msg, "Prometheus answered")) {
		wc_prom_set_clear(&none);
		/* The sample limit (HTTP 422) bounds the samples one query loads:
		 * the series times the range's span at their scrape interval.
		 * --page-steps cannot get under it, as the scrape interval is
		 * measured over 2000 steps and the page probe spans the range
		 * (docs/fleet.md, "Paging"); fewer series or a shorter range do. */
		if (strstr(inner.msg, "too many samples"))
			return wc_error_set(err, WC_EIO, "%s: HTTP %ld: the query would load more samples than the "
			                    "server's --query.max-samples (default 5e7): raise it, or ingest fewer "
			                    "series at a time (--selector) over a shorter --start/--end", shown, status);

		return wc_error_set(err, WC_EIO, "%s: HTTP %ld:%s", shown, status, inner.msg + 1);
	}
	wc_prom_set_clear(&none);
	/* a plain-text body ends in a newline, which a message shows as '?' */
	const char *text = b->buf && b->len ? b->buf : "(empty body)";
	int n = (int)strnlen(text, 120);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
		n--;
	return wc_error_set(err, WC_EIO, "%s: HTTP %ld: %.*s", shown, status, n, text);
}

/* A 3xx is not followed: a Prometheus server answers the API itself,
 * so a redirect comes from what stands before it (a login page, an
 * authenticating proxy), whose page would be refused as JSON. Its
 * Location, masked as the URL is, says where (docs/fleet.md, "Queries"). */
static int
redirected(CURL *h, const char *shown, long status, wc_error *err)
{
	char *to = NULL, where[WC_PROM_URL_SHOWN] = "", cut[WC_ERROR_MSG_MAX];
	static const char fmt[] = "%s: HTTP %ld redirects to %s (a login page or proxy?): give --prometheus the "
	                          "server's own URL, or save the answers and use --prometheus-json";
	if (cu.easy_getinfo(h, CURLINFO_REDIRECT_URL, &to) == CURLE_OK && to)
		wc_prom_url_mask(to, where, sizeof where);
	/* The Location gives way, so that the remedy arrives whole: an
	 * oauth2-proxy's holds the escaped PromQL (?rd=/api/v1/query_range?
	 * query=...), and cut at 100 bytes it cut the remedy at the
	 * message's end (docs/fleet.md, "Problems in the data"). */
	int n = snprintf(NULL, 0, fmt, shown, status, "");
	wc_error_name_cut(where[0] ? where : "(no Location header)", wc_error_name_room(n > 0 ? (size_t)n : 0, 1), cut,
	                  sizeof cut);
	return wc_error_set(err, WC_EIO, fmt, shown, status, cut);
}

int
wc_prom_http_query_range(const char *base, const char *query, double start, double end,
                         double step, double timeout_s, const char *metric, wc_prom_set *set,
                         wc_warn_fn warn, void *payload, wc_error *err)
{
	body b = { 0 };
	long status = 0;
	int rc = WC_OK;
	char cerr[CURL_ERROR_SIZE] = "", shown[WC_PROM_URL_SHOWN];
	wc_prom_url_mask(base, shown, sizeof shown); /* the messages' URL: no password */
	pthread_once(&cu_once, cu_load);
	if (!cu.ok)
		return wc_error_set(err, WC_EIO, "%s: cannot query Prometheus over HTTP: libcurl.so.4 could "
		                    "not be loaded (apt-get install libcurl4)", shown);
	CURL *h = cu.easy_init();
	char *url = h ? make_url(h, base, query, start, end, step) : NULL;
	if (!url) {
		if (h)
			cu.easy_cleanup(h);
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	}
	cu.easy_setopt(h, CURLOPT_URL, url);
	cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	cu.easy_setopt(h, CURLOPT_WRITEDATA, &b);
	cu.easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	long ms = (long)(1000.0 * (timeout_s > 0 ? timeout_s : WC_PROM_HTTP_TIMEOUT_S));
	cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? ms : 10000L);
	cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = cu.easy_perform(h);
	cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	/* A server that takes the connection and never answers: the wait
	 * and the flag, not curl's "0 bytes received" alone (docs/cli.md).
	 * One that answers and does not end in time (a slow or endless
	 * answer) had an answer: what came, and what asks for less. */
	if (cc == CURLE_OPERATION_TIMEDOUT && !b.too_big && (status || b.len))
		rc = wc_error_set(err, WC_EIO, "%s: the answer (HTTP %ld, %zu bytes) did not end within %.10g s: "
		                  "--timeout S waits longer for a slow server; a shorter range or longer --step "
		                  "asks for less", shown, status, b.len, (double)ms / 1000.0);
	else if (cc == CURLE_OPERATION_TIMEDOUT && !b.too_big)
		rc = wc_error_set(err, WC_EIO, "%s: no answer within %.10g s (--timeout S waits longer): %s", shown,
		                  (double)ms / 1000.0, cerr[0] ? cerr : cu.easy_strerror(cc));
	else if (cc != CURLE_OK)
		rc = wc_error_set(err, WC_EIO, "%s: %s", shown,
		                  b.too_big ? "response larger than 1 GiB (use a smaller --step or range)"
		                  : cerr[0] ? cerr : cu.easy_strerror(cc));
	else if (status >= 300 && status < 400)
		rc = redirected(h, shown, status, err);
	else if (status != 200)
		rc = http_error(shown, status, &b, metric, err);
	else
		rc = wc_prom_json_parse(b.buf ? b.buf : "", b.len, shown, metric, set, warn, payload, err);
	free(b.buf);
	free(url);
	cu.easy_cleanup(h);
	return rc;
}

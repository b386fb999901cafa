/*
 * A Prometheus server's HTTP API through libcurl: GET
 * /api/v1/query_range?query=...&start=...&end=...&step=... and the
 * response parsed by wc_prom_json_parse (docs/formats/prometheus.md).
 * Every failure names the URL and the reason: connection refused, an
 * HTTP status with the server's own error text, or an error status.
 */
#include "data/prom.h"
#include "models/limits.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* Far above a page's response (docs/formats/prometheus.md, "Paging"). */
#define TIMEOUT_S 300L

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
	char *q = curl_easy_escape(h, query, 0);
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
	curl_free(q);
	return url;
}

/* "HTTP 400 from URL: <the server's error>" from an error body. */
static int
http_error(const char *base, long status, const body *b, const char *metric, wc_error *err)
{
	wc_error inner;
	wc_prom_set none = { 0 };
	if (b->buf && wc_prom_json_parse(b->buf, b->len, "", metric, &none, &inner) != WC_OK &&
	    strstr(inner.msg, "Prometheus answered")) {
		wc_prom_set_clear(&none);
		return wc_error_set(err, WC_EIO, "%s: HTTP %ld:%s", base, status, inner.msg + 1);
	}
	wc_prom_set_clear(&none);
	return wc_error_set(err, WC_EIO, "%s: HTTP %ld: %.120s", base, status,
	                    b->buf ? b->buf : "(empty body)");
}

int
wc_prom_http_query_range(const char *base, const char *query, double start, double end,
                         double step, const char *metric, wc_prom_set *set, wc_error *err)
{
	body b = { 0 };
	long status = 0;
	int rc = WC_OK;
	char cerr[CURL_ERROR_SIZE] = "";
	CURL *h = curl_easy_init();
	char *url = h ? make_url(h, base, query, start, end, step) : NULL;
	if (!url) {
		if (h)
			curl_easy_cleanup(h);
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK)
		rc = wc_error_set(err, WC_EIO, "%s: %s", base,
		                  b.too_big ? "response larger than 1 GiB (use a smaller --step or range)"
		                  : cerr[0] ? cerr : curl_easy_strerror(cc));
	else if (status != 200)
		rc = http_error(base, status, &b, metric, err);
	else
		rc = wc_prom_json_parse(b.buf ? b.buf : "", b.len, base, metric, set, err);
	free(b.buf);
	free(url);
	curl_easy_cleanup(h);
	return rc;
}

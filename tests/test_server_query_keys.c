/*
 * The query string of GET /v1/params and GET /v1/platforms
 * (docs/http-api.md, "Routes"): `profile` is the only key and a query is
 * never ignored. `?profile` without "=" answered the default profile
 * (`?profile=` was 422), and a leading "&" was refused as an unknown
 * parameter named "/" (": unknown query parameter"), while a trailing one
 * was read past. Now `?profile` is 422 invalid_value on /profile, like
 * `?profile=`; an empty pair (a stray "&" anywhere) is read past; a value
 * without a name is refused saying so. A key spelt with escapes was
 * checked decoded but looked up raw (?%70rofile=nosuch answered the default
 * profile, 200), and 16 stray "&"s filled the 16 pairs read, so a
 * misspelt key or a second profile after them went unchecked (200): every
 * pair is now read, and the profile is the decoded pair's value.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static void
expect(CURL *h, const char *path, long status, const char *field, const char *says)
{
	http_reply r;
	http_get(h, url(path), &r);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	int ok = r.status == status &&
	         (status == 200 ? json_object_get(r.json, "params_version") != NULL
	                        : f && strcmp(f, field) == 0 && m && strstr(m, says) && strlen(m) <= 255);
	if (!ok)
		fprintf(stderr, "GET %s -> %ld %s\n", path, r.status, r.body ? r.body : "");
	CHECK(ok);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "query-keys", 4);
	if (!srv)
		return check_report("test_server_query_keys");
	CURL *h = curl_easy_init();
	char path[160];
	static const char *const routes[] = { "/v1/params", "/v1/platforms" };
	for (int i = 0; i < 2; i++) {
		const char *r = routes[i];
		snprintf(path, sizeof path, "%s?profile", r);
		expect(h, path, 422, "/profile", "profile: given without a value; send profile=NAME");
		snprintf(path, sizeof path, "%s?profile&profile=%s", r, p.name);
		expect(h, path, 422, "/profile", "profile: given without a value");
		snprintf(path, sizeof path, "%s?profile=", r);
		expect(h, path, 422, "/profile", "profile: expected a non-empty string");
		snprintf(path, sizeof path, "%s?=%s", r, p.name);
		expect(h, path, 422, "", "query parameter without a name");
		/* stray "&"s hold no key: read past, leading, doubled or trailing */
		snprintf(path, sizeof path, "%s?&profile=%s", r, p.name);
		expect(h, path, 200, NULL, NULL);
		snprintf(path, sizeof path, "%s?profile=%s&&", r, p.name);
		expect(h, path, 200, NULL, NULL);
		snprintf(path, sizeof path, "%s?profle=%s", r, p.name);
		expect(h, path, 422, "/profle", "profle: unknown query parameter");
		snprintf(path, sizeof path, "%s?%%70rofile=nosuch", r);
		expect(h, path, 422, "/profile", "profile: unknown profile \"nosuch\"");
		snprintf(path, sizeof path, "%s?%%70rofile=%s", r, p.name);
		expect(h, path, 200, NULL, NULL);
		snprintf(path, sizeof path, "%s?%%70rofile%%00x=nosuch", r);
		expect(h, path, 422, "", "query parameter name holds a NUL");
		snprintf(path, sizeof path, "%s?&&&&&&&&&&&&&&&&profle=%s", r, p.name);
		expect(h, path, 422, "/profle", "profle: unknown query parameter");
		snprintf(path, sizeof path, "%s?profile=%s&&&&&&&&&&&&&&&&&profile=%s", r, p.name, p.name);
		expect(h, path, 422, "/profile", "profile: given more than once");
	}
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_query_keys");
}

/*
 * GET /v1/params of a set with bootstrap draws (docs/http-api.md,
 * "Read-only routes"). The answer sent "draws": null without a word, so
 * an operator who saved `.params` had another set: a calibrated set of
 * 2000 draws, 1d611bfd200acd41, saved as 5725ad7323b215a5, answering
 * 258.95-554.33 W where the server answered 224.55-640.35 W. Plain
 * /v1/params now says the draws were left out (draws_included false, a
 * warning); ?draws=1 gives the whole file, which saved is the set its
 * params_version names; a bad or repeated draws is 422 on /draws, and
 * the other route that reads a query, /v1/platforms, still refuses it.
 *
 * The answer with draws (up to 64 MiB) was rendered for every profile at
 * load and at every reload, and held, asked or not: it is now rendered by
 * the first ?draws=1 request (wc_state_params_whole), once however many
 * ask at the same time, and kept; a load or reload renders none
 * (wc__state_whole_renders, a test-only count outside the API).
 */
#include "data/data.h"
#include "data/params_file.h"
#include "server/server.h"
#include "server/state_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <pthread.h>

/* One ?draws=1 request on its own connection: the body, malloc'd. */
static void *
get_whole(void *arg)
{
	(void)arg;
	CURL *h = curl_easy_init();
	http_reply r;
	char *body = NULL;
	if (h && http_get(h, url("/v1/params?draws=1"), &r) == 200 && r.body)
		body = strdup(r.body);
	if (h) {
		http_reply_free(&r);
		curl_easy_cleanup(h);
	}
	return body;
}

/* The default set with draws of theta[A100] around its value. */
static void
with_draws(wc_params *p)
{
	wc_error err;
	char names[1][WC_LABEL_MAX] = { "theta[A100]" };
	double t[51];
	wc_params_default(p);
	snprintf(p->name, sizeof p->name, "%s", "drawn");
	p->levels[0].theta.source = WC_SRC_FITTED;
	for (int i = 0; i <= 50; i++)
		t[i] = p->levels[0].theta.value * (0.9 + 0.004 * i);
	CHECK_INT(wc_params_set_draws(p, 51, 1, (const char (*)[WC_LABEL_MAX])names, t, &err), WC_OK);
}

/* The version of the set `.params` of answer `r` is, saved. */
static void
saved_version(const http_reply *r, char out[17])
{
	wc_params q = WC_PARAMS_INIT;
	wc_error err;
	char *text = json_dumps(json_object_get(r->json, "params"), JSON_COMPACT);
	out[0] = '\0';
	CHECK(text != NULL);
	if (text && wc_params_load_buffer(text, strlen(text), "saved", &q, &err) == WC_OK)
		CHECK_INT(wc_params_fingerprint(&q, out, &err), WC_OK);
	else
		CHECK(!"the params of GET /v1/params load back");
	free(text);
	wc_params_clear(&q);
}

static void
refused(CURL *h, const char *path, const char *code, const char *field, const char *says)
{
	http_reply r;
	http_get(h, url(path), &r);
	const char *c = http_error_str(&r, "code"), *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	const int ok = r.status == 422 && c && strcmp(c, code) == 0 && f && strcmp(f, field) == 0 && m &&
	               strstr(m, says) && strlen(m) <= 255;
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "GET %s -> %ld %s\n", path, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	char version[17], saved[17];
	with_draws(&p);
	CHECK_INT(wc_params_fingerprint(&p, version, &err), WC_OK);
	wc_server *srv = http_server_start(&p, "drawn.json", 2);
	if (!srv)
		return check_report("test_server_params_draws");
	CURL *h = curl_easy_init();
	http_reply r;
	const unsigned long renders = wc__state_whole_renders();
	CHECK_INT((int)renders, 0); /* loaded: not rendered until asked */

	/* without draws=1: the draws left out, and said */
	http_get(h, url("/v1/params"), &r);
	CHECK_INT(r.status, 200);
	CHECK(json_is_false(json_object_get(r.json, "draws_included")));
	CHECK_INT((int)json_integer_value(json_object_get(r.json, "n_draws")), 51);
	CHECK(json_is_null(json_object_get(json_object_get(r.json, "params"), "draws")));
	const char *w = json_string_value(json_array_get(json_object_get(r.json, "warnings"), 0));
	CHECK(w && strncmp(w, "params: draws: the 51 bootstrap draws are left out", 50) == 0 && strlen(w) <= 255 &&
	      strstr(w, "GET /v1/params?draws=1"));
	saved_version(&r, saved);
	CHECK(strcmp(saved, version) != 0); /* saved, another set: what the warning says */
	http_reply_free(&r);
	CHECK_INT((int)wc__state_whole_renders(), 0);

	/* four first requests at once: one rendering, the same bytes to each */
	pthread_t th[4];
	char *got[4] = { NULL };
	for (int i = 0; i < 4; i++)
		CHECK_INT(pthread_create(&th[i], NULL, get_whole, NULL), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], (void **)&got[i]);
	for (int i = 0; i < 4; i++)
		CHECK(got[i] && got[0] && strcmp(got[i], got[0]) == 0);
	CHECK_INT((int)wc__state_whole_renders(), 1);

	/* draws=1: the whole file, the set its params_version names */
	http_get(h, url("/v1/params?draws=1"), &r);
	CHECK_INT(r.status, 200);
	CHECK(json_is_true(json_object_get(r.json, "draws_included")));
	CHECK_INT((int)json_array_size(json_object_get(r.json, "warnings")), 0);
	const char *v = json_string_value(json_object_get(r.json, "params_version"));
	CHECK(v && strcmp(v, version) == 0);
	saved_version(&r, saved);
	CHECK(strcmp(saved, version) == 0);
	if (strcmp(saved, version) != 0)
		fprintf(stderr, "saved %s, served %s\n", saved, version);
	CHECK(r.body && got[0] && strcmp(r.body, got[0]) == 0); /* kept, not rendered again */
	CHECK_INT((int)wc__state_whole_renders(), 1);
	http_reply_free(&r);
	for (int i = 0; i < 4; i++)
		free(got[i]);

	/* a reload renders nothing; the new set's first ?draws=1 does */
	CHECK_INT(wc_server_reload(srv, &p, "drawn-again.json", &err), WC_OK);
	CHECK_INT((int)wc__state_whole_renders(), 1);
	http_get(h, url("/v1/params?draws=1"), &r);
	CHECK_INT(r.status, 200);
	CHECK(json_is_true(json_object_get(r.json, "draws_included")));
	CHECK_INT((int)wc__state_whole_renders(), 2);
	http_reply_free(&r);
	http_get(h, url("/v1/params?profile=drawn&draws=0"), &r);
	CHECK_INT(r.status, 200);
	CHECK(json_is_false(json_object_get(r.json, "draws_included")));
	http_reply_free(&r);

	refused(h, "/v1/params?draws=2", "invalid_value", "/draws", "draws: expected 0 or 1");
	refused(h, "/v1/params?draws", "invalid_value", "/draws", "draws: expected 0 or 1");
	refused(h, "/v1/params?draws=1&draws=1", "invalid_value", "/draws", "draws: given more than once");
	refused(h, "/v1/params?drawz=1", "unknown_field", "/drawz", "this route reads only profile and draws");
	refused(h, "/v1/platforms?draws=1", "unknown_field", "/draws", "this route reads only profile)");

	/* a set without draws is whole as it is */
	wc_params d = WC_PARAMS_INIT;
	wc_params_default(&d);
	CHECK_INT(wc_server_reload(srv, &d, "profile:paper", &err), WC_OK);
	http_get(h, url("/v1/params"), &r);
	CHECK_INT(r.status, 200);
	CHECK(json_is_true(json_object_get(r.json, "draws_included")));
	CHECK_INT((int)json_array_size(json_object_get(r.json, "warnings")), 0);
	http_reply_free(&r);
	wc_params_clear(&d);

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_params_draws");
}

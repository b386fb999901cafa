/*
 * The answers docs/http-api.md shows are the ones a default `wattcast
 * serve` gives now: each "$ curl -s localhost:8080/PATH ... -d '...'"
 * example is sent to a server with the default profile alone, answered
 * 200, and every number the page shows after it ("key":number, or
 * "key":[lo,hi]) is found under that key in the answer, to the digits
 * shown. A stale number (a latency from before a refit) fails here
 * instead of misleading a reader. Timings ("seconds") vary and are not
 * compared. A whole number is shown as the server writes it, an integer
 * (the page's "whole numbers are written as integers"; it showed
 * "rate":4.0 and "budget_w":20000.0 where the answer has 4 and 20000).
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <ctype.h>

static CURL *h;

/* One unit of the last digit shown: half a unit would refuse a number
 * cut short with "…" (28725.5… of 28725.48942); one holds both rounded
 * and cut numbers. */
static double
last_digit_unit(const char *num, size_t len)
{
	const char *dot = memchr(num, '.', len), *e = NULL;
	for (size_t i = 0; i < len; i++)
		if (num[i] == 'e' || num[i] == 'E')
			e = num + i;
	int decimals = dot ? (int)((e ? e : num + len) - dot - 1) : 0;
	int exp10 = e ? atoi(e + 1) : 0;
	return pow(10.0, exp10 - decimals);
}

/* Does `key` hold `want` (within `unit`) anywhere in `j`? An array of
 * two numbers matches when `hi` is finite too. */
static int
holds(const json_t *j, const char *key, double want, double hi, double unit)
{
	const char *k;
	const json_t *v;
	size_t i;
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (holds(v, key, want, hi, unit))
				return 1;
		return 0;
	}
	if (!json_is_object(j))
		return 0;
	json_object_foreach((json_t *)j, k, v) {
		if (strcmp(k, key) == 0) {
			if (isnan(hi) && json_is_number(v) && fabs(json_number_value(v) - want) <= unit * (1 + 1e-9))
				return 1;
			if (!isnan(hi) && json_is_array(v) && json_array_size(v) == 2 &&
			    fabs(json_number_value(json_array_get(v, 0)) - want) <= unit * (1 + 1e-9) &&
			    fabs(json_number_value(json_array_get(v, 1)) - hi) <= unit * (1 + 1e-9))
				return 1;
		}
		if (holds(v, key, want, hi, unit))
			return 1;
	}
	return 0;
}

/* A number literal at `p`: its length, 0 when none. */
static size_t
number_len(const char *p)
{
	size_t n = 0;
	if (p[n] == '-')
		n++;
	if (!isdigit((unsigned char)p[n]))
		return 0;
	while (isdigit((unsigned char)p[n]) || p[n] == '.' || p[n] == 'e' || p[n] == 'E' ||
	       ((p[n] == '-' || p[n] == '+') && (p[n - 1] == 'e' || p[n - 1] == 'E')))
		n++;
	return n;
}

/* A number literal written with a point and only zeros after it ("4.0"),
 * which the server never writes. */
static int
whole_with_point(const char *num, size_t len)
{
	const char *dot = memchr(num, '.', len);
	if (!dot)
		return 0;
	for (const char *c = dot + 1; c < num + len; c++)
		if (*c != '0')
			return 0;
	return 1;
}

/* Every "key":number and "key":[n,n] of `shown` is in `answer`, written
 * as the server writes it. */
static int
check_numbers(const char *shown, const json_t *answer, const char *path)
{
	int n = 0;
	for (const char *p = shown; (p = strstr(p, "\":")) != NULL; p += 2) {
		const char *q = p;
		while (q > shown && q[-1] != '"')
			q--;
		char key[64];
		if (q == shown || (size_t)(p - q) >= sizeof key)
			continue;
		snprintf(key, sizeof key, "%.*s", (int)(p - q), q);
		const char *v = p + 2;
		int arr = *v == '[';
		size_t l0 = number_len(v + arr), l1 = 0;
		if (l0 == 0 || strcmp(key, "seconds") == 0)
			continue;
		double lo = strtod(v + arr, NULL), hi = NAN, unit = last_digit_unit(v + arr, l0);
		if (arr) {
			const char *w = v + 1 + l0;
			if (*w != ',' || (l1 = number_len(w + 1)) == 0)
				continue;
			hi = strtod(w + 1, NULL);
			double u1 = last_digit_unit(w + 1, l1);
			unit = u1 > unit ? u1 : unit;
		}
		int whole = whole_with_point(v + arr, l0) || (arr && whole_with_point(v + 2 + l0, l1));
		CHECK(!whole);
		if (whole)
			fprintf(stderr, "  %s: docs show \"%s\":%.*s, the server writes a whole number as an integer\n",
			        path, key, (int)(arr ? l0 + l1 + 3 : l0), v);
		int ok = holds(answer, key, lo, hi, unit);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  %s: docs show \"%s\":%.*s, the server answers otherwise\n", path, key,
			        (int)(arr ? l0 + l1 + 3 : l0), v);
		n++;
	}
	return n;
}

/* An example shown whole (it parses as JSON: nothing elided but a value
 * "…") has every key of the answer and no other, at every depth: the
 * first example's config lacked power_limit_met. */
static int
same_keys(const json_t *shown, const json_t *answer, const char *at, const char *path)
{
	const char *k;
	const json_t *v;
	int ok = 1;
	if (json_is_array(shown) && json_is_array(answer) && json_array_size(shown) == json_array_size(answer)) {
		size_t i;
		json_array_foreach(shown, i, v)
			ok &= same_keys(v, json_array_get(answer, i), at, path);
		return ok;
	}
	if (!json_is_object(shown) || !json_is_object(answer))
		return 1;
	json_object_foreach((json_t *)answer, k, v) {
		const json_t *w = json_object_get(shown, k);
		if (!w) {
			fprintf(stderr, "  %s: the answer has %s/%s, the example does not show it\n", path, at, k);
			ok = 0;
			continue;
		}
		char sub[256];
		snprintf(sub, sizeof sub, "%s/%s", at, k);
		ok &= same_keys(w, v, sub, path);
	}
	json_object_foreach((json_t *)shown, k, v)
		if (!json_object_get(answer, k)) {
			fprintf(stderr, "  %s: the example shows %s/%s, the answer has no such key\n", path, at, k);
			ok = 0;
		}
	return ok;
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	char *doc_path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/http-api.md");
	char *doc = test_slurp(doc_path);
	CHECK(doc != NULL);
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &params, &err), WC_OK);
	if (!doc || !(srv = http_server_start(&params, "profile:" WC_DEFAULT_PROFILE, 4)))
		return check_report("test_server_docs_examples");
	int examples = 0, numbers = 0, wholes = 0;
	static const char lead[] = "$ curl -s localhost:8080";
	for (char *p = doc; (p = strstr(p, lead)) != NULL; p += sizeof lead - 1) {
		char path[128];
		size_t plen = strcspn(p + sizeof lead - 1, " \n");
		snprintf(path, sizeof path, "%.*s", (int)plen, p + sizeof lead - 1);
		char *body = strstr(p, "-d '"), *fence = strstr(p, "```");
		if (!body || !fence || body > fence)
			continue;
		body += 4;
		char *close = strchr(body, '\'');
		if (!close || close > fence)
			continue;
		char *text = strndup(body, (size_t)(close - body)), *shown = strndup(close + 1, (size_t)(fence - close - 1));
		http_reply r;
		http_post_json(h, url(path), text, &r);
		CHECK_INT(r.status, 200);
		if (r.status != 200)
			fprintf(stderr, "  %s %s -> %ld %.300s\n", path, text, r.status, r.body ? r.body : "");
		if (r.json)
			numbers += check_numbers(shown, r.json, path);
		json_t *whole = json_loads(shown, 0, NULL);
		if (whole && r.json) {
			CHECK(same_keys(whole, r.json, "", path));
			wholes++;
		}
		json_decref(whole);
		http_reply_free(&r);
		free(text);
		free(shown);
		examples++;
	}
	CHECK(examples >= 7);
	CHECK(numbers >= 40);
	CHECK(wholes >= 1);
	fprintf(stderr, "%d examples (%d shown whole), %d numbers compared\n", examples, wholes, numbers);
	free(doc);
	free(doc_path);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_docs_examples");
}

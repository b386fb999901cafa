/*
 * A prediction's answer is printed through a per-thread block
 * (wc_response_json_small, server/response.c): its bytes must be
 * json_dumps's, for an answer that fits the 16 KB block and for one that
 * does not (printed a second time at its size), from several threads.
 */
#include "server/server_internal.h"
#include "tests/support/support.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* An object of n reals and strings, the kind of thing an answer holds. */
static json_t *
document(int n, double seed)
{
	json_t *o = json_object();
	for (int i = 0; i < n; i++) {
		char key[32];
		snprintf(key, sizeof key, "field_%d", i);
		json_object_set_new(o, key, i % 3 ? json_real(seed * (i + 1) / 7.0)
		                                  : json_string("source: \"fitted\" \u00b1"));
	}
	return o;
}

/* 1 when wc_response_json_small prints `o` as json_dumps does. */
static int
same_as_dumps(json_t *o)
{
	wc__render_whole(o); /* whole numbers as integers, as every answer's (docs/http-api.md) */
	char *want = json_dumps(o, WC_JSON_FLAGS);
	wc_response res = { 0 };
	wc_response_json_small(&res, 200, o); /* steals o */
	int same = want && res.status == 200 && res.body && res.len == strlen(want) &&
	           memcmp(res.body, want, res.len) == 0 && res.body[res.len] == '\0';
	free(want);
	wc_response_free(&res);
	return same;
}

static void *
worker(void *arg)
{
	int *ok = arg;
	for (int k = 0; k < 50; k++)
		*ok &= same_as_dumps(document(40 + k, 1.0 + k));
	return NULL;
}

int
main(void)
{
	json_t *small = document(60, 3.14159);
	char *text = json_dumps(small, WC_JSON_FLAGS);
	CHECK(text && strlen(text) < 16384);
	free(text);
	CHECK(same_as_dumps(small));
	json_t *large = document(2000, 2.71828);
	text = json_dumps(large, WC_JSON_FLAGS);
	CHECK(text && strlen(text) > 16384);
	free(text);
	CHECK(same_as_dumps(large));
	/* Each thread has its own block. */
	pthread_t th[3];
	int ok[3] = { 1, 1, 1 };
	for (int i = 0; i < 3; i++)
		CHECK_INT(pthread_create(&th[i], NULL, worker, &ok[i]), 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		CHECK(ok[i]);
	}
	/* A NULL body is the out-of-memory answer, as for wc_response_json. */
	wc_response res = { 0 };
	wc_response_json_small(&res, 200, NULL);
	CHECK(res.status != 200);
	wc_response_free(&res);
	return check_report("test_response_dump");
}

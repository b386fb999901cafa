/*
 * The server's answer memo (server/answer_cache.c): an answer comes back
 * only for exactly the body bytes it was stored under, as a private
 * NUL-terminated copy; a slot keeps the newest entry; oversized bodies and
 * answers are not remembered; hits and misses are counted; and threads
 * hammering two slots with eight keys never read another key's answer
 * (under ASan this also catches a copy made from a freed entry).
 */
#include "server/server_internal.h"
#include "tests/support/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
test_exact_bytes(void)
{
	wc_answer_cache *c = wc_answer_cache_new(64);
	size_t n = 0;
	unsigned long long hits, misses;
	CHECK(c != NULL);
	CHECK(wc_answer_cache_get(c, "{\"a\":1}", 7, &n) == NULL);
	wc_answer_cache_put(c, "{\"a\":1}", 7, "{\"w\":551.3}", 11);
	char *got = wc_answer_cache_get(c, "{\"a\":1}", 7, &n);
	CHECK(got && n == 11 && strcmp(got, "{\"w\":551.3}") == 0);
	/* The copy is the caller's: changing it does not change the memo. */
	if (got)
		got[0] = 'X';
	free(got);
	got = wc_answer_cache_get(c, "{\"a\":1}", 7, &n);
	CHECK(got && got[0] == '{');
	free(got);
	/* A prefix, a longer body and one changed byte are other keys. */
	CHECK(wc_answer_cache_get(c, "{\"a\":1", 6, &n) == NULL);
	CHECK(wc_answer_cache_get(c, "{\"a\":1} ", 8, &n) == NULL);
	CHECK(wc_answer_cache_get(c, "{\"a\":2}", 7, &n) == NULL);
	/* Bytes after a NUL still count. */
	wc_answer_cache_put(c, "a\0b", 3, "one", 3);
	CHECK(wc_answer_cache_get(c, "a\0c", 3, &n) == NULL);
	got = wc_answer_cache_get(c, "a\0b", 3, &n);
	CHECK(got && strcmp(got, "one") == 0);
	free(got);
	wc_answer_cache_counts(c, &hits, &misses);
	CHECK_INT((long)hits, 3);
	CHECK_INT((long)misses, 5);
	wc_answer_cache_free(c);
}

static void
test_slot_and_limits(void)
{
	wc_answer_cache *c = wc_answer_cache_new(1);
	size_t n;
	CHECK(c != NULL);
	/* One slot: the newest entry wins. */
	wc_answer_cache_put(c, "k1", 2, "v1", 2);
	wc_answer_cache_put(c, "k2", 2, "v2", 2);
	CHECK(wc_answer_cache_get(c, "k1", 2, &n) == NULL);
	char *got = wc_answer_cache_get(c, "k2", 2, &n);
	CHECK(got && strcmp(got, "v2") == 0);
	free(got);
	/* Too long a body or answer: not remembered, the slot keeps k2. */
	char *big = malloc(WC_ANSWER_CACHE_MAX_ANSWER + 2);
	memset(big, 'x', WC_ANSWER_CACHE_MAX_ANSWER + 1);
	big[WC_ANSWER_CACHE_MAX_ANSWER + 1] = '\0';
	unsigned long long hits0, misses0, hits1, misses1;
	wc_answer_cache_put(c, big, WC_ANSWER_CACHE_MAX_KEY + 1, "v3", 2);
	wc_answer_cache_counts(c, &hits0, &misses0);
	CHECK(wc_answer_cache_get(c, big, WC_ANSWER_CACHE_MAX_KEY + 1, &n) == NULL);
	wc_answer_cache_counts(c, &hits1, &misses1);
	CHECK(hits1 == hits0 && misses1 == misses0 + 1); /* still a lookup that missed */
	wc_answer_cache_put(c, "k4", 2, big, WC_ANSWER_CACHE_MAX_ANSWER + 1);
	CHECK(wc_answer_cache_get(c, "k4", 2, &n) == NULL);
	got = wc_answer_cache_get(c, "k2", 2, &n);
	CHECK(got && strcmp(got, "v2") == 0);
	free(got);
	/* The largest remembered sizes are remembered. */
	wc_answer_cache_put(c, big, WC_ANSWER_CACHE_MAX_KEY, big, WC_ANSWER_CACHE_MAX_ANSWER);
	got = wc_answer_cache_get(c, big, WC_ANSWER_CACHE_MAX_KEY, &n);
	CHECK(got && n == WC_ANSWER_CACHE_MAX_ANSWER && got[n] == '\0' && got[n - 1] == 'x');
	free(got);
	free(big);
	wc_answer_cache_free(c);
	CHECK(wc_answer_cache_new(0) == NULL);
	CHECK(wc_answer_cache_new((size_t)WC_ANSWER_CACHE_MAX_SLOTS + 1) == NULL);
	wc_answer_cache_free(NULL);
}

enum { N_THREADS = 4, N_KEYS = 8, N_ROUNDS = 20000 };

typedef struct {
	wc_answer_cache *c;
	unsigned seed;
	int wrong, hits;
} hammer;

static void *
hammer_run(void *arg)
{
	hammer *hm = arg;
	char key[32], want[48];
	for (int i = 0; i < N_ROUNDS; i++) {
		hm->seed = hm->seed * 1103515245u + 12345u;
		int k = (int)((hm->seed >> 16) % N_KEYS);
		int nk = snprintf(key, sizeof key, "{\"key\":%d}", k);
		int nw = snprintf(want, sizeof want, "{\"answer_of\":%d,\"pad\":\"%0*d\"}", k, k + 1, 0);
		size_t n = 0;
		char *got = wc_answer_cache_get(hm->c, key, (size_t)nk, &n);
		if (got) {
			hm->hits++;
			hm->wrong += n != (size_t)nw || strcmp(got, want) != 0;
			free(got);
		} else {
			wc_answer_cache_put(hm->c, key, (size_t)nk, want, (size_t)nw);
		}
	}
	return NULL;
}

static void
test_threads(void)
{
	wc_answer_cache *c = wc_answer_cache_new(2);
	pthread_t th[N_THREADS];
	hammer hm[N_THREADS];
	unsigned long long hits, misses;
	CHECK(c != NULL);
	for (int t = 0; t < N_THREADS; t++) {
		hm[t] = (hammer){ c, 17u + 101u * (unsigned)t, 0, 0 };
		CHECK_INT(pthread_create(&th[t], NULL, hammer_run, &hm[t]), 0);
	}
	long total_hits = 0;
	for (int t = 0; t < N_THREADS; t++) {
		pthread_join(th[t], NULL);
		CHECK_INT(hm[t].wrong, 0);
		total_hits += hm[t].hits;
	}
	wc_answer_cache_counts(c, &hits, &misses);
	CHECK_INT((long)hits, total_hits);
	CHECK_INT((long)(hits + misses), (long)N_THREADS * N_ROUNDS);
	CHECK(hits > 0 && misses > 0);
	wc_answer_cache_free(c);
}

int
main(void)
{
	test_exact_bytes();
	test_slot_and_limits();
	test_threads();
	return check_report("test_answer_cache");
}

/*
 * A memo of recent answers keyed by the exact request body bytes
 * (docs/http-api.md, "Answer cache"). Schedulers ask the same
 * configuration many times a second; building and printing the answer
 * (jansson, glibc's number formatting) costs several times the
 * prediction itself, so a repeated body is answered from a copy.
 *
 * Direct-mapped: a body's hash picks one slot, which holds one entry; a
 * new answer replaces whatever the slot held. Each slot has its own lock,
 * so workers only wait for one another on the same slot.
 */
#include "state_internal.h"
#include "models/grow.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	pthread_mutex_t lock;
	uint64_t hash;
	char *key;    /* the request body (malloc'd), NULL = empty slot */
	size_t key_len;
	char *answer; /* the answer's bytes (malloc'd) */
	size_t answer_len;
} cache_slot;

struct wc_answer_cache {
	size_t n_slots;
	atomic_ullong hits, misses;
	cache_slot slot[];
};

/* FNV-1a: the keys are a few hundred bytes; what matters is a spread over
 * slots, not resistance to crafted collisions (a collision only costs a
 * recomputation, the full key is compared). */
static uint64_t
body_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

wc_answer_cache *
wc_answer_cache_new(size_t n_slots)
{
	if (n_slots == 0 || n_slots > WC_ANSWER_CACHE_MAX_SLOTS)
		return NULL;
	/* n_slots is bounded above, so the header plus the slots cannot wrap. */
	wc_answer_cache *c = wc_alloc_zeroed(1, sizeof *c + n_slots * sizeof c->slot[0]);
	if (!c)
		return NULL;
	c->n_slots = n_slots;
	atomic_init(&c->hits, 0);
	atomic_init(&c->misses, 0);
	for (size_t i = 0; i < n_slots; i++)
		pthread_mutex_init(&c->slot[i].lock, NULL);
	return c;
}

void
wc_answer_cache_free(wc_answer_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_slots; i++) {
		free(c->slot[i].key);
		free(c->slot[i].answer);
		pthread_mutex_destroy(&c->slot[i].lock);
	}
	free(c);
}

char *
wc_answer_cache_get(wc_answer_cache *c, const char *body, size_t len, size_t *answer_len)
{
	char *copy = NULL;
	/* A body put never remembers is not hashed (running series can be
	 * megabytes) nor looked up. */
	if (len > WC_ANSWER_CACHE_MAX_KEY) {
		atomic_fetch_add_explicit(&c->misses, 1, memory_order_relaxed);
		return NULL;
	}
	uint64_t h = body_hash(body, len);
	cache_slot *s = &c->slot[h % c->n_slots];
	pthread_mutex_lock(&s->lock);
	if (s->key && s->hash == h && s->key_len == len && memcmp(s->key, body, len) == 0 &&
	    (copy = wc_alloc_array(s->answer_len + 1, 1)) != NULL) {
		memcpy(copy, s->answer, s->answer_len + 1);
		*answer_len = s->answer_len;
	}
	pthread_mutex_unlock(&s->lock);
	atomic_fetch_add_explicit(copy ? &c->hits : &c->misses, 1, memory_order_relaxed);
	return copy;
}

void
wc_answer_cache_put(wc_answer_cache *c, const char *body, size_t len, const char *answer,
                    size_t answer_len)
{
	if (len > WC_ANSWER_CACHE_MAX_KEY || answer_len > WC_ANSWER_CACHE_MAX_ANSWER)
		return;
	/* Copies are made outside the lock; an allocation failure only means
	 * the answer is not remembered. */
	char *key = wc_alloc_array(len ? len : 1, 1), *ans = wc_alloc_array(answer_len + 1, 1);
	if (!key || !ans) {
		free(key);
		free(ans);
		return;
	}
	memcpy(key, body, len);
	memcpy(ans, answer, answer_len);
	ans[answer_len] = '\0';
	uint64_t h = body_hash(body, len);
	cache_slot *s = &c->slot[h % c->n_slots];
	pthread_mutex_lock(&s->lock);
	char *old_key = s->key, *old_ans = s->answer;
	s->hash = h;
	s->key = key;
	s->key_len = len;
	s->answer = ans;
	s->answer_len = answer_len;
	pthread_mutex_unlock(&s->lock);
	free(old_key);
	free(old_ans);
}

void
wc_answer_cache_counts(const wc_answer_cache *c, unsigned long long *hits,
                       unsigned long long *misses)
{
	*hits = atomic_load_explicit(&c->hits, memory_order_relaxed);
	*misses = atomic_load_explicit(&c->misses, memory_order_relaxed);
}

/*
 * Private to server/: the parameter sets a server answers from -- one
 * state per set (state.c), the profiles that hold them and are swapped
 * whole on reload, and their answer memo (answer_cache.c).
 */
#ifndef WC_SERVER_STATE_INTERNAL_H
#define WC_SERVER_STATE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "server/server.h"
#include "api_error_internal.h"

/** One loaded parameter set and everything precomputed from it. Immutable
 *  once published but for the ?draws=1 answer, built on its first request
 *  (wc_state_params_whole); freed when the last reference is dropped. */
typedef struct wc_state {
	atomic_int refs;
	wc_predictor *pred;          /* owns the params */
	char version[17];            /* wc_params_fingerprint */
	char loaded_utc[24];
	double loaded_unix;          /* seconds since the epoch */
	char source[256];
	char *params_body;           /* GET /v1/params answer, "draws": null */
	size_t params_len;
	/* GET /v1/params?draws=1, with the draws: up to WC_PARAMS_MAX_BYTES,
	 * so built when first asked, not at every load, under whole_lock;
	 * whole_built (release) says the two below are final */
	pthread_mutex_t whole_lock;
	atomic_int whole_built;
	char *params_whole_body;     /* NULL past WC_PARAMS_MAX_BYTES */
	size_t params_whole_len;     /* its length, kept when it was too large */
	char prefill_profile[48];    /* a prefill-aware set served beside it, the
	                              * one a caveat may send a request to; ""
	                              * none (wc_inference_query.prefill_profile) */
} wc_state;

/** Build a state from a copy of `p`. New object with one reference. */
int wc_state_new(const wc_params *p, const char *source, wc_state **out, wc_error *err);
void wc_state_retain(wc_state *st);
/** GET /v1/params?draws=1 of `st`: the whole file with its draws, built
 *  on the first call and kept while `st` lives (any thread; the caller
 *  holds a reference). *body NULL with *len its size when it is past
 *  WC_PARAMS_MAX_BYTES; params_body when the set has no draws. WC_ENOMEM
 *  when it cannot be rendered (tried again on the next call). */
int wc_state_params_whole(const wc_state *st, const char **body, size_t *len, wc_error *err);
/** For tests: how many ?draws=1 answers this process has rendered. */
unsigned long wc__state_whole_renders(void);
/** Drop one reference; the last one frees. NULL is a no-op. */
void wc_state_release(wc_state *st);

/* ------------------------------------------------------- answer cache */

/** Recent answers keyed by the exact request body bytes (answer_cache.c;
 *  docs/http-api.md, "Answer cache"). Owned by one wc_profiles, so a
 *  reload starts with an empty memo and never answers from old
 *  parameters. Thread-safe. */
typedef struct wc_answer_cache wc_answer_cache;

#define WC_ANSWER_CACHE_SLOTS 1024         /* per profiles object */
#define WC_ANSWER_CACHE_MAX_SLOTS (1u << 20)
#define WC_ANSWER_CACHE_MAX_KEY 4096       /* longer bodies are not remembered */
#define WC_ANSWER_CACHE_MAX_ANSWER 16384

/** New empty memo of `n_slots` entries (1..WC_ANSWER_CACHE_MAX_SLOTS);
 *  NULL when out of memory or out of range. Free with
 *  wc_answer_cache_free. */
wc_answer_cache *wc_answer_cache_new(size_t n_slots);
void wc_answer_cache_free(wc_answer_cache *c);
/** A malloc'd, NUL-terminated copy of the answer remembered for exactly
 *  these body bytes (caller frees), or NULL. Counts a hit or a miss. */
char *wc_answer_cache_get(wc_answer_cache *c, const char *body, size_t len, size_t *answer_len);
/** Remember `answer` for `body` (both copied), replacing what its slot
 *  held. Bodies or answers over the limits above are not remembered. */
void wc_answer_cache_put(wc_answer_cache *c, const char *body, size_t len, const char *answer,
                         size_t answer_len);
/** Hits and misses of wc_answer_cache_get so far. */
void wc_answer_cache_counts(const wc_answer_cache *c, unsigned long long *hits,
                            unsigned long long *misses);

/** The profiles a server answers from (docs/http-api.md, "Profiles"):
 *  one state per parameter set, named by the set's name, the first the
 *  default. Swapped as a whole on reload; immutable once published (the answer
 *  memo locks itself). */
typedef struct wc_profiles {
	atomic_int refs;
	int n;
	wc_state *st[WC_SERVER_MAX_PROFILES];
	char *profiles_body;         /* GET /v1/profiles answer */
	size_t profiles_len;
	wc_answer_cache *answers;    /* POST /v1/predict/inference memo (owned) */
} wc_profiles;

/** Build the profiles from copies of `sets` (names must differ). New
 *  object with one reference. */
int wc_profiles_new(int n, const wc_params *const *sets, const char *const *sources,
                    wc_profiles **out, wc_error *err);
void wc_profiles_retain(wc_profiles *pf);
void wc_profiles_release(wc_profiles *pf);
/** The profile named `name` (NULL = the default), or NULL. Borrowed. */
const wc_state *wc_profiles_find(const wc_profiles *pf, const char *name);
/** 422 unknown_profile (field /profile) for `asked` in `e`, listing the
 *  profiles served within the message's 255 bytes, ending at a name with
 *  how many it left out, and the pointer to GET /v1/profiles
 *  (wc_name_list, models/error.h). */
void wc_profiles_unknown(const wc_profiles *pf, const char *asked, wc_api_error *e);
/** The profile a request object names in "profile" (absent = the
 *  default); NULL with a 422 (field /profile) in `e` otherwise. Every
 *  route selects first, so an empty top-level string is refused here
 *  (422 invalid_value on its field, docs/http-api.md "Errors"). */
const wc_state *wc_profiles_select(const wc_profiles *pf, const json_t *item, wc_api_error *e);

#endif

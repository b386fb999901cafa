/*
 * Private to predict/: the envelope simulation's min-heaps (docs/envelopes.md,
 * "The pipeline"), written once. WC__HEAP_DEFINE makes a plain binary heap
 * of one element type -- a server's running requests by the step they
 * finish at, a closed loop's pending arrivals by time -- as inline
 * functions, so the hot per-request path pays no callback; wc__iheap
 * orders a fleet's servers by a key that changes in place.
 */
#ifndef WC_PREDICT_HEAP_INTERNAL_H
#define WC_PREDICT_HEAP_INTERNAL_H

#include <stddef.h>

/* NAME_push(h, &n, x): x into the heap h[0..n) (room for n + 1), n grows;
 * NAME_pop(h, &n): the least element out (n > 0), n shrinks. LESS(a, b)
 * orders two elements; equal ones leave in no promised order. Both move a
 * hole rather than swap. */
#define WC__HEAP_DEFINE(NAME, TYPE, LESS)                                       \
	static inline void NAME##_push(TYPE *h, size_t *n, TYPE x)                \
	{                                                                         \
		size_t i = (*n)++;                                                \
		while (i > 0 && LESS(x, h[(i - 1) / 2])) {                        \
			h[i] = h[(i - 1) / 2];                                    \
			i = (i - 1) / 2;                                          \
		}                                                                 \
		h[i] = x;                                                         \
	}                                                                         \
	static inline TYPE NAME##_pop(TYPE *h, size_t *n)                         \
	{                                                                         \
		TYPE top = h[0], x = h[--*n];                                     \
		size_t i = 0, m = *n;                                             \
		for (;;) {                                                        \
			size_t c = 2 * i + 1;                                     \
			if (c >= m)                                               \
				break;                                            \
			if (c + 1 < m && LESS(h[c + 1], h[c]))                    \
				c++;                                              \
			if (!LESS(h[c], x))                                       \
				break;                                            \
			h[i] = h[c];                                              \
			i = c;                                                    \
		}                                                                 \
		if (m)                                                            \
			h[i] = x;                                                 \
		return top;                                                       \
	}

/** Items 0..n-1 ordered by a key, ties by a second key `tie` (0 until
 *  set), then by the lower index, with positions, so that an item's keys
 *  change in O(log n); heap[0] is the least. */
typedef struct {
	double *key;
	long long *tie;
	int *heap, *pos;
	int n;
} wc__iheap;

/** `n` items, every key `key0`; WC_ENOMEM (call wc__iheap_free anyway). */
int wc__iheap_init(wc__iheap *h, int n, double key0);
/** Item `item`'s key set to `key`, and its place restored. */
void wc__iheap_update(wc__iheap *h, int item, double key);
/** Item `item`'s keys set to `key` and `tie`, and its place restored. */
void wc__iheap_update_tie(wc__iheap *h, int item, double key, long long tie);
void wc__iheap_free(wc__iheap *h);

#endif

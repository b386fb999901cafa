/*
 * The indexed min-heap of predict/ (heap_internal.h): a fleet's servers
 * ordered by their next event or their load (docs/envelopes.md,
 * "The pipeline").
 */
#include "heap_internal.h"
#include "models/error.h"
#include "models/grow.h"

#include <stdlib.h>

static int
iheap_less(const wc__iheap *h, int a, int b)
{
	if (h->key[a] != h->key[b])
		return h->key[a] < h->key[b];
	return h->tie[a] < h->tie[b] || (h->tie[a] == h->tie[b] && a < b);
}

static void
iheap_swap(wc__iheap *h, int i, int j)
{
	int a = h->heap[i], b = h->heap[j];
	h->heap[i] = b;
	h->heap[j] = a;
	h->pos[b] = i;
	h->pos[a] = j;
}

void
wc__iheap_update(wc__iheap *h, int item, double key)
{
	wc__iheap_update_tie(h, item, key, h->tie[item]);
}

void
wc__iheap_update_tie(wc__iheap *h, int item, double key, long long tie)
{
	h->key[item] = key;
	h->tie[item] = tie;
	int i = h->pos[item];
	while (i > 0 && iheap_less(h, h->heap[i], h->heap[(i - 1) / 2])) {
		iheap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && iheap_less(h, h->heap[c + 1], h->heap[c]))
			c++;
		if (!iheap_less(h, h->heap[c], h->heap[i]))
			break;
		iheap_swap(h, i, c);
		i = c;
	}
}

int
wc__iheap_init(wc__iheap *h, int n, double key0)
{
	h->key = wc_alloc_array((size_t)n, sizeof *h->key);
	h->tie = wc_alloc_array((size_t)n, sizeof *h->tie);
	h->heap = wc_alloc_array((size_t)n, sizeof *h->heap);
	h->pos = wc_alloc_array((size_t)n, sizeof *h->pos);
	h->n = n;
	if (!h->key || !h->tie || !h->heap || !h->pos)
		return WC_ENOMEM;
	for (int i = 0; i < n; i++) {
		h->key[i] = key0;
		h->tie[i] = 0;
		h->heap[i] = h->pos[i] = i;
	}
	return WC_OK;
}

void
wc__iheap_free(wc__iheap *h)
{
	free(h->key);
	free(h->tie);
	free(h->heap);
	free(h->pos);
}

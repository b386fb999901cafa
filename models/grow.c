/* Overflow-checked growth of dynamic arrays (models/grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


size_t
wc_size_mul(size_t n, size_t size, int *ok)
{
	if (size != 0 && n > SIZE_MAX / size) {
		*ok = 0;
		return 0;
	}
	*ok = 1;
	return n * size;
}

void *
wc_alloc_array(size_t n, size_t size)
{
	int ok;
	size_t bytes = wc_size_mul(n, size, &ok);
	if (!ok)
		return NULL;
	return malloc(bytes ? bytes : 1);
}

void *
wc_alloc_zeroed(size_t n, size_t size)
{
	int ok;
	size_t bytes = wc_size_mul(n, size, &ok);
	if (!ok)
		return NULL;
	/* calloc, not malloc + memset: a large block comes from fresh pages
	 * the kernel already zeroed, so pages never used are never touched
	 * (the trace streams' histograms: docs/results.md, telemetry reading). */
	return calloc(bytes ? bytes : 1, 1);
}

void *
wc_resize_array(void *ptr, size_t n, size_t size)
{
	int ok;
	size_t bytes = wc_size_mul(n, size, &ok);
	if (!ok)
		return NULL;
	return realloc(ptr, bytes ? bytes : 1);
}

size_t
wc_next_capacity(size_t cap, size_t need, size_t min_cap, size_t max_cap)
{
	if (need > max_cap)
		return 0;
	size_t want = cap ? cap : (min_cap ? min_cap : 1);
	while (want < need) {
		if (want > SIZE_MAX / 2)
			return 0;
		want *= 2;
	}
	return want < max_cap ? want : max_cap;
}

void *
wc_grow(void *ptr, size_t *cap, size_t need, size_t elem_size, size_t min_cap)
{
	if (need <= *cap && ptr)
		return ptr;
	size_t want = *cap ? *cap : (min_cap ? min_cap : 1);
	while (want < need) {
		if (want > SIZE_MAX / 2)
			return NULL;
		want *= 2;
	}
	int ok;
	size_t bytes = wc_size_mul(want, elem_size, &ok);
	if (!ok)
		return NULL;
	void *np = realloc(ptr, bytes ? bytes : 1);
	if (!np)
		return NULL;
	*cap = want;
	return np;
}

/*
 * A small string -> int hash map (open addressing, linear probing, FNV-1a)
 * for code that must tell whether it has seen a name before without
 * comparing it against every earlier one (import mlenergy numbers its
 * repeated configurations through it, a Prometheus set finds its series
 * and a fleet ingest its groups).
 */
#include "strmap.h"

#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

static uint64_t
hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* Slot of `key`, or of the empty slot where it would go (cap is a power of
 * two and never full). */
static size_t
find_slot(const wc_strmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)hash_text(key) & mask;
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & mask;
	return i;
}

int
wc_strmap_get(const wc_strmap *m, const char *key, int *val)
{
	if (m->n == 0)
		return 0;
	size_t i = find_slot(m, key);
	if (!m->keys[i])
		return 0;
	if (val)
		*val = m->vals[i];
	return 1;
}

/* Double the table (or create it) and re-insert every key. */
static int
rehash(wc_strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	char **keys = ncap > m->cap ? wc_alloc_array(ncap, sizeof *keys) : NULL;
	int *vals = keys ? wc_alloc_array(ncap, sizeof *vals) : NULL;
	if (!keys || !vals) {
		free(keys);
		return WC_ENOMEM;
	}
	memset(keys, 0, ncap * sizeof *keys);
	wc_strmap old = *m;
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.keys[i])
			continue;
		size_t j = find_slot(m, old.keys[i]);
		m->keys[j] = old.keys[i];
		m->vals[j] = old.vals[i];
	}
	free(old.keys);
	free(old.vals);
	return WC_OK;
}

int
wc_strmap_put(wc_strmap *m, const char *key, int val)
{
	/* At most half full, so probes stay short and a free slot exists. */
	if (2 * (m->n + 1) > m->cap && rehash(m) != WC_OK)
		return WC_ENOMEM;
	size_t i = find_slot(m, key);
	if (!m->keys[i]) {
		if (!(m->keys[i] = strdup(key)))
			return WC_ENOMEM;
		m->n++;
	}
	m->vals[i] = val;
	return WC_OK;
}

void
wc_strmap_free(wc_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/*
 * String -> int map (models/strmap.c): the one hash map, for code that
 * looks names up among many (a Prometheus set's series, a fleet's groups:
 * docs/fleet.md, "Paging").
 */
#ifndef WC_MODELS_STRMAP_H
#define WC_MODELS_STRMAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Keys are copied. Zero-initialise; release with wc_strmap_free. get
 *  returns 1 and sets *val (may be NULL) when the key is present; put adds
 *  or replaces (WC_OK or WC_ENOMEM). */
typedef struct {
	char **keys;
	int *vals;
	size_t cap, n;
} wc_strmap;

int wc_strmap_get(const wc_strmap *m, const char *key, int *val);
int wc_strmap_put(wc_strmap *m, const char *key, int val);
void wc_strmap_free(wc_strmap *m);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Growing arrays without overflow: every dynamic array in wattcast grows
 * through wc_grow, which refuses (WC_ENOMEM) a size whose byte count
 * would not fit in size_t instead of wrapping around.
 */
#ifndef WC_MODELS_GROW_H
#define WC_MODELS_GROW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Room for at least `need` elements of `elem_size` bytes in `ptr`, an
 *  array (or NULL) of capacity `*cap` elements. Grows geometrically
 *  (doubling, from at least `min_cap`). Returns the array to use from now
 *  on and updates `*cap`; returns NULL, leaving `ptr` (still owned by the
 *  caller) and `*cap` unchanged, when memory is exhausted or the byte count
 *  would overflow. Typical use:
 *      double *nv = wc_grow(v, &cap, n + 1, sizeof *v, 1024);
 *      if (!nv) return WC_ENOMEM;  (v is still valid and freed later)
 *      v = nv;                                                         */
void *wc_grow(void *ptr, size_t *cap, size_t need, size_t elem_size, size_t min_cap);

/** Resize `ptr` (or NULL) to exactly `n` elements of `size` bytes. Returns
 *  the array to use from now on, or NULL -- `ptr` untouched and still owned
 *  by the caller -- when the byte count overflows or memory is exhausted.
 *  For parallel arrays that share one capacity. */
void *wc_resize_array(void *ptr, size_t n, size_t size);

/** The doubled capacity (from `min_cap` when 0) that holds `need`
 *  elements, at most `max_cap`; 0 when `need` exceeds `max_cap` or the
 *  doubling would overflow. */
size_t wc_next_capacity(size_t cap, size_t need, size_t min_cap, size_t max_cap);

/** `n` * `size` bytes, or 0 with `*ok` = 0 when the product overflows. */
size_t wc_size_mul(size_t n, size_t size, int *ok);

/** malloc of `n` elements of `size` bytes with the overflow check;
 *  NULL on overflow or exhaustion. Caller frees. */
void *wc_alloc_array(size_t n, size_t size);

/** calloc of `n` elements of `size` bytes (zeroed) with the same check
 *  and the same answer for n = 0 (a valid one-byte block); NULL on
 *  overflow or exhaustion. Caller frees. */
void *wc_alloc_zeroed(size_t n, size_t size);

#ifdef __cplusplus
}
#endif
#endif

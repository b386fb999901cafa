/*
 * The body of a batch request for the server tests (docs/http-api.md,
 * "POST /v1/predict/batch"): `n` items as one JSON array. The caller owns
 * the text it returns.
 */
#ifndef WC_TESTS_BATCH_BODY_H
#define WC_TESTS_BATCH_BODY_H

/** A JSON array of `n` items (malloc'd, the caller frees; out of memory
 *  it aborts, as test_appendf does): item k is `item` printed (printf)
 *  with k as its one int argument -- a "%d" in it numbers the items, an
 *  item without one is copied n times (a literal '%' written "%%"). */
char *test_batch_body(const char *item, int n);

#endif

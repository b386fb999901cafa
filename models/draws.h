/*
 * A matrix of bootstrap draws: `n` rows (replicates) of `k` named
 * parameters. Each section of a parameter file that is fitted with a
 * bootstrap (the capacity model, the fine-tuning law) owns one; a
 * prediction's 95 % interval comes from evaluating every row.
 *
 * Ownership: a wc_draws owns its arrays. Start at WC_DRAWS_INIT, fill with
 * wc_draws_set or wc_draws_copy (both release what it held first), free
 * with wc_draws_clear.
 */
#ifndef WC_MODELS_DRAWS_H
#define WC_MODELS_DRAWS_H

#include <stddef.h>

#include "models/error.h"
#include "models/law.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	int n, k;                   /* rows, parameters per row */
	char (*names)[WC_LABEL_MAX]; /* k names; NULL when empty */
	double *values;             /* n*k, row-major; NULL when empty */
} wc_draws;

#define WC_DRAWS_INIT { .n = 0, .k = 0, .names = NULL, .values = NULL }

/** Store `n` x `k` values with their names (both copied). n or k = 0
 *  leaves the matrix empty. */
int wc_draws_set(wc_draws *d, int n, int k, const char (*names)[WC_LABEL_MAX],
                 const double *values, wc_error *err);
int wc_draws_copy(wc_draws *dst, const wc_draws *src, wc_error *err);
void wc_draws_clear(wc_draws *d);
/** Column of `name`, or -1. */
int wc_draws_column(const wc_draws *d, const char *name);
/** Row r (borrowed), or NULL when r is out of range. */
const double *wc_draws_row(const wc_draws *d, int r);

#ifdef __cplusplus
}
#endif
#endif

/* Bootstrap draw matrices (models/draws.h). */
#include "models/draws.h"

#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

void
wc_draws_clear(wc_draws *d)
{
	if (!d)
		return;
	free(d->names);
	free(d->values);
	d->names = NULL;
	d->values = NULL;
	d->n = d->k = 0;
}

int
wc_draws_set(wc_draws *d, int n, int k, const char (*names)[WC_LABEL_MAX], const double *values,
             wc_error *err)
{
	wc_draws_clear(d);
	if (n <= 0 || k <= 0)
		return WC_OK;
	int ok;
	size_t cells = wc_size_mul((size_t)n, (size_t)k, &ok);
	d->names = wc_alloc_array((size_t)k, sizeof *d->names);
	d->values = ok ? wc_alloc_array(cells, sizeof *d->values) : NULL;
	if (!d->names || !d->values) {
		wc_draws_clear(d);
		return wc_error_set(err, WC_ENOMEM, "draws: out of memory");
	}
	memcpy(d->names, names, (size_t)k * sizeof *d->names);
	memcpy(d->values, values, cells * sizeof *d->values);
	d->n = n;
	d->k = k;
	return WC_OK;
}

int
wc_draws_copy(wc_draws *dst, const wc_draws *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	return wc_draws_set(dst, src->n, src->k, (const char (*)[WC_LABEL_MAX])src->names, src->values,
	                    err);
}

int
wc_draws_column(const wc_draws *d, const char *name)
{
	for (int j = 0; j < d->k; j++)
		if (strcmp(d->names[j], name) == 0)
			return j;
	return -1;
}

const double *
wc_draws_row(const wc_draws *d, int r)
{
	return r >= 0 && r < d->n ? d->values + (size_t)r * (size_t)d->k : NULL;
}

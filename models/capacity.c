/* The capacity model's parameter section (models/capacity.h). */
#include "models/capacity.h"

#include <string.h>

void
wc_capacity_params_clear(wc_capacity_params *c)
{
	if (!c)
		return;
	wc_draws_clear(&c->draws);
	memset(c, 0, sizeof *c);
}

int
wc_capacity_params_copy(wc_capacity_params *dst, const wc_capacity_params *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	wc_capacity_params_clear(dst);
	/* Plain values by assignment; the draws are re-owned below. */
	*dst = *src;
	dst->draws = (wc_draws)WC_DRAWS_INIT;
	return wc_draws_copy(&dst->draws, &src->draws, err);
}

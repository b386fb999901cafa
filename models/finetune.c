/* The fine-tuning law's parameter section (models/finetune.h). */
#include "models/finetune.h"

#include <string.h>

void
wc_finetune_params_clear(wc_finetune_params *c)
{
	if (!c)
		return;
	wc_draws_clear(&c->draws);
	memset(c, 0, sizeof *c);
}

int
wc_finetune_params_copy(wc_finetune_params *dst, const wc_finetune_params *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	wc_finetune_params_clear(dst);
	/* Plain values by assignment; the draws are re-owned below. */
	*dst = *src;
	dst->draws = (wc_draws)WC_DRAWS_INIT;
	return wc_draws_copy(&dst->draws, &src->draws, err);
}

/*
 * The fine-tuning energy law's parameters (docs/finetune.md,
 * docs/formats/params-file.md): a section of the parameter file.
 *
 * Ownership: the section owns its draws; release with
 * wc_finetune_params_clear, copy with wc_finetune_params_copy.
 */
#ifndef WC_MODELS_FINETUNE_H
#define WC_MODELS_FINETUNE_H

#include "models/draws.h"
#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	int present;        /* 0: the parameter set has no fine-tuning law */
	wc_draws draws;     /* bootstrap draws of the section's parameters */
} wc_finetune_params;

void wc_finetune_params_clear(wc_finetune_params *f);
/** Deep copy; `dst` is released first. */
int wc_finetune_params_copy(wc_finetune_params *dst, const wc_finetune_params *src, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The capacity model's parameters: the time side of inference (decode
 * step time, prefill time, memory feasibility), a section of the
 * parameter file (docs/capacity.md, docs/formats/params-file.md).
 *
 * Ownership: the section owns its draws; release with
 * wc_capacity_params_clear, copy with wc_capacity_params_copy.
 */
#ifndef WC_MODELS_CAPACITY_H
#define WC_MODELS_CAPACITY_H

#include "models/draws.h"
#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	int present;        /* 0: the parameter set has no capacity model */
	wc_draws draws;     /* bootstrap draws of the section's parameters */
} wc_capacity_params;

void wc_capacity_params_clear(wc_capacity_params *c);
/** Deep copy; `dst` is released first. */
int wc_capacity_params_copy(wc_capacity_params *dst, const wc_capacity_params *src, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

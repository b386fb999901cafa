/*
 * Capacity rows simulated from a known step-time law for capacity-fit
 * tests: a catalog model on a catalog board, its latency, inter-token
 * latency and TTFT the law's (models/capacity_model.h), each optionally
 * times exp(noise). Appended to a wc_capacity_data the caller frees.
 */
#ifndef WC_TESTS_SYNTH_CAPACITY_H
#define WC_TESTS_SYNTH_CAPACITY_H

#include "fit/capacity_fit.h"

/** Append row `id` of `model` on `platform` at `tp` GPUs and `n` running,
 *  `in` input tokens as the row states them (NaN: left to the fit's
 *  workload `set`) and `out` output tokens. Its times are the law `pt`'s at
 *  `true_in` input tokens (NaN: `in`), times exp(noise[k]) for latency, ITL
 *  and TTFT (`noise` NULL: none); its throughput n * out / latency when
 *  `with_throughput`, else NaN. */
void synth_capacity_row(wc_capacity_data *d, const char *id, const char *platform, const char *model,
                        const char *set, int tp, double n, double in, double true_in, double out,
                        const wc_capacity_point *pt, const double *noise, int with_throughput);

#endif

/*
 * PCG32 (XSH-RR, 64-bit state, selectable stream), written from the
 * published description and checked against the reference outputs. Every
 * stochastic routine of wattcast takes one of these explicitly.
 */
#ifndef WC_MODELS_PCG32_H
#define WC_MODELS_PCG32_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A 16-byte value the caller owns. */
typedef struct {
	uint64_t state;
	uint64_t inc; /* always odd */
} wc_pcg32;

/** Seed with (initstate, initseq); distinct initseq give distinct streams. */
void wc_pcg32_seed(wc_pcg32 *rng, uint64_t initstate, uint64_t initseq);
uint32_t wc_pcg32_next(wc_pcg32 *rng);
/** Uniform in [0, bound) without bias (threshold rejection, pcg-c method). */
uint32_t wc_pcg32_bounded(wc_pcg32 *rng, uint32_t bound);
/** Jump the stream by `delta` steps (negative = rewind, via 2^64 - n). */
void wc_pcg32_advance(wc_pcg32 *rng, uint64_t delta);
/** Uniform double in [0, 1) with 53 random bits from two draws. */
double wc_pcg32_uniform(wc_pcg32 *rng);
/** Standard normal deviate (Box-Muller, cosine branch; uses 4 draws). */
double wc_pcg32_normal(wc_pcg32 *rng);

#ifdef __cplusplus
}
#endif
#endif

/*
 * PCG32 (O'Neill 2014, pcg-random.org): 64-bit LCG state, XSH-RR output of
 * the old state, selectable stream. Written from the published description;
 * checked against the pcg-c reference vectors for seed (42, 54) in
 * tests/test_pcg32.c.
 */
#include "models/pcg32.h"

#include <math.h>

#define PCG_MULT 6364136223846793005ULL

static void
pcg_step(wc_pcg32 *rng)
{
	rng->state = rng->state * PCG_MULT + rng->inc;
}

void
wc_pcg32_seed(wc_pcg32 *rng, uint64_t initstate, uint64_t initseq)
{
	rng->state = 0u;
	rng->inc = (initseq << 1u) | 1u;
	pcg_step(rng);
	rng->state += initstate;
	pcg_step(rng);
}

uint32_t
wc_pcg32_next(wc_pcg32 *rng)
{
	uint64_t old = rng->state;
	uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	uint32_t rot = (uint32_t)(old >> 59u);
	pcg_step(rng);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

uint32_t
wc_pcg32_bounded(wc_pcg32 *rng, uint32_t bound)
{
	/* 2^32 mod bound: draws below it would make low residues likelier.
	 * Kept as in pcg-c (not Lemire) so the reference dice vectors apply. */
	uint32_t threshold = (-bound) % bound;
	for (;;) {
		uint32_t r = wc_pcg32_next(rng);
		if (r >= threshold)
			return r % bound;
	}
}

void
wc_pcg32_advance(wc_pcg32 *rng, uint64_t delta)
{
	/* Brown's algorithm: compose the affine step delta times in O(log delta). */
	uint64_t cur_mult = PCG_MULT, cur_plus = rng->inc;
	uint64_t acc_mult = 1u, acc_plus = 0u;
	while (delta > 0) {
		if (delta & 1u) {
			acc_mult *= cur_mult;
			acc_plus = acc_plus * cur_mult + cur_plus;
		}
		cur_plus = (cur_mult + 1u) * cur_plus;
		cur_mult *= cur_mult;
		delta >>= 1u;
	}
	rng->state = acc_mult * rng->state + acc_plus;
}

double
wc_pcg32_uniform(wc_pcg32 *rng)
{
	/* 27 high bits then 26: the 53-bit construction of Doornik/MT19937. */
	uint32_t a = wc_pcg32_next(rng) >> 5, b = wc_pcg32_next(rng) >> 6;
	return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

double
wc_pcg32_normal(wc_pcg32 *rng)
{
	/* 1 - u keeps log() away from 0; no cached second deviate, so the
	 * stream position depends only on how many normals were drawn. */
	double u1 = 1.0 - wc_pcg32_uniform(rng);
	double u2 = wc_pcg32_uniform(rng);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

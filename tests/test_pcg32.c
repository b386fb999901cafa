/*
 * PCG32 against the reference outputs for seed (42, 54) (pcg-c
 * test-high/expected/check-pcg32.out, pcg-random.org, libpcg-cpp):
 * six outputs, rewind by six, 65 coins, 33 dice, and round 5 after four
 * full demo rounds (each round: 6 outputs, rewind + 6 again, 65 coins,
 * 33 dice, a 52-card shuffle).
 */
#include "models/models.h"
#include "tests/support/check.h"

#include <stdint.h>

static const uint32_t first_six[6] = { 0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                        0x83d2f293, 0xbfa4784b, 0xcbed606e };
static const char coins[] = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
static const int dice[33] = { 3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                              1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3 };
static const uint32_t round5[6] = { 0xfcef7cd6, 0x1b488b5a, 0xd0daf7ea,
                                     0x1d9a70f7, 0x241a37cf, 0x9a3857b7 };

/* One round of pcg-c's check-base.c: six outputs, rewind by six and check
 * they repeat, 65 coins, 33 dice, a 52-card Fisher-Yates shuffle. */
static void
demo_round(wc_pcg32 *rng, uint32_t six[6], char coin_out[66], int dice_out[33])
{
	for (int i = 0; i < 6; i++)
		six[i] = wc_pcg32_next(rng);
	wc_pcg32_advance(rng, (uint64_t)0 - 6u);
	for (int i = 0; i < 6; i++)
		CHECK(wc_pcg32_next(rng) == six[i]);
	for (int i = 0; i < 65; i++)
		coin_out[i] = wc_pcg32_bounded(rng, 2) ? 'H' : 'T';
	coin_out[65] = '\0';
	for (int i = 0; i < 33; i++)
		dice_out[i] = (int)wc_pcg32_bounded(rng, 6) + 1;
	int cards[52];
	for (int i = 0; i < 52; i++)
		cards[i] = i;
	for (int i = 52; i > 1; i--) {
		int chosen = (int)wc_pcg32_bounded(rng, (uint32_t)i);
		int t = cards[chosen];
		cards[chosen] = cards[i - 1];
		cards[i - 1] = t;
	}
}

int
main(void)
{
	wc_pcg32 rng, again;
	uint32_t six[6];
	char coin_out[66];
	int dice_out[33];

	wc_pcg32_seed(&rng, 42u, 54u);
	demo_round(&rng, six, coin_out, dice_out);
	for (int i = 0; i < 6; i++)
		CHECK(six[i] == first_six[i]);
	CHECK(strcmp(coin_out, coins) == 0);
	for (int i = 0; i < 33; i++)
		CHECK_INT(dice_out[i], dice[i]);
	for (int r = 2; r <= 5; r++)
		demo_round(&rng, six, coin_out, dice_out);
	for (int i = 0; i < 6; i++)
		CHECK(six[i] == round5[i]);

	/* Same seed, same stream; another sequence, another stream. */
	wc_pcg32_seed(&rng, 7u, 1u);
	wc_pcg32_seed(&again, 7u, 1u);
	for (int i = 0; i < 1000; i++)
		CHECK(wc_pcg32_next(&rng) == wc_pcg32_next(&again));
	wc_pcg32_seed(&again, 7u, 2u);
	int same = 0;
	for (int i = 0; i < 1000; i++)
		same += wc_pcg32_next(&rng) == wc_pcg32_next(&again);
	CHECK(same < 5);

	/* Uniform doubles: 27 + 26 bits of the first two reference outputs. */
	wc_pcg32_seed(&rng, 42u, 54u);
	double u = wc_pcg32_uniform(&rng);
	double expect = ((first_six[0] >> 5) * 67108864.0 + (first_six[1] >> 6)) / 9007199254740992.0;
	CHECK(u == expect);
	double lo = 1, hi = 0, sum = 0, sum2 = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		u = wc_pcg32_uniform(&rng);
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	CHECK(lo >= 0.0 && hi < 1.0);
	/* Normals: mean 0, variance 1 within 5 standard errors. */
	sum = 0;
	for (int i = 0; i < n; i++) {
		double z = wc_pcg32_normal(&rng);
		sum += z;
		sum2 += z * z;
	}
	CHECK_NEAR(sum / n, 0.0, 5.0 / sqrt(n));
	CHECK_NEAR(sum2 / n, 1.0, 5.0 * sqrt(2.0 / n));
	/* Bounded draws stay in range and cover it evenly (chi-square, 9 dof). */
	int counts[10] = { 0 };
	for (int i = 0; i < 100000; i++)
		counts[wc_pcg32_bounded(&rng, 10)]++;
	double chi2 = 0;
	for (int i = 0; i < 10; i++)
		chi2 += (counts[i] - 10000.0) * (counts[i] - 10000.0) / 10000.0;
	CHECK(chi2 < 27.9); /* p = 0.001 critical value */
	return check_report("test_pcg32");
}

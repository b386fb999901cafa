/*
 * Synthetic power samples of a bursty engine with known response (hold,
 * decay) for the response fit's tests: bursts of 1-3 s at 1-16 running
 * requests, idle gaps of 0.5-2 s between them (the gaps show the hold
 * and the decay), through the response kernel on a 50 ms grid (tau
 * 0.1 s, prefill ratio 0.5), sampled every 100 ms with 2 W of noise.
 * Deterministic for the caller's PCG32 stream.
 *
 * Ownership: the synth_bursts owns its arrays (synth_bursts_free); the
 * wc_response_run filled in borrows them and the law point is copied.
 */
#ifndef WC_TESTS_SYNTH_BURSTS_H
#define WC_TESTS_SYNTH_BURSTS_H

#include <stddef.h>

#include "fit/fit.h"
#include "models/pcg32.h"

typedef struct {
	size_t n_grid, n_samples;       /* 50 ms bins; samples every 100 ms */
	double *running, *prefill, *t, *p;
} synth_bursts;

/** Simulate n_grid bins (n_samples <= n_grid / 2 samples) with the given
 *  hold and decay and point `r` at them (platform and run id "A100").
 *  0 on success, -1 out of memory. */
int synth_bursts_make(synth_bursts *s, size_t n_grid, size_t n_samples, wc_pcg32 *rng, const wc_law_point *law,
                      double hold, double decay, wc_response_run *r);
void synth_bursts_free(synth_bursts *s);

#endif

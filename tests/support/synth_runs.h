/*
 * Runs simulated from a known law for fit tests: one row of a runs table
 * on H100 with a measured idle of 60 W per GPU, its mean power the law's
 * times a log-normal error. Deterministic for the caller's PCG32 stream.
 */
#ifndef WC_TESTS_SYNTH_RUNS_H
#define WC_TESTS_SYNTH_RUNS_H

#include "data/data.h"

/** Append run "r<id>" of `model` (N_act `active_b`, `tp` GPUs, `n`
 *  running, weights `weights`) whose group power is the law `truth`'s
 *  (at bf16 whatever `weights` says) times exp(sd x N(0, 1)). */
void synth_law_run(wc_runs_table *t, const wc_params *truth, const char *model, double active_b, int tp,
                   double n, wc_precision weights, double sd, int id, wc_pcg32 *rng);

#endif

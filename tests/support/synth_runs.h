/*
 * Runs simulated from a known law for fit tests: one row of a runs table
 * on H100 with a measured idle of 60 W per GPU, its mean power the law's
 * times a log-normal error. Deterministic for the caller's PCG32 stream.
 * And a whole table of sane A100 runs, the caller's to free.
 */
#ifndef WC_TESTS_SYNTH_RUNS_H
#define WC_TESTS_SYNTH_RUNS_H

#include "data/data.h"

/** Append run "r<id>" of `model` (N_act `active_b`, `tp` GPUs, `n`
 *  running, weights `weights`) whose group power is the law `truth`'s
 *  (at bf16 whatever `weights` says) times exp(sd x N(0, 1)). */
void synth_law_run(wc_runs_table *t, const wc_params *truth, const char *model, double active_b, int tp,
                   double n, wc_precision weights, double sd, int id, wc_pcg32 *rng);

/** A new table (wc_runs_free it) of 30 sane A100 runs on the shape of
 *  the published A100 law (docs/inference-law.md): sizes 0.6-32.8 B
 *  (model "m<size>") x 1, 4, 16, 64 and 256 running (all at 16 without
 *  `with_loads`), idle 72.9 W, mean power 72.9 + 329 W / (1 +
 *  exp(-(1.99 + 0.598 log(N/8) + 0.749 log(n/32)))) x exp(0.03 N(0, 1))
 *  from PCG32 stream 7. Row 5 i + j is size i at load j, named
 *  "r<i><j>" (callers may rename it). */
wc_runs_table *synth_a100_runs(int with_loads);

#endif

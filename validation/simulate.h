/*
 * Synthetic runs tables drawn from a known law with the published design
 * (docs/validation.md, "Simulating the paper design (`simulate inference`)"). Tables returned through `**out`
 * are freed with wc_runs_free.
 */
#ifndef WC_VALIDATION_SIMULATE_H
#define WC_VALIDATION_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "data/runs_table.h"
#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	const char *design;  /* "paper": the published design, ~250 closed-loop runs */
	uint64_t seed;
	double noise;        /* multiplicative noise on mean power (sd, 0.03) */
	double idle_noise;   /* on the measured idle power (sd, 0.01) */
	int uncapped;        /* 1: every row the law's own value, the board's
	                      * power limit not applied: the uncapped draw a
	                      * law is fitted as (docs/validation.md, "The truth
	                      * of every row"); 0: what `predict` answers */
	/* Told (when set) how many design rows were left out because the
	 * parameter set has no level for their GPU. */
	void (*warn)(const char *msg, void *payload);
	void *warn_payload;
} wc_simulate_options;

#define WC_SIMULATE_OPTIONS_INIT                                                 \
	{ .design = "paper", .seed = 42, .noise = 0.03, .idle_noise = 0.01 }

/** Draw a runs table from `truth` with the named design. Every draw comes
 *  from PCG32 stream (seed, 0) in row order, so a seed gives the same
 *  table byte for byte. Design rows on a GPU `truth` has no level for
 *  (the measured profile has no 'H100-locked') are left out, with one
 *  warning counting them; WC_EINVAL when none is left. Caller frees `*out`
 *  with wc_runs_free. */
int wc_simulate_inference(const wc_params *truth, const wc_simulate_options *opt,
                          wc_runs_table **out, wc_error *err);
/** The comment block written at the top of a simulated table. */
void wc_simulate_header(const wc_simulate_options *opt, const wc_params *truth, char *buf,
                        size_t cap);

#ifdef __cplusplus
}
#endif
#endif

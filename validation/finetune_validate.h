/*
 * The fine-tuning law's validation and simulation (docs/finetune.md,
 * "Validation" and "The synthetic table"): level-held-out accuracy --
 * hold out each level of each swept factor in turn and predict its energy
 * per token from the rest -- and synthetic fine-tuning runs tables drawn
 * from a known compute law.
 *
 * Ownership: a report owns its arrays (wc_ft_heldout_clear); simulated
 * tables are freed with wc_ft_table_free.
 */
#ifndef WC_VALIDATION_FINETUNE_H
#define WC_VALIDATION_FINETUNE_H

#include <stdint.h>

#include "data/finetune_runs.h"
#include "data/per_run.h"
#include "fit/finetune_fit.h"
#include "validation/accuracy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ level-held-out */

/** One held-out level of one sweep. Predictions are NaN when not scored
 *  (the rest of the sweep cannot determine the relation). */
typedef struct {
	int sweep;                 /* index into the report's sweeps */
	wc_ft_relation_kind kind;
	double x;                  /* the level held out */
	int n_runs;
	double measured;           /* mean energy per token of its runs, J */
	double relation, relation_err_pct;  /* the relation refitted on the sweep's other levels */
	double compute, compute_err_pct;    /* the compute law refitted on every other run */
} wc_ft_level;

typedef struct {
	wc_ft_sweeps sweeps;
	int n_levels;
	wc_ft_level *levels;
	wc_accuracy relation;      /* over the levels: median |error| %, share within 5 %, bias */
	wc_accuracy compute;
	int runs;                  /* usable runs in the table */
} wc_ft_heldout;

/** Level-held-out validation of `t` (runs marked `exclude` take no part).
 *  `per_run` (may be NULL) receives two rows per run of a held-out level,
 *  one per predictor. Caller clears `out`. */
int wc_validate_finetune(const wc_ft_table *t, wc_per_run *per_run, wc_ft_heldout *out,
                         wc_error *err);
void wc_ft_heldout_clear(wc_ft_heldout *r);

/* ----------------------------------------------------- simulation */

typedef struct {
	uint64_t seed;
	double noise;    /* sd of the multiplicative noise on energy per step (0.02) */
} wc_ft_simulate_options;

#define WC_FT_SIMULATE_OPTIONS_INIT { .seed = 42, .noise = 0.02 }

/** A synthetic table from `truth`'s fine-tuning law (its e0 and kappa)
 *  with the design of docs/finetune.md: QLoRA rank 64 on one H200, a
 *  model-size sweep, a sequence-length sweep and a micro-batch sweep, three
 *  repeats each. Draws come from PCG32 stream (seed, 0) in row order: a
 *  seed gives the same table byte for byte. */
int wc_simulate_finetune(const wc_params *truth, const wc_ft_simulate_options *opt,
                         wc_ft_table **out, wc_error *err);
/** The comment block written at the top of a simulated table. */
void wc_simulate_finetune_header(const wc_ft_simulate_options *opt, const wc_params *truth,
                                 char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif

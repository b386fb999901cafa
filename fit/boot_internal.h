/*
 * Private to fit/: the one bootstrap driver (docs/statistics.md,
 * "Bootstrap"). Every bootstrap of fit/ -- the inference law, capacity,
 * the fine-tuning compute law, the power response -- resamples its rows
 * with replacement, refits, and keeps the replicates the acceptance rule
 * keeps. Replicate r draws its resample from PCG32 stream (seed, r) and
 * writes slot r, so the draws are bit-identical for any number of threads.
 *
 * Ownership: the caller owns `draws` and `ok`; the driver owns the
 * per-thread state it makes with state_new and frees with state_free.
 */
#ifndef WC_FIT_BOOT_INTERNAL_H
#define WC_FIT_BOOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "models/error.h"

/** How one replicate's fit ended. The acceptance rule keeps CONVERGED
 *  and STATIONARY (no further progress from the optimum's neighbourhood:
 *  a stationary point) and drops ITER_LIMIT (a fit that ran out of
 *  iterations has not found the optimum of its resample; keeping it
 *  would pull the interval towards the start, the point estimate) and
 *  FAILED (the solver failed, or a value is not finite). */
typedef enum {
	WC__BOOT_CONVERGED = 0,
	WC__BOOT_STATIONARY,
	WC__BOOT_ITER_LIMIT,
	WC__BOOT_FAILED
} wc__boot_outcome;

/** The acceptance rule: 1 when a replicate with this outcome is kept. */
int wc__boot_accepts(wc__boot_outcome o);

/** Map a GSL solver status to an outcome: GSL_SUCCESS, GSL_ENOPROG,
 *  GSL_EMAXITER, anything else FAILED. */
wc__boot_outcome wc__boot_outcome_of_gsl(int gsl_status);

typedef struct {
	const char *what;        /* "bootstrap": names the error messages */
	const char *progress;    /* progress label ("bootstrap draws") */
	int replicates, threads; /* threads <= 0: one */
	uint64_t seed;
	size_t n_rows;           /* rows resampled with replacement */
	/* NULL, or each row's unit in [0, n_units): the units are resampled
	 * and a row takes its unit's count -- a run's `#seg<k>` pieces are
	 * drawn together, as one run (docs/statistics.md, "Bootstrap") */
	const size_t *unit;
	size_t n_units;
	size_t slot;             /* doubles each replicate writes */
	const void *ctx;         /* the problem, shared read-only */
	/* Per-thread state (solver, scratch); NULL means out of memory.
	 * Both may be NULL when the fit needs none. */
	void *(*state_new)(const void *ctx);
	void (*state_free)(void *state);
	/* Refit on multiplicities mult[0..n_rows) (resample counts) into
	 * `slot` doubles at x; say how it ended. */
	wc__boot_outcome (*fit)(const void *ctx, void *state, const double *mult, double *x);
} wc__boot_spec;

/** Run the replicates: draws holds replicates x slot doubles, ok[r] = 1
 *  for the replicates the rule keeps. WC_ENOMEM when a worker ran out of
 *  memory ("<what>: out of memory in a worker"). */
int wc__boot_run(const wc__boot_spec *s, double *draws, unsigned char *ok, wc_error *err);

/** After the run: fewer than 2 kept replicates is WC_ENOCONV ("<what>:
 *  only k of B replicates converged"); otherwise WC_OK, with `msg` the
 *  warning to give when some were left out ("<what>: m of B replicates
 *  <failed> and were left out"), else "". */
int wc__boot_check_kept(const char *what, const char *failed, int n_ok, int B, char *msg, size_t len,
                        wc_error *err);

#endif

/*
 * Power levels of a trace (docs/trace-metrics.md, "Power levels"): the
 * states a trace dwells in -- idle, I/O (a checkpoint save), compute --
 * found by an exact one-dimensional k-means of its values, whose
 * clusters are then merged until every pair of neighbours is well
 * separated. Scratch memory is freed before returning.
 */
#ifndef WC_TRACE_LEVELS_H
#define WC_TRACE_LEVELS_H

#include <stddef.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Clusters of the k-means before merging: idle, I/O and compute, and
 *  room for a compute state spread wide enough to be split. */
#define WC_LEVELS_K 5
/** Neighbouring clusters whose centres lie fewer than this many pooled
 *  within-cluster standard deviations apart are one state. Splitting one
 *  normal or uniform state gives 2.7-3.5; distinct states lie further
 *  apart (docs/trace-metrics.md). */
#define WC_LEVELS_SEPARATION 4.0
/** Histogram bins the k-means runs on (exact for the binning). */
#define WC_LEVELS_BINS 256

typedef struct {
	int n;                          /* states found, 1..WC_LEVELS_K */
	double level[WC_LEVELS_K];      /* their mean power, increasing, W */
	double sd[WC_LEVELS_K];         /* their spread, W */
	double share[WC_LEVELS_K];      /* share of the values in each */
} wc_power_levels;

/** States of the values `x` (n of them: a trace's bin means). A state
 *  holds at least `min_count` values (e.g. 2 s of bins); a smaller
 *  cluster (a ramp between states) joins its nearer neighbour. WC_EINVAL
 *  when n is 0 or a value is not finite. */
int wc_trace_power_levels(const double *x, size_t n, size_t min_count, wc_power_levels *out,
                          wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The prefill activity of a replayed run on the envelope grid
 * (predict/prefill_grid.c; docs/envelopes.md, "Replaying a measured
 * run"): seconds of prefill in each bin, from measured prefill windows
 * where the run's log has them and from the service times' prefill time
 * elsewhere. Used by the response fit's and the envelope validation's
 * replays; the arrays are borrowed.
 */
#ifndef WC_PREDICT_PREFILL_GRID_H
#define WC_PREDICT_PREFILL_GRID_H

#include <stddef.h>

#include "predict/envelope.h"

/** A replay's requests as the grid reads them. */
typedef struct {
	size_t n;                    /* requests */
	const double *lo_s, *hi_s;   /* where each request's prefill lies, s */
	const unsigned char *exact;  /* 1: [lo, hi] is its measured prefill */
	const double *input;         /* input tokens; NaN unknown */
	double mean_input;           /* tokens of a request whose input is unknown (NaN: none) */
} wc_prefill_requests;

/** Seconds of prefill in each of the `n_grid` bins of `dt` seconds into
 *  `out`: a measured window's own length where it is exact, else the
 *  prefill time of `st` spread over the window it happened in; a bin holds
 *  at most `dt`. */
void wc_prefill_grid(const wc_prefill_requests *rq, const wc_service_times *st, double dt, size_t n_grid,
                     double *out);

#endif

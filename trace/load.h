/*
 * Load over time: how many requests run (or await their first token) at
 * each point of a regular grid, from per-request intervals. No
 * allocation; the caller owns every array.
 */
#ifndef WC_TRACE_LOAD_H
#define WC_TRACE_LOAD_H

#include <stddef.h>

#include "data/request_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Count the intervals [start[i], end[i]) covering each grid point
 *  g0 + k*dt, k < n, into out[k] (difference array; O(intervals + n)).
 *  Intervals with a NaN end are skipped. */
void wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0,
                              double dt, size_t n, double *out);

/** n(t) of a request log on a grid: out[k] = requests with
 *  arrival <= t0 + k*dt < completion. */
void wc_trace_running_from_requests(const wc_request_log *log, double t0, double dt, size_t n,
                                    double *out);

#ifdef __cplusplus
}
#endif
#endif

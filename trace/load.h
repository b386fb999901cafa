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

/** The last time request i of `log` is known to run: its completion,
 *  else (unknown: a mean inter-token latency with no output count,
 *  docs/formats/telemetry.md "Missing token counts") its first token.
 *  What places a request in a window and in n(t), so such a request is
 *  counted once, as the requests.csv twin with a blank count is. */
double wc_trace_request_end(const wc_request_log *log, size_t i);

/** n(t) of a request log on a grid: out[k] = requests with
 *  arrival <= t0 + k*dt < wc_trace_request_end. */
void wc_trace_running_from_requests(const wc_request_log *log, double t0, double dt, size_t n,
                                    double *out);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Loaded idle power (P0, measured) of one GPU from its trace
 * (docs/trace-metrics.md, "Idle power"). No allocation.
 */
#ifndef WC_TRACE_IDLE_H
#define WC_TRACE_IDLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An idle window is used when it holds at least this many seconds of
 *  samples; otherwise the lowest quiet stretch of this length is. */
#define WC_IDLE_MIN_S 2.0
#define WC_IDLE_QUIET_S 3.0

/** Loaded idle power of one GPU. `quiet[i]` = 1 when no request runs at
 *  sample i (NULL: unknown, every sample may count). From the window
 *  [win_start, win_end] when it holds WC_IDLE_MIN_S of samples ("window");
 *  else the lowest median over a flat, quiet stretch of WC_IDLE_QUIET_S
 *  ("quiet_stretch"); else of 1 s or the lowest quiet sample
 *  ("quiet_short"); else NaN ("none"). Returns the source name (static). */
const char *wc_trace_idle_power(const double *t, const double *p, size_t n,
                                const unsigned char *quiet, double win_start, double win_end,
                                double *out);

#ifdef __cplusplus
}
#endif
#endif

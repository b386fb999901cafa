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

/** Time, s, that the quiet samples (all when `quiet` is NULL) of a trace
 *  spend within max(5 W, 5 %) of `level`: each such sample counts until
 *  the next one. An idle level the trace holds for less than
 *  WC_IDLE_QUIET_S in all -- one quiet sample inside a busy period -- is
 *  not an idle level (docs/trace-metrics.md, "Idle power"). */
double wc_trace_idle_quiet_time(const double *t, const double *p, size_t n,
                                const unsigned char *quiet, double level);

/** A row whose mean running count is below this is idle: the engine ran
 *  nothing most of its time (half a request), so it is no load to fit.
 *  One rule for Prometheus windows and `ingest --segment` segments, which
 *  are both cuts of time that can fall where nothing ran: such a row is
 *  written with an `exclude` reason starting WC_IDLE_REASON, so that `fit`
 *  and `calibrate` leave it out (docs/fleet.md, "Rows";
 *  docs/formats/telemetry.md, "Load levels and idle windows"). */
#define WC_IDLE_RUNNING 0.5
#define WC_IDLE_REASON "idle: "
/** Is a row at a mean of `running` requests idle (below WC_IDLE_RUNNING)?
 *  Then 1: every energy per unit of work it has is blanked (NaN) -- per
 *  token (*energy_per_token_j), and per request and per iteration where
 *  the row has them (NULL where it does not: a Prometheus window) --
 *  since its power over a little stray work is idle power, not the cost
 *  of a token, a request or an engine step; and its exclude reason
 *  ("idle: 0.06 running requests on average (< 0.5), no load to fit")
 *  written into `exclude` unless the row has one already (a
 *  partial-power window says that). Else 0, all untouched (NaN, an
 *  unknown load, is not idle). */
int wc_trace_idle_row(double running, double *energy_per_token_j, double *energy_per_request_j,
                      double *energy_per_iteration_j, char *exclude, size_t cap);

/** Plausibility band of a measured idle power against the platform's
 *  published one (choice, docs/trace-metrics.md): [0.5, 2.5] times it. */
#define WC_IDLE_PUBLISHED_MIN 0.5
#define WC_IDLE_PUBLISHED_MAX 2.5
/** Without a published idle: at most this share of the power limit. */
#define WC_IDLE_MAX_SHARE_OF_LIMIT 0.5

/** Is an idle estimate `idle_w` of one GPU consistent with its trace? It
 *  must not exceed the trace's 5th percentile `p5_w` (by more than
 *  max(5 W, 3 %)), must lie below the GPU's mean power over the load
 *  windows `load_mean_w`, and must lie in the band above around the
 *  platform's published idle `published_w` (when > 0), else below the
 *  share of its power limit `max_power_w` (when > 0). Returns NULL when it
 *  is consistent, else `reason` filled with why not. */
const char *wc_trace_idle_implausible(double idle_w, double p5_w, double load_mean_w,
                                      double published_w, double max_power_w, char *reason,
                                      size_t cap);

/** What an idle estimate on `platform` is judged against: its published
 *  idle (the built-in `paper` profile's P0 of the level, else 0) and the
 *  catalog's power limit (else 0), per GPU. */
void wc_trace_idle_reference(const char *platform, double *published, double *limit);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Load over time: how many requests run (or await their first token) at
 * each point of a regular grid, from per-request intervals, and a run's
 * n(t), the one rule choosing between its request log and its engine
 * gauge. No allocation; the caller owns every array.
 */
#ifndef WC_TRACE_LOAD_H
#define WC_TRACE_LOAD_H

#include <stddef.h>

#include "data/engine_log.h"
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

/** Request i's output tokens over time (docs/formats/telemetry.md, "What
 *  ingest derives", Tokens): 1 at its first token, then evenly up to its
 *  output length at completion, half a token below that ramp in between
 *  (a count of whole tokens is on average): a jump `jump0` at t0 (the
 *  first token), `slope` tokens/s until t1 (completion), then a jump
 *  `jump1` to the output length. A request generating all its tokens at
 *  once (completion at its first token, or one token) jumps by all of
 *  them at t0. The one curve the request log's tokens in a window and its
 *  alignment on the engine's counter (trace/request_align.h) read. */
typedef struct {
	double t0, t1, jump0, slope, jump1;
} wc_trace_token_ramp;

/** The ramp of request i of `log`; 0 when its first token, completion or
 *  output length is unknown (nothing written), 1 otherwise. */
int wc_trace_token_ramp_of(const wc_request_log *log, size_t i, wc_trace_token_ramp *r);

/** Tokens the ramp `r` has reached by time t (jumps included at their
 *  time). */
double wc_trace_token_ramp_at(const wc_trace_token_ramp *r, double t);

/** 1 when the point in time t belongs to the window [a, b) of a row, b
 *  too when no window after it starts there (`last`: the last segment of
 *  the run's last level, or of a level no other level starts at the end
 *  of; ingest decides it by wc__ingest_end_included): the one rule by
 *  which a request of no duration, a token jump and a completion fall in
 *  exactly one of adjacent windows, segments and levels alike
 *  (docs/formats/telemetry.md, "What ingest derives", Requests). */
int wc_trace_in_window(double t, double a, double b, int last);

/** The share of a lifetime [s, c] (c > s) inside the window [a, b]: 1
 *  wholly inside, the fraction inside when it runs across an end, 0
 *  outside. How a request crossing a window's end counts there, and how
 *  much of a cut load level's stated requests a window holds
 *  (docs/formats/telemetry.md, "What ingest derives", Requests;
 *  docs/envelopes.md, "Replaying a measured run"); NaN when c <= s. */
double wc_trace_lifetime_share(double s, double c, double a, double b);

/** Tokens of the ramp `r` generated in the window [a, b) (b too when
 *  `last`): its rise over the window, each jump counted in the window
 *  its time belongs to by wc_trace_in_window. */
double wc_trace_token_ramp_in(const wc_trace_token_ramp *r, double a, double b, int last);

/** 1 when `log` places every request: arrival and completion known
 *  (not a first token standing for an unknown completion). */
int wc_trace_requests_placed(const wc_request_log *log);

/** What a request log and the engine's generation_tokens_total say over
 *  the counter's span [a, b] (its first and last samples). */
typedef struct {
	double log_tokens;    /* the log's output tokens in [a, b], by each request's ramp */
	double engine_tokens; /* the counter's rise over [a, b] */
	double tolerance;     /* the counter's largest rise between two consecutive samples */
	double a, b;
	double align_rms;     /* the log's placement rms (align_rms_tokens), 0 when not placed */
} wc_trace_log_account;

/** Whether `log` accounts for the engine's work (docs/formats/telemetry.md,
 *  "Request logs", Whole logs): its tokens over the counter's span are
 *  the counter's rise within the most the counter added between two of
 *  its samples (what a sample's timing can shift across either end), and
 *  a log placed by alignment fits the counter within that too. 1 when it
 *  does, 0 when not, -1 when it cannot be told (no counter, fewer than
 *  two samples, a request's output length or times unknown). `acc` (may
 *  be NULL) gets the totals, NaN where unknown. */
int wc_trace_log_accounts(const wc_request_log *log, const wc_engine_log *eng, wc_trace_log_account *acc);

/** A run's n(t) on a grid, out[k] at t0 + k*dt, k < n: ingest's series
 *  and replay's are this one (docs/formats/telemetry.md, "n(t) on the
 *  50 ms grid"). From the request log when it places its requests
 *  (wc_trace_requests_placed) and does not fail wc_trace_log_accounts
 *  (`log_accounts`: that function's verdict on `log` and `eng`, judged
 *  once by the caller -- ingest's run_ctx.log_accounts -- not again here),
 *  held under the engine's num_requests_running where the engine shows
 *  requests waiting (its last sample at or before t); else from the
 *  engine's num_requests_running gauge (a value not yet reported: 0);
 *  else from the request log as it is. Returns "requests" or "engine",
 *  the source used, or NULL (out untouched) when neither is there.
 *  `log` and `eng` may be NULL. */
const char *wc_trace_running_series(const wc_request_log *log, int log_accounts, const wc_engine_log *eng,
                                    double t0, double dt, size_t n, double *out);

#ifdef __cplusplus
}
#endif
#endif

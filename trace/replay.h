/*
 * A measured run as envelopes replay and check it (docs/envelopes.md,
 * "Replaying a measured run"): per load window (as `ingest` cuts rows),
 * the run's own arrivals with their token counts, where each prefill
 * lies, n(t) on the 50 ms grid, the per-GPU power samples and the
 * window's trace metrics. Arrivals come from the request log when the
 * run has one, else from the engine counters.
 *
 * Ownership: wc_trace_replay_load hands over an array of replays, freed
 * with wc_trace_replay_free.
 */
#ifndef WC_TRACE_REPLAY_H
#define WC_TRACE_REPLAY_H

#include <stddef.h>

#include "data/run_manifest.h"
#include "trace/ingest.h"
#include "trace/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	wc_run_manifest m;              /* the run: manifests, then the options' defaults */
	char run_id[128];               /* as `ingest` names the row */
	char dir[1024];                 /* the run folder read */
	double start_epoch, end_epoch;  /* the window */
	int tp;
	double idle_w;                  /* measured loaded idle per GPU (mean of the GPUs); NaN none */
	wc_trace_metrics metrics;       /* of the group trace over the window, as `ingest` gives them */
	double sample_s;                /* median interval between power samples */
	size_t n_power;
	double *power_t, *power_w;      /* samples in the window: s from its start, W per GPU (mean) */
	size_t n_grid;                  /* 50 ms bins over the window */
	double *running;                /* n(t) at each bin's start, held over the bin */
	const char *n_source;           /* "requests" or "engine" */
	size_t n_arrivals;
	double *arrival_s;              /* s from the window start, non-decreasing; negative for
	                                 * requests sent before the window and still running at its start */
	double *input, *output;         /* tokens; NaN unknown */
	double *prefill_lo_s, *prefill_hi_s; /* where each request's prefill lies */
	unsigned char *prefill_exact;   /* 1: [lo, hi] is its prefill (arrival to first token);
	                                 * 0: the prefill lies somewhere in [lo, hi] */
	const char *arrival_source;     /* "requests", "engine_prompt_tokens", "engine_running" */
	double mean_input;              /* tokens per request used for counter arrivals (NaN: none) */
} wc_trace_replay;

/** Load a run folder as `ingest` reads it (same options, same refusals)
 *  and build one replay per load window. The manifest's completed
 *  requests and token totals are read as `ingest` reads them
 *  (wc__ingest_stated_of). Arrivals from engine counters:
 *  the cumulative prompt tokens divided by the mean prompt length (on a
 *  whole load level that states its completed requests, the engine's
 *  prompt tokens over them, so that count is the arrivals'; on a cut one
 *  the level's stated input tokens per request; else the median prompt of
 *  counter intervals where the engine went from empty to one request)
 *  give the number of arrivals; each counter interval gets the increase
 *  of running + waiting (at least one when it has new prompt tokens), and
 *  the arrivals that leaves out go to the intervals in proportion to the
 *  prompt tokens their own count leaves unexplained. Arrivals are spread
 *  evenly over their interval, each with its interval's share of the
 *  prompt tokens and the window's mean output length (whole tokens rounded
 *  cumulatively, so they add up to the mean times the arrivals); without a mean
 *  prompt length, the increases of running + waiting alone. Without
 *  prompt tokens (TGI's counters): a whole level's stated count, the
 *  arrivals the gauge leaves out given to the intervals in proportion to
 *  the requests in the engine at their start times their span, each with
 *  the stated input tokens per request; a cut level, its stated count
 *  times the share of its stated span inside the window
 *  (wc_trace_lifetime_share; the gauge's count at least, said in a
 *  warning); else (a run without levels cut short) the gauge's count,
 *  each with the stated input tokens per request when known. */
int wc_trace_replay_load(const char *run_dir, const wc_ingest_options *opt, wc_trace_replay **out,
                         size_t *n_out, wc_error *err);
void wc_trace_replay_free(wc_trace_replay *r, size_t n);

#ifdef __cplusplus
}
#endif
#endif

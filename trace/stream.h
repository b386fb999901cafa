/*
 * Bounded streaming metrics (`wattcast metrics` on a log of any size):
 * samples are pushed one by one; memory stays fixed beyond
 * WC_TRACE_STREAM_EXACT_MAX samples (docs/trace-metrics.md). An
 * accumulator from wc_trace_stream_new is freed with wc_trace_stream_free.
 */
#ifndef WC_TRACE_STREAM_H
#define WC_TRACE_STREAM_H

#include <stddef.h>

#include "trace/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Samples kept for exact metrics; beyond, a trace switches to bounded
 *  mode (see wc_trace_stream_finish). */
#define WC_TRACE_STREAM_EXACT_MAX ((size_t)1 << 18)
/** 1-s means kept for the spectrum in bounded mode; beyond, neighbouring
 *  bins merge pairwise (2 s, 4 s, ...). */
#define WC_TRACE_STREAM_BINS_MAX ((size_t)1 << 17)

typedef struct wc_trace_stream wc_trace_stream;

/** New accumulator keeping at most `exact_max` samples (0 = the default).
 *  Caller frees with wc_trace_stream_free. NULL when out of memory. */
wc_trace_stream *wc_trace_stream_new(size_t exact_max);
/** Add a sample (t non-decreasing, finite). */
int wc_trace_stream_push(wc_trace_stream *s, double t, double p, wc_error *err);
/** Leave exact mode now instead of at sample `exact_max` + 1, when the
 *  caller expects the trace to run past `exact_max` (a regular file's
 *  size extrapolated from what has been read): the samples are then never
 *  stored, which is most of the time of a long log. Finishing gives the
 *  same bounded metrics, to the bit, as a stream that switched by itself
 *  (docs/trace-metrics.md, "Long logs: bounded mode of `wattcast metrics`"). WC_OK or WC_ENOMEM. */
int wc_trace_stream_bound(wc_trace_stream *s, wc_error *err);
/** 1 when wc_trace_stream_bound was called but the trace ended with at
 *  most `exact_max` samples: its metrics would not be the exact ones a
 *  stream left alone gives, and the caller must push the trace again into
 *  a new stream without bounding it. */
int wc_trace_stream_bound_too_early(const wc_trace_stream *s);
/** Whether a reader should bound its streams now: 1 only at sample
 *  WC_TRACE_STREAM_EARLY_LOOK of a file of `file_bytes` (<= 0: not a
 *  regular file, never) when the bytes per sample read so far promise at
 *  least WC_TRACE_STREAM_EARLY_MARGIN x the exact limit. A wrong guess
 *  costs the caller a second read (wc_trace_stream_bound_too_early); a right
 *  one skips storing every trace's first exact-limit samples. */
#define WC_TRACE_STREAM_EARLY_LOOK 16384
#define WC_TRACE_STREAM_EARLY_MARGIN 1.25
int wc_trace_stream_bound_early(size_t samples, size_t bytes_read, double file_bytes);
/** Metrics of everything pushed. Up to `exact_max` samples they equal
 *  wc_trace_metrics_compute (`*exact` = 1). Beyond (`*exact` = 0), memory
 *  stays fixed (about 2 MB a trace): duration, energy, mean, max and the
 *  mean ramp stay exact; p5/p50/p95 and the ramp p95 come from a
 *  log-bucket histogram (relative error below 1.3e-4); the spectral
 *  entropy and period are taken on the 1-s means (merged as they grow),
 *  so their grid is 1 s or coarser. */
int wc_trace_stream_finish(wc_trace_stream *s, wc_trace_metrics *out, int *exact,
                           wc_error *err);
void wc_trace_stream_free(wc_trace_stream *s);

#ifdef __cplusplus
}
#endif
#endif

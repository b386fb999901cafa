/*
 * The metrics of a whole nvidia-smi power log, streamed (`wattcast
 * metrics`, bench/bench_ingest.c): per GPU and for the group (the
 * per-sample sum), each through a bounded wc_trace_stream (trace/stream.h),
 * so a log of any size fits in the same memory (docs/trace-metrics.md).
 *
 * Threading (docs/results.md, "Telemetry reading"): the calling thread
 * reads and parses (data/nvsmi.h, which may read the file ahead on a
 * thread of its own); the samples travel in blocks of a fixed count to one
 * metrics thread, which pushes them into the traces in file order, so the
 * result is the one a single thread gives, to the bit. The traces are then
 * finished two at a time, each on its own. Every thread is joined before
 * wc_trace_log_measure returns; nothing is shared with the caller.
 *
 * Ownership: the caller owns `out`; the function allocates and frees
 * everything else. Errors: a WC_* code with `err` set (the reader's
 * "file:line: ..." message, or out of memory).
 */
#ifndef WC_TRACE_STREAM_LOG_H
#define WC_TRACE_STREAM_LOG_H

#include "data/nvsmi.h"
#include "trace/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a log measured. */
typedef struct {
	wc_nvsmi_info info;                          /* the (last) read's facts */
	wc_trace_metrics gpu[WC_TELEMETRY_MAX_GPUS]; /* info.n_gpus of them */
	wc_trace_metrics group;                      /* the per-sample sum */
	int n_gpus;
	int exact;  /* 1: exact metrics; 0: bounded mode (a long log) */
	int reads;  /* 1, or 2 when the file broke the size's promise (below) */
} wc_trace_log_metrics;

/** Read the log at `path` ("-" = stdin; `opt` as for wc_nvsmi_read, NULL =
 *  defaults) and compute its metrics into `out`. A regular file's size
 *  lets every trace leave exact mode early (wc_trace_stream_bound_early);
 *  when the file turns out to hold fewer samples than it promised, it is
 *  read a second time without that, its warnings not repeated. */
int wc_trace_log_measure(const char *path, const wc_telemetry_options *opt,
                         wc_trace_log_metrics *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

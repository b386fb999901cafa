/*
 * trace/ -- computation over measured traces (docs/trace-metrics.md):
 *   trace/metrics.h  grid-facing metrics of a power trace, and their columns
 *   trace/stream.h   the same in fixed memory for logs of any size
 *   trace/stream_log.h   a whole nvidia-smi log through the streams, on threads
 *   trace/idle.h     loaded idle power from a trace
 *   trace/levels.h   the power states of a trace (idle, I/O, compute)
 *   trace/load.h     n(t) and phase occupancy from per-request intervals
 *   trace/ingest.h   run folders -> runs-table rows (`wattcast ingest`)
 *   trace/finetune_trace.h energy per optimizer step of fine-tuning traces, their ingest
 *   trace/replay.h   a run's own arrivals, n(t) and power, for envelopes
 * trace/ reads files only through data/ and writes them only through it.
 */
#ifndef WC_TRACE_H
#define WC_TRACE_H

#include "trace/finetune_trace.h"
#include "trace/idle.h"
#include "trace/ingest.h"
#include "trace/levels.h"
#include "trace/load.h"
#include "trace/metrics.h"
#include "trace/replay.h"
#include "trace/stream.h"
#include "trace/stream_log.h"

#endif

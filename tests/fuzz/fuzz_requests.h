/*
 * Per-request logs (data/request_log.c), JSON or CSV by the file name:
 * every request kept completes no earlier than it arrives, and n(t) on a
 * small grid over them (trace/load.c) is well defined. JSON goes to the
 * in-memory entry (wc_request_log_read_json_buffer, what
 * wc_request_log_read calls once it has read the file); CSV is read from
 * a file, through the line reader as `wattcast ingest` reads it.
 */
#ifndef WC_FUZZ_REQUESTS_H
#define WC_FUZZ_REQUESTS_H

#include "data/data.h"
#include "trace/trace.h"
#include "tests/fuzz/fuzz_common.h"

#include <math.h>

static inline int
fuzz_requests(const char *name, const uint8_t *data, size_t size)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_request_log *log = NULL;
	wc_error err;
	double grid[256];
	size_t nlen = strlen(name);
	int json = nlen >= 5 && strcmp(name + nlen - 5, ".json") == 0;
	opt.max_warnings = 0;
	if ((json ? wc_request_log_read_json_buffer((const char *)data, size, name, &opt, &log, &err)
	          : wc_request_log_read(fuzz_file(name, data, size), &opt, &log, &err)) != WC_OK) {
		FUZZ_ONE_LINE(err.msg);
		return 0;
	}
	FUZZ_PARSED();
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < log->n; i++) {
		FUZZ_ASSERT(isfinite(log->arrival[i]) && !(log->completion[i] < log->arrival[i]));
		lo = fmin(lo, log->arrival[i]);
		hi = fmax(hi, log->completion[i]);
	}
	if (log->n > 0 && isfinite(hi - lo) && hi > lo)
		wc_trace_running_from_requests(log, lo, (hi - lo) / 255.0, 256, grid);
	wc_request_log_free(log);
	return 0;
}

#endif

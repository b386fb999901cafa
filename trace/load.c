/*
 * Load over time from per-request intervals (docs/trace-metrics.md):
 * n(t) from a request log, and the occupancy counts the phase split uses.
 */
#include "trace/load.h"

#include <math.h>
#include <string.h>

void
wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0,
                         double dt, size_t n, double *out)
{
	memset(out, 0, n * sizeof *out);
	if (n == 0 || !(dt > 0))
		return;
	/* Difference array: +1 at the first grid point at or after the start,
	 * -1 at the first one at or after the end; then a running sum. */
	for (size_t i = 0; i < count; i++) {
		if (isnan(start[i]) || isnan(end[i]))
			continue;
		double lo = ceil((start[i] - g0) / dt), hi = ceil((end[i] - g0) / dt);
		if (lo < 0)
			lo = 0;
		if (hi > (double)n)
			hi = (double)n;
		if (!(hi > lo))
			continue;
		out[(size_t)lo] += 1.0;
		if ((size_t)hi < n)
			out[(size_t)hi] -= 1.0;
	}
	double run = 0.0;
	for (size_t k = 0; k < n; k++) {
		run += out[k];
		out[k] = run;
	}
}

void
wc_trace_running_from_requests(const wc_request_log *log, double t0, double dt, size_t n,
                               double *out)
{
	if (!log) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	wc_trace_interval_counts(log->arrival, log->completion, log->n, t0, dt, n, out);
}

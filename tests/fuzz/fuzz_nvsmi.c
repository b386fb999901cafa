/*
 * nvidia-smi power logs (data/nvsmi_csv.c) and the metrics computed over
 * them (trace/metrics.c, trace/stream.c), as `wattcast metrics` runs
 * them: samples strictly later than the one before and never further
 * than WC_TELEMETRY_MAX_GAP_S, metrics in bounded time and memory (an
 * exact pass, and for some inputs a stream forced into its bounded mode).
 */
#include "data/data.h"
#include "trace/trace.h"
#include "tests/fuzz/fuzz_common.h"

#include <math.h>

static void
metrics_of(const wc_power_trace *pt, size_t exact_max)
{
	wc_trace_stream *s = wc_trace_stream_new(exact_max);
	wc_trace_metrics m;
	wc_error err;
	int exact = 0;
	FUZZ_ASSERT(s != NULL);
	for (size_t i = 0; i < pt->n; i++)
		FUZZ_ASSERT(wc_trace_stream_push(s, pt->t[i], pt->group[i], &err) == WC_OK);
	int rc = wc_trace_stream_finish(s, &m, &exact, &err);
	FUZZ_ASSERT(rc == WC_OK);
	FUZZ_ASSERT(m.samples == pt->n);
	wc_trace_stream_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("power.csv", data, size);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_power_trace *pt = NULL;
	wc_error err;
	opt.max_warnings = 0;
	if (wc_power_trace_read(path, &opt, (size_t)1 << 16, &pt, &err) != WC_OK) {
		FUZZ_ONE_LINE(err.msg);
		return 0;
	}
	FUZZ_PARSED();
	for (size_t i = 0; i < pt->n; i++) {
		FUZZ_ASSERT(isfinite(pt->t[i]) && isfinite(pt->group[i]));
		if (i > 0) {
			FUZZ_ASSERT(pt->t[i] > pt->t[i - 1]);
			FUZZ_ASSERT(pt->t[i] - pt->t[i - 1] <= WC_TELEMETRY_MAX_GAP_S);
		}
	}
	metrics_of(pt, 0);
	/* The bounded mode costs milliseconds whatever the trace (a 2 MB
	 * histogram): every 16th input by length, to keep the search fast. */
	if ((size & 15) == 0)
		metrics_of(pt, 8);
	wc_power_trace_free(pt);
	return 0;
}

/*
 * Which requests a row of `wattcast ingest` can see. A row's counts,
 * latencies, tokens and phase split read only requests whose times lie
 * in or next to its window; a segment visiting every request of the run
 * made `--segment 1` cost segments x requests (a three-hour run: 10,800
 * segments x 5,398 requests). Each segment gets the requests that can
 * touch it, in log order, so every sum adds what it added before in the
 * same order (docs/formats/telemetry.md, "What ingest derives").
 */
#include "ingest_internal.h"
#include "models/grow.h"
#include "trace/load.h"

#include <math.h>
#include <stdlib.h>

/* How far outside its window a request's times may lie and still touch
 * a row: the phase split counts at cell midpoints, up to half a 50 ms
 * cell past the row's end; a second covers that and any rounding of the
 * segment bounds with room to spare. */
#define NEAR_S 1.0

void
wc__ingest_reqs_all(const run_ctx *rc, wc__ingest_reqs *out)
{
	const wc_request_log *log = rc->req;
	out->idx = NULL;
	out->n = log ? log->n : 0;
	out->tokens_from_log = wc__ingest_tokens_from_log(rc);
	out->times_whole = log != NULL;
	out->placed = wc_trace_requests_placed(log);
	for (size_t i = 0; log && i < log->n; i++)
		if (isnan(log->first_token[i]) || isnan(log->completion[i]))
			out->times_whole = 0;
}

/* The span of request i's known times, or 0 when one of its times cannot
 * place it: an end unknown (a row counts such a request wherever it is)
 * or an infinite time or output length (it reaches every row). */
static int
req_span(const wc_request_log *log, size_t i, double *lo, double *hi)
{
	const double v[3] = { log->arrival[i], log->first_token[i], log->completion[i] };
	if (isnan(wc_trace_request_end(log, i)) || isinf(log->output_tokens[i]))
		return 0;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int k = 0; k < 3; k++) {
		if (isinf(v[k]))
			return 0;
		if (!isnan(v[k])) {
			*lo = fmin(*lo, v[k]);
			*hi = fmax(*hi, v[k]);
		}
	}
	return 1;
}

/* The segment holding time t, the first or last one beyond the ends. */
static size_t
seg_of(double t, double a0, double seg, size_t nseg)
{
	double q = floor((t - a0) / seg);
	if (!(q > 0))
		return 0;
	return q >= (double)(nseg - 1) ? nseg - 1 : (size_t)q;
}

/* Segments s0..s1 request i can touch; 0 when none. */
static int
req_segments(const wc_request_log *log, size_t i, double a0, double b0, double seg, size_t nseg, size_t *s0,
             size_t *s1)
{
	double lo, hi;
	if (!req_span(log, i, &lo, &hi)) {
		*s0 = 0;
		*s1 = nseg - 1;
		return 1;
	}
	if (hi + NEAR_S < a0 || lo - NEAR_S > b0)
		return 0;
	*s0 = seg_of(lo - NEAR_S, a0, seg, nseg);
	*s1 = seg_of(hi + NEAR_S, a0, seg, nseg);
	return 1;
}

int
wc__ingest_seg_reqs_build(const run_ctx *rc, double a0, double b0, double seg, size_t nseg,
                          wc__ingest_seg_reqs *x)
{
	const wc_request_log *log = rc->req;
	size_t s0, s1, total = 0;
	x->idx = NULL;
	x->nseg = nseg;
	wc__ingest_reqs_all(rc, &x->all);
	if (!(x->first = wc_alloc_zeroed(nseg + 1, sizeof *x->first)))
		return -1;
	/* Count each segment's requests, then place them in log order. */
	for (size_t i = 0; log && i < log->n; i++) {
		if (!req_segments(log, i, a0, b0, seg, nseg, &s0, &s1))
			continue;
		for (size_t s = s0; s <= s1; s++)
			x->first[s + 1]++;
	}
	for (size_t s = 0; s < nseg; s++)
		x->first[s + 1] += x->first[s];
	total = x->first[nseg];
	size_t *fill = wc_alloc_array(nseg, sizeof *fill);
	if (!fill || !(x->idx = wc_alloc_array(total ? total : 1, sizeof *x->idx))) {
		free(fill);
		wc__ingest_seg_reqs_free(x);
		return -1;
	}
	for (size_t s = 0; s < nseg; s++)
		fill[s] = x->first[s];
	for (size_t i = 0; log && i < log->n; i++) {
		if (!req_segments(log, i, a0, b0, seg, nseg, &s0, &s1))
			continue;
		for (size_t s = s0; s <= s1; s++)
			x->idx[fill[s]++] = i;
	}
	free(fill);
	return 0;
}

void
wc__ingest_seg_reqs_of(const wc__ingest_seg_reqs *x, size_t s, wc__ingest_reqs *out)
{
	*out = x->all;
	out->idx = x->idx + x->first[s];
	out->n = x->first[s + 1] - x->first[s];
}

void
wc__ingest_seg_reqs_free(wc__ingest_seg_reqs *x)
{
	free(x->idx);
	free(x->first);
	x->idx = x->first = NULL;
}

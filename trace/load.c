/*
 * Load over time from per-request intervals (docs/trace-metrics.md):
 * n(t) from a request log, and the occupancy counts the phase split uses.
 */
#include "trace/load.h"

#include <math.h>
#include <string.h>

/* Add [s, e) to the difference array: +1 at the first grid point at or
 * after the start, -1 at the first one at or after the end. */
static void
add_interval(double s, double e, double g0, double dt, size_t n, double *out)
{
	if (isnan(s) || isnan(e))
		return;
	double lo = ceil((s - g0) / dt), hi = ceil((e - g0) / dt);
	if (lo < 0)
		lo = 0;
	if (hi > (double)n)
		hi = (double)n;
	if (!(hi > lo))
		return;
	out[(size_t)lo] += 1.0;
	if ((size_t)hi < n)
		out[(size_t)hi] -= 1.0;
}

static void
running_sum(size_t n, double *out)
{
	double run = 0.0;
	for (size_t k = 0; k < n; k++) {
		run += out[k];
		out[k] = run;
	}
}

void
wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0,
                         double dt, size_t n, double *out)
{
	memset(out, 0, n * sizeof *out);
	if (n == 0 || !(dt > 0))
		return;
	for (size_t i = 0; i < count; i++)
		add_interval(start[i], end[i], g0, dt, n, out);
	running_sum(n, out);
}

double
wc_trace_request_end(const wc_request_log *log, size_t i)
{
	return isfinite(log->completion[i]) ? log->completion[i] : log->first_token[i];
}

void
wc_trace_running_from_requests(const wc_request_log *log, double t0, double dt, size_t n,
                               double *out)
{
	memset(out, 0, n * sizeof *out);
	if (!log || n == 0 || !(dt > 0))
		return;
	for (size_t i = 0; i < log->n; i++)
		add_interval(log->arrival[i], wc_trace_request_end(log, i), t0, dt, n, out);
	running_sum(n, out);
}

int
wc_trace_token_ramp_of(const wc_request_log *log, size_t i, wc_trace_token_ramp *r)
{
	double f = log->first_token[i], c = log->completion[i], out = log->output_tokens[i];
	if (!isfinite(f) || !isfinite(c) || !(out >= 0.0))
		return 0;
	if (c > f && out > 1.0) {
		/* Tokens come one at a time: between the first and the last the
		 * count is on average half a token below the ramp from 1 to out. */
		*r = (wc_trace_token_ramp){ f, c, 0.5, (out - 1.0) / (c - f), 0.5 };
	} else {
		*r = (wc_trace_token_ramp){ f, f, out, 0.0, 0.0 };
	}
	return 1;
}

double
wc_trace_token_ramp_at(const wc_trace_token_ramp *r, double t)
{
	if (t < r->t0)
		return 0.0;
	if (t >= r->t1)
		return r->jump0 + r->slope * (r->t1 - r->t0) + r->jump1;
	return r->jump0 + r->slope * (t - r->t0);
}

int
wc_trace_in_window(double t, double a, double b, int last)
{
	return t >= a && (t < b || (last && t == b));
}

double
wc_trace_lifetime_share(double s, double c, double a, double b)
{
	if (!(c > s))
		return NAN;
	double lo = fmax(s, a), hi = fmin(c, b);
	return hi > lo ? (hi - lo) / (c - s) : 0.0;
}

double
wc_trace_token_ramp_in(const wc_trace_token_ramp *r, double a, double b, int last)
{
	double lo = fmax(a, r->t0), hi = fmin(b, r->t1);
	return r->jump0 * wc_trace_in_window(r->t0, a, b, last) + (hi > lo ? r->slope * (hi - lo) : 0.0) +
	       r->jump1 * wc_trace_in_window(r->t1, a, b, last);
}

int
wc_trace_requests_placed(const wc_request_log *log)
{
	if (!log || log->n == 0)
		return 0;
	for (size_t i = 0; i < log->n; i++)
		if (!isfinite(log->arrival[i]) || !isfinite(log->completion[i]))
			return 0;
	return 1;
}

int
wc_trace_log_accounts(const wc_request_log *log, const wc_engine_log *eng, wc_trace_log_account *acc)
{
	const double *gen = wc_engine_live(eng, WC_ENG_GENERATION_TOKENS);
	wc_trace_log_account z = { NAN, NAN, NAN, NAN, NAN, 0.0 };
	size_t first = 0, last = 0, seen = 0;
	wc_trace_token_ramp r;
	if (acc)
		*acc = z;
	if (!log || log->n == 0 || !gen)
		return -1;
	for (size_t i = 0; i < eng->n; i++) {
		if (!isfinite(gen[i]))
			continue;
		if (seen++ == 0)
			first = i;
		else
			z.tolerance = fmax(isnan(z.tolerance) ? 0.0 : z.tolerance, fabs(gen[i] - gen[last]));
		last = i;
	}
	if (seen < 2)
		return -1;
	z.a = eng->t[first];
	z.b = eng->t[last];
	z.engine_tokens = gen[last] - gen[first];
	z.log_tokens = 0.0;
	for (size_t i = 0; i < log->n; i++) {
		if (!wc_trace_token_ramp_of(log, i, &r))
			return -1; /* an output length unknown: nothing to compare */
		z.log_tokens += wc_trace_token_ramp_at(&r, z.b) - wc_trace_token_ramp_at(&r, z.a);
	}
	z.align_rms = log->align_rms_tokens;
	if (acc)
		*acc = z;
	return fabs(z.log_tokens - z.engine_tokens) <= z.tolerance && !(z.align_rms > z.tolerance);
}

/* Where the engine shows requests waiting (its gauges held from the last
 * sample at or before t, wc_engine_value_at), it runs no more than its
 * num_requests_running then: a request log's arrival <= t < completion
 * counts the queued ones as running. A queue shows the engine at a limit
 * of that moment (max_num_seqs, or the KV blocks free then, which vary
 * with the requests' lengths), not a run-wide one, so the cap holds only
 * there; with nothing waiting the log's count stands (a gauge sampled
 * every quarter second misses short overlaps; docs/formats/telemetry.md,
 * "n(t) on the 50 ms grid"). */
static void
cap_where_queued(const wc_engine_log *eng, double t0, double dt, size_t n, double *out)
{
	if (!eng || !eng->col[WC_ENG_RUNNING] || !eng->col[WC_ENG_WAITING])
		return;
	for (size_t k = 0; k < n; k++) {
		double t = t0 + (double)k * dt;
		double run = wc_engine_value_at(eng, WC_ENG_RUNNING, t), wait = wc_engine_value_at(eng, WC_ENG_WAITING, t);
		if (wait > 0 && isfinite(run))
			out[k] = fmin(out[k], run);
	}
}

const char *
wc_trace_running_series(const wc_request_log *log, int log_accounts, const wc_engine_log *eng, double t0,
                        double dt, size_t n, double *out)
{
	const int gauge = eng && eng->col[WC_ENG_RUNNING];
	/* The request log knows when each request ran; the engine gauge is
	 * sampled (every 0.26 s on the PowerTrace runs) and lags by up to a
	 * sample, so a long prefill reads as nothing running.
	 * A log that leaves out work the engine did is no whole account of
	 * the load (wc_trace_log_accounts, the caller's one verdict): the
	 * gauge then. */
	if ((wc_trace_requests_placed(log) && log_accounts != 0) || (log && !gauge)) {
		wc_trace_running_from_requests(log, t0, dt, n, out);
		cap_where_queued(eng, t0, dt, n, out);
		return "requests";
	}
	if (!gauge)
		return NULL;
	/* Before the gauge's first value it is unknown, not 0 (a series not
	 * exported yet): it is read as before the log's first sample, its
	 * first value held back, and a row is cut to start at that value when
	 * more than the engine log's tolerance lies before it
	 * (docs/formats/telemetry.md, "n(t) on the 50 ms grid"). Read as 0,
	 * 30 s of load unreported read 6.79 running for 8.07. */
	size_t first = wc_engine_first_row(eng, WC_ENG_RUNNING);
	double before = first < eng->n ? eng->col[WC_ENG_RUNNING][first] : 0.0;
	for (size_t k = 0; k < n; k++) {
		double v = wc_engine_value_at(eng, WC_ENG_RUNNING, t0 + (double)k * dt);
		out[k] = isfinite(v) ? v : before;
	}
	return "engine";
}

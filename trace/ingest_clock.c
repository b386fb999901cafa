/*
 * `wattcast ingest`: does the UTC offset put the power log where the
 * engine's activity says it belongs? A power log read with an offset a
 * little off (30 s) still overlaps the engine log, so the clock check
 * passes, but every window is cut at the wrong place: a smoke test's row
 * lost a third of its length and 16 % of its mean power without a word.
 * The engine's running count is matched against the power trace over a
 * range of shifts; when the best match lies more than a few sampling
 * intervals from the offset used, a warning names both
 * (docs/formats/telemetry.md, "Clocks and UTC offsets").
 */
#include "ingest_internal.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/grow.h"
#include "models/stats.h"

/* Shifts tried, each way, s: errors beyond this are time-zone slips,
 * which the overlap check and the quarter-hour suggestion catch. */
#define CLOCK_MAX_SHIFT_S 300.0
/* Grid points at most (the step grows for long logs). */
#define CLOCK_MAX_POINTS 20000
/* A shift is reported when it is this many sampling intervals (and at
 * least CLOCK_MIN_SHIFT_S: power follows the load within about a second)
 * from the offset used, its match is good (correlation at least
 * CLOCK_MIN_R) and clearly better than the offset used's. */
#define CLOCK_INTERVALS 3.0
#define CLOCK_MIN_SHIFT_S 2.0
#define CLOCK_MIN_R 0.6
#define CLOCK_MIN_GAIN 0.2

static double
median_gap(const double *t, size_t n)
{
	if (n < 2)
		return NAN;
	double *g = wc_alloc_array(n - 1, sizeof *g);
	if (!g)
		return NAN;
	for (size_t i = 0; i + 1 < n; i++)
		g[i] = t[i + 1] - t[i];
	double m = wc_stats_median(g, n - 1);
	free(g);
	return m;
}

/* Group power at t: the last sample at or before it. */
static double
power_at(const wc_power_trace *pt, double t, size_t *i)
{
	while (*i + 1 < pt->n && pt->t[*i + 1] <= t)
		(*i)++;
	return pt->group[*i];
}

/* Pearson correlation of x[0..n) and y[0..n) (GSL's, which updates the
 * means as it goes rather than subtracting sums of squares); NaN when
 * either is flat, where GSL divides 0 by 0. The pairs whose y is unknown
 * (NaN: before the gauge's first value) are left out, through the n-long
 * buffers bx and by; every pair is kept where all are known. */
static double
correlation(const double *x, const double *y, size_t n, double *bx, double *by)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(y[i])) {
			bx[k] = x[i];
			by[k++] = y[i];
		}
	if (k < 16)
		return NAN;
	double r = gsl_stats_correlation(bx, 1, by, 1, k);
	return isfinite(r) ? r : NAN;
}

void
wc__ingest_check_offset(const run_ctx *rc, const wc_ingest_options *opt)
{
	if (!opt->warn || !rc->eng || !rc->eng->col[WC_ENG_RUNNING] || rc->pt->info.utc_stamps ||
	    isnan(rc->m.utc_offset_s) || rc->pt->n < 8 || rc->eng->n < 8)
		return;
	double gp = median_gap(rc->pt->t, rc->pt->n), ge = median_gap(rc->eng->t, rc->eng->n);
	if (!(gp > 0) || !(ge > 0))
		return;
	/* The power log's span, on a grid; the engine's count at each point
	 * shifted by s (engine time = power time - s), up to half the span
	 * each way: a third named a 30 s slip in a 75 s log as that edge,
	 * +24.8 s, and a user who set it still had every window cut by 5 s. */
	double a = rc->t0, b = rc->t1, span = b - a;
	double dt = fmax(fmin(gp, ge), span / CLOCK_MAX_POINTS);
	double reach = fmin(CLOCK_MAX_SHIFT_S, span / 2.0);
	size_t n = (size_t)floor(span / dt) + 1, m = (size_t)floor(reach / dt);
	if (n < 16 || m == 0)
		return;
	double *p = wc_alloc_array(n, sizeof *p), *e = wc_alloc_array(n + 2 * m, sizeof *e);
	double *r = wc_alloc_array(2 * m + 1, sizeof *r);
	double *bx = wc_alloc_array(n, sizeof *bx), *by = wc_alloc_array(n, sizeof *by);
	if (!p || !e || !r || !bx || !by)
		goto done;
	size_t pi = 0;
	for (size_t k = 0; k < n; k++)
		p[k] = power_at(rc->pt, a + (double)k * dt, &pi);
	/* e[j] = running at a + (j - m) dt: shift s = (m - lag index) dt */
	for (size_t j = 0; j < n + 2 * m; j++) {
		/* NaN before the gauge's first value: unknown, left out of the
		 * pairs; read as 0, a blank head of 30 s under load could match
		 * the power some seconds off (docs/formats/telemetry.md,
		 * "Missing cells") */
		e[j] = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, a + ((double)j - (double)m) * dt);
	}
	/* power at a + k dt against the engine at a + k dt + (l - m) dt */
	for (size_t l = 0; l <= 2 * m; l++)
		r[l] = correlation(p, e + l, n, bx, by);
	size_t lb = m;
	for (size_t l = 0; l <= 2 * m; l++)
		if (r[l] > r[lb] || !(r[lb] == r[lb]))
			lb = l;
	double best = r[lb], r0 = r[m], best_s = ((double)m - (double)lb) * dt;
	int edge = lb == 0 || lb == 2 * m;
	/* Between grid points: the parabola through the best and its two
	 * neighbours, so the shift is named to within a sampling interval. */
	if (!edge && isfinite(r[lb - 1]) && isfinite(r[lb + 1])) {
		double den = r[lb - 1] - 2.0 * r[lb] + r[lb + 1];
		if (den < 0)
			best_s -= 0.5 * (r[lb - 1] - r[lb + 1]) / den * dt;
	}
	if (isfinite(r0) && best >= CLOCK_MIN_R && best - r0 >= CLOCK_MIN_GAIN &&
	    fabs(best_s) > fmax(CLOCK_INTERVALS * fmax(gp, ge), CLOCK_MIN_SHIFT_S)) {
		char msg[WC_ERROR_MSG_MAX], whose[WC__REPLICA_WHOSE]; /* a replica's engine and GPUs */
		wc_error_format_path(msg, sizeof msg, rc->dir, ":%s the engine's activity matches the power trace %s UTC "
		                     "offset %.0f s, not at the %.0f s used (%s%+.1f s; correlation %.2f against %.2f); "
		                     "check the offset", wc__ingest_replica_whose(rc, whose, sizeof whose),
		                     edge ? "best at the search's edge, " : "at", rc->m.utc_offset_s + best_s,
		                     rc->m.utc_offset_s, edge ? "at least " : "", best_s, best, r0);
		opt->warn(msg, opt->warn_payload);
	}
done:
	free(p);
	free(e);
	free(r);
	free(bx);
	free(by);
}

double
wc__ingest_suggest_offset(double used_offset_s, double power_t0, double other_t0)
{
	return used_offset_s + round((power_t0 - other_t0) / 900.0) * 900.0;
}

const char *
wc__ingest_offset_hint(const run_ctx *rc, const wc_ingest_options *opt, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (!rc->engine_path[0])
		return buf;
	const char *uuids[WC_TELEMETRY_MAX_GPUS];
	wc_telemetry_options t = wc__ingest_power_options(rc, opt, uuids);
	t.warn = NULL; /* the logs' warnings are said when the run is ingested */
	wc_power_trace *pt = rc->pt;
	wc_engine_log *eng = rc->eng;
	wc_error err;
	if (!pt && wc_power_trace_read(rc->power_path, &t, opt->max_samples, &pt, &err) != WC_OK)
		pt = NULL;
	if (pt && !eng) {
		t = wc__ingest_reader_options(opt);
		t.warn = NULL;
		t.epoch_offset_s = rc->m.engine_epoch_offset_s;
		if (wc_engine_read(rc->engine_path, &t, 0, &eng, &err) != WC_OK)
			eng = NULL;
	}
	/* zoned power times need no offset (docs/formats/telemetry.md,
	 * "Timestamps"): nothing to suggest */
	if (pt && eng && pt->n > 0 && eng->n > 0 && !pt->info.utc_stamps)
		snprintf(buf, cap, " (the engine clock suggests %.0f)",
		         wc__ingest_suggest_offset(isnan(rc->m.utc_offset_s) ? 0.0 : rc->m.utc_offset_s, pt->t[0],
		                                   eng->t[0]));
	if (pt != rc->pt)
		wc_power_trace_free(pt);
	if (eng != rc->eng)
		wc_engine_free(eng);
	return buf;
}

/*
 * Grid-facing metrics of a power trace (docs/trace-metrics.md): energy,
 * mean, power percentiles, ramp rates on 1-s means, spectral entropy and
 * the dominant period. Pure functions; scratch memory is freed before
 * returning.
 */
#ifndef WC_TRACE_METRICS_H
#define WC_TRACE_METRICS_H

#include <stddef.h>

#include "models/error.h"
#include "models/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Grid-facing metrics of one power trace (one GPU, or a group summed per
 * sample). A trace is samples (t[i], p[i]) with t non-decreasing, read as
 * the piecewise-linear curve through them: energy is its integral
 * (trapezoid), "1-s means" are its exact averages over consecutive whole
 * seconds from t[0], and the spectrum and autocorrelation are taken on its
 * exact averages over bins of the median sampling interval (a uniform grid
 * even when timestamps jitter). Metrics that a trace is too short for are
 * NaN. No function here keeps state; scratch memory is freed before
 * returning. */

/** Period search range of wc_trace_dominant_period (docs/trace-metrics.md). */
#define WC_TRACE_PERIOD_MIN_S 0.5
#define WC_TRACE_PERIOD_MAX_S 120.0
/** A dominant period needs a normalised autocorrelation peak at least this
 *  high; below it the trace has no period (NaN). A choice of wattcast. */
#define WC_TRACE_PERIOD_MIN_ACF 0.1
/** The period is the first autocorrelation peak reaching this fraction of
 *  the strongest one (guards against picking a multiple). Choice. */
#define WC_TRACE_PERIOD_NEAR_BEST 0.9

/** Bins (1-s means, or the spectral grid at the median sampling interval)
 *  that the exact metrics may allocate: a trace needing more is refused
 *  with WC_ERANGE instead of building a grid over its whole span (a clock
 *  jump or one far-off timestamp). 2^24 bins = 128 MiB, 194 days of 1-s
 *  means or 9.7 days at a 50 ms grid. The streaming form
 *  (trace/stream.h) falls back to its bounded mode instead. */
#define WC_TRACE_MAX_BINS ((size_t)1 << 24)

typedef struct {
	size_t samples;          /* samples in the trace */
	double duration_s;       /* t[n-1] - t[0] */
	double energy_j;         /* trapezoidal integral */
	double mean_w;           /* energy / duration (time-weighted) */
	double p5_w, p50_w, p95_w, max_w; /* over samples */
	double ramp_w_per_s;     /* mean |dP|/dt between consecutive 1-s means */
	double ramp_p95_w_per_s; /* p95 of the same */
	double spectral_entropy; /* normalised Shannon entropy of the spectrum, [0, 1] */
	double period_s;         /* strongest autocorrelation peak in [0.5, 120] s */
	double grid_s;           /* bin width of the spectral grid (median dt) */
} wc_trace_metrics;

/** Every field NaN (samples 0). */
void wc_trace_metrics_init(wc_trace_metrics *m);

/** Trapezoidal integral of the trace, J (0 for n < 2). t must be
 *  non-decreasing; not checked here (wc_trace_metrics_compute checks). */
double wc_trace_energy(const double *t, const double *p, size_t n);

/* Quantiles, bin means (wc_stats_binner), ramps and the spectral entropy
 * are models/stats.h's: simulated envelopes apply the same definitions. */

/** Dominant period (s) of a uniformly sampled series with step `dt`: the
 *  lag of the highest local maximum of the (biased, mean-removed,
 *  normalised) autocorrelation between `min_s` and min(`max_s`, len*dt/2)
 *  -- the first local maximum reaching WC_TRACE_PERIOD_NEAR_BEST of the
 *  strongest -- refined by a parabola through the peak and its neighbours. NaN when
 *  there is no peak of at least WC_TRACE_PERIOD_MIN_ACF. The
 *  autocorrelation is computed by FFT with zero padding (no wrap-around). */
int wc_trace_dominant_period(const double *x, size_t len, double dt, double min_s,
                             double max_s, double *out, wc_error *err);

/** Where the top of the autocorrelation (or autocovariance) peak at
 *  integer lag `k` lies, in lags from `k` (within +-0.5): the vertex of
 *  the parabola through r[k-1], r[k], r[k+1]; 0 when they do not curve
 *  down, or k is 0 or not below `max_lag` (r holds lags 0..max_lag).
 *  wc_trace_dominant_period's sub-sample refinement. */
double wc_trace_peak_shift(const double *r, size_t max_lag, size_t k);

/** The peak at integer lag `k` of r (lags 0..max_lag) read `off` lags
 *  from its top (wc_trace_peak_shift), linearly between the lags beside
 *  that point (clamped to [1, max_lag]). Peaks whose integer lags fall
 *  at different distances from their tops are compared this way
 *  (docs/trace-metrics.md). */
double wc_trace_peak_read(const double *r, size_t max_lag, size_t k, double off);

/** The biased, mean-removed autocorrelation of a uniformly sampled
 *  series normalised to 1 at lag 0, for lags 0..max_lag (acf holds
 *  max_lag + 1 values; lags >= len and a constant series give NaN). By
 *  FFT with zero padding, as wc_trace_dominant_period. */
int wc_trace_autocorrelation(const double *x, size_t len, size_t max_lag, double *acf,
                             wc_error *err);

/** All metrics of one trace (docs/trace-metrics.md). t must be non-decreasing (WC_EINVAL
 *  otherwise, and for non-finite values); a span needing more than
 *  WC_TRACE_MAX_BINS bins is WC_ERANGE. Needs n >= 2 for energy; shorter
 *  traces give NaN metrics, not an error. Scratch memory is O(n). */
int wc_trace_metrics_compute(const double *t, const double *p, size_t n,
                             wc_trace_metrics *out, wc_error *err);

/** The same over a curve some of whose points are not samples: a window
 *  cut between two samples starts or ends on a point interpolated there
 *  (trace/ingest_row.c). Energy, mean, ramps, entropy and period are of
 *  the whole curve t[0..n); `samples`, p5, p50, p95 and max of the
 *  samples p[s0 .. s0 + ns) alone (NaN when ns is 0). WC_EINVAL when that
 *  range is not inside the n points. */
int wc_trace_metrics_compute_span(const double *t, const double *p, size_t n, size_t s0, size_t ns,
                                  wc_trace_metrics *out, wc_error *err);

/* ------------------------------------------------ the metric columns */

/** One grid-facing metric as a column: the name used in runs tables,
 *  `wattcast metrics --json`, the HTTP API and reports, its unit and a
 *  one-line meaning. The list exists once (wc_trace_metric_columns). */
typedef struct {
	const char *name;        /* "p95_w" */
	const char *unit;        /* "W", "" for dimensionless */
	const char *meaning;
} wc_trace_metric_column;

/** The columns, in the order every writer uses: duration_s, energy_j,
 *  mean_w, p5_w, p50_w, p95_w, max_w, ramp_w_per_s, ramp_p95_w_per_s,
 *  spectral_entropy, period_s. */
size_t wc_trace_metric_column_count(void);
const wc_trace_metric_column *wc_trace_metric_column_at(size_t i);
/** Value of column i in `m` (NaN when i is out of range). */
double wc_trace_metric_value(const wc_trace_metrics *m, size_t i);

#ifdef __cplusplus
}
#endif
#endif

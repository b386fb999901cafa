/*
 * The statistics every side shares (docs/statistics.md): quantiles, bin
 * means of a piecewise-linear trace, ramp rates, the spectral metrics
 * (spectral entropy, autocovariance by FFT). trace/ (measured traces),
 * predict/ (simulated envelopes) and fit/ call these, so each statistic is
 * defined once. The 95 % interval from bootstrap draws, built on the
 * quantile here, is models/interval.h's wc_interval_from_draws.
 *
 * The only models/ file set that uses GSL (sorting, selection, FFT).
 * Ownership: pure functions; scratch is the caller's where a parameter
 * names it, else allocated and freed before returning. wc_stats_fft holds
 * FFT tables between calls; the caller clears it.
 */
#ifndef WC_MODELS_STATS_H
#define WC_MODELS_STATS_H

#include <stddef.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ quantiles */

/** Quantile q in [0, 1] of sorted v[0..n): type 7 (R's default, GSL's
 *  gsl_stats_quantile_from_sorted_data), (1 - d) v[i] + d v[i+1] with
 *  i + d = q (n - 1). NaN for n = 0. */
double wc_stats_quantile_sorted(const double *v, size_t n, double q);

/** Quantile q of n values (type 7). `scratch` (n doubles, caller-owned)
 *  receives a sorted copy; `x` is untouched. NaN for n = 0. */
double wc_stats_quantile(const double *x, size_t n, double q, double *scratch);

/** The same quantile found by selection instead of a sort (O(n));
 *  reorders `x`. Equal to wc_stats_quantile, ties included. */
double wc_stats_quantile_select(double *x, size_t n, double q);

/** Median of v[0..n) as GSL defines it (the mean of the two middle values
 *  when n is even); sorts v in place. NaN for n = 0. The one median rule:
 *  never the upper or lower middle value alone (docs/statistics.md). */
double wc_stats_median(double *v, size_t n);

/** The same median of sorted v[0..n) (GSL's
 *  gsl_stats_median_from_sorted_data, which gives 0 for n = 0): NaN for
 *  n = 0. */
double wc_stats_median_sorted(const double *v, size_t n);

/** Sorts v[0..n) ascending in place (GSL's gsl_sort), for several
 *  quantiles of one sample by wc_stats_quantile_sorted with one sort. */
void wc_stats_sort(double *v, size_t n);
/** A median absolute deviation times this is a standard deviation for
 *  normal data (1 / Phi^-1(3/4)): the robust scale of the fits. */
#define WC_STATS_MAD_TO_SD 1.4826

/* ------------------------------------------------------------ bin means */

/** Exact means of the piecewise-linear curve through (t[i], p[i]) over
 *  consecutive bins of `width` from the first sample, fed one sample at a
 *  time (streaming readers): `emit` gets each completed bin's mean. */
typedef struct {
	double t0, width;
	size_t bin;       /* index of the bin being filled */
	double ref;       /* power at the start of that bin */
	double area;      /* integral of (p - ref) so far inside it */
	double t_prev, p_prev;
	int started;
} wc_stats_binner;

void wc_stats_binner_init(wc_stats_binner *b, double width);
void wc_stats_binner_push(wc_stats_binner *b, double t, double p,
                          void (*emit)(double mean, void *payload), void *payload);

/** wc_stats_binner over whole arrays; only complete bins count. Returns
 *  the number of bins (at most `cap` written to `out`; cap 0 counts). */
size_t wc_stats_bin_means(const double *t, const double *p, size_t n, double width,
                          double *out, size_t cap);

/** The same for samples p[i] at t = i * dt (uniform sampling). */
size_t wc_stats_bin_means_uniform(const double *p, size_t n, double dt, double width,
                                  double *out, size_t cap);

/** Plain means of x[0..len) over blocks of `stride` values (the last
 *  block may be shorter): n_bins values into `out`. */
void wc_stats_block_means(const double *x, size_t len, size_t stride, size_t n_bins,
                          double *out);

/* ----------------------------------------------------------------- ramp */

/** Mean and p95 of |m[k+1] - m[k]| / width over consecutive bin means
 *  (the ramp rate on 1-s means when width = 1). NaN when len < 2.
 *  `scratch` holds len - 1 doubles (caller-owned); it may be `means`
 *  itself, which is then overwritten. */
void wc_stats_ramp(const double *means, size_t len, double width, double *scratch,
                   double *mean_out, double *p95_out);

/* ------------------------------------------------------ spectral metrics */

/** Largest / smallest 2^a 3^b 5^c at most / at least n: GSL's
 *  mixed-radix FFT is fast for these, O(n p) for a large prime factor p. */
size_t wc_stats_smooth_floor(size_t n);
size_t wc_stats_smooth_ceil(size_t n);

/** FFT tables kept between series of one length (one thread's). Zero it
 *  to start; wc_stats_fft_clear releases it. */
typedef struct {
	void *wavetable, *workspace; /* GSL real-FFT tables of length n */
	size_t n;
	double *buf;                 /* cap doubles of scratch */
	size_t cap;
} wc_stats_fft;

void wc_stats_fft_clear(wc_stats_fft *f);

/** Normalised spectral entropy of a uniformly sampled series: the
 *  periodogram |X_k|^2, k = 1..m/2, of the mean-removed series (m =
 *  wc_stats_smooth_floor(len), a prefix) as a distribution, its Shannon
 *  entropy divided by log(m/2). NaN when len < 8 or the series is
 *  constant. `f` may be NULL (tables made and freed here). */
int wc_stats_spectral_entropy(const double *x, size_t len, wc_stats_fft *f, double *out,
                              wc_error *err);

/** Autocovariance sum_j x_j x_{j+k} of the mean-removed series by FFT
 *  with zero padding (no wrap-around): *acov (malloc'd, caller frees)
 *  holds at least 2 len values, lag k at index k. *acov is NULL (and
 *  WC_OK returned) when len < 2 or the series is constant. */
int wc_stats_autocovariance(const double *x, size_t len, double **acov, wc_error *err);

/* ------------------------------------------------------ weighted median */

/** One value and its weight (> 0). */
typedef struct {
	double v, w;
} wc_stats_weighted;

/** Weighted median of x[0..n) (docs/statistics.md, "Weighted median"):
 *  values ascending, the first whose cumulative weight reaches half the
 *  total, or halfway between it and the next when the cumulative weight
 *  there is half the total (to 1e-12 of it). With equal weights it is
 *  wc_stats_median. Sorts x in place by value. NaN for n = 0. */
double wc_stats_weighted_median(wc_stats_weighted *x, size_t n);

#ifdef __cplusplus
}
#endif
#endif

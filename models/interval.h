/*
 * 95 % intervals of predictions (docs/intervals.md): the one rule that turns
 * a quantity's values under the bootstrap draws into an interval, and the
 * law's out-of-sample error -- quantiles of held-out log residuals, the
 * "prediction_error" section of a parameter file -- that widens it into a
 * predictive interval. Every section and every answer goes through here,
 * so an interval always contains its point estimate and is never
 * zero-width: when it cannot be, there is no interval.
 *
 * Ownership: wc_pred_error is a plain value (copy with `=`).
 */
#ifndef WC_MODELS_INTERVAL_H
#define WC_MODELS_INTERVAL_H

#include <stddef.h>

#include "models/law.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nominal coverage of every interval wattcast reports. */
#define WC_INTERVAL_LEVEL 0.95

/** The 95 % interval of a quantity from its values under the draws: the
 *  2.5 / 97.5 percentiles (type 7, as gsl_stats_quantile_from_sorted_data)
 *  of the finite values, widened to contain `point` when it is finite.
 *  Sorts the finite values to the front of `v` (scratch). Returns 1 with
 *  lo < hi; 0 (lo, hi NaN) when fewer than 2 values are finite or every
 *  value is the same: no interval rather than a zero-width one. */
int wc_interval_from_draws(double *v, size_t n, double point, double *lo, double *hi);

/** Widen [lo, hi] (NaN = none) to contain `point`; 1 when the result has
 *  width, else 0 with both NaN. */
int wc_interval_contain(double point, double *lo, double *hi);

/** The 95 % interval of an estimate `v` with standard error `se` on `dof`
 *  degrees of freedom: v -+ t se, t the (1 + WC_INTERVAL_LEVEL) / 2
 *  quantile of Student's t, for a least-squares coefficient when there
 *  are no draws (docs/intervals.md, "Two parts"). Held to the rule of
 *  wc_interval_contain: 1 with lo < v < hi; 0 (lo, hi NaN) when se is
 *  not finite, dof < 1, or t se does not move v (an exact fit, se 0):
 *  no interval rather than a zero-width one. */
int wc_interval_t(double v, double se, int dof, double *lo, double *hi);

#define WC_PE_STRATA_MAX 32

/** One stratum of held-out log residuals r = log(measured / predicted). */
typedef struct {
	char platform[WC_NAME_MAX]; /* level name; "" = pooled over platforms */
	char source[16];            /* level source ("fitted", "published",
	                             * "calibrated", ...); "" = any */
	int n;                      /* held-out residuals behind it */
	double q_lo, q_hi;          /* conformal lower / upper quantiles of r,
	                             * q_lo < 0 < q_hi */
} wc_pe_stratum;

/** A held-out error of one quantity: mean power (section
 *  "prediction_error" of a parameter file, schema 5), or one of
 *  wc_pe_quantity (section "prediction_errors", schema 6). present = 0
 *  when the file has none (older files), and then intervals cover the
 *  parameters' uncertainty only. */
typedef struct {
	int present;
	char quantity[40];  /* "mean_power_w" or a wc_pe_quantity name */
	char folds[16];   /* what was held out: "model", "workload", "platform",
	                   * or "frozen" (runs the frozen law never saw) */
	char data[160];   /* where the residuals came from (file, sha256) */
	int n_idle;       /* rows idle throughout, left out of the residuals
	                   * (not in the file; its `data` says it) */
	int n_groups;     /* held-out groups (models, workloads, platforms,
	                   * levels) behind the pooled stratum, 0 = unknown
	                   * (not in the file; `fit intervals` warns below
	                   * WC_PE_MIN_GROUPS) */
	int n_groups_datasheet; /* held-out platforms behind its `datasheet`
	                   * stratum when other folds than the section's
	                   * made it (a capacity quantity's, from platform
	                   * folds beside model folds), 0 = none or the
	                   * section's own (not in the file; warned as
	                   * n_groups is) */
	double level;     /* nominal coverage, 0.95 */
	int n_strata;
	wc_pe_stratum strata[WC_PE_STRATA_MAX];
} wc_pred_error;

/** Quantities with a held-out error of their own besides mean power
 *  (docs/intervals.md, "Where it applies"). Latency's is also
 *  throughput's: throughput = running x output / latency, so the two
 *  have the same |log residual|. */
typedef enum {
	WC_PEQ_LATENCY,      /* "latency_s" (and throughput) */
	WC_PEQ_ENERGY_TOKEN, /* "energy_per_output_token_j" */
	WC_PEQ_FT_STEP,      /* "finetune_energy_per_step_j" (per token and
	                      * per job scale with it) */
	WC_PEQ_COUNT
} wc_pe_quantity;

/** The section name of a quantity ("?" when out of range). */
const char *wc_pe_quantity_name(int q);
/** The quantity of a name, or -1. */
int wc_pe_quantity_from_name(const char *name);

/** Set `x` to a pooled section of quantity `q` (a wc_pe_quantity) with
 *  one stratum of `n` residuals and symmetric quantiles +-`q_log`: how the
 *  built-in profiles record a held-out error (docs/intervals.md). */
void wc_pe_set_pooled(wc_pred_error *x, int q, const char *folds, const char *data, int n, double q_log);

/** How the quantiles were taken (the section's "method"). */
#define WC_PE_METHOD "split-conformal |log residual|"

/** Fewest residuals a stratum needs: the conformal quantile of n values
 *  at 95 % is finite only when ceil((n + 1) 0.95) <= n. */
#define WC_PE_MIN_RESIDUALS 19
/** Fewest held-out groups (models, workloads) a platform needs for a
 *  stratum of its own; with fewer, platforms are pooled
 *  (docs/intervals.md, "Strata"). */
#define WC_PE_MIN_GROUPS 20

/** Split-conformal quantile of `n` held-out log residuals at `level`:
 *  the k-th smallest |r| with k = ceil((n + 1) level), as
 *  q_lo = -q, q_hi = q (symmetric in log space). Scratch: sorts
 *  |r| into `r`. Returns 0 when k > n (NaN quantiles). q is at least
 *  1e-6 so that an interval always has width. */
int wc_pe_quantiles(double *r, size_t n, double level, double *q_lo, double *q_hi);

/** The stratum that answers for `platform` with level source `source`:
 *  (platform, source), else (platform, any), else (pooled, source), else
 *  (pooled, any); NULL when none. Borrowed. */
const wc_pe_stratum *wc_pe_find(const wc_pred_error *pe, const char *platform,
                                const char *source);

/** The predictive interval of `point` (> 0): the union of the parameter
 *  interval [*lo, *hi] (NaN = none) with point * exp([q_lo, q_hi]) of the
 *  stratum. Returns 1 with an interval that contains `point` and has
 *  width, else 0 (both NaN). `s` may be NULL (parameters only). */
int wc_pe_widen(const wc_pe_stratum *s, double point, double *lo, double *hi);

/** wc_pe_widen with stratum `s` of `pe`, and, when `s` is a datasheet
 *  stratum (source "datasheet"), with `pe`'s pooled stratum of any source
 *  too: a transfer to a board never measured is met with models the set
 *  may not have seen either, and its stratum rests on a few transfers, so
 *  its interval is never narrower than a fitted level's
 *  (docs/intervals.md, "How far datasheet transfers miss"). */
int wc_pe_widen_transfer(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double *lo, double *hi);
/** wc_pe_widen_transfer for a calibrated answer: the calibration's draws
 *  [*lo, *hi] (NaN = none) are themselves widened by the held-out error,
 *  lo * exp(q_lo) and hi * exp(q_hi), not joined with it. The calibrated
 *  level rests on k runs, each with its own miss, and the new run misses
 *  that level by the base's held-out error: the two add in log space
 *  (docs/intervals.md, "Calibrated sets"). Without draws that vary, as
 *  wc_pe_widen_transfer. */
int wc_pe_widen_calibrated(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double *lo,
                           double *hi);
/** The one rule of a calibrated answer (wc_pe_widen_calibrated's), as a
 *  stratum to widen with: `s` as wc_pe_transfer_stratum gives it, its
 *  quantiles moved by the calibration's draws [lo, hi] around `point`,
 *  q_lo + log(lo / point) and q_hi + log(hi / point), so that
 *  wc_pe_widen(out, point', ...) of any mean power derived from the same
 *  calibrated level (energy, an envelope's mean, a plan's statistic) gives
 *  the same relative interval (docs/intervals.md, "Calibrated sets").
 *  Returns 1 when the draws were folded in, 0 (out as
 *  wc_pe_transfer_stratum) when they do not vary or the stratum has no
 *  finite quantiles. */
int wc_pe_calibrated_stratum(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double lo, double hi,
                             wc_pe_stratum *out);
/** The stratum wc_pe_widen_transfer widens by, as one: `s` itself, or for
 *  a datasheet stratum its quantiles joined with the pooled stratum's (the
 *  outer of each), for answers that keep a stratum to widen with later
 *  (trace envelopes, budget plans). Platform, source and n stay `s`'s. */
void wc_pe_transfer_stratum(const wc_pred_error *pe, const wc_pe_stratum *s, wc_pe_stratum *out);

/** Hold the upper end of a mean-power interval at `ceiling` (W; NaN or
 *  infinite: none), never below `point`: a mean above what the boards can
 *  draw is not a possible outcome, so the interval does not offer it
 *  (docs/intervals.md, "Physical ceiling"). Returns the factor applied to
 *  *hi (1 when unchanged), for quantities proportional to the power. */
double wc_interval_hold_ceiling(double point, double ceiling, double *hi);

/** Why an answer that draws only the idle power (nothing runs) has no
 *  predictive interval: its dynamic part is 0, nothing to miss, and the
 *  held-out error was measured on loaded runs (docs/intervals.md, "Where
 *  it applies"). One reason for predict, envelopes and budget plans. */
#define WC_INTERVAL_LOADED_ONLY "the held-out error was measured on loaded runs and does not apply to it"
/** Does the held-out error apply to an answer or a run at mean running
 *  count `mean_running` (a load series' mean): is it loaded, not idle by
 *  the one test of idle, wc_load_is_idle (models/law.h)? Predict gives an
 *  idle answer no interval; `fit intervals` and the validators'
 *  cross-conformal intervals leave idle rows out of the residuals they
 *  take their quantiles from and give them none (docs/intervals.md,
 *  "Where it applies"). */
int wc_interval_applies(double mean_running);

/** Hold the lower end of a mean-power interval at `floor` (W; NaN or not
 *  positive: none), never above `point`: a group of powered GPUs does not
 *  average less than its idle draw (docs/intervals.md, "Physical
 *  ceiling"). */
void wc_interval_hold_floor(double point, double floor, double *lo);

/** Is the measured `v` inside [lo, hi] (NaN ends: no), as every coverage
 *  counts it: an end within a part in 10^9 of `v` counts as reached. A
 *  held-out quantile taken from the runs scored sits on one of them, and
 *  whether that run is inside must not hang on the 13th digit -- the
 *  digits a runs table or a per-run file rounds away (docs/intervals.md,
 *  "Validation"). */
int wc_interval_includes(double lo, double hi, double v);

/** What an interval covers, as every answer says it (static text): the
 *  parameters' uncertainty (`draws` > 0), the held-out error of `what`
 *  (`held_out`; `what` NULL = mean power's, unnamed), or both:
 *  "parameters", "held-out error[ of WHAT]", "parameters and held-out
 *  error[ of WHAT]". `what` is one of "latency", "energy per output
 *  token", "mean power", "mean power (not of latency)" or NULL. A set
 *  without draws answers from its held-out error alone and must not
 *  claim the parameters (docs/intervals.md). */
const char *wc_interval_covers(int draws, int held_out, const char *what);
/** wc_interval_covers of an open loop below capacity (`open_loop` != 0):
 *  where `what` is mean power's held-out error, either stratum ("mean
 *  power", "mean power of datasheet transfers"), the caveat
 *  WC_COVERS_OPEN_LOOP follows it -- the count is itself predicted (rate x
 *  latency), and power's held-out error was measured at known loads
 *  (docs/intervals.md, "Where it applies"); one rule for every board,
 *  measured or transferred. Any other `what`, or a closed loop, as
 *  wc_interval_covers. */
const char *wc_interval_covers_loop(int draws, int held_out, const char *what, int open_loop);
#define WC_COVERS_OPEN_LOOP " at the load answered (not of an open loop's count)"
/** The `what` of a capacity answer's summary where every held-out error
 *  that widened its intervals is a datasheet transfer's stratum (latency's,
 *  energy per token's, mean power's: docs/intervals.md, "Capacity levels
 *  from a datasheet"). */
#define WC_COVERS_DATASHEET "datasheet transfers"
/** An interval of draws alone of energy per output token (and what
 *  follows it) whose draws vary only the power law's parameters, or only
 *  the capacity section's: it leaves the other part out
 *  (docs/intervals.md, "Where it applies"). */
#define WC_COVERS_PARAMETERS_NOT_LATENCY "parameters (not of latency)"
#define WC_COVERS_PARAMETERS_NOT_POWER "parameters (not of mean power)"
/** The i-th of every string wc_interval_covers can return and of the two
 *  above (i from 0), NULL past the last: what a document listing them is
 *  checked against. */
const char *wc_interval_covers_at(size_t i);

/** Add a stratum (copied); WC_ERANGE when full. */
int wc_pe_add(wc_pred_error *pe, const wc_pe_stratum *s);

#ifdef __cplusplus
}
#endif
#endif

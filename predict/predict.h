/*
 * predict/ — answers from a frozen parameter set: mean power for one
 * configuration (or an n(t) series), a 95 % interval from the stored
 * bootstrap draws, and a warning for every input outside the calibrated
 * range. Never fits. A query allocates only scratch space (the draws'
 * predictions, a series' histogram) and frees it before returning.
 *
 * A wc_predictor is built once per parameter set (it lays the draws out for
 * fast evaluation), is immutable afterwards and may be shared by any number
 * of threads. Reference counting of predictors is the caller's business
 * (the server keeps its own).
 *
 * predict/capacity_predict.h adds the capacity answers (latency, throughput,
 * energy per token and request, cost, carbon) and the memory check that
 * every prediction here goes through: a configuration whose weights (or
 * requests) do not fit in the group's memory is refused.
 * predict/envelope.h: trace envelopes -- the band, peaks and ramps of the
 * power trace under a workload, for one server or a fleet, and power
 * budget plans (docs/envelopes.md).
 */
#ifndef WC_PREDICT_H
#define WC_PREDICT_H

#include <stddef.h>

#include "models/warnings.h"
#include "models/models.h"
#include "predict/envelope.h"
#include "predict/envelope_budget.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wc_predictor wc_predictor;

/** Build a predictor from a copy of `p` (the caller keeps `p`). On success
 *  the caller owns `*out` and frees it with wc_predictor_free. */
int wc_predictor_new(const wc_params *p, wc_predictor **out, wc_error *err);
void wc_predictor_free(wc_predictor *pr);
/** The parameter set inside (borrowed; lives as long as the predictor). */
const wc_params *wc_predictor_params(const wc_predictor *pr);

/** Upper bound on the length of an n(t) series in one query. */
#define WC_SERIES_MAX 1000000

/** The quantities both calibrations, the power law's and the capacity
 *  fit's, have a span of: a value outside both is one line naming both
 *  spans (docs/capacity.md, "Warnings"). */
typedef enum { WC_SPAN_LOAD = 0, WC_SPAN_TP, WC_SPAN_ACTIVE, WC_SPANS_BOTH } wc_span_both;

/** One question. When `running_series` is set (length > 0), the mean power
 *  is the time average of the law over the series (each sample held
 *  `dt_s`, or `series_hold[i]` seconds when that is given), and
 *  `config.running` is ignored. The arrays are borrowed. */
typedef struct {
	wc_config config;
	const double *running_series;
	size_t series_len;
	double dt_s;
	int want_interval; /* 0 skips the draws even when present */
	const double *series_hold; /* optional: seconds each sample holds */
	int series_gauge;          /* 1: the series is an engine's sampled gauge
	                            * (a runs table's n_source engine): a step it
	                            * reads as 0 may have run between samples, so
	                            * its 0 steps do not hold the interval's top
	                            * at P0 (docs/intervals.md, "Physical ceiling") */
	int skip_memory_check;     /* 1: do not refuse a model that does not fit
	                            * (a measured run that did) */
	int measured_load;         /* 1: config.running (or the series) is a run's
	                            * own, not the capacity answer's: a cap or the
	                            * board's limit settles on the law's power at
	                            * it, token lengths or not (a replayed run) */
	double power_cap_w;        /* > 0: the per-GPU cap config.sm_clock_mhz was
	                            * settled under (wc_predict_power_cap); the
	                            * answer reports it */
	double board_limit_w;      /* > 0: config.sm_clock_mhz is the clock the
	                            * board's power limit settled it at
	                            * (wc_predict_board_limit), */
	double board_free_w;       /* ... from this per-GPU power above it */
	int clock_probe;           /* 1: a clock search's evaluation (clock.c):
	                            * power no board draws is what a clock is
	                            * settled from, not an answer refused
	                            * (wc_power_beyond_boards) */
	int no_datasheet;          /* 1: a platform without a level is refused,
	                            * not transferred from its datasheet (held-out
	                            * tests score the fitted levels) */
	double open_loop_max;      /* > 0: config.running is an open loop's mean
	                            * count below capacity, and the power is the
	                            * law averaged over its running count, at most
	                            * this many running (wc_predict_take_running
	                            * sets it; docs/capacity.md, "Closed loop,
	                            * open loop, energy") */
	double serving_w;          /* > 0: with open_loop_max, the group's draw
	                            * while it serves, which a cap or the board's
	                            * limit is met by (wc_predict_take_running) */
	double cap_span[WC_SPANS_BOTH][2]; /* [k][1] > 0: the capacity
	                            * calibration's span of quantity k, which the
	                            * capacity answer's value lies outside
	                            * (wc_predict_take_running): the power
	                            * answer's line of it names it too */
	const char *prefill_profile; /* the profile the caveat of a law
	                            * without a prefill term names as modelling
	                            * it: NULL paper-prefill (the CLI's
	                            * --profile); a server names one it serves,
	                            * or "" when it serves none, and the caveat
	                            * says how to serve it (docs/http-api.md) */
} wc_inference_query;

typedef struct {
	wc_power power;
	double serving_per_gpu_w;   /* what a cap or the board's limit is met by
	                             * (wc_power_cap_met): an open loop's draw
	                             * per GPU while it serves (q->serving_w),
	                             * else power.per_gpu_power_w */
	double mean_running;        /* n used: config.running or series mean */
	double series_cap_share;    /* a series under a power cap: the share of
	                             * its time the cap binds (0: it does not) */
	/* A series the board's limit or a cap binds on for some of its steps
	 * (docs/http-api.md, "The prediction object"): the limit, the share
	 * of time it binds, whether a clock meets it on every such step, the
	 * one clock every step answers at (NaN: they differ) and else the
	 * lowest and highest (NaN highest: the steps it leaves run free). */
	double series_limit_w;      /* 0: it binds on no step (or no series) */
	int series_limit_board;     /* 1: the board's limit, 0: power_cap_w */
	double series_limit_share;
	int series_limit_met;
	double series_clock_mhz;
	double series_clock_range_mhz[2];
	int open_loop;              /* 1: n is an open loop's, predicted */
	int has_interval;           /* 1 when there is an interval (with width) */
	double node_lo_w, node_hi_w; /* 95 % interval of node power: the draws'
	                             * 2.5 / 97.5 percentiles widened by the
	                             * law's held-out error (docs/intervals.md) */
	int n_draws;                /* draws behind it (0: held-out error only) */
	double node_ceiling_w, node_floor_w; /* what holds any interval of this
	                             * node power (docs/intervals.md, "Physical
	                             * ceiling"): G x 1.1 x the board's limit or
	                             * the cap, and the known idle; NaN = none */
	const wc_pe_stratum *pe_stratum; /* the held-out error used (borrowed
	                             * from the predictor's set); NULL = the
	                             * interval covers the parameters only */
	double prefill_share;       /* the prefill-aware form's share of busy
	                             * time prefilling, at one running at least
	                             * (docs/inference-law.md); NaN for the
	                             * other forms */
	/* Where the answer comes from: the set's name (its profile) and how
	 * the platform's level was obtained ("fitted", "published",
	 * "calibrated", "bound" when the fit ended at a physical bound, or
	 * "datasheet" for a platform without a level, transferred from the
	 * catalog: docs/fitting.md). Static strings / copied. */
	char profile[64];
	const char *level_source;
	int joined[WC_SPANS_BOTH];  /* 1: its line of quantity k names the
	                             * capacity calibration's span as well
	                             * (q->cap_span[k]) */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_inference_prediction;

/** The stratum of the set's held-out error that answers for level `lvl`
 *  (models/interval.h; borrowed), or NULL. */
const wc_pe_stratum *wc_predict_pe_stratum(const wc_params *p, const wc_level *lvl);
/** What the power answer's interval covers (wc_interval_covers' words),
 *  naming the datasheet stratum when a transferred level's error widened
 *  it (static text). */
const char *wc_predict_power_covers(const wc_inference_prediction *pred);
/** What an interval of mean power widened by stratum `s` (NULL: none)
 *  covers, with or without `draws`: wc_interval_covers' words for `what`,
 *  or for "mean power of datasheet transfers" where `s` is the datasheet
 *  stratum (static text). */
const char *wc_predict_pe_covers(const wc_pe_stratum *s, int draws, const char *what);

/** The platform's power level: the set's own, the set's level under the
 *  catalog's canonical name (`c->platform` is then set to it), or one
 *  transferred from the datasheet into `*tmp`, a shallow copy of the set
 *  without draws that the caller frees with free() (its owned parts are
 *  borrowed). `*tmp` stays NULL when the set's own level answers or the
 *  platform is unknown everywhere (the binding then refuses it). One rule
 *  for every answer and every replay of a measured run. */
int wc_predict_resolve_platform(const wc_params *p, wc_config *c, wc_params **tmp, wc_error *err);

/** How level `lvl` of `p` was obtained, as an answer's level_source says
 *  it: "datasheet" for a transfer, "bound" when its S or theta was held at a
 *  physical bound, else the intercept's source. One rule for the answers
 *  and GET /v1/platforms. */
const char *wc_predict_level_source(const wc_params *p, const wc_level *lvl);

/** Predict mean power. Invalid inputs (unknown platform, tp < 1, N <= 0,
 *  negative or non-finite numbers, dt_s <= 0 with a series, a model that
 *  does not fit in memory: wc_predict_memory_check) return
 *  WC_EINVAL / WC_ENOTFOUND with `err->msg` starting with the field name
 *  ("tp: ..."). Extrapolation is not an error: it adds warnings. */
int wc_predict_inference(const wc_predictor *pr, const wc_inference_query *q,
                         wc_inference_prediction *out, wc_error *err);

/** `share` (0 to 1) of a series' or open loop's time as a percentage,
 *  "12.5 %", into `buf`: one wording for every share of time an answer
 *  states (predict/span_text.c). A share neither none nor all that one
 *  decimal would round to either is "<0.1 %" or ">99.9 %": "0.0 %" and
 *  "100.0 %" are said only of none and all (docs/inference-law.md,
 *  "Unseen configurations"). Returns `buf`. */
const char *wc_predict_share_format(char *buf, size_t cap, double share);

/** A power `w` (W) said beside a limit or cap `bound_w` it lies above
 *  ("200.03" over 200 W), into `buf`: one decimal, or more where one
 *  decimal would print it as the bound (the span rule,
 *  wc__predict_span_digits; predict/span_text.c). Returns `buf`. */
const char *wc_predict_power_text(char *buf, size_t cap, double w, double bound_w);

/** The one warning (`engine: ...`) of an answer for a serving stack other
 *  than the one the set was calibrated on (WC_CALIBRATED_ENGINE, models/
 *  catalog.h): its draw differs at the same batch and the numbers are
 *  vLLM's (docs/capacity.md, "Serving stacks"). Every answer (inference,
 *  flexibility, envelope, budget) takes it from here. Returns 1 and fills
 *  `buf` when there is one; else 0 with `buf` "". */
int wc_predict_engine_note(const wc_config *c, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Evaluating a parameter set (docs/inference-law.md): which precision
 * term applies, whose S a level uses, and a configuration bound to the
 * set so that the point estimate and every bootstrap draw are evaluated
 * by the same code. No allocation; everything returned is borrowed from
 * the set.
 */
#ifndef WC_MODELS_EVALUATE_H
#define WC_MODELS_EVALUATE_H

#include <stddef.h>

#include "models/error.h"
#include "models/law.h"
#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ precision-term lookup */

/** The kept precision term for (setting, precision) on `level`: a
 *  level-specific one wins over an all-levels one. NULL = none. Borrowed. */
const wc_precision_term *wc_params_find_term(const wc_params *p, wc_setting setting,
                                             wc_precision prec, const char *level);
/** Any term (kept or not) recorded for exactly this setting/precision/level
 *  or for all levels; used to explain why none applies. Borrowed. */
const wc_precision_term *wc_params_find_tested_term(const wc_params *p, wc_setting setting,
                                                    wc_precision prec, const char *level);
/** The level whose S applies to `lvl` (itself unless it shares). */
const wc_level *wc_params_scale_level(const wc_params *p, const wc_level *lvl);

/* --------------------------------------------- evaluating a parameter set */

/** A configuration bound to a parameter set: where each number the law
 *  needs is found -- the set's point value, or a column of a draws row.
 *  Built once per query (checks the configuration), then evaluated for the
 *  point estimate and every draw through the same wc_law_bound_point.
 *  Borrows the set and the configuration's level. */
typedef struct {
	const wc_params *p;
	const wc_level *level;
	double log_size;         /* lN */
	double clock_ratio;      /* f / wc_law_clock_ref_mhz; 0 when the clock is free */
	wc_placement place[2];   /* weights term, KV term */
	const wc_model_term *model_term; /* the configuration's model term, or NULL */
	/* base values and draw columns (-1 = fixed) of: P0, S, theta, floor,
	 * delta, gamma1, gamma2, kappa, weights term, KV term, model shift, phi,
	 * then the structure terms' coefficients (models/law.h) */
	double base[12 + WC_LT_COUNT];
	int col[12 + WC_LT_COUNT];
	double lt_x[WC_LT_COUNT]; /* the configuration's covariates; 0 = no shift */
	/* prefill-aware form: the share of time prefilling at the
	 * configuration's load, and the level's headroom P_max - P0 (W/GPU) */
	double rho, headroom;
	/* P0 is measured: the configuration's own idle_power_w (1), else the
	 * idle its model term was calibrated above (2, docs/calibration.md) */
	int p0_measured;
} wc_law_binding;

/** The clock a level's unlocked power stands for, MHz: the highest SM
 *  clock of its board (wc_platform_board), where an unlocked GPU runs and
 *  a lock at that clock changes nothing; the set's clock_ref_mhz for a
 *  level the catalog does not know (`fallback_mhz`: the set's
 *  clock_ref_mhz; docs/inference-law.md, "Clock term"). The fit and every
 *  answer take phi(f) = (f / this)^kappa. */
double wc_law_clock_ref_mhz(const wc_level *lvl, double fallback_mhz);
/** The clock coordinate f / wc_law_clock_ref_mhz(lvl, fallback_mhz) of a
 *  locked clock `sm_clock_mhz`; 0 when the clock is free (<= 0). The
 *  binding's clock_ratio and the fit's log-clock covariate alike. */
double wc_law_clock_ratio(const wc_level *lvl, double fallback_mhz, double sm_clock_mhz);

/** Check `c` against the set (unknown platform WC_ENOTFOUND; tp, size,
 *  load, clock or precision out of range WC_EINVAL; messages start with
 *  the field) and bind it. */
int wc_law_bind(const wc_params *p, const wc_config *c, wc_law_binding *b, wc_error *err);
/** The law's numbers for the point estimate (`draw` NULL) or for one row
 *  of the set's draws. */
void wc_law_bound_point(const wc_law_binding *b, const double *draw, wc_law_point *out);

/** The covariate x_k of structure term k for a configuration
 *  (docs/inference-law.md, "Structure terms"): z gains coefficient * x_k.
 *  The architecture is the catalog's for the model (unknown counts as
 *  dense); the prompt share input/(input+output) - 1/2 takes the input
 *  length from the configuration, else the one `cap` (may be NULL) fitted
 *  for its `set`, and is 0 (no shift) when either length is unknown. */
double wc_law_term_covariate(wc_law_term k, const wc_config *c, const wc_capacity_params *cap);
/** The configuration's mean input length, else its workload's fitted one
 *  in `cap` (NULL: none); 0 when neither is known (models/law_terms.c). */
double wc_config_input_tokens(const wc_config *c, const wc_capacity_params *cap);

/* -------------------------------- prefill share (models/law_prefill.c) */

/** The share of a serving group's time spent prefilling at the
 *  configuration's load (docs/inference-law.md, "Prefill-aware form"):
 *  n t_pre / latency(n) from the set's capacity model, at n = max(running,
 *  1); the input length is the configuration's, else the one the capacity
 *  model fitted for its `set`. 0 when any of this is unknown (no capacity
 *  section or level, no architecture, no output length, no input length):
 *  the prefill-aware form then predicts as the published one. */
double wc_law_prefill_share(const wc_params *p, const wc_config *c);
/** The share of an open loop's busy time spent prefilling, whose count
 *  in service is `h` (wc_load_histogram_open_loop): lambda t_pre / P(N >= 1)
 *  with the closed loop's times at the count a request meets
 *  (wc_load_histogram_met) and lambda = m / latency there
 *  (docs/capacity.md, "Closed loop, open loop, energy"); c->running is
 *  not read. 0 where wc_law_prefill_share is. */
double wc_law_prefill_share_open(const wc_params *p, const wc_config *c, const wc_load_histogram *h);
/** The same from a capacity section alone (the fit's shares). */
double wc_prefill_share(const wc_capacity_params *cap, const wc_config *c);
/** The power limit of a level's board, W per GPU, from the catalog as
 *  wc_platform_board finds it (a level such as "H100-locked" is its S
 *  target's platform, "A100-mycluster" an A100); NaN when the catalog does
 *  not know it. */
double wc_level_power_limit_w(const wc_level *level);

/* P0 + S may reach this multiple of the board limit: S is the asymptote
 * a saturating law never reaches at the loads measured, and board meters
 * read a few per cent above the cap (the published fits: A100 1.005,
 * H100 0.95, H200 1.036 times their limit). The fit holds S at it
 * (docs/fitting.md, "Physical bounds"); answers warn on a level above it. */
#define WC_LEVEL_LIMIT_FACTOR 1.1
/** The most mean power `gpus` boards of limit `limit_w` (W each) can
 *  show: gpus x WC_LEVEL_LIMIT_FACTOR x limit_w; NaN when the limit is not
 *  a finite number > 0 or gpus < 1. Where answers' power intervals end
 *  (docs/intervals.md, "Physical ceiling"). */
double wc_power_ceiling_w(double limit_w, int gpus);
/** 1 when `node_w`, a law's mean power of `gpus` boards of limit `limit_w`,
 *  is more than WC_BOARD_LIMIT_MULTIPLE_MAX times their ceiling
 *  (wc_power_ceiling_w): power no board draws, so the law does not hold
 *  there and predict gives no answer (docs/intervals.md, "Physical
 *  ceiling"); 0 when the limit is not known. */
int wc_power_beyond_boards(double node_w, double limit_w, int gpus);
/** The same rule load by load: a mean over a series' or a simulation's
 *  loads hides a load no board draws behind idle ones (1318 W per GPU at
 *  64 running on half of an A100 series, 72.9 W idle on the rest, averages
 *  under the bound). 1 when the per-GPU power `per_gpu_w(ctx, n)` of some
 *  load of `h` is beyond the bound for `gpus` boards of limit `limit_w`:
 *  the index of the one drawing most in `*step` (the law rises with the
 *  load: usually the top one, as a single load's answer names it), its
 *  power in `*step_w`; 0 when none is, or the limit is not known. */
int wc_power_beyond_boards_step(const wc_load_histogram *h, double (*per_gpu_w)(const void *ctx, double running),
                                const void *ctx, double limit_w, int gpus, size_t *step, double *step_w);
/** The refusal of power no board draws, WC_ERANGE naming the platform
 *  (HTTP 422 on /platform): `per_gpu_w` the law's power, `limit_w` the
 *  board's limit, `board` the level's name, `where` the load it was found
 *  at ("here" for a single load, "at 64 running for 50 % of the series'
 *  time" for a step). Returns WC_ERANGE. */
int wc_power_beyond_boards_refuse(wc_error *err, double per_gpu_w, double limit_w, const char *board,
                                  const char *where);
/** 1 when a per-GPU cap `cap_w` (> 0) is met by an answer of
 *  `per_gpu_w` W per GPU (NaN: taken as met); 0 when none was set or no
 *  clock meets it (the answer is above it). */
int wc_power_cap_met(double cap_w, double per_gpu_w);
/** The same for a group of `tp` GPUs of a level: the tighter of its
 *  board limit (wc_level_power_limit_w) and a per-GPU cap the user set
 *  (`cap_w`; <= 0 or NaN: none), which the driver enforces the same way
 *  -- when the answer meets it (`per_gpu_w`, wc_power_cap_met). */
double wc_level_power_ceiling_w(const wc_level *level, double cap_w, double per_gpu_w, int tp);
/** The ceiling `ceiling_w` of a loop's mean power at mean count `m`: an
 *  open loop's (`arrivals`), whose count is wc_load_histogram_open_loop(m,
 *  n_max), or a closed loop's, which runs m (below one, a duty cycle): its
 *  idle share draws `floor_w` (the group's idle power) and the rest at
 *  most the ceiling (wc_load_histogram_ceiling_w; docs/intervals.md,
 *  "Physical ceiling"). `ceiling_w` itself when either is not finite or
 *  the loop is never idle. */
double wc_law_loop_ceiling_w(double ceiling_w, double floor_w, double m, double n_max, int arrivals);
/** P_max - P0 of a level, W per GPU: the prefill power's headroom (NaN
 *  when the catalog does not know the platform's power limit). */
double wc_law_prefill_headroom(const wc_params *p, const wc_level *level);

/** Evaluate the law at one load level (docs/inference-law.md). n = 0
 *  gives G*P0 exactly. */
int wc_law_power(const wc_params *p, const wc_config *c, wc_power *out, wc_error *err);
/** Mean power over a load series: the time-weighted average of the law
 *  over `running[i]` held for `weight[i]` (sum > 0). */
int wc_law_power_series(const wc_params *p, const wc_config *c,
                        const double *running, const double *weight, size_t len,
                        wc_power *out, wc_error *err);
/** Node power G*(P0 + mean dynamic) of a law point over a histogram, and
 *  the same as wc_power; WC_ERANGE when not finite. */
int wc_law_point_power(const wc_law_point *lp, int tp, const wc_load_histogram *h,
                       wc_power *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

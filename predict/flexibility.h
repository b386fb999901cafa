/*
 * Power flexibility (docs/capacity.md, "Power flexibility"): how much
 * power a deployment can shed by locking its SM clock or lowering its
 * power cap, and what that costs in throughput. A sweep over the
 * platform's clock range (or over the power caps that settle there) gives
 * per step the node power, the power shed against the unconstrained
 * point, throughput and throughput lost, energy per output token, and the
 * Power Flexibility Index: the fraction of power shed per fraction of
 * throughput lost. Also the knee -- the lowest step before throughput
 * starts falling faster than power, or power rises again -- and the
 * energy-optimal clock.
 *
 * Plain values; nothing to free.
 */
#ifndef WC_PREDICT_FLEXIBILITY_H
#define WC_PREDICT_FLEXIBILITY_H

#include "models/warnings.h"
#include "predict/capacity_predict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_FLEX_MAX_STEPS 64
#define WC_FLEX_DEFAULT_STEPS 12

/** The quantities a sweep gives intervals of (wc_flex_step lo/hi, the
 *  unconstrained point's ref_lo/ref_hi). */
enum { WC_FLEX_POWER, WC_FLEX_THROUGHPUT, WC_FLEX_E_TOKEN, WC_FLEX_LATENCY, WC_FLEX_IQ };

typedef struct {
	double sm_clock_mhz;          /* the clock of the step */
	double power_cap_w;           /* per GPU: the cap swept, or the power that settles at this clock */
	double node_power_w;
	double throughput_tok_s;
	double energy_per_output_token_j;
	double latency_s;
	double mean_running;          /* requests running at the step (the capacity
	                               * answer's: a concurrency held to what the
	                               * KV cache holds, an open loop's mean) */
	double power_shed_w;          /* unconstrained node power - this step's */
	double throughput_lost_pct;   /* 100 x (1 - throughput / unconstrained): 0
	                               * below the analysis' rounding tolerance,
	                               * never negative */
	double pfi;                   /* shed fraction / lost fraction; NaN when nothing is lost */
	int over_capacity;            /* an open loop's rate exceeds what the step serves: its
	                               * numbers are those at capacity, the queue grows without
	                               * bound, and it is no knee nor optimum */
	/* 95 % intervals of node power, throughput, energy per output token
	 * and latency at this step, as its capacity answer gives them -- the
	 * intervals predict inference gives at that clock (NaN: none) */
	double lo[WC_FLEX_IQ], hi[WC_FLEX_IQ];
} wc_flex_step;

typedef struct {
	int by_cap;                   /* 1: power caps were swept, 0: clock locks */
	int tp;                       /* GPUs of the group (caps are per GPU) */
	/* the unconstrained point: no clock lock, no cap */
	double ref_node_power_w, ref_throughput_tok_s, ref_energy_per_output_token_j;
	double ref_latency_s;           /* its latency per request, as a step's latency_s */
	double ref_mean_running;      /* its running requests, as a step's mean_running */
	double ref_lo[WC_FLEX_IQ], ref_hi[WC_FLEX_IQ]; /* its intervals (NaN: none) */
	const char *covers[WC_FLEX_IQ]; /* what each covers, static text (the
	                               * unconstrained point's capacity answer) */
	/* ref_mean_running's interval and what it covers, or NaN and why
	 * none: its capacity answer's, as predict inference gives it
	 * (docs/capacity.md, "Power flexibility") */
	double ref_running_lo, ref_running_hi;
	const char *running_covers;
	int n_draws;                  /* bootstrap draws behind them (0: held-out error alone) */
	double board_limit_w;         /* > 0: the board's power limit settled the
	                               * unconstrained point's clock, where the
	                               * sweep starts (wc_predict_board_limit) */
	int n_steps;                  /* steps, from the highest clock down */
	wc_flex_step steps[WC_FLEX_MAX_STEPS];
	double knee_clock_mhz, knee_power_cap_w; /* NaN: no step serves the rate */
	double energy_optimal_clock_mhz;         /* NaN: no step serves the rate */
	/* Where the answer comes from, as an inference answer says it: the
	 * set's name, its power level's source (wc_inference_prediction) and
	 * the capacity level's ("fitted" or "datasheet"). Static or copied. */
	char profile[64];
	const char *level_source;
	const char *capacity_level_source;
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_flexibility;

/** From steps whose clock, cap, node power, throughput, energy and
 *  over_capacity are filled (highest clock first) and the unconstrained
 *  point: each step's power shed, throughput lost (none below a relative
 *  1e-9, the arithmetic's rounding, and never negative) and index (NaN when
 *  nothing is lost); the knee (from the first step that serves the rate,
 *  the last step, going down, before a segment where the fraction of
 *  throughput lost grows faster than the fraction of power shed, the power
 *  rises or the next step is over capacity; the lowest step when none
 *  does); the clock of least energy per output token among the steps that
 *  serve the rate. Both NaN when every step is over capacity. */
void wc_flexibility_analyse(wc_flexibility *f);

/** Sweep `n_steps` (2..WC_FLEX_MAX_STEPS) clock locks evenly over the
 *  platform's clock range (`by_cap` 0), or as many power caps per GPU
 *  evenly from the least cap that does not bind at the top clock
 *  (wc_predict_cap_unbound: the first step is the unconstrained point)
 *  down to the least power any clock gives (wc_predict_power_floor), each
 *  settled by wc_predict_power_cap (`by_cap` 1), for q->config's workload (token
 *  lengths and concurrency or rate, as wc_predict_capacity needs; a locked
 *  clock in q is refused). Errors name the field. */
int wc_predict_flexibility(const wc_predictor *pr, const wc_inference_query *q, int by_cap, int n_steps,
                           wc_flexibility *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

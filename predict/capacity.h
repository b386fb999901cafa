/*
 * Capacity answers from a frozen parameter set (docs/capacity.md,
 * "Predictions"): latency, time to first token, throughput, energy per
 * output token / request / hour, cost and carbon, for a closed loop (n
 * requests in flight) or an open loop (arrival rate), each with a 95 %
 * interval from the draws of both laws (draw r of the power law paired
 * with draw r of the capacity section, the shorter list cycled); and the
 * memory check every inference prediction goes through.
 */
#ifndef WC_PREDICT_CAPACITY_H
#define WC_PREDICT_CAPACITY_H

#include "predict/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The outputs, in the order of their names (wc_capacity_output_name). */
enum {
	WC_CAPQ_LATENCY = 0,   /* latency_s */
	WC_CAPQ_TTFT,          /* ttft_s */
	WC_CAPQ_THROUGHPUT,    /* throughput_tok_s (output tokens per second of the group) */
	WC_CAPQ_E_TOKEN,       /* energy_per_output_token_j */
	WC_CAPQ_E_REQUEST,     /* energy_per_request_j */
	WC_CAPQ_E_HOUR,        /* energy_per_hour_kwh */
	WC_CAPQ_RUNNING,       /* mean_running (open loop: the solved n) */
	WC_CAPQ_POWER,         /* node_power_w at that n */
	WC_CAPQ_COST_REQUEST, WC_CAPQ_COST_MTOK, WC_CAPQ_COST_HOUR,  /* in the price's currency */
	WC_CAPQ_CO2_REQUEST, WC_CAPQ_CO2_MTOK, WC_CAPQ_CO2_HOUR,     /* grams */
	WC_CAPQ_COUNT
};
const char *wc_capacity_output_name(int k);

typedef struct {
	int open_loop;              /* 1: answered for an arrival rate */
	double value[WC_CAPQ_COUNT];            /* NaN = not asked (cost, CO2) */
	double lo[WC_CAPQ_COUNT], hi[WC_CAPQ_COUNT]; /* NaN without draws */
	int has_interval, n_draws;  /* any quantity has an interval; draws behind it */
	const wc_pe_stratum *pe_stratum; /* the held-out error that widened the
	                                  * power-proportional ones (borrowed
	                                  * from the set); NULL = draws only */
	double max_concurrency_fit; /* INFINITY when a request needs no memory */
	double memory_need_gb, memory_available_gb;
	int over_capacity;          /* the rate exceeds what the group can serve */
	double capacity_rate;       /* requests/s at the largest feasible concurrency */
	double price_per_kwh, grams_co2_per_kwh; /* used (NaN = none) */
	int n_warnings;
	char warnings[WC_WARN_MAX][WC_WARN_LEN];
} wc_capacity_prediction;

/** Refuse a configuration that cannot fit in memory: the weights alone
 *  (`tp: ...` naming the smallest group that holds them), or `running`
 *  requests of their context (`concurrency: ...`; unknown token lengths
 *  check the weights only). Uses the capacity section's reserve and
 *  platform facts, else the catalog's and the default reserve; without
 *  an architecture the weights are taken as N_act at the weights'
 *  precision (a lower bound). `*max_fit` (may be NULL) gets the largest
 *  concurrency that fits, NaN when the token lengths are unknown. */
int wc_predict_memory_check(const wc_params *p, const wc_config *c, double *max_fit, wc_error *err);

/** The capacity answers for q->config (arch, input and output tokens, and
 *  running or request_rate; running is then the engine's cap). Price and
 *  carbon intensity NaN fall back to the capacity section's defaults.
 *  Errors name the field ("output_tokens: ...", "model: ...", "tp: ...",
 *  "concurrency: ..."). */
int wc_predict_capacity(const wc_predictor *pr, const wc_inference_query *q, double price_per_kwh,
                        double grams_co2_per_kwh, wc_capacity_prediction *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Budget plans (docs/envelopes.md, "Budget plans"): the largest fleet
 * whose aggregate power statistic stays under a feed's limit, over the
 * envelope simulation of predict/envelope.h.
 *
 * Ownership: inputs are borrowed for the duration of a call; a plan is a
 * plain value. Reentrant; bit-identical for a seed whatever the threads.
 */
#ifndef WC_PREDICT_ENVELOPE_BUDGET_H
#define WC_PREDICT_ENVELOPE_BUDGET_H

#include "predict/envelope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- budget plan */

typedef enum { WC_BUDGET_P95 = 0, WC_BUDGET_MAX } wc_budget_stat;

typedef struct {
	double budget_w;      /* the feed's limit for the aggregate, W */
	wc_budget_stat stat;  /* which statistic of the aggregate must stay below it */
	int max_fleet;        /* search bound */
	double bin_s;         /* the aggregate is judged on means over bins of this width */
} wc_budget_options;

typedef struct {
	int fleet_size;          /* the largest K that fits (0: not even one) */
	double stat_w;           /* the statistic at that K (NaN at 0) */
	double next_stat_w;      /* at K + 1 (NaN when K = max_fleet) */
	int at_bound;            /* 1: K = max_fleet still fits (the bound was the limit) */
	int probes;              /* fleet sizes evaluated */
	int servers_simulated;
	/* stat_w's predictive 95 % interval: the law's held-out error of mean
	 * power around it (docs/intervals.md; NaN without one, or at 0
	 * servers). The Monte-Carlo spread is not in it; the plan's size is
	 * the point estimate's. */
	double stat_lo_w, stat_hi_w;
	/* of the workload on one server: the KV cache's concurrency limit and
	 * a mean request over the model's context, as an envelope says them */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_budget_plan;

/** The most server simulations a plan can run: every server draws at
 *  least its idle power tp x P0, so a fleet of K > budget / (tp x P0) is
 *  over the budget and doubling stops at the first power of two beyond
 *  that (or at max_fleet). Independent servers are simulated once each;
 *  a shared arrival process afresh for every probe (doubling, then at
 *  most log2 K bisection probes). */
double wc_envelope_budget_servers(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode);

/** Refuse a simulation of `servers` server runs of `w` over the options'
 *  warm-up and horizon whose expected requests exceed `max_requests`
 *  (WC_EINVAL naming the workload field that sets the count). A closed
 *  loop counts the requests its clients can have served at most, from
 *  `st`'s shortest request (its clients alone when `st` is NULL). The
 *  message's remedy names what a budget plan (`budget` 1: max_fleet,
 *  budget_w) or an envelope (replicas, fleet) takes. */
int wc_envelope_requests_check(const wc_envelope_workload *w, const wc_envelope_options *o,
                               const wc_service_times *st, double servers, double max_requests, int budget,
                               wc_error *err);

/** The largest fleet size K <= max_fleet whose aggregate power statistic
 *  (p95 or max over the horizon's bins) stays at or below the budget,
 *  found by doubling then bisection over nested fleets (the fleet of K
 *  is the first K servers of the fleet of K + 1, so the statistic grows
 *  with K). The workload is per server; options' replicas and fleet size
 *  are not used (one realisation per K). */
int wc_envelope_budget(const wc_envelope_workload *w, const wc_service_times *st,
                       const wc_power_map *pm, const wc_envelope_options *o,
                       const wc_budget_options *bo, wc_budget_plan *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

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
	int at_bound;            /* 1: K = search_bound still fits (a bound, not the budget, was the limit) */
	/* The largest K the search could probe: max_fleet, or fewer when
	 * servers sharing one arrival process cannot be simulated together
	 * past that many (docs/envelopes.md, "Budget plans"); at_bound says
	 * the search stopped there, `simulation_bound` which bound it was. */
	int search_bound;
	int simulation_bound;    /* 1: search_bound is the simulation's limit, below max_fleet */
	int probes;              /* fleet sizes evaluated */
	int servers_simulated;
	int lockstep;            /* its servers ran in step (wc_envelope_fleet_seen_lockstep) */
	/* stat_w's predictive 95 % interval: the law's held-out error of mean
	 * power around it, a calibrated level's draws added (docs/intervals.md; NaN without one, or at 0
	 * servers). The Monte-Carlo spread is not in it; the plan's size is
	 * the point estimate's. */
	double stat_lo_w, stat_hi_w;
	/* the calibration's draws folded into it (wc_power_map_pe; 0 when
	 * none varies this answer): its covers claims them only then */
	int stat_draws;
	/* the mean running count per server at that K (NaN at 0): the load a
	 * calibrated level's draws are taken at, as an envelope's (wc_power_map_pe) */
	double mean_running;
	/* the mean running count per server the plan's caveats about its
	 * level and load judge (wc_envelope_load_notes): mean_running, or at
	 * 0 the one server's that next_stat_w is of, whose level drew it (the
	 * queue and board-limit notes take the same server); NaN when none ran */
	double judged_running;
	/* of the workload on one server: the KV cache's concurrency limit and
	 * a mean request over the model's context, as an envelope says them */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
	/* 1: the search stopped before a probe that would take it past a work
	 * bound (wc_envelope_budget_bounded); the error names the field */
	int work_refused;
} wc_budget_plan;

/** The most server simulations a plan can run, the worst case of the
 *  sizes it probes (predict/envelope_walk.c) over every fleet size that
 *  may fit: every server draws at least its idle power tp x P0, so no
 *  fleet of budget / (tp x P0) + 1 servers or more fits and doubling
 *  probes that size rather than a power of two past it (or stops at
 *  max_fleet). Independent servers are simulated once each: the largest
 *  probe. A shared arrival process is simulated afresh for every probe:
 *  the largest sum of doubling's probes and the bisection's after them. */
double wc_envelope_budget_servers(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode);

/** 1 when the budget, not max_fleet, bounds the fleet a plan probes (the
 *  first fleet surely over the budget, budget / (tp x P0) + 1, is at most
 *  max_fleet). */
int wc_envelope_budget_sets_servers(const wc_budget_options *bo, const wc_power_map *pm);

/** The field that sets a simulation's server runs, as the work bound
 *  names it: for a plan (`bo` given) "budget_w" where the budget sets the
 *  fleet probed (wc_envelope_budget_sets_servers), else "max_fleet"; for
 *  an envelope (`bo` NULL) "fleet_size" when the fleet exceeds the
 *  replicas simulated (1 for a workload that draws nothing,
 *  wc_envelope_draws_nothing), else "replicas"; "horizon_s" where one run
 *  stands for all. */
const char *wc_envelope_servers_field(const wc_envelope_workload *w, const wc_envelope_options *o,
                                      const wc_budget_options *bo, const wc_power_map *pm);

/** Refuse work beyond the bounds before any of it (docs/envelopes.md,
 *  "Limits and choices"): the server runs -- replicas x fleet size for an
 *  envelope (`bo` NULL; one replica for a workload that draws nothing),
 *  wc_envelope_budget_servers for a plan (one for lockstep servers; one
 *  for a shared arrival process whose worst case is over `max_work`
 *  alone, whose search meters the rest: wc_envelope_budget_bounded) -- x the
 *  grid bins of the warm-up and horizon (x WC_ENVELOPE_SHARED_WORK_COST for
 *  a shared arrival process) over `max_work`, or x the expected requests
 *  per server over `max_requests` (a closed loop counts what its clients
 *  can have served at most, from `st`'s shortest request; its clients
 *  alone when `st` is NULL). WC_EINVAL names the field that sets the count
 *  first, `limit` the bound ("the bound" when NULL), and the fields to
 *  lower: a plan's max_fleet and budget_w, an envelope's replicas and
 *  fleet. The library's own runs check against WC_ENVELOPE_MAX_WORK and
 *  WC_ENVELOPE_MAX_REQUESTS; the HTTP API and the CLI call it first with
 *  theirs to refuse the request. */
int wc_envelope_work_check(const wc_envelope_workload *w, const wc_envelope_options *o,
                           const wc_service_times *st, const wc_budget_options *bo, const wc_power_map *pm,
                           double max_work, double max_requests, const char *limit, wc_error *err);

/** 1 when one server run's expected requests (a closed loop's at most)
 *  alone exceed `max_requests`: no replicas, fleet or budget can bring
 *  the work under the bound, and wc_envelope_work_check names the
 *  workload's field first, advising the rate (the clients) or the
 *  horizon alone. */
int wc_envelope_requests_alone(const wc_envelope_workload *w, const wc_envelope_options *o,
                               const wc_service_times *st, double max_requests);

/** Bytes one waiting request may take in an engine's queue: its two
 *  lengths (predict/envelope_internal.h, wc__waiting_req), three times
 *  over, for the full ring and the one of twice its size it is copied
 *  into while it grows (envelope_engine.c). */
#define WC_ENVELOPE_QUEUE_BYTES (3.0 * 2.0 * sizeof(double))

/** The requests the engines' waiting queues alive at once may hold
 *  (docs/envelopes.md, "Limits and choices, in one place"): every arrival
 *  of a server may still wait when it falls behind (an overloaded open
 *  loop's queue grows with the horizon), so the expected arrivals per
 *  server over the warm-up and horizon (a closed loop's clients) x the
 *  servers simulated at once, `*at_once`: the runs in flight (replicas
 *  for an envelope, `bo` NULL, servers for a plan, at most o->threads)
 *  x the servers sharing one arrival process (the fleet, a plan's largest
 *  probe). 0 for an n(t). The command line charges it
 *  WC_ENVELOPE_QUEUE_BYTES a request against its memory; over HTTP the
 *  requests bound holds it. */
double wc_envelope_queue_requests(const wc_envelope_workload *w, const wc_envelope_options *o,
                                  const wc_budget_options *bo, const wc_power_map *pm, double *at_once);

/** A plan's statistic (a value of W beside `budget`) as text: ten
 *  significant digits, or as many more (to 17) as it takes to read on its
 *  own side of the budget -- 19906.9039895 W is over a budget of
 *  19906.903989 W but rounds to 19906.90399 at ten, where the budget
 *  echoed at ten would read the same. The one rule of the text plan and
 *  the JSON one (docs/cli.md, docs/http-api.md "POST /v1/plan/budget"). */
const char *wc_budget_stat_text(char buf[32], double v, double budget);

/** The largest fleet size K <= max_fleet whose aggregate power statistic
 *  (p95 or max over the horizon's bins) stays at or below the budget,
 *  found by doubling then bisection over nested fleets (the fleet of K
 *  is the first K servers of the fleet of K + 1, so the statistic grows
 *  with K). The workload is per server; options' replicas and fleet size
 *  are not used (one realisation per K). */
/** Check a plan's options against the simulation's `o` (budget_w, stat,
 *  max_fleet, budget_bin_s on the grid and within the horizon); messages
 *  name the field. wc_envelope_budget checks them first; a route checks
 *  them before it charges the plan's work, so that a value off the grid
 *  is refused as such, not as too much work. */
int wc_envelope_budget_check(const wc_budget_options *bo, const wc_envelope_options *o, wc_error *err);
int wc_envelope_budget(const wc_envelope_workload *w, const wc_service_times *st,
                       const wc_power_map *pm, const wc_envelope_options *o,
                       const wc_budget_options *bo, wc_budget_plan *out, wc_error *err);
/** wc_envelope_budget held to the bounds `max_work` and `max_requests`
 *  (wc_envelope_budget checks the library's): the work bound charges a
 *  plan its worst case before any work, and a shared arrival process whose
 *  worst case is over the grid bound its first probe alone; the search
 *  then charges each probe, with those before it, before it runs, and
 *  stops at one that would pass a bound, with
 *  out->work_refused set and `err` naming budget_w (else max_fleet) and
 *  its largest value that always answers (docs/http-api.md, "Bounds").
 *  `limit` names the bounds in that message ("the bound" when NULL). */
int wc_envelope_budget_bounded(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                               const wc_envelope_options *o, const wc_budget_options *bo, double max_work,
                               double max_requests, const char *limit, wc_budget_plan *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

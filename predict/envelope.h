/*
 * Trace envelopes (docs/envelopes.md): how the power trace of a serving
 * group will swing under a workload -- the band of its power over time,
 * its peaks, ramps and energy -- for one server or a fleet, by Monte Carlo
 * on a 50 ms grid:
 *
 *   arrivals -> admission up to the engine's limit (a queue beyond it)
 *   -> prefill, then decode steps whose length depends on the running
 *      count (continuous batching) -> n(t) and prefill activity
 *   -> per-GPU power: the frozen law at n(t) plus a prefill increment,
 *      held over short idle gaps, through a first-order response
 *   -> R replicas, replica r on PCG32 stream (seed, r).
 *
 * Service times come through wc_service_times: from the capacity model
 * (wc_capacity_service) when the parameter set has one for the platform,
 * else from the stand-in (the capacity model at assumed efficiencies);
 * wc_service_select chooses. The power mapping is wc_power_map, one small function. Every result names the
 * source of both.
 *
 * Ownership: inputs are borrowed for the duration of a call; results own
 * their arrays (wc_envelope_result_clear). Every function is reentrant;
 * results are bit-identical for a seed whatever the number of threads.
 */
#ifndef WC_PREDICT_ENVELOPE_H
#define WC_PREDICT_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include "models/warnings.h"
#include "models/limits.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The simulation grid, s. */
#define WC_ENVELOPE_GRID_S 0.05
/** Bounds of the library (the HTTP API has tighter ones). */
#define WC_ENVELOPE_MAX_HORIZON_S (7.0 * 86400.0)
#define WC_ENVELOPE_MAX_REPLICAS 100000
#define WC_ENVELOPE_MAX_FLEET 1000000
#define WC_ENVELOPE_MAX_RUNNING 65536
#define WC_ENVELOPE_MAX_THREADS WC_THREADS_MAX /* models/limits.h */
#define WC_ENVELOPE_MAX_TOKENS 10000000.0
/** Burstiness (gamma shape) range: below 0.01 GSL's gamma draws round
 *  almost every gap to 0 and simulated time stops (docs/envelopes.md,
 *  "Workloads"). */
#define WC_ENVELOPE_MIN_BURSTINESS 0.01
#define WC_ENVELOPE_MAX_BURSTINESS 1000.0
/** Simulated requests one call may draw (expected arrivals x servers x
 *  replicas; the HTTP API has a tighter bound). */
#define WC_ENVELOPE_MAX_REQUESTS 2e8
/** Sustained power is judged on means over this window: no mean over it
 *  exceeds the board's limit (docs/envelopes.md, "Board limit"). The
 *  trace metrics' own resolution (ramps between 1-s means), not fitted. */
#define WC_ENVELOPE_SUSTAINED_S 1.0

/* ------------------------------------------------------- service times */

/** Where the simulation gets its service times. `decode_step_s` is one
 *  engine step with `running` requests decoding at a mean context of
 *  `context_tokens` each; `prefill_s` is one request's prefill of
 *  `input_tokens`. Both must return finite values >= 0 and be safe to call
 *  from several threads on the same ctx. */
typedef struct {
	double (*decode_step_s)(void *ctx, double running, double context_tokens);
	double (*prefill_s)(void *ctx, double input_tokens);
	void *ctx;
	char source[48];   /* named in every result, e.g. "roofline_standin" */
} wc_service_times;

/** Storage of the capacity model's service times (docs/envelopes.md,
 *  "Service times"): the level's point estimate, the model's bytes and
 *  FLOPs and the platform's numbers, copied at binding so nothing is
 *  borrowed from the parameter set afterwards. */
typedef struct {
	char level[WC_NAME_MAX];
	int tp;
	wc_capacity_point point;
	wc_capacity_arch arch;
	wc_capacity_hw hw;
} wc_capacity_service_store;

/** The stand-in (docs/envelopes.md, "Service times"): the capacity
 *  model's decode step and prefill (models/capacity.h) with its five step
 *  numbers assumed -- bandwidth efficiency, fixed overhead per step, no
 *  overhead per request, compute efficiency, no communication term --
 *  instead of fitted. Platform facts from models/catalog.h (a locked SM
 *  clock scales compute as in the capacity model), bytes and FLOPs from
 *  the configuration's `arch` through wc_capacity_arch_make (its refusals
 *  apply), else a dense model of N_act with no KV or attention term. */
#define WC_STANDIN_BW_EFFICIENCY 0.7
#define WC_STANDIN_FLOPS_EFFICIENCY 0.5
#define WC_STANDIN_STEP_OVERHEAD_S 0.002

/** Fill the stand-in for a configuration (platform by name in the catalog,
 *  "H100-locked" style levels by their prefix). WC_ENOTFOUND when the
 *  catalog has no such platform ("platform: ..."). */
int wc_roofline_standin_init(wc_capacity_service_store *s, const wc_config *c, wc_error *err);
/** The service times of a stand-in (borrowed by `out`), source
 *  "roofline_standin". */
void wc_roofline_standin_service(wc_capacity_service_store *s, wc_service_times *out);

/** Service times from the parameter set's capacity section, bound and
 *  evaluated through models/capacity.h exactly as predict/capacity.c does
 *  (point estimate): decode_step_s(n, c) is the capacity model's decode
 *  step t_dec at n running requests of mean context c (no prefill in it),
 *  prefill_s(L) its prefill t_pre of one prompt of L tokens. Source
 *  "capacity". Refusals: "capacity: ..." (no section), "platform: ..." (no
 *  level for c->platform), "model: ..." (no architecture), or the
 *  architecture's own ("architecture/<field>: ..."). `store` must outlive
 *  `out`. */
int wc_capacity_service(const wc_params *p, const wc_config *c, wc_capacity_service_store *store,
                        wc_service_times *out, wc_error *err);

/** Which service times a caller wants: the capacity model when the set
 *  can give it, else the stand-in (auto); or one of them forced. */
typedef enum { WC_SERVICE_AUTO = 0, WC_SERVICE_CAPACITY, WC_SERVICE_STANDIN } wc_service_choice;
/** "auto", "capacity", "standin". */
const char *wc_service_choice_name(wc_service_choice c);
int wc_service_choice_from_name(const char *name, wc_service_choice *out);

/** Storage of the chosen service times. */
typedef struct {
	int is_capacity;                     /* 1: `capacity` backs the times; 0: `standin` */
	wc_capacity_service_store capacity;
	wc_capacity_service_store standin;
	char fallback[WC_WARNING_LEN]; /* auto fell back to the stand-in: why; else "" */
} wc_service_store;

/** Choose and fill the service times for a configuration: the capacity
 *  model when forced, or in auto mode when the set has a capacity section
 *  with a level for the platform and the model's architecture is known;
 *  otherwise the stand-in (in auto mode with store->fallback saying why).
 *  Capacity forced but unavailable: WC_EINVAL "service: ..." with the
 *  reason. The stand-in's own refusals as wc_roofline_standin_init.
 *  `store` must outlive `out`. */
int wc_service_select(const wc_params *p, const wc_config *c, wc_service_choice choice,
                      wc_service_store *store, wc_service_times *out, wc_error *err);

/* ------------------------------------------------------------ workloads */

typedef enum { WC_LENGTH_FIXED = 0, WC_LENGTH_LOGNORMAL, WC_LENGTH_EMPIRICAL } wc_length_kind;

/** A token-length distribution: a fixed `mean`, a lognormal with `mean`
 *  and `sd`, or draws (with replacement) from `values`. Draws are rounded
 *  to whole tokens >= 1. */
typedef struct {
	wc_length_kind kind;
	double mean, sd;
	const double *values;
	size_t n_values;
} wc_length_dist;

typedef enum {
	WC_ENVELOPE_CLOSED = 0, /* `concurrency` clients, each resubmitting after `think_s` */
	WC_ENVELOPE_POISSON,    /* open loop, exponential inter-arrivals */
	WC_ENVELOPE_BURSTY,     /* open loop, gamma inter-arrivals (shape = burstiness) */
	WC_ENVELOPE_REPLAY,     /* the arrivals of a log */
	WC_ENVELOPE_SERIES,     /* an explicit n(t) (no engine, no prefill) */
	WC_ENVELOPE_KIND_COUNT
} wc_envelope_kind;

/** "closed", "poisson", "bursty", "replay", "n_series". */
const char *wc_envelope_kind_name(wc_envelope_kind k);
int wc_envelope_kind_from_name(const char *name, wc_envelope_kind *out);

/** What arrives at one server (per replica; docs/envelopes.md, "Workloads"). */
typedef struct {
	wc_envelope_kind kind;
	double concurrency;   /* closed: clients */
	double think_s;       /* closed: pause between a completion and the next request */
	double rate;          /* poisson/bursty: requests/s (when no profile) */
	double burstiness;    /* bursty: gamma shape; 1 = Poisson */
	/* optional piecewise-constant rate: profile_rate[i] until profile_until_s[i]
	 * (increasing); the last rate holds to the end of the horizon */
	size_t n_profile;
	const double *profile_until_s, *profile_rate;
	wc_length_dist input, output;
	/* replay: arrival times (s from the start, non-decreasing) and the
	 * requests' lengths (NaN = drawn from input/output) */
	size_t n_arrivals;
	const double *arrival_s, *arrival_input, *arrival_output;
	/* n_series: running requests, each sample held series_dt_s */
	size_t series_len;
	const double *series_running;
	double series_dt_s;
} wc_envelope_workload;

/** A workload with nothing set (closed loop of 0 would be refused). */
void wc_envelope_workload_init(wc_envelope_workload *w);
/** Check a workload; messages name the field ("rate: must be ...",
 *  "series_running/3: ...", "arrival_s: empty replay log"). */
int wc_envelope_workload_check(const wc_envelope_workload *w, wc_error *err);
/** Requests one server is expected to receive over a simulation of
 *  `warmup_s` + `horizon_s` (open loop: the integral of the rate, the
 *  first rate holding over the warm-up; replay: the log's arrivals before
 *  the horizon's end; closed loop: its clients, the first requests only --
 *  later ones come back with completions; n(t): 0). */
double wc_envelope_workload_requests(const wc_envelope_workload *w, double warmup_s, double horizon_s);

/* ------------------------------------------------------------ power map */

/** Per-GPU power as a function of the engine's state: P0 + dynamic_w(n)
 *  + prefill_w while a prefill runs. The law-based map below is one
 *  implementation; a workload-aware law can provide another. */
typedef struct {
	double (*dynamic_w)(const void *ctx, double running); /* W per GPU above P0 */
	const void *ctx;
	double idle_w;     /* P0 per GPU */
	double prefill_w;  /* increment per GPU while prefilling (prefill_level_w 0) */
	double prefill_level_w; /* > 0: a prefill draws this level above P0, the
	                         * increment max(0, level - dynamic_w(n)) */
	double max_w;      /* the board's power limit per GPU (0 or INFINITY: unknown);
	                    * the power never exceeds it */
	int tp;            /* GPUs per server */
	char source[48];
	/* The law's held-out error for this level (the parameter set's
	 * prediction_error stratum, docs/intervals.md); has_pe 0: none. */
	int has_pe;
	wc_pe_stratum pe;
} wc_power_map;

/** Storage of the law-based map (the frozen law bound to a configuration). */
typedef struct {
	wc_law_point law;
} wc_power_map_law;

/** The law-based map: dynamic power = the frozen law's at n (its point
 *  estimate, the configuration's measured idle power replacing P0 when
 *  given); while prefilling, for a prefill-aware law (saturating_prefill)
 *  the level A = phi x (P_max - P0) x clock factor, the increment
 *  max(0, A - D(n)); for other laws a constant increment
 *  response->prefill_ratio times the law's dynamic power at n = 32. The
 *  power never exceeds the platform's board limit (catalog max_power_w).
 *  `store` must outlive `out`. */
int wc_power_map_from_law(const wc_params *p, const wc_config *c,
                          const wc_response_params *response, wc_power_map_law *store,
                          wc_power_map *out, wc_error *err);

/* -------------------------------------------------------------- options */

typedef enum {
	WC_FLEET_INDEPENDENT = 0, /* each server its own arrival process */
	WC_FLEET_ROUND_ROBIN,     /* one arrival process, servers in turn */
	WC_FLEET_LEAST_LOADED,    /* one arrival process, to the server with least work */
	WC_FLEET_MODE_COUNT
} wc_fleet_mode;
/** "independent", "round_robin", "least_loaded". */
const char *wc_fleet_mode_name(wc_fleet_mode m);
int wc_fleet_mode_from_name(const char *name, wc_fleet_mode *out);

typedef struct {
	double horizon_s;     /* simulated time after the warm-up */
	double warmup_s;      /* simulated first and discarded (starts empty) */
	int replicas;
	uint64_t seed;
	int threads;
	double bin_s;         /* band bins (a multiple of the grid) */
	double sample_s;      /* meter cadence for the trace metrics (multiple of the grid) */
	int max_running;      /* the engine's concurrency limit (max_num_seqs) */
	double tau_s, hold_s; /* the response (prefill increment is in the power map) */
	double decay_s;       /* decay after the hold (0: none) */
	int fleet_size;       /* servers summed into the aggregate; 1 = one server */
	wc_fleet_mode fleet_mode;
} wc_envelope_options;

/** horizon 600 s, no warm-up, 20 replicas, seed 1, 1 thread, 1 s bins,
 *  0.1 s metric cadence, 256 running, the assumed response, one server. */
void wc_envelope_options_init(wc_envelope_options *o);
/** Messages name the option ("horizon_s: ...", "replicas: ..."). */
int wc_envelope_options_check(const wc_envelope_options *o, wc_error *err);

/* -------------------------------------------------------------- results */

/** A number over replicas: their mean and 5th / 95th percentiles. */
typedef struct {
	double value, lo, hi;
} wc_envelope_stat;

/** Trace metrics of one trace (docs/trace-metrics.md definitions), each
 *  over the replicas. Power metrics are of the whole group (tp GPUs;
 *  for a fleet, of all its servers). */
typedef struct {
	wc_envelope_stat mean_w, p5_w, p50_w, p95_w, max_w;
	wc_envelope_stat ramp_w_per_s, ramp_p95_w_per_s, spectral_entropy;
	wc_envelope_stat energy_j, energy_per_token_j, mean_running, output_tokens;
} wc_envelope_summary;

/** Per-bin band of one trace over the replicas. */
typedef struct {
	size_t n_bins;
	double bin_s;
	double *t_s;          /* bin starts */
	double *mean_w;       /* mean over replicas of the bin's mean power */
	double *p5_w, *p95_w; /* 5th / 95th percentile over replicas */
	double *mean_running; /* mean over replicas of the bin's mean n */
} wc_envelope_band;

/** The predictive 95 % interval of an envelope's mean and p95 power
 *  (docs/intervals.md, docs/envelopes.md "Outputs"): the law's held-out
 *  error of mean power (the power map's stratum) around the simulated
 *  value. It is not the Monte-Carlo spread over replicas (the lo / hi of
 *  wc_envelope_stat). NaN pairs: no interval (no prediction_error). */
typedef struct {
	double mean_lo, mean_hi, p95_lo, p95_hi;
} wc_envelope_interval;

typedef struct {
	wc_envelope_summary server;  /* one server (server 0 of a fleet) */
	wc_envelope_interval server_interval, fleet_interval;
	wc_envelope_band server_band;
	int fleet_size;
	wc_fleet_mode fleet_mode;
	wc_envelope_summary fleet;   /* the aggregate (= server when fleet_size 1) */
	wc_envelope_band fleet_band;
	double fleet_peak_w;         /* largest aggregate sample over every replica */
	int replicas;
	char service_source[48], power_source[48];
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_envelope_result;

/** Simulate. Invalid inputs are WC_EINVAL with the field named. */
int wc_envelope_run(const wc_envelope_workload *w, const wc_service_times *st,
                    const wc_power_map *pm, const wc_envelope_options *o,
                    wc_envelope_result *out, wc_error *err);
void wc_envelope_result_clear(wc_envelope_result *r);

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
 *  (WC_EINVAL naming the workload field that sets the count). */
int wc_envelope_requests_check(const wc_envelope_workload *w, const wc_envelope_options *o, double servers,
                               double max_requests, wc_error *err);

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

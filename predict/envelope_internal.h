/*
 * Private to predict/: the pieces of the envelope simulation
 * (docs/envelopes.md) shared by its files -- random draws on a PCG32
 * stream through GSL's distributions, arrival generators, the engine of
 * one server, the trace metrics of a simulated trace, and one replica's
 * simulation.
 */
#ifndef WC_PREDICT_ENVELOPE_INTERNAL_H
#define WC_PREDICT_ENVELOPE_INTERNAL_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "models/stats.h"
#include "predict/envelope.h"
#include "predict/envelope_budget.h"
#include "predict/predict.h"

/* A fleet sharing one arrival process runs its servers at once, each on a
 * grid of its own so each is limited alone (docs/envelopes.md, "Board
 * limit"): servers x bins beyond this many doubles (128 MB per replica
 * in flight) are refused. */
#define WC_ENVELOPE_FLEET_BINS ((size_t)1 << 24)

/** The most servers' own grids of `len` bins WC_ENVELOPE_FLEET_BINS holds:
 *  the one bound the up-front check (wc_envelope_work_check), a plan's
 *  search and the simulation's backstop (envelope_sim.c) all read. A
 *  grid of no bins bounds nothing. */
static inline size_t
wc__envelope_fleet_grids_max(size_t len)
{
	return len ? WC_ENVELOPE_FLEET_BINS / len : SIZE_MAX;
}

/* The idle draw of `gpus` GPUs under map `pm` (the run's measured idle
 * where it has one, else the level's P0), or NaN when the map knows none:
 * the floor every envelope and plan interval is held at. */
static inline double
wc__envelope_idle_w(const wc_power_map *pm, double gpus)
{
	return pm->idle_w > 0.0 ? pm->idle_w * gpus : NAN;
}

/* ----------------------------------------------------- service times */

/** Point `out` at the capacity model's decode step and prefill of `store`
 *  (predict/envelope_capacity.c), named `source`: the fitted level and the
 *  stand-in share them. */
/* The envelope's refusal of a workload whose mean request the KV cache
 * cannot hold, with predict's sizes (wc__predict_kv_refusal), into `msg`;
 * 0 (nothing written) when `st` is not the capacity model's. */
int wc__capacity_kv_refusal(const wc_service_times *st, const char *field, double in, double out, char *msg,
                            size_t cap);
void wc__capacity_service_times(wc_capacity_service_store *store, const char *source, wc_service_times *out);
/** 1 when `st` is the capacity model's (fitted or stand-in), then (unless
 *  `copy` is NULL) `out` is the same service at `sm_clock_mhz` (0: free),
 *  reading `copy`; 0 for service times made otherwise. */
int wc__capacity_service_at_clock(const wc_service_times *st, double sm_clock_mhz, wc_capacity_service_store *copy,
                                  wc_service_times *out);

/** The board's limit as a clock (docs/envelopes.md, "Board limit"): when
 *  it binds for the workload's steady load, the service times and the
 *  power map at the clock `predict` settles at there. */
typedef struct {
	int settled;            /* 1: `st` and `pm` are at clock_mhz; 0: the run's own */
	double clock_mhz;       /* the settled clock */
	double law_w, limit_w;  /* per GPU: the law at the clock asked, and the limit */
	double rate;            /* the steady load: requests/s (open loop), else 0 */
	double clients;         /* ... or its clients (closed loop) */
	wc_capacity_service_store cs;
	wc_service_times st;
	wc_power_map_law law;
	wc_power_map pm;
} wc__envelope_settled;

/** wc_power_map_from_law, its clock caveats (clock_note, clock_low_note:
 *  predict's words) naming `clock_field` as what set the clock:
 *  "sm_clock_mhz" for a lock, "platform" for the clock the board's limit
 *  settles at (docs/envelopes.md, "Board limit"). */
int wc__power_map_from_law_by(const wc_params *p, const wc_config *c, const char *clock_field,
                              const wc_response_params *response, wc_power_map_law *store, wc_power_map *out,
                              wc_error *err);
/** The map's span caveats again, each quantity (tp, model size) the
 *  capacity service times left as well named with that span `cap_span`
 *  ([k][1] = 0: not left), one line for both, joined[k] then 1: the power
 *  answer's rule (wc__predict_span_notes; docs/capacity.md, "Warnings").
 *  Nothing changes for a map not bound from a parameter set, nor when no
 *  span is left (the notes as bound are those words). */
void wc__power_map_join_spans(wc_power_map *pm, const double (*cap_span)[2], int joined[WC_SPANS_BOTH]);
/** Settle `s` for the run (s->settled 0 when the limit does not bind, the
 *  workload is an n(t) or a closed loop with a think time, or the service
 *  times or power map were not bound from a parameter set). Fails only
 *  when out of memory. */
int wc__envelope_settle(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                        const wc_envelope_options *o, wc__envelope_settled *s, wc_error *err);
/** 1 with `note` set when the board's limit holds the law (docs/envelopes.md,
 *  "Board limit"): settled (`set`), the clock the run served and drew at;
 *  not (`set` NULL or unsettled: a budget plan, which keeps the clock asked,
 *  or a run predict could not settle), the law at the servers' mean
 *  running count `n_mean` above the limit, the service at the clock asked
 *  (an n(t)'s, which has no service, its running count as given). Else 0
 *  and "". One rule for envelopes and budget plans of every workload. */
int wc__envelope_limit_note(const wc_envelope_workload *w, const wc_power_map *pm, const wc__envelope_settled *set,
                            double n_mean, char *note, size_t cap);

/** Power no board draws is no answer (wc_power_beyond_boards_step;
 *  docs/intervals.md, "Physical ceiling"): WC_ERANGE naming the platform,
 *  the load and (an n(t)) its share of the series' time when the law of
 *  map `pm` is beyond twice its boards' ceiling at any load a run of `w`
 *  can reach -- its samples, else 0 to its clients or `max_running` -- or
 *  WC_ENOMEM; WC_OK otherwise and when the map knows no limit. Checked on
 *  the map the run draws from (at the clock the board's limit settled),
 *  before it runs. */
int wc__envelope_beyond_boards(const wc_envelope_workload *w, const wc_power_map *pm, int max_running,
                               wc_error *err);

/* ------------------------------------------------------------ random */

/** A gsl_rng drawing from a PCG32 stream the caller owns. */
typedef struct {
	wc_pcg32 pcg;
	gsl_rng rng;
	int varied;   /* a length drawn came out another whole token than its
	               * distribution's fixed one (wc__length_sampler.fixed) */
} wc__envelope_rng;

void wc__envelope_rng_init(wc__envelope_rng *r, uint64_t seed, uint64_t stream);
/** A length distribution with its lognormal parameters worked out. */
typedef struct {
	const wc_length_dist *d;
	double mu, sigma;
	double fixed; /* the length it gives when it draws nothing: its mean
	               * (an empirical's first value) rounded and capped */
} wc__length_sampler;

void wc__length_sampler_init(wc__length_sampler *ls, const wc_length_dist *d);
/** One length (whole tokens >= 1, capped); sets r->varied when it is
 *  not ls->fixed (the servers drawing it may then differ). */
double wc__envelope_draw_length(wc__envelope_rng *r, const wc__length_sampler *ls);

/* ---------------------------------------------------------- arrivals */

/** Arrivals of one workload on the simulation clock (0 = start of the
 *  warm-up; workload times are shifted by `offset_s`). Open loop and
 *  replay generate them; closed loop is driven by completions through
 *  wc__arrivals_completed. `scale` multiplies rates and concurrency (a
 *  shared fleet of `scale` servers). */
typedef struct {
	const wc_envelope_workload *w;
	wc__envelope_rng *rng;
	double offset_s, end_s, scale;
	wc__length_sampler input, output;
	double next_t;        /* open loop: time of the next arrival */
	size_t next;          /* replay: next index */
	/* open loop: arrivals taken, and the most a simulation may take (a
	 * bound far above the expected count; beyond it `overflow` is set and
	 * no more arrive) */
	double taken, max_taken;
	int overflow;
	/* closed loop: pending arrival times (min-heap) */
	double *pending;
	size_t n_pending, cap_pending;
} wc__arrivals;

int wc__arrivals_init(wc__arrivals *a, const wc_envelope_workload *w, wc__envelope_rng *rng,
                      double offset_s, double end_s, double scale);
void wc__arrivals_clear(wc__arrivals *a);
/** The next arrival's time (INFINITY: none before end_s); does not consume it. */
double wc__arrivals_peek(const wc__arrivals *a);
/** Consume the next arrival and draw its lengths. */
void wc__arrivals_take(wc__arrivals *a, double *input, double *output);
/** Closed loop: a request completed at `t`; its client comes back. */
int wc__arrivals_completed(wc__arrivals *a, double t);

/* ------------------------------------------------------------ engine */

typedef struct {
	uint64_t finish;      /* step at whose end it completes */
	uint64_t admitted;    /* step that prefilled it */
	double input;
} wc__running_req;

typedef struct {
	double input, output;
} wc__waiting_req;

/** One server's engine (continuous batching) and where its power goes. */
typedef struct {
	const wc_service_times *st;
	const double *dynamic_w;    /* per GPU at n = 0..max_running */
	int max_running;
	double window_start, window_end; /* tokens counted in [start, end) */
	int busy;
	double t_end;               /* end of the step in progress */
	uint64_t step;              /* steps completed */
	uint64_t chunk;             /* steps in the one in progress */
	int n;                      /* running */
	double sum_input, sum_admitted;
	wc__running_req *heap;      /* min-heap on finish */
	wc__waiting_req *queue;     /* FIFO ring */
	size_t q_head, q_len, q_cap;
	double tokens;              /* generated in the window */
	/* Running requests of 0 output tokens (a replayed request that ended
	 * at its prefill): they run their admission step alone and generate
	 * no token (docs/envelopes.md, "Engine"). */
	int silent;
	int open, open_n;           /* the segment not yet added to the grids */
	double open_t0, open_t1, open_prefill;
	int n_grids;
	const wc_response_grid *grid[2];
	wc_response_state state[2];
} wc__server;

int wc__server_init(wc__server *s, const wc_service_times *st, const double *dynamic_w,
                    int max_running, const wc_power_map *pm, double hold_s, double decay_s);
void wc__server_clear(wc__server *s);
/** Send the server's power to `g` as well (at most two grids). */
void wc__server_add_grid(wc__server *s, const wc_response_grid *g);
/** A request arrives at `t` (queued; a step starts if the engine was
 *  idle). `a` tells when the next arrival is. */
int wc__server_arrive(wc__server *s, double t, double input, double output, const wc__arrivals *a);
/** Finish the step in progress (at s->t_end) and start the next one;
 *  completions are reported to `a` (closed loop). */
int wc__server_step(wc__server *s, wc__arrivals *a);
/** Requests in the engine or waiting. */
static inline int
wc__server_load(const wc__server *s)
{
	return s->n + (int)s->q_len;
}
/** Close the server's power at `t_end`. */
void wc__server_finish(wc__server *s, double t_end);

/* ------------------------------------------------------------ metrics */

/** Samples every `stride` grid values of `len`, from the first: the one
 *  count wc_envelope_samples reports and the metrics take. */
static inline size_t
wc__sample_count(size_t len, size_t stride)
{
	return len ? (len - 1) / stride + 1 : 0;
}

/** Trace metrics of one simulated trace, before the over-replica summary. */
typedef struct {
	double mean_w, p5_w, p50_w, p95_w, max_w, ramp_w_per_s, ramp_p95_w_per_s;
	double spectral_entropy, energy_j, energy_per_token_j, mean_running, output_tokens;
} wc__trace_stats;

#define WC__TRACE_STAT_COUNT 12
double wc__trace_stat_get(const wc__trace_stats *s, int i);
wc_envelope_stat *wc__summary_slot(wc_envelope_summary *s, int i);

/** Why the summary's energy per output token, the ratio of the
 *  replicas' totals, lies outside the 5th-95th percentile of their own
 *  ratios (replicas that served no token add energy and no ratio; a
 *  few tokens give a large one): 1 and a note naming `label`'s (NULL:
 *  the server's) value, spread and idle replicas; 0 when inside. */
int wc__envelope_per_token_note(const wc__trace_stats *st, int replicas, const wc_envelope_summary *s,
                                const char *label, char *note, size_t cap);

/** Scratch of the metrics, kept by one worker between traces. */
typedef struct {
	double *buf;          /* 4 * cap + 4 doubles */
	size_t cap;
	wc_stats_fft fft;     /* FFT tables kept between traces of one length */
} wc__stats_ws;

int wc__stats_ws_reserve(wc__stats_ws *ws, size_t len);
void wc__stats_ws_clear(wc__stats_ws *ws);

/** Metrics of the node trace `y` (len grid bins of dt): mean and energy
 *  over every bin, the distribution, ramps and entropy on the samples
 *  taken every `stride` bins. */
int wc__trace_stats_compute(const double *y, size_t len, double dt, size_t stride,
                            wc__stats_ws *ws, wc__trace_stats *out, wc_error *err);
/* ---------------------------------------------------- one replica */

/** What a replica needs besides the inputs: its scratch, owned by one
 *  thread. */
typedef struct {
	const wc_envelope_workload *w;
	const wc_service_times *st;
	const wc_power_map *pm;
	const wc_envelope_options *o;
	const double *dynamic_w;   /* table at n = 0..max_running */
	size_t len, skip;          /* grid bins in all, warm-up bins */
	double *power[2], *running[2];
	wc__stats_ws ws;
	double tokens_acc[2];      /* output tokens: server 0, all servers */
	double waiting_end;        /* requests still waiting at the end, all servers */
	double held[2];            /* server 0 in the horizon: idle time the hold
	                            * kept busy, s, and its dynamic energy, W*s
	                            * per GPU (wc_response_state_count) */
	double *kept[2];           /* per bin: the share of it kept above P0, by
	                            * running requests or by the hold and decay
	                            * (wc_response_grid's `loaded`; NULL: not kept) */
	int varied;                /* set (never cleared here) when a server drew a
	                            * length other than its distribution's fixed
	                            * one: servers not seen in step */
} wc__replica_ctx;

/** Simulate `servers` servers on streams first_stream + k (independent)
 *  or one shared process on first_stream (round robin, least loaded),
 *  into grid 0 (server 0) and grid 1 (their sum, when servers > 1, of
 *  each server limited alone; docs/envelopes.md, "Board limit");
 *  leaves the node traces (after the response, warm-up removed) in
 *  power[0] and power[1] and mean running per bin in running[0/1];
 *  `tokens` receives the output tokens of server 0 and of all. */
int wc__replica_simulate(wc__replica_ctx *c, int servers, wc_fleet_mode mode,
                         uint64_t first_stream, double tokens[2], wc_error *err);

/* The ceiling of one replica's mean power, W (docs/intervals.md,
 * "Physical ceiling"): its grid bins' loaded share per server (`loaded`,
 * the replica's `kept`: the time requests ran, below one a duty cycle, and
 * the time the hold and decay keep busy) as a load histogram whose idle
 * share draws `floor_w` and the rest at most `ceiling_w` (per server;
 * wc_load_histogram_ceiling_w, predict's rule), times `servers`. `loaded`
 * (len bins) is overwritten. NaN on no memory. */
double wc__envelope_replica_ceiling(double *loaded, size_t len, int servers, double floor_w, double ceiling_w);
/* How long one request of `input` + `output` tokens lives at least, s:
 * its prefill and its output's decode steps alone in the engine (a step
 * only lengthens with more requests). NaN without service times. */
double wc__envelope_request_life(const wc_service_times *st, double input, double output);
/* 1 when `w` draws its arrivals at random (poisson, bursty, with or
 * without a rate profile): one realisation's load is not the workload's
 * (docs/intervals.md, "Physical ceiling"). */
int wc__envelope_arrivals_random(const wc_envelope_workload *w);
/* The ceiling of the mean power of `servers` servers under random
 * arrivals `w` over `o`'s horizon, W (docs/intervals.md, "Physical
 * ceiling"), from the workload, not a realisation: predict's open-loop
 * ceiling (wc_law_loop_ceiling_w), averaged over the horizon, at each
 * moment's mean count -- the arrivals expected over a request's life
 * before it, the life a request's alone (wc__envelope_request_life) with
 * the hold and decay after it, or longer where the replicas' mean count
 * per server (`m_sim`) says so, so that a rate profile's requests run
 * past their step -- scaled by the upper 97.5 % quantile of the horizon's
 * arrivals over their mean. *m_out: the workload's mean count per server
 * (0: it has no load). NaN when no ceiling can be said (no service
 * times). */
double wc__envelope_open_ceiling(const wc_envelope_workload *w, const wc_envelope_options *o,
                                 const wc_service_times *st, const wc_power_map *pm, int servers, double m_sim,
                                 double *m_out);
/* The predictive interval of the mean and p95 of `s` (servers' summary):
 * the law's held-out error around the simulated value, the mean held at
 * `ceiling_w` and both at the servers' idle draw; none (NaN) without a
 * prediction_error or when nothing runs -- `load`, the servers' mean
 * count (the workload's under random arrivals), not above 0 -- (returns
 * 1 then: the caller says so, WC_ENVELOPE_IDLE_NOTE). `*n_draws`: the
 * calibration's draws the interval folds in (wc_power_map_pe), 0 when
 * none or no interval -- the caller's few-draws caveat. */
int wc__envelope_predictive(const wc_power_map *pm, const wc_envelope_summary *s, int servers, double ceiling_w,
                            double load, wc_envelope_interval *iv, int *n_draws);

/* The engine's concurrency limit the KV cache allows (docs/envelopes.md,
 * "Engine"): `eff` is `o` with max_running lowered to what the cache holds
 * at the workload's mean lengths (`note`, one warning, says so; "" when
 * unchanged); a request that cannot fit at all is refused naming the
 * length. An n(t) or service times without a memory model change nothing. */
int wc__envelope_kv_cap(const wc_envelope_workload *w, const wc_service_times *st, const wc_envelope_options *o,
                        wc_envelope_options *eff, char *note, size_t cap, wc_error *err);
/* 1 with `note` set when the workload's mean request (input + output)
 * exceeds the model's context, as a capacity answer says it
 * (predict/capacity.c); else 0 and "". */
int wc__envelope_context_note(const wc_envelope_workload *w, const wc_service_times *st, char *note, size_t cap);

/* 1 with `note` set when the servers of an independent fleet of `servers`
 * (0: a plan's) of `w` ran in lockstep (`lockstep`, as
 * wc_envelope_fleet_seen_lockstep saw them): the
 * warning that its p95 and ramps are the synchronised worst case; for one
 * server (`servers` 1), when the clients of its closed loop with a think
 * time ran so: the warning that its trace is a square wave; or when
 * `w` is a replay whose missing lengths are drawn: the warning that its
 * arrivals are synchronised across servers though its lengths are not
 * (docs/envelopes.md, "Lockstep fleets"); or when `w` is a replay a
 * balancer splits: the warning that its one log is the fleet's load, not
 * each server's (docs/envelopes.md, "Fleets"); else 0 and "". One rule for
 * envelopes and plans. */
int wc__envelope_fleet_note(const wc_envelope_workload *w, wc_fleet_mode mode, int lockstep, int servers, char *note,
                            size_t cap);

/* 1 and the warning, written to `note` (cap bytes), when `w` is a closed
 * loop without a think time: its running count is steady, so its ramps
 * and entropy are its prefill waves' alone, lower bounds of a measured
 * trace's (docs/envelopes.md, "Closed loops against Fig. 29"); else 0
 * and "". */
int wc__envelope_steady_note(const wc_envelope_workload *w, char *note, size_t cap);

/* The servers a plan of `w` simulates at most, as its work bound charges
 * them: one for lockstep servers (wc_envelope_fleet_lockstep: every server
 * of the fleet is that one, docs/envelopes.md "Budget plans"), else
 * wc_envelope_budget_servers at the search bound of grids of `len` bins
 * (wc__plan_search_bound). */
double wc__envelope_plan_servers(const wc_envelope_workload *w, const wc_budget_options *bo, const wc_power_map *pm,
                                 wc_fleet_mode mode, size_t len);

/* The fleet sizes a plan probes (envelope_walk.c), read by the search and
 * by the work bound's charge alike: doubling from 1, each size clamped to
 * `max_k` and to `over`, the first size surely over the budget; then
 * bisection between `lo` (fits, 0 at first) and `hi` (does not). */
typedef struct {
	int lo, hi;     /* the largest size seen to fit; the smallest seen over (bisecting) */
	int next;       /* doubling's next size */
	int max_k;      /* the search bound */
	double over;    /* floor(budget / (tp x P0)) + 1, INFINITY without an idle power */
	int bisecting;
} wc__plan_walk;
void wc__plan_walk_start(wc__plan_walk *pw, int max_k, double over);
/* The next size to probe, 0 when the search is done. */
int wc__plan_walk_next(const wc__plan_walk *pw);
void wc__plan_walk_seen(wc__plan_walk *pw, int k, int fits);
/* The largest fleet a plan may probe: max_fleet, or fewer when servers
 * sharing one arrival process cannot be simulated together past that many
 * over grids of `len` bins (`*capped` 1 then, unless NULL). */
int wc__plan_search_bound(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode, size_t len,
                          int *capped);
/* floor(budget / (tp x P0)) + 1: the first fleet surely over the budget. */
double wc__plan_budget_over(const wc_budget_options *bo, const wc_power_map *pm);
/* The expected arrivals of one server run (a closed loop's at most), as
 * the work bound counts them. */
double wc__envelope_requests_per_server(const wc_envelope_workload *w, const wc_envelope_options *o,
                                        const wc_service_times *st);
/* 1 when `runs` server runs of a plan are over either work bound. */
int wc__plan_over(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
                  double runs, double max_work, double max_requests);
/* "budget_w to X W or less" (where the budget sets the servers a plan
 * probes, else "max_fleet to N or less"): the field's largest value whose worst case
 * is at most `ok` server runs, so that any at or below it answers. */
const char *wc__plan_within_text(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode,
                                 size_t len, double ok, char *buf, size_t cap);
/* A plan's search meters what it simulates (docs/http-api.md, "Bounds"):
 * WC_OK while `runs` server runs, the probes so far and the next, are
 * within both bounds, else WC_EINVAL naming what sets the servers
 * (budget_w, else max_fleet) and its largest value that always answers
 * (wc__plan_within_text). */
int wc__plan_meter(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
                   const wc_budget_options *bo, const wc_power_map *pm, double runs, double max_work,
                   double max_requests, const char *limit, wc_error *err);

/* 1 with `note` set when the cadence of `o` takes fewer than
 * WC_ENVELOPE_QUANTILE_SAMPLES samples of its horizon: p5, p50, p95 and
 * max are of those samples, mean_w of every grid value, so with few the
 * quantiles and the max may sit below the mean (docs/envelopes.md,
 * "Outputs"); else 0 and "". */
int wc__envelope_samples_note(const wc_envelope_options *o, char *note, size_t cap);

/* The share of the horizon an assumed hold (o->hold_assumed) kept at a
 * busy level over idle gaps, `share`, and the mean power it adds there,
 * `held_w` (server 0, the group), against its `mean_w`: 1 with `note`
 * set when that is more than WC_ENVELOPE_HOLD_NOTE_SHARE of mean_w, the
 * run at hold 0 that much lower (docs/envelopes.md, "Assumed response");
 * else 0 and "". One rule for envelopes and budget plans: a plan's
 * `plan` (NULL for an envelope) follows the mean at hold 0 in the words,
 * what the plan would be there (", the plan 13 servers") or whose mean
 * it is (", per server"). */
#define WC_ENVELOPE_HOLD_NOTE_SHARE 0.05
int wc__envelope_hold_note(const wc_envelope_options *o, double share, double held_w, double mean_w, const char *plan,
                           char *note, size_t cap);

/* 1 with `note` set when the workload's input and the simulated window
 * differ (docs/envelopes.md, "Engine"): an n(t) shorter than the warm-up
 * and horizon (idle after it) or longer (its end left out), a replayed
 * log whose requests arrive beyond the horizon (left out, counted) or
 * whose last arrival comes before half of it (the rest idle); else 0 and
 * "". One rule for envelopes and budget plans. */
int wc__envelope_window_note(const wc_envelope_workload *w, const wc_envelope_options *o, char *note, size_t cap);

/* 1 with `note` set when `waiting` requests per server still wait at the
 * end, more than the engine's `max_running` runs at once: a closed loop's
 * bounded queue, or an open loop's growing one (docs/envelopes.md,
 * "Engine"); else 0 and "". One rule for envelopes and budget plans. */
int wc__envelope_queue_note(const wc_envelope_workload *w, int max_running, double waiting, char *note, size_t cap);

#endif

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
 * Service times are in predict/envelope_service.h, the power mapping in
 * predict/envelope_power.h, budget plans in predict/envelope_budget.h.
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
#include "predict/envelope_power.h"
#include "predict/envelope_service.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The simulation grid, s. */
#define WC_ENVELOPE_GRID_S 0.05
/** Whether `x` (s) is a positive multiple of the grid, to 1e-6 of a step:
 *  the one test of horizon_s, warmup_s, bin_s, sample_s and a plan's
 *  budget_bin_s. */
int wc_envelope_on_grid(double x);
/** Bounds of the library (the HTTP API has tighter ones). */
#define WC_ENVELOPE_MAX_HORIZON_S (7.0 * 86400.0)
#define WC_ENVELOPE_MAX_REPLICAS 100000
#define WC_ENVELOPE_MAX_FLEET 1000000
#define WC_ENVELOPE_MAX_RUNNING 65536
#define WC_ENVELOPE_MAX_THREADS WC_THREADS_MAX /* models/limits.h */
#define WC_ENVELOPE_MAX_TOKENS 10000000.0
/** A lognormal length's sd: at most this many times its mean
 *  (wc_envelope_length_max_sd). Draws are cut at WC_ENVELOPE_MAX_TOKENS,
 *  and a wider lognormal holds most of its mean beyond the cut: the
 *  requests drawn would not have the mean asked (500 with sd 1e9: 127),
 *  and a closed loop, whose requests are bounded by their life at the
 *  mean lengths (docs/http-api.md, "Bounds"), would draw several times
 *  more than counted (docs/envelopes.md, "Workloads"). */
#define WC_ENVELOPE_MAX_LENGTH_CV 100.0
/** An n(t)'s samples: at most this far apart (s). */
#define WC_ENVELOPE_MAX_SERIES_DT_S 3600.0
/** A request's prompt: at least one token (a replayed output may be 0:
 *  a request that ended at its prefill). */
#define WC_ENVELOPE_MIN_INPUT_TOKENS 1.0
/** Burstiness (gamma shape) range: below 0.01 GSL's gamma draws round
 *  almost every gap to 0 and simulated time stops (docs/envelopes.md,
 *  "Workloads"). */
#define WC_ENVELOPE_MIN_BURSTINESS 0.01
#define WC_ENVELOPE_MAX_BURSTINESS 1000.0
/** Simulated requests one call may draw (expected arrivals x servers x
 *  replicas; the HTTP API has a tighter bound). */
#define WC_ENVELOPE_MAX_REQUESTS 2e8
/** Grid bins x server runs one call may step through (the HTTP API has a
 *  tighter bound): a near-idle server costs about 0.056 s per simulated
 *  week (12 million bins) on one core, so 1e11 is about 8 minutes of it. */
#define WC_ENVELOPE_MAX_WORK 1e11
/** A shared arrival process (least_loaded, round_robin) charges each grid
 *  bin x server this many times: its servers cannot batch decode steps
 *  past the fleet's next arrival, which may be anyone's (measured: 1 600
 *  A100 servers at 0.4 req/s each over 600 s, 0.35 s independent, 10.5 s
 *  round robin; 8 keeps a bound's cost near its independent one). */
#define WC_ENVELOPE_SHARED_WORK_COST 8.0
/** Sustained power is judged on means over this window: no mean over it
 *  exceeds the board's limit (docs/envelopes.md, "Board limit"). The
 *  trace metrics' own resolution (ramps between 1-s means), not fitted. */
#define WC_ENVELOPE_SUSTAINED_S 1.0

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
	/* replay: the log's requests when it holds more than are replayed
	 * (wc_envelope_workload_window: the first n_arrivals, those before the
	 * horizon's end); 0: n_arrivals, the whole log */
	size_t n_logged;
	/* n_series: running requests, each sample held series_dt_s, the last
	 * one series_last_s when > 0 (at most series_dt_s); or, when
	 * series_hold is set, sample i held series_hold[i] seconds (a file's
	 * samples at their own times: until the next, the last for the median
	 * step, wc_series_holds), and series_dt_s and series_last_s unused */
	size_t series_len;
	const double *series_running;
	double series_dt_s, series_last_s;
	const double *series_hold;
} wc_envelope_workload;

/** Seconds sample `i` of an n(t) workload holds (series_hold, or
 *  series_dt_s and the last series_last_s): the one rule the simulation
 *  and the series' span read. */
double wc_envelope_series_hold(const wc_envelope_workload *w, size_t i);
/** Seconds an n(t) workload's series covers: its samples' holds summed. */
double wc_envelope_series_span(const wc_envelope_workload *w);
/** A workload with nothing set (closed loop of 0 would be refused). */
void wc_envelope_workload_init(wc_envelope_workload *w);
/** Check a workload; messages name the field ("rate: must be ...",
 *  "series_running/3: ...", "arrival_s: empty replay log"). */
int wc_envelope_workload_check(const wc_envelope_workload *w, wc_error *err);
/** The largest sd a lognormal length of mean `mean` takes
 *  (WC_ENVELOPE_MAX_LENGTH_CV times it): the one rule of the library's
 *  check and the routes'. */
double wc_envelope_length_max_sd(double mean);
/** A replay as replayed over `horizon_s` (docs/envelopes.md, "Engine"):
 *  the requests arriving at or after the horizon's end are left out, so
 *  n_arrivals becomes those before it (its clock starts after the
 *  warm-up, which leaves none out) and n_logged the log's. Every statistic
 *  of the workload -- its mean lengths, the KV cache's limit and the
 *  warnings and refusals they give, its check, whether it draws at random
 *  -- is then over the requests replayed, not the log. The one place the
 *  window is applied: the CLI and the routes apply it once the horizon is
 *  known, wc_envelope_run and wc_envelope_budget again (it is
 *  idempotent). Other workloads are left as they are. */
void wc_envelope_workload_window(wc_envelope_workload *w, double horizon_s);
/** A replay's requests in its log (n_logged, else n_arrivals). */
size_t wc_envelope_workload_logged(const wc_envelope_workload *w);
/** Requests one server is expected to receive over a simulation of
 *  `warmup_s` + `horizon_s` (open loop: the integral of the rate, the
 *  first rate holding over the warm-up; replay: the log's arrivals before
 *  the horizon's end; closed loop: its clients, the first requests only --
 *  later ones come back with completions; n(t): 0). */
double wc_envelope_workload_requests(const wc_envelope_workload *w, double warmup_s, double horizon_s);
/** The workload's mean input (`input` 1) or output length: a replay's
 *  requests (its n_arrivals, those replayed once windowed:
 *  wc_envelope_workload_window) their own where they have one, the
 *  others the distribution's (the lengths the KV-cache bound and an
 *  answer's workload use). */
double wc_envelope_mean_length(const wc_envelope_workload *w, int input);

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
/** 1 when the servers of an independent fleet of `w` (`mode`
 *  WC_FLEET_INDEPENDENT) run in lockstep: `w` draws nothing at random
 *  (wc_envelope_draws_nothing: a replay whose lengths are all known or
 *  filled by a fixed one, an n(t), a closed loop whose lengths draw
 *  nothing). Its aggregate is the synchronised worst case,
 *  not that of independent servers (docs/envelopes.md, "Lockstep
 *  fleets"). 0 for a balancer, and for a replay whose missing lengths
 *  are drawn (its arrivals in step, its lengths each server's own). */
int wc_envelope_fleet_lockstep(const wc_envelope_workload *w, wc_fleet_mode mode);
/** Did the servers of a fleet of `w` run in step, as a run saw them:
 *  wc_envelope_fleet_lockstep, or (independent, a closed loop or a
 *  replay) no length drawn came out another whole token than its
 *  distribution's fixed one (`varied` 0): every server drew the same
 *  requests (docs/envelopes.md, "Lockstep fleets"). */
int wc_envelope_fleet_seen_lockstep(const wc_envelope_workload *w, wc_fleet_mode mode, int varied);
/** "lockstep" when `lockstep`, else wc_fleet_mode_name(mode): how answers
 *  name a fleet's mode from a result's or a plan's `lockstep`. */
const char *wc_envelope_fleet_mode_label(int lockstep, wc_fleet_mode mode);

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
	int hold_assumed;     /* 1: hold_s is the assumed one, neither fitted nor
	                       * given: a hold that moves mean_w by more than
	                       * WC_ENVELOPE_HOLD_NOTE_SHARE is said (docs/envelopes.md,
	                       * "Assumed response"); 0 (the default): not */
	int fleet_size;       /* servers summed into the aggregate; 1 = one server */
	wc_fleet_mode fleet_mode;
} wc_envelope_options;

/** horizon 600 s, no warm-up, 20 replicas, seed 1, 1 thread, 1 s bins,
 *  0.1 s metric cadence, 256 running, the assumed response, one server. */
void wc_envelope_options_init(wc_envelope_options *o);
/** Messages name the option ("horizon_s: ...", "replicas: ..."). */
int wc_envelope_options_check(const wc_envelope_options *o, wc_error *err);
/** An explicit n(t) is one server's: a balancer (fleet_mode other than
 *  independent) of a fleet, or of a plan's (`budget` 1), cannot split it
 *  (WC_EINVAL naming fleet_mode). */
int wc_envelope_fleet_check(const wc_envelope_workload *w, const wc_envelope_options *o, int budget,
                            wc_error *err);
/** Why the option `field` -- "input_tokens", "output_tokens",
 *  "max_running", "service" or "fleet_mode" -- is unused by a run of
 *  workload `kind`, a plan's when `budget`, of `fleet_size` servers:
 *  static text, or NULL when the run uses it. The one rule by which the
 *  CLI's flags and the HTTP routes' fields are refused rather than
 *  dropped unsaid (docs/cli.md, "envelope"; docs/http-api.md). */
const char *wc_envelope_option_unused(const char *field, wc_envelope_kind kind, int budget, int fleet_size);
/** A bin (band or budget) that fits the horizon: `bin_s` itself, or the
 *  horizon's whole grid steps (at least one) when it is longer. For a
 *  default the user did not ask for; a bin given is checked as given. */
double wc_envelope_bin_within(double bin_s, double horizon_s);
/** The samples a cadence of `sample_s` takes of a horizon on the grid:
 *  t = 0, sample_s, 2 sample_s, ... before horizon_s (the trace metrics'
 *  distribution, ramps and spectrum are of these; docs/envelopes.md). */
size_t wc_envelope_samples(double horizon_s, double sample_s);
/** The fewest samples whose p5 and p95 each have a 5 % tail of at least
 *  one sample. Fewer, and an answer's warning says its quantiles and max
 *  are of so few meter samples and may sit below its mean, which is exact
 *  over the horizon (docs/envelopes.md, "Outputs"). */
#define WC_ENVELOPE_QUANTILE_SAMPLES 20
/** The longest cadence that samples the horizon twice, t = 0 and once
 *  more: the horizon less one grid step, or one step for a horizon of one
 *  step (whose one value is the whole trace). Longer ones are refused
 *  (wc_envelope_options_check): t = 0 alone is the start's idle, every
 *  percentile and the max below the mean. */
double wc_envelope_sample_max(double horizon_s);
/** A default cadence that fits: `sample_s`, or wc_envelope_sample_max
 *  when longer. A cadence given is checked as given. */
double wc_envelope_sample_within(double sample_s, double horizon_s);

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
	/* the calibration's draws folded in (wc_power_map_pe): 0 when none
	 * varies this answer, as predict counts them, and its covers then
	 * does not claim them (wc_power_map_draws_covered) */
	int draws;
} wc_envelope_interval;

typedef struct {
	wc_envelope_summary server;  /* one server (server 0 of a fleet) */
	wc_envelope_interval server_interval, fleet_interval;
	wc_envelope_band server_band;
	int fleet_size;
	wc_fleet_mode fleet_mode;
	int lockstep;                /* its servers ran in step (wc_envelope_fleet_seen_lockstep) */
	wc_envelope_summary fleet;   /* the aggregate (= server when fleet_size 1) */
	wc_envelope_band fleet_band;
	double fleet_peak_w;         /* largest aggregate sample over every replica */
	/* The SM clock the run served and drew at when the board's power
	 * limit settled it for the workload's steady load, as `predict`
	 * settles it (docs/envelopes.md, "Board limit"); 0: the clock asked. */
	double service_clock_mhz;
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
/** 1 when `w` draws nothing at random: a replay whose every length is
 *  known or filled by a fixed one (a fixed distribution, or an empirical
 *  one of one value), an n(t), a closed loop whose lengths draw nothing.
 *  Its replicas would all be the same (predict/envelope_once.c). */
int wc_envelope_draws_nothing(const wc_envelope_workload *w);
/** The replicas of `o` a run simulates: 1 for a workload that draws
 *  nothing (wc_envelope_draws_nothing), else o->replicas. What the work
 *  bound and the command line's memory guard charge, and what
 *  wc_envelope_run_once_if_fixed runs. */
int wc_envelope_replicas_simulated(const wc_envelope_workload *w, const wc_envelope_options *o);
/** wc_envelope_run, but a workload that draws nothing at random
 *  (wc_envelope_draws_nothing) is simulated once: out->replicas is then 1
 *  whatever o->replicas asks, and the summaries' lo/hi equal their
 *  values (predict/envelope_once.c). */
int wc_envelope_run_once_if_fixed(const wc_envelope_workload *w, const wc_service_times *st,
                                  const wc_power_map *pm, const wc_envelope_options *o,
                                  wc_envelope_result *out, wc_error *err);

/** wc_service_select for the workload `w`: an n(t) uses no service times
 *  (out->source "none", `store` cleared), but a locked clock outside the
 *  board's range (wc_predict_clock_check), weights that cannot load on
 *  the group, or a tp vLLM cannot start, are refused for it as for every
 *  workload, by wc_predict_memory_check (docs/envelopes.md, "Which one"). */
int wc_service_select_workload(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                               wc_service_choice choice, wc_service_store *store, wc_service_times *out,
                               wc_error *err);

/** The capacity answer's calibrated-span warnings (docs/capacity.md,
 *  "Warnings") for the workload `w` (at its mean lengths) on `c`, into
 *  store->warnings: the same words as `predict` gives for tp, lengths and
 *  model size (the load moves over a trace and is not judged). None for
 *  the stand-in, whose fallback says what it is, or an n(t). With the
 *  power map `pm` (NULL: none) of the same configuration, a tp or model
 *  size outside both calibrations is said once, as `predict` says it: the
 *  map's span line names both spans and the capacity line is left out. */
void wc_service_calibration_notes(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                                  wc_service_store *store, wc_power_map *pm);

/** The envelope's or plan's own mean running count per server
 *  (`mean_running`, its answer's; a plan's judged_running, one server's
 *  when not even one fits) against the calibrated spans, by the
 *  rule `predict` judges a load with (wc__predict_span_notes;
 *  docs/envelopes.md, "Engine"): the line "mean_running: load ... is
 *  outside ..." (the power law's span, the capacity calibration's where
 *  its service times ran it, or one line naming both) and, beyond the
 *  runs, a level at a bound or saturating, appended to pm's span notes
 *  (those not said already). Nothing for a NaN or zero mean. */
void wc_envelope_load_notes(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                            const wc_service_store *store, wc_power_map *pm, double mean_running);

/** The warnings an envelope or a budget plan carries besides its own
 *  (docs/envelopes.md, "Outputs"), in the order said: the power map's
 *  (datasheet level, precision, clock, a clock below half the top one,
 *  another serving stack, the law's span caveats, no held-out error for
 *  the interval) and, unless the workload is an n(t), the
 *  service times' (fallback, calibration caveats). Pointers
 *  into `pm` and `ss` (NULL: none) into out[0..max); returns how many. */
#define WC_ENVELOPE_SETUP_WARNINGS (12 + WC_WARNINGS_MAX)
int wc_envelope_setup_warnings(const wc_power_map *pm, const wc_service_store *ss, const wc_envelope_workload *w,
                               const char **out, int max);


#ifdef __cplusplus
}
#endif
#endif

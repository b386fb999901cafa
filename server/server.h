/*
 * server/ — the HTTP face of wattcast (CivetWeb + jansson) and the JSON
 * representation of predictions shared by the REST API and `wattcast
 * ... --json`, so both print the same thing.
 *
 * The server answers from an immutable, reference-counted parameter set
 * that wc_server_reload swaps atomically; request handlers share no other
 * mutable state than atomic counters (metrics, requests in flight).
 * Routes, status codes and the error shape are described in
 * docs/http-api.md and in server/openapi.json, served at GET /openapi.json.
 *
 * Ownership: char * results are malloc'd; the caller frees them.
 */
#ifndef WC_SERVER_H
#define WC_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "data/runs_table.h"
#include "models/limits.h"

#include "predict/capacity_predict.h"
#include "predict/finetune_predict.h"
#include "predict/flexibility.h"
#include "predict/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/** JSON object for one inference prediction: node_power_w,
 *  per_gpu_power_w, idle_power_w, dynamic_power_w, mean_running,
 *  max_concurrency_fit (`max_fit`; null when NaN), interval_95
 *  ({"node_power_w": [lo, hi], "draws": B} or null), warnings (array of
 *  strings), capacity (the capacity answers of `cap`, or null when NULL;
 *  docs/http-api.md), params_version, and the configuration echoed back.
 *  `indent` > 0 pretty-prints. Returns NULL with `err` set on failure. */
char *wc_render_inference(const wc_inference_query *q, const wc_inference_prediction *pred,
                          const wc_capacity_prediction *cap, double max_fit,
                          const char *params_version, int indent, wc_error *err);

/** JSON object for a power-flexibility sweep (docs/http-api.md, "POST
 *  /v1/predict/flexibility"): sweep, unconstrained, steps (sm_clock_mhz,
 *  power_cap_w, node_power_w, throughput_tok_s, energy_per_output_token_j,
 *  latency_s, power_shed_w, throughput_lost_pct, pfi -- null when nothing
 *  is lost), knee_clock_mhz, knee_power_cap_w, energy_optimal_clock_mhz,
 *  interval_95 (null), warnings, params_version and the configuration. */
char *wc_render_flexibility(const wc_inference_query *q, const wc_flexibility *f, const char *params_version,
                            int indent, wc_error *err);

/** JSON object for one fine-tuning prediction (docs/http-api.md,
 *  "POST /v1/predict/finetune"): energy per step and per token, FLOPs and
 *  tokens per step, the total for `steps`, interval_95, the relation
 *  checks, warnings, params_version and the configuration echoed back. */
char *wc_render_finetune(const wc_finetune_query *q, const wc_finetune_prediction *pred,
                         const char *params_version, int indent, wc_error *err);

/** JSON array of the model catalog, one object per model with its
 *  architecture facts: GET /v1/models's `models`, the same builder, printed
 *  by `wattcast models --json` (docs/http-api.md, docs/cli.md "models"). */
char *wc_render_models(int indent, wc_error *err);
/* ------------------------------------------------------------ envelopes */

/** What an envelope or budget answer echoes besides its numbers: the
 *  inputs and where the service times, the response and the power came
 *  from. Everything borrowed. */
typedef struct {
	const wc_config *config;
	const wc_envelope_workload *workload;
	const wc_envelope_options *options;
	const wc_response_params *response;  /* the response used */
	const char *response_source;         /* "fitted", "assumed" or "request" */
	const wc_power_map *power;
	const wc_service_times *service;
	const char *params_version;
	int include_bins;                    /* 0 leaves the per-bin band out */
	const wc_service_store *service_store; /* what backs `service` (the capacity
	                                        * level's values, a fallback's
	                                        * reason); NULL for an explicit n(t) */
} wc_envelope_render;

/** JSON of an envelope (docs/http-api.md, "POST /v1/forecast/envelope"),
 *  shared by the API and `wattcast envelope --json`. NULL on failure. */
char *wc_render_envelope(const wc_envelope_render *ctx, const wc_envelope_result *res, int indent,
                         wc_error *err);
/** The per-bin values an envelope answer with its bins carries
 *  (docs/http-api.md, "Limits"): bins x the band's per-bin arrays (t_s,
 *  mean_w, p5_w, p95_w, mean_running) x the bands (the fleet's too when
 *  o->fleet_size > 1), the horizon's grid steps in blocks of bin_s, the
 *  last one partial. What WC_HTTP_MAX_BIN_VALUES bounds over HTTP and the
 *  command line's memory check charges for --json. */
double wc_envelope_bin_values(const wc_envelope_options *o);
/** JSON of a budget plan (docs/http-api.md, "POST /v1/plan/budget"): the
 *  plan alone, no wall-clock time, so that a request repeated gives the
 *  same bytes (the server gives its time in a Server-Timing header). */
char *wc_render_budget(const wc_envelope_render *ctx, const wc_budget_options *bo,
                       const wc_budget_plan *plan, int indent, wc_error *err);

/* ------------------------------------------------------------ serving */

/** Options of the HTTP server. Start from WC_SERVER_OPTIONS_INIT; zero
 *  fields take the documented default. Strings are copied. */
typedef struct {
	/** "HOST:PORT" (IPv4). NULL = "127.0.0.1:8080". Port 0 picks a free
	 *  port; read it back with wc_server_port. */
	const char *listen;
	/** Worker threads. An open connection holds one worker, so use at
	 *  least the number of concurrent clients and the reserve
	 *  (docs/http-api.md, "Limits"). 0 = WC_SERVER_DEFAULT_THREADS; 1 is 2. */
	int threads;
	/** Body limit of single-item routes, bytes. 0 = WC_SERVER_DEFAULT_MAX_BODY. */
	size_t max_body;
	/** Body limit of POST /v1/predict/batch. 0 = 8 * max_body. */
	size_t max_batch_body;
	/** Milliseconds a client may take to send a request's body once its
	 *  headers are in (a stalled body is cut with 408); also bounds how long
	 *  wc_server_stop waits for requests in flight. 0 = 10000 ms. Headers
	 *  must arrive within WC_SERVER_IO_TIMEOUT_MS (or this, if shorter),
	 *  which also bounds each wait for a read or a write. */
	int request_timeout_ms;
	/** 1 registers GET /v1/bench/trivial (the benchmark's baseline route). */
	int bench_trivial_route;
	/** Heavy requests (batches, flexibility sweeps, calibrations, envelopes, budgets) served at
	 *  once; more get 503 with Retry-After. 0 = the online CPUs, at least
	 *  WC_SERVER_MIN_HEAVY (docs/http-api.md, "Limits"). */
	int max_heavy;
	/** The wattcast executable POST /v1/calibrate runs its estimation in
	 *  (`wattcast calibrate --http-worker`, a process of its own: the
	 *  server never calls fit/, docs/architecture.md). NULL = the route
	 *  answers 503 calibration_unavailable. `wattcast serve` gives its own
	 *  executable. */
	const char *calibrate_worker;
	/** Milliseconds a calibration's worker may run before it is killed
	 *  and the route answers 504. 0 = WC_SERVER_CALIBRATE_TIMEOUT_MS. */
	int calibrate_timeout_ms;
} wc_server_options;

#define WC_SERVER_DEFAULT_THREADS 64
/** Longest wait for the headers of a request, and for any read or write
 *  to make progress (docs/http-api.md, "Limits"). */
#define WC_SERVER_IO_TIMEOUT_MS 1000
/** How long a kept-alive connection may wait for its next request's
 *  head, ms, as CivetWeb's keep_alive_timeout_ms takes it (a string). */
#define WC_SERVER_KEEP_ALIVE_MS "2000"
/** Work of one batch (docs/http-api.md, "POST /v1/predict/batch"), in
 *  units of one law evaluation (one sample in one bootstrap draw, about
 *  50 ns of one core): the sum of what its items are charged, counted on
 *  the request as sent. A batch above it is refused (413) before any item
 *  is computed; at the budget every kind of item measured at most about
 *  2 s of one core (measured there). */
#define WC_SERVER_BATCH_WORK_MAX 35000000.0
/** Per draw of the served set with the most (at least 1), an inference
 *  item is charged its samples (1 for a `concurrency`) plus this: its
 *  intervals' sorting and its answer. */
#define WC_SERVER_BATCH_CHARGE_ITEM 6.0
/** Per capacity draw (the power law's or the capacity section's, the
 *  larger), an item with input_tokens and output_tokens is charged this
 *  more at a concurrency (14 capacity answers, cost and CO2 among them)... */
#define WC_SERVER_BATCH_CHARGE_CLOSED 30.0
/** ... and this at a `rate`: the open-loop solve at its slowest (a rate
 *  just below the capacity takes 300 steps in every draw). */
#define WC_SERVER_BATCH_CHARGE_OPEN 175.0
/** A `power_cap_w` is charged its clock's answers, WC_CLOCK_CAP_EVALS (a
 *  series once for each count it settles, up to WC_SERIES_CLOCK_SETTLES)
 *  (predict/capacity_predict.h), for an open loop twice (it settles again
 *  at full load) and 2 more, three times over (its interval's two ends
 *  are the answers at other rates, each settled as the point is,
 *  docs/intervals.md "An open loop's ends"), at this each: one answer at one clock, no
 *  draws, charged as 18 us of one core. Measured with
 *  `build/bench/bench_cap_eval` (every catalog board x 3 models x 5
 *  loads, libquadmath loaded as in the server, Release build, thread CPU
 *  time on a shared 2-core machine; `sh bench/run_cap_eval.sh build 3`):
 *  at most 14.7-16.8 us (an open loop of the MoE Qwen3-30B-A3B on 2
 *  H100-PCIe, a board answered from its datasheet; 10.5-10.8 us on a
 *  level of the set). It was 800 while such an answer took up to
 *  32-36 us: a datasheet board's catalog lookups, estimated idle and
 *  transfer note are now remembered (models/platform_catalog.c,
 *  models/transfer.c, models/capacity_transfer.c). Not per draw: the
 *  draws come once, at the settled clock, charged above. */
#define WC_SERVER_BATCH_CHARGE_CAP_EVAL 360.0
#define WC_SERVER_DEFAULT_MAX_BODY ((size_t)1 << 20)
/** Request line and headers together, in bytes: CivetWeb's
 *  max_request_size (set to it in server.c); past it CivetWeb says
 *  "Malformed message" (400), as of a bad head. */
#define WC_SERVER_MAX_HEAD 16384
#define WC_SERVER_BATCH_MAX_ITEMS 10000
/** Parameter sets one server serves side by side (profiles). */
#define WC_SERVER_MAX_PROFILES 16
/** The default cap on heavy requests is never below this. */
#define WC_SERVER_MIN_HEAVY 2
/** The default wall-time bound of one calibration's worker
 *  (docs/http-api.md, "Limits"). */
#define WC_SERVER_CALIBRATE_TIMEOUT_MS 120000
/** The most bytes a calibration's worker may answer: the parameter file's
 *  bound and room for the rest of the answer. */
#define WC_SERVER_CALIBRATE_MAX_ANSWER (WC_PARAMS_MAX_BYTES + ((size_t)1 << 20))
#define WC_SERVER_OPTIONS_INIT                                                   \
	{ .listen = NULL, .threads = 0, .max_body = 0, .max_batch_body = 0,       \
	  .request_timeout_ms = 0, .bench_trivial_route = 0, .max_heavy = 0,      \
	  .calibrate_worker = NULL, .calibrate_timeout_ms = 0 }

typedef struct wc_server wc_server;

/** Start serving predictions from a copy of `params` (the caller keeps
 *  `params`). `source` names where they came from ("params.json",
 *  "profile:paper"; copied; may be NULL) and is reported by GET /v1/params.
 *  Also turns the GSL error handler off and fixes jansson's hash seed, so
 *  call it from the main thread before other threads use GSL or jansson.
 *  Callers that handle signals block them before this call (worker threads
 *  inherit the mask). On success the caller owns `*out` and releases it
 *  with wc_server_stop. Bind failures are WC_EIO with the reason. */
int wc_server_start(const wc_server_options *opt, const wc_params *params,
                    const char *source, wc_server **out, wc_error *err);

/** Start serving `n` parameter sets side by side (profiles, named by
 *  each set's name, which must differ; the first is the default a request
 *  without "profile" gets). `sources[i]` as for wc_server_start (the
 *  array may be NULL). */
int wc_server_start_profiles(const wc_server_options *opt, int n, const wc_params *const *sets,
                             const char *const *sources, wc_server **out, wc_error *err);

/** The TCP port the server listens on (the real one when 0 was asked). */
int wc_server_port(const wc_server *srv);

/** Version (16 hex digits, see wc_params_fingerprint) of the parameter
 *  set new requests see. Copied into `out`. */
void wc_server_params_version(wc_server *srv, char out[17]);

/** One profile served, as a reload's log names it. */
typedef struct {
	char name[WC_NAME_MAX];
	char version[17];
	char source[256];            /* the file it was read from, or profile:NAME */
} wc_server_profile;

/** The profiles new requests see, in order, copied into `out`; their
 *  count (at most WC_SERVER_MAX_PROFILES). */
int wc_server_profiles(wc_server *srv, wc_server_profile out[WC_SERVER_MAX_PROFILES]);

/** What a reload changed in its profiles, one line each ending "\n",
 *  into `buf` (NUL-terminated, cut at `cap`): a profile whose file now
 *  names it otherwise (renamed, with both names), one dropped or added,
 *  and one whose version changed, each with its versions; "" when none
 *  changed. Profiles are paired by their file (docs/http-api.md,
 *  "Profiles"). */
void wc_server_profile_changes(const wc_server_profile *before, int n_before, const wc_server_profile *after,
                               int n_after, char *buf, size_t cap);

/** Swap in a new parameter set (copied from `params`) atomically: requests
 *  in flight finish on the old set, new requests see the new one. On
 *  failure the old set keeps serving and `err` says why. Not to be called
 *  concurrently with wc_server_stop. */
int wc_server_reload(wc_server *srv, const wc_params *params, const char *source,
                     wc_error *err);

/** Load `path` strictly (wc_params_load_file) and swap it in as with
 *  wc_server_reload. A broken file is refused; the old set keeps serving.
 *  Successes and failures are counted in GET /metrics. */
int wc_server_reload_file(wc_server *srv, const char *path, wc_error *err);

/** Swap in `n` sets as the new profiles, all at once: on any failure
 *  (a broken set, two with one name) every old profile keeps serving. */
int wc_server_reload_profiles(wc_server *srv, int n, const wc_params *const *sets,
                              const char *const *sources, wc_error *err);
/** Load every file of `paths` strictly and swap them in as one set of
 *  profiles; one broken file keeps the old set of all, and the message
 *  starts with that file's name. */
int wc_server_reload_files(wc_server *srv, int n, const char *const *paths, wc_error *err);

/** Stop gracefully and free the server: new requests get 503, requests in
 *  flight finish (bounded by the request timeout), then the listener and
 *  the workers stop and everything is released. NULL is a no-op. Never
 *  call it from a request handler or a signal handler. */
void wc_server_stop(wc_server *srv);

/* ------------------------------------------------------------ calibration */

/** The body of POST /v1/calibrate as the calibration's inputs
 *  (docs/http-api.md, "POST /v1/calibrate"), checked as the route checks
 *  it. The route reads it to refuse a bad body at once; the worker process
 *  that estimates (`wattcast calibrate --http-worker`) reads the same body
 *  again, so both see the very same runs and options. */
typedef struct {
	wc_runs_table *runs;           /* owned: wc_calibrate_request_clear */
	int platform_scope;            /* "scope": "platform" (else the model scope) */
	/* "" = absent */
	char model[WC_MODEL_NAME_MAX], platform[WC_NAME_MAX], relative_to[WC_NAME_MAX], name[WC_NAME_MAX];
	double idle_power_w, run_scatter; /* 0 = absent */
	int replicates;                /* the draws; -1 = none */
	uint64_t seed;
} wc_calibrate_request;

/** Read and check the JSON body `text` against `base` (the profile that
 *  calibrates; its draws set the default replicates). On failure
 *  (WC_EINVAL) the message is the route's 422 message. */
int wc_calibrate_request_read(const char *text, size_t len, const wc_params *base,
                              wc_calibrate_request *out, wc_error *err);
void wc_calibrate_request_clear(wc_calibrate_request *r);

#ifdef __cplusplus
}
#endif
#endif

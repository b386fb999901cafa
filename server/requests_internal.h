/*
 * Private to server/: request bodies into queries and answers -- the
 * inference, fine-tuning, batch, envelope and budget requests, and the
 * calibration's request and worker process.
 */
#ifndef WC_SERVER_REQUESTS_INTERNAL_H
#define WC_SERVER_REQUESTS_INTERNAL_H

#include <jansson.h>

#include "server/server.h"
#include "api_error_internal.h"
#include "http_internal.h"
#include "state_internal.h"

/* Body routes after their body is read: bytes in, answer out, no
 * connection. The routes call them; so do the fuzz harnesses
 * (tests/fuzz/), with arbitrary bytes, which is why they take the raw
 * body and not parsed JSON. */
void wc_answer_predict_inference(const wc_profiles *pf, const char *body, size_t len,
                                 wc_response *res);
void wc_answer_predict_batch(const wc_profiles *pf, const char *body, size_t len,
                             wc_response *res);

/* Inference requests (request.c). */

/** One parsed inference request: the query, what backs its pointers, and
 *  the capacity fields (docs/http-api.md). */
typedef struct {
	wc_inference_query q;
	double *series;          /* malloc'd (may be NULL): backs q.running_series */
	wc_model_info arch;      /* the catalog's, with explicit fields applied */
	int have_arch;           /* q.config.arch points at `arch` */
	int want_capacity;       /* output_tokens (and input_tokens) were given */
	double price_per_kwh, grams_co2_per_kwh; /* NaN = the parameter file's */
	double power_cap_w;      /* > 0: settle the clock under this cap per GPU */
} wc_inference_request;

/** Turn one request object into `r`; strings are borrowed from `item`.
 *  Free r->series afterwards (also on failure). */
int wc_inference_request_parse(const json_t *item, const wc_state *st, wc_inference_request *r,
                               wc_api_error *e);
/** `running_series` with `dt_s` of `obj` (the fields under JSON pointer
 *  `at`, "" at the top) into a malloc'd array `*series` of `*len` samples,
 *  which the caller frees (also on failure): 1 to WC_SERIES_MAX samples
 *  >= 0, dt_s > 0, a finite time-weighted mean. One reader for every
 *  route that takes an n(t) series. */
int wc__api_series_parse(const json_t *obj, const char *at, double **series, size_t *len, double *dt_s,
                         wc_api_error *e);
/** The configuration fields every route shares -- platform, tp,
 *  active_params_b | model (the catalog entry goes to c->arch), weights,
 *  kv_cache, sm_clock_mhz -- into `c` (other fields are the caller's
 *  business). Strings are borrowed from `item`. */
int wc_config_request_parse(const json_t *item, const wc_state *st, wc_config *c, wc_api_error *e);
/** Parse, predict and render one item with the profile it names: a new
 *  JSON object, or NULL with `e` set. */
json_t *wc_inference_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e);

/** One inference item parsed once, for both its charge and its answer
 *  (inference_answer.c): the profile it names and its request, or the
 *  refusal of either in `e`. Made by wc__inference_item_parse and owned by
 *  its caller, who frees it with wc__inference_item_free; strings are
 *  borrowed from the item's JSON, which must outlive it. Never copied:
 *  r.q.config.arch may point at r.arch. */
typedef struct {
	int ok;                  /* 1: st and r hold the request; 0: `e` says why it is refused */
	const wc_state *st;      /* the profile it names (NULL when that refused it) */
	wc_inference_request r;
	wc_api_error e;
} wc_inference_item;

/** `item` parsed with the profile it names into a new item, refused or
 *  not; NULL out of memory. */
wc_inference_item *wc__inference_item_parse(const json_t *item, const wc_profiles *pf);
void wc__inference_item_free(wc_inference_item *it);
/** Predict and render a parsed item: a new JSON object, or NULL with `e`
 *  set (its refusal, or the answer's). Spends `it` (its clock is settled
 *  in its request): answer it once, then free it. */
json_t *wc__inference_item_answer(wc_inference_item *it, wc_api_error *e);

/* Fine-tuning requests (request_finetune.c): one request object -> a
 * prediction object from the profile it names (default: the first), or
 * NULL with `e` set (422 with the field, 404 for an unknown model).
 * Strings are borrowed from `item`. */
json_t *wc_finetune_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e);

/** One batch item -> its answer object, or NULL with `e` set. */
/* The batch's work rule (server/route_batch.c, docs/http-api.md): the
 * draws an item pays for, and one item's charge in law evaluations
 * (`kind` names what it was charged as). A single inference request is
 * held to the same budget. */
void wc__batch_draws(const wc_profiles *pf, double *law, double *cap);
/** The same for one served set: *law, *cap raised to its draws. */
void wc__state_draws(const wc_state *st, double *law, double *cap);
/** `parsed` (NULL: not asked) lets an uncapped inference item be charged
 *  the board limit's settle where it can bind (wc__item_limit_binds): the
 *  item's slot, parsed into with the profiles `pf` when still NULL and
 *  left there, the caller's, for its answer (wc__inference_item_answer). */
double wc__item_work(const json_t *item, int inference, const wc_profiles *pf, wc_inference_item **parsed,
                     double law, double cap, const char **kind);
/** 1 when the board's limit can settle the clock of parsed inference
 *  item `it` (no power_cap_w) with the profile it names: the law at the
 *  most requests it can run -- its concurrency or a series' highest count,
 *  held to the KV cache with token lengths, an open loop's engine limit or
 *  else the KV cache's fit -- is over its board's limit
 *  (wc_predict_limit_may_bind; docs/http-api.md, "POST /v1/predict/batch").
 *  An item its parser or memory check refuses settles nothing: 0. One
 *  answer without draws; `it` is not changed. */
int wc__item_limit_binds(const wc_inference_item *it);
/** An inference request's charge from its shape (route_batch.c): `samples`
 *  (1 for a concurrency), a `series`, `capacity` 0 none, 1 closed, 2 open
 *  loop, `capped` 1 a power_cap_w, 2 the board's limit where it can bind
 *  (charged as a cap); `*kind` names it for a 413. */
double wc__inference_work(double samples, int series, int capacity, int capped, double law, double cap,
                          const char **kind);

/** `e` := the 413 of one request or item whose `work` is over the budget
 *  by itself (no split passes): field `at` (+ "/running_series" for a
 *  series), the message led by `who`, advising fewer samples. */
void wc__item_over_budget(wc_api_error *e, const char *at, const char *kind, const char *who, double work);

typedef json_t *(*wc_item_answer_fn)(const json_t *item, const wc_profiles *pf, wc_api_error *e);
/** Answer a batch body (a JSON array) item by item with `answer`;
 *  `what` names the items in the error for a body that is no array. The
 *  first reads the request's body; the second answers from its bytes. */
void wc_route_batch_of(wc_request *req, wc_response *res, wc_item_answer_fn answer, const char *what);
void wc_answer_batch_of(const wc_profiles *pf, const char *text, size_t len, wc_item_answer_fn answer,
                        const char *what, wc_response *res);

/* Envelope and budget requests (envelope_request.c). */

/** Bounds of the envelope routes (docs/http-api.md, "Limits"): values
 *  beyond them are 422; total work beyond WC_HTTP_MAX_WORK (grid bins x
 *  servers simulated) is 413. */
#define WC_HTTP_MAX_HORIZON_S 86400.0
#define WC_HTTP_MAX_REPLICAS 1000
#define WC_HTTP_MAX_FLEET 10000
#define WC_HTTP_MAX_PLAN_FLEET 100000
#define WC_HTTP_MAX_WORK 2e7
/** Requests one envelope or plan may simulate (expected arrivals per
 *  server x server runs); beyond, 413 naming the workload's rate. */
#define WC_HTTP_MAX_REQUESTS 5e6

/** One envelope or budget request, parsed; owns its arrays. */
typedef struct {
	wc_config c;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_response_params resp;
	const char *resp_source;
	int include_bins;
	wc_budget_options bo;
	wc_service_choice service;      /* "service": auto (absent), capacity or standin */
	double *arrival_s, *arrival_in, *arrival_out, *series, *in_values, *out_values;
	double *profile_until, *profile_rate;
} wc_envelope_request;

/** Parse `body` for POST /v1/forecast/envelope (budget = 0) or POST
 *  /v1/plan/budget (budget = 1) against the profile `st` it names (the
 *  caller selects it: wc_profiles_select). Strings are borrowed from
 *  `body`. */
int wc_envelope_request_parse(const json_t *body, const wc_state *st, int budget,
                              wc_envelope_request *r, wc_api_error *e);
void wc_envelope_request_free(wc_envelope_request *r);
/** The work bound of an envelope or plan (docs/http-api.md, "Bounds"),
 *  charged after the power map is bound (what a plan can simulate depends
 *  on the idle power; a closed loop's requests on `st`, NULL for n(t)):
 *  0, or -1 with a 413 naming the field to lower
 *  (server/route_envelope.c). */
int wc_envelope_request_bound(const wc_envelope_request *r, const wc_service_times *st, int budget,
                              const wc_power_map *pm, wc_api_error *e);
/** A library error whose message starts with a field, as an API error:
 *  `budget` 1 for the plan route (fleet_mode), 0 for the envelope route
 *  (the library's fleet_size / fleet_mode are its /fleet/size, /fleet/mode). */
void wc_envelope_library_error(const wc_error *err, int budget, wc_api_error *e);
/** The warnings of an envelope or plan naming a replay's own lengths
 *  (the library's arrival_input, arrival_output), renamed in place as its
 *  refusals name them: arrivals/input_tokens, arrivals/output_tokens
 *  (server/route_envelope.c). */
void wc_envelope_name_warnings(char (*warnings)[WC_WARNING_LEN], int n, int budget);

/** POST /v1/calibrate's body into `out` (calibrate_request.c): the
 *  fields, the options, then the runs; 422 at the field at fault. */
int wc__calibrate_request_parse(const json_t *body, const wc_params *base, wc_calibrate_request *out,
                                wc_api_error *e);
/** Run `wattcast calibrate --http-worker DIR` (calibrate_spawn.c) in
 *  the private folder `dir`, which holds its inputs, and wait for it at
 *  most the server's calibrate_timeout_ms; the child is always reaped.
 *  0 with `*status` its exit status, else -1 with the 500/504 in `e`. */
int wc__calibrate_spawn(const wc_server *srv, const char *dir, int *status, wc_api_error *e);
/** A private folder for one calibration (mkdtemp, 0700) into `dir`. */
int wc__calibrate_dir_make(char *dir, size_t cap, wc_api_error *e);
/** Remove `dir` and every file in it (the worker's inputs and answer). */
void wc__calibrate_dir_remove(const char *dir);

#endif

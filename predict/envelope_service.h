/*
 * Service times of trace envelopes (docs/envelopes.md, "Service times"): from
 * the capacity model (wc_capacity_service) when the parameter set has one
 * for the platform, else from the stand-in (wc_roofline_standin: memory
 * roofline with assumed efficiencies); wc_service_select chooses.
 * predict/envelope.h runs the simulation on them.
 *
 * Ownership: the stores hold what the callbacks read; they must outlive
 * the wc_service_times filled from them. Reentrant.
 */
#ifndef WC_PREDICT_ENVELOPE_SERVICE_H
#define WC_PREDICT_ENVELOPE_SERVICE_H

#include "models/models.h"
#include "models/warnings.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where the simulation gets its service times. `decode_step_s` is one
 *  engine step with `running` requests decoding at a mean context of
 *  `context_tokens` each; `prefill_s` is one request's prefill of
 *  `input_tokens`. Both must return finite values >= 0 and be safe to call
 *  from several threads on the same ctx. */
typedef struct {
	double (*decode_step_s)(void *ctx, double running, double context_tokens);
	double (*prefill_s)(void *ctx, double input_tokens);
	void *ctx;
	/* How many requests of these mean lengths the KV cache holds at once
	 * (wc_capacity_running_fit; INFINITY: no limit known). NULL: none. */
	double (*kv_running)(void *ctx, double input_tokens, double output_tokens);
	char source[48];   /* named in every result, e.g. "roofline_standin" */
	int context_tokens; /* the model's default context (models/catalog.h); 0 = unknown */
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
	double reserve;  /* memory vLLM keeps free (1 - gpu_memory_utilization) */
	/* A datasheet level's transfer (wc_capacity_bind_any): what it leans on,
	 * one warning line; "" for a fitted level. */
	char transfer_note[WC_WARNING_LEN];
	int context_tokens; /* the model's (models/catalog.h); 0 = unknown */
	char clock_board[WC_NAME_MAX]; /* the board whose clock range paces hw.clock_ratio */
} wc_capacity_service_store;

/** The stand-in (docs/envelopes.md, "Service times"): the capacity
 *  model's decode step and prefill (models/capacity_model.h) with its five step
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
 *  evaluated through models/capacity_model.h exactly as predict/capacity.c does
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
	char fallback[WC_WARNING_LEN]; /* auto fell back to the stand-in: why; or the
	                                * capacity level is a datasheet transfer: what it
	                                * leans on; else "" */
	/* The capacity calibration's caveats for the workload, as a capacity
	 * answer says them (wc_service_calibration_notes); none for the
	 * stand-in, whose fallback says what it is. */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
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

#ifdef __cplusplus
}
#endif
#endif

/*
 * The capacity model (docs/capacity.md): the time side of inference --
 * decode step time, prefill time, memory feasibility -- from a model's
 * bytes and FLOPs and a platform level's bandwidth and throughput, with
 * fitted efficiencies and overheads; and its section of a parameter file
 * (docs/formats/params-file.md). Pure arithmetic; no allocation except the
 * section's draws.
 *
 * Ownership: a wc_capacity_params owns its draws; release with
 * wc_capacity_params_clear, copy with wc_capacity_params_copy. Bindings
 * and lookups borrow from the section.
 */
#ifndef WC_MODELS_CAPACITY_H
#define WC_MODELS_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "models/catalog.h"
#include "models/draws.h"
#include "models/error.h"
#include "models/law.h"
#include "models/scalar.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_CAPACITY_MAX_LEVELS 16
#define WC_CAPACITY_MAX_WORKLOADS 16
/** Share of G x memory kept free for activations, the CUDA graphs and the
 *  engine: vLLM's default gpu_memory_utilization is 0.9. */
#define WC_CAPACITY_DEFAULT_RESERVE 0.10
/** Memory the engine keeps per GPU inside that share beside the weights
 *  and the KV cache (vLLM's activation workspace of its profiling pass,
 *  CUDA graphs, non-torch allocations), GB: measured from real vLLM
 *  runs' cache counters by validation/kv-workspace.sh, which prints this
 *  value (docs/capacity.md, "Memory as vLLM does it"). */
#define WC_CAPACITY_WORKSPACE_GB 1.64

/* ------------------------------------------------------- parameters */

/** The fitted quantities of the step time, per level or shared:
 *  eta   memory-bandwidth efficiency (share of the datasheet bandwidth)
 *  t0    fixed overhead per decode step, s
 *  t1    overhead per running request and decode step, s
 *  etac  compute efficiency (share of the dense BF16 datasheet FLOPS)
 *  tau   communication per layer and doubling of a tensor-parallel group
 *        (all-reduce), s
 *  tau_ep the same for an expert-parallel group (all-to-all), s; a section
 *        without it takes tau's (docs/capacity.md, "Step time") */
typedef enum {
	WC_CAP_ETA = 0, WC_CAP_T0, WC_CAP_T1, WC_CAP_ETAC, WC_CAP_TAU, WC_CAP_TAU_EP, WC_CAP_KINDS
} wc_capacity_kind;
/** "eta", "t0", "t1", "etac", "tau", "tau_ep". */
const char *wc_capacity_kind_name(wc_capacity_kind k);
/** The domain the fit keeps each quantity in (natural units). */
void wc_capacity_kind_bounds(wc_capacity_kind k, double *lo, double *hi);
/** Bounds of the per-workload mean input length the fit estimates. */
#define WC_CAPACITY_INPUT_MIN 16.0
#define WC_CAPACITY_INPUT_MAX 32768.0

/** Span of the calibration rows of one level (extrapolation warnings).
 *  Zero = unknown. */
typedef struct {
	double running_min, running_max;
	double input_min, input_max;
	double output_min, output_max;
	double active_b_min, active_b_max;
	int tp_min, tp_max;
	int rows;
} wc_capacity_range;

/** A platform level with the datasheet facts the model divides by (copied
 *  from the catalog when fitted, so a file is self-contained). */
typedef struct {
	char name[WC_NAME_MAX];
	double bandwidth_tb_s, bf16_tflops, memory_gb;
	wc_param p[WC_CAP_KINDS];   /* own values; unused where the kind is shared */
	wc_capacity_range range;
} wc_capacity_level;

/** A workload (`set`) whose mean input length the fit estimated because
 *  its rows do not say it (the published design, ML.ENERGY tasks). */
typedef struct {
	char set[WC_NAME_MAX];
	wc_param input_tokens;
} wc_capacity_workload;

typedef struct {
	int present;        /* 0: the parameter set has no capacity model */
	int shared[WC_CAP_KINDS];       /* 1: one value for every level */
	wc_param shared_p[WC_CAP_KINDS];
	/* 1: the section gives no tau_ep (a file before schema 18, a fit with
	 * no expert-parallel group, the paper profile): tau_ep holds tau's
	 * value, intervals and draws (wc_capacity_value_kind), and is written
	 * as absent (docs/formats/params-file.md, "capacity") */
	int tau_ep_tied;
	int n_levels;
	wc_capacity_level levels[WC_CAPACITY_MAX_LEVELS];
	int n_workloads;
	wc_capacity_workload workloads[WC_CAPACITY_MAX_WORKLOADS];
	double memory_reserve;          /* 0..0.9 */
	double price_per_kwh;           /* defaults for cost and carbon; NaN = none */
	double grams_co2_per_kwh;
	/* provenance; empty / 0 when not fitted */
	char calibrated_on[160];        /* what the numbers were fitted on */
	char input_sha256[65];
	int rows;
	/* The runs-table rows the fit used (schema 16, wc_run_id_hash of each
	 * one's platform and run id): a replay of one of them takes service
	 * times fitted on itself (docs/validation.md, "Envelopes"). */
	int n_run_hashes;
	uint64_t *run_hashes;
	uint64_t seed;
	int bootstrap;
	char tool_version[16];
	char created_utc[24];
	wc_draws draws;     /* bootstrap draws, named by wc_capacity_label */
} wc_capacity_params;

/** An empty section (present = 0, reserve at the default, no price). */
void wc_capacity_params_init(wc_capacity_params *c);
void wc_capacity_params_clear(wc_capacity_params *c);
/** Deep copy; `dst` is released first. */
int wc_capacity_params_copy(wc_capacity_params *dst, const wc_capacity_params *src, wc_error *err);
/** Structural check (names unique, values finite and positive where they
 *  must be, draws named after parameters). Messages name the element. */
int wc_capacity_params_validate(const wc_capacity_params *c, wc_error *err);
/** Own a copy of `n` row hashes as the section's run_hashes (n <= 0:
 *  none). */
int wc_capacity_params_set_runs(wc_capacity_params *c, const uint64_t *runs, int n, wc_error *err);
/** Level / workload by name, or NULL (borrowed). */
const wc_capacity_level *wc_capacity_level_find(const wc_capacity_params *c, const char *name);
const wc_capacity_workload *wc_capacity_workload_find(const wc_capacity_params *c, const char *set);

/** Label of a parameter in reports and the draws' columns: "eta[A100]"
 *  for a level's own value (`level` non-NULL), "etac" for a shared one;
 *  "input_tokens[SET]" for a workload (wc_capacity_workload_label). */
void wc_capacity_label(wc_capacity_kind k, const char *level, char *buf, size_t cap);
/** The kind whose values (point, draws) kind k takes in section c: tau for
 *  tau_ep when c->tau_ep_tied, else k itself. */
wc_capacity_kind wc_capacity_value_kind(const wc_capacity_params *c, wc_capacity_kind k);
/** Tie tau_ep to tau: tau_ep's value is set to tau's (shared or each
 *  level's) and tau_ep_tied to 1. */
void wc_capacity_tie_tau_ep(wc_capacity_params *c);
void wc_capacity_workload_label(const char *set, char *buf, size_t cap);
/** The named parameter itself (value, interval, source), or NULL. */
wc_param *wc_capacity_param_named(wc_capacity_params *c, const char *name);

/** What an answer on `level` leans on that the fit left at a bound of its
 *  domain (source WC_SRC_BOUND: the rows did not identify it): the
 *  level's own kinds, the shared kinds and, when `set` is non-NULL, that
 *  workload's input length, as "t0[H200] = 1e-06 s, ..." in `buf`
 *  (docs/capacity.md, "What the rows cannot identify"). Returns how many. */
int wc_capacity_bound_names(const wc_capacity_params *c, const char *level, const char *set, char *buf,
                            size_t cap);
/** What an answer on `level` leans on that the fit held at the other
 *  levels' median (the level's own parameters with source
 *  WC_SRC_ASSUMED and a value, where another level's rows identified the
 *  same kind: its rows ran it to an edge of the domain), as
 *  "t0[H200] = 1.72 ms, ..." in `buf` (docs/capacity.md, "What the rows
 *  cannot identify"). Returns how many. */
int wc_capacity_held_names(const wc_capacity_params *c, const char *level, char *buf, size_t cap);

/* ------------------------------------------------ bytes and FLOPs */

/** What a model costs per step, from its architecture and precisions. */
typedef struct {
	double weight_bytes;         /* every weight (what must fit in memory) */
	double shared_weight_bytes;  /* read by every decode step */
	double expert_weight_bytes;  /* MoE experts, read as touched; 0 dense */
	double k_over_e;             /* experts per token / experts; 0 dense */
	/* per request and token of context, over the whole group: the model's
	 * own cache times the copies the group keeps (wc_capacity_arch_place) */
	double kv_bytes_per_token;
	/* the same for the layers of a sliding window, which hold at most
	 * `window` tokens of a request (wc_capacity_kv_bytes) */
	double kv_window_bytes_per_token;
	int window, window_layers;
	double state_bytes;          /* recurrent state per request */
	double active_params;        /* N_act, parameters (not billions) */
	int layers;
	/* The width the prefill's attention products run at (docs/capacity.md,
	 * "Step time"): the catalog's attention_width, else attention_heads x
	 * head_dim, else d_model (a custom model that states no heads); 0 =
	 * none known. */
	int attention_width;
	/* 1: expert parallel -- the experts are spread over the group and
	 * the decode step charges every GPU a read of all the shared
	 * (non-expert) weights, which memory holds once (vLLM's data_parallel
	 * 1); 0 (wc_capacity_arch_make's default): tensor parallel, every
	 * weight split over the group (docs/capacity.md, "Step time"). */
	int expert_parallel;
	/* KV heads a tensor-parallel group splits; 0: a compressed latent
	 * (kv_dim, multi-head latent attention) that every GPU holds whole */
	int kv_heads;
} wc_capacity_arch;

/** Bytes per weight / per cached value: bf16 2, fp8 1, int4 0.5. */
double wc_capacity_bytes_per_value(wc_precision p);
/** Turn architecture facts into bytes and FLOPs. Needs layers, kv_heads
 *  and head_dim (or kv_dim) and the parameter counts; for MoE also experts
 *  and experts_per_token; kv_heads must divide attention_heads where both
 *  are known. Messages start with "architecture/<field>". */
int wc_capacity_arch_make(const wc_model_info *m, wc_precision weights, wc_precision kv,
                          wc_capacity_arch *out, wc_error *err);
/** Place the model on a group of `tp` GPUs (docs/capacity.md, "Step time"
 *  and "Memory as vLLM does it"): every GPU keeps at least one KV head, so
 *  a group larger than the model's KV heads keeps copies of them (tp /
 *  kv_heads, a whole number on any group vLLM starts), and a latent cache is kept whole on
 *  every GPU; both the memory check and the decode step's reads then
 *  count these copies. Expert parallel (`expert_parallel` != 0, MoE only)
 *  adds no weight copies to memory (vLLM keeps the shared layers tensor
 *  parallel with data_parallel 1); only the decode step charges each GPU
 *  the whole shared part. Call once, after wc_capacity_arch_make. */
void wc_capacity_arch_place(wc_capacity_arch *a, int tp, int expert_parallel);
/** Weight bytes one decode step with `tokens` tokens reads: all of them
 *  for a dense model; the shared weights plus the expected touched share
 *  1 - (1 - k/E)^tokens of the experts for MoE. */
double wc_capacity_weight_read(const wc_capacity_arch *a, double tokens);

/* --------------------------------------------------- step times */

/** One parameter vector of a level (the point estimate or one draw). */
typedef struct {
	double eta, t0, t1, etac, tau, tau_ep;
} wc_capacity_point;

/** The platform numbers the model divides by, in SI units. A locked SM
 *  clock scales the compute-bound terms (the decode step's compute and
 *  every prefill) by f / f_max; the memory-bound term does not change
 *  (docs/capacity.md, "Clocks and power caps"). */
typedef struct {
	double bandwidth_b_s, flops_s, memory_bytes;
	double clock_ratio;   /* f / f_max of a locked clock; 0 = unlocked (1) */
} wc_capacity_hw;

/** A board's datasheet numbers (TB/s, dense BF16 TFLOPS, GB) in SI units,
 *  unlocked: memory as the driver reports it where the catalog records it
 *  for `board` at that capacity (wc_platform_memory_bytes), else GB x 1e9.
 *  Every place that turns a level or a catalog row into the model's
 *  numbers goes through it. */
wc_capacity_hw wc_capacity_hw_datasheet(const char *board, double bandwidth_tb_s, double bf16_tflops,
                                        double memory_gb);

/** f / f_max for `sm_clock_mhz` on `platform` (the catalog's maximum SM
 *  clock); 0 when the clock is not locked (<= 0) or the catalog does not
 *  know the platform's clock range. */
double wc_capacity_clock_ratio(const char *platform, double sm_clock_mhz);

/** Little's law (docs/capacity.md, "Closed loop, open loop, energy"), the
 *  one place it is written: n requests in the system, each there for a
 *  latency W, leave at n / W a second, so an output rate of T = n L_out / W
 *  tokens/s; an open loop at rate lambda holds n = lambda W. The one edge
 *  rule: every form is NaN unless each of its inputs is finite and > 0. */
double wc_capacity_little_throughput(double running, double out_tokens, double latency_s);
/** The same law solved for the latency: W = n L_out / T. */
double wc_capacity_little_latency(double running, double out_tokens, double throughput_tok_s);
/** The same law solved for the running count: n = lambda W. */
double wc_capacity_little_running(double rate, double latency_s);
/** The same law solved for the rate n requests complete at: n / W. */
double wc_capacity_little_rate(double running, double latency_s);
/** Whether an arrival rate is at a capacity rate: within a part in 1e9,
 *  what the ten digits the answers print cannot tell apart. At capacity
 *  the queue is no more stable than over it (docs/capacity.md, "Closed
 *  loop, open loop, energy"), so the open loop counts it as over. */
int wc_capacity_rate_at(double rate, double capacity_rate);

/** Everything one closed-loop state gives (docs/capacity.md). */
typedef struct {
	double t_mem, t_cmp, t_tp;   /* terms of the decode step, s */
	double t_dec;                /* t0 + t1 m + max(t_mem, t_cmp) + t_tp, m = max(n, 1) */
	double t_pre;                /* prefill of one request, s */
	double latency_s;            /* L_out t_dec + max(n, 1) t_pre */
	double ttft_s;               /* t_pre + t_dec + (max(n, 1) - 1) t_pre / L_out */
	double throughput_tok_s;     /* n L_out / latency (wc_capacity_little_throughput) */
} wc_capacity_times;

/** Step time, prefill and the closed-loop answers at `n` running requests
 *  (n > 0) of `in_tokens` prompt and `out_tokens` generated tokens on a
 *  group of `tp` GPUs. The latency holds the request's whole own prefill
 *  at every n, fractional ones below 1 included, so it is never below
 *  ttft_s, which holds the share 1 / L_out of the others' prefills and
 *  equals it at one output token; an open loop takes it at the count a
 *  request meets, not at its mean count (predict/capacity_root_internal.h,
 *  wc__capacity_open_times; docs/capacity.md, "Closed loop, open loop,
 *  energy"). */
void wc_capacity_times_eval(const wc_capacity_point *pt, const wc_capacity_arch *a,
                            const wc_capacity_hw *hw, int tp, double n, double in_tokens,
                            double out_tokens, wc_capacity_times *out);
/** The decode step alone (t_dec, with its terms in the three outputs) at
 *  `n` running requests of mean context `context` tokens, and the prefill
 *  of one prompt alone: the numbers wc_capacity_times_eval gives, without
 *  the closed-loop answers (the envelope engine asks for them at every
 *  step). */
double wc_capacity_decode_terms(const wc_capacity_point *pt, const wc_capacity_arch *a,
                                const wc_capacity_hw *hw, int tp, double n, double context,
                                double *t_mem, double *t_cmp, double *t_tp);
double wc_capacity_prefill_time(const wc_capacity_point *pt, const wc_capacity_arch *a,
                                const wc_capacity_hw *hw, int tp, double in_tokens);

/** Keys the L queries of a causal prompt attend to in all, each query the
 *  keys up to it, or the last W of them in a sliding window (W <= 0:
 *  none): L (L + 1) / 2, else W (W + 1) / 2 + (L - W) W (docs/capacity.md,
 *  "Step time"). The prefill and fine-tuning's attention count by it. */
double wc_capacity_causal_pairs(double L, double W);

/* --------------------------------------------------------- memory */

/** Bytes `n` requests of `context` tokens each need: weights + KV cache +
 *  recurrent state. */
double wc_capacity_memory_need(const wc_capacity_arch *a, double n, double context);
/** KV cache bytes of one request at `context` tokens, over the group:
 *  every token on the full-attention layers, at most the window on the
 *  sliding-window ones. */
double wc_capacity_kv_bytes(const wc_capacity_arch *a, double context);
/** G x memory x (1 - reserve), bytes: the engine's share. */
double wc_capacity_memory_available(const wc_capacity_hw *hw, int tp, double reserve);
/** What of that share the weights and the KV cache get: less G x
 *  WC_CAPACITY_WORKSPACE_GB, bytes (may be <= 0). */
double wc_capacity_memory_for_model(const wc_capacity_hw *hw, int tp, double reserve);
/** Tokens per KV-cache block: vLLM's paged cache allocates a request's KV
 *  cache in whole blocks of --block-size tokens, 16 by default on CUDA
 *  GPUs (docs/capacity.md, "Memory as vLLM does it"). */
#define WC_CAPACITY_KV_BLOCK 16
/** `tokens` rounded up to whole blocks: ceil(tokens / 16) x 16, the cache a
 *  request of that context holds (one block at least; 0 for none). */
double wc_capacity_kv_block_tokens(double tokens);
/** The tokens of KV cache a running request holds on average over its
 *  life in steady state: its context, from the prompt to prompt + output,
 *  rounded up to whole blocks at each moment, averaged (about L_in +
 *  L_out / 2 + half a block once the output spans blocks; one block at
 *  least). */
double wc_capacity_kv_tokens_held(double in_tokens, double out_tokens);
/** Largest whole number of requests of `context` tokens each (rounded up
 *  to whole blocks, wc_capacity_kv_block_tokens) that fits (0 when the
 *  weights alone do not; INFINITY when a request needs no memory). */
double wc_capacity_max_concurrency(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp,
                                   double reserve, double context);
/** How many requests run at once when the KV cache is allocated in
 *  blocks as vLLM does (docs/capacity.md, "Memory as vLLM does it"): in
 *  steady state a request holds wc_capacity_kv_tokens_held tokens on
 *  average, and its recurrent state; the whole number of such requests
 *  the memory left after the weights holds. 0 when the weights alone do
 *  not fit; INFINITY when a request needs no memory. */
double wc_capacity_running_fit(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double reserve,
                               double in_tokens, double out_tokens);

/* ------------------------------------------ binding a level's values */

/** A level bound to the section: where each of its five numbers is found
 *  (the point value, or a column of a draws row). Built once per query,
 *  then evaluated for the point estimate and every draw alike. */
typedef struct {
	const wc_capacity_params *c;
	const wc_capacity_level *level;  /* a fitted level, or `own` */
	wc_capacity_hw hw;
	double base[WC_CAP_KINDS];
	int col[WC_CAP_KINDS];
	/* A datasheet level (wc_capacity_bind_any; datasheet 1): the catalog
	 * board's numbers in `own`, each per-level kind k the median over the
	 * n_src[k] fitted levels src[k] (docs/capacity.md, "Platforms without a
	 * capacity level"), for the point and in every draw (their columns
	 * src_col[k]). `level` then points into this struct: do not copy a
	 * binding, bind again. */
	wc_capacity_level own;
	int datasheet;              /* 1: a datasheet level; 0: a fitted one */
	/* Small types: a binding lives on the server's small worker stacks. */
	unsigned char n_src[WC_CAP_KINDS];
	unsigned char src[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS];
	int16_t src_col[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS]; /* -1: no column */
} wc_capacity_binding;

/** Bind `platform` (WC_ENOTFOUND "platform: ..." when the section has no
 *  such level). */
int wc_capacity_bind(const wc_capacity_params *c, const char *platform, wc_capacity_binding *b,
                     wc_error *err);
/** As wc_capacity_bind, and a platform the platform catalog knows but the
 *  section has no level for is bound to its datasheet: bandwidth, BF16
 *  FLOPS and memory from the catalog, each per-level efficiency and
 *  overhead transferred as the median of the fitted levels' (docs/capacity.md,
 *  "Platforms without a capacity level"); `b->datasheet` says so. */
int wc_capacity_bind_any(const wc_capacity_params *c, const char *platform, wc_capacity_binding *b,
                         wc_error *err);
/** The point estimate and platform numbers wc_capacity_bind_any gives,
 *  with the binding on the heap (for callers deep in a small worker
 *  stack); WC_ENOMEM, or the binding's refusal, else WC_OK. */
int wc_capacity_point_any(const wc_capacity_params *c, const char *platform, wc_capacity_point *pt,
                          wc_capacity_hw *hw);
/** One line for the answer's warnings on a datasheet binding ("" for a
 *  fitted level). */
void wc_capacity_transfer_note(const wc_capacity_binding *b, char *buf, size_t cap);
/** The level's numbers for the point estimate (`draw` NULL) or one row of
 *  the section's draws. */
void wc_capacity_bound_point(const wc_capacity_binding *b, const double *draw,
                             wc_capacity_point *out);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Capacity answers from a frozen parameter set (docs/capacity.md,
 * "Closed loop, open loop, energy"): latency, time to first token, throughput, energy per
 * output token / request / hour, cost and carbon, for a closed loop (n
 * requests in flight) or an open loop (arrival rate), each with a 95 %
 * interval from the draws of both laws (draw r of the power law paired
 * with draw r of the capacity section, the shorter list cycled); and the
 * memory check every inference prediction goes through.
 */
#ifndef WC_PREDICT_CAPACITY_H
#define WC_PREDICT_CAPACITY_H

#include "models/warnings.h"
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
	const char *level_source;   /* "fitted", or "datasheet" for a catalog board
	                             * the section has no level for (static text) */
	double value[WC_CAPQ_COUNT];            /* NaN = not asked (cost, CO2) */
	double lo[WC_CAPQ_COUNT], hi[WC_CAPQ_COUNT]; /* NaN without draws */
	int has_interval, n_draws;  /* any quantity has an interval; draws behind it */
	const wc_pe_stratum *pe_stratum; /* a held-out error that widened some
	                                  * (borrowed from the set); NULL =
	                                  * draws only */
	int pe_datasheet;           /* every held-out error that widened one is
	                             * a datasheet transfer's stratum */
	const char *covers[WC_CAPQ_COUNT]; /* what each interval covers (static
	                                    * text, docs/intervals.md) */
	double max_concurrency_fit; /* INFINITY when a request needs no memory */
	double memory_need_gb, memory_available_gb; /* need: weights + KV cache; available: G x memory x u */
	double memory_workspace_gb;  /* of the available, the engine's workspace (G x WC_CAPACITY_WORKSPACE_GB) */
	int over_capacity;          /* the rate exceeds what the group can serve */
	double running_max;         /* the most that run: the KV cache's or the
	                             * engine's limit (INFINITY: none) */
	double steady_power_w;      /* the group's draw while it serves, which a
	                             * cap or the board's limit settles the clock
	                             * on: an open loop below capacity's at its
	                             * mean count, a closed loop's at its count,
	                             * one running at least
	                             * (wc_load_serving_count); else
	                             * value[WC_CAPQ_POWER] (docs/capacity.md,
	                             * "Clocks and power caps") */
	double capacity_rate;       /* requests/s at the largest feasible concurrency */
	double price_per_kwh, grams_co2_per_kwh; /* used (NaN = none) */
	int both_line[WC_SPANS_BOTH]; /* 1 + the index of the warning that
	                             * quantity k (wc_span_both) is outside the
	                             * capacity calibration's span both_span[k];
	                             * 0 = none. A power answer names that span
	                             * in its own line of k
	                             * (wc_predict_join_span_lines) */
	double both_span[WC_SPANS_BOTH][2];
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_capacity_prediction;

/** Refuse a configuration that cannot load: weights larger than the
 *  group's usable memory (`tp: ...` naming the smallest group that holds
 *  them), or one request whose context alone overflows the KV cache
 *  (`input_tokens: ...`). More requests than fit are not refused: vLLM
 *  preempts and fewer run (docs/capacity.md, "Memory as vLLM does it").
 *  Uses the configuration's gpu_memory_utilization (`gpu_memory_utilization:`
 *  when outside 0.1-1), else the capacity section's reserve, and its
 *  platform facts, else the catalog's; without an architecture the weights
 *  are taken as N_act at the weights' precision (a lower bound).
 *  `*max_fit` (may be NULL) gets how many requests run at once
 *  (wc_capacity_running_fit), NaN when the token lengths are unknown. */
int wc_predict_memory_check(const wc_params *p, const wc_config *c, double *max_fit, wc_error *err);
/** The same refusals without the utilization remedy ("; or
 *  gpu_memory_utilization X or more"), for front ends that take no
 *  utilization (envelopes and budget plans, answered at the set's
 *  default): a remedy there could not be followed (docs/envelopes.md). */
int wc_predict_memory_check_fixed(const wc_params *p, const wc_config *c, wc_error *err);
/** The one rule of a load beyond the KV cache (docs/capacity.md, "Memory
 *  as vLLM does it"): of `n` requests asked, min(n, n_fit) run and the
 *  others wait; `n` when `n_fit` is NaN (the lengths unknown). A closed
 *  loop's concurrency and each sample of a running_series are held by it. */
double wc_predict_running_held(double n, double n_fit);
/** 1 when `c` asks expert parallel of a model with experts (its
 *  architecture names them): the group then holds the shared part whole
 *  on every GPU; a dense model's expert_parallel is answered tensor
 *  parallel, heads check included (docs/capacity.md, "Step time"). */
int wc_predict_spreads_experts(const wc_config *c);
/** The share of memory vLLM keeps free: 1 - the configuration's
 *  gpu_memory_utilization, else the capacity section's reserve, else
 *  WC_CAPACITY_DEFAULT_RESERVE. */
double wc_predict_memory_reserve(const wc_params *p, const wc_config *c);

/** The catalog board `platform` runs on under `p`: wc_platform_board
 *  with the level's S partner, so H100-locked and a level sharing S with
 *  H100 are H100s for their clocks, limit and memory; NULL when unknown.
 *  Borrowed from the catalog. */
const wc_platform_info *wc_predict_board(const wc_params *p, const char *platform);

/** Refuse a locked clock outside the range of the platform's board
 *  (wc_predict_board) as `sm_clock_mhz: ...`; a platform the catalog does
 *  not know passes. */
int wc_predict_clock_check(const wc_params *p, const wc_config *c, wc_error *err);

/** Cells of the scan over a board's clock range (docs/capacity.md, "Clocks
 *  and power caps"): P(f) need not fall with f (an open loop's running
 *  count grows as the service slows), so the solver looks at every cell
 *  rather than assuming one crossing; 48 puts a grid point every 25-35 MHz
 *  on the catalog's boards. */
#define WC_CLOCK_GRID 48
/** The settle in the first cell that meets: bisected to this width, MHz,
 *  then Brent's method to this share of the clock (clock.c). */
#define WC_CLOCK_BISECT_MHZ 0.01
#define WC_CLOCK_BRENT_REL 1e-13
/** Answers those two take at most, each one the power at one clock: the
 *  widest cell of the catalog (L40S, 2310 MHz / 48) halves to 0.01 MHz in
 *  13 steps; Brent is counted as if it halved from there to 1e-13 of the
 *  lowest clock, 29 steps (it took at most 14 over the catalog's boards;
 *  tests/test_power_settle.c holds the catalog to both). */
#define WC_CLOCK_BISECT_EVALS 13
#define WC_CLOCK_BRENT_EVALS 29
/** Answers (capacity answers with token lengths, headline power answers
 *  without; each at one clock, no draws) one power cap's clock costs at
 *  most (clock.c): the idle power, the free power, the top clock, the
 *  grid and the settle in its cell; then, for a cap above the board's
 *  limit, the limit's own solve from that clock down: the power there,
 *  the top again, the grid point the two scans share and a settle. What
 *  the server charges a cap (server/server.h, docs/http-api.md). */
#define WC_CLOCK_CAP_EVALS                                                                    \
	(3 + WC_CLOCK_GRID + WC_CLOCK_BISECT_EVALS + WC_CLOCK_BRENT_EVALS + 3 + WC_CLOCK_BISECT_EVALS + \
	 WC_CLOCK_BRENT_EVALS)

/** A running series under a cap settles the clock of at most this many of
 *  its distinct counts (series_clock.c: the lowest, the highest and, where
 *  the clocks between matter, steps spread between them, the rest
 *  interpolated); the server charges min(counts, this) cap settles. */
#define WC_SERIES_CLOCK_SETTLES 16

/** The clock a GPU of q->config settles at under a power cap of `cap_w`
 *  W per GPU (docs/capacity.md, "Clocks and power caps"): the highest
 *  clock in the platform's range at which P(f) <= cap, P the per-GPU power
 *  the answer gives at clock f (the capacity answer's with token lengths,
 *  the law's without), found by scanning the range on a fixed grid and
 *  bisecting the first cell that meets the cap (P need not fall with f:
 *  an open loop runs more requests at a slower clock). `*clock_mhz` = 0
 *  when the cap does not bind (the clock stays free); when no clock meets
 *  it, the clock of least power. Refused, naming `power_cap_w`: a cap at
 *  or below P0, both a cap and a locked clock, a platform without a clock
 *  range in the catalog. */
int wc_predict_power_cap(const wc_predictor *pr, const wc_inference_query *q, double cap_w, double *clock_mhz,
                         wc_error *err);

/** The board's power limit as a cap nobody set (docs/capacity.md, "The
 *  board's power limit"): a GPU holds its mean power under its board limit
 *  by lowering its clock, so when the answer's per-GPU power at
 *  q->config's clock (free, locked, or settled under a looser power cap)
 *  exceeds the limit of its board in the catalog, q->config.sm_clock_mhz
 *  becomes the highest clock at or below that clock where it meets the
 *  limit (the rule of wc_predict_power_cap; none meets it: the clock of
 *  least power), q->board_limit_w the limit and q->board_free_w the power
 *  before. Leaves the query as it is (board_limit_w 0) when the limit does
 *  not bind, the catalog has no limit or clock range for the platform, or
 *  a cap at or below the limit was given. Call after wc_predict_power_cap. */
int wc_predict_board_limit(const wc_predictor *pr, wc_inference_query *q, wc_error *err);
/** Whether the board's limit can settle q's clock at all, without settling
 *  it (a batch item's charge, docs/http-api.md "POST /v1/predict/batch"):
 *  1 when the law's per-GPU power at `running`, the most requests q can
 *  run (its concurrency, an open loop's engine or KV-cache limit, a
 *  series' highest count), closed loop at q's asked clock, exceeds the
 *  limit of its board as wc_predict_board_limit compares it; the law does
 *  not fall as the load rises, so 0 means no load q reaches settles. A
 *  power cap at or below the limit (which settles instead) gives 0, as do
 *  a board without limit or clock range. One answer without draws. */
int wc_predict_limit_may_bind(const wc_predictor *pr, const wc_inference_query *q, double running, int *may,
                              wc_error *err);

/** An open loop's capacity (out->capacity_rate) as one sustainable rate
 *  whatever rate was asked (docs/capacity.md, "The board's power limit"):
 *  at full load -- the engine's or the KV cache's limit running -- at the
 *  clock the board's limit (or q->power_cap_w) settles at then; a clock
 *  the user locked stays unless the board's limit at full load lowers it. `out` is q's answer from wc_predict_capacity;
 *  call after wc_predict_board_limit. A rate above that capacity that
 *  q's lighter-load clock would serve is over capacity: q's clock (and
 *  board_limit_w, board_free_w) become full load's and `out` the answer
 *  at capacity there. */
int wc_predict_capacity_sustained(const wc_predictor *pr, wc_inference_query *q, wc_capacity_prediction *out,
                                  wc_error *err);

/** The least power cap per GPU that does not bind on q (docs/capacity.md,
 *  "Power flexibility"), from `top`, q's capacity answer at its free
 *  clock: what the cap's rule compares a cap against there -- q's draw
 *  while it serves and, for an open loop, full load's, which
 *  wc_predict_capacity_sustained settles under the cap -- the larger, and
 *  no more than the board's limit, above which a cap is answered as none.
 *  The cap a power-cap sweep starts from. */
int wc_predict_cap_unbound(const wc_predictor *pr, const wc_inference_query *q, const wc_capacity_prediction *top,
                           double *cap_w, wc_error *err);

/** The clock every answer is given at, settled in one order: a locked
 *  clock checked against the board's range (wc_predict_clock_check), a
 *  power cap q->power_cap_w > 0 as the clock meeting it
 *  (wc_predict_power_cap), then the board's limit (wc_predict_board_limit).
 *  q->config.sm_clock_mhz, board_limit_w and board_free_w get the result. */
int wc_predict_settle_clock(const wc_predictor *pr, wc_inference_query *q, wc_error *err);

/** wc_predict_capacity at q's settled clock, then, for an open loop, its
 *  capacity at full load's clock (wc_predict_capacity_sustained). */
int wc_predict_capacity_settled(const wc_predictor *pr, wc_inference_query *q, double price_per_kwh,
                                double grams_co2_per_kwh, wc_capacity_prediction *out, wc_error *err);

/** q's open-loop answer at another `rate`, without intervals, its clock
 *  settled as q's is (wc_predict_settle_clock, then
 *  wc_predict_capacity_settled) from the clock q was asked at: a locked
 *  clock stays, one a power cap or the board's limit settled is settled
 *  again at that rate. What an open loop's held-out ends are
 *  (docs/intervals.md, "An open loop's ends"). */
int wc_predict_capacity_at_rate(const wc_predictor *pr, const wc_inference_query *q, double rate,
                                wc_capacity_prediction *out, wc_error *err);

/** The headline's running count from q's capacity answer `cap`: the
 *  count that runs (an open loop's solved mean; fewer than asked when the
 *  KV cache is full), and for an open loop below capacity the bound its
 *  Poisson count is averaged under (q->open_loop_max), so the headline's
 *  power is the capacity answer's (docs/capacity.md, "Closed loop, open
 *  loop, energy"). */
void wc_predict_take_running(wc_inference_query *q, const wc_capacity_prediction *cap);
/** One quantity, one line: where the power answer `pred` (asked at
 *  `cap`'s load through wc_predict_take_running) named the capacity
 *  calibration's span of a quantity (load, tp, active_params_b) beside its
 *  own, `cap`'s line of that span is dropped. Every answer that shows both
 *  calls it (docs/capacity.md, "Warnings"). */
void wc_predict_join_span_lines(const wc_inference_prediction *pred, wc_capacity_prediction *cap);
/** 1 when `cap`'s warning `i` is its line of a quantity a power answer at
 *  its load may name beside its own span (both_line), which that answer
 *  says instead when it does (docs/capacity.md, "Warnings"). */
int wc_predict_both_line(const wc_capacity_prediction *cap, int i);

/** The clock in [f_min, f_top] (f_top <= 0: the top of the platform's
 *  range) at which q->config's per-GPU power is least, on the grid
 *  wc_predict_power_cap scans (the higher clock on a tie), and that power
 *  (`power_w`, per GPU): the floor a power-cap sweep goes down to. */
int wc_predict_power_floor(const wc_predictor *pr, const wc_inference_query *q, double f_top, double *clock_mhz,
                           double *power_w, wc_error *err);

/** The capacity answers for q->config (arch, input and output tokens, and
 *  running or request_rate; running is then the engine's cap). Price and
 *  carbon intensity NaN fall back to the capacity section's defaults.
 *  Errors name the field ("output_tokens: ...", "model: ...", "tp: ...",
 *  "concurrency: ..."). */
int wc_predict_capacity(const wc_predictor *pr, const wc_inference_query *q, double price_per_kwh,
                        double grams_co2_per_kwh, wc_capacity_prediction *out, wc_error *err);

/** What a capacity answer's intervals cover together, its summary `covers`
 *  (wc_interval_covers' words; each quantity's is `cp->covers[k]`): the
 *  held-out error "of datasheet transfers" where every stratum that widened
 *  them is a transfer's (docs/intervals.md, "Capacity levels from a
 *  datasheet"), unnamed otherwise (static text). */
const char *wc_predict_capacity_covers(const wc_capacity_prediction *cp);
/** A price (per kWh) and a carbon intensity (g/kWh) as wc_predict_capacity
 *  takes them: each NaN (absent) or from 0 to WC_CAPACITY_MAX_PRICE /
 *  _CO2, else refused naming the field with the value in full. The one
 *  rule for every command and route that takes them (docs/http-api.md,
 *  "Limits"), flexibility's included, which uses neither. */
int wc_predict_money_check(double price_per_kwh, double grams_co2_per_kwh, wc_error *err);
/** The MoE facts go together (docs/capacity.md, "Bytes and FLOPs": the
 *  experts hold total - active over 1 - k/E): experts need experts_per_token
 *  and a total above the active parameters (none at total = active, a dense
 *  model's answer), and experts_per_token or a total above the active
 *  parameters need experts (without them the model is dense and reads every
 *  weight). Refused as "architecture/<the missing fact>: required with ...";
 *  the CLI's and routes' rule. */
int wc_predict_moe_facts_check(const wc_model_info *m, wc_error *err);
/** A prompt's prefill needs the model's width (docs/capacity.md, "Step
 *  time": t_pre's attention term 2 layers d_model L_in^2): `m` without
 *  d_model and input_tokens > 0 is refused as "architecture/d_model:
 *  required for a prompt ..." -- the memory check's rule, which every
 *  answer passes, and the routes' at parsing, as a missing field. */
int wc_predict_prefill_facts_check(const wc_model_info *m, double input_tokens, wc_error *err);
/** The caveat of an interval from `n_draws` bootstrap draws, 0 < n_draws
 *  < WC_BOOTSTRAP_MIN_95, into the warning list `list` of `*n` (nothing
 *  otherwise): its 2.5 % tails hold no draw of their own. */
void wc_predict_note_few_draws(char (*list)[WC_WARNING_LEN], int *n, int n_draws);
/** The caveat of a power interval from draws alone (the set has no
 *  prediction_error section): it covers the parameters' uncertainty, not
 *  the law's error (docs/intervals.md, "Two parts"). */
void wc_predict_note_params_only(char (*list)[WC_WARNING_LEN], int *n);
/** The caveat of an interval on a level transferred from a datasheet that
 *  a fitted level's held-out error widened (the set has no `datasheet`
 *  stratum of it): it covers held-out models on fitted levels, not the
 *  transfer (docs/intervals.md, "Capacity levels from a datasheet"). One
 *  rule for mean power (`levels` "power", `what` "mean power") and the
 *  capacity answer (`levels` "capacity", `what` "latency and throughput"). */
void wc_predict_note_no_transfer(char (*list)[WC_WARNING_LEN], int *n, const char *levels, const char *what);
/** The caveat of an answer above its power cap `cap_w` (no clock of
 *  `board`'s range meets it; the GPUs draw `per_gpu_w` while they serve
 *  at the clock of least power `mhz`), into `buf` (docs/capacity.md, "Clocks and power
 *  caps"): `predict inference --power-cap` and a sweep's cap steps.
 *  `share` < 1: only a series' steps for that share of its time are
 *  unmet, and `per_gpu_w` is their own mean draw, said as such. */
void wc_predict_cap_unmet_note(double cap_w, const char *board, double mhz, double share, double per_gpu_w,
                               char *buf, size_t cap);
/** Why inputs that enter only the capacity answers' cost, CO2 and step
 *  times changed nothing (wc_predict_note_ignored). */
typedef enum {
	WC_IGNORED_NO_LENGTHS, /* no input and output tokens: no capacity answers */
	WC_IGNORED_NO_LEVEL,   /* the platform has no capacity level */
	WC_IGNORED_SWEEP,      /* the flexibility sweep answers no cost or CO2 */
	WC_IGNORED_SERIES      /* a running_series: no capacity answers (its
	                        * lengths' expert_parallel enters its power) */
} wc_ignored_why;
/** The warning `FIELD: ignored: ...` for each of a price and a carbon
 *  intensity given (not NaN) and expert parallel asked (non-zero) that
 *  the answer did not use, in that order, into `list` of `*n`: the one
 *  wording of the CLI and the server (docs/http-api.md). */
void wc_predict_note_ignored(char (*list)[WC_WARNING_LEN], int *n, double price_per_kwh, double grams_co2_per_kwh,
                             int expert_parallel, wc_ignored_why why);

/** wc_predict_capacity's refusal of a query loaded by a series: the
 *  capacity answers are at one running count or one rate, a series has
 *  neither (docs/http-api.md, "POST /v1/predict/inference"). */
#define WC_CAPACITY_SERIES_NONE \
	"running_series: the capacity answers need one concurrency or rate; a series has neither"
/** Did wc_predict_capacity fail only because nothing answers the time
 *  side here -- the set has no capacity section, or no level for the
 *  platform and the catalog no datasheet for it (a platform calibrated
 *  from its own runs), or the load is a series (WC_CAPACITY_SERIES_NONE,
 *  given once the token lengths passed their checks)? Then the power
 *  answer stands alone: wc_predict_note_no_capacity says so on it
 *  (docs/capacity.md, "Platforms without a capacity level"). */
int wc_predict_capacity_absent(const wc_error *err);
/** The warning of a power answer given without its capacity answers,
 *  `why` being wc_predict_capacity's message; on a series' refusal, also
 *  the warnings `cap` (that call's answer, may be NULL) holds, those on
 *  the lengths that apply to the series' power. */
void wc_predict_note_no_capacity(wc_inference_prediction *out, const char *why, const wc_capacity_prediction *cap);

#ifdef __cplusplus
}
#endif
#endif

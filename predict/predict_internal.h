/* Private to predict/: what the power and the capacity answers share. */
#ifndef WC_PREDICT_INTERNAL_H
#define WC_PREDICT_INTERNAL_H

#include "predict/capacity_predict.h"
#include "predict/predict.h"


/** What a series' steps give at the clocks they run at
 *  (wc__predict_series_steps). */
typedef struct {
	double rho;      /* the prefill share (wc_law_prefill_share) at the
	                  * series' mean count, time-weighted over its loaded
	                  * steps each at its own clock; NaN: no loaded step */
	double one_mhz;  /* the clock every loaded step runs at (0 free), NaN
	                  * when they differ or none is loaded */
	double low_share; /* the share of the series' time at a clock below
	                   * half the top clock (wc__predict_clock_low) */
	double low_mhz[2]; /* the lowest and highest of those clocks */
} wc__series_steps;

/** The answer's notes for a weights or KV precision the set has no term
 *  for on `lvl` (its power predicted as bf16's): 0 to 2 of them into `notes`. One
 *  rule for the power answer and the envelope's power map. */
int wc__predict_precision_notes(const wc_params *p, const wc_level *lvl, const wc_config *c,
                                char notes[2][WC_WARNING_LEN]);

/** The power law's span caveats of an answer on `lvl` for `c` at the loads
 *  `h` (NULL: the load is not judged, as an envelope's moves over a trace):
 *  part 0 the bound and saturation caveats, which hold only beyond the
 *  level's runs; part 1 the model size, load (named `field`) and tp
 *  outside their calibrated spans. 0 to 2 of them into `notes`; one rule
 *  for the power answer and the envelope's power map. `cap_span` (NULL:
 *  none) holds the capacity calibration's spans the same load, tp and size
 *  left (wc_inference_query's cap_span; [k][1] = 0: not left): a quantity
 *  outside both is one line naming both, joined[k] then 1 (`joined` NULL:
 *  not reported; docs/capacity.md, "Warnings"). */
int wc__predict_span_notes(const wc_params *p, const wc_level *lvl, const wc_config *c, const char *field,
                           const wc_load_histogram *h, const double (*cap_span)[2], int *joined, int part,
                           char notes[3][WC_WARNING_LEN]);

/** The warning of a series whose steps the law puts above `limit_w` per
 *  GPU for the share `limited` of its time (`field` "power_cap_w" or
 *  "platform"): those steps settle at the clock meeting it, except the
 *  share `unmet` that no clock meets, at the clock of least power `mhz`
 *  (docs/capacity.md, "The board's power limit"); `locked` > 0: the
 *  clock the user locked, which the limit lowers on those steps. One
 *  text for the CLI and HTTP. */
void wc__predict_series_limit_note(const char *field, double limit_w, double limited, double unmet, double mhz,
                                   double locked, char *buf, size_t cap);

/** The caveat of the clock `mhz` an answer on `lvl` runs at, set by
 *  `field` ("sm_clock_mhz" a lock, "power_cap_w" a cap, "platform" the
 *  board's limit), at a mean `running` count: no clock-locked runs
 *  calibrated (kappa assumed), or a clock outside the calibrated span;
 *  none at the free clock (the clock term's reference) or at idle, where
 *  the clock cannot matter. `least` > 0: no clock meets that cap or
 *  limit for that share of the time (1: the whole answer; a series' steps
 *  less), so `mhz` is the clock of least power for that share and said
 *  so, not "settles at". `settled` > 0: a series' steps settle under
 *  that cap or limit step by step for that share of its time, each at
 *  its own clock: said so, with no one clock. `said`: a line of the
 *  caller's own says the clock and what set it (the board's limit
 *  settling a single load), so only the kappa or span caveat is said.
 *  1 with `buf` set, else 0 and "". One rule for the power answer and the
 *  envelope's power map. */
int wc__predict_clock_note(const wc_params *p, const wc_level *lvl, const char *field, double mhz, double running,
                           double least, double settled, int said, char *buf, size_t cap);

/** Is `mhz` (> 0) below half the top clock of the board `platform` runs
 *  on (wc_predict_board)? Real boards there lose achievable bandwidth,
 *  which the step times do not model (docs/capacity.md, "Clocks and power
 *  caps"). One rule for the power answer's warning and the flexibility
 *  sweep's, both worded with WC__CLOCK_LOW_CLAUSE; 0 for a board the
 *  catalog does not know. */
int wc__predict_clock_low(const wc_params *p, const char *platform, double mhz);
#define WC__CLOCK_LOW_CLAUSE \
	"the law does not model the bandwidth real boards lose below about half the top clock (docs/capacity.md)"

/** The warning of a clock below half the top clock (wc__predict_clock_low)
 *  naming `field` (what set the clock): 1 with `buf` set, else 0 and "".
 *  One wording for the power answer and the envelope's power map. */
int wc__predict_clock_low_note(const wc_params *p, const char *platform, const char *field, double mhz, char *buf,
                               size_t cap);
/** The same warning for a series' steps (wc__series_steps): the one text
 *  above when all its time runs at one clock below half the top clock,
 *  else the share of its time below half and the clocks there. */
int wc__predict_clock_low_steps_note(const wc_params *p, const char *platform, const char *field,
                                     const wc__series_steps *st, char *buf, size_t cap);

/** Whether the binding's power rests on a calibration (its model term or
 *  level `calibrated`): its intervals of mean power take the calibrated
 *  rule (docs/intervals.md, "Calibrated sets"). */
int wc__predict_calibrated(const wc_law_binding *b);
/** The held-out widening of a mean power (or of what is derived from it)
 *  for binding `b`: wc_pe_widen_calibrated for a calibrated one, else
 *  wc_pe_widen_transfer. The one place that choice is made. */
int wc__predict_widen_power(const wc_law_binding *b, const wc_pred_error *pe, const wc_pe_stratum *s, double point,
                            double *lo, double *hi);
/** For answers that widen a mean power later with a stratum (envelopes,
 *  budget plans): `s` with the calibration's draws of node power at
 *  `running` folded in (wc_pe_calibrated_stratum) when configuration `c`
 *  binds a calibrated term or level of `p`; returns 1 then, else 0 with
 *  `*out` = `*s`. `*n_draws` (may be NULL): the draws folded in, 0 when
 *  none, for the answer's few-draws caveat (wc_predict_note_few_draws). */
int wc__predict_calibrated_pe(const wc_params *p, const wc_config *c, double running, const wc_pe_stratum *s,
                              wc_pe_stratum *out, int *n_draws);

/** A series under a per-GPU limit `limit_w`, each of its loads `h` settling
 *  at the clock meeting it, or at the platform's lowest clock (`low`, the
 *  law bound there) when even that draws more (docs/capacity.md, "The
 *  board's power limit"): `*pw` the time-weighted mean, `*unmet` (may be
 *  NULL) the share of time no clock meets the limit, `*unmet_w` (may be
 *  NULL) the time-weighted mean per-GPU draw of those steps alone, at the
 *  lowest clock (NaN when none). Returns the share of time limited (0:
 *  `*pw`, `*unmet`, `*unmet_w` untouched, the law as it is). */
double wc__predict_series_limited(const wc_law_point *lp, const wc_law_point *low, int tp,
                                  const wc_load_histogram *h, double limit_w, wc_power *pw, double *unmet,
                                  double *unmet_w);
/** Whether a series' limit `limit_w` (the tighter of q's cap and the
 *  board's limit) is q's power cap rather than the board's: the cap's
 *  field names what settles the steps then. */
static inline int
wc__predict_limit_is_cap(const wc_inference_query *q, double limit_w)
{
	return q->power_cap_w > 0.0 && limit_w == q->power_cap_w;
}
/** One load level `n` of a series under a per-GPU limit `limit_w`,
 *  settled (docs/capacity.md, "The board's power limit"), judged on its
 *  draw while it serves (wc_load_serving_count: one request below one
 *  running): above the limit at the clock meeting it -- the limit -- or
 *  at that draw at the platform's lowest clock (`low`) when even that is
 *  more. `*free_w` the law's (`lp`) draw while serving at the clock asked,
 *  `*serve_w` that draw settled, `*w` the level's mean per-GPU draw (below
 *  one running its duty cycle of `*serve_w`, idle the rest); 0 when the
 *  law has no finite power there. Owned by serving.c. */
int wc__predict_settle_step(const wc_law_point *lp, const wc_law_point *low, int tp, double n, double limit_w,
                            double *w, double *serve_w, double *free_w);
/** The per-GPU draw of q's answer while it serves, which a power cap or
 *  the board's limit is met by (wc_power_cap_met): q->serving_w's (the
 *  capacity answer's, wc_predict_take_running) where given, else the law
 *  `lp` at the serving count of its one load `n` (wc_load_serving_count),
 *  else `per_gpu_w`, the answer's mean (a series, settled step by step).
 *  Owned by serving.c. */
double wc__predict_serving_w(const wc_inference_query *q, const wc_law_point *lp, double n, double per_gpu_w);
/** The clock each step of the series `h` of q runs at: a step the limit
 *  `limit_w` binds on (wc__predict_settle_step on `lp`, `low`; `low` NULL:
 *  none binds) at the clock a single load of it settles at
 *  (wc_predict_power_cap, wc_predict_board_limit) or, none meeting it, the
 *  lowest; any other at the clock locked, or free. Into `st` with `c` the
 *  series' configuration at its mean count on set `p`; when the limit binds
 *  (`limited` > 0, `unmet` of it met by no clock) also out's series_limit_w,
 *  _board, _share, _met and the clock its steps answer at, one
 *  (series_clock_mhz) or a range (predict/series_clock.c). WC_OK or the
 *  settling's error. */
int wc__predict_series_steps(const wc_predictor *pr, const wc_inference_query *q, const wc_params *p,
                             const wc_config *c, const wc_law_point *lp, const wc_law_point *low,
                             const wc_load_histogram *h, double limit_w, double limited, double unmet,
                             wc__series_steps *st, wc_inference_prediction *out, wc_error *err);
/** Power no board draws is no answer (wc_power_beyond_boards;
 *  docs/intervals.md, "Physical ceiling"): for a single load or an open
 *  loop (`series` 0) its node power `node_w` on `tp` GPUs of `level`; for
 *  a series each of its loads `h`, settled as wc__predict_series_limited
 *  settles it (under `limit_w` from `low`; `low` NULL: the law `lp` as it
 *  is), so that idle steps do not average a busy one's power under the
 *  bound. WC_ERANGE naming the platform (and a step's load and share of
 *  the series' time) when beyond, else WC_OK. */
int wc__predict_beyond_boards(const wc_law_point *lp, const wc_law_point *low, double limit_w, int tp,
                              const wc_load_histogram *h, int series, double node_w, const wc_level *level,
                              wc_error *err);
/** The refusal of power no board draws at step `i` of the loads `h`
 *  (wc_power_beyond_boards_step found it, drawing `per_gpu_w`): "at N
 *  running", with its share of the series' time when `series`; predict's
 *  series and the envelope's reachable loads word it alike. */
int wc__predict_beyond_boards_at(wc_error *err, const wc_load_histogram *h, size_t i, int series, double per_gpu_w,
                                 double board_w, const char *board);
/** The ceiling of node power of a series `h` under `limit_w` (as
 *  wc__predict_series_limited settles it) on `tp` GPUs of `level` with a
 *  user's per-GPU cap `cap_w` (<= 0: none): the time-weighted mean, step
 *  by step, of wc_level_power_ceiling_w at the step's settled draw (the
 *  cap's where a clock meets it, the board's where none does), its idle
 *  share at `floor_w` (wc_load_histogram_ceiling_w; docs/intervals.md,
 *  "Physical ceiling"). NaN when a step's power is not finite. */
double wc__predict_series_ceiling_w(const wc_law_point *lp, const wc_law_point *low, const wc_level *level,
                                    double cap_w, int tp, const wc_load_histogram *h, double limit_w,
                                    double floor_w);
/** The parameters' 95 % interval of node power at the loads `h` on `tp`
 *  GPUs around `point` into `*lo`, `*hi` (NaN: none): node power at every
 *  bootstrap draw of `b`'s set through `b` as the point estimate goes, a
 *  draw whose power is not finite left out, each draw of a series settling
 *  under `limit_w` as the point does when `low` (the law at the lowest
 *  clock; NULL: no limit) is given (wc__predict_series_limited), then
 *  wc_interval_from_draws. `*n_draws` the draws kept when they give an
 *  interval, else 0. The one loop of the power answer's interval and the
 *  calibrated widening (wc__predict_calibrated_pe). WC_OK, or WC_ENOMEM. */
int wc__predict_draw_interval(const wc_law_binding *b, const wc_law_binding *low, double limit_w, int tp,
                              const wc_load_histogram *h, double point, double *lo, double *hi, int *n_draws,
                              wc_error *err);

/** G x P0 where the idle is known (measured, published, the query's
 *  own): the floor of a mean power's interval; NaN otherwise. */
double wc__predict_idle_floor(const wc_law_binding *b, int tp);
/** The caveat of an idle answer (nothing runs) whose P0 is the estimate
 *  from the board's power limit (source "estimated"), not measured or
 *  given, into `buf`; 0 (nothing written) otherwise. Predict, envelopes
 *  and budget plans say it in the same words (docs/intervals.md, "Where
 *  it applies"). */
int wc__predict_idle_estimated_note(const wc_law_binding *b, char *buf, size_t cap);
/** The caveats of a mean-power interval widened by stratum `s` (NULL:
 *  none) on level `lvl`: parameters only (no section), or a fitted
 *  level's error on a datasheet transfer (wc_predict_note_no_transfer). */
void wc__predict_pe_notes(const wc_level *lvl, const wc_pe_stratum *s, char (*list)[WC_WARNING_LEN], int *n);

/** `v` with `digits` significant digits and no exponent below a million,
 *  trailing zeros dropped ("7.9", "1915", "0.679" at 3): how a warning
 *  states a calibrated span and the value outside it. Returns `buf`. */
const char *wc__predict_sig(char *buf, size_t cap, double v, int digits);
/** The significant digits a span warning prints the span lo-hi and the
 *  values v_lo..v_hi with: WC__SPAN_DIGITS, or more where a value beyond
 *  a bound would print as that bound (7.9 beyond 7.90085: 4, "7.901").
 *  One rule for every span warning (predict/span_text.c). */
int wc__predict_span_digits(double v_lo, double v_hi, double lo, double hi);
#define WC__SPAN_DIGITS 3
/** " for 12.5 % of the series' time" (wc_predict_share_format) into `buf` when 0 < `share` < 1 (a
 *  series' steps some of whose time a caveat holds for), else "": one
 *  wording for every series caveat's share (predict/span_text.c).
 *  Returns `buf`. */
const char *wc__predict_series_share(char *buf, size_t cap, double share);
/* Whole within the rounding of a time-weighted sum: the tolerance every
 * share of a series' time is taken as the whole series with. */
#define WC__SHARE_ALL (1.0 - 1e-12)

/** The warning line of a power level `lvl` of `p` transferred from a
 *  datasheet; it says when the board is another vendor's than every
 *  fitted level of `p` (the held-out miss is between NVIDIA boards). */
void wc__predict_datasheet_note(const wc_params *p, const wc_level *lvl, char *buf, size_t cap);
/** The caveat of a level transferred to a board whose catalog limit is a
 *  module's (CPU included: GH200), into `buf`; 0 (nothing written) for
 *  any other board. */
int wc__predict_module_note(const wc_level *lvl, char *buf, size_t cap);
/** The calibrated span a power answer on level `lvl` of `p` is checked
 *  against, and in `on` where it is ("on H100"): the level's own, or for
 *  a datasheet transfer (which has none) the union of the spans of the
 *  levels it is transferred from, named (docs/fitting.md, "Platforms
 *  without a fitted level"), written into `buf`. */
const wc_range *wc__predict_power_span(const wc_params *p, const wc_level *lvl, wc_range *buf, char *on, size_t cap);
/** The notes of the fields a question leaves the span of model term
 *  `t`'s calibration runs in (docs/calibration.md, "Model scope"), those
 *  the level's span (wc__predict_span_notes) already says left out; 0
 *  when `t` is NULL or records no span. */
int wc__predict_term_span_notes(const wc_params *p, const wc_level *lvl, const wc_model_term *t, const wc_config *c,
                                const char *field, const wc_load_histogram *h, char notes[3][WC_WARNING_LEN]);
/** 1 when the loaded count `n` (> 0) is below the running span a power
 *  answer on `lvl` is checked against (wc__predict_power_span), by the
 *  rule of the `concurrency` span warning; 0 when inside, above, or the
 *  span is unknown. */
int wc__predict_below_power_span(const wc_params *p, const wc_level *lvl, double n);
/** The caveat of a law without a prefill term (docs/inference-law.md,
 *  "Prefill-aware form") for a request of `input_tokens` whose prefill
 *  takes share `rho` of the engine's time at load `load` on `lvl`, into
 *  `buf`: at a quarter or more, or at any share below the level's running
 *  span with prompts longer than any workload `p` records. `profile`
 *  names the profile that models prefill (NULL: paper-prefill, "": none
 *  served, say how to serve it). 1 when written, else 0. */
int wc__predict_prefill_note(const wc_params *p, const wc_level *lvl, double input_tokens, double rho, double load,
                             const char *profile, char *buf, size_t cap);
/** The warning of a model the catalog lacks and bound level `b` has no
 *  term for (`c->model` names it): answered by its size alone, or by the
 *  architecture given -- a mixture of experts through the law's
 *  arch_moe term when the set has one (docs/inference-law.md). */
void wc__predict_custom_model_note(const wc_law_binding *b, const wc_config *c, char *buf, size_t cap);

/** `ptr` if it does not point into `*tmp`, else the same place in `*p`
 *  (`*tmp` is a copy of `*p`): what an answer borrows from the set must
 *  outlive the copy. */
const void *wc__predict_rebase(const wc_params *p, const wc_params *tmp, const void *ptr);

/** The request field that set the question's load, which a warning about
 *  the load names (docs/http-api.md, "Errors"): "running_series" for a
 *  series, "rate" for an open loop, else "concurrency". One rule for the
 *  power and the capacity warnings, so the CLI and the server answer the
 *  same words (predict/capacity_span.c). */
const char *wc__predict_load_field(const wc_inference_query *q);
/** The bytes of the configuration's model: from its architecture
 *  (experts placed by tp and expert_parallel), else a dense model of N_act
 *  at the weights' precision (no KV known). */
int wc__predict_config_arch(const wc_config *c, wc_capacity_arch *a, wc_error *err);
/** The warning of `asked` requests beyond the `n_fit` the KV cache holds
 *  (wc_predict_running_held) into `buf`: a concurrency's (`share` < 0;
 *  `latency`: the answer has a latency, which includes the wait) or a
 *  running_series' whose samples above n_fit take `share` of its time. */
/* The refusal of a request whose whole context `ctx` (of `request`, as
 * "one request of 420512 tokens") the KV cache cannot hold, into `msg`:
 * the GB it needs against the GB left after the weights on `tp` x
 * `platform` (0 such requests fit), one text for predict's memory check
 * and the envelope's (docs/capacity.md, "Memory as vLLM does it");
 * `named`: the field is the utilization given, so its echo yields first. */
void wc__predict_kv_refusal(const char *field, const char *request, double ctx, const wc_capacity_arch *a,
                            const wc_capacity_hw *hw, int tp, const char *platform, double reserve,
                            const char *taken, int named, const char *more, char *msg, size_t cap);
/** When one request of `c`'s lengths exceeds its model's context
 *  (wc_model_context), "input_tokens: 460000 + 1 tokens exceed
 *  Llama-3.1-8B's context of 131072 tokens (config.json)" into `text`
 *  (the longer length's field, the counts as given) and the context;
 *  else "" and 0. The one test of the context: predict's warning and its
 *  memory refusal, which then names the context first. */
int wc__predict_over_context(const wc_config *c, char *text, size_t cap);
void wc__predict_kv_wait_note(const wc_params *p, const wc_config *c, const char *field, double asked, double n_fit,
                              double share, int latency, char *buf, size_t len);
/** wc_predict_memory_check, with into `*held` the count the running
 *  requests are held to (wc_predict_running_held; docs/capacity.md,
 *  "Memory as vLLM does it"): with token lengths the max_fit, without
 *  them the requests of one KV block each (vLLM runs none without one);
 *  NaN when the memory is not known. */
int wc__predict_memory_held(const wc_params *p, const wc_config *c, double *held, wc_error *err);
/** The query's load as a histogram (one level, an open loop's counts, or
 *  the series' distinct values with the time at each), a series' samples
 *  each held to `n_fit` (wc_predict_running_held; NaN: as given). Freed
 *  with wc_load_histogram_free, also on failure. */
int wc__predict_load_histogram(const wc_inference_query *q, double n_fit, wc_load_histogram *h, wc_error *err);
/** The caveat of an open loop below capacity whose arrivals often find
 *  every one of its floor(n_max) slots busy (the engine's or the KV
 *  cache's limit): the share that waits and the mean wait of those that
 *  wait, latency_s / (c - m), in an M/M/c queue of offered load `m` and
 *  mean service `latency_s` (Erlang C),
 *  which the latency and TTFT answers leave out; said from a share of
 *  WC__QUEUE_WAIT_WARN on (docs/capacity.md, "Closed loop, open loop,
 *  energy"). */
void wc__predict_queue_note(double m, double n_max, double latency_s, char (*list)[WC_WARNING_LEN], int *n);
#define WC__QUEUE_WAIT_WARN 0.05

/** The capacity answer's calibrated-span warnings for a question at `n`
 *  running on the level bound in `b` (a transfer's spans and names are
 *  those of the levels it takes its numbers from), the load named `load`
 *  (predict/capacity_span.c). */
void wc__capacity_span_warnings(const wc_capacity_binding *b, const wc_config *c, const char *load, double n,
                                wc_capacity_prediction *out);
/** The capacity calibration's spans `cap` names a line of (both_line;
 *  [k][1] = 0: none) into `span`, as a power answer's cap_span takes them
 *  (wc_inference_query; predict/capacity_span.c). */
void wc__capacity_both_spans(const wc_capacity_prediction *cap, double span[WC_SPANS_BOTH][2]);
/** One quantity, one line: `cap`'s lines of the quantities a power answer
 *  named beside its own span (joined[k] 1: wc__predict_span_notes) are
 *  dropped, the one rule of every answer that shows both, a point answer
 *  (wc_predict_join_span_lines), an envelope or a plan
 *  (wc_service_calibration_notes; docs/capacity.md, "Warnings"). */
void wc__capacity_drop_joined(wc_capacity_prediction *cap, const int joined[WC_SPANS_BOTH]);

/** Which held-out error widens capacity quantity `k` (WC_CAPQ_*) of
 *  `out` (docs/intervals.md, "Where it applies"; predict/capacity_covers.c). */
enum { WC__BY_NONE, WC__BY_LATENCY, WC__BY_ENERGY, WC__BY_POWER };
int wc__capacity_widened_by(int k, const wc_capacity_prediction *out);
/** What an interval of quantity `k` from draws alone covers, given
 *  whether the draws varied latency (the capacity section's) and power
 *  (the power law's): energy per token's, varied by one of them only,
 *  says which part it leaves out. */
const char *wc__capacity_draws_covers(int k, const wc_capacity_prediction *out, int latency_drew, int power_drew);
/** Energy per token and what scales with it, widened by mean power's
 *  error alone (`power_share`: the set has none of energy per token) and
 *  labelled with the power law's draws only (`power_drew`): once the
 *  intervals are final, "parameters and ..." where the capacity draws
 *  reach past power's interval over the point throughput, the one way
 *  they go into it. */
void wc__capacity_power_share_covers(int power_share, int power_drew, wc_capacity_prediction *out);
/** 1 for the quantities that are node power over throughput (energy,
 *  cost and CO2 per output token or per request). */
int wc__capacity_per_token(int k);
/** The warning, once, when latency's and throughput's intervals lack the
 *  held-out error their quantity needs: the set has none of latency
 *  (`lat` NULL) and the draws give them an interval (`lat_drew`), or the
 *  level is a datasheet transfer (`datasheet`) and the set's latency
 *  error is not its datasheet stratum (`ds_lat` 0). */
void wc__capacity_latency_note(int datasheet, const wc_pe_stratum *lat, int ds_lat, int lat_drew,
                               wc_capacity_prediction *out);
/** Each null interval's reason in `out->covers` (`by_arrivals`: an open
 *  loop below capacity, whose throughput is the rate's), naming the law
 *  whose draws or held-out error it lacks; NULL for an answer not given. */
void wc__capacity_null_covers(const wc_params *p, int by_arrivals, wc_capacity_prediction *out);

#endif

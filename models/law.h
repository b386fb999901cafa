/*
 * The inference power law's vocabulary and kernel (docs/inference-law.md):
 * the candidate forms, precisions and workloads, the reference scales of
 * the law's logarithms, one configuration and its power, and the pure
 * functions every evaluation goes through -- the prediction path, the
 * bootstrap draws and the fit alike. Evaluating a whole parameter set is
 * in models/params.h. No allocation except wc_load_histogram_build.
 */
#ifndef WC_MODELS_LAW_H
#define WC_MODELS_LAW_H

#include <stddef.h>

#include "models/error.h"
#include "models/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------- reference scales */

/** lN = log(N_act / (WC_LAW_REF_ACTIVE_B * G)): 8 B per GPU. */
#define WC_LAW_REF_ACTIVE_B 8.0
/** ln = log(n / WC_LAW_REF_RUNNING): 32 running requests. */
#define WC_LAW_REF_RUNNING 32.0
/** Default reference clock of phi(f) = (f / ref)^kappa, MHz. */
#define WC_LAW_REF_CLOCK_MHZ 1980.0
/* WC_LAW_MAX_TP, the largest serving group the law accepts, is in
 * models/limits.h with every limit a user meets (docs/architecture.md,
 * "Limits"). */

/** log(N_act / (8 G)), the size coordinate. */
double wc_law_log_size(double active_params_b, int tp);
/** log(n / 32), the load coordinate (n > 0). */
double wc_law_log_load(double running);

/* ------------------------------------------------------------- forms */

/** Candidate forms of the dynamic part P - G*P0 (docs/inference-law.md). */
typedef enum {
	WC_FORM_POWER_LAW = 0,         /* exp(theta + d*lN + g1*ln) */
	WC_FORM_POWER_LAW_QUADRATIC,   /* exp(theta + d*lN + g1*ln + g2*ln^2) */
	WC_FORM_SATURATING,            /* S*sig(theta + d*lN + g1*ln) */
	WC_FORM_SATURATING_QUADRATIC,  /* S*sig(z), the published choice */
	WC_FORM_FLOOR_PLUS_RISE,       /* S*[F + (1-F)*sig(z)], F = sig(phi) */
	WC_FORM_PREFILL,               /* D + rho*max(0, A - D), D = S*sig(z): the
	                                * workload-aware form (docs/inference-law.md,
	                                * "Prefill-aware form") */
	WC_FORM_COUNT
} wc_form;

const char *wc_form_name(wc_form form);
/** Parse a form name ("saturating_quadratic_load", ...). */
int wc_form_from_name(const char *name, wc_form *out);
/** Does the form have a per-level scale S / a quadratic load term / a floor? */
int wc_form_has_scale(wc_form form);
int wc_form_has_quadratic(wc_form form);
int wc_form_has_floor(wc_form form);
/** Does the form mix in the prefill share of time (WC_FORM_PREFILL)? */
int wc_form_has_prefill(wc_form form);
/** The published forms (the first five); the others are wattcast's. */
int wc_form_is_published(wc_form form);

/** Shape of the form's link g(z, F) with its partial derivatives; the
 *  dynamic power per GPU is S_eff * g. For power-law forms S_eff = 1*m*phi.
 *  `floor_logit` is ignored unless the form has a floor. Any out may be NULL. */
double wc_form_link(wc_form form, double z, double floor_logit,
                    double *dg_dz, double *dg_dfloor);
/** log g(z, F) and the ratios g_z/g and g_F/g that the fit's residuals in
 *  log power and their derivatives need (either out may be NULL); for the
 *  saturating forms without a floor log sigma(z) and 1 - sigma(z) from one
 *  exp(-|z|), finite far into either tail. */
double wc_form_link_log(wc_form form, double z, double floor_logit,
                        double *dlog_dz, double *dlog_dfloor);

/* ------------------------------------------------ names of the inputs */

/* The lengths of names (WC_NAME_MAX, WC_MODEL_NAME_MAX, WC_LABEL_MAX)
 * are in models/limits.h. */

typedef enum { WC_PREC_BF16 = 0, WC_PREC_FP8, WC_PREC_INT4, WC_PREC_COUNT } wc_precision;
const char *wc_precision_name(wc_precision p);
int wc_precision_from_name(const char *name, wc_precision *out);

/** How requests reach the engine. WC_WORKLOAD_UNKNOWN names as "". */
typedef enum {
	WC_WORKLOAD_UNKNOWN = 0,
	WC_WORKLOAD_CLOSED,   /* a fixed number of requests in flight */
	WC_WORKLOAD_POISSON,  /* open loop, exponential inter-arrivals */
	WC_WORKLOAD_BURSTY,   /* open loop, gamma inter-arrivals */
	WC_WORKLOAD_REPLAY,   /* arrivals replayed from a trace */
	WC_WORKLOAD_COUNT
} wc_workload;
const char *wc_workload_name(wc_workload w);
/** "" parses as WC_WORKLOAD_UNKNOWN; other unknown names are WC_ENOTFOUND. */
int wc_workload_from_name(const char *name, wc_workload *out);
/** "closed, poisson, bursty or replay", for messages. */
const char *wc_workload_choices(void);

/* -------------------------------------------- one configuration, one answer */

struct wc_model_info; /* models/catalog.h */

/** One configuration to evaluate. The power law needs the first block;
 *  the capacity model and workload-aware forms also read the second. */
typedef struct {
	const char *platform;    /* level name */
	int tp;                  /* GPUs in the serving group, 1..WC_LAW_MAX_TP */
	double active_params_b;  /* > 0 */
	double running;          /* n >= 0; 0 = idle */
	wc_precision weights, kv;
	double sm_clock_mhz;     /* 0 = not locked */
	double idle_power_w;     /* > 0: a measured idle power per GPU that
	                          * replaces the level's P0 (not drawn) */

	/* the workload and the model's architecture (borrowed; NULL/0 = unknown) */
	const struct wc_model_info *arch; /* layers, KV heads, experts, ... */
	double input_tokens;     /* mean prompt length per request */
	double output_tokens;    /* mean generated length per request */
	double request_rate;     /* > 0: open loop at this rate (requests/s);
	                          * 0: closed loop at `running` */

	/* The model's name (borrowed; NULL = not named): a model term of the
	 * set for this model on the level shifts z (docs/calibration.md).
	 * Variants ("-Instruct", "-FP8", "org/...") match their catalog base. */
	const char *model;
	/* The workload label (borrowed; NULL = none): when input_tokens is
	 * unknown, the capacity model's input length fitted for this set
	 * applies (docs/capacity.md). */
	const char *set;
	/* The engine's share of each GPU's memory for weights and KV cache
	 * (vLLM's gpu_memory_utilization); 0 = the parameter set's default
	 * (1 - capacity memory_reserve; docs/capacity.md, "Memory"). */
	double gpu_memory_utilization;
	/* 1: an MoE model served expert parallel -- its experts spread over
	 * the group, every GPU reading the whole shared part; 0: tensor
	 * parallel (docs/capacity.md, "Step time"). */
	int expert_parallel;
	/* The serving stack asked for (wc_engine_parse's name, static; NULL =
	 * WC_CALIBRATED_ENGINE): the numbers do not change, the answer says
	 * whose they are (docs/capacity.md, "Serving stacks"). */
	const char *engine;
} wc_config;

/* Designated, so that a field added to wc_config cannot shift the others;
 * every field not named is zero or NULL. */
#define WC_CONFIG_INIT                                                          \
	{ .platform = NULL, .tp = 1, .active_params_b = 0.0, .running = 0.0,    \
	  .weights = WC_PREC_BF16, .kv = WC_PREC_BF16, .sm_clock_mhz = 0.0,     \
	  .idle_power_w = 0.0, .arch = NULL, .input_tokens = 0.0,               \
	  .output_tokens = 0.0, .request_rate = 0.0, .model = NULL, .set = NULL, \
	  .gpu_memory_utilization = 0.0, .expert_parallel = 0, .engine = NULL }

/** Name the catalog model `name` (borrowed) in `c` as `predict --model`
 *  does: its active parameters, its architecture (the structure terms'
 *  covariates, docs/fitting.md "Structure terms") and the name the set's
 *  model terms are found by (docs/calibration.md). Every configuration
 *  built from a model name goes through here (wc_model_name_apply, for a
 *  user's name, calls it), so that none misses a term.
 *  Returns the catalog entry (models/catalog.h), or NULL with `c`
 *  untouched when the catalog does not know the model. */
const struct wc_model_info *wc_config_set_model(wc_config *c, const char *name);
/** What a model name given by a user says (docs/capacity.md, "Model
 *  names"): the catalog entry answering it (NULL: none), the weights'
 *  precision its suffix states ("-FP8"; "-Int4", "-AWQ", "-GPTQ-Int4": int4;
 *  "-Int8", "-W8A8": fp8's bytes; "-FP4", "-NVFP4", "-bnb-4bit": int4's;
 *  `states_weights`), else the one the entry is published in; `format`
 *  the quantization so counted as another precision's bytes ("int8",
 *  "nvfp4", "nf4"; NULL for a precision's own word); and `renamed` when
 *  a suffix word is neither a precision nor a tuning or
 *  release tag ("-Instruct", "-Thinking", "-it", "-2507", "-v2"): the
 *  entry then answers for another name. */
typedef struct {
	const struct wc_model_info *entry;
	int states_weights;
	wc_precision weights;
	const char *format;
	int renamed;
	int kv_scales; /* "-FP8-KV": a precision followed by KV, the checkpoint's KV-cache scales */
	/* the longest catalog name the name starts with, which answers it
	 * unless `embedded` (`entry` a catalog name a later word begins) or
	 * `entry` is NULL for a word stating another size (wc_model_match) */
	const struct wc_model_info *prefix;
	int embedded;
} wc_model_name;
void wc_model_name_read(const char *name, wc_model_name *out);
/** The quantization `name` states when the weights `weights` are its
 *  bytes counted as another precision's ("int8" for "-GPTQ-Int8" as
 *  fp8); NULL otherwise: no such word, or weights the name did not set. */
const char *wc_model_name_counted(const char *name, wc_precision weights);
/** The words a refusal of memory adds for `name` when a word of it was
 *  not read, so that the weights were taken as given or published
 *  (" (weights taken as bf16: give weights if not)"); "" otherwise. */
void wc_model_name_taken(const char *name, wc_precision weights, char *buf, size_t cap);
/** The weights a run of model `name` was served in when its files state
 *  none: the precision the name's suffix states ("-FP8", "-AWQ"), else
 *  `otherwise` (ingest's rows, docs/formats/runs-table.md "How wattcast writes tables"). */
wc_precision wc_model_name_run_weights(const char *name, wc_precision otherwise);
/** Set `c`'s model, active parameters and, when the user gave none
 *  (`weights_given` 0), the weights: the name's, else as published. Refused: a name
 *  not in the catalog (WC_ENOTFOUND, "model: ..."), weights given that the
 *  name contradicts (WC_EINVAL, "weights: ..."). `name` is borrowed. */
int wc_model_name_apply(const char *name, int weights_given, wc_config *c, wc_error *err);
/** A model the catalog does not know, named by the user beside its size
 *  (`--model NAME --active-params B`, HTTP `model` with `active_params_b`):
 *  `c` takes the name, by which the set's model terms are found as written
 *  (docs/calibration.md), and the active parameters; no architecture.
 *  Refused (WC_EINVAL, "model: ..."): a name the catalog knows, whose size
 *  it states already; (WC_ERANGE) a name of WC_MODEL_NAME_MAX bytes or more,
 *  which no model term can hold. `name` is borrowed. */
int wc_model_name_custom(const char *name, double active_params_b, wc_config *c, wc_error *err);
/** The one warning of an answer to `name` when the catalog entry answers
 *  for another name, with the weights `weights` (a wc_precision) it sized
 *  (wc_model_name_taken's words; < 0: not said, the weights being a run's
 *  own); else, for a name carrying KV-cache scales ("-FP8-KV"), when the
 *  KV cache `kv` (< 0: none sized) is not fp8; "" otherwise
 *  (docs/capacity.md, "Model names"). */
void wc_model_name_note(const char *name, int weights, int kv, char *buf, size_t cap);
/** Why `name` is no catalog model although it starts with one's name
 *  (wc_model_match: a later word names another size): "its word 'mini'
 *  names a size other than the catalog's phi-4 (14.7 B active)" into
 *  `buf`, 1; else "" and 0. The reason every refusal of an unknown model
 *  gives instead of a "did you mean" of that entry (docs/capacity.md,
 *  "Model names"). */
int wc_model_name_other(const char *name, char *buf, size_t cap);
/** The stack `c` is asked for: its engine, or WC_CALIBRATED_ENGINE. */
const char *wc_config_engine(const wc_config *c);

typedef struct {
	double node_power_w;     /* G*P0 + G*dynamic */
	double per_gpu_power_w;  /* node / G */
	double idle_power_w;     /* G*P0 */
	double dynamic_w;        /* node - idle */
} wc_power;

/* ------------------------------------------------------------ kernel */

/** The numbers of the law for one configuration and one parameter vector
 *  (the point estimate or one bootstrap draw): everything that does not
 *  depend on the load. */
typedef struct {
	wc_form form;
	double p0;          /* idle power per GPU, W */
	double scale;       /* S*m_KV*phi(f), W per GPU (1*m*phi for power-law forms) */
	double z0;          /* theta + delta*lN + b_w */
	double gamma1;
	double gamma2;      /* 0 for forms without the quadratic load term */
	double floor_logit; /* floor_plus_rise only */
	/* prefill-aware form (0 otherwise): the share of the group's time spent
	 * prefilling, and the dynamic power per GPU while it does */
	double rho;
	double a_pre;
} wc_law_point;

/** The dynamic power per GPU with the prefill share mixed in at `n`
 *  running requests: `d` is the decode dynamic there
 *  (wc_law_point_dynamic(lp, n)). d + rho*max(0, a_pre - d): the
 *  prefill never draws less than decoding at the same load, so the law
 *  stays non-decreasing in n. Below one request the mix is that of one
 *  request, scaled by the duty cycle. Returns `d` when rho is 0 or n <= 0
 *  (idle: nothing to prefill). A load series mixes each sample on its
 *  own (wc_law_point_power), never its mean decode power. */
double wc_law_point_mix(const wc_law_point *lp, double d, double n);

/** Where the law evaluates the load term h(ln) = gamma1*ln + gamma2*ln^2
 *  of z so that it never decreases (docs/inference-law.md, "Below one
 *  running request"): for ln >= log(1/32) (n >= 1)
 *  the running maximum of h over [log(1/32), ln] is h at the returned
 *  argument -- ln itself, log(1/32), or the vertex -gamma1/(2 gamma2).
 *  z = z0 + gamma1*a + gamma2*a*a is wc_law_z's; with the published
 *  gamma1, gamma2, a = ln on n >= 1, while a fitted or drawn set whose
 *  vertex lies in the range is held flat instead of turning around. The
 *  derivatives of that z in gamma1 and gamma2 are a and a^2. */
double wc_law_load_argument(double gamma1, double gamma2, double ln);

/** The law's z at the load coordinate `ln` = wc_law_log_load(n), n >= 1:
 *  z0 + gamma1*a + gamma2*a^2 with a = wc_law_load_argument(gamma1,
 *  gamma2, ln), the quadratic left out when gamma2 is 0. The one place z
 *  is written: the prediction path, the fit's residuals and calibration
 *  go through it. `a` (may be NULL) receives the argument. */
double wc_law_z(double z0, double gamma1, double gamma2, double ln, double *a);

/** Dynamic power per GPU at `n` running requests: 0 at n <= 0 (idle; the
 *  quadratic term is never evaluated there), n times its value at n = 1
 *  for 0 < n < 1 (one request a fraction n of the time), and the link of
 *  z0 + the load term at wc_law_load_argument for n >= 1. Non-decreasing
 *  in n for every parameter set with positive scale. */
double wc_law_point_dynamic(const wc_law_point *lp, double n);

/* ------------------------------------------------- structure terms */

/* Candidate terms beyond size, load and precision (docs/inference-law.md,
 * "Structure terms"; models/law_terms.c): shifts of z by the model's
 * architecture, the serving group's size and the workload's prompt share,
 * each a shared coefficient times a covariate of the configuration. A
 * coefficient a set does not carry is 0, so `paper` and every file without
 * these terms answer exactly as before. */

typedef enum {
	WC_LT_MOE = 0,    /* 1 for a mixture-of-experts model, else 0 */
	WC_LT_HYBRID,     /* 1 for a Mamba-Transformer hybrid, else 0 */
	WC_LT_TP,         /* log G, the serving group's GPU count */
	WC_LT_PROMPT,     /* prompt share input/(input+output) - 1/2; 0 when unknown */
	WC_LT_COUNT
} wc_law_term;

/** Bit of a term in a mask (wc_params.law_terms, wc_fit_options.law_terms). */
#define WC_LT_BIT(k) (1u << (unsigned)(k))

/** The term's parameter name: "arch_moe", "arch_hybrid", "log_tp",
 *  "prompt_share" (file keys, draw columns, reports). */
const char *wc_law_term_name(wc_law_term k);
/** Parse a comma-separated list of groups -- "arch" (moe and hybrid),
 *  "moe", "hybrid", "tp", "prompt", or "none" alone -- into a mask. The
 *  message names the bad item and the choices; a term named twice (arch
 *  counting as moe and hybrid) and none beside another item are refused. */
int wc_law_terms_parse(const char *list, unsigned *mask, wc_error *err);
/* wc_law_term_covariate, which needs a capacity section, is in
 * models/evaluate.h. */

/* ------------------------------------------------------- load series */

/** Is a load of mean running count `mean_running` (a load series' mean)
 *  idle throughout: below WC_CAPACITY_MIN_CONCURRENCY (models/limits.h),
 *  0 included, or unknown (NaN)? The one test of idle: the law's dynamic
 *  power is nothing there, so the fit and calibrate leave an idle run out
 *  (a row at 1e-300 running broke the fit, docs/fitting.md "Which runs
 *  enter"), and predict and the validators give an idle answer or row no
 *  interval (wc_interval_applies, docs/intervals.md "Where it applies"). */
int wc_load_is_idle(double mean_running);

/** A load series as the law's time average needs it: the distinct values
 *  of n and the time (or weight) spent at each, values increasing. */
typedef struct {
	double *running;   /* len distinct values, increasing; owned */
	double *weight;    /* len weights (seconds or fractions); owned */
	size_t len;
	double mean;       /* time-weighted mean of n */
} wc_load_histogram;

/** Collapse `len` samples `running[i]`, each held `hold[i]` (NULL: every
 *  sample holds `hold_each`), into distinct values with their total time.
 *  Values must be finite and >= 0 and holds >= 0: otherwise WC_EINVAL with
 *  the sample's index in `*bad_index` (may be NULL); WC_ENOMEM. Equal
 *  values are summed in sample order. The caller frees `out` with
 *  wc_load_histogram_free (also on failure: it is left empty). */
int wc_load_histogram_build(const double *running, const double *hold, double hold_each,
                            size_t len, wc_load_histogram *out, size_t *bad_index);
/** The running count of an open loop whose mean count is `m` (docs/capacity.md,
 *  "Closed loop, open loop, energy"): the number in service of an M/M/c
 *  queue of offered load m with c = floor(n_max) slots (at least 1) --
 *  Poisson with mean m (M/G/infinity) when n_max is INFINITY or far above
 *  m; near c the counts that would exceed it queue and c run, so the mean
 *  in service stays m. Weights are probabilities (summing to 1). Counts
 *  further than 12 standard deviations from m weigh under 1e-30 and are
 *  left out; when the window would hold more than WC_POISSON_MAX_COUNTS
 *  counts (m above about 7 000) the spread moves the law's mean by under
 *  1e-4, and at m >= c no steady queue exists: then the histogram is the
 *  one point min(m, n_max). WC_EINVAL when m is not finite and >= 0 or
 *  n_max not > 0; WC_ENOMEM. Freed with wc_load_histogram_free. */
int wc_load_histogram_open_loop(double m, double n_max, wc_load_histogram *out);
#define WC_POISSON_MAX_COUNTS 2048
/** The count a request of that open loop meets while it runs, itself
 *  included: wc_load_histogram_met of wc_load_histogram_open_loop(m,
 *  n_max), in closed form from GSL's Poisson CDF (docs/capacity.md,
 *  "Closed loop, open loop, energy"), so a root solve that reads it at
 *  every evaluation builds no histogram: 1 + m for the Poisson count,
 *  less near the limit c = floor(n_max), min(m, n_max) where the
 *  histogram is one point. NaN where that histogram is WC_EINVAL. */
double wc_load_open_loop_met(double m, double n_max);
void wc_load_histogram_free(wc_load_histogram *h);
/** The share of a moment with `n` requests running that the boards work:
 *  min(n, 1), the law's duty cycle below one running request
 *  (docs/inference-law.md, "Below one running request"); 0 when n is not
 *  above 0. The rest of the moment is idle share
 *  (wc_load_histogram_ceiling_w). */
static inline double
wc_load_busy_share(double n)
{
	return n > 0.0 ? (n < 1.0 ? n : 1.0) : 0.0;
}
/** The count a moment with `n` requests running draws at while it
 *  serves: n itself from one up, one below it (the duty cycle's busy
 *  moments, docs/inference-law.md "Below one running request"), 0 when
 *  nothing runs. A power cap or the board's limit is judged on that draw,
 *  not on a mean over idle time: a GPU's power management acts on what it
 *  draws while it is busy (docs/capacity.md, "Clocks and power caps"). */
static inline double
wc_load_serving_count(double n)
{
	return n > 0.0 && n < 1.0 ? 1.0 : n;
}
/** The mean count a request of a load `h` meets while it runs, itself
 *  included: E[N^2] / E[N] over the histogram (1 + m for the Poisson
 *  count, m for a closed loop of m); h->mean when nothing runs. */
double wc_load_histogram_met(const wc_load_histogram *h);
/** The share of the time of load `h` that the boards work: the weighted
 *  mean of wc_load_busy_share (P(N >= 1) for whole counts); 0 for an
 *  empty histogram. */
double wc_load_histogram_busy(const wc_load_histogram *h);
/** The ceiling `ceiling_w` of a mean power over load histogram `h` whose
 *  idle share (its weight at n = 0, and 1 - n of its weight at each n
 *  below one: the law's duty cycle) draws `floor_w`, the group's idle
 *  power, and the rest at most the ceiling (docs/intervals.md, "Physical
 *  ceiling"): the weighted mean of the two; `ceiling_w` itself when either
 *  is not finite or `h` is never idle. */
double wc_load_histogram_ceiling_w(const wc_load_histogram *h, double floor_w, double ceiling_w);

#ifdef __cplusplus
}
#endif
#endif

/*
 * models/ — what both sides of wattcast share: errors, the PCG32 random
 * generator, the inference power law and its candidate forms, the parameter
 * set (a frozen law), and the platform and model catalogs.
 *
 * Nothing here allocates except wc_params_copy / wc_params_set_draws (freed
 * by wc_params_clear). Every function is reentrant; no global state.
 * Units: W, J, s, billions of parameters (B), MHz. log = natural log.
 */
#ifndef WC_MODELS_H
#define WC_MODELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

/** Status codes: 0 = success, negative = failure. */
enum {
	WC_OK = 0,
	WC_EINVAL = -1,    /* invalid argument or input value */
	WC_ENOMEM = -2,    /* allocation failed */
	WC_ENOTFOUND = -3, /* unknown name (platform, model, file) */
	WC_EIO = -4,       /* read/write failure */
	WC_EPARSE = -5,    /* malformed file or text */
	WC_ENOCONV = -6,   /* a fit did not converge */
	WC_ERANGE = -7     /* a value outside what the law can evaluate */
};

#define WC_ERROR_MSG_MAX 256

/** Caller-supplied error detail (like jansson's json_error_t): no hidden
 *  thread-local state. `msg` is one line, without a "failed to" prefix. */
typedef struct {
	int code;
	char msg[WC_ERROR_MSG_MAX];
} wc_error;

/** Fill `err` (may be NULL) and return `code`, so callers can write
 *  `return wc_error_set(err, WC_EINVAL, "tp: must be >= 1");`. */
int wc_error_set(wc_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- PCG32 */

/** PCG32 (XSH-RR, 64-bit state, selectable stream). A 16-byte value the
 *  caller owns; every stochastic routine takes one explicitly. */
typedef struct {
	uint64_t state;
	uint64_t inc; /* always odd */
} wc_pcg32;

/** Seed with (initstate, initseq); distinct initseq give distinct streams. */
void wc_pcg32_seed(wc_pcg32 *rng, uint64_t initstate, uint64_t initseq);
uint32_t wc_pcg32_next(wc_pcg32 *rng);
/** Uniform in [0, bound) without bias (threshold rejection, pcg-c method). */
uint32_t wc_pcg32_bounded(wc_pcg32 *rng, uint32_t bound);
/** Jump the stream by `delta` steps (negative = rewind, via 2^64 - n). */
void wc_pcg32_advance(wc_pcg32 *rng, uint64_t delta);
/** Uniform double in [0, 1) with 53 random bits from two draws. */
double wc_pcg32_uniform(wc_pcg32 *rng);
/** Standard normal deviate (Box-Muller, cosine branch; uses 4 draws). */
double wc_pcg32_normal(wc_pcg32 *rng);

/* ----------------------------------------------------------- the law */

/** Candidate forms of the dynamic part P - G*P0 (SPEC §1, Table 11). */
typedef enum {
	WC_FORM_POWER_LAW = 0,         /* exp(theta + d*lN + g1*ln) */
	WC_FORM_POWER_LAW_QUADRATIC,   /* exp(theta + d*lN + g1*ln + g2*ln^2) */
	WC_FORM_SATURATING,            /* S*sig(theta + d*lN + g1*ln) */
	WC_FORM_SATURATING_QUADRATIC,  /* S*sig(z), the published choice */
	WC_FORM_FLOOR_PLUS_RISE,       /* S*[F + (1-F)*sig(z)], F = sig(phi) */
	WC_FORM_COUNT
} wc_form;

const char *wc_form_name(wc_form form);
/** Parse a form name ("saturating_quadratic_load", ...). */
int wc_form_from_name(const char *name, wc_form *out);
/** Does the form have a per-level scale S / a quadratic load term / a floor? */
int wc_form_has_scale(wc_form form);
int wc_form_has_quadratic(wc_form form);
int wc_form_has_floor(wc_form form);

typedef enum { WC_PREC_BF16 = 0, WC_PREC_FP8, WC_PREC_INT4, WC_PREC_COUNT } wc_precision;
const char *wc_precision_name(wc_precision p);
int wc_precision_from_name(const char *name, wc_precision *out);

/** Shape of the form's link g(z, F) with its partial derivatives; the
 *  dynamic power per GPU is S_eff * g. For power-law forms S_eff = 1*m*phi.
 *  `floor_logit` is ignored unless the form has a floor. Any out may be NULL. */
double wc_form_link(wc_form form, double z, double floor_logit,
                    double *dg_dz, double *dg_dfloor);

#define WC_NAME_MAX 48
#define WC_MAX_LEVELS 16
#define WC_MAX_TERMS 16

/** How a parameter value came to be. */
typedef enum {
	WC_SRC_PUBLISHED = 0, /* transcribed from a paper */
	WC_SRC_FITTED,        /* estimated by `wattcast fit` */
	WC_SRC_MEASURED,      /* read from telemetry (idle power) */
	WC_SRC_ESTIMATED,     /* derived from published aggregates (gamma2) */
	WC_SRC_ASSUMED,       /* not published, not fitted: a stated default */
	WC_SRC_COUNT
} wc_source;
const char *wc_source_name(wc_source s);
int wc_source_from_name(const char *name, wc_source *out);

/** One scalar with its 95 % interval (lo/hi are NaN when there is none). */
typedef struct {
	double value;
	double lo, hi;
	wc_source source;
} wc_param;

/** Span of the calibration data for one level; predictions outside it
 *  carry an extrapolation warning. Zeroed = unknown (no warning). */
typedef struct {
	double active_b_min, active_b_max; /* N_act, B */
	double running_min, running_max;   /* n */
	int tp_min, tp_max;
	double clock_min, clock_max;       /* locked SM clock, 0 = never locked */
	int runs;                          /* runs of this level in the fit */
} wc_range;

/** A platform level (A100, H100, a locked-clock host, ...). */
typedef struct {
	char name[WC_NAME_MAX];
	char s_shared_with[WC_NAME_MAX]; /* "" = own S; else the level whose S it uses */
	wc_param p0;          /* loaded idle power per GPU, W */
	wc_param s;           /* power scale per GPU, W (unused when shared / power-law) */
	wc_param theta;       /* intercept of z */
	wc_param floor_logit; /* phi_H of floor_plus_rise (F = sig(phi)); else unused */
	wc_range range;
} wc_level;

typedef enum { WC_SETTING_WEIGHTS = 0, WC_SETTING_KV } wc_setting;
typedef enum { WC_PLACE_NONE = 0, WC_PLACE_INSIDE_Z, WC_PLACE_ON_S } wc_placement;
const char *wc_setting_name(wc_setting s);
const char *wc_placement_name(wc_placement p);

/** A precision term from paired runs (SPEC §1, Table 12). `kept` = 0 records
 *  a tested placement that was not significant (the law ignores it, but a
 *  prediction using that precision says so in its warnings). */
typedef struct {
	wc_setting setting;
	wc_precision precision;      /* fp8 or int4 */
	char level[WC_NAME_MAX];     /* "" = every level */
	wc_placement placement;      /* shift b inside z, or factor m on S */
	wc_param value;              /* b (shift) or m (factor) */
	double p_value;              /* paired t-test vs no term; NaN = unknown */
	int pairs;                   /* paired runs behind it; 0 = unknown */
	int kept;
} wc_precision_term;

/** A frozen inference law. Plain value except `draws`, which
 *  wc_params_clear frees; copy with wc_params_copy, never with `=`. */
typedef struct {
	char name[WC_NAME_MAX];       /* profile or fit label */
	wc_form form;
	int n_levels;
	wc_level levels[WC_MAX_LEVELS];
	wc_param delta, gamma1, gamma2, kappa;
	double clock_ref_mhz;         /* f in phi(f) = (f/ref)^kappa; 1980 */
	int n_terms;
	wc_precision_term terms[WC_MAX_TERMS];

	/* provenance (SPEC §8); empty strings / 0 when not from a fit */
	char input_sha256[65];
	int runs;
	uint64_t seed;
	int bootstrap;
	char tool_version[16];
	char created_utc[24];        /* YYYY-MM-DDTHH:MM:SSZ */

	/* bootstrap draws: n_draws rows of n_draw_params values, named by
	 * draw_names (wc_params_vector_names order). Owned; NULL when absent. */
	int n_draws, n_draw_params;
	char (*draw_names)[WC_NAME_MAX];
	double *draws;
} wc_params;

/** The built-in "paper" profile: Table 13 with gamma2 = 0.10 (estimated)
 *  and kappa = 1 (assumed, not published). No allocation; clear not needed. */
void wc_params_default(wc_params *out);
/** Free the draws and zero the struct. Safe on a zeroed struct. */
void wc_params_clear(wc_params *p);
/** Deep copy: `dst` must be cleared/uninitialised; caller clears it later. */
int wc_params_copy(wc_params *dst, const wc_params *src, wc_error *err);
/** Store `n_draws` x `n_params` values with their names (copied). */
int wc_params_set_draws(wc_params *p, int n_draws, int n_params,
                        const char (*names)[WC_NAME_MAX],
                        const double *values, wc_error *err);
/** Level by name, or NULL (borrowed pointer into `p`). */
const wc_level *wc_params_level(const wc_params *p, const char *name);
/** Structural check: names unique, shared-S targets exist, finite values,
 *  S > 0, P0 >= 0. Message names the offending element. */
int wc_params_validate(const wc_params *p, wc_error *err);

/** Flat view of the free parameters (for bootstrap draws): names like
 *  "S[A100]", "theta[H100]", "delta", "b_w[fp8@H200]". Writes up to `cap`
 *  entries and returns how many the set has (call with cap 0 to count). */
int wc_params_vector_names(const wc_params *p, char (*names)[WC_NAME_MAX], int cap);
/** Read / write the value of each named parameter; unknown names are
 *  WC_ENOTFOUND. */
int wc_params_get_named(const wc_params *p, const char *name, double *out);
int wc_params_set_named(wc_params *p, const char *name, double value);
/** The named parameter itself (value, interval, source), or NULL.
 *  Borrowed: valid while `p` lives. */
const wc_param *wc_params_param_named(const wc_params *p, const char *name);
/** Set the 95 % interval of a named parameter. */
int wc_params_set_interval_named(wc_params *p, const char *name, double lo, double hi);

/** One configuration to evaluate. */
typedef struct {
	const char *platform;    /* level name */
	int tp;                  /* GPUs in the serving group, >= 1 */
	double active_params_b;  /* > 0 */
	double running;          /* n >= 0; 0 = idle */
	wc_precision weights, kv;
	double sm_clock_mhz;     /* 0 = not locked */
} wc_config;

#define WC_CONFIG_INIT { NULL, 1, 0.0, 0.0, WC_PREC_BF16, WC_PREC_BF16, 0.0 }

typedef struct {
	double node_power_w;     /* G*P0 + G*dynamic */
	double per_gpu_power_w;  /* node / G */
	double idle_power_w;     /* G*P0 */
	double dynamic_w;        /* node - idle */
} wc_power;

/** Evaluate the law at one load level (SPEC §1). n = 0 gives G*P0 exactly;
 *  the quadratic term is never evaluated there. */
int wc_law_power(const wc_params *p, const wc_config *c, wc_power *out, wc_error *err);

/** Mean power over a load series: time-weighted average of the law over
 *  `running[i]` held for `weight[i]` (seconds or fractions; sum > 0). */
int wc_law_power_series(const wc_params *p, const wc_config *c,
                        const double *running, const double *weight, size_t len,
                        wc_power *out, wc_error *err);

/** The law's kernel: dynamic power per GPU at n running requests from
 *  resolved numbers: scale = S*m_KV*phi(f) (1*m*phi for power-law forms),
 *  z0 = theta + delta*lN + b_w. 0 at n <= 0. Hot loops over bootstrap
 *  draws call this directly. */
double wc_law_dynamic(wc_form form, double scale, double z0, double gamma1,
                      double gamma2, double floor_logit, double n);
/** The kept precision term for (setting, precision) on `level`: a
 *  level-specific one wins over an all-levels one. NULL = none. Borrowed. */
const wc_precision_term *wc_params_find_term(const wc_params *p, wc_setting setting,
                                             wc_precision prec, const char *level);
/** Any term (kept or not) recorded for exactly this setting/precision/level
 *  or for all levels; used to explain why none applies. Borrowed. */
const wc_precision_term *wc_params_find_tested_term(const wc_params *p, wc_setting setting,
                                                    wc_precision prec, const char *level);
/** Name of a term in the flat vector: "term[weights:fp8@H200]". */
void wc_precision_term_label(const wc_precision_term *t, char *buf, size_t cap);
/** The level whose S applies to `lvl` (itself unless it shares). */
const wc_level *wc_params_scale_level(const wc_params *p, const wc_level *lvl);

/* ------------------------------------------------------------ catalogs */

typedef struct {
	const char *name;
	const char *architecture;
	double memory_gb;
	double bandwidth_tb_s;
	double bf16_tflops;
	double max_power_w;
	double max_sm_clock_mhz;
} wc_platform_info;

/** Published platform facts (paper platforms.csv + vendor sheets), or NULL. */
const wc_platform_info *wc_platform_lookup(const char *name);
size_t wc_platform_count(void);
const wc_platform_info *wc_platform_at(size_t i);

/* ----- trace metrics (SPEC §4) ----- */

/* Grid-facing metrics of one power trace (one GPU, or a group summed per
 * sample). A trace is samples (t[i], p[i]) with t non-decreasing, read as
 * the piecewise-linear curve through them: energy is its integral
 * (trapezoid), "1-s means" are its exact averages over consecutive whole
 * seconds from t[0], and the spectrum and autocorrelation are taken on its
 * exact averages over bins of the median sampling interval (a uniform grid
 * even when timestamps jitter). Metrics that a trace is too short for are
 * NaN. No function here keeps state; scratch memory is freed before
 * returning. */

/** Period search range of wc_trace_dominant_period (SPEC §4). */
#define WC_TRACE_PERIOD_MIN_S 0.5
#define WC_TRACE_PERIOD_MAX_S 120.0
/** A dominant period needs a normalised autocorrelation peak at least this
 *  high; below it the trace has no period (NaN). Choice, not in SPEC. */
#define WC_TRACE_PERIOD_MIN_ACF 0.1
/** The period is the first autocorrelation peak reaching this fraction of
 *  the strongest one (guards against picking a multiple). Choice. */
#define WC_TRACE_PERIOD_NEAR_BEST 0.9

typedef struct {
	size_t samples;          /* samples in the trace */
	double duration_s;       /* t[n-1] - t[0] */
	double energy_j;         /* trapezoidal integral */
	double mean_w;           /* energy / duration (time-weighted) */
	double p5_w, p50_w, p95_w, max_w; /* over samples */
	double ramp_w_per_s;     /* mean |dP|/dt between consecutive 1-s means */
	double ramp_p95_w_per_s; /* p95 of the same */
	double spectral_entropy; /* normalised Shannon entropy of the spectrum, [0, 1] */
	double period_s;         /* strongest autocorrelation peak in [0.5, 120] s */
	double grid_s;           /* bin width of the spectral grid (median dt) */
} wc_trace_metrics;

/** Every field NaN (samples 0). */
void wc_trace_metrics_init(wc_trace_metrics *m);

/** Trapezoidal integral of the trace, J (0 for n < 2). t must be
 *  non-decreasing; not checked here (wc_trace_metrics_compute checks). */
double wc_trace_energy(const double *t, const double *p, size_t n);

/** Quantile `q` in [0, 1] of `n` values with GSL's interpolation between
 *  order statistics. `scratch` (n doubles, caller-owned) receives a sorted
 *  copy; the input is untouched. NaN for n = 0. */
double wc_trace_quantile(const double *p, size_t n, double q, double *scratch);

/** Exact means of the piecewise-linear trace over consecutive bins of
 *  `width` seconds starting at t[0]; only complete bins count. Returns the
 *  number of bins written to `out` (at most `cap`; call with cap 0 to
 *  count). */
size_t wc_trace_bin_means(const double *t, const double *p, size_t n, double width,
                          double *out, size_t cap);

/** Incremental form of wc_trace_bin_means for streaming readers: feed
 *  samples in time order; `emit` is called with each completed bin's mean. */
typedef struct {
	double t0, width;
	size_t bin;       /* index of the bin being filled */
	double ref;       /* power at the start of that bin, W */
	double area;      /* integral of (power - ref) so far inside it, J */
	double t_prev, p_prev;
	int started;
} wc_trace_binner;

void wc_trace_binner_init(wc_trace_binner *b, double width);
void wc_trace_binner_push(wc_trace_binner *b, double t, double p,
                          void (*emit)(double mean, void *payload), void *payload);

/** Mean and p95 of |m[k+1] - m[k]| / width over consecutive bin means
 *  (the ramp rate on 1-s means when width = 1). NaN when len < 2.
 *  Allocates len-1 doubles of scratch; WC_ENOMEM on failure. */
int wc_trace_ramp(const double *means, size_t len, double width, double *mean_out,
                  double *p95_out, wc_error *err);

/** Normalised spectral entropy of a uniformly sampled series: the
 *  periodogram |X_k|^2, k = 1..m/2, of the mean-removed series (m = the
 *  largest 2^a 3^b 5^c <= len, a prefix) as a distribution, its Shannon
 *  entropy divided by log(m/2). NaN when len < 8 or the series is
 *  constant. Uses GSL's mixed-radix real FFT. */
int wc_trace_spectral_entropy(const double *x, size_t len, double *out, wc_error *err);

/** Dominant period (s) of a uniformly sampled series with step `dt`: the
 *  lag of the highest local maximum of the (biased, mean-removed,
 *  normalised) autocorrelation between `min_s` and min(`max_s`, len*dt/2)
 *  -- the first local maximum reaching WC_TRACE_PERIOD_NEAR_BEST of the
 *  strongest -- refined by a parabola through the peak and its neighbours. NaN when
 *  there is no peak of at least WC_TRACE_PERIOD_MIN_ACF. The
 *  autocorrelation is computed by FFT with zero padding (no wrap-around). */
int wc_trace_dominant_period(const double *x, size_t len, double dt, double min_s,
                             double max_s, double *out, wc_error *err);

/** All metrics of one trace (SPEC §4). t must be non-decreasing (WC_EINVAL
 *  otherwise, and for non-finite values). Needs n >= 2 for energy; shorter
 *  traces give NaN metrics, not an error. Scratch memory is O(n). */
int wc_trace_metrics_compute(const double *t, const double *p, size_t n,
                             wc_trace_metrics *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

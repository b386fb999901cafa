/*
 * fit/ -- calibrates the inference power law (docs/fitting.md) on a runs table:
 * a joint nonlinear least-squares fit (GSL multifit_nlinear, LM, analytic
 * Jacobian) of residuals in log(P̄ − G·P0), and bootstrap intervals by
 * resampling runs (pthreads; replicate r draws from PCG stream (seed, r),
 * so results are bit-identical for any thread count).
 *
 * Ownership: a wc_fit_result holds a wc_params and arrays the caller
 * releases with wc_fit_result_clear. Inputs are borrowed and not modified.
 * All functions are reentrant; call gsl_set_error_handler_off() once at
 * start-up (the CLI does) so GSL reports instead of aborting.
 */
#ifndef WC_FIT_H
#define WC_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "models/warnings.h"
#include "data/runs_table.h"
#include "fit/calibrate.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Physical bounds of a saturating level (docs/fitting.md, "Physical
 * bounds"): θ beyond ±12 is indistinguishable from ±∞ (σ(12) = 1 − 6e-6),
 * so a fit that runs further ends at the bound and holds it. */
#define WC_FIT_THETA_MIN (-12.0)
#define WC_FIT_THETA_MAX 12.0
/* S of a platform the catalog does not know: at most this per GPU, the
 * largest board limit of any accelerator we know of twice over. */
#define WC_FIT_S_MAX_UNKNOWN_W 2000.0
/* A run whose mean power per GPU exceeds this multiple of its board limit
 * (or of WC_FIT_S_MAX_UNKNOWN_W) is not physical: left out, named. */
#define WC_FIT_ROW_POWER_FACTOR 1.5

/* How runs with quantized weights or an fp8 KV cache enter a fit without
 * term specs (docs/validation.md, "Candidate terms"). */
enum {
	WC_TERMS_NONE = 0,      /* left out of the fit */
	WC_TERMS_PER_LEVEL = 1, /* a weights shift per precision and level */
	WC_TERMS_POOLED = 2,    /* one weights shift per precision for every level */
	WC_TERMS_AS_BF16 = 3    /* in the fit with no term, as if bf16 */
};

/** What to fit. Start from WC_FIT_OPTIONS_INIT. */
typedef struct {
	wc_form form;
	/** Reference parameters (borrowed; may be NULL = the "paper" profile):
	 *  P0 of levels whose runs carry no idle_power_w, starting values,
	 *  S sharing between levels (s_shared_with) and the clock reference. */
	const wc_params *prior;
	/** Optional mask (length = table rows): 0 leaves a run out (held-out
	 *  validation, bootstrap). NULL = every run not marked `exclude`. */
	const unsigned char *use;
	/** Optional multiplicity per run (bootstrap resamples); NULL = 1. */
	const int *weight;
	/** Precision terms. With `term_specs` NULL every precision setting in
	 *  the data gets a term: weights as a shift inside z per level, an fp8
	 *  KV cache as a factor on S for all levels (`precision_terms` = 0:
	 *  none, and such runs are left out). With `term_specs` given (e.g.
	 *  from the paired-run analysis), kept specs are fitted with their
	 *  placement, and runs whose setting has no kept spec are left out.
	 *  Without specs, `precision_terms` is a WC_TERMS_* mode (the
	 *  candidates `validate forms --real` scores side by side). */
	int precision_terms;
	int n_term_specs;
	const wc_precision_term *term_specs;
	/** Explicit S sharing "LEVEL=TARGET" pairs added to the prior's. */
	int n_shares;
	const char *const *shares;
	int max_iter;
	/** Starting point (borrowed; optional): a previous fit of the same
	 *  table and options, e.g. the point estimate for bootstrap replicates. */
	const double *start;
	size_t start_len;
	/** The capacity model the prefill-aware form takes its prefill shares
	 *  from (borrowed; docs/inference-law.md). NULL = refitted on the same
	 *  runs when they carry throughput, else the prior's section. */
	const wc_capacity_params *capacity;
	/** Structure terms to fit (a mask of WC_LT_BIT(k), models/law.h;
	 *  docs/fitting.md "Structure terms"): each a shared shift of z times
	 *  its covariate. 0 = none, the published law. */
	unsigned law_terms;
} wc_fit_options;

#define WC_FIT_OPTIONS_INIT                                                      \
	{ .form = WC_FORM_SATURATING_QUADRATIC, .prior = NULL, .use = NULL,       \
	  .weight = NULL, .precision_terms = 1, .n_term_specs = 0,                \
	  .term_specs = NULL, .n_shares = 0, .shares = NULL, .max_iter = 200,     \
	  .start = NULL, .start_len = 0, .capacity = NULL, .law_terms = 0u }

typedef struct {
	wc_params params;     /* the fitted law (sources: fitted / measured / prior's) */
	int converged;        /* 1 when GSL reported success */
	int gsl_status, info, niter;
	double rcond;         /* reciprocal condition number of the Jacobian */
	double rms;           /* RMS of the log residuals */
	double max_se;        /* largest standard error in fit units (logs,
	                       * z-units); INFINITY when one is not identified */
	int n_used;           /* rows in the fit (with multiplicity) */
	int n_runs, n_pieces; /* runs among the used rows (a run's `#seg<k>`
	                       * pieces one), and those rows */
	int n_excluded;       /* left out: `exclude` column or P̄ <= G·P0 */
	/* the free parameter vector, named as in wc_params_vector_names */
	int n_free;
	char (*names)[WC_LABEL_MAX];
	double *x;
	double *se;           /* standard error of each, in fit units */
	unsigned char *weak;  /* 1 = weakly identified (named in a warning) */
	double *residuals;    /* per table row; NaN for rows not in the fit */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
	/* where the prefill-aware form's prefill shares came from ("" for
	 * other forms, or when the prior's section applies): information,
	 * not a warning */
	char prefill_source[WC_WARNING_LEN];
} wc_fit_result;

/** Fit the law. Returns WC_OK with `out->converged` = 0 and a warning when
 *  GSL stops without convergence (the estimate is still reported); an
 *  error only when the problem cannot be set up (no usable runs, fewer
 *  runs than parameters, out of memory). Caller clears `out`. */
/** Distinct reasons a term's refusals are told apart by (the fit's two
 *  words, and "only one model" naming another model in another fold);
 *  refusals past them are counted, not worded. */
#define WC_LT_NOTE_REASONS 4
/** Structure terms the refits of a held-out analysis were asked for and
 *  left out (docs/fitting.md, "Structure terms"): how many refits ran,
 *  and per term how many left it out, and per distinct reason (the fit's
 *  warning whole, in its own words) how many refits gave it: a fold that
 *  holds out a term's only model refuses it for another reason than the
 *  rest. */
typedef struct {
	int refits;
	int refused[WC_LT_COUNT];
	int n_why[WC_LT_COUNT];
	int why_count[WC_LT_COUNT][WC_LT_NOTE_REASONS];
	char why[WC_LT_COUNT][WC_LT_NOTE_REASONS][WC_WARNING_LEN];
} wc_law_terms_notes;
/** Count refit `r`, fitted with the structure terms `asked`, into `n`. */
void wc_fit_law_terms_note(wc_law_terms_notes *n, unsigned asked, const wc_fit_result *r);
/** Add the counts of `from` (another analysis's refits) into `into`. */
void wc_fit_law_terms_merge(wc_law_terms_notes *into, const wc_law_terms_notes *from);

/** Set `opt`'s form and terms so that a refit of the law (a held-out
 *  fold) is built as `set` was (docs/validation.md, "Refitting a set"):
 *  its form, the structure terms it carries, and quantized runs taken as its recorded
 *  precision_mode says (paired: its own terms as specs). A set that does
 *  not record it gets a precision term per level when it has precision
 *  terms, else every quantized run in with no term (WC_TERMS_AS_BF16).
 *  `precision` >= 0 (a WC_TERMS_* mode, the user's --terms) replaces the
 *  set's recipe, specs included; -1 keeps it. `opt` borrows `set`'s terms. */
void wc_fit_options_like(wc_fit_options *opt, const wc_params *set, int precision);
/** The mode a fit with `opt` records in its set (models/params.h). */
wc_precision_mode wc_fit_precision_mode(const wc_fit_options *opt);

int wc_fit_inference_law(const wc_runs_table *t, const wc_fit_options *opt,
                         wc_fit_result *out, wc_error *err);
void wc_fit_result_clear(wc_fit_result *r);

/** Bootstrap options. */
typedef struct {
	int replicates;     /* B, default 1000 */
	uint64_t seed;
	int threads;        /* >= 1 */
} wc_bootstrap_options;

#define WC_BOOTSTRAP_OPTIONS_INIT { .replicates = 1000, .seed = 0, .threads = 1 }

/** Resample runs with replacement B times, refit each from the point
 *  estimate, and write 2.5 / 97.5 percentile intervals into
 *  `point->params` (lo/hi of every fitted parameter) plus all draws
 *  (wc_params_set_draws). The draws' deviations from the point estimate
 *  are scaled by sqrt(n/(n-p)) (in fit units): the degrees-of-freedom
 *  correction of the run bootstrap, whose spread is otherwise too narrow
 *  for n runs and p parameters. Replicates that fail to converge are left out of
 *  the percentiles and counted in a warning. A parameter whose interval is
 *  very wide gets a warning naming it (weak identification). */
int wc_fit_bootstrap(const wc_runs_table *t, const wc_fit_options *opt,
                     const wc_bootstrap_options *bo, wc_fit_result *point, wc_error *err);

/** The resample of replicate `r` over `n` rows, as every bootstrap of
 *  the project draws it (docs/statistics.md, "Bootstrap"): `mult[k]`, k <
 *  n, the times row k is drawn, from PCG32 stream (seed, r). For peers
 *  and researchers who refit the same resamples elsewhere. */
void wc_fit_resample_counts(uint64_t seed, int r, size_t n, double *mult);

/** Model power for a row of the table with a parameter set: the law at
 *  the row's running, or averaged over its n(t) series; the row's measured
 *  idle_power_w (per GPU) replaces the level's P0 when present. */
/** Rows repeated under another model's name (fit/twins.c): their count,
 *  and a warning naming the first pair into `msg` (cap bytes; "" none).
 *  Excluded rows take no part. */
int wc_fit_twin_models(const wc_runs_table *t, char *msg, size_t cap);
int wc_fit_predict_run(const wc_params *p, const wc_run *run, wc_power *out, wc_error *err);

/* ------------------------------------------------ the power response */

/** One measured run as the response fit sees it (docs/envelopes.md,
 *  "Fitting the response"): its load on a regular grid, its measured
 *  per-GPU power samples and the frozen law bound to its configuration.
 *  Arrays are borrowed. */
typedef struct {
	const char *run_id;
	const char *platform;      /* its level: runs of one level share a time constant */
	double dt;                 /* grid step, s */
	size_t n_grid;
	const double *running;     /* requests running in each bin (held) */
	const double *prefill;     /* seconds of prefill in each bin, 0..dt */
	size_t n_samples;
	const double *t_s;         /* sample times, s from the grid start */
	const double *power_w;     /* measured power per GPU, W */
	wc_law_point law;          /* P0 (the run's measured idle when known) and the law */
} wc_response_run;

typedef struct {
	int bootstrap;             /* run resamples for the intervals (0 = none) */
	uint64_t seed;
	int threads;
	int max_iter;
	double linger_max_s;       /* > 0: upper bound on hold_s and decay_s, how long power
	                            * may linger after the engine empties (0: the section's
	                            * bounds, WC_RESPONSE_MAX_HOLD_S / _DECAY_S) */
	int linger_nested;         /* 1: wc_fit_response_nested chooses linger_max_s among
	                            * WC_RESPONSE_LINGER_CANDIDATES (docs/envelopes.md,
	                            * "Fitting the response") */
} wc_response_fit_options;

#define WC_RESPONSE_FIT_OPTIONS_INIT                                             \
	{ .bootstrap = 200, .seed = 1, .threads = 1, .max_iter = 200, .linger_nested = 1 }

/** The bounds on hold_s and decay_s the nested choice tries: one grid bin
 *  (50 ms) times powers of 4, then the section's own bound (60 s). */
#define WC_RESPONSE_LINGER_CANDIDATES { 0.05, 0.2, 0.8, 3.2, 12.8, 60.0 }
#define WC_RESPONSE_N_LINGER 6

/** What the nested choice of the linger bound saw: per candidate, the
 *  mean over the runs left out in turn of their mean square error per
 *  sample (W^2; NaN: not scored), and the candidate chosen. */
typedef struct {
	double bound_s[WC_RESPONSE_N_LINGER];
	double score[WC_RESPONSE_N_LINGER];
	int folds;                 /* runs left out in turn */
	double chosen_s;
} wc_response_linger_choice;

/** Fit the response -- time constant, hold, decay, prefill ratio and the
 *  dynamic scale -- by least squares of the modelled per-GPU power at the
 *  sample times against the measured samples, through the kernel the
 *  envelopes use (models/response.h), every run weighted equally. The
 *  law's dynamic power is scaled by one factor for all runs, set to its
 *  least-squares value at every step (profiled out) and reported as
 *  `dynamic_scale`: the share of the law the envelope's power map keeps
 *  beside the prefill increment (docs/envelopes.md, "Power"). 95 %
 *  intervals from resampling runs (replicate r on PCG32 stream (seed, r);
 *  bit-identical for any thread count). Needs at least two runs with
 *  samples. Each platform level the runs name gets a time constant of its
 *  own. `out` is filled with present = fitted = 1. */
int wc_fit_response(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                    wc_response_params *out, wc_error *err);
/** Whether a fitted hold_s or decay_s `value` sits at its `bound` (to the
 *  simplex's size tolerance): wc_fit_response writes such a value with no
 *  interval when every resample ends there too, and `fit response` prints
 *  it as the bound it is (docs/envelopes.md, "Fitting the response"). */
int wc_response_at_bound(double value, double bound);
/** Drop the interval of r's hold_s (decay_s) when both its value and its
 *  lower end sit at max_hold (max_decay): every resample ended at the
 *  bound, and the interval would be near zero width. wc_fit_response
 *  applies it to its bootstrap's intervals. */
void wc_response_bound_intervals(wc_response_params *r, double max_hold, double max_decay);
/** The per-GPU power the response model gives at each sample of `run`
 *  with the response `r` (its level's time constant; n_samples values) at
 *  the run's own level factor -- the scale of the law that fits this run
 *  best, a diagnostic (`law_level`), returned in `level` (may be NULL). */
int wc_response_predict_samples(const wc_response_run *run, const wc_response_params *r,
                                double *out, double *level, wc_error *err);

/** The per-GPU power the response model gives at each sample of `run`
 *  with `r` at r's own dynamic scale (not the run's level factor): the
 *  prediction for a run left out of r's fit, at its measured load. */
int wc_response_predict_scaled(const wc_response_run *run, const wc_response_params *r, double *out,
                               wc_error *err);
/** The root mean square per sample of wc_response_predict_samples
 *  against `run`'s measured samples (W per GPU; NaN without samples or on
 *  failure), with the run's level factor in `level` (may be NULL; NaN on
 *  failure): the per-run check `fit response` prints. */
int wc_response_run_rms(const wc_response_run *run, const wc_response_params *r, double *rms_w,
                        double *level, wc_error *err);
/** The mean square error per sample of wc_response_predict_scaled --
 *  what a run left out of r's fit is scored by. */
int wc_response_heldout_mse(const wc_response_run *run, const wc_response_params *r, double *mse,
                            wc_error *err);
/** wc_fit_response with the bound on hold_s and decay_s chosen by
 *  validation inside `runs` (docs/envelopes.md, "Fitting the response"):
 *  for each candidate bound, each run with power samples is left out in
 *  turn, the response fitted on the others (no bootstrap) and the run
 *  scored by wc_response_heldout_mse; the candidate with the lowest mean
 *  score (the smallest of equals) is the bound of the final fit on all
 *  of `runs`. Only `runs` are seen: a run held out by the caller never
 *  chooses its own bound. `choice` (may be NULL) gets the scores. With
 *  o->linger_nested 0 this is wc_fit_response. */
/** What identifies a run a response is fitted on (docs/formats/params-file.md,
 *  "response"): the first 64 bits of the SHA-256 of its measured power
 *  samples, wherever its folder lies or however it was named on the
 *  command line. `fit response` records them; `validate envelope` finds
 *  its runs among them. */
uint64_t wc_response_run_hash(const wc_response_run *run);
int wc_fit_response_nested(const wc_response_run *runs, size_t n, const wc_response_fit_options *o,
                           wc_response_params *out, wc_response_linger_choice *choice, wc_error *err);

/** Pin OpenBLAS to one thread (threaded callers: the server, bootstrap). */
void wc_linalg_pin_single_thread(void);
/** Stop OpenBLAS's idle thread pool, which spins at start-up (a command
 *  that never fits calls it: `metrics`). A later threaded BLAS call restarts it. */
void wc_linalg_stop_pool(void);

#ifdef __cplusplus
}
#endif
#endif

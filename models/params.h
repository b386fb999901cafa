/*
 * Parameter sets -- frozen laws -- and their named view
 * (docs/inference-law.md, docs/formats/params-file.md); evaluating one is
 * models/evaluate.h.
 *
 * Ownership: a wc_params is a plain value except its bootstrap draws and
 * its calibration's row hashes, which it owns. Start every variable at WC_PARAMS_INIT (or fill it with a
 * function below, which releases whatever it held), copy with
 * wc_params_copy (never with `=`) and release with wc_params_clear.
 * Lookups return pointers borrowed from the set.
 */
#ifndef WC_MODELS_PARAMS_H
#define WC_MODELS_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "models/capacity_model.h"
#include "models/error.h"
#include "models/finetune_law.h"
#include "models/interval.h"
#include "models/law.h"
#include "models/record.h"
#include "models/scalar.h"
#include "models/response.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_MAX_LEVELS 16
/* Slots a set stores: one beyond the levels a set may load, fit or
 * calibrate (WC_MAX_LEVELS, the one limit), for the level the datasheet
 * transfer adds to a full set (wc_params_datasheet_copy): a set of 16
 * levels refused every catalog board /v1/platforms listed as answered
 * from its datasheet (docs/fitting.md, "Platforms without a fitted level"). */
#define WC_LEVEL_SLOTS (WC_MAX_LEVELS + 1)
#define WC_MAX_TERMS 16
#define WC_MAX_MODEL_TERMS 64

/** Span of the calibration data for one level; predictions outside it
 *  carry an extrapolation warning. Zeroed = unknown (no warning). */
typedef struct {
	double active_b_min, active_b_max; /* N_act, B */
	double running_min, running_max;   /* n */
	int tp_min, tp_max;
	double clock_min, clock_max;       /* locked SM clock, 0 = never locked */
	int runs;                          /* runs of this level in the fit; -1 unknown
	                                    * (a file without range.runs) */
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
/** "weights" / "kv_cache": also the request field and runs-table column. */
const char *wc_setting_name(wc_setting s);
const char *wc_placement_name(wc_placement p);
int wc_placement_from_name(const char *name, wc_placement *out);

/** A precision term from paired runs (docs/validation.md). `kept` = 0
 *  records a tested placement that was not significant (the law ignores
 *  it, but a prediction using that precision says so in its warnings). */
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

/** How the fit that made a set treated runs with quantized weights or an
 *  fp8 KV cache (the `--terms` of `fit inference`, docs/fitting.md
 *  "Precision-terms option"), so that a refit of the set -- a held-out
 *  fold -- can be built the same way (schema 9, `provenance.precision_mode`).
 *  UNKNOWN: a set that does not record it (older files, the `paper`
 *  profile). */
typedef enum {
	WC_PMODE_UNKNOWN = 0,
	WC_PMODE_PAIRED,   /* the set's precision_terms, each with its placement */
	WC_PMODE_ALL,      /* a weights shift per precision and level */
	WC_PMODE_POOLED,   /* one weights shift per precision */
	WC_PMODE_AS_BF16,  /* every run in, no term */
	WC_PMODE_NONE,     /* quantized runs left out, no term */
	WC_PMODE_COUNT
} wc_precision_mode;

/** "paired", "all", "pooled", "as-bf16", "none"; NULL for UNKNOWN. */
const char *wc_precision_mode_name(wc_precision_mode m);
/** The mode of a name above; WC_ENOTFOUND for any other. */
int wc_precision_mode_from_name(const char *name, wc_precision_mode *out);

/** A model term (docs/calibration.md): a shift added to z whenever a
 *  configuration names this model (or a variant of it) on this level,
 *  calibrated from a few runs of the model by `wattcast calibrate`. */
typedef struct {
	char model[WC_MODEL_NAME_MAX]; /* the model key: catalog base name, else the name */
	char level[WC_NAME_MAX];     /* level name (must exist) */
	wc_param shift;              /* in z units */
	int runs;                    /* calibration runs behind it */
	/* Idle power per GPU (W) the shift was fitted above: the runs'
	 * measured idle_power_w, which answers naming the model on the level
	 * take as P0 (docs/calibration.md, "The estimate"); value 0 = none,
	 * the level's P0 (schema 13). */
	wc_param p0;
	/* The span of its calibration runs, as a calibrated level records
	 * its own (wc_run_running_span for running); answers outside it warn
	 * (docs/calibration.md, "Model scope"). Zeroed = unknown, no warning
	 * (a file before schema 19). */
	wc_range range;
} wc_model_term;

/** The key a model name is matched by: the catalog's base model name
 *  ("Qwen/Qwen3-8B-FP8" -> "Qwen3-8B"), else the name after any "org/"
 *  prefix. Written into `buf` (cut at `cap`). */
void wc_model_key(const char *name, char *buf, size_t cap);

/** A frozen inference law. */
typedef struct wc_params {
	char name[WC_NAME_MAX];       /* profile or fit label */
	wc_form form;
	int n_levels;
	wc_level levels[WC_LEVEL_SLOTS]; /* n_levels <= WC_MAX_LEVELS but in a datasheet copy */
	wc_param delta, gamma1, gamma2, kappa;
	wc_param phi;                 /* prefill power as a share of the headroom
	                               * P_max - P0 (saturating_prefill only) */
	double clock_ref_mhz;         /* f in phi(f) = (f/ref)^kappa */
	int n_terms;
	wc_precision_term terms[WC_MAX_TERMS];
	int n_model_terms;
	wc_model_term model_terms[WC_MAX_MODEL_TERMS];
	/* Structure terms (models/law.h): law_term[k] is used when bit
	 * WC_LT_BIT(k) of law_terms is set; otherwise the term is absent and
	 * its coefficient counts as 0 (schema 7). */
	unsigned law_terms;
	wc_param law_term[WC_LT_COUNT];

	/* provenance (docs/formats/params-file.md); empty / 0 when not fitted */
	wc_precision_mode precision_mode; /* how the fit took quantized runs */
	char input_sha256[65];
	int runs;
	uint64_t seed;
	int bootstrap;
	char tool_version[16];
	char created_utc[24];        /* YYYY-MM-DDTHH:MM:SSZ */
	double residual_rms;         /* RMS of the fit's log residuals; NaN/0 = unknown */
	/* a calibration of the law (`wattcast calibrate`): its own runs,
	 * seed and time, beside the base fit's record above (schema 10) */
	wc_record calibration;
	/* What identifies each row that calibration used (schema 12,
	 * wc_run_content_hash): the first 64 bits of the SHA-256 of its
	 * content, so that a table holding them among others of the same
	 * model and level is still known to hold them (docs/validation.md,
	 * "Frozen-law accuracy"). Owned; NULL / 0 when not recorded. */
	int n_calibration_rows;
	uint64_t *calibration_rows;
	/* What identifies each run the response section was fitted on
	 * (schema 14, wc_response_run_hash): the first 64 bits of the SHA-256
	 * of its measured power samples, so that the same run under another
	 * path is still known as one of them (docs/validation.md,
	 * "Envelopes"). Owned; NULL / 0 when not recorded. */
	int n_response_runs;
	uint64_t *response_runs;
	/* What identifies the rows the law was fitted on (schema 19,
	 * docs/formats/params-file.md "Provenance"): each used row's content
	 * (wc_run_content_hash, the calibration's rule), so that any subset of
	 * them, re-sorted or re-imported, is known as in-sample; each used
	 * run's id (wc_run_id_hash: a run's `#seg<k>` pieces are its run), so
	 * that pieces of a run the law learned from, or that run whole, are
	 * too; and the rows whose measured idle set a level's P0 without
	 * entering the law (`idle_rows`; docs/fitting.md, "The measured
	 * profile"). Owned; NULL / 0 when not recorded (schema < 19: cannot
	 * tell a subset). */
	int n_fit_rows, n_fit_runs, n_idle_rows;
	uint64_t *fit_rows, *fit_runs, *idle_rows;

	/* bootstrap draws: n_draws rows of n_draw_params values, named by
	 * draw_names (wc_params_vector_names order). Owned; NULL when absent. */
	int n_draws, n_draw_params;
	char (*draw_names)[WC_LABEL_MAX];
	double *draws;

	/* Sections fitted separately, each with its own draws (schema 2;
	 * `present` = 0 when the file has none). Owned. */
	wc_capacity_params capacity;
	wc_finetune_params finetune;
	/* How power follows load in time (envelopes); a plain value. */
	wc_response_params response;
	/* The law's out-of-sample error of mean power (schema 5; a plain
	 * value, present = 0 when the file has none): intervals then cover
	 * the parameters' uncertainty only (docs/intervals.md). */
	wc_pred_error pred_error;
	/* The held-out errors of latency, energy per output token and
	 * fine-tuning energy per step (schema 6), indexed by wc_pe_quantity;
	 * plain values, present = 0 when the file has none. */
	wc_pred_error quantity_error[WC_PEQ_COUNT];
} wc_params;

/** The empty set: what every wc_params variable starts as. */
#define WC_PARAMS_INIT { .name = "" }

/** The built-in "paper" profile: Table 13 with gamma2 = 0.10 (estimated)
 *  and kappa = 1 (assumed, not published). `out` must be WC_PARAMS_INIT or
 *  a filled set, whose draws are released. */
void wc_params_default(wc_params *out);
/** The built-in "paper-prefill" profile: the published values in the
 *  prefill-aware form with phi = 1 (assumed: a prefill draws up to the
 *  platform's power limit; docs/inference-law.md). Without token lengths
 *  it predicts exactly as "paper". */
void wc_params_default_prefill(wc_params *out);
/** An idle power per GPU for a platform with neither a measured nor a
 *  published one (docs/fitting.md, "Where P0 comes from"): its power limit
 *  (models/catalog.h) times the mean idle-to-limit ratio of the platforms
 *  the built-in profile publishes (A100, H100, H200: about 0.178). NaN when
 *  the catalog does not know the platform. */
double wc_params_estimated_idle_w(const char *platform);

/** A level for `platform` from its datasheet and the set's fitted levels
 *  (models/transfer.c, docs/fitting.md "Platforms without a fitted
 *  level"): sources "datasheet", no intervals, no calibrated range. The
 *  level named `skip` (may be NULL) is left out of the rule (leave one
 *  platform out). WC_ENOTFOUND when the catalog does not know the platform
 *  or the set has no fitted saturating level to transfer from. */
int wc_params_datasheet_level(const wc_params *p, const char *platform, const char *skip, wc_level *out);
/** Whether level `l` of `p` is one the datasheet rule transfers from (a
 *  catalog board with its own fitted S and theta, not `skip`): the one
 *  selection of wc_params_datasheet_level, also naming what a transferred
 *  answer rests on. */
int wc_params_transfer_source(const wc_params *p, const wc_level *l, const char *skip);

/** The levels the datasheet rule transfers to `platform` from
 *  (wc_params_transfer_source, `platform` skipped) whose board is cut
 *  from its die (the catalog's `die`: "A100" for A100-40GB), their names
 *  ", "-joined into buf; returns how many. The rule does not take them
 *  alone: held out, a same-die transfer missed more than the mean over
 *  every level (docs/fitting.md, "Platforms without a fitted level"), so
 *  an answer names them. */
int wc_params_die_levels(const wc_params *p, const char *platform, char *buf, size_t cap);

/** A copy of `p` whose level `name` (a catalog name) is the datasheet
 *  transfer from the set's other levels, replacing its own level of that
 *  name or added (in the spare slot, WC_LEVEL_SLOTS, when `p` is full),
 *  without its model terms and without draws. The copy is shallow and
 *  owns nothing: release it with free(), never wc_params_clear().
 *  WC_ENOTFOUND (err untouched) when there is no transfer; WC_EINVAL for
 *  a set of more than WC_MAX_LEVELS levels (never "unknown"); WC_ENOMEM. Shared by the predictor's
 *  unfitted boards and leave-one-platform-out validation. */
int wc_params_datasheet_copy(const wc_params *p, const char *name, wc_params **out, wc_error *err);

/** Free the draws (and row hashes) and reset to WC_PARAMS_INIT. Safe on an empty set. */
void wc_params_clear(wc_params *p);
/** Deep copy into `dst` (WC_PARAMS_INIT or filled: released first). */
int wc_params_copy(wc_params *dst, const wc_params *src, wc_error *err);
/** Store `n_draws` x `n_params` values with their names (copied),
 *  replacing the set's draws. */
int wc_params_set_draws(wc_params *p, int n_draws, int n_params,
                        const char (*names)[WC_LABEL_MAX],
                        const double *values, wc_error *err);
/** Store `n` row hashes of the set's calibration (copied), replacing
 *  its own; n = 0 leaves none. */
int wc_params_set_calibration_rows(wc_params *p, const uint64_t *rows, int n, wc_error *err);
/** Add `n` row hashes to the set's calibration rows, keeping each hash
 *  once (its own first, in order; repeats among its own dropped too). */
int wc_params_add_calibration_rows(wc_params *p, const uint64_t *rows, int n, wc_error *err);
/** Store `n` run hashes of the set's response fit (copied), replacing
 *  its own; n = 0 leaves none. */
int wc_params_set_response_runs(wc_params *p, const uint64_t *runs, int n, wc_error *err);
/** The fit's row hashes (schema 19): which list -- 'r' fit_rows, 'u'
 *  fit_runs, 'i' idle_rows -- replaced by a copy of `n` hashes, each kept
 *  once (first in order); n = 0 leaves none. */
int wc_params_set_fit_hashes(wc_params *p, char which, const uint64_t *h, int n, wc_error *err);
/** Level by name, case-insensitive as --platform is, or NULL (borrowed
 *  pointer into `p`; its `name` is the set's spelling). */
const wc_level *wc_params_level(const wc_params *p, const char *name);
/** The name a platform is answered under: the set's spelling of the
 *  level `name` names, else of the level under the catalog's name for it,
 *  else the catalog's name (answered from its datasheet), else NULL
 *  (unknown). Answers echo it, not the spelling asked (docs/http-api.md). */
const char *wc_params_platform(const wc_params *p, const char *name);
/** Add to `l` the catalog boards `p` has no level named for ("A10G",
 *  "L4", ...): the platforms it answers from datasheets, for messages that
 *  list them beside the levels; those in `listed` (a '+'-joined list of
 *  names the message lists already, NULL none) left out. */
void wc_params_datasheet_names(const wc_params *p, const char *listed, wc_name_list *l);
/** The refusal of a platform `p` neither has a level for nor answers from
 *  a datasheet, into out[0..WC_ERROR_MSG_MAX): "FIELD: unknown platform
 *  QaskedQ (known: LEVELS; from datasheets: BOARDS; see POINTER)", `asked`
 *  kept to 48 bytes, quoted with `quote`, the pointer left out when NULL.
 *  The two lists share the room the rest leaves, each ending at a name
 *  with how many it left out (wc_name_list, models/error.h): the CLI's and the
 *  HTTP API's one wording (docs/http-api.md, "Errors"). */
void wc_params_unknown_platform(const wc_params *p, const char *field, char quote, const char *asked,
                                const char *pointer, char *out);
/** Structural check: names unique, shared-S targets exist, finite values,
 *  S > 0, P0 >= 0. Message names the offending element. */
int wc_params_validate(const wc_params *p, wc_error *err);

/* ------------------------------------------------- the named vector view */

/** Kinds of per-level parameters; the label of a parameter of `level` is
 *  "S[A100]", "theta[A100]", "floor[A100]", "P0[A100]". Shared ones are
 *  "delta", "gamma1", "gamma2", "kappa"; precision terms
 *  "term[weights:fp8@H200]"; structure terms "arch_moe", "log_tp", ...
 *  (wc_law_term_name); model terms "shift[Qwen3-8B@H100]". These labels name the draws' columns, the
 *  fit's parameters and every report; they are formed only here. */
typedef enum { WC_LEVEL_S = 0, WC_LEVEL_THETA, WC_LEVEL_FLOOR, WC_LEVEL_P0 } wc_level_param;
void wc_level_param_label(wc_level_param kind, const char *level, char *buf, size_t cap);
/** Name of a term in the flat vector: "term[weights:fp8@H200]". */
void wc_precision_term_label(const wc_precision_term *t, char *buf, size_t cap);
/** Name of a model term: "shift[Qwen3-8B@H100]". */
void wc_model_term_label(const wc_model_term *t, char *buf, size_t cap);
/** The model term for `model` (any variant, see wc_model_key) on
 *  `level`, or NULL. Borrowed. */
const wc_model_term *wc_params_find_model_term(const wc_params *p, const char *model,
                                               const char *level);
/** The idle power per GPU an answer for `model` on level `lvl` takes when
 *  the configuration gives none of its own: the model term's p0_w when it
 *  records one (its shift was fitted above that idle, docs/calibration.md,
 *  "The estimate"), else the level's P0. `term` (may be NULL) receives the
 *  term whose idle it is, else NULL. Borrowed. Predict, simulate and the
 *  validators all take P0 from here. */
const wc_param *wc_params_find_p0(const wc_params *p, const char *model, const wc_level *lvl,
                                  const wc_model_term **term);
/** The one bound on an idle power per GPU (0 = none given: not checked):
 *  at least WC_GPU_MIN_POWER_W (1 W), the floor of any GPU's power a run's
 *  mean power is held to too -- below it the figure is a unit slip, kW
 *  given as W ("FIELD: X W per GPU is under 1 W, below any GPU's idle: a
 *  unit slip (kW given as W?); give one idle GPU's power") -- and below
 *  the board's power limit of the level named `level` (its board as
 *  wc_platform_board finds it, `shared_with` the level's s_shared_with or
 *  NULL; a board the catalog does not know is not checked). A figure at or
 *  above it is a node's or a busy GPU's. Refused as "FIELD: X W per GPU is
 *  not below B's board limit of L W; give one idle GPU's power". Every
 *  idle a configuration, an envelope, a plan, a calibration or a set
 *  gives passes here. */
int wc_params_check_idle(const char *level, const char *shared_with, double idle_w, const char *field,
                         wc_error *err);
/** Remove every model term on `level` (the others keep their order):
 *  terms calibrated on runs that a held-out fold of that level predicts,
 *  or of a level about to be calibrated afresh. */
void wc_params_drop_model_terms(wc_params *p, const char *level);

/** Flat view of the free (fitted) parameters, in draw order. Writes up to
 *  `cap` names and returns how many the set has (cap 0 counts). */
int wc_params_vector_names(const wc_params *p, char (*names)[WC_LABEL_MAX], int cap);
/** Read / write the value of each named parameter; unknown names are
 *  WC_ENOTFOUND. */
int wc_params_get_named(const wc_params *p, const char *name, double *out);
/** Column of the named parameter in the set's draws, or -1 (no draws,
 *  or the parameter is fixed). */
int wc_params_draw_column(const wc_params *p, const char *name);
int wc_params_set_named(wc_params *p, const char *name, double value);
/** The named parameter itself (value, interval, source), or NULL.
 *  Borrowed: valid while `p` lives. */
const wc_param *wc_params_param_named(const wc_params *p, const char *name);
/** Set the 95 % interval of a named parameter. */
int wc_params_set_interval_named(wc_params *p, const char *name, double lo, double hi);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The fine-tuning energy law (docs/finetune.md): the analytical FLOPs of
 * one optimizer step, the compute-energy law E_step = e0 + kappa * F_step,
 * the three per-factor relations of energy per token, and the law's
 * section of a parameter file (docs/formats/params-file.md). A
 * configuration is bound to a section once (wc_ft_bind); the point
 * estimate and every bootstrap draw then go through wc_ft_bound_point.
 *
 * Ownership: a wc_finetune_params owns its draws; release with
 * wc_finetune_params_clear, copy with wc_finetune_params_copy. Everything
 * else here is a plain value; lookups return static strings.
 */
#ifndef WC_MODELS_FINETUNE_H
#define WC_MODELS_FINETUNE_H

#include <math.h>

#include "models/catalog.h"
#include "models/draws.h"
#include "models/error.h"
#include "models/law.h"
#include "models/limits.h"
#include "models/scalar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ configuration */

/** How the weights are trained. */
typedef enum { WC_FT_FULL = 0, WC_FT_LORA, WC_FT_QLORA, WC_FT_METHOD_COUNT } wc_ft_method;
/** "full", "lora", "qlora". */
const char *wc_ft_method_name(wc_ft_method m);
/** Exact lower-case name; WC_ENOTFOUND otherwise. */
int wc_ft_method_from_name(const char *name, wc_ft_method *out);
/** "full, lora or qlora", for messages. */
const char *wc_ft_method_choices(void);
/** The methods of a mask (bit 1 << wc_ft_method each) joined by `sep`
 *  ("full+lora") into `buf`; returns how many. */
int wc_ft_methods_join(unsigned methods, const char *sep, char *buf, size_t cap);

/** tokens_per_step must lie in [1, WC_FT_MAX_TOKENS]: a step trains on at
 *  least one token, and 1e15 is ten million times the largest published
 *  batches (sanity bound, not physics; it keeps every energy finite). */
#define WC_FT_MAX_TOKENS 1e15
/** A job's optimizer steps (its energy in kWh) are a whole number in
 *  [0, WC_FT_MAX_STEPS] (sanity bound, not physics; docs/finetune.md,
 *  "Predicting"). */
#define WC_FT_MAX_STEPS 1e15
/** Check a number of optimizer steps (NaN = none asked); the message
 *  starts with "steps:". */
int wc_ft_steps_check(double steps, wc_error *err);

/** One fine-tuning job. `params_b` is the model's (active) size in
 *  billions; the attention shape is optional (0 = unknown: multi-head
 *  attention with heads * head_dim = d_model is assumed for the adapter
 *  widths). */
typedef struct {
	wc_ft_method method;
	double params_b;
	int layers, d_model;
	int attention_heads, kv_heads, head_dim;
	int lora_rank;           /* > 0 for LoRA and QLoRA; 0 for full */
	int micro_batch;         /* sequences per micro-step and replica */
	int seq_len;             /* tokens per sequence (attention context) */
	int grad_accum;          /* micro-steps per optimizer step */
	int gpus;                /* GPUs of the job: their power is summed */
	int data_parallel;       /* replicas; 0 = gpus (DDP/FSDP/ZeRO) */
	int checkpointing;       /* activation checkpointing: one more forward */
	double tokens_per_step;  /* NaN = micro_batch*seq_len*grad_accum*replicas */
	/* The catalog entry the shape came from (wc_ft_config_from_model;
	 * borrowed, NULL otherwise): a mixture-of-experts model holds and
	 * trains its total, not params_b. */
	const wc_model_info *model;
	/* The name the user gave for it (borrowed; NULL = none): a suffix the
	 * name rule does not know is warned as inference warns it
	 * (docs/capacity.md, "Model names"). */
	const char *model_name;
} wc_ft_config;

#define WC_FT_CONFIG_INIT                                                        \
	{ .method = WC_FT_QLORA, .params_b = 0.0, .layers = 0, .d_model = 0,      \
	  .attention_heads = 0, .kv_heads = 0, .head_dim = 0, .lora_rank = 0,     \
	  .micro_batch = 0, .seq_len = 0, .grad_accum = 1, .gpus = 1,             \
	  .data_parallel = 0, .checkpointing = 0, .tokens_per_step = NAN, .model = NULL, .model_name = NULL }

/** Size and shape of a catalog model into `c` (params_b, layers, d_model,
 *  heads, kv heads, head dim), and the entry itself (c->model). */
void wc_ft_config_from_model(wc_ft_config *c, const wc_model_info *m);
/** Data-parallel replicas: data_parallel, or gpus when 0. */
int wc_ft_replicas(const wc_ft_config *c);
/** The tokens one step holds: micro_batch x seq_len x grad_accum x
 *  replicas (tokens_per_step's default, and its most). */
double wc_ft_step_tokens(const wc_ft_config *c);
/** Check every field; the message starts with the field ("micro_batch:
 *  must be a whole number >= 1, got -2"). */
int wc_ft_config_check(const wc_ft_config *c, wc_error *err);

/* ------------------------------------------------ FLOPs of one step */

/** The analytical compute of one optimizer step (docs/finetune.md,
 *  "FLOPs per optimizer step"); FLOPs per token unless stated. */
typedef struct {
	double tokens_per_step;        /* T */
	double weight_flops;           /* 2 N */
	double attention_flops;        /* 2 keys w: keys seq_len a layer, a sliding
	                                * window's share of it on windowed layers
	                                * (wc_capacity_causal_pairs); w the
	                                * attention width (wc_model_attention_width) */
	double forward_flops;          /* weight + attention */
	double adapter_width;          /* sum of (d_in + d_out) over the adapted
	                                * matrices of one layer; 0 for full */
	double adapter_flops;          /* forward of the adapters: 2 r layers width */
	double base_passes;            /* 3 full, 2 LoRA/QLoRA, +1 checkpointing */
	double adapter_passes;         /* 3, +1 checkpointing; 0 for full */
	double flops_per_token;        /* base_passes forward + adapter_passes adapter */
	double flops_per_step_tflop;   /* T flops_per_token / 1e12 */
} wc_ft_flops;

/** FLOPs of one optimizer step of `c` (checked first). */
int wc_ft_flops_compute(const wc_ft_config *c, wc_ft_flops *out, wc_error *err);

/* ----------------------------------------------- per-factor relations */

/** The three per-factor relations of energy per token. */
typedef enum {
	WC_FT_REL_BATCH = 0, /* e_tok(B) = a + b / B  (micro-batch) */
	WC_FT_REL_SEQ,       /* e_tok(S) = a + b S + c / S  (sequence length) */
	WC_FT_REL_SIZE,      /* e_tok(N) = a + b N  (model size, B) */
	WC_FT_REL_COUNT
} wc_ft_relation_kind;

/** "batch_size", "sequence_length", "model_size" (the file's keys). */
const char *wc_ft_relation_name(wc_ft_relation_kind k);
/** The configuration field it sweeps: "micro_batch", "seq_len", "params_b". */
const char *wc_ft_relation_factor(wc_ft_relation_kind k);
/** "a + b/x", "a + b*x + c/x", "a + b*x". */
const char *wc_ft_relation_form(wc_ft_relation_kind k);
/** Coefficients of the form (2 or 3). */
int wc_ft_relation_terms(wc_ft_relation_kind k);
/** Basis function j of the form at x (1, 1/x; 1, x, 1/x; 1, x). */
double wc_ft_relation_basis(wc_ft_relation_kind k, int j, double x);
/** The swept factor's value in `c`. */
double wc_ft_relation_x(wc_ft_relation_kind k, const wc_ft_config *c);

/** A closed interval; NaN bounds = unknown. */
typedef struct {
	double lo, hi;
} wc_ft_span;

/** One fitted (or published) relation. */
typedef struct {
	int present;
	wc_param coef[3];      /* a, b, c (c unused by two-term forms) */
	double r2;             /* NaN = unknown */
	int runs, levels;      /* behind the fit; 0 = unknown */
	wc_ft_span x;          /* levels swept */
	int has_base;          /* the other factors of the sweep are known */
	wc_ft_config base;     /* ...and are these (the swept field is unused;
	                        * tokens_per_step NaN: the share below says it) */
	double fill;           /* with has_base: the share of each step its runs'
	                        * tokens filled (wc_ft_step_fill; 1 = full steps) */
} wc_ft_relation;

/** e_tok of the relation at x (NaN when absent). */
double wc_ft_relation_eval(wc_ft_relation_kind k, const wc_ft_relation *r, double x);
/** The share of a step's room (wc_ft_step_tokens) its tokens fill: 1 for
 *  full steps (tokens_per_step NaN), below for packed or partly filled
 *  ones (docs/finetune.md, "How the compute law and the relations
 *  combine"). */
double wc_ft_step_fill(const wc_ft_config *c);
/** Are two sizes or shares the same to 1 % -- the rule by which a query is
 *  on a sweep, and by which a fit keeps runs in one? */
int wc_ft_same_share(double a, double b);
/** Is `c` on the relation's sweep: every factor but the swept one equal to
 *  its base (sizes within 1 %), and its steps filled to the share the
 *  sweep's runs filled (r->fill, within 1 %)? 0 when the base is unknown. */
int wc_ft_relation_on_sweep(wc_ft_relation_kind k, const wc_ft_relation *r, const wc_ft_config *c);

/* --------------------------------------------- the parameter section */

/** How the fixed per-step energy e0 grows with the job's GPUs
 *  (docs/finetune.md, "e0 and the number of GPUs"). Per GPU: every GPU of
 *  the job spends the fixed part of a step (data loading, optimizer
 *  update, communication, launches), so E_step = G e0 + kappa F. Per job:
 *  e0 is the whole job's, whatever G -- the meaning of files written
 *  before schema 5, kept so that they predict as they did. */
typedef enum { WC_FT_E0_PER_GPU = 0, WC_FT_E0_PER_JOB } wc_ft_e0_scope;
/** "gpu" / "job" (the file's words). */
const char *wc_ft_e0_scope_name(wc_ft_e0_scope s);
int wc_ft_e0_scope_from_name(const char *name, wc_ft_e0_scope *out);
/** What e0 is multiplied by for a job of `gpus` GPUs: gpus or 1. */
double wc_ft_e0_multiplier(wc_ft_e0_scope s, int gpus);
/** The compute law, E_step = m e0 + kappa F (J; F in TFLOP, m from
 *  wc_ft_e0_multiplier). The one place it is written. */
double wc_ft_step_energy(double e0, double kappa, double e0_multiplier, double flops_tflop);
/** The fixed term's share of that step, m e0 / E_step (docs/finetune.md,
 *  "Predicting"); NaN when the law gives the step no energy. */
double wc_ft_fixed_share(double e0, double kappa, double e0_multiplier, double flops_tflop);

/** How a section was calibrated from a few runs (`wattcast calibrate
 *  finetune`, docs/finetune.md, "Calibrating from one run"). */
typedef enum { WC_FT_CAL_SCALE = 0, WC_FT_CAL_KAPPA } wc_ft_cal_mode;
/** "scale" / "kappa". */
const char *wc_ft_cal_mode_name(wc_ft_cal_mode m);
int wc_ft_cal_mode_from_name(const char *name, wc_ft_cal_mode *out);
/** What the mode holds at the base's value, for answers and files. */
const char *wc_ft_cal_mode_held(wc_ft_cal_mode m);

typedef struct {
	int present;             /* 0: the law was fitted or published */
	wc_ft_cal_mode mode;
	wc_param factor;         /* scale: E_step multiplied by it; kappa: kappa / base kappa */
	int runs;                /* calibration runs */
	double run_scatter;      /* sd of log E_step of one run the interval used */
	char base_version[17];   /* params_version of the base set; "" = unknown */
	char base_name[WC_NAME_MAX];
} wc_ft_calibrated;

/** The ranges a section was calibrated on; predictions outside carry a
 *  warning. NaN bounds = unknown (no warning). `fixed_share` is the
 *  fixed term's share of the step (wc_ft_fixed_share) over those runs,
 *  under the section's own e0 and kappa (schema 11). */
typedef struct {
	wc_ft_span micro_batch, seq_len, params_b, gpus, lora_rank, flops_tflop;
	wc_ft_span fixed_share;
} wc_ft_ranges;

typedef struct {
	int present;           /* 0: the parameter set has no fine-tuning law */
	/* what it was calibrated on */
	char platform[WC_NAME_MAX];
	char stack[96];        /* training software, free text */
	unsigned methods;      /* bit (1 << wc_ft_method) per method present */
	int runs;              /* runs behind the compute law; 0 = unknown */
	char input_sha256[65]; /* of the runs table fitted; "" = published */
	unsigned long long seed; /* of the bootstrap */
	int bootstrap;         /* replicates asked for; 0 = none */
	char created_utc[24];  /* when the section was fitted or calibrated (schema 10) */
	/* the compute-energy law E_step = e0 + kappa F_step */
	wc_param e0;           /* J per step */
	wc_param kappa;        /* J per TFLOP */
	double e0_se, kappa_se; /* standard errors; NaN unknown */
	double r2;             /* of E_step; NaN unknown */
	wc_ft_e0_scope e0_scope; /* how e0 grows with the GPUs */
	double residual_rms;   /* relative residual sd of the fit; NaN unknown */
	wc_ft_calibrated calibrated;
	wc_ft_ranges ranges;
	wc_ft_relation relations[WC_FT_REL_COUNT];
	wc_draws draws;        /* bootstrap draws of "e0" and "kappa" */
} wc_finetune_params;

/** Draw columns of the compute law. */
#define WC_FT_DRAW_E0 "e0"
#define WC_FT_DRAW_KAPPA "kappa"
/** How many: the columns of every draws row of the section. */
#define WC_FT_DRAW_COUNT 2
/** A fitted law's bootstrap intervals with fewer residual degrees of
 *  freedom (runs less 2) than this are said to be too narrow: over 60
 *  synthetic fits they held the true e0 and kappa 70-72 % of the time on
 *  3 runs and 88-90 % on 4, 87-95 % on 6 (a choice of wattcast,
 *  docs/finetune.md, "Fitting"). */
#define WC_FT_BOOT_MIN_DOF 3

void wc_finetune_params_clear(wc_finetune_params *f);
/** Deep copy; `dst` is released first. */
int wc_finetune_params_copy(wc_finetune_params *dst, const wc_finetune_params *src, wc_error *err);
/** The built-in published calibration (Table 8 of the LLM-PowerTrace
 *  appendix, QLoRA on one H200); `f` is released first. */
void wc_finetune_default(wc_finetune_params *f);
/** Every range unknown. */
void wc_ft_ranges_unknown(wc_ft_ranges *r);
/** Structural check of a present section (finite law, named draws). */
int wc_finetune_validate(const wc_finetune_params *f, wc_error *err);

/* The platforms a fine-tuning question may name (finetune_platform.c;
 * docs/finetune.md, "Predicting"): the law's own calibration platforms --
 * any name, as ingest, fit and calibrate take any -- besides the set's
 * levels and the catalog's boards every other question accepts. */
struct wc_params;
/** Is `name` one of the '+'-joined calibration platforms `list`
 *  ("H100+RTX-PRO-6000"), or the whole list (what a question without a
 *  platform is answered under)? */
int wc_ft_platform_calibrated(const char *list, const char *name);
/** The name a fine-tuning question's platform is answered under: `name`
 *  when the set's fine-tuning law was calibrated on it, else
 *  wc_params_platform's; NULL when nothing knows it. */
const char *wc_finetune_platform(const struct wc_params *p, const char *name);
/** The refusal of a fine-tuning platform nothing knows, into
 *  out[0..WC_ERROR_MSG_MAX): "FIELD: unknown platform QaskedQ (known:
 *  NAMES; see POINTER)", NAMES every name wc_finetune_platform accepts
 *  (the law's calibration platforms, the set's levels, the catalog's other
 *  boards), once each, ending at a name with how many it left out
 *  (wc_name_list, models/error.h); `asked` kept to 48 bytes, the pointer left out
 *  when NULL. */
void wc_finetune_unknown_platform(const struct wc_params *p, const char *field, char quote, const char *asked,
                                  const char *pointer, char *out);

/* ------------------------------------------------ evaluating the law */

/** A configuration bound to a section: its FLOPs and where e0 and kappa
 *  are in a draws row. Borrows the section. */
typedef struct {
	const wc_finetune_params *f;
	wc_ft_flops flops;
	double e0_multiplier;    /* G or 1 (wc_ft_e0_multiplier) */
	int col_e0, col_kappa;   /* -1 = the point value */
} wc_ft_binding;

/** Check `c` (field-named errors) and bind it; WC_EINVAL when the section
 *  is absent. */
int wc_ft_bind(const wc_finetune_params *f, const wc_ft_config *c, wc_ft_binding *b, wc_error *err);

typedef struct {
	double energy_per_step_j;
	double energy_per_token_j;
} wc_ft_point;

/** The law for the point estimate (`draw` NULL) or one draws row. */
void wc_ft_bound_point(const wc_ft_binding *b, const double *draw, wc_ft_point *out);

#ifdef __cplusplus
}
#endif
#endif

/*
 * Fine-tuning predictions from a frozen parameter set (docs/finetune.md,
 * "Predicting"): energy per optimizer step and per token, the FLOPs of the
 * step, the energy of K steps, a 95 % interval from the fine-tuning
 * section's bootstrap draws and the law's held-out error, the per-factor relations as checks, and a
 * warning for every input outside what the law was calibrated on
 * (ranges, platform, method and stack). Never fits; reentrant.
 */
#ifndef WC_PREDICT_FINETUNE_H
#define WC_PREDICT_FINETUNE_H

#include "models/warnings.h"
#include "predict/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One question. `platform` NULL = the calibration's; `steps` NaN = no
 *  total asked for. */
typedef struct {
	wc_ft_config config;
	const char *platform;       /* borrowed */
	double steps;
	int want_interval;
} wc_finetune_query;

/** What a relation says about the query. */
typedef struct {
	int present;
	double energy_per_token_j;  /* the relation at the query's factor */
	int on_sweep;               /* 1 on the relation's sweep, 0 off it, -1 unknown */
	double diff_pct;            /* relation vs compute law, % (NaN off the sweep) */
} wc_finetune_relation_check;

typedef struct {
	wc_ft_flops flops;
	/* THE prediction: the compute law E_step = m e0 + kappa F (m = G when
	 * e0 is per GPU, 1 when per job); the relations below are checks. */
	double energy_per_step_j, energy_per_token_j;
	double fixed_energy_j;                /* m e0: the part that does no FLOPs */
	double e0_multiplier;                 /* m */
	double e0_j, kappa_j_per_tflop;       /* the law's point values */
	wc_source e0_source, kappa_source;    /* published, fitted, calibrated */
	wc_ft_e0_scope e0_scope;
	wc_ft_calibrated calibrated;          /* how the law was calibrated, if it was */
	double steps, energy_total_kwh;       /* NaN without steps */
	int has_interval, n_draws;
	double step_lo_j, step_hi_j, token_lo_j, token_hi_j, total_lo_kwh, total_hi_kwh;
	const char *covers;                   /* what the interval covers (static text) */
	wc_finetune_relation_check relations[WC_FT_REL_COUNT];
	char platform[WC_NAME_MAX];           /* the one used */
	/* Where the answer comes from, as every answer says (docs/http-api.md,
	 * "Profiles"): the set's name, and how its fine-tuning law was
	 * obtained -- the law is the section's one "level", whatever the
	 * platform asked ("published", "fitted", "calibrated": the source e0
	 * and kappa share; NULL when they differ, which no wattcast command
	 * writes; docs/finetune.md, "Predicting"). Static / copied. */
	char profile[64];
	const char *level_source;
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_finetune_prediction;

/** Predict. A refused configuration returns WC_EINVAL with a message
 *  starting with the field ("micro_batch: ..."); a set without a
 *  fine-tuning law is WC_EINVAL naming "finetune". Extrapolation is not an
 *  error: it adds warnings. */
int wc_predict_finetune(const wc_predictor *pr, const wc_finetune_query *q,
                        wc_finetune_prediction *out, wc_error *err);
/** The model's name as a fine-tuning job can take it: full fine-tuning of
 *  an int4 checkpoint ("-AWQ", "-GPTQ") is refused (WC_EINVAL, "model:
 *  ..."); wc_predict_finetune checks it too, the CLI first, for its usage
 *  exit (docs/finetune.md, "Inputs of one job"). */
int wc_finetune_model_check(const wc_ft_config *c, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif

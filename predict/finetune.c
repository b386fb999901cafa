/*
 * Fine-tuning predictions (predict/finetune_predict.h, docs/finetune.md,
 * "Predicting"): the compute law bound once to the configuration, then
 * evaluated for the point estimate and every bootstrap draw through the
 * same wc_ft_bound_point; the relations reported beside it as checks; and
 * warnings wherever the question leaves what the law was calibrated on.
 */
#include "predict/finetune_predict.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "models/grow.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"
#include "models/warnings.h"

/* A relation that disagrees with the compute law by more than this on
 * its own sweep is named in a warning. A choice of wattcast. */
#define RELATION_WARN_PCT 10.0
/* A step whose predicted energy is more than this share the fixed term
 * G e0 is smaller than any the law was fitted on (the synthetic Table 8
 * design reaches 93 %): warned (a choice of wattcast, docs/finetune.md,
 * "Predicting"). The bound of a section that records no fixed share of
 * its runs (the published one, files before schema 11); one that does is
 * held to its own. */
#define FIXED_SHARE_WARN 0.95
/* A negative fixed term G e0 that takes away more than this share of the
 * step's compute energy kappa F leaves an answer that is mostly e0, which
 * the runs did not identify (the fit warns of e0 < 0): warned (a choice
 * of wattcast, docs/finetune.md, "Predicting"). */
#define NEGATIVE_FIXED_WARN 0.5
/* Why a fitted e0 comes out negative, said alike by the refusal and the
 * warning (docs/finetune.md, "Fitting"): a table without a sweep of FLOPs
 * per step at a fixed GPU count (methods and platforms mixed) leaves e0
 * and kappa as one column, as energies without the idle power do. It was
 * said as the idle power's alone, which the energies had. */
#define NEGATIVE_E0_WHY                                                               \
	"the runs cannot tell it from kappa (no FLOP sweep at fixed G) or exclude idle power"

static void
range_warning(wc_finetune_prediction *out, const char *field, double v, const wc_ft_span *s,
              const char *unit)
{
	if (isfinite(s->lo) && isfinite(s->hi) && (v < s->lo || v > s->hi))
		WC_WARN(out, "%s: %s%s is outside the calibrated %g-%g%s", field, WC_NUM_TEXT(v), unit, s->lo, s->hi, unit);
}

/* 16 tokens of a 0.6 B model were answered 2176 J (136 J per token, 3 s
 * at full power of one H200) with no word: e0 alone. A step whose fixed
 * term takes more of it than in any run the law was fitted on rests on
 * e0 beyond them; a fitted law of 7 runs, at most 62 % fixed, said
 * nothing of a step 90 % fixed under the published bound. */
static void
fixed_share_warning(const wc_finetune_params *f, wc_finetune_prediction *out)
{
	const wc_ft_span *runs = &f->ranges.fixed_share;
	const double share = out->fixed_energy_j / out->energy_per_step_j;
	const double compute_j = out->energy_per_step_j - out->fixed_energy_j;
	if (!isfinite(runs->hi)) {
		if (share > FIXED_SHARE_WARN)
			WC_WARN(out, "e0: the fixed per-step energy G e0 (%.6g J) is %.1f %% of the step's, its compute "
			        "%.3g J: a step this small is outside what the law was fitted on (at most 93 %% fixed in "
			        "the synthetic design), and the answer is e0 alone", out->fixed_energy_j, 100.0 * share,
			        compute_j);
		return;
	}
	/* A negative e0 (warned below) gives a larger step a share nearer 0,
	 * above the runs' yet no smaller; the margin keeps a question on a
	 * fitted run's own configuration, its share to rounding, silent. */
	if (out->fixed_energy_j > 0 && share > runs->hi + 1e-9)
		WC_WARN(out, "e0: the fixed per-step energy G e0 (%.6g J) is %.1f %% of the step's, its compute %.3g J: "
		        "a step this small is outside what the law was fitted on (%.1f-%.1f %% fixed in its runs), "
		        "and the answer rests on e0 more than any of them did", out->fixed_energy_j, 100.0 * share,
		        compute_j, 100.0 * runs->lo, 100.0 * runs->hi);
}

/* The least a job must hold on its GPUs, bytes per parameter
 * (docs/finetune.md, "Predicting"): bf16 weights and gradients for full
 * fine-tuning (optimizer states may be 8-bit or offloaded), the frozen
 * bf16 weights for LoRA, 4-bit weights for QLoRA; adapters, optimizer
 * states and activations come on top. */
static double
least_bytes_per_param(wc_ft_method m)
{
	return m == WC_FT_FULL ? 4.0 : m == WC_FT_LORA ? 2.0 : 0.5;
}

/* Parameters the weights, gradients and optimizer state scale with, B:
 * the total of a mixture-of-experts model, whose every expert is held and
 * trained, not its active share (Qwen3-235B-A22B: 235 B, not 22 B;
 * docs/finetune.md, "Predicting"), from the catalog entry the query's shape
 * came from; a model given by its size alone is taken as dense. `*model`
 * names the entry when its total is not params_b. */
static double
held_params_b(const wc_ft_config *c, const char **model)
{
	const int moe = c->model && c->model->total_params_b > c->params_b;
	*model = moe ? c->model->name : NULL;
	return moe ? c->model->total_params_b : c->params_b;
}

/* A job that cannot hold even that on all its GPUs runs only with CPU or
 * NVMe offload, whose time and energy the law does not model: said, not
 * refused (offload does exist). */
static void
memory_warning(const wc_ft_config *c, wc_finetune_prediction *out)
{
	const wc_platform_info *hw = wc_platform_board(out->platform, NULL);
	if (!hw || !(hw->memory_gb > 0.0))
		return;
	const char *moe;
	const double held_b = held_params_b(c, &moe);
	const double need_gb = held_b * least_bytes_per_param(c->method), have_gb = c->gpus * hw->memory_gb;
	char what[96];
	if (moe)
		snprintf(what, sizeof what, "%g B parameters (%s, %g B active)", held_b, moe, c->params_b);
	else
		snprintf(what, sizeof what, "%g B parameters", held_b);
	if (need_gb > have_gb)
		WC_WARN(out, "memory: %s fine-tuning of %s holds at least %.0f GB (%g bytes per parameter), more than "
		        "the %.0f GB of %d x %s; it runs only with CPU/NVMe offload, which this law does not model "
		        "(docs/finetune.md)", wc_ft_method_name(c->method), what, need_gb, least_bytes_per_param(c->method),
		        have_gb, c->gpus, out->platform);
}

/* A precision suffix on the model's name ("-FP8", "-AWQ"; the catalog's
 * rule, docs/capacity.md "Model names") sets the weights of an inference
 * answer; the fine-tuning law has no precision factor, so it is said to be
 * ignored. Full fine-tuning of an int4 checkpoint is refused: its weights
 * are packed integers without gradients, which no Trainer updates, so no
 * such job exists to predict (docs/finetune.md, "Inputs of one job"). */
int
wc_finetune_model_check(const wc_ft_config *c, wc_error *err)
{
	wc_model_name mn;
	wc_model_name_read(c->model_name, &mn);
	if (mn.entry && mn.states_weights && mn.weights == WC_PREC_INT4 && c->method == WC_FT_FULL)
		return wc_error_set(err, WC_EINVAL, "model: '%.64s' names int4 weights, which full fine-tuning cannot "
		                    "train (packed integers have no gradients): name the bf16 model, or use qlora",
		                    c->model_name);
	return WC_OK;
}

static void
precision_warning(const wc_ft_config *c, wc_finetune_prediction *out)
{
	wc_model_name mn;
	wc_model_name_read(c->model_name, &mn);
	if (mn.entry && mn.states_weights && mn.weights != WC_PREC_BF16)
		WC_WARN(out, "model: '%.64s' names %s weights; the suffix is ignored: fine-tuning is predicted for the "
		        "bf16 model (%s)", c->model_name, mn.format ? mn.format : wc_precision_name(mn.weights), mn.entry->name);
}

/* FLOPs per step are compared per GPU: under E = G e0 + kappa F the same
 * job on another GPU count has F scaled by G, which the gpus warning names
 * already (docs/finetune.md, "Predicting"); a law calibrated on one 8-GPU
 * run warned of 815.8 TFLOP on 1 GPU, the run's own 815.8 per GPU. The
 * runs' span per GPU is bounded by their spans of F and G (exact for runs
 * of one GPU count, as the published profile's and a calibration's). */
static void
flops_warning(const wc_finetune_params *f, const wc_ft_config *c, wc_finetune_prediction *out)
{
	const wc_ft_span *fs = &f->ranges.flops_tflop, *gs = &f->ranges.gpus;
	if (!(isfinite(fs->lo) && isfinite(fs->hi)))
		return;
	int per_gpu = isfinite(gs->lo) && isfinite(gs->hi) && gs->lo > 0 && c->gpus > 0;
	double g = per_gpu ? c->gpus : 1, v = out->flops.flops_per_step_tflop / g;
	double lo = per_gpu ? fs->lo / gs->hi : fs->lo, hi = per_gpu ? fs->hi / gs->lo : fs->hi;
	if (v >= lo && v <= hi)
		return;
	char vt[32], lt[32], ht[32], ft[32];
	wc_num_against(vt, v, v < lo ? lo : hi);
	wc_num_against(lt, lo, v);
	wc_num_against(ht, hi, v);
	snprintf(ft, sizeof ft, "%.1f", out->flops.flops_per_step_tflop);
	if (per_gpu)
		WC_WARN(out, "flops_per_step_tflop: %s TFLOP per GPU (%s TFLOP on %d GPUs) is outside the calibrated "
		        "%s-%s TFLOP per GPU", vt, ft, c->gpus,
		        lt, ht);
	else
		WC_WARN(out, "flops_per_step_tflop: %s TFLOP is outside the calibrated %s-%s TFLOP", vt, lt, ht);
}

static void
calibration_warnings(const wc_finetune_params *f, const wc_finetune_query *q, wc_finetune_prediction *out)
{
	const wc_ft_config *c = &q->config;
	/* A law of several platforms answers under all of them unless one is
	 * named: said as such, not as "H100+A100 differs from H100+A100";
	 * worded for the CLI and HTTP alike, which name the platform by a
	 * flag and a field (docs/http-api.md: warnings never name flags). */
	if (strchr(out->platform, '+'))
		WC_WARN(out, "platform: the law was fitted on runs of several platforms (%s), and this answer is for none "
		        "of them in particular; energy per FLOP depends on the GPU: name one of them as the platform",
		        out->platform);
	else if (!wc_ft_platform_calibrated(f->platform, out->platform))
		WC_WARN(out, "platform: %s differs from the calibration's %s; energy per FLOP depends on the GPU",
		        out->platform, f->platform);
	if (!(f->methods & (1u << c->method))) {
		char list[32];
		wc_ft_methods_join(f->methods, "/", list, sizeof list);
		WC_WARN(out, "method: %s is outside the calibration (%s runs); energy per token differs "
		        "several-fold between methods and training stacks (an optimised multi-GPU full "
		        "fine-tuning run is several times cheaper per token than a PEFT one)",
		        wc_ft_method_name(c->method), list);
	}
	if (isfinite(f->ranges.gpus.hi) && c->gpus > f->ranges.gpus.hi)
		WC_WARN(out, "gpus: %d is outside the calibrated %g-%g; communication and the efficiency of "
		        "a multi-GPU job were not calibrated", c->gpus, f->ranges.gpus.lo, f->ranges.gpus.hi);
	else
		range_warning(out, "gpus", c->gpus, &f->ranges.gpus, "");
	range_warning(out, "micro_batch", c->micro_batch, &f->ranges.micro_batch, "");
	range_warning(out, "seq_len", c->seq_len, &f->ranges.seq_len, "");
	/* Past the model's context the attention term is for sequences it
	 * cannot train on as is; warned, not refused, as inference warns its
	 * token lengths (docs/finetune.md, "Predicting"). */
	const int context = wc_model_context(c->model, c->model_name);
	if (context > 0 && c->seq_len > context)
		WC_WARN(out, "seq_len: %d tokens exceed %s's context of %d tokens (config.json); answered as if it "
		        "trained on them (RoPE scaling)", c->seq_len, c->model->name, context);
	range_warning(out, "active_params_b", c->params_b, &f->ranges.params_b, " B");
	if (c->method != WC_FT_FULL)
		range_warning(out, "lora_rank", c->lora_rank, &f->ranges.lora_rank, "");
	flops_warning(f, c, out);
	char renamed[WC_WARNING_LEN];
	wc_model_name_note(c->model_name, -1, -1, renamed, sizeof renamed); /* docs/capacity.md, "Model names" */
	if (renamed[0])
		WC_WARN(out, "%s", renamed);
	precision_warning(c, out);
}

/* Each relation at the query's factor; a warning when the query lies on
 * the relation's sweep and the two disagree. */
static void
relation_checks(const wc_finetune_params *f, const wc_finetune_query *q, wc_finetune_prediction *out)
{
	for (int k = 0; k < WC_FT_REL_COUNT; k++) {
		const wc_ft_relation *r = &f->relations[k];
		wc_ft_relation_kind kind = (wc_ft_relation_kind)k;
		wc_finetune_relation_check *chk = &out->relations[k];
		chk->present = r->present;
		chk->energy_per_token_j = chk->diff_pct = NAN;
		chk->on_sweep = -1;
		if (!r->present)
			continue;
		chk->energy_per_token_j = wc_ft_relation_eval(kind, r, wc_ft_relation_x(kind, &q->config));
		if (!r->has_base)
			continue;
		/* a sweep ran on the law's platform: on another GPU the query is
		 * off it, whatever its other factors (docs/finetune.md) */
		chk->on_sweep = wc_ft_platform_calibrated(f->platform, out->platform)
		                && wc_ft_relation_on_sweep(kind, r, &q->config);
		if (!chk->on_sweep)
			continue;
		chk->diff_pct = 100.0 * (chk->energy_per_token_j - out->energy_per_token_j) / out->energy_per_token_j;
		if (fabs(chk->diff_pct) > RELATION_WARN_PCT)
			WC_WARN(out, "relations/%s: %.4g J/token on this configuration's sweep, %+.0f %% from the "
			        "compute law", wc_ft_relation_name(kind), chk->energy_per_token_j, chk->diff_pct);
	}
}

/* The 95 % interval: the draws' percentiles through the same bound law,
 * widened by the fine-tuning law's held-out error of energy per step
 * when the set records it (docs/intervals.md); per token and per job
 * scale with the step. None (null, with a warning) when neither. */
static int
interval(const wc_params *p, const wc_ft_binding *b, wc_finetune_prediction *out,
         wc_error *err)
{
	const wc_draws *d = &b->f->draws;
	double *e = wc_alloc_array((size_t)(d->n > 0 ? d->n : 1), sizeof *e), lo = NAN, hi = NAN;
	int kept = 0, none = 0;
	if (!e)
		return wc_error_set(err, WC_ENOMEM, "interval: out of memory");
	for (int r = 0; r < d->n; r++) {
		wc_ft_point pt;
		wc_ft_bound_point(b, wc_draws_row(d, r), &pt);
		if (isfinite(pt.energy_per_step_j))
			e[kept++] = pt.energy_per_step_j;
		none += pt.energy_per_step_j <= 0.0;
	}
	if (wc_interval_from_draws(e, (size_t)kept, out->energy_per_step_j, &lo, &hi))
		out->n_draws = kept;
	free(e);
	const wc_pe_stratum *s = wc_pe_find(&p->quantity_error[WC_PEQ_FT_STEP], out->platform, "");
	out->has_interval = wc_pe_widen(s, out->energy_per_step_j, &lo, &hi);
	/* A step draws energy: a bootstrap replicate may give kappa <= 0
	 * when kappa's interval reaches 0 (the fit warns of it and writes
	 * such draws), which gave -1978.7 J as a lower end. The 0 put in its
	 * place is no percentile, and is said to be none (docs/finetune.md,
	 * "Predicting"): 530 of 1000 draws of a negative-e0 law gave no
	 * energy at one configuration, printed as 0.0-59.8 J unremarked. */
	if (out->has_interval && lo < 0.0 && out->energy_per_step_j > 0.0) {
		WC_WARN(out, "interval_95: its lower end is %.4g J, no energy, and is given as 0: %d of %d draws of "
		        "the law give this step no energy (<= 0 J); the runs do not bound it from below", lo, none,
		        d->n);
		lo = 0.0;
	}
	if (!out->has_interval) {
		out->n_draws = 0;
		WC_WARN(out, "interval_95: none: the fine-tuning section has no bootstrap draws that vary here and the "
		     "parameter set no held-out error of fine-tuning energy (docs/intervals.md)");
		return WC_OK;
	}
	out->covers = wc_interval_covers(out->n_draws, s != NULL, NULL);
	/* As the fit says (WC_FT_BOOT_MIN_DOF): the draws of a law fitted on
	 * 3 or 4 runs make too narrow an interval. */
	if (out->n_draws > 0 && b->f->kappa.source == WC_SRC_FITTED && b->f->runs > 0 &&
	    b->f->runs - 2 < WC_FT_BOOT_MIN_DOF)
		WC_WARN(out, "interval_95: the law was fitted on %d runs (%d degree%s of freedom), whose bootstrap "
		        "intervals held the truth in 70-90 %% of synthetic fits, not 95 %%: too narrow", b->f->runs,
		        b->f->runs - 2, b->f->runs == 3 ? "" : "s");
	/* predict inference's caveat about too few draws holds for these
	 * (docs/intervals.md) */
	wc_predict_note_few_draws(out->warnings, &out->n_warnings, out->n_draws);
	if (!s)
		WC_WARN(out, "interval_95: covers the parameters' uncertainty only: the parameter set has no held-out "
		     "error of fine-tuning energy (docs/intervals.md)");
	double T = b->flops.tokens_per_step;
	out->step_lo_j = lo;
	out->step_hi_j = hi;
	out->token_lo_j = lo / T;
	out->token_hi_j = hi / T;
	out->total_lo_kwh = out->steps * lo / 3.6e6;
	out->total_hi_kwh = out->steps * hi / 3.6e6;
	/* 0 steps draw 0 kWh under every draw: a quantity the draws do not
	 * vary has no interval rather than a zero-width one (docs/intervals.md,
	 * "Two parts"; wc_interval_contain, the rule every interval takes) */
	if (!wc_interval_contain(out->energy_total_kwh, &out->total_lo_kwh, &out->total_hi_kwh) &&
	    isfinite(out->energy_total_kwh))
		WC_WARN(out, "interval_95: energy_total_kwh: none: %g steps draw %g kWh under every draw and the held-out "
		        "error alike; a quantity they do not vary has no interval (docs/intervals.md)", out->steps,
		        out->energy_total_kwh);
	return WC_OK;
}

/* A non-finite or non-positive energy is an error naming what made it,
 * never a key left out of an answer, nor a negative energy. The configuration's bounds keep every energy
 * finite for a finite law, so what remains is the explicit token count or
 * the law itself. */
static int
check_finite(const wc_finetune_params *f, const wc_finetune_query *q, const wc_finetune_prediction *out,
             wc_error *err)
{
	if (isfinite(out->energy_per_step_j) && !(out->energy_per_step_j > 0))
		/* A law whose e0 was fitted negative (or a hand-edited one)
		 * gives a small enough step no energy or less: no answer to
		 * give. At most 255 bytes with every number at its widest. */
		return wc_error_set(err, WC_ERANGE, "finetune: e0 %g J, kappa %g J/TFLOP give %.4g J per step at "
		                    "%.4g TFLOP, no energy: e0 was fitted negative, as when " NEGATIVE_E0_WHY
		                    " (docs/finetune.md)", f->e0.value, f->kappa.value, out->energy_per_step_j,
		                    out->flops.flops_per_step_tflop);
	if (isfinite(out->energy_per_step_j) && isfinite(out->energy_per_token_j) &&
	    (isnan(out->steps) || isfinite(out->energy_total_kwh)))
		return WC_OK;
	if (!isnan(q->config.tokens_per_step))
		return wc_error_set(err, WC_ERANGE, "tokens_per_step: %s tokens give a non-finite energy "
		                    "(per step %g J, per token %g J)", WC_NUM_TEXT(q->config.tokens_per_step),
		                    out->energy_per_step_j, out->energy_per_token_j);
	return wc_error_set(err, WC_ERANGE, "finetune: the law (e0 %g J, kappa %g J/TFLOP) gives a "
	                    "non-finite energy for this configuration", f->e0.value, f->kappa.value);
}

int
wc_predict_finetune(const wc_predictor *pr, const wc_finetune_query *q, wc_finetune_prediction *out,
                    wc_error *err)
{
	const wc_params *p = wc_predictor_params(pr);
	const wc_finetune_params *f = &p->finetune;
	wc_ft_binding b;
	wc_ft_point pt;
	int rc;
	memset(out, 0, sizeof *out);
	out->steps = out->energy_total_kwh = NAN;
	out->step_lo_j = out->step_hi_j = out->token_lo_j = out->token_hi_j = NAN;
	out->total_lo_kwh = out->total_hi_kwh = NAN;
	if ((rc = wc_ft_steps_check(q->steps, err)) != WC_OK)
		return rc;
	if (q->platform && (!q->platform[0] || strlen(q->platform) >= WC_NAME_MAX))
		return wc_error_set(err, WC_EINVAL, "platform: expected a name of 1-%d bytes, got %zu", WC_NAME_MAX - 1,
		                    strlen(q->platform));
	if ((rc = wc_ft_bind(f, &q->config, &b, err)) != WC_OK || (rc = wc_finetune_model_check(&q->config, err)) != WC_OK)
		return rc;
	/* A board the catalog knows answers under the catalog's spelling
	 * ("h100", "NVIDIA H100 80GB HBM3": the H100 the law was calibrated
	 * on, not another GPU; wc_platform_lookup's rule). */
	const wc_platform_info *asked = q->platform ? wc_platform_lookup(q->platform) : NULL;
	snprintf(out->platform, sizeof out->platform, "%s",
	         asked ? asked->name : q->platform ? q->platform : f->platform);
	out->flops = b.flops;
	wc_ft_bound_point(&b, NULL, &pt);
	out->energy_per_step_j = pt.energy_per_step_j;
	out->energy_per_token_j = pt.energy_per_token_j;
	out->e0_multiplier = b.e0_multiplier;
	out->fixed_energy_j = b.e0_multiplier * f->e0.value;
	out->e0_j = f->e0.value;
	out->kappa_j_per_tflop = f->kappa.value;
	out->e0_source = f->e0.source;
	out->kappa_source = f->kappa.source;
	snprintf(out->profile, sizeof out->profile, "%s", p->name);
	out->level_source = f->calibrated.present ? wc_source_name(WC_SRC_CALIBRATED)
	                  : f->e0.source == f->kappa.source ? wc_source_name(f->e0.source) : NULL;
	out->e0_scope = f->e0_scope;
	out->calibrated = f->calibrated;
	if (!isnan(q->steps)) {
		/* -0 steps is 0 steps: answered as 0, not as an energy of -0 kWh
		 * (docs/http-api.md, the fine-tuning prediction object). */
		out->steps = q->steps == 0 ? 0.0 : q->steps;
		out->energy_total_kwh = out->steps * pt.energy_per_step_j / 3.6e6;
	}
	if ((rc = check_finite(f, q, out, err)) != WC_OK)
		return rc;
	calibration_warnings(f, q, out);
	memory_warning(&q->config, out);
	fixed_share_warning(f, out);
	const double compute_j = out->energy_per_step_j - out->fixed_energy_j;
	if (out->fixed_energy_j < 0 && -out->fixed_energy_j > NEGATIVE_FIXED_WARN * compute_j)
		WC_WARN(out, "e0: G e0 (%.6g J) is negative and takes away %.1f %% of the step's compute energy "
		        "kappa F (%.6g J); the answer rests on an e0 not identified, as when " NEGATIVE_E0_WHY,
		        out->fixed_energy_j, -100.0 * out->fixed_energy_j / compute_j, compute_j);
	relation_checks(f, q, out);
	if (q->want_interval)
		return interval(p, &b, out, err);
	return WC_OK;
}

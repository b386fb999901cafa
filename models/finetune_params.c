/*
 * The fine-tuning law's section of a parameter set (models/finetune_law.h,
 * docs/finetune.md): its lifetime, the published default and the
 * structural check a loaded file goes through.
 */
#include "models/finetune_law.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
wc_finetune_params_clear(wc_finetune_params *f)
{
	if (!f)
		return;
	wc_draws_clear(&f->draws);
	memset(f, 0, sizeof *f);
}

int
wc_finetune_params_copy(wc_finetune_params *dst, const wc_finetune_params *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	wc_finetune_params_clear(dst);
	/* Plain values by assignment; the draws are re-owned below. */
	*dst = *src;
	dst->draws = (wc_draws)WC_DRAWS_INIT;
	return wc_draws_copy(&dst->draws, &src->draws, err);
}

void
wc_ft_ranges_unknown(wc_ft_ranges *r)
{
	wc_ft_span none = { .lo = NAN, .hi = NAN };
	r->micro_batch = r->seq_len = r->params_b = r->gpus = r->lora_rank = r->flops_tflop = none;
	r->fixed_share = none;
}

static wc_param
published(double v)
{
	wc_param p = { .value = v, .lo = NAN, .hi = NAN, .source = WC_SRC_PUBLISHED };
	return p;
}

static void
published_relation(wc_ft_relation *r, double a, double b, double c, double r2)
{
	memset(r, 0, sizeof *r);
	r->present = 1;
	r->coef[0] = published(a);
	r->coef[1] = published(b);
	r->coef[2] = published(c);
	r->r2 = r2;
	r->x.lo = r->x.hi = NAN;
	/* The paper gives neither the sweeps' levels nor the other factors
	 * they held fixed. */
	r->has_base = 0;
}

void
wc_finetune_default(wc_finetune_params *f)
{
	wc_finetune_params_clear(f);
	f->present = 1;
	/* Table 8 of the LLM-PowerTrace appendix: QLoRA on H200 with the
	 * Table 6 defaults (Transformers + Accelerate + PEFT, eager
	 * attention, rank 64, NF4 double quantization); one GPU per job. */
	snprintf(f->platform, sizeof f->platform, "H200");
	snprintf(f->stack, sizeof f->stack, "Transformers + Accelerate + PEFT, eager attention (published)");
	f->methods = 1u << WC_FT_QLORA;
	f->e0 = published(2176.3);
	f->kappa = published(4.5241);
	f->e0_se = f->kappa_se = NAN;
	f->r2 = 0.992;
	/* Calibrated on one GPU, where per GPU and per job are the same
	 * number; per GPU is the reading that does not make a job cheaper
	 * per token by adding GPUs (docs/finetune.md). */
	f->e0_scope = WC_FT_E0_PER_GPU;
	f->residual_rms = NAN;
	wc_ft_ranges_unknown(&f->ranges);
	f->ranges.gpus.lo = f->ranges.gpus.hi = 1;
	f->ranges.lora_rank.lo = f->ranges.lora_rank.hi = 64;
	published_relation(&f->relations[WC_FT_REL_BATCH], 0.7555, 1.2552, NAN, 0.997);
	published_relation(&f->relations[WC_FT_REL_SEQ], 0.0770, 1.51e-4, 57.20, 1.000);
	published_relation(&f->relations[WC_FT_REL_SIZE], 0.1147, 0.0216, NAN, 0.940);
}

static int
check_span(const char *name, const wc_ft_span *s, wc_error *err)
{
	if (isnan(s->lo) && isnan(s->hi))
		return WC_OK;
	if (!isfinite(s->lo) || !isfinite(s->hi) || s->lo > s->hi)
		return wc_error_set(err, WC_EINVAL, "finetune/ranges/%s: needs two finite bounds, low first",
		                    name);
	return WC_OK;
}

static int
check_relation(wc_ft_relation_kind k, const wc_ft_relation *r, wc_error *err)
{
	if (!r->present)
		return WC_OK;
	for (int j = 0; j < wc_ft_relation_terms(k); j++)
		if (!isfinite(r->coef[j].value))
			return wc_error_set(err, WC_EINVAL, "finetune/relations/%s/%c: must be finite",
			                    wc_ft_relation_name(k), 'a' + j);
	if (r->has_base) {
		wc_error e;
		if (wc_ft_config_check(&r->base, &e) != WC_OK)
			return wc_error_set(err, WC_EINVAL, "finetune/relations/%s/base: %s",
			                    wc_ft_relation_name(k), e.msg);
	}
	return WC_OK;
}

int
wc_finetune_validate(const wc_finetune_params *f, wc_error *err)
{
	int rc;
	if (!f->present)
		return WC_OK;
	if (!isfinite(f->e0.value) || !isfinite(f->kappa.value))
		return wc_error_set(err, WC_EINVAL, "finetune/compute: e0 and kappa must be finite");
	/* Energy grows with the step's compute: a fit giving kappa <= 0 is
	 * refused (docs/finetune.md, "Degenerate runs are refused"), and so is
	 * a file carrying one. e0 < 0 is only a warning at fit time (same
	 * section), so its sign is left to predict finetune's refusal of a
	 * step with no energy. */
	if (!(f->kappa.value > 0.0))
		return wc_error_set(err, WC_EINVAL, "finetune/compute/kappa_j_per_tflop/value: %g must be > 0 "
		                    "(energy grows with the step's compute; docs/finetune.md)", f->kappa.value);
	if ((unsigned)f->e0_scope > WC_FT_E0_PER_JOB)
		return wc_error_set(err, WC_EINVAL, "finetune/compute/e0_per: expected gpu or job");
	if (f->calibrated.present && !(f->calibrated.factor.value > 0 && isfinite(f->calibrated.factor.value)))
		return wc_error_set(err, WC_EINVAL, "finetune/calibrated/factor: must be a finite number > 0");
	if (f->methods == 0 || f->methods >= (1u << WC_FT_METHOD_COUNT))
		return wc_error_set(err, WC_EINVAL, "finetune/calibration/methods: needs %s",
		                    wc_ft_method_choices());
	const wc_ft_span *spans[] = { &f->ranges.micro_batch, &f->ranges.seq_len, &f->ranges.params_b,
	                              &f->ranges.gpus, &f->ranges.lora_rank, &f->ranges.flops_tflop,
	                              &f->ranges.fixed_share };
	const char *names[] = { "micro_batch", "seq_len", "params_b", "gpus", "lora_rank",
	                        "flops_per_step_tflop", "fixed_share" };
	for (int i = 0; i < 7; i++)
		if ((rc = check_span(names[i], spans[i], err)))
			return rc;
	for (int k = 0; k < WC_FT_REL_COUNT; k++)
		if ((rc = check_relation((wc_ft_relation_kind)k, &f->relations[k], err)))
			return rc;
	if (f->draws.n > 0 && (wc_draws_column(&f->draws, WC_FT_DRAW_E0) < 0 ||
	                       wc_draws_column(&f->draws, WC_FT_DRAW_KAPPA) < 0))
		return wc_error_set(err, WC_EINVAL, "finetune/draws/names: needs \"%s\" and \"%s\"",
		                    WC_FT_DRAW_E0, WC_FT_DRAW_KAPPA);
	for (long i = 0; i < (long)f->draws.n * f->draws.k; i++)
		if (!isfinite(f->draws.values[i]))
			return wc_error_set(err, WC_EINVAL, "finetune/draws/values: must be finite");
	return WC_OK;
}

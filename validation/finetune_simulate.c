/*
 * Synthetic fine-tuning runs tables (docs/finetune.md, "The synthetic
 * table"). Public per-step LoRA/QLoRA energy sweeps are not known to
 * exist, so the default table is drawn from the compute law itself:
 * E_step = (e0 + kappa F_step) exp(noise e), e standard normal from PCG32
 * stream (seed, 0) in row order. The design is QLoRA (rank 64) on one
 * H200, as the published calibration, with three sweeps whose fixed
 * factors are chosen so the relations they give come near Table 8's where
 * the analytical F allows (docs/finetune.md explains which do not):
 *   model size       B 8, S 512, GA 4, ten models from 0.6 to 14.8 B;
 *   sequence length  Qwen3-4B, B 8, GA 4, S 128 to 4096;
 *   micro-batch      gemma-3-27b with activation checkpointing, S 512,
 *                    GA 4, B 1 to 32.
 * Each configuration is run three times; Qwen3-4B at S 512 belongs to
 * two sweeps and is run once (three repeats).
 */
#include "validation/finetune_validate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Illustrative mean power of the synthetic job, W: step_s = E / this. The
 * step time takes no part in the fit. */
#define SIM_MEAN_POWER_W 600.0

typedef struct {
	const wc_params *truth;
	const wc_ft_simulate_options *opt;
	wc_pcg32 rng;
	wc_ft_table *t;
	int next_id;
	wc_error *err;
	int rc;
} ft_sim;

static void
add_runs(ft_sim *s, const char *model, int batch, int seq, int ckpt, const char *design)
{
	const wc_model_info *m = wc_model_lookup(model);
	for (int rep = 0; rep < 3 && s->rc == WC_OK; rep++) {
		wc_ft_run r;
		wc_ft_binding b;
		wc_ft_point pt;
		if (!m) {
			s->rc = wc_error_set(s->err, WC_ENOTFOUND, "simulate: model '%s' not in the catalog", model);
			return;
		}
		wc_ft_run_init(&r);
		snprintf(r.run_id, sizeof r.run_id, "sim-ft-%03d", ++s->next_id);
		snprintf(r.platform, sizeof r.platform, "H200");
		snprintf(r.model, sizeof r.model, "%s", m->name);
		wc_ft_config_from_model(&r.config, m);
		r.config.method = WC_FT_QLORA;
		r.config.lora_rank = 64;
		r.config.micro_batch = batch;
		r.config.seq_len = seq;
		r.config.grad_accum = 4;
		r.config.gpus = 1;
		r.config.checkpointing = ckpt;
		if ((s->rc = wc_ft_bind(&s->truth->finetune, &r.config, &b, s->err)) != WC_OK)
			return;
		wc_ft_bound_point(&b, NULL, &pt);
		double e = wc_pcg32_normal(&s->rng);
		/* Rounded as a measurement would be: 0.1 J, 1 ms. */
		r.energy_per_step_j = round(10.0 * pt.energy_per_step_j * exp(s->opt->noise * e)) / 10.0;
		r.step_s = round(1000.0 * r.energy_per_step_j / SIM_MEAN_POWER_W) / 1000.0;
		if ((s->rc = wc_ft_table_append(s->t, &r, s->err)) == WC_OK)
			s->rc = wc_ft_table_set_extra(s->t, s->t->n_runs - 1, "design", design, s->err);
	}
}

static void
design(ft_sim *s)
{
	static const char *const sizes[10] = {
		"Qwen3-0.6B", "Llama-3.2-1B", "Qwen3-1.7B", "Llama-3.2-3B", "Qwen3-4B",
		"Llama-2-7B", "Llama-3.1-8B", "Qwen3-8B", "Llama-2-13B", "Qwen3-14B",
	};
	static const int seqs[5] = { 128, 256, 1024, 2048, 4096 };
	static const int batches[6] = { 1, 2, 4, 8, 16, 32 };
	for (int i = 0; i < 10; i++)
		add_runs(s, sizes[i], 8, 512, 0, strcmp(sizes[i], "Qwen3-4B") == 0
		                                 ? "model_size+sequence_length" : "model_size");
	for (int i = 0; i < 5; i++)
		add_runs(s, "Qwen3-4B", 8, seqs[i], 0, "sequence_length");
	for (int i = 0; i < 6; i++)
		add_runs(s, "gemma-3-27b", batches[i], 512, 1, "batch_size");
}

void
wc_simulate_finetune_header(const wc_ft_simulate_options *opt, const wc_params *truth, char *buf,
                            size_t cap)
{
	snprintf(buf, cap,
	         "SYNTHETIC fine-tuning runs table - not measured data.\n"
	         "Made by: wattcast simulate finetune --seed %llu --noise %g\n"
	         "Truth: the compute law of parameter set '%s': E_step = (%.6g + %.6g F_step) x exp(%g*e),\n"
	         "F_step the analytical TFLOP of the step, e standard normal from PCG32 stream (seed, 0);\n"
	         "step_s = E_step / %g W (illustrative). Design (docs/finetune.md): QLoRA rank 64 on one H200;\n"
	         "model-size sweep (B 8, S 512, GA 4), sequence-length sweep (Qwen3-4B, B 8, GA 4) and\n"
	         "micro-batch sweep (gemma-3-27b, checkpointing, S 512, GA 4), three repeats each.\n"
	         "Public per-step LoRA/QLoRA energy sweeps are not known to exist: calibrate on your own runs.",
	         (unsigned long long)opt->seed, opt->noise, truth->name, truth->finetune.e0.value,
	         truth->finetune.kappa.value, opt->noise, SIM_MEAN_POWER_W);
}

int
wc_simulate_finetune(const wc_params *truth, const wc_ft_simulate_options *opt, wc_ft_table **out,
                     wc_error *err)
{
	ft_sim s = { truth, opt, { 0, 0 }, NULL, 0, err, WC_OK };
	*out = NULL;
	if (!(opt->noise >= 0) || !(opt->noise <= 1))
		return wc_error_set(err, WC_EINVAL, "noise: must be between 0 and 1");
	if (!truth->finetune.present)
		return wc_error_set(err, WC_EINVAL, "simulate: the parameter set has no fine-tuning law");
	if (!(s.t = wc_ft_table_new()))
		return wc_error_set(err, WC_ENOMEM, "simulate: out of memory");
	wc_pcg32_seed(&s.rng, opt->seed, 0);
	design(&s);
	if (s.rc != WC_OK) {
		wc_ft_table_free(s.t);
		return s.rc;
	}
	*out = s.t;
	return WC_OK;
}

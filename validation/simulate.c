/*
 * Synthetic runs tables with the published design (LLM-PowerTrace
 * appendix, Table 9 defaults and the Table 11-14 experiments): a
 * saturation sweep of six dense Qwen3 models on A100/H100/H200 at 1-256
 * running requests (162 runs, as the paper's step 1), a TP 2/4 sweep, an
 * MoE and a Llama model, precision pairs (fp8 KV everywhere; fp8/int4
 * weights on H200 and A100), a clock sweep on the locked-clock H100 host,
 * and Llama-3.1-70B as a held-out set. Mean power is what `predict
 * inference` answers for the row (the law, at the clock the board's power
 * limit settles it at when the law passes the limit: docs/capacity.md, "The
 * board's power limit") times
 * exp(noise·ε) — multiplicative noise — and the idle column is P0 times
 * exp(idle_noise·ε), with ε standard normal from PCG32 stream (seed, 0).
 */
#include "validation/validation.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The design's models, by catalog name (their sizes come from the catalog). */
static const char *const qwen_dense[6] = {
	"Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B",
};
static const char qwen_moe[] = "Qwen3-30B-A3B";
static const char llama8[] = "Llama-3.1-8B";
static const char llama70[] = "Llama-3.1-70B";
static const char *const gpus[3] = { "A100", "H100", "H200" };

typedef struct {
	const wc_params *truth;
	const wc_predictor *pr;  /* the truth's: every row answered as `predict` answers it */
	const wc_simulate_options *opt;
	wc_pcg32 rng;
	wc_runs_table *t;
	int next_id;
	wc_error *err;
	int rc;
	int n_rows, n_left_out;  /* design rows, and those without a level */
	char missing[128];       /* the levels missing, comma-separated */
} sim;

/* A design row on a GPU the parameter set has no level for: counted and
 * left out (the measured profile has no locked-clock H100), not fatal. */
static void
leave_out(sim *s, const char *gpu)
{
	char quoted[WC_NAME_MAX + 2];
	size_t len = strlen(s->missing);
	s->n_left_out++;
	snprintf(quoted, sizeof quoted, "'%s'", gpu);
	if (!strstr(s->missing, quoted))
		snprintf(s->missing + len, sizeof s->missing - len, "%s%s", len ? ", " : "", quoted);
}

static void
add_run(sim *s, const char *gpu, const char *model, int tp, double n, wc_precision w,
        wc_precision kv, double clock, const char *set, const char *exclude)
{
	if (s->rc != WC_OK)
		return;
	s->n_rows++;
	const wc_level *lvl = wc_params_level(s->truth, gpu);
	wc_config c = WC_CONFIG_INIT;
	/* As `predict --model` builds it: without the architecture and the
	 * name, the truth's structure terms (moe) and calibrated model terms
	 * were left out of the rows (docs/validation.md, "Simulating the paper design"). */
	const wc_model_info *m = wc_config_set_model(&c, model);
	if (!m) {
		s->rc = wc_error_set(s->err, WC_ENOTFOUND, "simulate: model '%s' not in the catalog", model);
		return;
	}
	wc_inference_query q = { .config = WC_CONFIG_INIT };
	wc_inference_prediction *o;
	wc_run r;
	c.platform = gpu;
	c.tp = tp;
	c.running = n;
	c.weights = w;
	c.kv = kv;
	c.sm_clock_mhz = clock;
	if (!lvl) {
		leave_out(s, gpu);
		return;
	}
	/* The answer `predict inference` gives for the row: its clock settled
	 * as every answer's is (a locked one kept, the board's limit met;
	 * uncapped: the law's own value, the limit not applied), a
	 * run that ran not questioned on memory (docs/validation.md, "The truth
	 * of every row"). On the heap: the answer is large. */
	q.config = c;
	q.skip_memory_check = 1;
	q.measured_load = 1;
	if (!(o = malloc(sizeof *o))) {
		s->rc = wc_error_set(s->err, WC_ENOMEM, "simulate: out of memory");
		return;
	}
	s->rc = s->opt->uncapped ? wc_predict_clock_check(s->truth, &q.config, s->err)
	                         : wc_predict_settle_clock(s->pr, &q, s->err);
	if (s->rc == WC_OK)
		s->rc = wc_predict_inference(s->pr, &q, o, s->err);
	double node_w = o->power.node_power_w;
	free(o);
	if (s->rc != WC_OK)
		return;
	double e_power = wc_pcg32_normal(&s->rng), e_idle = wc_pcg32_normal(&s->rng);
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "sim%03d", ++s->next_id);
	snprintf(r.platform, sizeof r.platform, "%s", gpu);
	snprintf(r.model, sizeof r.model, "%s", m->name);
	r.architecture = m->architecture;
	r.workload = WC_WORKLOAD_CLOSED;
	snprintf(r.set, sizeof r.set, "%s", set);
	snprintf(r.exclude, sizeof r.exclude, "%s", exclude);
	r.tp = tp;
	r.active_params_b = m->active_params_b;
	r.total_params_b = m->total_params_b;
	r.running = n;
	r.weights = w;
	r.kv = kv;
	r.sm_clock_mhz = clock;
	r.output_tokens = 512;
	/* Rounded as a measurement would be: 0.1 W. */
	r.mean_power_w = round(10.0 * node_w * exp(s->opt->noise * e_power)) / 10.0;
	/* Around the idle the answer above was given at: the model term's
	 * p0_w when the truth records one, else the level's P0 (docs/validation.md,
	 * "The truth of every row"), so the row does not contradict itself. */
	const double p0 = wc_params_find_p0(s->truth, c.model, lvl, NULL)->value;
	r.idle_power_w = round(10.0 * p0 * exp(s->opt->idle_noise * e_idle)) / 10.0;
	s->rc = wc_runs_append(s->t, &r, s->err);
}

static void
design_paper(sim *s)
{
	static const double loads[9] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
	const char *fit = "fitted";
	/* Step 1: saturation sweep, 3 x 6 x 9 = 162 runs at TP 1. */
	for (int g = 0; g < 3; g++)
		for (int m = 0; m < 6; m++)
			for (int k = 0; k < 9; k++)
				add_run(s, gpus[g], qwen_dense[m], 1, loads[k], WC_PREC_BF16, WC_PREC_BF16, 0, fit, "");
	/* TP sweep: Qwen3-14B/32B at TP 2 and 4, n = 32 and 128 (24 runs). */
	for (int g = 0; g < 3; g++)
		for (int m = 4; m < 6; m++)
			for (int tp = 2; tp <= 4; tp *= 2) {
				add_run(s, gpus[g], qwen_dense[m], tp, 32, WC_PREC_BF16, WC_PREC_BF16, 0, fit, "");
				add_run(s, gpus[g], qwen_dense[m], tp, 128, WC_PREC_BF16, WC_PREC_BF16, 0, fit, "");
			}
	/* MoE and a second family (18 runs). */
	for (int g = 0; g < 3; g++)
		for (int k = 3; k <= 7; k += 2) {
			add_run(s, gpus[g], qwen_moe, 1, loads[k], WC_PREC_BF16, WC_PREC_BF16, 0, fit, "");
			add_run(s, gpus[g], llama8, 1, loads[k], WC_PREC_BF16, WC_PREC_BF16, 0, fit, "");
		}
	/* fp8 KV cache pairs (10): partners are in the sweep above. */
	static const struct { int g, m; double n; } kv_pairs[10] = {
		{ 0, 3, 32 }, { 0, 4, 128 }, { 1, 3, 32 }, { 1, 4, 128 }, { 1, 5, 32 },
		{ 2, 3, 32 }, { 2, 4, 128 }, { 2, 5, 32 }, { 2, 2, 64 }, { 0, 5, 64 },
	};
	for (int i = 0; i < 10; i++)
		add_run(s, gpus[kv_pairs[i].g], qwen_dense[kv_pairs[i].m], 1, kv_pairs[i].n,
		        WC_PREC_BF16, WC_PREC_FP8, 0, fit, "");
	/* Weight precision pairs: fp8 and int4 on H200 and A100, 4 each (16). */
	static const struct { int m; double n; } w_pairs[4] = { { 2, 32 }, { 3, 32 }, { 4, 32 }, { 3, 128 } };
	const int w_gpus[2] = { 2, 0 };
	for (int g = 0; g < 2; g++)
		for (int prec = WC_PREC_FP8; prec <= WC_PREC_INT4; prec++)
			for (int i = 0; i < 4; i++)
				add_run(s, gpus[w_gpus[g]], qwen_dense[w_pairs[i].m], 1, w_pairs[i].n,
				        (wc_precision)prec, WC_PREC_BF16, 0,
				        w_gpus[g] == 0 ? "a100_fp8_int4_weights" : fit, "");
	/* Clock sweep on the locked-clock H100 host (10 runs). */
	static const double clocks[5] = { 1980, 1755, 1530, 1305, 1080 };
	for (int m = 3; m < 5; m++)
		for (int c = 0; c < 5; c++)
			add_run(s, "H100-locked", qwen_dense[m], 1, 32, WC_PREC_BF16, WC_PREC_BF16,
			        clocks[c], "clock_sweep", "");
	/* Held out (Table 14): Llama-3.1-70B, TP 4, closed loop (7 runs). */
	static const double l70[7] = { 1, 4, 16, 32, 64, 128, 256 };
	for (int k = 0; k < 7; k++)
		add_run(s, gpus[k % 3], llama70, 4, l70[k], WC_PREC_BF16, WC_PREC_BF16, 0,
		        "llama31_70b_closed_loop", "held out: Llama-3.1-70B (Table 14 analogue)");
}

void
wc_simulate_header(const wc_simulate_options *opt, const wc_params *truth, char *buf, size_t cap)
{
	snprintf(buf, cap,
	         "SYNTHETIC runs table - not measured data.\n"
	         "Made by: wattcast simulate inference --design %s --seed %llu --noise %g%s\n"
	         "Truth: parameter set '%s' (form %s); mean power = law%s x exp(%g*e), idle = P0 x exp(%g*e),\n"
	         "e standard normal from PCG32 stream (seed, 0), rounded to 0.1 W.\n"
	         "Design: published LLM-PowerTrace design (saturation sweep, TP sweep, MoE/Llama,\n"
	         "precision pairs, locked-clock sweep, Llama-3.1-70B held out).",
	         opt->design, (unsigned long long)opt->seed, opt->noise, opt->uncapped ? " --uncapped" : "",
	         truth->name, wc_form_name(truth->form), opt->uncapped ? "" : " under the board's power limit",
	         opt->noise, opt->idle_noise);
}

int
wc_simulate_inference(const wc_params *truth, const wc_simulate_options *opt, wc_runs_table **out,
                      wc_error *err)
{
	sim s = { truth, NULL, opt, { 0, 0 }, NULL, 0, err, WC_OK, 0, 0, "" };
	wc_predictor *pr = NULL;
	*out = NULL;
	if (!opt->design || strcmp(opt->design, "paper") != 0)
		return wc_error_set(err, WC_ENOTFOUND, "design: unknown design '%s' (available: paper)",
		                    opt->design ? opt->design : "");
	if (!(opt->noise >= 0) || !(opt->idle_noise >= 0))
		return wc_error_set(err, WC_EINVAL, "noise: must be >= 0");
	if (!(s.t = wc_runs_new()))
		return wc_error_set(err, WC_ENOMEM, "simulate: out of memory");
	if ((s.rc = wc_predictor_new(truth, &pr, err)) != WC_OK) {
		wc_runs_free(s.t);
		return s.rc;
	}
	s.pr = pr;
	wc_pcg32_seed(&s.rng, opt->seed, 0);
	design_paper(&s);
	wc_predictor_free(pr);
	if (s.rc == WC_OK && s.n_left_out == s.n_rows)
		s.rc = wc_error_set(err, WC_EINVAL, "simulate: the parameters '%s' have none of the design's levels "
		                    "(A100, H100, H200, H100-locked)", truth->name);
	if (s.rc != WC_OK) {
		wc_runs_free(s.t);
		return s.rc;
	}
	if (s.n_left_out && opt->warn) {
		char msg[320];
		snprintf(msg, sizeof msg, "simulate: left out %d of the design's %d rows: the parameters '%s' "
		         "have no level %s", s.n_left_out, s.n_rows, truth->name, s.missing);
		opt->warn(msg, opt->warn_payload);
	}
	*out = s.t;
	return WC_OK;
}

/*
 * The capacity model's arithmetic (docs/capacity.md): bytes and FLOPs of a
 * model, the decode step in roofline form, prefill, the closed-loop
 * latency and throughput, and memory feasibility.
 */
#include "models/capacity_model.h"

#include <math.h>

double
wc_capacity_bytes_per_value(wc_precision p)
{
	switch (p) {
	case WC_PREC_FP8: return 1.0;
	case WC_PREC_INT4: return 0.5;
	default: return 2.0;
	}
}

static int
need_count(int v, const char *field, wc_error *err)
{
	if (v <= 0)
		return wc_error_set(err, WC_EINVAL, "architecture/%s: must be a whole number >= 1, got %d",
		                    field, v);
	return WC_OK;
}

/* Parameter counts: active > 0, total >= active (dense: total = active). */
static int
param_counts(const wc_model_info *m, double *total, double *active, wc_error *err)
{
	*active = m->active_params_b;
	*total = m->total_params_b > 0 ? m->total_params_b : m->active_params_b;
	if (!(*active > 0) || !isfinite(*active))
		return wc_error_set(err, WC_EINVAL, "architecture/active_params_b: must be a finite number > 0");
	if (!isfinite(*total) || *total < *active)
		return wc_error_set(err, WC_EINVAL,
		                    "architecture/total_params_b: must be >= active_params_b (%g), got %s",
		                    *active, WC_NUM_TEXT(*total));
	return WC_OK;
}

/* Split MoE weights: with E experts of which k serve a token, the active
 * count holds the shared part and k/E of the experts, so the experts hold
 * X = (N_total - N_active) / (1 - k/E) and the shared part N_total - X. */
static int
moe_split(const wc_model_info *m, double total, double active, double bpw, wc_capacity_arch *out,
          wc_error *err)
{
	int rc;
	if ((rc = need_count(m->experts, "experts", err)) || (rc = need_count(m->experts_per_token,
	                                                                      "experts_per_token", err)))
		return rc;
	if (m->experts_per_token >= m->experts)
		return wc_error_set(err, WC_EINVAL, "architecture/experts_per_token: must be below experts (%d), got %d",
		                    m->experts, m->experts_per_token);
	double ke = (double)m->experts_per_token / m->experts;
	double experts = (total - active) / (1.0 - ke);
	if (experts > total)
		experts = total; /* active below k/E of the total: no shared part */
	out->k_over_e = ke;
	out->expert_weight_bytes = experts * 1e9 * bpw;
	out->shared_weight_bytes = (total - experts) * 1e9 * bpw;
	return WC_OK;
}

int
wc_capacity_arch_make(const wc_model_info *m, wc_precision weights, wc_precision kv,
                      wc_capacity_arch *out, wc_error *err)
{
	double total, active;
	int rc;
	*out = (wc_capacity_arch){ 0 };
	if ((rc = param_counts(m, &total, &active, err)) || (rc = need_count(m->layers, "layers", err)))
		return rc;
	if (m->kv_dim <= 0 && ((rc = need_count(m->kv_heads, "kv_heads", err)) ||
	                       (rc = need_count(m->head_dim, "head_dim", err))))
		return rc;
	/* Grouped-query attention: each KV head serves an equal group of the
	 * attention heads, so there are no more of them and they divide the
	 * attention heads (docs/capacity.md, "Memory as vLLM does it"); an
	 * override that breaks this describes no model vLLM loads. */
	if (m->kv_dim <= 0 && m->attention_heads > 0 && m->attention_heads % m->kv_heads != 0)
		return wc_error_set(err, WC_EINVAL, "architecture/kv_heads: must %s %.64s's %d attention heads (each "
		                    "KV head serves an equal group of them), got %d",
		                    m->kv_heads > m->attention_heads ? "be at most" : "divide",
		                    m->name ? m->name : "the model", m->attention_heads, m->kv_heads);
	if (m->attention_layers < 0 || m->attention_layers > m->layers)
		return wc_error_set(err, WC_EINVAL, "architecture/cache_layers: must be between 0 (every layer) and "
		                    "layers (%d)", m->layers);
	if (m->window < 0)
		return wc_error_set(err, WC_EINVAL, "architecture/sliding_window: must be 0 (none) or a whole number "
		                    "of tokens >= 1");
	if (m->window > 0 && (m->attention_layers == 0 || m->attention_layers == m->layers))
		return wc_error_set(err, WC_EINVAL, "architecture/sliding_window: no layer attends within it; give "
		                    "cache_layers, the layers with full attention, below layers (%d)", m->layers);
	/* The converse: layers past cache_layers cache either a window's
	 * tokens or a recurrent state (docs/capacity.md, "Bytes and FLOPs");
	 * with neither they would hold nothing, and far more requests would
	 * seem to fit. */
	if (m->window == 0 && m->attention_layers > 0 && m->attention_layers < m->layers && !(m->state_bytes > 0))
		return wc_error_set(err, WC_EINVAL, "architecture/sliding_window: required with cache_layers (%d) "
		                    "below layers (%d): the other %d layers would cache nothing; give the tokens "
		                    "they attend to", m->attention_layers, m->layers, m->layers - m->attention_layers);
	if (!(m->state_bytes >= 0) || !isfinite(m->state_bytes))
		return wc_error_set(err, WC_EINVAL, "architecture/state_bytes: must be a finite number >= 0");
	double bpw = wc_capacity_bytes_per_value(weights);
	out->weight_bytes = total * 1e9 * bpw;
	out->shared_weight_bytes = out->weight_bytes;
	if (m->experts > 0 || m->architecture == WC_ARCH_MOE) {
		if ((rc = moe_split(m, total, active, bpw, out, err)))
			return rc;
	}
	int att = m->attention_layers > 0 ? m->attention_layers : m->layers;
	double per_layer = m->kv_dim > 0 ? m->kv_dim : 2.0 * m->kv_heads * m->head_dim;
	out->kv_bytes_per_token = att * per_layer * wc_capacity_bytes_per_value(kv);
	if (m->window > 0) {
		/* the other layers (some, as checked above) attend within the
		 * window and cache only it */
		out->window = m->window;
		out->window_layers = m->layers - att;
		out->kv_window_bytes_per_token = out->window_layers * per_layer * wc_capacity_bytes_per_value(kv);
	}
	out->kv_heads = m->kv_dim > 0 ? 0 : m->kv_heads;
	out->state_bytes = m->state_bytes;
	out->active_params = active * 1e9;
	out->layers = m->layers;
	out->attention_width = wc_model_attention_width(m);
	return WC_OK;
}

void
wc_capacity_arch_place(wc_capacity_arch *a, int tp, int expert_parallel)
{
	if (tp > 1) {
		/* vLLM gives each GPU kv_heads / tp heads, or, with fewer heads
		 * than GPUs, one head copied on tp / kv_heads of them (any other
		 * tp cannot start: wc_predict_memory_check refuses it); the
		 * ceiling is that on both. A latent (kv_heads 0) is not split. */
		double copies = a->kv_heads > 0 ? (double)tp * ceil((double)a->kv_heads / tp) / a->kv_heads : (double)tp;
		a->kv_bytes_per_token *= copies;
		a->kv_window_bytes_per_token *= copies;
	}
	/* Expert parallel moves no weight bytes: vLLM with data_parallel 1
	 * (the only one an inference configuration says) keeps the shared
	 * layers tensor parallel, 1/G per GPU, and spreads the experts, so
	 * memory holds one copy of every weight as tensor parallel does
	 * (docs/capacity.md, "Memory as vLLM does it"); only the step time
	 * charges EP's shared reads (wc_capacity_decode_terms). */
	a->expert_parallel = expert_parallel && a->expert_weight_bytes > 0.0;
}

double
wc_capacity_weight_read(const wc_capacity_arch *a, double tokens)
{
	if (a->expert_weight_bytes <= 0.0)
		return a->shared_weight_bytes;
	double touched = tokens > 0 ? 1.0 - pow(1.0 - a->k_over_e, tokens) : 0.0;
	return a->shared_weight_bytes + touched * a->expert_weight_bytes;
}

/* The compute rate of the group's tensor cores: the SM clock paces them,
 * so compute-bound work runs at f / f_max of the datasheet rate. */
static double
compute_rate(const wc_capacity_point *pt, const wc_capacity_hw *hw)
{
	return pt->etac * hw->flops_s * (hw->clock_ratio > 0.0 ? hw->clock_ratio : 1.0);
}

double
wc_capacity_decode_terms(const wc_capacity_point *pt, const wc_capacity_arch *a,
                         const wc_capacity_hw *hw, int tp, double n, double context,
                         double *t_mem, double *t_cmp, double *t_tp)
{
	const double G = tp;
	/* Every step reads the touched weights, each running request's KV
	 * cache over its mean context, and reads and writes its recurrent
	 * state; the group shares the bytes and the FLOPs. A step decodes one
	 * request at least: below one running on average (n a time average)
	 * the step that runs is a one-request step, its weights, cache,
	 * overhead and FLOPs all at m = 1, the duty cycle being on the time
	 * (docs/capacity.md, "Step time"). */
	const double m = fmax(n, 1.0);
	double bytes = wc_capacity_weight_read(a, m) + m * (wc_capacity_kv_bytes(a, context) + 2.0 * a->state_bytes);
	/* Expert parallel: each of the G GPUs is charged a read of the whole
	 * shared part, though memory holds it once (wc_capacity_arch_place):
	 * the validated time proxy; reading 1/G was worse held out
	 * (docs/capacity.md, "Step time"). */
	if (a->expert_parallel && a->expert_weight_bytes > 0.0)
		bytes += (G - 1.0) * a->shared_weight_bytes;
	*t_mem = bytes / (G * pt->eta * hw->bandwidth_b_s);
	*t_cmp = 2.0 * a->active_params * m / (G * compute_rate(pt, hw));
	*t_tp = tp > 1 ? a->layers * (a->expert_parallel ? pt->tau_ep : pt->tau) * log2(G) : 0.0;
	return pt->t0 + pt->t1 * m + fmax(*t_mem, *t_cmp) + *t_tp;
}

/* Keys the L queries of a causal prompt attend to in all, each query i
 * (1..L) the i keys up to it, or the last W of them in a sliding window:
 * L (L + 1) / 2 when L <= W, else W (W + 1) / 2 + (L - W) W (docs/capacity.md,
 * "Step time"). Continuous in L, which is a mean. */
double
wc_capacity_causal_pairs(double L, double W)
{
	if (!(W > 0.0) || L <= W)
		return 0.5 * L * (L + 1.0);
	return 0.5 * W * (W + 1.0) + (L - W) * W;
}

double
wc_capacity_prefill_time(const wc_capacity_point *pt, const wc_capacity_arch *a,
                         const wc_capacity_hw *hw, int tp, double in_tokens)
{
	/* Prefill is compute-bound: the weights' 2 N FLOPs per prompt token,
	 * and per layer and attending pair of tokens QK^T's and AV's 2 FLOPs
	 * per unit of the attention width each. */
	double pairs = (a->layers - a->window_layers) * wc_capacity_causal_pairs(in_tokens, 0.0) +
	               a->window_layers * wc_capacity_causal_pairs(in_tokens, a->window);
	double flops = 2.0 * a->active_params * in_tokens + 4.0 * (double)a->attention_width * pairs;
	return flops / ((double)tp * compute_rate(pt, hw));
}

void
wc_capacity_times_eval(const wc_capacity_point *pt, const wc_capacity_arch *a,
                       const wc_capacity_hw *hw, int tp, double n, double in_tokens,
                       double out_tokens, wc_capacity_times *out)
{
	const double context = in_tokens + 0.5 * out_tokens;
	out->t_dec = wc_capacity_decode_terms(pt, a, hw, tp, n, context, &out->t_mem, &out->t_cmp, &out->t_tp);
	out->t_pre = wc_capacity_prefill_time(pt, a, hw, tp, in_tokens);
	/* A lifetime holds the request's own prefill and those of the others
	 * that turn over during it, n - 1 in a closed loop of n and never fewer
	 * than none: below one running on average a request still waits for
	 * its whole own prefill (docs/capacity.md, "Closed loop, open loop,
	 * energy"). */
	out->latency_s = out_tokens * out->t_dec + fmax(n, 1.0) * out->t_pre;
	/* Its first token ends the first of its L_out steps, and the others'
	 * prefills fall among those steps evenly, 1 / L_out of them before it:
	 * all of them at one output token, where the request is done at its
	 * first token, so TTFT <= latency with equality at L_out = 1
	 * (docs/capacity.md, "Closed loop, open loop, energy"). */
	const double stalls = (fmax(n, 1.0) - 1.0) * out->t_pre;
	out->ttft_s = out_tokens <= 1.0 ? out->latency_s
	                                : fmin(out->latency_s, out->t_pre + out->t_dec + stalls / out_tokens);
	out->throughput_tok_s = wc_capacity_little_throughput(n, out_tokens, out->latency_s);
}

static int
little_ok(double x)
{
	return isfinite(x) && x > 0.0;
}

double
wc_capacity_little_throughput(double running, double out_tokens, double latency_s)
{
	return little_ok(running) && little_ok(out_tokens) && little_ok(latency_s) ? running * out_tokens / latency_s
	                                                                             : NAN;
}

double
wc_capacity_little_latency(double running, double out_tokens, double throughput_tok_s)
{
	/* n L_out / T: the throughput form with T and W exchanged */
	return wc_capacity_little_throughput(running, out_tokens, throughput_tok_s);
}

double
wc_capacity_little_running(double rate, double latency_s)
{
	return little_ok(rate) && little_ok(latency_s) ? rate * latency_s : NAN;
}

double
wc_capacity_little_rate(double running, double latency_s)
{
	return little_ok(running) && little_ok(latency_s) ? running / latency_s : NAN;
}

int
wc_capacity_rate_at(double rate, double capacity_rate)
{
	return fabs(rate - capacity_rate) <= 1e-9 * capacity_rate;
}

double
wc_capacity_clock_ratio(const char *platform, double sm_clock_mhz)
{
	const wc_platform_info *info = platform ? wc_platform_board(platform, NULL) : NULL;
	if (!(sm_clock_mhz > 0.0) || !info || !(info->max_sm_clock_mhz > 0.0))
		return 0.0;
	return sm_clock_mhz / info->max_sm_clock_mhz;
}

wc_capacity_hw
wc_capacity_hw_datasheet(const char *board, double bandwidth_tb_s, double bf16_tflops, double memory_gb)
{
	return (wc_capacity_hw){ bandwidth_tb_s * 1e12, bf16_tflops * 1e12,
		                 wc_platform_memory_bytes(board, memory_gb), 0.0 };
}

double
wc_capacity_kv_bytes(const wc_capacity_arch *a, double context)
{
	/* min(mean context, window) stands for the mean of min(context,
	 * window) over a request's life (docs/capacity.md, "Bytes and FLOPs") */
	double local = a->window > 0 ? fmin(context, a->window) : 0.0;
	return context * a->kv_bytes_per_token + local * a->kv_window_bytes_per_token;
}

double
wc_capacity_memory_need(const wc_capacity_arch *a, double n, double context)
{
	return a->weight_bytes + n * (wc_capacity_kv_bytes(a, context) + a->state_bytes);
}

double
wc_capacity_memory_available(const wc_capacity_hw *hw, int tp, double reserve)
{
	return tp * hw->memory_bytes * (1.0 - reserve);
}

double
wc_capacity_memory_for_model(const wc_capacity_hw *hw, int tp, double reserve)
{
	return wc_capacity_memory_available(hw, tp, reserve) - tp * WC_CAPACITY_WORKSPACE_GB * 1e9;
}

/* The requests `per_request` tokens each (of KV cache, as counted in
 * blocks by the callers) the memory left after the weights holds. */
static double
requests_fit(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double reserve, double per_request)
{
	double free_bytes = wc_capacity_memory_for_model(hw, tp, reserve) - a->weight_bytes;
	double bytes = wc_capacity_kv_bytes(a, per_request) + a->state_bytes;
	if (free_bytes <= 0.0)
		return 0.0;
	if (bytes <= 0.0)
		return INFINITY;
	return floor(free_bytes / bytes);
}

double
wc_capacity_max_concurrency(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp,
                            double reserve, double context)
{
	return requests_fit(a, hw, tp, reserve, wc_capacity_kv_block_tokens(context));
}

double
wc_capacity_kv_block_tokens(double tokens)
{
	return tokens > 0.0 ? WC_CAPACITY_KV_BLOCK * ceil(tokens / WC_CAPACITY_KV_BLOCK) : 0.0;
}

/* The integral of ceil(t / B) over t in [0, x], x >= 0, B the block:
 * B q (q + 1) / 2 + r (q + 1) for x = q B + r, 0 <= r < B. */
static double
blocks_integral(double x)
{
	const double b = WC_CAPACITY_KV_BLOCK, q = floor(x / b), r = x - q * b;
	return b * q * (q + 1.0) / 2.0 + r * (q + 1.0);
}

double
wc_capacity_kv_tokens_held(double in_tokens, double out_tokens)
{
	const double b = WC_CAPACITY_KV_BLOCK;
	if (!(in_tokens > 0.0))
		in_tokens = 0.0;
	if (!(out_tokens > 0.0))
		return wc_capacity_kv_block_tokens(in_tokens);
	/* the context runs from the prompt to prompt + output, each moment
	 * rounded up to whole blocks: the mean of B ceil(t / B) over it,
	 * taken from the prompt's own block so that long prompts lose no
	 * digits (q_in whole blocks below it, r_in into the next) */
	const double q_in = floor(in_tokens / b), r_in = in_tokens - q_in * b;
	return b * (q_in + (blocks_integral(r_in + out_tokens) - blocks_integral(r_in)) / out_tokens);
}

double
wc_capacity_running_fit(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double reserve,
                        double in_tokens, double out_tokens)
{
	return requests_fit(a, hw, tp, reserve, wc_capacity_kv_tokens_held(in_tokens, out_tokens));
}

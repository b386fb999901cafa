/*
 * Each term of the capacity model against a hand computation
 * (docs/capacity.md): weight and KV bytes by precision, MoE touched
 * experts and the shared/expert split, the decode step's memory, compute
 * and tensor-parallel terms, prefill FLOPs, closed-loop latency and
 * throughput, and the memory check (refusals name the field).
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "tests/support/support.h"

#include <math.h>

/* An H100's memory as the driver reports it (models/platform_catalog.c). */
#define H100_BYTES (81559.0 * 1048576.0)

static const wc_capacity_hw h100 = { 3.35e12, 989e12, 80e9, 0.0 };

static void
bytes(void)
{
	wc_capacity_arch a;
	wc_error err;
	const wc_model_info *m = wc_model_lookup("Qwen3-8B");
	CHECK_INT(wc_capacity_arch_make(m, WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
	CHECK_NEAR(a.weight_bytes, 8.19e9 * 2, 1);
	CHECK_NEAR(a.kv_bytes_per_token, 2.0 * 36 * 8 * 128 * 2, 0);   /* 147456 B */
	CHECK_NEAR(wc_capacity_weight_read(&a, 64), a.weight_bytes, 0); /* dense: all, every step */
	CHECK_INT(wc_capacity_arch_make(m, WC_PREC_FP8, WC_PREC_FP8, &a, &err), WC_OK);
	CHECK_NEAR(a.weight_bytes, 8.19e9, 1);
	CHECK_NEAR(a.kv_bytes_per_token, 2.0 * 36 * 8 * 128, 0);
	CHECK_INT(wc_capacity_arch_make(m, WC_PREC_INT4, WC_PREC_BF16, &a, &err), WC_OK);
	CHECK_NEAR(a.weight_bytes, 8.19e9 * 0.5, 1);
	/* latent attention and hybrid layers */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("DeepSeek-V3.1"), WC_PREC_FP8, WC_PREC_BF16, &a, &err), WC_OK);
	CHECK_NEAR(a.kv_bytes_per_token, 61.0 * 576 * 2, 0);
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("NVIDIA-Nemotron-Nano-12B-v2"), WC_PREC_BF16, WC_PREC_BF16,
	                                &a, &err), WC_OK);
	CHECK_NEAR(a.kv_bytes_per_token, 6.0 * 2 * 8 * 128 * 2, 0);
	CHECK(a.state_bytes > 1e8);
	/* missing facts are named */
	wc_model_info bad = *m;
	bad.layers = 0;
	CHECK_INT(wc_capacity_arch_make(&bad, WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/layers");
}

/* A group keeps at least one KV head per GPU (vLLM), so a group larger
 * than the model's KV heads keeps copies, and a latent cache is whole on
 * every GPU; expert parallel keeps the shared weights on every GPU. Both
 * the memory check and the step's reads count them (docs/capacity.md,
 * "Memory as vLLM does it"). */
static void
placement(void)
{
	wc_capacity_arch a;
	wc_error err;
	const wc_model_info *q = wc_model_lookup("Qwen3-235B-A22B"); /* 4 KV heads, 94 layers */
	const double per = 94.0 * 2 * 4 * 128 * 2;
	int tps[] = { 1, 2, 4, 8 };
	double copies[] = { 1, 1, 1, 2 };
	for (int i = 0; i < 4; i++) {
		CHECK_INT(wc_capacity_arch_make(q, WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
		wc_capacity_arch_place(&a, tps[i], 0);
		CHECK_NEAR(a.kv_bytes_per_token, per * copies[i], 0);
	}
	/* 3 GPUs over 8 heads: ceil(8 / 3) = 3 each, 9 in all */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("Qwen3-8B"), WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
	wc_capacity_arch_place(&a, 3, 0);
	CHECK_NEAR(a.kv_bytes_per_token, 36.0 * 2 * 9 * 128 * 2, 0);
	/* the latent is not split: every GPU of 8 holds it whole */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("DeepSeek-V3.1"), WC_PREC_FP8, WC_PREC_BF16, &a, &err), WC_OK);
	double w = a.weight_bytes, shared = a.shared_weight_bytes;
	wc_capacity_arch_place(&a, 8, 0);
	CHECK_NEAR(a.kv_bytes_per_token, 8.0 * 61 * 576 * 2, 0);
	CHECK_NEAR(a.weight_bytes, w, 0);
	/* expert parallel with vLLM's data_parallel 1: the shared layers
	 * stay tensor parallel, so memory holds every weight once (the step
	 * still charges each GPU the whole shared part, expert_parallel()) */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("DeepSeek-V3.1"), WC_PREC_FP8, WC_PREC_BF16, &a, &err), WC_OK);
	wc_capacity_arch_place(&a, 8, 1);
	CHECK(a.expert_parallel);
	CHECK(shared > 1e9);
	CHECK_NEAR(a.weight_bytes, w, 0);
	CHECK_NEAR(a.kv_bytes_per_token, 8.0 * 61 * 576 * 2, 0);
	/* a dense model has no experts to spread */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("Qwen3-8B"), WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
	w = a.weight_bytes;
	wc_capacity_arch_place(&a, 2, 1);
	CHECK(!a.expert_parallel);
	CHECK_NEAR(a.weight_bytes, w, 0);
}

static void
moe(void)
{
	wc_capacity_arch a;
	wc_error err;
	const wc_model_info *m = wc_model_lookup("Qwen3-30B-A3B"); /* 30.5 B, 3.3 active, 8 of 128 */
	CHECK_INT(wc_capacity_arch_make(m, WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
	double X = (30.5 - 3.3) / (1 - 8.0 / 128); /* expert parameters */
	CHECK_NEAR(a.expert_weight_bytes, X * 2e9, 1e3);
	CHECK_NEAR(a.shared_weight_bytes, (30.5 - X) * 2e9, 1e3);
	/* one token touches k/E of the experts: the active count exactly */
	CHECK_NEAR(wc_capacity_weight_read(&a, 1), 3.3 * 2e9, 1e3);
	/* n tokens: 1 - (1 - k/E)^n of them */
	CHECK_NEAR(wc_capacity_weight_read(&a, 16), a.shared_weight_bytes + (1 - pow(1 - 1.0 / 16, 16)) * X * 2e9, 1e3);
	CHECK(wc_capacity_weight_read(&a, 4096) < a.weight_bytes * (1 + 1e-12));
	CHECK(wc_capacity_weight_read(&a, 4096) > 0.999 * a.weight_bytes);
}

/* The step-time checks' parameters: eta, t0, t1, etac, tau. */
static const wc_capacity_point pt = { 0.8, 2e-3, 1e-5, 0.5, 3e-5, 3e-5 };

/* A catalog model's bytes and FLOPs in bf16. */
static wc_capacity_arch
bf16_arch(const char *model)
{
	wc_capacity_arch a;
	wc_error err;
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup(model), WC_PREC_BF16, WC_PREC_BF16, &a, &err), WC_OK);
	return a;
}

static void
step_terms(void)
{
	wc_capacity_arch a = bf16_arch("Qwen3-14B");
	wc_capacity_times t, t2;
	double n = 32, in = 1000, out = 512, c = in + out / 2;
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, out, &t);
	double mem = (14.8e9 * 2 + n * c * a.kv_bytes_per_token) / (0.8 * 3.35e12);
	double cmp = 2 * 14.8e9 * n / (0.5 * 989e12);
	CHECK_NEAR(t.t_mem, mem, 1e-12);
	CHECK_NEAR(t.t_cmp, cmp, 1e-12);
	CHECK_NEAR(t.t_tp, 0, 0);
	CHECK_NEAR(t.t_dec, 2e-3 + 1e-5 * n + fmax(mem, cmp), 1e-12);
	/* 40 x 128 = 5120 wide, each of the L_in queries attending the keys up
	 * to it: L_in (L_in + 1) / 2 pairs per layer, 4 FLOPs per pair and unit */
	double pre = (2 * 14.8e9 * in + 4.0 * 40 * 5120 * in * (in + 1) / 2) / (0.5 * 989e12);
	CHECK_NEAR(t.t_pre, pre, 1e-12);
	CHECK_NEAR(t.latency_s, out * t.t_dec + n * pre, 1e-9);
	/* the first token waits for the share 1 / L_out of the n - 1 others'
	 * prefills that fall among its steps (it was pre + t_dec, as if none did) */
	CHECK_NEAR(t.ttft_s, pre + t.t_dec + (n - 1) * pre / out, 1e-12);
	CHECK_NEAR(t.throughput_tok_s, n * out / t.latency_s, 1e-6);
	/* one output token: done at its first token, so TTFT is the latency */
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, 1, &t2);
	CHECK(t2.ttft_s == t2.latency_s);
	/* tensor parallel: bytes and FLOPs split over G, plus layers x tau x log2 G */
	wc_capacity_times_eval(&pt, &a, &h100, 4, n, in, out, &t2);
	CHECK_NEAR(t2.t_mem, mem / 4, 1e-12);
	CHECK_NEAR(t2.t_cmp, cmp / 4, 1e-12);
	CHECK_NEAR(t2.t_tp, 40 * 3e-5 * 2, 1e-15);
	CHECK_NEAR(t2.t_pre, pre / 4, 1e-12);
	/* compute-bound when the batch is large: the max switches */
	wc_capacity_times_eval(&pt, &a, &h100, 1, 4096, 10, 10, &t);
	CHECK(t.t_cmp > t.t_mem);
	CHECK_NEAR(t.t_dec, 2e-3 + 1e-5 * 4096 + t.t_cmp, 1e-12);
	/* expert parallel changes nothing for a dense model */
	a.expert_parallel = 1;
	wc_capacity_times_eval(&pt, &a, &h100, 4, n, in, out, &t);
	CHECK_NEAR(t.t_mem, mem / 4, 1e-12);
}

/* Below one running on average a step still decodes one request: an MoE
 * step reads one token's experts at least, and one request's cache, so
 * its step is the one-request step's (below_one_running). */
static void
moe_step_below_one(void)
{
	wc_capacity_arch a = bf16_arch("Qwen3-30B-A3B");
	wc_capacity_times t1, tf;
	double in = 512, out = 256, c = in + out / 2, n = 0.001;
	wc_capacity_times_eval(&pt, &a, &h100, 1, 1.0, in, out, &t1);
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, out, &tf);
	CHECK_NEAR(tf.t_mem, (3.3e9 * 2 + c * a.kv_bytes_per_token) / (0.8 * 3.35e12), 1e-12);
	CHECK_NEAR(tf.t_mem, t1.t_mem, 0);
	CHECK_NEAR(tf.t_dec, t1.t_dec, 0);
}

/* Expert parallel: every GPU of the group reads the whole shared part,
 * the touched experts and the KV cache are split over the group. */
static void
expert_parallel(void)
{
	wc_capacity_arch a = bf16_arch("Qwen3-235B-A22B");
	wc_capacity_times tp_t, ep_t;
	CHECK_INT(a.expert_parallel, 0);
	double n = 16, in = 500, out = 500, G = 8;
	wc_capacity_times_eval(&pt, &a, &h100, 8, n, in, out, &tp_t);
	a.expert_parallel = 1;
	wc_capacity_times_eval(&pt, &a, &h100, 8, n, in, out, &ep_t);
	CHECK(a.shared_weight_bytes > 0);
	CHECK_NEAR(ep_t.t_mem - tp_t.t_mem, (G - 1) * a.shared_weight_bytes / (G * 0.8 * 3.35e12), 1e-12);
	CHECK_NEAR(ep_t.t_cmp, tp_t.t_cmp, 0);
	CHECK_NEAR(ep_t.t_tp, tp_t.t_tp, 0);
	/* one GPU: nothing is replicated */
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, out, &ep_t);
	a.expert_parallel = 0;
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, out, &tp_t);
	CHECK_NEAR(ep_t.t_mem, tp_t.t_mem, 0);
}

/* The prefill's attention runs at the width of its products, heads x
 * head_dim, not the hidden size: Qwen3-30B-A3B's 32 x 128 = 4096 against
 * d_model 2048, DeepSeek-V3.1's latent attention at 128 heads x (192 +
 * 128) / 2 = 20480 against 7168; d_model only where no heads are known
 * (docs/capacity.md, "Step time"). */
static void
attention_width(void)
{
	const double in = 32000, F = 0.5 * 989e12;
	wc_capacity_arch a = bf16_arch("Qwen3-30B-A3B");
	CHECK_INT(a.attention_width, 4096);
	/* 2 x 3.3e9 x 32000 + 4 x 4096 x 48 x 32000 x 32001 / 2 FLOPs:
	 * 2.112e14 + 4.0266e14 over 494.5e12 = 1.241387 s */
	double t = wc_capacity_prefill_time(&pt, &a, &h100, 1, in);
	CHECK_NEAR(t, (2.112e14 + 4.0 * 4096 * 48 * 32000.0 * 32001 / 2) / F, 1e-12);
	CHECK_NEAR(t, 1.241387, 1e-6);
	a = bf16_arch("DeepSeek-V3.1");
	CHECK_INT(a.attention_width, 20480);
	/* over two H100s: 2 x 37e9 x 32000 + 4 x 20480 x 61 x 512016000 */
	CHECK_NEAR(wc_capacity_prefill_time(&pt, &a, &h100, 2, in),
	           (2 * 37e9 * in + 4.0 * 20480 * 61 * 512016000.0) / (2 * F), 1e-12);
	/* facts: the heads given set the width, a latent's per head (64 x
	 * 160, Kimi-K2's, not 64 x 128); a model without heads falls back to
	 * d_model */
	wc_arch_facts f;
	wc_arch_facts_init(&f);
	f.ints[WC_ARCH_FACT_ATTENTION_HEADS] = 64;
	wc_model_info m;
	wc_model_info_with_facts(wc_model_lookup("DeepSeek-V3.1"), NULL, 0, &f, &m);
	CHECK_INT(wc_model_attention_width(&m), 64 * 160);
	CHECK_INT(wc_model_attention_width(&m), wc_model_lookup("Kimi-K2")->attention_width);
	wc_arch_facts_init(&f);
	f.ints[WC_ARCH_FACT_LAYERS] = 40;
	f.ints[WC_ARCH_FACT_KV_HEADS] = 8;
	f.ints[WC_ARCH_FACT_HEAD_DIM] = 128;
	f.ints[WC_ARCH_FACT_D_MODEL] = 5120;
	wc_model_info_with_facts(NULL, "custom", 13, &f, &m);
	CHECK_INT(wc_model_attention_width(&m), 5120);
	f.ints[WC_ARCH_FACT_ATTENTION_HEADS] = 64;
	wc_model_info_with_facts(NULL, "custom", 13, &f, &m);
	CHECK_INT(wc_model_attention_width(&m), 8192);
}

/* Below one running on average the step that runs is a one-request step:
 * its weights, its one request's KV cache, t1 and its FLOPs at 1, the duty
 * cycle on the time (docs/capacity.md, "Step time"). A lone request of
 * 100000 + 2048 tokens (Llama-3.1-8B) at n = 0.002 read only the weights,
 * and its latency was a third below a closed loop of one's. */
static void
below_one_running(void)
{
	wc_capacity_arch a = bf16_arch("Llama-3.1-8B");
	const double in = 100000, out = 2048, c = in + out / 2;
	wc_capacity_times lone, one;
	wc_capacity_times_eval(&pt, &a, &h100, 1, 0.002, in, out, &lone);
	wc_capacity_times_eval(&pt, &a, &h100, 1, 1.0, in, out, &one);
	const double mem = (8.03e9 * 2 + c * a.kv_bytes_per_token) / (0.8 * 3.35e12);
	CHECK_NEAR(lone.t_mem, mem, 1e-12);
	CHECK_NEAR(lone.t_cmp, 2 * 8.03e9 / (0.5 * 989e12), 1e-15);
	CHECK_NEAR(lone.t_dec, 2e-3 + 1e-5 + fmax(mem, lone.t_cmp), 1e-12);
	CHECK_NEAR(lone.t_dec, one.t_dec, 0);
	CHECK_NEAR(lone.latency_s, one.latency_s, 0);
	CHECK_NEAR(lone.latency_s, out * one.t_dec + one.t_pre, 1e-9);
}

/* Sliding-window layers cache and read at most their window of a
 * request's context, and their prefill attends within it (gemma-3-27b:
 * 10 global layers of 62, a 1024-token window; docs/capacity.md, "Bytes
 * and FLOPs"). A model without a window is unchanged. */
static void
sliding_window(void)
{
	wc_capacity_arch a = bf16_arch("gemma-3-27b");
	const double per = 2.0 * 16 * 128 * 2; /* bytes per token and layer */
	CHECK_INT(a.window, 1024);
	CHECK_INT(a.window_layers, 52);
	CHECK_NEAR(a.kv_bytes_per_token, 10 * per, 0);
	CHECK_NEAR(a.kv_window_bytes_per_token, 52 * per, 0);
	/* below the window every layer holds the whole context */
	CHECK_NEAR(wc_capacity_kv_bytes(&a, 800), 800 * 62 * per, 1e-6);
	/* beyond it the 52 local layers hold 1024 tokens */
	CHECK_NEAR(wc_capacity_kv_bytes(&a, 32768), 32768 * 10 * per + 1024 * 52 * per, 1e-6);
	/* the decode step reads that cache */
	wc_capacity_times t;
	double n = 8, in = 32000, out = 1536, c = in + out / 2;
	wc_capacity_times_eval(&pt, &a, &h100, 1, n, in, out, &t);
	CHECK_NEAR(t.t_mem, (27e9 * 2 + n * (c * 10 * per + 1024 * 52 * per)) / (0.8 * 3.35e12), 1e-12);
	/* prefill: 10 layers attend over the prompt, 52 over the window, where
	 * query i attends min(i, 1024) keys: 1024 x 1025 / 2 for the first
	 * 1024, then 1024 each; 32 x 128 = 4096 wide (not d_model 5376) */
	double pairs = 10 * in * (in + 1) / 2 + 52 * (1024.0 * 1025 / 2 + (in - 1024) * 1024);
	CHECK_NEAR(t.t_pre, (2 * 27e9 * in + 4.0 * 4096 * pairs) / (0.5 * 989e12), 1e-12);
	/* the memory check counts the window: on two H100s, requests of 32 k
	 * tokens hold 3.1 GB each, where 62 full layers would hold 16.6 GB */
	wc_capacity_hw hw = h100;
	hw.memory_bytes = H100_BYTES;
	wc_capacity_arch_place(&a, 2, 0);
	double free_b = wc_capacity_memory_for_model(&hw, 2, 0.1) - a.weight_bytes;
	double fits = wc_capacity_max_concurrency(&a, &hw, 2, 0.1, 32768);
	CHECK_NEAR(fits, floor(free_b / (32768 * 10 * per + 1024 * 52 * per)), 0);
	CHECK(fits > 5 * floor(free_b / (32768 * 62 * per)));
	/* the group's KV copies apply to the window's layers too */
	CHECK_NEAR(a.kv_window_bytes_per_token, 52 * per, 0); /* 16 heads over 2: no copies */
	wc_capacity_arch b = bf16_arch("gemma-3-27b");
	wc_capacity_arch_place(&b, 32, 0);
	CHECK_NEAR(b.kv_window_bytes_per_token, 2 * 52 * per, 0);
	/* no window: the cache grows with the context on every layer */
	wc_capacity_arch q = bf16_arch("Qwen3-14B");
	CHECK_INT(q.window, 0);
	CHECK_NEAR(wc_capacity_kv_bytes(&q, 32768), 32768 * q.kv_bytes_per_token, 1e-6);
	/* a negative window is refused, naming the field */
	wc_model_info bad = *wc_model_lookup("gemma-3-27b");
	wc_error err;
	bad.window = -1;
	CHECK_INT(wc_capacity_arch_make(&bad, WC_PREC_BF16, WC_PREC_BF16, &q, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/sliding_window");
	/* a window no layer uses is refused: cache_layers must leave some */
	bad.window = 1024;
	bad.attention_layers = 0;
	CHECK_INT(wc_capacity_arch_make(&bad, WC_PREC_BF16, WC_PREC_BF16, &q, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/sliding_window: no layer attends within it");
	/* and full attention on some layers without a window or a recurrent
	 * state for the others is refused: they would cache nothing */
	bad.window = 0;
	bad.attention_layers = 10;
	CHECK_INT(wc_capacity_arch_make(&bad, WC_PREC_BF16, WC_PREC_BF16, &q, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/sliding_window: required with cache_layers (10) below layers (62)");
	/* a hybrid's other layers keep their state (Nemotron-Nano) */
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup("NVIDIA-Nemotron-Nano-12B-v2"), WC_PREC_BF16, WC_PREC_BF16,
	                                &q, &err), WC_OK);
}

static void
memory(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_config c = WC_CONFIG_INIT;
	wc_error err;
	double fit;
	wc_params_default(&p);
	c.platform = "H100";
	c.tp = 1;
	c.arch = wc_model_lookup("Llama-3.1-405B");
	c.active_params_b = 405;
	c.running = 32;
	/* 810 GB of weights on one 80 GB H100 (81 559 MiB as the driver
	 * reports it, 85.5 GB): refused, naming tp and the numbers */
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "tp: the weights need 810.0 GB but 1 x H100 (85.5 GB each) hold 75.3 GB (10 % kept free, 1.64 GB/GPU workspace)");
	/* and the group vLLM can start: tp must divide the 128 heads, and
	 * the 8 KV heads must divide it */
	CHECK_CONTAINS(err.msg, "at least 11 GPUs needed: tp 16, the smallest "
	                        "Llama-3.1-405B's 128 attention and 8 KV heads allow");
	/* the longest names of the catalogs still leave the message whole
	 * (it was cut at "attention head" for Qwen3-Coder-480B on A100-PCIe) */
	{
		wc_config lc = c;
		lc.platform = "A100-PCIe-40GB";
		lc.arch = wc_model_lookup("Qwen3-Coder-480B-A35B");
		lc.active_params_b = 35;
		CHECK_INT(wc_predict_memory_check(&p, &lc, &fit, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "the smallest Qwen3-Coder-480B-A35B's 96 attention and 8 KV heads allow");
		CHECK(strlen(err.msg) < WC_ERROR_MSG_MAX - 1);
	}
	/* 4 of 40 GB hold a 70 B model, and 4 divides its 64 heads: no group named beside */
	c.platform = "A100-40GB";
	c.arch = wc_model_lookup("Llama-3.1-70B");
	c.active_params_b = 70.6;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "at least 4 GPUs needed");
	CHECK(strstr(err.msg, "the smallest") == NULL);
	c.platform = "H100";
	c.active_params_b = 405;
	/* without the architecture N_act is a lower bound on the weights (heads unknown: no group) */
	c.arch = NULL;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK(strstr(err.msg, "the smallest") == NULL);
	/* 16 GB of Qwen3-8B; (0.9 x 81559 MiB - the engine's 1.64 GB workspace
	 * - 16.38 GB) / (held x 147456 B) requests run at once, each holding its
	 * prompt, half its output and half a 16-token block on average (vLLM
	 * allocates blocks as tokens come) */
	c.arch = wc_model_lookup("Qwen3-8B");
	c.active_params_b = 8.19;
	c.input_tokens = 1536;
	c.output_tokens = 512;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_OK);
	CHECK_NEAR(fit, floor((0.9 * H100_BYTES - 1.64e9 - 16.38e9) / ((1536 + 256 + 8) * 147456.0)), 0);
	/* vLLM's paged cache gives each request whole 16-token blocks: a
	 * request of 1 + 1 tokens holds one block, so about 24 960 run, not
	 * the 42 081 that 1 + 1/2 + 8 tokens each would give */
	c.input_tokens = 1;
	c.output_tokens = 1;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_OK);
	CHECK_NEAR(fit, floor((0.9 * H100_BYTES - 1.64e9 - 16.38e9) / (16 * 147456.0)), 0);
	CHECK(fit > 24900 && fit < 25000);
	/* the mean over a request's life of its context in whole blocks: one
	 * block at least, L_in + L_out / 2 + half a block once it spans them */
	CHECK_NEAR(wc_capacity_kv_tokens_held(1, 1), 16, 1e-12);
	CHECK_NEAR(wc_capacity_kv_tokens_held(10, 10), 16 * (6 * 1 + 4 * 2) / 10.0, 1e-12);
	CHECK_NEAR(wc_capacity_kv_tokens_held(1536, 512), 1536 + 256 + 8, 1e-9);
	CHECK_NEAR(wc_capacity_kv_tokens_held(1e9 + 3, 1), 1e9 + 16, 1e-6);
	CHECK_NEAR(wc_capacity_kv_tokens_held(0, 0), 0, 0);
	CHECK_NEAR(wc_capacity_kv_block_tokens(17), 32, 0);
	c.input_tokens = 1536;
	c.output_tokens = 512;
	/* more requests than run are not refused (fewer run); gpu_memory_utilization
	 * sets the share of memory the engine takes */
	c.running = fit + 100;
	CHECK_INT(wc_predict_memory_check(&p, &c, NULL, &err), WC_OK);
	c.gpu_memory_utilization = 0.5;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_OK);
	CHECK_NEAR(fit, floor((0.5 * H100_BYTES - 1.64e9 - 16.38e9) / ((1536 + 256 + 8) * 147456.0)), 0);
	c.gpu_memory_utilization = 1.5;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "gpu_memory_utilization: ");
	/* the refused value in full: "got 1" read as inside 0.1-1 */
	c.gpu_memory_utilization = 1.0000000001;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "got 1.0000000001");
	/* 10 % of the H100 less the workspace holds 6.9 GB; a share smaller
	 * than the workspace (a 16 GB level of a parameter file) leaves nothing */
	c.gpu_memory_utilization = 0.1;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "hold 6.9 GB (90 % kept free, 1.64 GB/GPU workspace); at least 3 GPUs");
	wc_capacity_level *lv = (wc_capacity_level *)wc_capacity_level_find(&p.capacity, "H100");
	CHECK(lv != NULL);
	if (lv) {
		lv->memory_gb = 16;
		CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "gpu_memory_utilization: 0.1 of H100's 16.0 GB leaves nothing beside the engine's "
		                        "1.64 GB workspace per GPU");
		lv->memory_gb = 80;
	}
	c.gpu_memory_utilization = 0;
	/* one request longer than the KV cache cannot run */
	c.input_tokens = 420000;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "input_tokens: 420000 + 512 tokens exceed Qwen3-8B's context of 40960 tokens");
	wc_params_clear(&p);
}

/* Little's law in one place with one edge rule (docs/capacity.md,
 * "Closed loop, open loop, energy"): the step times' throughput, the
 * fit's latency from a measured throughput, the validation's throughput
 * from a predicted latency and the open loop's count all go through it.
 * A state whose latency is 0 has no throughput (NaN), where the step
 * times answered 0 tokens/s and the fit NaN for the same law. */
static void
little(void)
{
	CHECK_NEAR(wc_capacity_little_throughput(8.0, 256.0, 4.0), 512.0, 0.0);
	CHECK_NEAR(wc_capacity_little_latency(8.0, 256.0, 512.0), 4.0, 0.0);
	CHECK_NEAR(wc_capacity_little_running(2.0, 4.0), 8.0, 0.0);
	CHECK_NEAR(wc_capacity_little_rate(8.0, 4.0), 2.0, 0.0);
	const double bad[] = { 0.0, -1.0, NAN, INFINITY };
	for (int i = 0; i < 4; i++) {
		CHECK(isnan(wc_capacity_little_throughput(bad[i], 256.0, 4.0)));
		CHECK(isnan(wc_capacity_little_throughput(8.0, bad[i], 4.0)));
		CHECK(isnan(wc_capacity_little_latency(8.0, 256.0, bad[i])));
		CHECK(isnan(wc_capacity_little_running(bad[i], 4.0)));
		CHECK(isnan(wc_capacity_little_running(2.0, bad[i])));
		CHECK(isnan(wc_capacity_little_rate(8.0, bad[i])));
	}
	wc_capacity_arch a = { 0 };
	wc_capacity_hw hw = { 2e12, 400e12, 80e9, 0.0 };
	wc_capacity_point none = { 0.7, 0.0, 0.0, 0.5, 0.0, 0.0 };
	wc_capacity_times t;
	wc_capacity_times_eval(&none, &a, &hw, 1, 4.0, 0.0, 16.0, &t);
	CHECK(t.latency_s == 0.0 && isnan(t.throughput_tok_s));
	a.weight_bytes = a.shared_weight_bytes = 16e9;
	wc_capacity_times_eval(&none, &a, &hw, 1, 4.0, 0.0, 16.0, &t);
	CHECK(t.throughput_tok_s == 4.0 * 16.0 / t.latency_s);
}

int
main(void)
{
	little();
	bytes();
	placement();
	moe();
	step_terms();
	expert_parallel();
	moe_step_below_one();
	sliding_window();
	attention_width();
	below_one_running();
	memory();
	return check_report("test_capacity_model");
}

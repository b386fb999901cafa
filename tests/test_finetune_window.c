/*
 * Fine-tuning's attention FLOPs count a sliding window's layers as the
 * capacity model does (docs/finetune.md "FLOPs per optimizer step",
 * docs/capacity.md "Step time"): gemma-3-27b attends within 1024 tokens
 * on 52 of its 62 layers, yet at 32 768 tokens every layer was charged
 * all 32 768 keys: 21.84 GFLOP of attention a token where the windows
 * leave 3.54, 0.756 J/token for LoRA rank 16 where 0.590 (+28 %). Checked
 * against a hand count; a sequence within the window, and a model with
 * no window, do not move.
 */
#include "models/catalog.h"
#include "models/finetune_law.h"
#include "tests/support/support.h"

static double
flops(const char *model, int seq_len)
{
	wc_ft_config c = WC_FT_CONFIG_INIT;
	wc_ft_flops f;
	wc_error err;
	const wc_model_info *m = wc_model_lookup(model);
	CHECK(m != NULL);
	if (!m)
		return 0.0;
	wc_ft_config_from_model(&c, m);
	c.method = WC_FT_LORA;
	c.lora_rank = 16;
	c.micro_batch = 1;
	c.seq_len = seq_len;
	CHECK_INT(wc_ft_flops_compute(&c, &f, &err), WC_OK);
	return f.attention_flops;
}

int
main(void)
{
	/* gemma-3-27b: 62 layers, 10 with full attention, 52 in a 1024-token
	 * window, 32 heads x 128 = 4096 wide. A full layer: S keys a token;
	 * a windowed one: S times its share of the causal pairs,
	 * (W (W + 1) / 2 + (S - W) W) / (S (S + 1) / 2). */
	const double S = 32768, W = 1024, w = 32 * 128;
	const double share = (W * (W + 1) / 2 + (S - W) * W) / (S * (S + 1) / 2);
	CHECK_NEAR(flops("gemma-3-27b", 32768), 2.0 * w * S * (10 + 52 * share), 1.0);
	CHECK_NEAR(flops("gemma-3-27b", 32768) / 1e9, 3.543, 0.001);
	/* within the window nothing moves: every layer S keys */
	CHECK_NEAR(flops("gemma-3-27b", 512), 2.0 * 62 * 512 * w, 0.0);
	CHECK_NEAR(flops("gemma-3-27b", 1024), 2.0 * 62 * 1024 * w, 0.0);
	/* no window: 2 L S w, Qwen3-8B's 36 layers 4096 wide */
	CHECK_NEAR(flops("Qwen3-8B", 32768), 2.0 * 36 * 32768 * 4096, 0.0);
	return check_report("test_finetune_window");
}

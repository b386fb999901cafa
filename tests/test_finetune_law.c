/*
 * The fine-tuning law (docs/finetune.md): one check per term of the
 * analytical FLOPs, the compute-energy law for the point and a draw, the
 * built-in profile against Table 8 of the LLM-PowerTrace appendix (to
 * 1e-9), refused configurations naming their field, and the section's
 * round trip through a parameter file.
 */
#include "data/data.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <stdlib.h>

static wc_ft_config
llama8b_qlora(void)
{
	wc_ft_config c = WC_FT_CONFIG_INIT;
	c.method = WC_FT_QLORA;
	wc_ft_config_from_model(&c, wc_model_lookup("Llama-3.1-8B"));
	c.lora_rank = 64;
	c.micro_batch = 8;
	c.seq_len = 1024;
	c.grad_accum = 4;
	c.gpus = 4;
	return c;
}

static void
tokens_per_step(void)
{
	wc_ft_config c = llama8b_qlora();
	wc_ft_flops f;
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	CHECK_NEAR(f.tokens_per_step, 8.0 * 1024 * 4 * 4, 0);
	c.data_parallel = 2; /* 4 GPUs, 2 replicas (e.g. tensor parallel 2) */
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	CHECK_NEAR(f.tokens_per_step, 8.0 * 1024 * 4 * 2, 0);
	c.tokens_per_step = 50000; /* packed batches: measured tokens win */
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	CHECK_NEAR(f.tokens_per_step, 50000, 0);
}

static void
forward_terms(void)
{
	wc_ft_config c = llama8b_qlora();
	wc_ft_flops f;
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	CHECK_NEAR(f.weight_flops, 2 * 8.03e9, 1);
	CHECK_NEAR(f.attention_flops, 2.0 * 32 * 1024 * 4096, 0);
	CHECK_NEAR(f.forward_flops, 2 * 8.03e9 + 2.0 * 32 * 1024 * 4096, 1);
	/* the attention runs at the heads' width, as the capacity model's
	 * (wc_model_attention_width): Qwen3-32B's 64 x 128 = 8192, not its
	 * d_model 5120; Qwen3-30B-A3B's 32 x 128 = 4096, not 2048 */
	static const struct { const char *model; double width; } wide[] = {
		{ "Qwen3-32B", 64 * 128 }, { "Qwen3-30B-A3B", 32 * 128 },
		/* a latent attention's queries and keys 192 wide, values 128 */
		{ "DeepSeek-V3.1", 128 * (192 + 128) / 2 },
	};
	for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
		const wc_model_info *m = wc_model_lookup(wide[i].model);
		c = llama8b_qlora();
		wc_ft_config_from_model(&c, m);
		CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
		CHECK_NEAR(f.attention_flops, 2.0 * m->layers * 1024 * wide[i].width, 0);
		CHECK_NEAR(wide[i].width, wc_model_attention_width(m), 0);
	}
}

static void
method_factors(void)
{
	wc_ft_config c = llama8b_qlora();
	wc_ft_flops f;
	const double want[3][2] = { { 3, 0 }, { 2, 3 }, { 2, 3 } }; /* full, lora, qlora */
	for (int m = 0; m < WC_FT_METHOD_COUNT; m++) {
		c.method = (wc_ft_method)m;
		c.lora_rank = m == WC_FT_FULL ? 0 : 64;
		for (int ck = 0; ck < 2; ck++) {
			c.checkpointing = ck;
			CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
			CHECK_NEAR(f.base_passes, want[m][0] + ck, 0);
			CHECK_NEAR(f.adapter_passes, m == WC_FT_FULL ? 0 : want[m][1] + ck, 0);
		}
	}
}

static void
adapter_terms(void)
{
	/* A made-up shape whose MLP width is known: d 1000, 10 layers, 8 x 100
	 * query heads, 2 x 100 KV heads, d_ff 3000 -> per layer attention
	 * 1000 (2 800 + 2 200) = 2e6, MLP 3 1000 3000 = 9e6 parameters. */
	wc_ft_config c = WC_FT_CONFIG_INIT;
	wc_ft_flops f;
	c.method = WC_FT_LORA;
	c.params_b = 10 * 11e6 / 1e9;
	c.layers = 10;
	c.d_model = 1000;
	c.attention_heads = 8;
	c.kv_heads = 2;
	c.head_dim = 100;
	c.lora_rank = 16;
	c.micro_batch = 2;
	c.seq_len = 100;
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	/* q 1000+800, k and v 1000+200, o 800+1000, gate/up/down 3 (1000+3000) */
	double width = 1800 + 2 * 1200 + 1800 + 3 * 4000;
	CHECK_NEAR(f.adapter_width, width, 1e-6);
	CHECK_NEAR(f.adapter_flops, 2.0 * 16 * 10 * width, 1e-3);
	/* LoRA: two passes over the frozen forward, three over the adapters;
	 * the attention at the heads' width, 8 x 100, not d_model 1000. */
	double per_token = 2 * (2 * 0.11e9 + 2.0 * 10 * 100 * 800) + 3 * f.adapter_flops;
	CHECK_NEAR(f.flops_per_token, per_token, 1e-3);
	CHECK_NEAR(f.flops_per_step_tflop, 200 * per_token * 1e-12, 1e-12);
	/* Full fine-tuning has no adapter. */
	c.method = WC_FT_FULL;
	c.lora_rank = 0;
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	CHECK_NEAR(f.adapter_flops, 0, 0);
	CHECK_NEAR(f.flops_per_token, 3 * f.forward_flops, 1e-3);
}

static void
compute_law(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_ft_config c = llama8b_qlora();
	wc_ft_binding b;
	wc_ft_point pt;
	wc_params_default(&p);
	CHECK_INT(wc_ft_bind(&p.finetune, &c, &b, NULL), WC_OK);
	wc_ft_bound_point(&b, NULL, &pt);
	/* e0 is per GPU (docs/finetune.md, "e0 and the number of GPUs"): four of them. */
	CHECK_NEAR(pt.energy_per_step_j, 4 * 2176.3 + 4.5241 * b.flops.flops_per_step_tflop, 1e-9);
	CHECK_NEAR(pt.energy_per_token_j, pt.energy_per_step_j / b.flops.tokens_per_step, 1e-15);
	/* A draws row goes through the same code. */
	char names[2][WC_LABEL_MAX] = { "kappa", "e0" };
	double row[2] = { 5.0, 1000.0 };
	CHECK_INT(wc_draws_set(&p.finetune.draws, 1, 2, (const char (*)[WC_LABEL_MAX])names, row, NULL), WC_OK);
	CHECK_INT(wc_ft_bind(&p.finetune, &c, &b, NULL), WC_OK);
	wc_ft_bound_point(&b, wc_draws_row(&p.finetune.draws, 0), &pt);
	CHECK_NEAR(pt.energy_per_step_j, 4 * 1000.0 + 5.0 * b.flops.flops_per_step_tflop, 1e-9);
	/* A file of schema 4 or older: e0 was the job's, whatever G. */
	p.finetune.e0_scope = WC_FT_E0_PER_JOB;
	CHECK_INT(wc_ft_bind(&p.finetune, &c, &b, NULL), WC_OK);
	wc_ft_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.energy_per_step_j, 2176.3 + 4.5241 * b.flops.flops_per_step_tflop, 1e-9);
	wc_params_clear(&p);
}

/* Data parallelism over G GPUs with e0 per GPU: G times the tokens, G
 * times the energy, the same energy per token as one GPU -- adding GPUs
 * does not make a token cheaper (with e0 per job it did: 0.169 against
 * 0.219 J at four GPUs). */
static void
gpus_do_not_cheapen_tokens(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_ft_config one = llama8b_qlora(), four = llama8b_qlora();
	wc_ft_binding b1, b4;
	wc_ft_point p1, p4;
	one.gpus = 1;
	wc_params_default(&p);
	CHECK_INT(wc_ft_bind(&p.finetune, &one, &b1, NULL), WC_OK);
	CHECK_INT(wc_ft_bind(&p.finetune, &four, &b4, NULL), WC_OK);
	wc_ft_bound_point(&b1, NULL, &p1);
	wc_ft_bound_point(&b4, NULL, &p4);
	CHECK_NEAR(p4.energy_per_step_j, 4 * p1.energy_per_step_j, 1e-9 * p4.energy_per_step_j);
	CHECK_NEAR(p4.energy_per_token_j, p1.energy_per_token_j, 1e-12);
	CHECK_NEAR(p1.energy_per_token_j, 0.219158, 1e-6);
	/* Tensor parallelism: 4 GPUs, 1 replica -- one GPU's tokens, four GPUs' fixed energy. */
	four.data_parallel = 1;
	CHECK_INT(wc_ft_bind(&p.finetune, &four, &b4, NULL), WC_OK);
	wc_ft_bound_point(&b4, NULL, &p4);
	CHECK_NEAR(p4.energy_per_step_j, p1.energy_per_step_j + 3 * 2176.3, 1e-9 * p4.energy_per_step_j);
	wc_params_clear(&p);
}

/* Table 8: the published relations, to 1e-9. */
static void
table8(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	const wc_finetune_params *f = &p.finetune;
	CHECK(f->present);
	CHECK_NEAR(f->e0.value, 2176.3, 1e-9);
	CHECK_NEAR(f->kappa.value, 4.5241, 1e-9);
	CHECK_NEAR(wc_ft_relation_eval(WC_FT_REL_BATCH, &f->relations[WC_FT_REL_BATCH], 8),
	           0.7555 + 1.2552 / 8, 1e-9);
	CHECK_NEAR(wc_ft_relation_eval(WC_FT_REL_SEQ, &f->relations[WC_FT_REL_SEQ], 1024),
	           0.0770 + 1.51e-4 * 1024 + 57.20 / 1024, 1e-9);
	CHECK_NEAR(wc_ft_relation_eval(WC_FT_REL_SIZE, &f->relations[WC_FT_REL_SIZE], 13),
	           0.1147 + 0.0216 * 13, 1e-9);
	CHECK_NEAR(f->relations[WC_FT_REL_BATCH].r2, 0.997, 1e-12);
	CHECK_NEAR(f->r2, 0.992, 1e-12);
	wc_params_clear(&p);
}

static void
refused(const wc_ft_config *c, const char *msg)
{
	wc_error err = { 0, "" };
	wc_ft_flops f;
	CHECK(wc_ft_flops_compute(c, &f, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, msg);
}

static void
bad_configurations(void)
{
	wc_ft_config c = llama8b_qlora();
	c.micro_batch = -2;
	refused(&c, "micro_batch: must be a whole number >= 1, got -2");
	c = llama8b_qlora();
	c.seq_len = 0;
	refused(&c, "seq_len: must be a whole number >= 1, got 0");
	c = llama8b_qlora();
	c.lora_rank = 0;
	refused(&c, "lora_rank: must be a whole number >= 1 for lora and qlora, got 0");
	c = llama8b_qlora();
	c.method = WC_FT_FULL;
	refused(&c, "lora_rank: only for lora and qlora");
	c = llama8b_qlora();
	c.data_parallel = 3;
	refused(&c, "data_parallel: must divide gpus (4), got 3");
	c = llama8b_qlora();
	c.seq_len = 200000000; /* over the bound: the message says which bound */
	refused(&c, "seq_len: must be at most 100000000, got 200000000");
	c = llama8b_qlora();
	c.params_b = 0;
	refused(&c, "params_b: must be");
	c.params_b = 1e6;
	refused(&c, "params_b: must be a number of billions > 0 and at most 100000, got 1000000");
	c = llama8b_qlora();
	c.grad_accum = 0;
	refused(&c, "grad_accum:");
	c = llama8b_qlora();
	c.gpus = 0;
	refused(&c, "gpus:");
	wc_ft_method m;
	CHECK(wc_ft_method_from_name("dora", &m) == WC_ENOTFOUND);
}

static void
section_round_trip(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	wc_ft_relation *r = &p.finetune.relations[WC_FT_REL_SEQ];
	r->has_base = 1;
	r->base = llama8b_qlora();
	r->x.lo = 128;
	r->x.hi = 4096;
	r->runs = 18;
	r->levels = 6;
	p.finetune.ranges.seq_len.lo = 128;
	p.finetune.ranges.seq_len.hi = 4096;
	char names[2][WC_LABEL_MAX] = { "e0", "kappa" };
	double v[4] = { 2100.0, 4.5, 2250.5, 4.6 };
	CHECK_INT(wc_draws_set(&p.finetune.draws, 2, 2, (const char (*)[WC_LABEL_MAX])names, v, &err), WC_OK);
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &q, &err), WC_OK);
	CHECK(q.finetune.present && q.finetune.draws.n == 2 && q.finetune.draws.values[2] == 2250.5);
	CHECK(q.finetune.relations[WC_FT_REL_SEQ].has_base);
	CHECK_INT(q.finetune.relations[WC_FT_REL_SEQ].base.seq_len, 1024);
	CHECK(q.finetune.relations[WC_FT_REL_SEQ].coef[2].value == 57.20);
	CHECK(q.finetune.ranges.seq_len.hi == 4096 && isnan(q.finetune.ranges.micro_batch.lo));
	CHECK(strcmp(q.finetune.platform, "H200") == 0 && q.finetune.methods == (1u << WC_FT_QLORA));
	char *s2 = wc_params_dump(&q, 1, &err);
	CHECK(strcmp(s, s2) == 0);
	free(s2);
	/* The placeholder of the first schema-2 files reads as no law. */
	char *at = strstr(s, "\"finetune\": {");
	CHECK(at != NULL);
	if (at) {
		const char *tail = "\"finetune\": {\"draws\": null}\n}\n";
		strcpy(at, tail);
		CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &q, &err), WC_OK);
		CHECK(!q.finetune.present);
	}
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

static void
section_refusals(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 0, &err);
	char *at = strstr(s, "\"a + b/x\"");
	CHECK(at != NULL);
	if (at) {
		memcpy(at, "\"a + c/x\"", 9);
		CHECK(wc_params_load_buffer(s, strlen(s), "t.json", &q, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "t.json:490:17: /finetune/relations/batch_size/form: expected \"a + b/x\"");
	}
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

int
main(void)
{
	tokens_per_step();
	forward_terms();
	method_factors();
	adapter_terms();
	compute_law();
	gpus_do_not_cheapen_tokens();
	table8();
	bad_configurations();
	section_round_trip();
	section_refusals();
	return check_report("test_finetune_law");
}

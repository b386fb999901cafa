/*
 * A fine-tuning runs-table row of a catalog model is costed by the same
 * shape as the catalog path (wc_ft_config_from_model, docs/finetune.md
 * "Predicting"): the table reader kept the entry's heads but not the
 * entry, so a multi-head latent attention row (DeepSeek-V3, Kimi-K2) ran
 * its attention at heads x head_dim (128 x 128 = 16384 wide), not the
 * catalog's attention_width, 128 x (192 + 128) / 2 = 20480, that the
 * capacity model and a fine-tuning query use; and a sliding-window
 * model's row (gemma-3-27b, 1024-token window) past its window counted
 * every layer's keys over the whole sequence. A row's attention FLOPs now
 * equal the catalog path's; a row whose shape is its own keeps its own.
 */
#include "data/data.h"
#include "models/catalog.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>

static const char header[] =
	"run_id,platform,gpus,model,params_b,layers,d_model,method,lora_rank,micro_batch,seq_len,"
	"grad_accum,checkpointing,energy_per_step_j,step_s\n";

/* The row's FLOPs against the catalog path's for the same job. */
static void
same_as_catalog(const wc_ft_run *run, const char *model)
{
	const wc_model_info *m = wc_model_lookup(model);
	wc_ft_config c = run->config;
	wc_ft_flops row, cat;
	CHECK(m != NULL);
	if (!m)
		return;
	wc_ft_config_from_model(&c, m);
	CHECK_INT(wc_ft_flops_compute(&run->config, &row, NULL), WC_OK);
	CHECK_INT(wc_ft_flops_compute(&c, &cat, NULL), WC_OK);
	if (row.attention_flops != cat.attention_flops || row.forward_flops != cat.forward_flops)
		fprintf(stderr, "%s: row attention %.6g, catalog %.6g\n", model, row.attention_flops, cat.attention_flops);
	CHECK_NEAR(row.attention_flops, cat.attention_flops, 0);
	CHECK_NEAR(row.forward_flops, cat.forward_flops, 0);
}

int
main(void)
{
	char buf[2048];
	snprintf(buf, sizeof buf, "%s%s", header,
	         "a,H200,8,DeepSeek-V3,,,,lora,16,1,4096,1,true,50000,10\n"
	         "b,H200,8,Kimi-K2,,,,lora,16,1,4096,1,true,50000,10\n"
	         "c,H200,1,gemma-3-27b,,,,qlora,64,1,8192,1,true,20000,10\n"
	         "d,H200,1,gemma-3-27b,,,,qlora,64,1,512,1,true,20000,10\n"
	         "e,H200,8,DeepSeek-V3,,,6144,lora,16,1,4096,1,true,50000,10\n");
	wc_ft_table *t = NULL;
	wc_error err;
	int rc = wc_ft_table_read_buffer(buf, strlen(buf), "ft.csv", &t, &err);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK(t && t->n_runs == 5);
	if (t && t->n_runs == 5) {
		same_as_catalog(&t->runs[0], "DeepSeek-V3");
		same_as_catalog(&t->runs[1], "Kimi-K2");
		same_as_catalog(&t->runs[2], "gemma-3-27b");
		same_as_catalog(&t->runs[3], "gemma-3-27b");
		/* the latent width itself: 61 layers x 4096 keys x 20480 */
		wc_ft_flops f;
		CHECK_INT(wc_ft_flops_compute(&t->runs[0].config, &f, NULL), WC_OK);
		CHECK_NEAR(f.attention_flops, 2.0 * 61 * 4096 * 20480.0, 0);
		/* a row of another width is a shape of its own: its heads' width */
		CHECK_INT(wc_ft_flops_compute(&t->runs[4].config, &f, NULL), WC_OK);
		CHECK_NEAR(f.attention_flops, 2.0 * 61 * 4096 * (128.0 * 128), 0);
	}
	wc_ft_table_free(t);
	return check_report("test_finetune_runs_catalog_shape");
}

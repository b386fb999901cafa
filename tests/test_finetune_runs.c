/*
 * Fine-tuning runs tables (docs/formats/finetune-runs.md): a table reads,
 * the catalog completes a known model's size and shape, extra columns
 * survive a rewrite, and bad cells are refused with file:line:column and
 * the column's name.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>

static const char header[] =
	"run_id,platform,gpus,model,params_b,layers,d_model,method,lora_rank,micro_batch,seq_len,"
	"grad_accum,checkpointing,energy_per_step_j,step_s,note\n";

static char *
table(const char *rows)
{
	char *s = malloc(strlen(header) + strlen(rows) + 64);
	sprintf(s, "# a comment\n%s%s", header, rows);
	return s;
}

static void
reads(void)
{
	char *s = table("a,H200,1,Llama-3.1-8B,,,,qlora,64,8,1024,4,false,7100.5,12.5,first\n"
	                "b,H100,8,MyModel-7B,7.1,30,4000,full,,2,2048,1,yes,50000,4.2,\n");
	wc_ft_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_ft_table_read_buffer(s, strlen(s), "ft.csv", &t, &err), WC_OK);
	CHECK(t && t->n_runs == 2);
	if (t && t->n_runs == 2) {
		const wc_ft_config *a = &t->runs[0].config, *b = &t->runs[1].config;
		CHECK_NEAR(a->params_b, 8.03, 1e-12);
		CHECK_INT(a->layers, 32);
		CHECK_INT(a->kv_heads, 8);
		CHECK_INT(a->lora_rank, 64);
		CHECK_INT(a->method, WC_FT_QLORA);
		CHECK_INT(b->method, WC_FT_FULL);
		CHECK_INT(b->gpus, 8);
		CHECK(b->checkpointing && !a->checkpointing);
		CHECK_INT(b->layers, 30);
		CHECK_NEAR(t->runs[0].energy_per_step_j, 7100.5, 0);
		CHECK(strcmp(wc_ft_table_get_extra(t, 0, "note"), "first") == 0);
		CHECK(strcmp(wc_ft_table_get_extra(t, 1, "note"), "") == 0);
		/* a rewrite reads back the same */
		char *dir = test_tmpdir("finetune_runs");
		char *path = path_join(dir, "out.csv");
		wc_ft_table *u = NULL;
		CHECK_INT(wc_ft_table_set_extra(t, 1, "step_source", "trace_period", &err), WC_OK);
		CHECK_INT(wc_ft_table_write(path, t, "synthetic\nsecond line", &err), WC_OK);
		CHECK_INT(wc_ft_table_read(path, &u, &err), WC_OK);
		CHECK(u && u->n_runs == 2 && u->runs[1].config.layers == 30);
		CHECK(u && strcmp(wc_ft_table_get_extra(u, 1, "step_source"), "trace_period") == 0);
		CHECK(u && strcmp(wc_ft_table_get_extra(u, 0, "note"), "first") == 0);
		wc_ft_table_free(u);
		free(path);
		free(dir);
	}
	wc_ft_table_free(t);
	free(s);
}

/* `row` is refused with exactly `msg`. */
static void
refused(const char *row, const char *msg)
{
	char *s = table(row);
	wc_ft_table *t = NULL;
	wc_error err = { 0, "" };
	CHECK(wc_ft_table_read_buffer(s, strlen(s), "ft.csv", &t, &err) == WC_EPARSE);
	CHECK(t == NULL);
	CHECK_CONTAINS(err.msg, msg);
	free(s);
}

static void
refusals(void)
{
	refused("a,H200,1,Qwen3-8B,,,,qlora,64,-2,1024,4,false,7000,10,\n",
	        "ft.csv:3:31: column 'micro_batch': must be a whole number >= 1, got '-2'");
	refused("a,H200,1,Qwen3-8B,,,,qlora,64,8,0,4,false,7000,10,\n",
	        "ft.csv:3:33: column 'seq_len': must be a whole number >= 1, got '0'");
	refused("a,H200,1,Qwen3-8B,,,,dora,64,8,1024,4,false,7000,10,\n",
	        "ft.csv:3:22: column 'method': expected full, lora or qlora, got 'dora'");
	refused("a,H200,1,Qwen3-8B,,,,qlora,0,8,1024,4,false,7000,10,\n",
	        "ft.csv:3:28: column 'lora_rank': must be a whole number >= 1, got '0'");
	refused("a,H200,1,Qwen3-8B,,,,qlora,-8,8,1024,4,false,7000,10,\n",
	        "column 'lora_rank': must be a whole number >= 1, got '-8'");
	refused("a,H200,1,Qwen3-8B,,,,lora,,8,1024,4,false,7000,10,\n",
	        "ft.csv:3:27: column 'lora_rank': value is required for lora");
	refused("a,H200,1,Qwen3-8B,,,,full,16,8,1024,4,false,7000,10,\n",
	        "column 'lora_rank': only for lora and qlora");
	refused("a,H200,1,Mystery-9B,9,,4096,qlora,16,8,1024,4,false,7000,10,\n",
	        "ft.csv:3:23: column 'layers': value is required (model 'Mystery-9B' is not in the catalog)");
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,maybe,7000,10,\n",
	        "column 'checkpointing': expected true or false, got 'maybe'");
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,-70,10,\n",
	        "column 'energy_per_step_j': must be > 0, got '-70'");
	/* A step's energy past 5 kW per GPU over its time, or a step past a
	 * day, is a unit slip: 1e300 J was frozen as e0 = 9e299 J per GPU. */
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,1e300,10,\n",
	        "ft.csv:3:46: column 'energy_per_step_j': must be at most 50000 J (5000 W per GPU of its 1 over its "
	        "step_s 10 s, above any GPU board), got '1e300'");
	/* The cell quoted as written, not as %g reprints it ('1e+09'). */
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,1e9,1.55,\n",
	        "ft.csv:3:46: column 'energy_per_step_j': must be at most 7750 J (5000 W per GPU of its 1 over its "
	        "step_s 1.55 s, above any GPU board), got '1e9'");
	/* ... and under 1 W per GPU over the step, no GPU at work: 0.00001 J
	 * for 947 J made the fit refuse the table as "proportional", 0.01 J
	 * fitted e0 -537 J (models/limits.h, WC_GPU_MIN_POWER_W). */
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,0.00001,1.55,\n",
	        "ft.csv:3:46: column 'energy_per_step_j': must be at least 1.55 J (1 W per GPU of its 1 over its "
	        "step_s 1.55 s, below any GPU at work), got '0.00001'");
	refused("a,H200,8,Qwen3-8B,,,,qlora,16,8,1024,4,false,12.39,1.55,\n",
	        "ft.csv:3:46: column 'energy_per_step_j': must be at least 12.4 J (1 W per GPU of its 8");
	{
		char *s = table("a,H200,8,Qwen3-8B,,,,qlora,16,8,1024,4,false,12.4,1.55,\n");
		wc_ft_table *t = NULL;
		wc_error err = { 0, "" };
		CHECK_INT(wc_ft_table_read_buffer(s, strlen(s), "ft.csv", &t, &err), WC_OK); /* at the bound */
		wc_ft_table_free(t);
		free(s);
	}
	refused("a,H200,2,Qwen3-8B,,,,qlora,16,8,1024,4,false,100001,10,\n",
	        "ft.csv:3:46: column 'energy_per_step_j': must be at most 100000 J");
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,70,1e300,\n",
	        "ft.csv:3:49: column 'step_s': must be at most 86400 s (a day), got '1e300'");
	{
		char *s = table("a,H200,2,Qwen3-8B,,,,qlora,16,8,1024,4,false,100000,10,\n");
		wc_ft_table *t = NULL;
		wc_error err = { 0, "" };
		CHECK_INT(wc_ft_table_read_buffer(s, strlen(s), "ft.csv", &t, &err), WC_OK); /* at the bound */
		wc_ft_table_free(t);
		free(s);
	}
	refused("a,H200,0,Qwen3-8B,,,,qlora,16,8,1024,4,false,70,10,\n",
	        "ft.csv:3:8: column 'gpus': must be a whole number >= 1, got '0'");
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,70,10,\n"
	        "a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,70,10,\n",
	        "ft.csv:4:1: duplicate run_id 'a' (first on line 3)");
	refused("a,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,70\n",
	        "ft.csv:3:48: expected 16 fields as in the header, got 14"); /* at the line's end */
	/* a length limit in bytes, named with the length: 32 CJK characters
	 * are 96 bytes ("value too long" gave neither) */
	refused("模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模模,H200,1,Qwen3-8B,,,,qlora,16,8,1024,4,false,70,10,\n",
	        "ft.csv:3:1: column 'run_id': value too long: 96 bytes, at most 95");
	/* a missing required column and a cross-field rule */
	const char *no_accum = "run_id,platform,gpus,model,method,lora_rank,micro_batch,seq_len,"
	                       "checkpointing,energy_per_step_j,step_s\n";
	wc_ft_table *t = NULL;
	wc_error err = { 0, "" };
	CHECK(wc_ft_table_read_buffer(no_accum, strlen(no_accum), "ft.csv", &t, &err) == WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ft.csv:1:1: missing required column 'grad_accum'");
	const char *dp = "run_id,platform,gpus,data_parallel,model,method,lora_rank,micro_batch,seq_len,"
	                 "grad_accum,checkpointing,energy_per_step_j,step_s\n"
	                 "a,H100,4,3,Qwen3-8B,qlora,16,8,1024,1,false,100,1\n";
	CHECK(wc_ft_table_read_buffer(dp, strlen(dp), "ft.csv", &t, &err) == WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ft.csv:2:10: column 'data_parallel': must divide gpus (4), got 3");
	/* More tokens than a step holds (8 x 1024 x 1 x 4 = 32768): the rule
	 * predict applies to a query, here at the row's cell. */
	const char *tok = "run_id,platform,gpus,model,method,lora_rank,micro_batch,seq_len,"
	                  "grad_accum,checkpointing,energy_per_step_j,step_s,tokens_per_step\n"
	                  "a,H100,4,Qwen3-8B,qlora,16,8,1024,1,false,100,1,32768\n"
	                  "b,H100,4,Qwen3-8B,qlora,16,8,1024,1,false,100,1,40000\n";
	CHECK(wc_ft_table_read_buffer(tok, strlen(tok), "ft.csv", &t, &err) == WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ft.csv:3:49: column 'tokens_per_step': 40000 tokens are more than one step holds");
}

int
main(void)
{
	reads();
	refusals();
	return check_report("test_finetune_runs");
}

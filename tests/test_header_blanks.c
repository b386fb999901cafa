/*
 * Header names are read without the blanks around them, as values already
 * are (docs/formats/runs-table.md): a runs table whose header says
 * "mean_power_w " was refused as "missing required column 'mean_power_w'".
 * The same holds for the fine-tuning runs table and for extra columns,
 * which keep the trimmed name; a name that is blank once trimmed is still
 * refused.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static void
runs_table(void)
{
	const char *text = "run_id, platform ,tp,model,active_params_b,running,mean_power_w \t, note \n"
	                   "r1,A100,1,Qwen3-8B,8.19,32,362.5,first\n";
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read_buffer(text, strlen(text), "runs.csv", &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK_NEAR(t->runs[0].mean_power_w, 362.5, 0);
		CHECK(strcmp(t->runs[0].platform, "A100") == 0);
		const char *note = wc_runs_get_extra(t, 0, "note");
		CHECK(note && strcmp(note, "first") == 0);
	}
	wc_runs_free(t);

	const char *blank = "run_id,platform,tp,model,active_params_b,running,mean_power_w,  \n"
	                    "r1,A100,1,Qwen3-8B,8.19,32,362.5,x\n";
	t = NULL;
	CHECK(wc_runs_read_buffer(blank, strlen(blank), "runs.csv", &t, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "empty name for column");
	CHECK(t == NULL);
}

static void
finetune_table(void)
{
	const char *text =
		"run_id,platform,gpus,model,params_b,layers,d_model,method,micro_batch,seq_len,"
		"grad_accum,checkpointing, energy_per_step_j ,step_s\n"
		"a,H100,8,MyModel-7B,7.1,30,4000,full,2,2048,1,yes,50000,4.2\n";
	wc_ft_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_ft_table_read_buffer(text, strlen(text), "ft.csv", &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1 && t->runs[0].energy_per_step_j == 50000);
	wc_ft_table_free(t);
}

int
main(void)
{
	runs_table();
	finetune_table();
	return check_report("test_header_blanks");
}

/*
 * `wattcast validate finetune`'s text report when no level of a relation
 * can be scored (docs/finetune.md, "Validation"): 24 runs of three models
 * on 1-8 GPUs, each sweep's levels one run each, so no relation is refitted
 * without its level. The relation column prints "–", as the interval block
 * and the level rows do, not "nan"; --json gives null.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char RUNS[] =
	"run_id,platform,gpus,model,method,micro_batch,seq_len,grad_accum,checkpointing,energy_per_step_j,step_s\n"
	"r1,H100,1,Llama-3.1-8B,full,4,1024,2,false,622.2,1.244\n"
	"r2,H100,1,Llama-3.1-8B,full,8,2048,2,false,1645.9,3.292\n"
	"r3,H100,2,Llama-3.1-8B,full,4,1024,2,false,1219.1,1.219\n"
	"r4,H100,2,Llama-3.1-8B,full,8,2048,2,false,3274.8,3.275\n"
	"r5,H100,4,Llama-3.1-8B,full,4,1024,2,false,2471.3,1.236\n"
	"r6,H100,4,Llama-3.1-8B,full,8,2048,2,false,6387.4,3.194\n"
	"r7,H100,8,Llama-3.1-8B,full,4,1024,2,false,5160.6,1.290\n"
	"r8,H100,8,Llama-3.1-8B,full,8,2048,2,false,12882.4,3.221\n"
	"r9,H100,1,Qwen3-4B,full,4,1024,2,false,462.8,0.926\n"
	"r10,H100,1,Qwen3-4B,full,8,2048,2,false,991.0,1.982\n"
	"r11,H100,2,Qwen3-4B,full,4,1024,2,false,947.6,0.948\n"
	"r12,H100,2,Qwen3-4B,full,8,2048,2,false,1952.1,1.952\n"
	"r13,H100,4,Qwen3-4B,full,4,1024,2,false,1874.8,0.937\n"
	"r14,H100,4,Qwen3-4B,full,8,2048,2,false,3831.2,1.916\n"
	"r15,H100,8,Qwen3-4B,full,4,1024,2,false,3678.7,0.920\n"
	"r16,H100,8,Qwen3-4B,full,8,2048,2,false,7745.0,1.936\n"
	"r17,H100,1,Qwen3-14B,full,4,1024,2,false,866.8,1.734\n"
	"r18,H100,1,Qwen3-14B,full,8,2048,2,false,2613.8,5.228\n"
	"r19,H100,2,Qwen3-14B,full,4,1024,2,false,1723.4,1.723\n"
	"r20,H100,2,Qwen3-14B,full,8,2048,2,false,5362.0,5.362\n"
	"r21,H100,4,Qwen3-14B,full,4,1024,2,false,3548.6,1.774\n"
	"r22,H100,4,Qwen3-14B,full,8,2048,2,false,10706.4,5.353\n"
	"r23,H100,8,Qwen3-14B,full,4,1024,2,false,7131.5,1.783\n"
	"r24,H100,8,Qwen3-14B,full,8,2048,2,false,20982.4,5.246\n";

int
main(void)
{
	char *dir = test_tmpdir("cli_validate_finetune_text");
	char *runs = test_fixture(dir, "mg.csv", RUNS);
	const char *argv[] = { "wattcast", "validate", "finetune", runs, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && strstr(r.out, "nan") == NULL);
	if (r.out && strstr(r.out, "nan"))
		fprintf(stderr, "%s", r.out);
	char *line = test_line_with(r.out ? r.out : "", "median |error| %");
	CHECK(line && strstr(line, "–"));
	free(line);
	line = test_line_with(r.out ? r.out : "", "share within +-5 %");
	CHECK(line && strstr(line, "–") && strstr(line, "–%") == NULL);
	free(line);
	line = test_line_with(r.out ? r.out : "", "bias % (+ = over)");
	CHECK(line && strstr(line, "–"));
	free(line);
	run_result_free(&r);
	const char *js[] = { "wattcast", "validate", "finetune", runs, "--json", NULL };
	CHECK(run_wattcast(js, NULL, &r) == 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(json_is_null(json_object_get(json_object_get(j, "relation"), "median_abs_error_pct")));
	json_decref(j);
	run_result_free(&r);
	free(runs);
	free(dir);
	return check_report("test_cli_validate_finetune_text");
}

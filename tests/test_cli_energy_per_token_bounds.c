/*
 * A runs table's measured energy per token obeys its range
 * (models/limits.h, WC_RUN_MAX_ENERGY_PER_TOKEN_J_PER_GPU;
 * docs/formats/runs-table.md): > 0 and at most 5000 W per GPU for a day
 * on one token, refused at its cell as every other measured column is.
 * `fit request-energy` fitted on 3 of 4 points with the row of -5.1 J
 * gone without a word, and printed a 300-digit E_fixed for 1e300 J;
 * `import mlenergy` now refuses such a source row at its line, as it
 * refuses what the runs-table reader would.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char sweep[] = "run_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
                            "output_tokens,energy_per_token_j\n";

static void
fit(const char *dir, const char *name, const char *first, const char *want)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "%sr0,A100,1,Qwen3-8B,8.19,8,300,512,128,%s\n"
	         "r1,A100,1,Qwen3-8B,8.19,8,300,512,256,5.048828125\n"
	         "r2,A100,1,Qwen3-8B,8.19,8,300,512,512,5.0244140625\n"
	         "r3,A100,1,Qwen3-8B,8.19,8,300,512,1024,5.01220703125\n",
	         sweep, first);
	char *path = path_join(dir, name);
	CHECK_INT(write_text(path, text), 0);
	const char *argv[] = { "wattcast", "fit", "request-energy", path, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	if (want) {
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, want);
		CHECK(strlen(r.err) <= 255 + strlen("wattcast fit request-energy: \n"));
	} else {
		CHECK_INT(r.status, 0);
	}
	run_result_free(&r);
	free(path);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_energy_per_token_bounds");
	fit(dir, "neg.csv", "-5.09765625",
	    "neg.csv:2:39: column 'energy_per_token_j': must be > 0 and at most 4.32e+08 J (5000 W per GPU of "
	    "its tp 1 for a day, 86400 s, on one token), got '-5.09765625'");
	fit(dir, "huge.csv", "1e300", "huge.csv:2:39: column 'energy_per_token_j': must be > 0 and at most 4.32e+08 J");
	fit(dir, "good.csv", "5.09765625", NULL);

	/* ML.ENERGY's energy_per_token_joules: refused at the source's line */
	char *src = path_join(dir, "me.csv"), *out = path_join(dir, "me_runs.csv");
	CHECK_INT(write_text(src, "task,model_id,architecture,total_params_billions,activated_params_billions,"
	                          "weight_precision,gpu_model,num_gpus,max_num_seqs,avg_batch_size,avg_output_len,"
	                          "avg_power_watts,energy_per_token_joules,output_throughput_tokens_per_sec\n"
	                          "chat,m0,Dense,8,8,bfloat16,H100,1,8,7.9,800,500,1.0,300\n"
	                          "chat,m1,Dense,8,8,bfloat16,H100,1,16,7.9,800,500,-1.0,300\n"),
	          0);
	const char *imp[] = { "wattcast", "import", "mlenergy", src, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast(imp, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "me.csv:3: run ");
	CHECK_CONTAINS(r.err, "energy_per_token_j: must be > 0 and at most 4.32e+08 J");
	run_result_free(&r);
	free(src);
	free(out);
	free(dir);
	return check_report("test_cli_energy_per_token_bounds");
}

/*
 * `fit intervals` (mean power) reads a raw ML.ENERGY configuration table as
 * every command taking one runs table does, imported as `wattcast import
 * mlenergy` imports it (docs/cli.md): it was refused
 * "configurations_text.csv:1:1: missing required column 'run_id'" while
 * --quantity capacity and validate lomo/heldout/forms/fewshot accepted it.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_raw");
	char *raw = path_join(dir, "configurations_text.csv"), *out = path_join(dir, "i.json");
	/* 24 runs: a 95 % quantile needs at least 19 held-out predictions */
	char text[4096] = "task,model_id,architecture,total_params_billions,activated_params_billions,"
	                  "weight_precision,gpu_model,num_gpus,avg_batch_size,avg_power_watts,avg_output_len,"
	                  "energy_per_token_joules,output_throughput_tokens_per_sec\n";
	for (int i = 0; i < 24; i++) {
		size_t len = strlen(text);
		snprintf(text + len, sizeof text - len, "chat,org/M%d,Dense,%d,%d,bfloat16,H100,1,%d.5,%d,600,0.4,%d\n", i,
		         4 + i, 4 + i, 8 + 4 * i, 420 + 10 * i, 2000 - 40 * i);
	}
	CHECK_INT(write_text(raw, text), 0);
	const char *argv[] = { "wattcast", "fit", "intervals", raw, "--profile", "measured", "--folds", "frozen",
		               "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "run_id"));
	if (r.status != 0)
		fprintf(stderr, "stderr: %s\n", r.err ? r.err : "");
	CHECK_CONTAINS(r.out, "(pooled)");
	run_result_free(&r);
	FILE *written = fopen(out, "r");
	CHECK(written != NULL);
	if (written)
		fclose(written);
	free(raw);
	free(out);
	free(dir);
	return check_report("test_cli_intervals_raw");
}

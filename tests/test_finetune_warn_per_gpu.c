/*
 * `predict finetune`'s extrapolation warnings that concern the law's own
 * coordinates (docs/finetune.md, "Predicting"):
 *   - FLOPs per step are compared per GPU: a law calibrated on one 8-GPU
 *     run, asked the same job on 1 or 64 GPUs (F scaled by G, the same per
 *     GPU), has only the gpus warning; twice the micro-batch on 8 GPUs is
 *     outside, said per GPU with numbers rounded, not 815.7693990666238;
 *   - a relation's sweep ran on the law's platform: another platform is
 *     not on it (on_sweep false, no difference), the law's own is.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* One ingested 8-GPU run (docs/formats/finetune-runs.md), for calibrate. */
static const char RUNS[] =
	"run_id,platform,gpus,model,params_b,layers,d_model,method,lora_rank,micro_batch,seq_len,grad_accum,"
	"checkpointing,energy_per_step_j,step_s,step_source,energy_per_token_j,flops_per_step_tflop,steps\n"
	"runA,H100,8,meta-llama/Llama-3.1-8B,8.03,32,4096,full,,4,2048,2,false,8285.65,2.0,step_log,0.0632145,"
	"6526.16,230\n";

/* The answer of `predict finetune --json` with `argv` (new reference). */
static json_t *
answer(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *a = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(a != NULL);
	run_result_free(&r);
	return a;
}

/* The warning starting `field`, or NULL. */
static const char *
warning(json_t *a, const char *field)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(a, "warnings"), i, w) if (strncmp(json_string_value(w), field,
	                                                                      strlen(field)) == 0) return json_string_value(w);
	return NULL;
}

static void
flops_per_gpu(const char *dir)
{
	char *runs = test_fixture(dir, "runs.csv", RUNS), *cal = path_join(dir, "cal.json");
	const char *calib[] = { "wattcast", "calibrate", "finetune", runs, "-o", cal, NULL };
	test_run_ok(calib);
	const char *gpus[] = { "1", "64" };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "predict", "finetune", "--params", cal, "--method", "full", "--model",
		                       "Llama-3.1-8B", "--micro-batch", "4", "--seq-len", "2048", "--grad-accum", "2",
		                       "--gpus", gpus[i], "--json", NULL };
		json_t *a = answer(argv);
		CHECK(warning(a, "gpus:") != NULL);
		const char *w = warning(a, "flops_per_step_tflop:");
		if (w)
			fprintf(stderr, "%s GPUs: %s\n", gpus[i], w);
		CHECK(w == NULL);
		json_decref(a);
	}
	const char *argv[] = { "wattcast", "predict", "finetune", "--params", cal, "--method", "full", "--model",
	                       "Llama-3.1-8B", "--micro-batch", "8", "--seq-len", "2048", "--grad-accum", "2",
	                       "--gpus", "8", "--json", NULL };
	json_t *a = answer(argv);
	const char *w = warning(a, "flops_per_step_tflop:");
	CHECK(w != NULL);
	if (w) {
		CHECK_CONTAINS(w, "TFLOP per GPU");
		CHECK_CONTAINS(w, "815.8-815.8 TFLOP per GPU");
		CHECK(strstr(w, "815.769") == NULL);
	}
	json_decref(a);
	free(runs);
	free(cal);
}

static void
platform_off_sweep(const char *dir)
{
	char *runs = path_join(dir, "ft.csv"), *law = path_join(dir, "ft.json");
	const char *sim[] = { "wattcast", "simulate", "finetune", "--seed", "3", "-o", runs, NULL };
	test_run_ok(sim);
	const char *fit[] = { "wattcast", "fit", "finetune", runs, "-o", law, NULL };
	test_run_ok(fit);
	const char *platforms[] = { "H200", "H100" };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "predict", "finetune", "--params", law, "--method", "qlora", "--model",
		                       "Qwen3-4B", "--micro-batch", "8", "--seq-len", "2048", "--grad-accum", "4",
		                       "--lora-rank", "64", "--platform", platforms[i], "--json", NULL };
		json_t *a = answer(argv);
		json_t *seq = json_object_get(json_object_get(a, "relations"), "sequence_length");
		/* the simulated sweeps ran on H200, the law's platform */
		CHECK(i == 0 ? json_is_true(json_object_get(seq, "on_sweep")) : json_is_false(json_object_get(seq, "on_sweep")));
		CHECK(i == 0 ? json_is_number(json_object_get(seq, "difference_pct"))
		             : json_is_null(json_object_get(seq, "difference_pct")));
		json_decref(a);
	}
	free(runs);
	free(law);
}

int
main(void)
{
	char *dir = test_tmpdir("finetune_warn_per_gpu");
	flops_per_gpu(dir);
	platform_off_sweep(dir);
	free(dir);
	return check_report("test_finetune_warn_per_gpu");
}

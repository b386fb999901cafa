/*
 * What a fine-tuning question can ask (docs/finetune.md, "Inputs of one
 * job" and "Predicting"): the memory a job holds scales with a
 * mixture-of-experts model's total parameters, not its active ones; a
 * token count above what one step holds is refused naming the flag (exit
 * 2) or the request's field (422).
 */
#include "data/data.h"
#include "server/server_internal.h"
#include "tests/support/support.h"

#include <stdlib.h>

static run_result
run(const char *const *argv, int status)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	if (r.status != status)
		fprintf(stderr, "%s\n%s\n", r.out, r.err);
	return r;
}

/* Qwen3-235B-A22B trains all 235 B parameters: about 940 GB of bf16
 * weights and gradients, not the 88 GB of its 22 B active. */
static void
moe_memory(void)
{
	const char *moe[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-235B-A22B",
	                      "--micro-batch", "1", "--seq-len", "2048", "--platform", "H100", NULL };
	run_result r = run(moe, 0);
	CHECK_CONTAINS(r.out, "memory: full fine-tuning of 235 B parameters (Qwen3-235B-A22B, 22 B active) holds at "
	                      "least 940 GB (4 bytes per parameter), more than the 80 GB of 1 x H100");
	run_result_free(&r);
	/* a dense model is its own total: tests/test_cli_finetune.c, memory() */
	/* 32 GB of QLoRA weights fit on 8 H100 */
	const char *fits[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--lora-rank", "16", "--model",
	                       "Qwen3-235B-A22B", "--micro-batch", "1", "--seq-len", "2048", "--platform", "H100",
	                       "--gpus", "8", NULL };
	r = run(fits, 0);
	CHECK(strstr(r.out, "memory:") == NULL);
	run_result_free(&r);
}

static void
tokens_cli(void)
{
	const char *many[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B",
	                       "--micro-batch", "1", "--seq-len", "2048", "--tokens-per-step", "1e9", NULL };
	run_result r = run(many, 2);
	CHECK_CONTAINS(r.err, "--tokens-per-step: 1000000000 tokens are more than one step holds: micro_batch 1 x "
	                      "seq_len 2048 x grad_accum 1 x 1 data-parallel replica = 2048");
	run_result_free(&r);
	/* derived, the tokens per step are held to the bound a given count
	 * has (6.6e28 was answered as 1e41 kWh) */
	const char *derived[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B",
		                  "--micro-batch", "100000000", "--seq-len", "100000000", "--grad-accum",
		                  "100000000", NULL };
	r = run(derived, 2);
	CHECK_CONTAINS(r.err, "--micro-batch: micro_batch 100000000 x seq_len 100000000 x grad_accum 100000000 x 1 "
	                      "data-parallel replica = 1e+24 tokens per step, over 1e+15");
	run_result_free(&r);
	/* a sequence past the catalog model's context is warned */
	const char *longseq[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Llama-3.1-8B",
		                  "--micro-batch", "1", "--seq-len", "1000000", NULL };
	r = run(longseq, 0);
	CHECK_CONTAINS(r.out, "seq_len: 1000000 tokens exceed Llama-3.1-8B's context of 131072 tokens");
	run_result_free(&r);
	const char *packed[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B",
	                         "--micro-batch", "2", "--seq-len", "2048", "--grad-accum", "4", "--gpus", "8",
	                         "--tokens-per-step", "131072", NULL };
	r = run(packed, 0);
	run_result_free(&r);
	/* a platform nothing knows is a typo (it was answered with a
	 * warning, the same joules as any GPU); a catalog alias answers */
	const char *typo[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B",
		               "--micro-batch", "1", "--seq-len", "1024", "--platform", "FooGPU", NULL };
	r = run(typo, 2);
	CHECK_CONTAINS(r.err, "--platform: unknown platform 'FooGPU' (known: ");
	CHECK_CONTAINS(r.err, "H100");
	CHECK_CONTAINS(r.err, "A10G");
	run_result_free(&r);
	const char *alias[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B",
		                "--micro-batch", "1", "--seq-len", "1024", "--platform", "h100", NULL };
	r = run(alias, 0);
	CHECK_CONTAINS(r.out, "on 1 x H100");
	run_result_free(&r);
}

/* The request's handler, without the HTTP around it. */
static void
tokens_http(void)
{
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *sets[1] = { &paper };
	const char *sources[1] = { "profile:paper" };
	wc_profiles *pf = NULL;
	wc_error err;
	wc_params_default(&paper);
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	json_t *item = json_loads("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":1,\"seq_len\":2048,"
	                          "\"tokens_per_step\":1e9}", 0, NULL);
	wc_api_error e;
	memset(&e, 0, sizeof e);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/tokens_per_step") == 0);
	CHECK_CONTAINS(e.message, "tokens_per_step: 1000000000 tokens are more than one step holds: micro_batch 1 x "
	                          "seq_len 2048 x grad_accum 1 x 1 data-parallel replica = 2048");
	json_decref(answer);
	json_decref(item);
	item = json_loads("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":100000000,"
	                  "\"seq_len\":100000000,\"grad_accum\":100000000,\"gpus\":65536}", 0, NULL);
	answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/micro_batch") == 0);
	CHECK_CONTAINS(e.message, "x 65536 data-parallel replicas = 6.554e+28 tokens per step, over 1e+15");
	json_decref(answer);
	json_decref(item);
	item = json_loads("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":1,\"seq_len\":2048,"
	                  "\"tokens_per_step\":2048}", 0, NULL);
	answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer != NULL);
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&paper);
}

/* A law calibrated on a GPU the datasheet catalog does not know answers
 * --platform naming it (it answered without --platform "on ... x
 * RTX-PRO-6000" and refused the same name with it), with no platform
 * warning; a typo is refused listing every name accepted, the law's own
 * first, on the CLI and over HTTP (docs/finetune.md, "Predicting"). */
static void
own_platform(void)
{
	wc_params law = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&law);
	snprintf(law.finetune.platform, sizeof law.finetune.platform, "%s", "RTX-PRO-6000");
	char *dir = test_tmpdir("finetune_platform"), *path = path_join(dir, "rtx-law.json");
	CHECK_INT(wc_params_save_file(path, &law, &err), WC_OK);
	const char *own[] = { "wattcast", "predict", "finetune", "--params", path, "--method", "qlora", "--model",
		              "Qwen3-8B", "--lora-rank", "16", "--micro-batch", "1", "--seq-len", "1024",
		              "--platform", "RTX-PRO-6000", NULL };
	run_result r = run(own, 0);
	CHECK_CONTAINS(r.out, "on 1 x RTX-PRO-6000");
	CHECK(!strstr(r.out, "platform:") && !strstr(r.err, "platform:"));
	run_result_free(&r);
	own[16] = "RTX-PRO-6001";
	r = run(own, 2);
	CHECK_CONTAINS(r.err, "--platform: unknown platform 'RTX-PRO-6001' (known: RTX-PRO-6000, ");
	CHECK_CONTAINS(r.err, "H100");
	CHECK(strlen(r.err) <= 255 + strlen("wattcast predict finetune: \n"));
	run_result_free(&r);
	const wc_params *sets[1] = { &law };
	const char *sources[1] = { "rtx-law.json" };
	wc_profiles *pf = NULL;
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	wc_api_error e;
	memset(&e, 0, sizeof e);
	json_t *item = json_loads("{\"method\":\"qlora\",\"model\":\"Qwen3-8B\",\"lora_rank\":16,\"micro_batch\":1,"
	                          "\"seq_len\":1024,\"platform\":\"RTX-PRO-6000\"}", 0, NULL);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer != NULL);
	json_decref(answer);
	json_decref(item);
	item = json_loads("{\"method\":\"qlora\",\"model\":\"Qwen3-8B\",\"lora_rank\":16,\"micro_batch\":1,"
	                  "\"seq_len\":1024,\"platform\":\"RTX-PRO-6001\"}", 0, NULL);
	answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/platform") == 0);
	CHECK_CONTAINS(e.message, "(known: RTX-PRO-6000, ");
	CHECK_CONTAINS(e.message, "A10G");
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	/* A law of two platforms: without --platform it answers under both,
	 * said as such -- not "H100+A100 differs from the calibration's
	 * H100+A100" -- and the same name given is accepted, not refused. */
	snprintf(law.finetune.platform, sizeof law.finetune.platform, "%s", "H100+A100");
	CHECK_INT(wc_params_save_file(path, &law, &err), WC_OK);
	own[15] = NULL;
	r = run(own, 0);
	CHECK_CONTAINS(r.out, "on 1 x H100+A100");
	CHECK_CONTAINS(r.out, "platform: the law was fitted on runs of several platforms (H100+A100), and this answer "
	                      "is for none of them in particular");
	CHECK(!strstr(r.out, "differs from"));
	run_result_free(&r);
	own[15] = "--platform";
	own[16] = "H100+A100";
	r = run(own, 0);
	CHECK_CONTAINS(r.out, "platform: the law was fitted on runs of several platforms");
	run_result_free(&r);
	own[16] = "A100";
	r = run(own, 0);
	CHECK(!strstr(r.out, "platform:"));
	run_result_free(&r);
	/* over HTTP the advice names no CLI flag (docs/http-api.md) */
	const wc_params *sets2[1] = { &law };
	CHECK_INT(wc_profiles_new(1, sets2, sources, &pf, &err), WC_OK);
	item = json_loads("{\"method\":\"qlora\",\"model\":\"Qwen3-8B\",\"lora_rank\":16,\"micro_batch\":1,"
	                  "\"seq_len\":1024}", 0, NULL);
	answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	char *text = answer ? json_dumps(answer, 0) : NULL;
	CHECK(text && strstr(text, "name one of them as the platform") && !strstr(text, "--platform"));
	free(text);
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&law);
	free(path);
	free(dir);
}

/* Optimizer steps are whole and at most 1e15, refused the same way
 * however they are wrong (exit 2 naming --steps; 422 naming /steps); a
 * small job's kWh and a tiny step's FLOPs print with significant digits,
 * not "0.000 kWh" and "0.0 TFLOP" (docs/cli.md, predict finetune). */
static void
steps_limits(void)
{
	const char *argv[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--model", "Qwen3-0.6B",
		               "--lora-rank", "64", "--micro-batch", "1", "--seq-len", "16", "--steps", "1e300", NULL };
	run_result r = run(argv, 2);
	CHECK_CONTAINS(r.err, "--steps: must be a whole number of optimizer steps from 0 to 1e+15, got 1e+300");
	run_result_free(&r);
	argv[14] = "2.5";
	r = run(argv, 2);
	CHECK_CONTAINS(r.err, "--steps: must be a whole number of optimizer steps from 0 to 1e+15, got 2.5");
	run_result_free(&r);
	argv[14] = "-1";
	r = run(argv, 2);
	CHECK_CONTAINS(r.err, "--steps: ");
	run_result_free(&r);
	argv[14] = "2";
	r = run(argv, 0);
	CHECK_CONTAINS(r.out, "energy, 2 steps");
	CHECK(!strstr(r.out, " 0.000 kWh") && !strstr(r.out, " 0.0 TFLOP"));
	CHECK_CONTAINS(r.out, "FLOPs per step         0.04");
	/* ... and a step that is all G e0 says so */
	CHECK_CONTAINS(r.out, "warning: e0: the fixed per-step energy G e0 (2176.3 J) is 100.0 % of the step's");
	run_result_free(&r);
	argv[6] = "Qwen3-8B";
	argv[10] = "8";
	argv[12] = "1024";
	r = run(argv, 0);
	CHECK(strstr(r.out, "warning: e0:") == NULL);
	run_result_free(&r);
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *sets[1] = { &paper };
	const char *sources[1] = { "profile:paper" };
	wc_profiles *pf = NULL;
	wc_error err;
	wc_params_default(&paper);
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	json_t *item = json_loads("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":1,\"seq_len\":2048,"
	                          "\"steps\":2.5}", 0, NULL);
	wc_api_error e;
	memset(&e, 0, sizeof e);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/steps") == 0);
	CHECK_CONTAINS(e.message, "steps: must be a whole number of optimizer steps");
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&paper);
}

/* Intervals from fewer than 40 draws carry predict inference's caveat
 * (docs/intervals.md); predict finetune had none. */
static void
few_draws(void)
{
	wc_params law = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&law);
	char names[2][WC_LABEL_MAX] = { "e0", "kappa" };
	double v[8] = { 2100.0, 4.5, 2250.0, 4.6, 2180.0, 4.4, 2200.0, 4.55 };
	CHECK_INT(wc_draws_set(&law.finetune.draws, 4, 2, (const char (*)[WC_LABEL_MAX])names, v, &err), WC_OK);
	char *dir = test_tmpdir("finetune_few_draws"), *path = path_join(dir, "four.json");
	CHECK_INT(wc_params_save_file(path, &law, &err), WC_OK);
	const char *argv[] = { "wattcast", "predict", "finetune", "--params", path, "--method", "full", "--model",
		               "Qwen3-8B", "--micro-batch", "1", "--seq-len", "2048", "--platform", "H100", NULL };
	run_result r = run(argv, 0);
	CHECK_CONTAINS(r.out, "(4 draws; ");
	CHECK_CONTAINS(r.out, "warning: interval_95: 4 bootstrap draws, fewer than 40: the 2.5 % tails hold no draw "
	                      "of their own");
	run_result_free(&r);
	wc_params_clear(&law);
	free(path);
	free(dir);
}

/* The answer of the paper profile to `body` over HTTP; NULL with `e` set
 * when refused. */
static json_t *
http_answer(const char *body, wc_api_error *e)
{
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *sets[1] = { &paper };
	const char *sources[1] = { "profile:paper" };
	wc_profiles *pf = NULL;
	wc_error err;
	wc_params_default(&paper);
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	json_t *item = json_loads(body, 0, NULL), *answer = NULL;
	memset(e, 0, sizeof *e);
	answer = pf && item ? wc_finetune_answer(item, pf, e) : NULL;
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&paper);
	return answer;
}

/* A shape whose attention projections alone hold more than the model's
 * parameters (d_model 40960 for 4096) left the MLP a negative width,
 * clamped to 0 without a word; refused naming d_model (docs/finetune.md,
 * "The adapters"). A precision suffix is said to be ignored; full
 * fine-tuning of an int4 checkpoint is refused naming model ("Inputs of
 * one job"). CLI and HTTP alike. */
static void
shape_and_precision(void)
{
	const char *typo[] = { "wattcast", "predict", "finetune", "--method", "lora", "--active-params", "8",
	                       "--layers", "32", "--d-model", "40960", "--micro-batch", "8", "--seq-len", "1024",
	                       "--lora-rank", "16", "--platform", "H100", NULL };
	run_result r = run(typo, 2);
	CHECK_CONTAINS(r.err, "--d-model: 32 layers of width 40960 hold 214.7 B parameters in their attention "
	                      "projections alone, more than the model's 8 B");
	run_result_free(&r);
	typo[10] = "4096";
	r = run(typo, 0);
	run_result_free(&r);
	wc_api_error e;
	json_t *a = http_answer("{\"method\":\"qlora\",\"lora_rank\":64,\"active_params_b\":1e-300,\"layers\":100,"
	                        "\"d_model\":1000,\"micro_batch\":8,\"seq_len\":1024}", &e);
	CHECK(a == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/d_model") == 0);
	json_decref(a);

	const char *fp8[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen3-8B-FP8",
	                      "--micro-batch", "8", "--seq-len", "1024", "--platform", "H100", NULL };
	r = run(fp8, 0);
	CHECK_CONTAINS(r.out, "model: 'Qwen3-8B-FP8' names fp8 weights; the suffix is ignored: fine-tuning is "
	                      "predicted for the bf16 model (Qwen3-8B)");
	run_result_free(&r);
	const char *awq[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Qwen/Qwen3-8B-AWQ",
	                      "--micro-batch", "8", "--seq-len", "1024", "--platform", "H100", NULL };
	r = run(awq, 2);
	CHECK_CONTAINS(r.err, "--model: 'Qwen/Qwen3-8B-AWQ' names int4 weights, which full fine-tuning cannot train");
	run_result_free(&r);
	const char *qlora[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--lora-rank", "16", "--model",
	                        "Qwen/Qwen3-8B-AWQ", "--micro-batch", "8", "--seq-len", "1024", "--platform", "H100",
	                        NULL };
	r = run(qlora, 0);
	CHECK_CONTAINS(r.out, "names int4 weights; the suffix is ignored");
	run_result_free(&r);
	a = http_answer("{\"method\":\"full\",\"model\":\"Qwen3-8B-AWQ\",\"micro_batch\":8,\"seq_len\":1024}", &e);
	CHECK(a == NULL);
	CHECK_INT(e.status, 422);
	CHECK(strcmp(e.field, "/model") == 0);
	json_decref(a);
	a = http_answer("{\"method\":\"full\",\"model\":\"Qwen3-8B-FP8\",\"micro_batch\":8,\"seq_len\":1024}", &e);
	CHECK(a != NULL);
	char *w = a ? json_dumps(json_object_get(a, "warnings"), 0) : NULL;
	CHECK(w && strstr(w, "fp8 weights; the suffix is ignored"));
	free(w);
	json_decref(a);
}

int
main(void)
{
	few_draws();
	moe_memory();
	tokens_cli();
	tokens_http();
	own_platform();
	steps_limits();
	shape_and_precision();
	return check_report("test_finetune_predict_limits");
}

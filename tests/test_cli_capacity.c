/*
 * The capacity commands end to end: `predict inference` with token
 * lengths (JSON block, cost and CO2), its refusals (exit 2, one line
 * naming the flag, the numbers for a model that does not fit), `fit
 * capacity` on the published periods (keeps the power law, writes the
 * section), `validate capacity` (leave-one-out periods, --per-run; the
 * Huber-weighted fit by default, --plain for least squares) and
 * `fit request-energy`; a level on one row says its own parameters are
 * not identified, with no interval.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define ARGS(...) ((const char *const[]){ "wattcast", __VA_ARGS__, NULL })

/* Expert parallel holds the weights once, as tensor parallel: vLLM with
 * data_parallel 1 keeps the shared layers sharded (docs/capacity.md,
 * "Memory as vLLM does it"). ML.ENERGY ran these on 8 GPUs with
 * expert_parallel 8, data_parallel 1: Qwen3-235B-A22B-Instruct-2507 on
 * H100 228.5 running at max_num_seqs 256 (~874 output tokens), its
 * Thinking variant 32.0 at ~8955, DeepSeek-V3.1 on B200 256.0 at ~8969.
 * Charging G copies of the shared part said 111, 13 and 231 fit. */
static void
expert_parallel_memory(void)
{
	static const struct {
		const char *platform, *model, *concurrency, *in, *out;
		double ran;
	} runs[] = {
		{ "H100", "Qwen/Qwen3-235B-A22B-Instruct-2507", "256", "100", "874", 228.5 },
		{ "H100", "Qwen/Qwen3-235B-A22B-Thinking-2507", "32", "1", "8955", 32.0 },
		{ "B200", "deepseek-ai/DeepSeek-V3.1", "256", "1", "8968", 256.0 },
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		double fit[2], need[2];
		for (int ep = 0; ep < 2; ep++) {
			run_result r;
			const char *const *args =
			        ep ? ARGS("predict", "inference", "--platform", runs[i].platform, "--model", runs[i].model,
			                  "--tp", "8", "--concurrency", runs[i].concurrency, "--input-tokens", runs[i].in,
			                  "--output-tokens", runs[i].out, "--json", "--expert-parallel")
			           : ARGS("predict", "inference", "--platform", runs[i].platform, "--model", runs[i].model,
			                  "--tp", "8", "--concurrency", runs[i].concurrency, "--input-tokens", runs[i].in,
			                  "--output-tokens", runs[i].out, "--json");
			CHECK(run_wattcast(args, NULL, &r) == 0);
			CHECK_INT(r.status, 0);
			json_t *o = json_loads(r.out, 0, NULL);
			fit[ep] = json_number_value(json_object_get(o, "max_concurrency_fit"));
			need[ep] = json_number_value(json_object_get(
			        json_object_get(json_object_get(o, "capacity"), "memory"), "need_gb"));
			json_decref(o);
			run_result_free(&r);
		}
		printf("  %s on 8 x %s, expert parallel: %g fit (tensor parallel %g), ML.ENERGY ran %g\n", runs[i].model,
		       runs[i].platform, fit[1], fit[0], runs[i].ran);
		CHECK(fit[1] >= runs[i].ran);
		CHECK_NEAR(fit[1], fit[0], 0);
		CHECK_NEAR(need[1], need[0], 1e-9 * need[0]);
	}
}

static void
predict(void)
{
	run_result r;
	CHECK(run_wattcast(ARGS("predict", "inference", "--platform", "H200", "--model", "Qwen3-14B", "--concurrency",
	                        "32", "--input-tokens", "300", "--output-tokens", "512", "--price-per-kwh", "0.1",
	                        "--grams-co2-per-kwh", "350", "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL), *c = json_object_get(o, "capacity");
	CHECK(json_is_object(c));
	CHECK(json_number_value(json_object_get(c, "latency_s")) > 1);
	CHECK(json_is_object(json_object_get(c, "cost")) && json_is_object(json_object_get(c, "co2_g")));
	CHECK(json_is_number(json_object_get(o, "max_concurrency_fit")));
	json_decref(o);
	run_result_free(&r);
	CHECK(run_wattcast(ARGS("predict", "inference", "--platform", "A100", "--model", "Qwen3-8B", "--rate", "1.5",
	                        "--input-tokens", "300", "--output-tokens", "200"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "open loop");
	CHECK_CONTAINS(r.out, "energy per output token");
	run_result_free(&r);

	/* --expert-parallel: every GPU reads an MoE model's shared weights */
	double lat[2];
	for (int ep = 0; ep < 2; ep++) {
		CHECK(run_wattcast(ep ? ARGS("predict", "inference", "--platform", "H100", "--tp", "8", "--model",
		                             "Qwen3-235B-A22B", "--concurrency", "16", "--input-tokens", "500",
		                             "--output-tokens", "500", "--json", "--expert-parallel")
		                      : ARGS("predict", "inference", "--platform", "H100", "--tp", "8", "--model",
		                             "Qwen3-235B-A22B", "--concurrency", "16", "--input-tokens", "500",
		                             "--output-tokens", "500", "--json"), NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		json_t *j = json_loads(r.out, 0, NULL);
		lat[ep] = json_number_value(json_object_get(json_object_get(j, "capacity"), "latency_s"));
		json_decref(j);
		run_result_free(&r);
	}
	CHECK(lat[0] > 0 && lat[1] > 1.01 * lat[0]);
	expert_parallel_memory();

	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Llama-3.1-405B", "--concurrency", "8"),
	            "--tp: the weights need 810.0 GB but 1 x H100 (85.5 GB each) hold 75.3 GB (10 % kept free, 1.64 GB/GPU workspace)");
	/* One request longer than the KV cache cannot run at all: refused.
	 * More requests than it holds are answered (fewer run). */
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "9",
	                 "--input-tokens", "420000", "--output-tokens", "1000"), "--input-tokens: 420000 + 1000 tokens exceed Qwen3-8B's context");
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8",
	                 "--input-tokens", "-5", "--output-tokens", "10"), "--input-tokens");
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--rate", "0",
	                 "--input-tokens", "5", "--output-tokens", "10"), "--rate");
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--active-params", "8", "--concurrency", "8",
	                 "--input-tokens", "5", "--output-tokens", "10"), "--model: the capacity answers need the architecture");
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8",
	                 "--input-tokens", "5"), "give both --input-tokens and --output-tokens");
	test_usage_error(ARGS("validate", "capacity", "x.csv", "--terms", "paired"),
	            "--terms: expected all, pooled, as-bf16 or none, got 'paired'");
	test_usage_error(ARGS("validate", "capacity", "x.csv", "--law-terms", "moe,dense"), "unknown term 'dense'");
	test_usage_error(ARGS("validate", "capacity", "x.csv", "--folds", "fold"),
	            "--folds: expected model or platform, got 'fold'");
}

/* Leave one platform out on the published periods: each platform's
 * periods from a fit on the others' through the datasheet transfer. H100
 * (4) and H200 (2) are predicted; A100's five are counted as skipped (the
 * fit on the six others cannot answer them); no runs table, no energy. */
static void
platform_folds(const char *periods)
{
	run_result r;
	CHECK(run_wattcast(ARGS("validate", "capacity", periods, "--folds", "platform", "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *lopo = json_object_get(o, "periods_lopo");
	CHECK(json_object_get(o, "periods_loo") == NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(lopo, "overall"), "n")), 6);
	CHECK_INT(json_integer_value(json_object_get(lopo, "skipped")), 5);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(lopo, "platforms"), "H100"), "n")), 4);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(lopo, "platforms"), "H200"), "n")), 2);
	CHECK(json_number_value(json_object_get(json_object_get(lopo, "overall"), "median_abs_err_pct")) > 0);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(o, "energy_per_token_lopo"), "overall"),
	                                             "n")), 0);
	/* every key a script reads is in docs/cli.md's `validate` table (the
	 * *_lopo three were not: a script from the docs met a KeyError) */
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		char quoted[64];
		snprintf(quoted, sizeof quoted, "`%s`", key);
		CHECK(v && test_doc_says("docs/cli.md", quoted));
	}
	json_decref(o);
	run_result_free(&r);
}

/* Median |error| of the periods' leave one out under the given flag
 * (NULL: none). */
static double
periods_loo(const char *periods, const char *flag)
{
	run_result r;
	double m = -1;
	CHECK(run_wattcast(flag ? ARGS("validate", "capacity", periods, "--json", flag)
	                        : ARGS("validate", "capacity", periods, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	json_t *loo = json_object_get(json_object_get(o, "periods_loo"), "overall");
	CHECK_INT(json_integer_value(json_object_get(loo, "n")), 11);
	if (loo)
		m = json_number_value(json_object_get(loo, "median_abs_err_pct"));
	json_decref(o);
	run_result_free(&r);
	return m;
}

/* The fit is Huber-weighted unless --plain asks for least squares, but
 * not on fewer than 2 observations per parameter: the 11 published
 * periods (9 parameters) are fitted plainly whatever the flag, and say
 * so, and score 6.78 % left out one at a time (docs/capacity.md,
 * "Robust fit"). */
static void
robust_default(const char *periods, const char *out)
{
	double def = periods_loo(periods, NULL), rob = periods_loo(periods, "--robust"),
	       plain = periods_loo(periods, "--plain");
	printf("  periods leave-one-out: default %.2f %%, --robust %.2f %%, --plain %.2f %%\n", def, rob, plain);
	CHECK(def == rob && def == plain);
	CHECK_NEAR(plain, 6.78, 0.01);
	run_result r;
	CHECK(run_wattcast(ARGS("fit", "capacity", periods, "-o", out, "--bootstrap", "0"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "11 observations for 9 parameters are too few for Huber's weights (fewer than 2");
	/* a parameter the rows do not move is said so, not given an "inf"
	 * standard error */
	CHECK(r.out && !strstr(r.out, "standard error of its log inf"));
	CHECK_CONTAINS(r.out, "eta[A100] is not identified by these rows (the fit's curvature along it is zero");
	/* its resampled interval was narrow under "expect a wide interval":
	 * it has none, and the table says why */
	CHECK_CONTAINS(r.out, "zero: no standard error); it has no interval, since resampling these rows, however "
	                      "narrow, does not say what it could be");
	/* the base's held-out errors of latency and energy per output token
	 * were measured on the capacity model this fit replaces: dropped,
	 * said, as `fit inference --prior` drops its prior's */
	CHECK_CONTAINS(r.err, "dropped the held-out error of latency_s, energy_per_output_token_j");
	CHECK_CONTAINS(r.err, "fit intervals --quantity capacity");
	wc_params fitted = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_file(out, &fitted, NULL), WC_OK);
	CHECK(!fitted.quantity_error[WC_PEQ_LATENCY].present && !fitted.quantity_error[WC_PEQ_ENERGY_TOKEN].present);
	CHECK(fitted.pred_error.present); /* the power law's is the base's own */
	wc_params_clear(&fitted);
	run_result_free(&r);
	CHECK(run_wattcast(ARGS("fit", "capacity", periods, "-o", out, "--bootstrap", "0", "--plain"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "too few for Huber's weights"));
	run_result_free(&r);
	/* --calibrated-on is recorded whole, up to the 159 characters the
	 * field holds; a longer one is refused, not cut to another name */
	char on[161];
	memset(on, 'x', 160);
	on[160] = '\0';
	test_usage_error(ARGS("fit", "capacity", periods, "-o", out, "--bootstrap", "0", "--calibrated-on", on),
	                 "--calibrated-on: 160 bytes, more than the 159 capacity.provenance.calibrated_on holds");
	on[159] = '\0';
	CHECK(run_wattcast(ARGS("fit", "capacity", periods, "-o", out, "--bootstrap", "0", "--calibrated-on", on),
	                   NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	CHECK_INT(wc_params_load_file(out, &fitted, NULL), WC_OK);
	CHECK(strcmp(fitted.capacity.calibrated_on, on) == 0);
	wc_params_clear(&fitted);
	/* its help says what it does; --json belongs to fit request-energy */
	CHECK(run_wattcast(ARGS("fit", "capacity", "--help"), NULL, &r) == 0);
	CHECK_CONTAINS(r.out, "--calibrated-on TEXT is recorded as the capacity section's");
	run_result_free(&r);
	test_usage_error(ARGS("fit", "capacity", periods, "-o", out, "--json"), "unknown flag '--json'");
}

/* A row the capacity model cannot describe (a model without architecture
 * facts) is scored by no fold, and the command names it rather than
 * leaving the counts short without a word (docs/validation.md, "Capacity"). */
static void
unscored_rows(const char *periods, const char *dir)
{
	char *text = test_slurp(periods), *path = path_join(dir, "unknown-model.csv");
	char *row = text ? strstr(text, "A100,Qwen3-14B,1,32,") : NULL;
	CHECK(row != NULL);
	if (!row) {
		free(text);
		free(path);
		return;
	}
	memcpy(row + 5, "Falcon-40", 9); /* "Qwen3-14B" -> "Falcon-40" */
	CHECK_INT(write_text(path, text), 0);
	run_result r;
	CHECK(run_wattcast(ARGS("validate", "capacity", path, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL), *u = json_object_get(o, "unscored");
	CHECK_INT(json_integer_value(json_object_get(u, "rows")), 1);
	CHECK_INT((int)json_array_size(json_object_get(u, "reasons")), 1);
	const char *why = json_string_value(json_array_get(json_object_get(u, "reasons"), 0));
	CHECK(why && strstr(why, "model 'Falcon-40' is not in the catalog (no architecture)"));
	CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(o, "periods_loo"), "overall"), "n")),
	          10);
	json_decref(o);
	run_result_free(&r);
	CHECK(run_wattcast(ARGS("validate", "capacity", path), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "validate capacity: 1 table row(s) not scored");
	CHECK_CONTAINS(r.err, "warning: ");
	CHECK_CONTAINS(r.err, "model 'Falcon-40' is not in the catalog");
	run_result_free(&r);
	free(text);
	free(path);
}

static void
fit_and_validate(void)
{
	const char *src = test_env("WC_SOURCE_DIR", ".");
	char *periods = path_join(src, "data/default/published-periods.csv");
	char *dir = test_tmpdir("cli_capacity"), *out = path_join(dir, "cap.json"), *per = path_join(dir, "per_run.csv");
	run_result r;
	CHECK(run_wattcast(ARGS("fit", "capacity", periods, "-o", out, "--bootstrap", "50", "--seed", "3"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "etac");
	CHECK_CONTAINS(r.out, "t1: every row has the same running count; fixed at 0");
	run_result_free(&r);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	CHECK(p.capacity.present && p.capacity.draws.n == 50 && p.capacity.n_levels == 3);
	CHECK_NEAR(p.levels[0].theta.value, 1.99, 0); /* the power law of the base profile is kept */
	wc_params_clear(&p);
	CHECK(run_wattcast(ARGS("validate", "capacity", periods, "--per-run", per, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL);
	json_t *loo = json_object_get(json_object_get(o, "periods_loo"), "overall");
	CHECK_INT(json_integer_value(json_object_get(loo, "n")), 11);
	printf("  periods leave-one-out: median |error| %.2f %%\n",
	       json_number_value(json_object_get(loo, "median_abs_err_pct")));
	CHECK(json_number_value(json_object_get(loo, "median_abs_err_pct")) < 10);
	json_decref(o);
	run_result_free(&r);
	/* 11 periods are too few for a 95 % quantile: the text says why its
	 * coverage columns are "–" */
	CHECK(run_wattcast(ARGS("validate", "capacity", periods), NULL, &r) == 0);
	CHECK_CONTAINS(r.out, "note: 11 of 11 run(s) have no 95 % interval: the other folds");
	run_result_free(&r);
	char *text = NULL;
	size_t len;
	CHECK_INT(wc_read_file(per, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, ",period_s,");
	free(text);
	test_usage_error(ARGS("fit", "capacity", periods, "-o", out, "--per-level", "eta,zeta"), "--per-level: unknown");
	/* an empty item was skipped, "eta,,t0" read as "eta,t0" */
	test_usage_error(ARGS("validate", "capacity", periods, "--per-level", "eta,,t0"), "--per-level: empty item in");
	test_usage_error(ARGS("fit", "capacity", periods, "-o", out, "--per-level", ","), "--per-level: empty item in");
	robust_default(periods, out);
	platform_folds(periods);
	unscored_rows(periods, dir);
	free(periods);
	free(out);
	free(per);
	free(dir);
}

static void
request_energy(void)
{
	char *dir = test_tmpdir("cli_request_energy"), *runs = path_join(dir, "runs.csv");
	/* E(N) = 80 + 9.6 N J for 16 requests of 512 tokens, as energy per token */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
	                           "output_tokens,energy_per_token_j\n"
	                           "a,H200,1,Llama-3.1-8B,8.03,16,400,512,10,1.1\n"
	                           "b,H200,1,Llama-3.1-8B,8.03,16,400,512,128,0.639063\n"
	                           "c,H200,1,Llama-3.1-8B,8.03,16,400,512,512,0.609766\n"), 0);
	run_result r;
	CHECK(run_wattcast(ARGS("fit", "request-energy", runs, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL), *g = json_array_get(o, 0);
	CHECK_NEAR(json_number_value(json_object_get(g, "e_fixed_j")), 80, 0.1);
	CHECK_NEAR(json_number_value(json_object_get(g, "e_step_per_request_mj")), 600, 0.1);
	CHECK_INT(json_array_size(json_object_get(g, "points")), 3);
	CHECK(strcmp(json_string_value(json_object_get(g, "platform")), "H200") == 0);
	json_decref(o);
	run_result_free(&r);
	/* Two boards at lengths 0.27 tokens apart are no sweep (they gave
	 * E_fixed = -61.7 MJ as one group), nor are rows without a context:
	 * nothing to fit, said. */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
	                           "output_tokens,energy_per_token_j\n"
	                           "a,B200,1,gpt-oss-120b,5.1,64,900,300,1738.54,0.05\n"
	                           "b,H100,1,gpt-oss-120b,5.1,64,600,300,1738.81,0.07\n"
	                           "c,H100,1,gpt-oss-120b,5.1,64,600,300,1740,0.07\n"
	                           "d,H100,1,gpt-oss-120b,5.1,32,600,,100,0.2\n"
	                           "e,H100,1,gpt-oss-120b,5.1,32,600,,1000,0.1\n"), 0);
	CHECK(run_wattcast(ARGS("fit", "request-energy", runs), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no (model, platform, tp, running, input_tokens) group sweeps output_tokens");
	CHECK_CONTAINS(r.err, "rows without input_tokens have no context and are left out");
	run_result_free(&r);
	/* energy_j, which ingest writes on every row, is the whole window's
	 * energy (400 W x 1250 s), not one batch's: the fit is the same with it
	 * as without, E(N) = energy_per_token_j x running x N (it gave E_step
	 * 5000 J, 1250 x the 4 J of 8 requests at 0.5 J per token). */
	static const char window_rows[] =
		"run_id,platform,tp,model,running,mean_power_w,input_tokens,output_tokens,throughput_tok_s,"
		"energy_per_token_j,duration_s,energy_j\n"
		"a,H100,1,Qwen/Qwen3-8B,8,400,512,100,800,0.5,1250,500000\n"
		"b,H100,1,Qwen/Qwen3-8B,8,400,512,200,800,0.5,2500,1000000\n"
		"c,H100,1,Qwen/Qwen3-8B,8,400,512,400,800,0.5,5000,2000000\n";
	CHECK_INT(write_text(runs, window_rows), 0);
	CHECK(run_wattcast(ARGS("fit", "request-energy", runs, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	o = json_loads(r.out, 0, NULL);
	g = json_array_get(o, 0);
	CHECK_NEAR(json_number_value(json_object_get(g, "e_step_j")), 4.0, 1e-9);
	CHECK_NEAR(json_number_value(json_object_get(g, "e_fixed_j")), 0.0, 1e-6);
	CHECK_NEAR(json_number_value(json_object_get(g, "e_step_per_request_mj")), 500.0, 1e-6);
	CHECK_NEAR(json_number_value(json_object_get(json_array_get(json_object_get(g, "points"), 0), "energy_j")),
	           400.0, 1e-9);
	json_decref(o);
	run_result_free(&r);
	/* energy_j alone is no batch's energy: nothing to fit, said */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,running,mean_power_w,input_tokens,output_tokens,energy_j\n"
	                           "a,H100,1,Qwen/Qwen3-8B,8,400,512,100,500000\n"
	                           "b,H100,1,Qwen/Qwen3-8B,8,400,512,200,1000000\n"), 0);
	CHECK(run_wattcast(ARGS("fit", "request-energy", runs), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "with a measured energy_per_token_j; energy_j, a whole window's, is not one batch's");
	run_result_free(&r);
	/* E = -100 + 2 N: a negative fixed energy is said in JSON as in text */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
	                           "output_tokens,energy_per_token_j\n"
	                           "a,H100,1,Qwen3-8B,8.19,1,400,300,100,1.0\nb,H100,1,Qwen3-8B,8.19,1,400,300,200,1.5\n"), 0);
	CHECK(run_wattcast(ARGS("fit", "request-energy", runs, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"warning\": \"E_fixed is negative");
	run_result_free(&r);
	free(runs);
	free(dir);
}

/* `predict flexibility`: the table, and CSV and SVG files with the knee
 * marked; a sweep without token lengths is a usage error. */
static void
flexibility(void)
{
	char *dir = test_tmpdir("cli_flexibility"), *csv = path_join(dir, "flex.csv"), *svg = path_join(dir, "flex.svg");
	run_result r;
	const char *const argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B",
		                     "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256", "--steps",
		                     "8", "--csv", csv, "--svg", svg, NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "knee ");
	CHECK_CONTAINS(r.out, "energy-optimal clock");
	run_result_free(&r);
	char *text = NULL;
	size_t len = 0;
	CHECK_INT(wc_read_file(csv, 1 << 20, &text, &len, NULL), WC_OK);
	CHECK_CONTAINS(text, "sm_clock_mhz,power_cap_w,node_power_w,throughput_tok_s");
	int rows = 0, knees = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		rows++;
		/* the knee column, the tenth; the intervals follow, each step
		 * with its eight bounds (latency's too), then over_capacity */
		const char *c = l, *nl = strchr(l, '\n');
		int commas = 0;
		for (int k = 0; k < 9 && c && c < nl; k++)
			c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
		for (const char *x = l; nl && x < nl; x++)
			commas += *x == ',';
		knees += c && c < nl && strncmp(c, "1,", 2) == 0;
		CHECK_INT(commas, 19);
	}
	CHECK_INT(rows, 9);
	CHECK_INT(knees, 1);
	free(text);
	CHECK_INT(wc_read_file(svg, 1 << 20, &text, &len, NULL), WC_OK);
	CHECK_CONTAINS(text, "<svg");
	CHECK_CONTAINS(text, ">knee ");
	free(text);
	test_usage_error(ARGS("predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B", "--concurrency", "8"),
	            "needs --input-tokens and --output-tokens");
	/* a clock or cap given: the refusal names that flag (it said the same
	 * text about token lengths that were given) */
	test_usage_error(ARGS("predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B", "--concurrency", "8",
	                 "--input-tokens", "512", "--output-tokens", "256", "--sm-clock", "1000"),
	            "--sm-clock: the sweep sets the clock itself; leave it out");
	test_usage_error(ARGS("predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B", "--concurrency", "8",
	                 "--input-tokens", "512", "--output-tokens", "256", "--power-cap", "300"),
	            "--power-cap: the sweep sets the clock itself; leave it out");
	test_usage_error(ARGS("predict", "inference", "--platform", "H100", "--model", "Qwen3-14B", "--concurrency", "8",
	                 "--power-cap", "90"), "--power-cap: 90 W is at or below the idle power");
	/* an estimated idle power (B200's, 178.46428571428575 W) is quoted at
	 * the digits that compare it with the cap, not its shortest round trip */
	test_usage_error(ARGS("predict", "inference", "--platform", "B200", "--model", "Qwen3-8B", "--concurrency", "8",
	                 "--power-cap", "170"),
	            "--power-cap: 170 W is at or below the idle power of B200, 178.5 W per GPU: no clock settles");
	free(csv);
	free(svg);
	free(dir);
}

/* A level on one row (PowerTrace-Sim's one H100 run beside six on A100):
 * its own eta and t0 are not identified (standard errors of their log
 * ~1e14) and were printed and written with intervals a few per cent wide,
 * under "expect a wide interval", with no word that the bootstrap only
 * resampled that row. */
static void
one_row_level(void)
{
	char *dir = test_tmpdir("cli_capacity_one_row");
	char *runs = test_fixture(dir, "runs.csv",
	                          "run_id,platform,tp,model,active_params_b,running,mean_power_w,input_tokens,"
	                          "output_tokens,throughput_tok_s,ttft_s,itl_s\n"
	                          "a1,A100,1,Qwen/Qwen3-8B,8.19,5.703,261.5,335.575,213.44,429.954,,\n"
	                          "a2,A100,1,Qwen/Qwen3-8B,8.19,6.049,275.7,335.575,213.44,452.028,,\n"
	                          "a3,A100,1,Qwen/Qwen3-8B,8.19,0.679,332.2,4605.25,99.25,60.485,0.32844,0.012626\n"
	                          "a4,A100,1,Qwen/Qwen3-8B,8.19,0.724,303.8,4435.33,118.667,67.455,0.33342,0.012628\n"
	                          "a5,A100,2,google/gemma-4-26B-A4B-it,4,7.569,421.6,354.85,194.23,578.58,,\n"
	                          "h1,H100,1,Qwen/Qwen3-8B,8.19,5.132,349.3,335.575,213.44,645.966,,\n"
	                          "a6,A100,1,Qwen/Qwen3-8B,8.19,8.075,251.4,335.575,213.44,570.291,,\n");
	char *out = path_join(dir, "cap.json");
	run_result r;
	CHECK(run_wattcast(ARGS("fit", "capacity", runs, "-o", out, "--bootstrap", "50", "--seed", "1"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "level H100: 1 row for its own eta[H100], t0[H100]: a bootstrap resamples that row alone");
	CHECK_CONTAINS(r.out, "eta[H100] is not identified by these rows");
	CHECK(r.out && !strstr(r.out, "eta[H100] is weakly identified"));
	const char *line = r.out ? strstr(r.out, "  eta[H100] ") : NULL, *rest = line ? line + 12 : NULL;
	CHECK(rest && strstr(rest, "not identified\n") == rest + strcspn(rest, "\n") - 14 &&
	      strcspn(rest, "[") > strcspn(rest, "\n"));
	run_result_free(&r);
	json_t *o = json_load_file(out, 0, NULL);
	json_t *levels = json_object_get(json_object_get(o, "capacity"), "levels");
	int seen = 0;
	for (size_t i = 0; i < json_array_size(levels); i++) {
		json_t *l = json_array_get(levels, i);
		if (strcmp(json_string_value(json_object_get(l, "name")), "H100") != 0)
			continue;
		seen = 1;
		CHECK(json_object_get(json_object_get(l, "eta"), "ci95") == NULL ||
		      json_is_null(json_object_get(json_object_get(l, "eta"), "ci95")));
		CHECK(json_object_get(json_object_get(l, "t0"), "ci95") == NULL ||
		      json_is_null(json_object_get(json_object_get(l, "t0"), "ci95")));
	}
	CHECK(seen);
	json_decref(o);
	free(out);
	free(runs);
	free(dir);
}

int
main(void)
{
	one_row_level();
	predict();
	flexibility();
	fit_and_validate();
	request_energy();
	return check_report("test_cli_capacity");
}

/*
 * `wattcast predict inference` end to end: the published anchors through
 * --json, and every usage error exits 2 with one line naming the flag.
 */
#include "models/catalog.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static double
predicted(const char *platform, const char *active)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", platform,
	                       "--active-params", active, "--tp", "1", "--concurrency", "32",
	                       "--json", "--profile", "paper", NULL };
	run_result r;
	double v = NAN;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_error_t jerr;
	json_t *o = json_loads(r.out, 0, &jerr);
	CHECK(o != NULL);
	if (o) {
		v = json_number_value(json_object_get(o, "node_power_w"));
		CHECK(json_is_number(json_object_get(o, "per_gpu_power_w")));
		CHECK(json_is_number(json_object_get(o, "idle_power_w")));
		CHECK(json_is_array(json_object_get(o, "warnings")));
		CHECK_INT(json_array_size(json_object_get(o, "warnings")), 0);
		json_decref(o);
	}
	run_result_free(&r);
	return v;
}

/* The answer's throughput and latency for `argv` (--json). */
static void
capacity_of(const char *const *argv, double *tps, double *lat)
{
	run_result r;
	*tps = *lat = NAN;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL);
	CHECK(o != NULL);
	if (o) {
		json_t *c = json_object_get(o, "capacity");
		*tps = json_number_value(json_object_get(c, "throughput_tok_s"));
		*lat = json_number_value(json_object_get(c, "latency_s"));
		json_decref(o);
	}
	run_result_free(&r);
}

/* A mixture of experts given by flags answers as the catalog's entry with
 * the same facts: each architecture flag lands in its own fact (the
 * experts flags once wrote past the facts into the total count). */
static void
moe_flags_match_catalog(void)
{
	double t1, l1, t2, l2;
	capacity_of((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100",
	                                    "--model", "Qwen3-30B-A3B", "--concurrency", "16", "--input-tokens", "512",
	                                    "--output-tokens", "256", "--json",
	                                    NULL },
	            &t1, &l1);
	capacity_of((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100",
	                                    "--active-params", "3.3", "--total-params", "30.5",
	                                    "--layers", "48", "--d-model", "2048", "--attention-heads", "32", "--kv-heads", "4",
	                                    "--head-dim", "128", "--experts", "128",
	                                    "--experts-per-token", "8", "--concurrency", "16", "--input-tokens", "512",
	                                    "--output-tokens", "256", "--json",
	                                    NULL },
	            &t2, &l2);
	CHECK(t1 > 0 && l1 > 0);
	CHECK_NEAR(t2 / t1, 1.0, 1e-9);
	CHECK_NEAR(l2 / l1, 1.0, 1e-9);
}

#define ARGS(...) ((const char *const[]){ "wattcast", "predict", "inference", __VA_ARGS__, NULL })

/* The text output of `argv` (exit 0) contains `line` as a whole line. */
static void
text_has_line(const char *const *argv, const char *line)
{
	run_result r;
	char want[320];
	snprintf(want, sizeof want, "\n%s\n", line);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, want);
	run_result_free(&r);
}

/* The capacity fed back as the header prints it is at capacity, and the
 * header prints the rate to the capacity's ten digits (it printed
 * "24.3164 requests/s (capacity 24.31635805 requests/s: OVER CAPACITY)"
 * with "24.31635805 requests/s exceeds the capacity of 24.31635805"). */
static void
text_at_capacity(void)
{
	char rate[64] = "100", line[200];
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--input-tokens", "512", "--output-tokens", "256", "--concurrency", "256", "--rate",
		               rate, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	const char *at = r.out ? strstr(r.out, "(capacity ") : NULL;
	CHECK(at != NULL && sscanf(at, "(capacity %63s", rate) == 1);
	run_result_free(&r);
	snprintf(line, sizeof line, ", %s requests/s (capacity %s requests/s: AT CAPACITY)", rate, rate);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_CONTAINS(r.out, line);
	snprintf(line, sizeof line, "warning: rate: %s requests/s is at the capacity of %s requests/s", rate, rate);
	CHECK_CONTAINS(r.out, line);
	run_result_free(&r);
}

/* The prefill share is of busy time: at 0.001 requests/s it is one
 * request's, not the almost idle group's share of the time (it printed
 * "0.106 of the time"). */
static void
text_prefill_share(void)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--input-tokens", "2048", "--output-tokens", "256", "--rate", "0.001", "--profile",
		               "paper-prefill", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_CONTAINS(r.out, " of busy time (prefill-aware form)\n");
	CHECK(r.out && !strstr(r.out, "of the time (prefill-aware form)"));
	run_result_free(&r);
}

/* A set without bootstrap draws (the built-in profiles) prints what its
 * interval covers, not "0 draws", which read as a fault. */
static void
text_interval_without_draws(void)
{
	run_result r;
	CHECK(run_wattcast(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "4"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, " W (covers held-out error)\n");
	CHECK(strstr(r.out, "0 draws") == NULL);
	run_result_free(&r);
}

/* Idle (concurrency 0) is G x P0 exactly: the held-out error of loaded
 * runs does not apply, so no interval, with the reason (it printed
 * 126.3-186.2 W, "covers held-out error"). A set of 5 draws says its
 * interval is the draws' range, as fit warned. */
static void
idle_and_few_draws(void)
{
	run_result r;
	CHECK(run_wattcast(ARGS("--profile", "paper", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "0"),
	                   NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.out, "95 % interval") == NULL);
	CHECK_CONTAINS(r.out, "interval_95: none: at concurrency 0 the answer is the idle draw");
	run_result_free(&r);
	char *dir = test_tmpdir("cli_predict"), *sim = path_join(dir, "sim.csv"), *set = path_join(dir, "b5.json");
	const char *mk[] = { "wattcast", "simulate", "inference", "--seed", "1", "-o", sim, NULL };
	test_run_ok(mk);
	const char *fit[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "5", "--seed", "1", "-o", set, NULL };
	test_run_ok(fit);
	CHECK(run_wattcast(ARGS("--params", set, "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "32"),
	                   NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "interval_95: 5 bootstrap draws, fewer than 40: the 2.5 % tails hold no draw of their own");
	run_result_free(&r);
	free(sim);
	free(set);
	free(dir);
}

/* The text names the answer's level source, as its JSON's level_source
 * (and the capacity block's) and in predict flexibility's words; it
 * printed neither (docs/cli.md, "predict inference"). */
static void
text_level_source(void)
{
	run_result r;
	char power[160], both[160];
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens",
	                        "512", "--output-tokens", "256", "--json"), NULL, &r) == 0);
	json_t *o = json_loads(r.out, 0, NULL);
	const char *src = json_string_value(json_object_get(o, "level_source"));
	const char *cap = json_string_value(json_object_get(json_object_get(o, "capacity"), "level_source"));
	CHECK(src && cap);
	snprintf(power, sizeof power, "  level source   power %s", src ? src : "?");
	snprintf(both, sizeof both, "  level source   power %s, capacity %s", src ? src : "?", cap ? cap : "?");
	json_decref(o);
	run_result_free(&r);
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8"), power);
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens", "512",
	                   "--output-tokens", "256"), both);
	text_has_line((const char *const[]){ "wattcast", "predict", "flexibility", "--platform", "H100", "--model",
	                                     "Qwen3-8B", "--concurrency", "8", "--input-tokens", "512",
	                                     "--output-tokens", "256", NULL }, both);
	/* expert parallelism on a dense model is said to be ignored (it was
	 * dropped without a word); on a MoE model it applies, unsaid */
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--tp", "2", "--concurrency", "8",
	                   "--input-tokens", "512", "--output-tokens", "256", "--expert-parallel"),
	              "  warning: expert_parallel: Qwen3-8B is a dense model (no experts to spread); answered tensor "
	              "parallel");
	/* a calibrated span's bounds as a reader takes them in (the
	 * measured profile's H100 loads are 7.90085-1915.46) */
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-0.6B", "--concurrency", "1"),
	              "  warning: concurrency: load 1 is outside the calibrated span 7.9-1915 on H100");
	/* a cap above the board's limit is no setting a GPU takes (it was
	 * accepted without a word) */
	text_has_line(ARGS("--platform", "L40S", "--model", "Mistral-7B", "--concurrency", "16", "--power-cap", "500"),
	              "  warning: power_cap_w: 500 W per GPU is above L40S's board power limit of 350 W: it cannot bind "
	              "(the limit holds first) and nvidia-smi would refuse it");
	run_result hr;
	/* --json writes whole numbers as integers, as the server does
	 * (docs/http-api.md): it wrote "mean_running": 32.0 */
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "32", "--json"), NULL,
	                   &hr) == 0);
	CHECK_CONTAINS(hr.out, "\"mean_running\": 32,\n");
	run_result_free(&hr);
	/* a cap no clock meets: the header says so, as the warning does (it
	 * said "settled under a 80 W cap" over 107.6 W; the cap is 90 W since
	 * A100's idle is 84.2 W, over 118.9 W); one met is settled */
	CHECK(run_wattcast(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "90"),
	                   NULL, &hr) == 0);
	CHECK_CONTAINS(hr.out, "sm clock 210 MHz (the clock of least power, still above the 90 W cap per GPU)\n");
	CHECK(strstr(hr.out, "settled under") == NULL);
	run_result_free(&hr);
	CHECK(run_wattcast(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "200"),
	                   NULL, &hr) == 0);
	CHECK_CONTAINS(hr.out, " MHz (settled under the 200 W cap per GPU)\n");
	run_result_free(&hr);
	/* the load's warnings name the flag's field, as the server's do, in
	 * the capacity answer too (both said "running", a field no request
	 * has; docs/http-api.md, "Errors") */
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-0.6B", "--concurrency", "0.5", "--input-tokens",
	                   "8192", "--output-tokens", "512"),
	              "  warning: concurrency: load 0.5 is outside the calibrated span 7.9-1915 and the capacity "
	              "calibration's span 5.13-1915 on H100");
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-0.6B", "--rate", "0.01", "--input-tokens", "8192",
	                   "--output-tokens", "512"), "  warning: rate: load 0.0141 is outside the calibrated span 7.9-1915 "
	              "and the capacity calibration's span 5.13-1915 on H100");
	/* a platform without a level: both from its datasheet */
	text_has_line(ARGS("--platform", "L4", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens", "512",
	                   "--output-tokens", "256"), "  level source   power datasheet, capacity datasheet");
	text_has_line(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "8", "--profile", "paper"),
	              "  level source   power published");
}

/* Inputs that change nothing are said to be ignored, in the server's
 * words (docs/http-api.md): without token lengths the CLI dropped a
 * price, an intensity and expert parallelism silently, and the sweep
 * dropped a price and an intensity. */
static void
ignored_inputs(void)
{
	static const char *const lines[] = {
		"  warning: price_per_kwh: ignored: it enters only the capacity answers, which need input_tokens and "
		"output_tokens",
		"  warning: grams_co2_per_kwh: ignored: it enters only the capacity answers, which need input_tokens and "
		"output_tokens",
		"  warning: expert_parallel: ignored: it enters only the capacity answers, which need input_tokens and "
		"output_tokens",
	};
	for (int i = 0; i < 3; i++)
		text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--price-per-kwh",
		                   "0.2", "--grams-co2-per-kwh", "300", "--expert-parallel"), lines[i]);
	/* on one GPU expert parallel is the same as tensor parallel: said
	 * (the answers were equal without a word) */
	text_has_line(ARGS("--platform", "H100", "--model", "Qwen3-30B-A3B", "--concurrency", "16", "--input-tokens", "512",
	                   "--output-tokens", "256", "--expert-parallel"),
	              "  warning: expert_parallel: ignored: one GPU (tp 1) holds every expert; it changes nothing");
	run_result r;
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8"), NULL, &r) == 0);
	CHECK(strstr(r.out, ": ignored:") == NULL);
	run_result_free(&r);
	const char *flex[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B",
		               "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256",
		               "--price-per-kwh", "0.15", "--grams-co2-per-kwh", "400", NULL };
	text_has_line(flex, "  warning: price_per_kwh: ignored: the sweep answers no cost or CO2 (docs/capacity.md, "
	                    "\"Power flexibility\")");
	text_has_line(flex, "  warning: grams_co2_per_kwh: ignored: the sweep answers no cost or CO2 (docs/capacity.md, "
	                    "\"Power flexibility\")");
	flex[13] = NULL;
	CHECK(run_wattcast(flex, NULL, &r) == 0);
	CHECK(strstr(r.out, ": ignored:") == NULL);
	run_result_free(&r);
}

/* A clock far below half the top clock, locked or where a cap settles,
 * carries the sweep's caveat that the law keeps the bandwidth there
 * (docs/capacity.md, "Clocks and power caps"); it had none. */
static void
low_clock(void)
{
	static const char want[] = "210 MHz of A100's 1410 MHz top clock; the law does not model the bandwidth real "
	                           "boards lose below about half the top clock (docs/capacity.md)";
	char line[256];
	snprintf(line, sizeof line, "  warning: sm_clock_mhz: the GPU runs at %s", want);
	text_has_line(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "16", "--input-tokens", "512",
	                   "--output-tokens", "256", "--sm-clock", "210"), line);
	text_has_line(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "16", "--sm-clock", "210"),
	              line);
	snprintf(line, sizeof line, "  warning: power_cap_w: the GPU runs at %s", want);
	text_has_line(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "16", "--input-tokens", "512",
	                   "--output-tokens", "256", "--power-cap", "85"), line);
	/* a sweep's knee above its lowest step but below half the top clock:
	 * the same caveat, the knee's clock among the steps it names (once:
	 * not again under knee_clock_mhz) */
	const char *flex[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Llama-3.1-8B",
		               "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256", "--steps", "4",
		               NULL };
	text_has_line(flex, "  warning: at 345, 890 MHz: sm_clock_mhz: the GPU runs at 345/890 MHz of H100's 1980 MHz top "
	                    "clock; the law does not model the bandwidth real boards lose below about half the top clock "
	                    "(docs/capacity.md)");
	run_result r;
	CHECK(run_wattcast(flex, NULL, &r) == 0);
	CHECK(r.out && strstr(r.out, "knee_clock_mhz: the GPU runs") == NULL);
	run_result_free(&r);
	/* at or above half, nothing */
	CHECK(run_wattcast(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "16", "--sm-clock",
	                        "705"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.out, "top clock") == NULL);
	run_result_free(&r);
}

/* --engine names the serving stack (docs/capacity.md, "Serving stacks"):
 * an unknown name is refused naming the flag, a likely typo and the
 * accepted names; another stack than vLLM is echoed and warned once; vllm
 * (any case) answers byte for byte what no --engine answers. */
static void
engine_flag(void)
{
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--engine", "sglng"),
	                 "--engine: unknown serving stack 'sglng': did you mean sglang? (accepted: vllm, sglang, "
	                 "tensorrt-llm, tgi, deepspeed-mii, transformers)");
	/* one edit of a 3-letter name: a typo too (docs/capacity.md) */
	test_usage_error(ARGS("--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "8", "--engine", "tgl"),
	                 "--engine: unknown serving stack 'tgl': did you mean tgi? (accepted: ");
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--engine", "llama.cpp"),
	                 "--engine: unknown serving stack 'llama.cpp' (accepted: vllm,");
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--engine", "tgi",
	                      "--engine", "tgi"), "--engine given twice");
	run_result a, b;
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--json"), NULL, &a) == 0);
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--json", "--engine",
	                        "VLLM"), NULL, &b) == 0);
	CHECK_INT(b.status, 0);
	CHECK(a.out && b.out && strcmp(a.out, b.out) == 0);
	CHECK(b.out && strstr(b.out, "engine:") == NULL);
	run_result_free(&b);
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--json", "--engine",
	                        "SGLang"), NULL, &b) == 0);
	CHECK_INT(b.status, 0);
	json_t *ja = json_loads(a.out ? a.out : "", 0, NULL), *jb = json_loads(b.out ? b.out : "", 0, NULL);
	CHECK(jb != NULL);
	const char *eng = json_string_value(json_object_get(json_object_get(jb, "config"), "engine"));
	CHECK(eng && strcmp(eng, "sglang") == 0);
	/* the numbers are vLLM's; one warning more says so */
	CHECK(json_equal(json_object_get(ja, "node_power_w"), json_object_get(jb, "node_power_w")));
	CHECK(json_equal(json_object_get(ja, "interval_95"), json_object_get(jb, "interval_95")));
	const json_t *wa = json_object_get(ja, "warnings"), *wb = json_object_get(jb, "warnings");
	CHECK_INT((int)json_array_size(wb), (int)json_array_size(wa) + 1);
	int n = 0;
	for (size_t i = 0; i < json_array_size(wb); i++) {
		const char *w = json_string_value(json_array_get(wb, i));
		if (w && strncmp(w, "engine: ", 8) == 0) {
			n++;
			CHECK_CONTAINS(w, "calibrated on vLLM runs");
			CHECK_CONTAINS(w, "SGLang");
			CHECK_CONTAINS(w, "wattcast calibrate");
			CHECK(strlen(w) <= 255);
		}
	}
	CHECK_INT(n, 1);
	json_decref(ja);
	json_decref(jb);
	run_result_free(&a);
	run_result_free(&b);
	/* the header line and the documented fact of the stack, for people */
	CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--engine", "trtllm"),
	                   NULL, &a) == 0);
	CHECK_INT(a.status, 0);
	CHECK_CONTAINS(a.out, "kv bf16, engine tensorrt-llm\n");
	CHECK_CONTAINS(a.out, "warning: engine: laws calibrated on vLLM runs; TensorRT-LLM draws differently at the same "
	                      "batch (on H100 its power stays nearly flat with batch size)");
	run_result_free(&a);
	CHECK(run_wattcast((const char *[]){ "wattcast", "predict", "flexibility", "--platform", "H100", "--model",
	                                     "Qwen3-8B", "--concurrency", "8", "--input-tokens", "512", "--output-tokens",
	                                     "256", "--engine", "transformers", NULL }, NULL, &a) == 0);
	CHECK_INT(a.status, 0);
	CHECK_CONTAINS(a.out, "running 8, engine transformers\n");
	CHECK_CONTAINS(a.out, "warning: engine: laws calibrated on vLLM runs; HF Transformers draws differently");
	const char *first = a.out ? strstr(a.out, "warning: engine: ") : NULL;
	CHECK(first && strstr(first + 17, "engine: laws") == NULL); /* once */
	run_result_free(&a);
}

int
main(void)
{
	ignored_inputs();
	text_at_capacity();
	text_prefill_share();
	low_clock();
	idle_and_few_draws();
	CHECK_NEAR(predicted("A100", "8.19"), 362.8, 0.5);
	CHECK_NEAR(predicted("A100", "14.8"), 373.5, 0.5);
	CHECK_NEAR(predicted("H100", "8.19"), 551.3, 0.5);
	CHECK_NEAR(predicted("H100", "14.8"), 579.5, 0.5);
	CHECK_NEAR(predicted("H200", "8.19"), 613.3, 0.5);
	CHECK_NEAR(predicted("H200", "14.8"), 642.0, 0.5);

	/* an MoE without its total parameters: refused naming the flag */
	test_usage_error(ARGS("--platform", "H100", "--active-params", "13", "--layers", "32", "--kv-heads", "8",
	                      "--head-dim", "128", "--experts", "8", "--experts-per-token", "2", "--concurrency", "16"),
	                 "--total-params: required with experts");
	/* a total above the active parameters, or experts per token, without
	 * experts: refused naming --experts (it was answered as a dense model
	 * reading every weight, the experts per token dropped); experts
	 * without experts per token name the flag missing, not "got 0" */
	test_usage_error(ARGS("--platform", "H100", "--active-params", "3", "--layers", "48", "--kv-heads", "4",
	                      "--head-dim", "128", "--total-params", "30", "--experts-per-token", "8", "--rate", "1",
	                      "--input-tokens", "512", "--output-tokens", "128"),
	                 "--experts: required with experts per token (8)");
	test_usage_error(ARGS("--platform", "H100", "--active-params", "3", "--layers", "48", "--kv-heads", "4",
	                      "--head-dim", "128", "--total-params", "30", "--rate", "1", "--input-tokens", "512",
	                      "--output-tokens", "128"),
	                 "--experts: required with a total (30 B) above the active 3 B");
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--total-params", "9", "--concurrency", "8"),
	                 "--experts: required with a total (9 B) above the active 8.19 B");
	test_usage_error(ARGS("--platform", "H100", "--active-params", "3", "--layers", "48", "--kv-heads", "4",
	                      "--head-dim", "128", "--total-params", "30", "--experts", "128", "--rate", "1",
	                      "--input-tokens", "512", "--output-tokens", "128"),
	                 "--experts-per-token: required with experts (128)");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--bogus"),
	            "unknown flag '--bogus'");
	/* a flag of predict flexibility is named, not the value getopt took */
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--steps", "5"),
	            "--steps belongs to predict flexibility, not predict inference");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--csv", "x.csv"),
	            "--csv belongs to predict flexibility");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency"),
	            "--concurrency needs a value");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "-3"),
	            "--concurrency: must be >= 0");
	/* with --rate, --concurrency is the engine's limit: 0 runs nothing
	 * (it was taken for no limit) */
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--rate", "100", "--concurrency", "0",
	                      "--input-tokens", "512", "--output-tokens", "256"),
	            "--concurrency: with --rate it is the engine's limit on running requests");
	/* ...a whole number, as the envelope's --max-running: 0.5 and 1.5
	 * were answered as half a request running (docs/cli.md) */
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--rate", "0.3", "--concurrency", "0.5",
	                      "--input-tokens", "512", "--output-tokens", "256"),
	            "--concurrency: with --rate it is the engine's limit on running requests: a whole number >= 1, or "
	            "leave it out for none; got '0.5'");
	test_usage_error(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--rate", "0.3", "--concurrency", "1.5",
	                      "--input-tokens", "512", "--output-tokens", "256"),
	            "--concurrency: with --rate it is the engine's limit on running requests: a whole number >= 1");
	test_usage_error((const char *const[]){ "wattcast", "predict", "flexibility", "--platform", "H100", "--model",
	                                       "Qwen3-8B", "--rate", "0.3", "--concurrency", "1.5", "--input-tokens",
	                                       "512", "--output-tokens", "256", NULL },
	            "--concurrency: with --rate it is the engine's limit on running requests: a whole number >= 1");
	{ /* a closed loop's mean count may be fractional; a limit of 2.0 is 2 */
		double tps, lat;
		capacity_of(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "0.5", "--input-tokens",
		                 "512", "--output-tokens", "256", "--json"), &tps, &lat);
		CHECK(tps > 0 && lat > 0);
		capacity_of(ARGS("--platform", "H100", "--model", "Qwen3-8B", "--rate", "0.3", "--concurrency", "2.0",
		                 "--input-tokens", "512", "--output-tokens", "256", "--json"), &tps, &lat);
		CHECK(tps > 0 && lat > 0);
	}
	test_usage_error(ARGS("--platform", "A100", "--active-params", "eight", "--concurrency", "1"),
	            "--active-params: expected a number, got 'eight'");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "-8", "--concurrency", "1"),
	            "--active-params: must be >= 0.0001");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--tp", "0"),
	            "--tp: must be between 1");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--tp", "1.5"),
	            "--tp: expected a whole number");
	test_usage_error(ARGS("--platform", "TPUv9", "--active-params", "8", "--concurrency", "1", "--profile", "paper"),
	            "--platform: unknown platform 'TPUv9' (known: A100, H100, H200, H100-locked; from datasheets: A10G, L4, L40S, "
	            "A100-40GB"); /* the set's levels are not listed again as datasheet boards */
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--weights", "fp4"),
	            "--weights: expected bf16, fp8 or int4");
	test_usage_error(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1", "--sm-clock", "nan"),
	            "--sm-clock: expected a number");
	/* A clock the board cannot run at is refused without token lengths too,
	 * as the server refuses it (it used to answer 991 W on a 700 W H100). */
	test_usage_error(ARGS("--platform", "H100", "--active-params", "8", "--concurrency", "32", "--sm-clock", "5000"),
	            "--sm-clock: 5000 MHz is outside the clock range of H100, 345-1980 MHz");
	test_usage_error(ARGS("--platform", "A10G", "--active-params", "8", "--concurrency", "32", "--sm-clock", "100"),
	            "--sm-clock: 100 MHz is outside the clock range of A10G, 210-1710 MHz");
	/* A level named after its board ("H100-locked") runs on that board
	 * (it used to answer 1 421.6 W at 5000 MHz under the paper profile). */
	test_usage_error(ARGS("--profile", "paper", "--platform", "H100-locked", "--active-params", "8", "--concurrency",
	                 "8", "--sm-clock", "5000"),
	            "--sm-clock: 5000 MHz is outside the clock range of H100, 345-1980 MHz");
	test_usage_error(ARGS("--active-params", "8", "--concurrency", "1"), "--platform is required");
	test_usage_error(ARGS("--platform", "A100", "--model", "NoSuchModel", "--concurrency", "1"),
	            "--model: unknown model 'NoSuchModel'");
	/* a typo of a catalog name is refused with the name, and where the
	 * list is (the only hint was --active-params, which drops the
	 * architecture); `wattcast models` lists the catalog */
	test_usage_error(ARGS("--platform", "H100", "--model", "Lama-3.1-8B", "--concurrency", "8"),
	            "--model: unknown model 'Lama-3.1-8B': did you mean Llama-3.1-8B? ('wattcast models' lists them");
	test_usage_error(ARGS("--platform", "H100", "--model", "Llama 3.1 8B", "--concurrency", "8"),
	            "did you mean Llama-3.1-8B?");
	/* another version or size is another model, not a typo: no hint that
	 * would answer for the wrong size */
	{
		static const char *const other[] = { "Qwen/Qwen2-7B-Instruct", "Llama-3.2-11B-Vision", "DeepSeek-V2-Lite",
			                             "Mistral-Large-Instruct-2411", "Qwen3-9B" };
		for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
			run_result sr;
			CHECK(run_wattcast(ARGS("--platform", "H100", "--model", other[i], "--concurrency", "8"), NULL, &sr) == 0);
			CHECK_INT(sr.status, 2);
			CHECK_CONTAINS(sr.err, "unknown model");
			CHECK(sr.err && strstr(sr.err, "did you mean") == NULL);
			run_result_free(&sr);
		}
	}
	{
		run_result lr;
		CHECK(run_wattcast((const char *[]){ "wattcast", "models", NULL }, NULL, &lr) == 0);
		CHECK_INT(lr.status, 0);
		CHECK_CONTAINS(lr.out, "\nLlama-3.1-8B ");
		CHECK_CONTAINS(lr.out, "\nMixtral-8x7B ");
		/* a context the catalog does not state is "-", as the JSON's null, not 0 */
		CHECK_CONTAINS(lr.out, "bf16         -\n");
		CHECK(strstr(lr.out, " 0\n") == NULL);
		run_result_free(&lr);
		/* every answer names the stack the laws were calibrated on */
		CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Mistral-7B", "--concurrency", "8"), NULL, &lr) == 0);
		CHECK_CONTAINS(lr.out, "weights bf16, kv bf16, engine vllm");
		run_result_free(&lr);
		CHECK(run_wattcast(ARGS("--platform", "H100", "--model", "Mistral-7B", "--concurrency", "8", "--json"), NULL,
		                   &lr) == 0);
		json_t *o = json_loads(lr.out ? lr.out : "", 0, NULL);
		const char *eng = json_string_value(json_object_get(json_object_get(o, "config"), "engine"));
		CHECK(eng && strcmp(eng, "vllm") == 0);
		json_decref(o);
		run_result_free(&lr);
		CHECK(run_wattcast((const char *[]){ "wattcast", "predict", "flexibility", "--platform", "H100", "--model",
		                                     "Mistral-7B", "--concurrency", "8", "--input-tokens", "512",
		                                     "--output-tokens", "256", NULL }, NULL, &lr) == 0);
		CHECK_CONTAINS(lr.out, "running 8, engine vllm\n");
		run_result_free(&lr);
		CHECK(run_wattcast((const char *[]){ "wattcast", "models", "--json", NULL }, NULL, &lr) == 0);
		json_t *a = json_loads(lr.out ? lr.out : "", 0, NULL);
		CHECK_INT((int)json_array_size(a), (int)wc_model_count());
		json_decref(a);
		run_result_free(&lr);
	}

	run_result r;
	/* A catalog model name stands for its active parameters. */
	CHECK(run_wattcast(ARGS("--platform", "H200", "--model", "Qwen/Qwen3-8B", "--concurrency", "32", "--profile", "paper"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "613.");
	run_result_free(&r);
	/* A missing parameter file is a failure (1) naming the file. */
	CHECK(run_wattcast(ARGS("--platform", "A100", "--active-params", "8", "--concurrency", "1",
	                        "--params", "/nonexistent/p.json"), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/nonexistent/p.json");
	run_result_free(&r);
	/* Help and version. */
	const char *help[] = { "wattcast", "--help", NULL };
	CHECK(run_wattcast(help, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "predict");
	run_result_free(&r);
	const char *sub_help[] = { "wattcast", "predict", "--help", NULL };
	CHECK(run_wattcast(sub_help, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "--concurrency");
	run_result_free(&r);
	const char *version[] = { "wattcast", "--version", NULL };
	CHECK(run_wattcast(version, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "wattcast 0.");
	run_result_free(&r);
	const char *unknown[] = { "wattcast", "frobnicate", NULL };
	CHECK(run_wattcast(unknown, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "unknown command 'frobnicate'");
	run_result_free(&r);
	moe_flags_match_catalog();
	text_level_source();
	text_interval_without_draws();
	engine_flag();
	return check_report("test_cli_predict");
}

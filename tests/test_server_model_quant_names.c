/*
 * Quantized checkpoints named as they are published (docs/capacity.md,
 * "Model names"): 8-bit integer weights ("-Int8", "-INT8", "-W8A8", Red
 * Hat's "-quantized.w8a8", "-8bit") are counted as fp8's bytes, one a
 * weight; 4-bit floats and NF4 ("-FP4", "-NVFP4", "-MXFP4", "-NF4",
 * "-bnb-4bit") as int4's; "GPTQ" takes the width the name states
 * ("-GPTQ-Int8": 8 bits), else stays int4. All were read as bf16 before:
 * Qwen2.5-72B-Instruct-GPTQ-Int8 needed 145.4 GB and one H100 was
 * refused (its 72.7 GB fit with 12 requests running), and the NVFP4
 * Llama-3.1-405B needed 810 GB, refused on 2 B200s that hold its 203. The
 * answer says what the weights were counted as, and its power (the term
 * of the precision counted, docs/inference-law.md "Precision terms"); a
 * memory refusal of a name with a word not read says which weights were
 * sized. The CLI and HTTP answer alike (one function).
 */
#include "models/catalog.h"
#include "models/law.h"
#include "models/profile_measured.h"
#include "predict/capacity_predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static int
same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void
test_rule(void)
{
	static const struct {
		const char *name, *entry;
		int states;
		wc_precision w;
		const char *format;
		int renamed;
	} cases[] = {
		{ "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", "Qwen2.5-72B", 1, WC_PREC_FP8, "int8", 0 },
		{ "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", "Qwen2.5-72B", 1, WC_PREC_INT4, NULL, 0 },
		{ "Qwen2.5-72B-Instruct-GPTQ", "Qwen2.5-72B", 1, WC_PREC_INT4, NULL, 0 },
		{ "RedHatAI/Qwen2.5-72B-Instruct-quantized.w8a8", "Qwen2.5-72B", 1, WC_PREC_FP8, "int8", 0 },
		{ "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a16", "Llama-3.1-8B", 1, WC_PREC_FP8, "int8", 0 },
		{ "Llama-3.1-8B-Instruct-INT8", "Llama-3.1-8B", 1, WC_PREC_FP8, "int8", 0 },
		{ "Qwen3-8B-W8A8", "Qwen3-8B", 1, WC_PREC_FP8, "int8", 0 },
		{ "mlx-community/Qwen3-8B-8bit", "Qwen3-8B", 1, WC_PREC_FP8, "int8", 0 },
		{ "mlx-community/Qwen3-8B-4bit", "Qwen3-8B", 1, WC_PREC_INT4, NULL, 0 },
		{ "unsloth/Llama-3.1-8B-Instruct-bnb-4bit", "Llama-3.1-8B", 1, WC_PREC_INT4, "nf4", 0 },
		{ "Llama-3.1-8B-Instruct-bnb-8bit", "Llama-3.1-8B", 1, WC_PREC_FP8, "int8", 0 },
		{ "nvidia/Llama-3.1-405B-Instruct-FP4", "Llama-3.1-405B", 1, WC_PREC_INT4, "fp4", 0 },
		{ "Llama-3.1-8B-Instruct-NVFP4", "Llama-3.1-8B", 1, WC_PREC_INT4, "nvfp4", 0 },
		{ "Qwen3-8B-MXFP4", "Qwen3-8B", 1, WC_PREC_INT4, "mxfp4", 0 },
		{ "Qwen3-8B-NF4", "Qwen3-8B", 1, WC_PREC_INT4, "nf4", 0 },
		/* Unsloth's names: its own name repeated and its words of how the
		 * quantization was chosen say nothing of the width, so the stated
		 * bnb-4bit holds (the extra "unsloth" had the 72B sized as bf16,
		 * 145.4 GB, and refused on one H100) */
		{ "unsloth/Qwen2.5-72B-Instruct-unsloth-bnb-4bit", "Qwen2.5-72B", 1, WC_PREC_INT4, "nf4", 0 },
		{ "unsloth/Llama-3.1-8B-Instruct-unsloth-bnb-4bit", "Llama-3.1-8B", 1, WC_PREC_INT4, "nf4", 0 },
		{ "Qwen3-8B-unsloth-dynamic-bnb-4bit", "Qwen3-8B", 1, WC_PREC_INT4, "nf4", 0 },
		{ "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "Llama-3.1-8B", 1, WC_PREC_FP8, NULL, 0 },
		{ "RedHatAI/Qwen3-8B-RedHatAI-FP8", "Qwen3-8B", 1, WC_PREC_FP8, NULL, 0 },
		{ "unsloth/Qwen3-8B-unsloth", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 0 },
		/* a GGUF repository holds files of many widths (llama.cpp's, not
		 * a vLLM checkpoint): the name states none, said */
		{ "unsloth/Qwen3-8B-GGUF", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		/* another publisher's name is a word not read; a conflict stays one */
		{ "Qwen3-8B-turboderp-bnb-4bit", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		{ "unsloth/Qwen3-8B-unsloth-FP8-bnb-4bit", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		/* still not one precision, or a method without its width */
		{ "Qwen3-8B-Int8-AWQ", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		{ "Qwen3-8B-bnb", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		{ "Qwen3-8B-GPTQ-bnb-4bit", "Qwen3-8B", 0, WC_PREC_BF16, NULL, 1 },
		{ "turboderp/Qwen2.5-72B-Instruct-exl2", "Qwen2.5-72B", 0, WC_PREC_BF16, NULL, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wc_model_name mn;
		int before = check_failures;
		wc_model_name_read(cases[i].name, &mn);
		CHECK(mn.entry && strcmp(mn.entry->name, cases[i].entry) == 0);
		CHECK_INT(mn.states_weights, cases[i].states);
		CHECK_INT((int)mn.weights, (int)cases[i].w);
		CHECK(same_str(mn.format, cases[i].format));
		CHECK_INT(mn.renamed, cases[i].renamed);
		if (check_failures != before)
			fprintf(stderr, "  %s: weights %s, format %s, renamed %d\n", cases[i].name,
			        wc_precision_name(mn.weights), mn.format ? mn.format : "-", mn.renamed);
	}
	/* weights given that the name contradicts: refused naming its word */
	wc_config c = WC_CONFIG_INIT;
	wc_error err;
	c.weights = WC_PREC_INT4;
	CHECK_INT(wc_model_name_apply("Qwen3-8B-Int8", 1, &c, &err), WC_EINVAL);
	CHECK(same_str(err.msg, "weights: 'Qwen3-8B-Int8' names int8 weights (counted as fp8), but weights int4 were "
	                        "given"));
	c.weights = WC_PREC_FP8;
	CHECK_INT(wc_model_name_apply("Qwen3-8B-Int8", 1, &c, &err), WC_OK);
	/* the success warning is the precision note's, not "answered as" */
	char note[WC_WARNING_LEN];
	wc_model_name_note("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", -1, -1, note, sizeof note);
	CHECK(same_str(note, ""));
	CHECK(same_str(wc_model_name_counted("Qwen3-8B-Int8", WC_PREC_FP8), "int8"));
	CHECK(!wc_model_name_counted("Qwen3-8B-FP8", WC_PREC_FP8));
	CHECK(!wc_model_name_counted("Qwen3-8B-Int8", WC_PREC_BF16));
}

/* One question on the command line and over HTTP, answered: the weights,
 * the warning, the requests that fit (0: not looked at). */
static void
answered(const char *platform, int tp, const char *model, const char *want_weights, const char *want_warning,
         int want_fit)
{
	char body[384], tps[16];
	snprintf(tps, sizeof tps, "%d", tp);
	snprintf(body, sizeof body, "{\"platform\":\"%s\",\"tp\":%d,\"model\":\"%s\",\"concurrency\":8,"
	         "\"input_tokens\":512,\"output_tokens\":256}", platform, tp, model);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", platform, "--tp", tps, "--model", model,
		               "--concurrency", "8", "--input-tokens", "512", "--output-tokens", "256", NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	int before = check_failures;
	CHECK_INT(r.status, 200);
	CHECK_INT(rr.status, 0);
	const json_t *cfg = json_object_get(r.json, "config");
	CHECK(same_str(json_string_value(json_object_get(cfg, "weights")), want_weights));
	char line[64];
	snprintf(line, sizeof line, "weights %s,", want_weights);
	CHECK_CONTAINS(rr.out, line);
	const json_t *w = json_object_get(r.json, "warnings");
	int said = 0, renamed = 0;
	for (size_t i = 0; i < json_array_size(w); i++) {
		said += strstr(json_string_value(json_array_get(w, i)), want_warning) != NULL;
		renamed += strstr(json_string_value(json_array_get(w, i)), "answered as the catalog's") != NULL;
	}
	CHECK_INT(said, 1);
	CHECK_INT(renamed, 0);
	CHECK_CONTAINS(rr.out, want_warning);
	if (want_fit) {
		CHECK_INT((int)http_json_num(r.json, "max_concurrency_fit"), want_fit);
		snprintf(line, sizeof line, "max concurrency that fits    %d ", want_fit);
		CHECK_CONTAINS(rr.out, line);
	}
	if (check_failures != before)
		fprintf(stderr, "  %s on %d x %s:\n  HTTP %s\n  CLI %s%s\n", model, tp, platform, r.body ? r.body : "",
		        rr.out ? rr.out : "", rr.err ? rr.err : "");
	run_result_free(&rr);
	http_reply_free(&r);
}

/* One question refused for memory on the command line (exit 2) and over
 * HTTP (422 at /tp), both carrying `want`; NULL `taken`: no word on the
 * weights taken. */
static void
refused(const char *platform, int tp, const char *model, const char *want, const char *taken)
{
	char body[384], tps[16];
	snprintf(tps, sizeof tps, "%d", tp);
	snprintf(body, sizeof body, "{\"platform\":\"%s\",\"tp\":%d,\"model\":\"%s\",\"concurrency\":8}", platform, tp,
	         model);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", platform, "--tp", tps, "--model", model,
		               "--concurrency", "8", NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	int before = check_failures;
	const char *msg = http_error_str(&r, "message");
	CHECK_INT(r.status, 422);
	CHECK(same_str(http_error_str(&r, "field"), "/tp"));
	CHECK_CONTAINS(msg, want);
	CHECK(msg && strlen(msg) <= 253); /* 255 bytes with the CLI's "--" */
	CHECK_INT(rr.status, 2);
	CHECK_CONTAINS(rr.err, want);
	if (taken) {
		CHECK_CONTAINS(msg, taken);
		CHECK_CONTAINS(rr.err, taken);
	} else {
		CHECK(msg && !strstr(msg, "weights taken as"));
	}
	if (check_failures != before)
		fprintf(stderr, "  %s on %d x %s:\n  HTTP %s\n  CLI %s\n", model, tp, platform, r.body ? r.body : "",
		        rr.err ? rr.err : "");
	run_result_free(&rr);
	http_reply_free(&r);
}

/* The power of weights counted as another precision is that precision's
 * term where the set keeps one (the paper profile's fp8 and int4 on
 * H200), said as such; where none is kept, bf16's, as for fp8 itself. */
static void
power_counted(void)
{
	static const struct { const char *model, *as, *warning; } cases[] = {
		{ "Qwen3-8B-Int8", "Qwen3-8B-FP8", "warning: weights: int8 on H200 has no term of its own; its power is "
		                                   "predicted as fp8's (step times and memory use fp8's bytes"
		                                   "; prefill computes at the BF16 rate)" },
		{ "Qwen3-8B-NVFP4", "Qwen3-8B-AWQ", "warning: weights: nvfp4 on H200 has no term of its own; its power is "
		                                    "predicted as int4's (step times and memory use int4's bytes"
		                                    "; prefill computes at the BF16 rate)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run_result a, b;
		const char *av[] = { "wattcast", "predict", "inference", "--profile", "paper", "--platform", "H200", "--model",
			             cases[i].model, "--concurrency", "8", "--json", NULL };
		const char *bv[] = { "wattcast", "predict", "inference", "--profile", "paper", "--platform", "H200", "--model",
			             cases[i].as, "--concurrency", "8", "--json", NULL };
		CHECK_INT(run_wattcast(av, NULL, &a), 0);
		CHECK_INT(run_wattcast(bv, NULL, &b), 0);
		json_t *ja = json_loads(a.out ? a.out : "", 0, NULL), *jb = json_loads(b.out ? b.out : "", 0, NULL);
		double pa = http_json_num(ja, "node_power_w"), pb = http_json_num(jb, "node_power_w");
		CHECK(pa > 0.0 && pa == pb);
		json_decref(ja);
		json_decref(jb);
		const char *tv[] = { "wattcast", "predict", "inference", "--profile", "paper", "--platform", "H200", "--model",
			             cases[i].model, "--concurrency", "8", NULL };
		run_result t;
		CHECK_INT(run_wattcast(tv, NULL, &t), 0);
		CHECK_CONTAINS(t.out, cases[i].warning);
		run_result_free(&t);
		run_result_free(&a);
		run_result_free(&b);
	}
}

int
main(void)
{
	test_rule();
	wc_params p = WC_PARAMS_INIT;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p); /* the CLI's default */
	wc_server *srv = http_server_start(&p, "profile:measured", 2);
	if (srv) {
		/* 72.7 GB of 8-bit weights on one H100: 12 requests of 768
		 * tokens fit (it was refused as 145.4 GB of bf16) */
		answered("H100", 1, "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", "fp8",
		         "weights: int8 (counted as fp8) on H100 has no fitted term; its power is predicted as bf16's (step "
		         "times and memory use fp8's bytes; prefill computes at the BF16 rate)", 12);
		answered("H100", 1, "RedHatAI/Qwen2.5-72B-Instruct-quantized.w8a8", "fp8", "weights: int8 (counted as fp8)",
		         12);
		/* about 203 GB of NVFP4 on 2 B200s (342.8 GB): it was 810 */
		answered("B200", 2, "nvidia/Llama-3.1-405B-Instruct-FP4", "int4", "weights: fp4 (counted as int4) on B200",
		         0);
		answered("H100", 1, "unsloth/Llama-3.1-8B-Instruct-bnb-4bit", "int4", "weights: nf4 (counted as int4)", 0);
		/* Unsloth's own name in its checkpoint's says nothing of the
		 * width: 36.4 GB of NF4 on one H100 (it was refused as 145.4 GB
		 * of bf16, "at least 2 GPUs needed") */
		answered("H100", 1, "unsloth/Qwen2.5-72B-Instruct-unsloth-bnb-4bit", "int4", "weights: nf4 (counted as int4)",
		         0);
		/* a word not read: the refusal says the weights were sized as
		 * bf16 (as published: DeepSeek's fp8), and how to say otherwise */
		refused("H100", 1, "turboderp/Qwen2.5-72B-Instruct-exl2",
		        "tp: the weights need 145.4 GB (weights taken as bf16: give weights if not) but 1 x H100",
		        "(weights taken as bf16: give weights if not)");
		refused("H100", 1, "deepseek-ai/DeepSeek-R1-Banana", "tp: the weights need", "(weights taken as fp8: give "
		        "weights if not)");
		refused("H100", 1, "Qwen/Qwen2.5-72B-Instruct", "tp: the weights need 145.4 GB but 1 x H100", NULL);
		/* the longest board: the model's name in the tail yields to the
		 * note, which is whole, within 255 bytes */
		refused("A100-PCIe-40GB", 2, "meta-llama/Llama-3.1-405B-Instruct-Banana",
		        "; at least 22 GPUs needed: tp 32, the smallest its 128 attention and 8 KV heads allow",
		        "(weights taken as bf16: give weights if not)");
		refused("B200", 2, "meta-llama/Llama-3.1-405B-Instruct-Banana",
		        "tp 8, the smallest Llama-3.1-405B's 128 attention and 8 KV heads allow",
		        "(weights taken as bf16: give weights if not)");
		wc_server_stop(srv);
	}
	/* one request's KV cache that does not fit says it too */
	const char *kv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "2", "--model",
		             "Qwen2.5-72B-Instruct-exl2", "--concurrency", "8", "--input-tokens", "30000",
		             "--output-tokens", "256", NULL };
	run_result k;
	CHECK_INT(run_wattcast(kv, NULL, &k), 0);
	CHECK_INT(k.status, 2);
	CHECK_CONTAINS(k.err, "--input-tokens: one request of 30000 + 256 tokens needs 9.91 GB of KV cache but 2 x H100 (85.5 "
	                      "GB each) leave 5.26 GB after the weights (weights taken as bf16: give weights if not)");
	/* the utilization that serves it too, the workspace's words yielding
	 * to both within 255 bytes, the group to the note (tp 4 would hold it) */
	CHECK_CONTAINS(k.err, "(gpu_memory_utilization 0.9); or --gpu-memory-utilization 0.93 or more");
	run_result_free(&k);
	/* a utilization given names the field at the head: its echo
	 * "(gpu_memory_utilization 0.92)" yields first, and the note stays,
	 * on the CLI and in the library's message HTTP sends (the note was
	 * dropped on both, the echo kept) */
	const char *given[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "2", "--model",
		                "Qwen2.5-72B-Instruct-exl2", "--concurrency", "1", "--input-tokens", "30000",
		                "--output-tokens", "256", "--gpu-memory-utilization", "0.92", NULL };
	CHECK_INT(run_wattcast(given, NULL, &k), 0);
	CHECK_INT(k.status, 2);
	CHECK_CONTAINS(k.err, "--gpu-memory-utilization: one request of 30000 + 256 tokens needs 9.91 GB of KV cache but 2 x "
	                      "H100 (85.5 GB each) leave 8.68 GB after the weights (weights taken as bf16: give weights "
	                      "if not); tp 4 holds it; or --gpu-memory-utilization 0.93 or more");
	run_result_free(&k);
	/* the envelope and its plan answer such a name as the catalog's entry
	 * with predict's warning (they said nothing, the header naming exl2) */
	for (int plan = 0; plan < 2; plan++) {
		const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--tp", "2", "--model",
			              "Qwen2.5-72B-Instruct-exl2", "--closed", "1", "--input-tokens", "300", "--output-tokens",
			              "256", "--horizon", "10", "--json", plan ? "--budget" : NULL, "20000", NULL };
		CHECK_INT(run_wattcast(env, NULL, &k), 0);
		CHECK_INT(k.status, 0);
		CHECK_CONTAINS(k.out, "model: 'Qwen2.5-72B-Instruct-exl2' answered as the catalog's Qwen2.5-72B");
		run_result_free(&k);
	}
	wc_config g = WC_CONFIG_INIT;
	wc_error ge;
	wc_config_set_model(&g, "Qwen2.5-72B-Instruct-exl2");
	g.platform = "H100";
	g.tp = 2;
	g.input_tokens = 30000;
	g.output_tokens = 256;
	g.gpu_memory_utilization = 0.92;
	CHECK_INT(wc_predict_memory_check(&p, &g, NULL, &ge), WC_EINVAL);
	CHECK_CONTAINS(ge.msg, "gpu_memory_utilization: one request of 30000 + 256 tokens");
	CHECK_CONTAINS(ge.msg, "(weights taken as bf16: give weights if not)");
	CHECK(strstr(ge.msg, "(gpu_memory_utilization 0.92)") == NULL);
	power_counted();
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_model_quant_names");
}

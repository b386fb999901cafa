/*
 * Model names as users give them (docs/capacity.md, "Model names"): a
 * precision suffix sets the weights when none were given ("-FP8": fp8;
 * "-Int4", "-AWQ", "-GPTQ-Int4": int4), weights the name contradicts are
 * refused naming both, a suffix word the rule does not know is answered
 * by the catalog entry with one warning naming it, and the real names the
 * repository's runs use ("org/", "-Instruct-2507", "-it", "-v2") pass
 * silently. The CLI and HTTP answer alike (one function).
 */
#include "models/catalog.h"
#include "models/law.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static int
same_str(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}
#define CHECK_STR(a, b) CHECK(same_str((a), (b)))

static void
test_rule(void)
{
	static const struct { const char *name, *entry; int states; wc_precision w; int renamed; } cases[] = {
		{ "Qwen3-8B", "Qwen3-8B", 0, WC_PREC_BF16, 0 },
		{ "Qwen3-8B-FP8", "Qwen3-8B", 1, WC_PREC_FP8, 0 },
		{ "Qwen/Qwen3-235B-A22B-FP8", "Qwen3-235B-A22B", 1, WC_PREC_FP8, 0 },
		{ "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "Qwen3-235B-A22B", 1, WC_PREC_FP8, 0 },
		{ "Qwen/Qwen3-235B-A22B-Thinking-2507", "Qwen3-235B-A22B", 0, WC_PREC_BF16, 0 },
		{ "Qwen3-8B-AWQ", "Qwen3-8B", 1, WC_PREC_INT4, 0 },
		{ "Qwen3-32B-GPTQ-Int4", "Qwen3-32B", 1, WC_PREC_INT4, 0 },
		{ "Llama-3.1-8B-Instruct-FP8-Dynamic", "Llama-3.1-8B", 1, WC_PREC_FP8, 0 },
		{ "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "Llama-4-Maverick-17B-128E", 1, WC_PREC_FP8, 0 },
		{ "google/gemma-3-27b-it", "gemma-3-27b", 0, WC_PREC_BF16, 0 },
		{ "nvidia/NVIDIA-Nemotron-Nano-12B-v2", "NVIDIA-Nemotron-Nano-12B-v2", 0, WC_PREC_BF16, 0 },
		{ "Qwen3-8B-Banana", "Qwen3-8B", 0, WC_PREC_BF16, 1 },
		{ "Qwen3-8B-FP8-AWQ", "Qwen3-8B", 0, WC_PREC_BF16, 1 },
		/* "dynamic" says how a quantization was chosen, not its width: as
		 * if absent (docs/capacity.md, "Model names") */
		{ "Qwen3-8B-Dynamic", "Qwen3-8B", 0, WC_PREC_BF16, 0 },
		/* a name stating nothing: the precision the model is published in */
		{ "openai/gpt-oss-120b", "gpt-oss-120b", 0, WC_PREC_INT4, 0 },
		{ "deepseek-ai/DeepSeek-V3.1", "DeepSeek-V3.1", 0, WC_PREC_FP8, 0 },
		{ "deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "DeepSeek-R1-Distill-Llama-8B", 0, WC_PREC_BF16, 0 },
		/* Meta's older ids: the suffix read after the name without
		 * "Meta-" (it was read 5 bytes early and dropped: bf16, silent) */
		{ "neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "Llama-3.1-70B", 1, WC_PREC_FP8, 0 },
		{ "Meta-Llama-3.1-8B-Instruct-FP8", "Llama-3.1-8B", 1, WC_PREC_FP8, 0 },
		{ "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "Llama-3.1-8B", 1, WC_PREC_FP8, 0 },
		{ "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "Llama-3.1-70B", 1, WC_PREC_INT4, 0 },
		{ "hugging-quants/Meta-Llama-3.1-8B-Instruct-GPTQ-INT4", "Llama-3.1-8B", 1, WC_PREC_INT4, 0 },
		{ "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16", "Llama-3.1-70B", 1, WC_PREC_INT4, 0 },
		{ "Meta-Llama-3.1-8B-Instruct-Banana", "Llama-3.1-8B", 0, WC_PREC_BF16, 1 },
		/* Neural Magic's fp8 checkpoints with KV-cache scales: "KV" after
		 * a precision is read (it dropped the FP8: 141 GB of bf16 weights,
		 * 12 requests on 2 H100s for 108); alone it is a word not read */
		{ "neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-KV", "Llama-3.1-70B", 1, WC_PREC_FP8, 0 },
		{ "Qwen3-8B-KV", "Qwen3-8B", 0, WC_PREC_BF16, 1 },
		{ "meta-llama/Meta-Llama-3-8B-Instruct", "Meta-Llama-3-8B", 0, WC_PREC_BF16, 0 },
		{ "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", "Qwen2.5-72B", 1, WC_PREC_INT4, 0 },
		/* Mistral's release tags are "v0.N": a tag, not an unknown word */
		{ "mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B", 0, WC_PREC_BF16, 0 },
		{ "mistralai/Mixtral-8x7B-Instruct-v0.1", "Mixtral-8x7B", 0, WC_PREC_BF16, 0 },
		{ "Mistral-7B-v0.", "Mistral-7B", 0, WC_PREC_BF16, 1 },
		{ "Mistral-7B-v0..1", "Mistral-7B", 0, WC_PREC_BF16, 1 },
		{ "Qwen2.5-7B-Instruct-1M", "Qwen2.5-7B", 0, WC_PREC_BF16, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wc_model_name mn;
		wc_model_name_read(cases[i].name, &mn);
		CHECK(mn.entry && strcmp(mn.entry->name, cases[i].entry) == 0);
		CHECK_INT(mn.states_weights, cases[i].states);
		CHECK_INT((int)mn.weights, (int)cases[i].w);
		CHECK_INT(mn.renamed, cases[i].renamed);
		if (mn.renamed != cases[i].renamed)
			fprintf(stderr, "%s\n", cases[i].name);
	}
	wc_config c = WC_CONFIG_INIT;
	wc_error err;
	c.weights = WC_PREC_INT4;
	CHECK_INT(wc_model_name_apply("Qwen3-8B-FP8", 1, &c, &err), WC_EINVAL);
	CHECK_STR(err.msg, "weights: 'Qwen3-8B-FP8' names fp8 weights, but weights int4 were given");
	CHECK_INT(wc_model_name_apply("Qwen3-8B-FP8", 0, &c, &err), WC_OK);
	CHECK_INT((int)c.weights, (int)WC_PREC_FP8);
	CHECK_INT(wc_model_name_apply("Falcon-40B", 0, &c, &err), WC_ENOTFOUND);
	char note[WC_WARNING_LEN];
	wc_model_name_note("Qwen3-8B-Banana", -1, -1, note, sizeof note);
	CHECK_STR(note, "model: 'Qwen3-8B-Banana' answered as the catalog's Qwen3-8B");
	wc_model_name_note("Qwen/Qwen3-8B", -1, -1, note, sizeof note);
	CHECK_STR(note, "");
	/* an answer says which weights it sized, as a refusal of memory does */
	wc_model_name_note("Qwen3-8B-Banana", WC_PREC_BF16, WC_PREC_BF16, note, sizeof note);
	CHECK_STR(note, "model: 'Qwen3-8B-Banana' answered as the catalog's Qwen3-8B (weights taken as bf16: give "
	                "weights if not)");
	/* the KV-cache scales of "-FP8-KV" apply to an fp8 cache: a bf16 one is said */
	wc_model_name_note("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-KV", WC_PREC_FP8, WC_PREC_BF16, note, sizeof note);
	CHECK_STR(note, "model: 'neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-KV' carries fp8 KV-cache scales, but the "
	                "KV cache is sized as kv bf16: give kv fp8 if the engine stores it in fp8");
	wc_model_name_note("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-KV", WC_PREC_FP8, WC_PREC_FP8, note, sizeof note);
	CHECK_STR(note, "");
}

/* One question on the command line and over HTTP: the weights and the
 * warnings of both (the CLI's text lines carry the same messages). */
static void
same_answer(const char *model, const char *weights, const char *want_weights, const char *want_warning)
{
	char body[256];
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"tp\":4,\"model\":\"%s\",\"concurrency\":32%s%s%s}", model,
	         weights ? ",\"weights\":\"" : "", weights ? weights : "", weights ? "\"" : "");
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "4", "--model", model,
		               "--concurrency", "32", weights ? "--weights" : NULL, weights, NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	if (!want_weights) { /* refused, both naming the name and the weights */
		CHECK_INT(r.status, 422);
		CHECK_STR(http_error_str(&r, "field"), "/weights");
		CHECK_CONTAINS(http_error_str(&r, "message"), want_warning);
		CHECK_INT(rr.status, 2);
		CHECK_CONTAINS(rr.err, want_warning);
	} else {
		CHECK_INT(r.status, 200);
		CHECK_INT(rr.status, 0);
		const json_t *cfg = json_object_get(r.json, "config");
		CHECK_STR(json_string_value(json_object_get(cfg, "weights")), want_weights);
		char line[64];
		snprintf(line, sizeof line, "weights %s,", want_weights);
		CHECK_CONTAINS(rr.out, line);
		const json_t *w = json_object_get(r.json, "warnings");
		int found = 0;
		for (size_t i = 0; i < json_array_size(w); i++)
			found += strstr(json_string_value(json_array_get(w, i)), "answered as the catalog's") != NULL;
		CHECK_INT(found, want_warning ? 1 : 0);
		if (want_warning) {
			CHECK_CONTAINS(json_string_value(json_array_get(w, 0)), want_warning);
			CHECK_CONTAINS(rr.out, want_warning);
		} else {
			CHECK(!strstr(rr.out, "answered as the catalog's"));
		}
	}
	run_result_free(&rr);
	http_reply_free(&r);
}

/* Every route that takes a model refuses a typo of a catalog name as the
 * inference route does: 404 unknown_model at /model, naming the entry it
 * is likely a typo of (fine-tuning said only "unknown model"). */
static void
typo_everywhere(void)
{
	static const struct { const char *path, *body; } routes[] = {
		{ "/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Lama-3.1-8B\",\"concurrency\":8}" },
		{ "/v1/predict/flexibility", "{\"platform\":\"H100\",\"model\":\"Lama-3.1-8B\"}" },
		{ "/v1/predict/finetune", "{\"method\":\"full\",\"model\":\"Lama-3.1-8B\",\"seq_len\":10,\"micro_batch\":8}" },
		{ "/v1/forecast/envelope", "{\"platform\":\"H100\",\"model\":\"Lama-3.1-8B\",\"workload\":{\"type\":"
		                          "\"closed\",\"concurrency\":16},\"horizon_s\":30}" },
		{ "/v1/plan/budget", "{\"platform\":\"H100\",\"model\":\"Lama-3.1-8B\",\"workload\":{\"type\":"
		                    "\"closed\",\"concurrency\":16},\"horizon_s\":30,\"budget_w\":5000}" },
		{ "/v1/predict/finetune/batch", "[{\"method\":\"full\",\"model\":\"Lama-3.1-8B\",\"seq_len\":10,"
		                               "\"micro_batch\":8}]" },
	};
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		http_reply r;
		http_post_json(h, url(routes[i].path), routes[i].body, &r);
		int batch = strstr(routes[i].path, "/batch") != NULL;
		const json_t *err = batch ? json_object_get(json_array_get(json_object_get(r.json, "results"), 0), "error")
		                          : json_object_get(r.json, "error");
		CHECK_INT(batch ? 200 : r.status, batch ? 200 : 404);
		CHECK_STR(json_string_value(json_object_get(err, "code")), "unknown_model");
		CHECK_STR(json_string_value(json_object_get(err, "field")), batch ? "/0/model" : "/model");
		const char *msg = json_string_value(json_object_get(err, "message"));
		CHECK(msg && strstr(msg, "model: unknown model \"Lama-3.1-8B\": did you mean Llama-3.1-8B? (see GET "
		                         "/v1/models, or give") == msg);
		if (!(msg && strstr(msg, "did you mean Llama-3.1-8B?")))
			fprintf(stderr, "  %s: %s\n", routes[i].path, msg ? msg : "(no message)");
		http_reply_free(&r);
	}
}

/* `wattcast models --json` prints GET /v1/models's `models` (docs/cli.md,
 * "models"): the same objects, architecture facts included, for every
 * catalog model (the CLI dropped d_model, heads, experts, cache layers and
 * the sliding window). */
static void
models_same_as_cli(void)
{
	http_reply r;
	http_get(h, url("/v1/models"), &r);
	CHECK_INT(r.status, 200);
	const json_t *http = json_object_get(r.json, "models");
	run_result c;
	CHECK_INT(run_wattcast((const char *[]){ "wattcast", "models", "--json", NULL }, NULL, &c), 0);
	CHECK_INT(c.status, 0);
	json_t *cli = json_loads(c.out ? c.out : "", 0, NULL);
	CHECK_INT((int)json_array_size(http), (int)wc_model_count());
	CHECK_INT((int)json_array_size(cli), (int)wc_model_count());
	int differ = 0;
	for (size_t i = 0; i < json_array_size(http); i++) {
		const json_t *a = json_array_get(http, i), *b = json_array_get(cli, i);
		CHECK_STR(json_string_value(json_object_get(a, "name")), wc_model_at(i)->name);
		CHECK(json_object_get(a, "kv_heads") && json_object_get(a, "sliding_window"));
		if (!json_equal(a, b) && differ++ == 0) {
			char *sa = json_dumps(a, JSON_COMPACT), *sb = json_dumps(b, JSON_COMPACT);
			fprintf(stderr, "  HTTP %s\n  CLI  %s\n", sa ? sa : "?", sb ? sb : "(none)");
			free(sa);
			free(sb);
		}
	}
	CHECK_INT(differ, 0);
	json_decref(cli);
	run_result_free(&c);
	http_reply_free(&r);
}

int
main(void)
{
	test_rule();
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p); /* the CLI's default */
	srv = http_server_start(&p, NULL, 2);
	if (srv) {
		/* the FP8 checkpoint's 235 GB fit 4 x H100; bf16's 470 GB did not */
		same_answer("Qwen/Qwen3-235B-A22B-FP8", NULL, "fp8", NULL);
		same_answer("Qwen3-8B-FP8", NULL, "fp8", NULL);
		same_answer("Qwen3-8B-Int4", NULL, "int4", NULL);
		same_answer("Qwen3-8B-FP8", "bf16", NULL, "'Qwen3-8B-FP8' names fp8 weights, but weights bf16 were given");
		same_answer("Qwen3-8B-Banana", NULL, "bf16", "model: 'Qwen3-8B-Banana' answered as the catalog's Qwen3-8B "
		            "(weights taken as bf16: give weights if not)");
		same_answer("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-KV", NULL, "fp8", NULL);
		same_answer("meta-llama/Llama-3.1-8B-Instruct", NULL, "bf16", NULL);
		same_answer("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", NULL, "fp8", NULL);
		/* a typo is refused with the name it is likely a typo of */
		http_reply t;
		http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\",\"model\":\"Lama-3.1-8B\","
		               "\"concurrency\":8}", &t);
		CHECK_INT(t.status, 404);
		CHECK_CONTAINS(http_error_str(&t, "message"), "model: unknown model \"Lama-3.1-8B\": did you mean "
		                                              "Llama-3.1-8B? (see GET /v1/models");
		http_reply_free(&t);
		typo_everywhere();
		models_same_as_cli();
		same_answer("Qwen/Qwen3-30B-A3B-Instruct-2507", "bf16", "bf16", NULL);
		/* published in MXFP4 (61 GB): bf16 was assumed (234 GB), and one
		 * B200 holding the run ML.ENERGY measured was refused; given
		 * weights still win */
		same_answer("openai/gpt-oss-120b", NULL, "int4", NULL);
		same_answer("openai/gpt-oss-120b", "bf16", "bf16", NULL);
		/* the envelope says what the power answer says of a precision
		 * without a term (it said nothing) */
		http_reply e;
		http_post_json(h, url("/v1/forecast/envelope"), "{\"platform\":\"H100\",\"model\":\"gpt-oss-20b\","
		               "\"workload\":{\"type\":\"closed\",\"concurrency\":16},\"horizon_s\":30,\"replicas\":2}", &e);
		CHECK_INT(e.status, 200);
		json_t *ew = json_object_get(e.json, "warnings");
		int said = 0;
		for (size_t i = 0; i < json_array_size(ew); i++)
			said += strstr(json_string_value(json_array_get(ew, i)), "weights: int4 on H100 has no fitted term") != NULL;
		CHECK_INT(said, 1);
		http_reply_free(&e);
		const char *ev[] = { "wattcast", "envelope", "--platform", "H100", "--model", "gpt-oss-20b", "--closed", "16",
			             "--horizon", "30", "--replicas", "2", NULL };
		run_result er;
		CHECK_INT(run_wattcast(ev, NULL, &er), 0);
		/* only the power falls back to bf16; the step times and memory
		 * are int4's (it said "predicted as bf16", as if all were) */
		CHECK_CONTAINS(er.out, "warning: weights: int4 on H100 has no fitted term; its power is predicted as "
		               "bf16's (step times and memory use int4's bytes; prefill computes at the BF16 rate)");
		run_result_free(&er);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_model_names");
}

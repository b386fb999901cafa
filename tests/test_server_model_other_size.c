/*
 * Names that start with a catalog name but are another, smaller model
 * (docs/capacity.md, "Model names"). "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B"
 * (DeepSeek's 8 B distillation into Qwen3-8B) was answered as the 671 B
 * DeepSeek-R1 (37 B active, fp8; 8 H100s refused, "tp 16"), and
 * "microsoft/Phi-4-mini-instruct" (3.8 B) as the 14.7 B phi-4, whose
 * --active-params 3.8 was refused as conflicting; POST /v1/calibrate filed
 * the R1-Qwen3 runs under shift[DeepSeek-R1@H100] (-64 % on real R1
 * answers once loaded). A later word that begins a catalog name now
 * answers as that one, with a warning; a word that states another size or
 * makes it smaller ("mini") is an unknown model, refused saying why, and
 * answered beside its active parameters. The CLI and HTTP alike.
 */
#include "models/catalog.h"
#include "models/law.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define R1Q "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B"
#define PHI "microsoft/Phi-4-mini-instruct"
#define R1Q_NOTE "model: '" R1Q "' answered as the architecture of Qwen3-8B named in it, not as the catalog's DeepSeek-R1"
#define MM "microsoft/Phi-4-multimodal-instruct"
#define PHI_WHY "its word 'mini' names a size other than the catalog's phi-4 (14.7 B active)"

static CURL *h;

static int
same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void
test_rule(void)
{
	static const struct { const char *name, *entry; } cases[] = {
		{ R1Q, "Qwen3-8B" },
		{ "DeepSeek-R1-0528-Qwen3-8B-FP8", "Qwen3-8B" }, /* the embedded name's own words read */
		{ "deepseek-ai/DeepSeek-R1-0528", "DeepSeek-R1" },
		{ "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "DeepSeek-R1-Distill-Qwen-7B" },
		{ PHI, NULL },
		{ "microsoft/phi-4", "phi-4" },
		{ "nvidia/Mistral-NeMo-Minitron-8B-Base", NULL }, /* 8 B, not Mistral-Nemo's 12.2 */
		{ "nvidia/Mistral-NeMo-12B-Instruct", "Mistral-Nemo" }, /* its own size, rounded */
		{ "Qwen3-32B-8B", NULL },
		{ "gpt-oss-20b-135M", NULL },
		{ "Qwen/Qwen2.5-7B-Instruct-1M", "Qwen2.5-7B" }, /* a context of a million tokens */
		{ "mistralai/Mistral-Small-24B-Instruct-2501", "Mistral-Small-24B" },
		{ "nvidia/NVIDIA-Nemotron-Nano-12B-v2", "NVIDIA-Nemotron-Nano-12B-v2" },
		{ "meta-llama/Llama-4-Scout-17B-16E-Instruct", "Llama-4-Scout-17B-16E" },
		{ "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B" },
		/* a variant that adds encoders of other modalities is another size */
		{ MM, NULL },
		{ "ICTNLP/Llama-3.1-8B-Omni", NULL },
		{ "nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16", NULL },
		{ "org/Qwen3-8B-vision", NULL },
		{ "org/gemma-3-4b-audio", NULL },
		{ "microsoft/Phi-4-reasoning", "phi-4" }, /* a tune of the same weights */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const wc_model_info *m = wc_model_lookup(cases[i].name);
		CHECK(cases[i].entry ? m && same_str(m->name, cases[i].entry) : !m);
		if (cases[i].entry ? !(m && same_str(m->name, cases[i].entry)) : m != NULL)
			fprintf(stderr, "%s -> %s (want %s)\n", cases[i].name, m ? m->name : "none",
			        cases[i].entry ? cases[i].entry : "none");
	}
	/* a size equal to the entry's says nothing new: no warning */
	wc_model_name mn;
	wc_model_name_read("nvidia/Mistral-NeMo-12B-Instruct", &mn);
	CHECK_INT(mn.renamed, 0);
	/* the unknown name offers no "did you mean" of the entry it is not */
	CHECK(!wc_model_suggest(PHI));
}

static void
test_cli(void)
{
	run_result r;
	const char *r1q[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "8", "--model", R1Q,
		              "--concurrency", "8", "--input-tokens", "1000", "--output-tokens", "100", NULL };
	CHECK(run_wattcast(r1q, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "active params 8.19 B");
	CHECK_CONTAINS(r.out, "weights bf16");
	CHECK_CONTAINS(r.out, "  warning: " R1Q_NOTE "\n");
	run_result_free(&r);
	const char *phi[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", PHI,
		              "--concurrency", "8", NULL };
	CHECK(run_wattcast(phi, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--model: unknown model '" PHI "': " PHI_WHY " (give its --active-params beside it)");
	run_result_free(&r);
	const char *sized[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", PHI,
		                "--active-params", "3.8", "--concurrency", "8", NULL };
	CHECK(run_wattcast(sized, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "active params 3.8 B");
	run_result_free(&r);
	/* Phi-4-multimodal (5.6 B: Phi-4-mini's backbone and its encoders)
	 * was answered as phi-4's 14.7 B */
	const char *mm[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", MM,
		             "--concurrency", "8", NULL };
	CHECK(run_wattcast(mm, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--model: unknown model '" MM "': its word 'multimodal' names a size other than the "
	               "catalog's phi-4 (14.7 B active) (give its --active-params beside it)");
	run_result_free(&r);
	const char *mm_sized[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", MM,
		                   "--active-params", "5.6", "--concurrency", "8", NULL };
	CHECK(run_wattcast(mm_sized, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "active params 5.6 B");
	run_result_free(&r);
	/* the envelope says why, as predict does */
	const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--model", MM, "--closed", "8", NULL };
	CHECK(run_wattcast(env, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "its word 'multimodal' names a size other than the catalog's phi-4 (14.7 B active) "
	               "(give its --active-params beside it)");
	run_result_free(&r);
	/* fine-tuning takes the name beside its size and shape too, as the
	 * refusal of the name alone says (it refused both until 2026-12-07) */
	const char *ft[] = { "wattcast", "predict", "finetune", "--method", "lora", "--lora-rank", "8", "--model", PHI,
		             "--micro-batch", "1", "--seq-len", "1024", NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, PHI_WHY " (give its --active-params, --layers and --d-model beside it)");
	run_result_free(&r);
	const char *shape[] = { "--active-params", "3.8", "--layers", "32", "--d-model", "3072" };
	memcpy(&ft[13], shape, sizeof shape);
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "energy per step");
	run_result_free(&r);
	ft[8] = "Qwen3-8B"; /* a catalog model brings its own size */
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--active-params: 'Qwen3-8B' is the catalog's Qwen3-8B (8.19 B): give --model or "
	               "--active-params, not both");
	run_result_free(&r);
	/* a runs table names the reason too, with no "did you mean phi-4?" */
	char *dir = test_tmpdir("server_model_other_size");
	char *csv = test_fixture(dir, "phi.csv", "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	                                         "r1,H100,1," PHI ",,16,450\n");
	char *out = path_join(dir, "c.json");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", out, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(cal, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "(model '" PHI "' is not in the catalog: " PHI_WHY ")");
	CHECK(!strstr(r.err ? r.err : "", "did you mean"));
	run_result_free(&r);
	free(csv);
	free(out);
	free(dir);
}

static void
test_http(void)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\",\"tp\":8,\"model\":\"" R1Q "\","
	               "\"concurrency\":8,\"input_tokens\":1000,\"output_tokens\":100}", &r);
	CHECK_INT(r.status, 200);
	const json_t *cfg = json_object_get(r.json, "config");
	CHECK(json_real_value(json_object_get(cfg, "active_params_b")) == 8.19);
	CHECK(same_str(json_string_value(json_object_get(cfg, "weights")), "bf16"));
	const json_t *w = json_object_get(r.json, "warnings");
	int said = 0;
	for (size_t i = 0; i < json_array_size(w); i++)
		said += same_str(json_string_value(json_array_get(w, i)), R1Q_NOTE);
	CHECK_INT(said, 1);
	http_reply_free(&r);
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\",\"model\":\"" PHI "\",\"concurrency\":8}",
	               &r);
	CHECK_INT(r.status, 404);
	CHECK(same_str(http_error_str(&r, "code"), "unknown_model"));
	CHECK(same_str(http_error_str(&r, "field"), "/model"));
	CHECK_CONTAINS(http_error_str(&r, "message"), PHI_WHY " (give its active_params_b beside it)");
	http_reply_free(&r);
	http_post_json(h, url("/v1/predict/inference"), "{\"platform\":\"H100\",\"model\":\"" PHI "\","
	               "\"active_params_b\":3.8,\"concurrency\":8}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	http_post_json(h, url("/v1/predict/finetune"), "{\"platform\":\"H100\",\"model\":\"" PHI "\",\"method\":\"lora\","
	               "\"lora_rank\":8,\"micro_batch\":1,\"seq_len\":1024}", &r);
	CHECK_INT(r.status, 404);
	CHECK_CONTAINS(http_error_str(&r, "message"), PHI_WHY " (give its active_params_b, layers and d_model beside it)");
	http_reply_free(&r);
	http_post_json(h, url("/v1/predict/finetune"), "{\"platform\":\"H100\",\"model\":\"" PHI "\",\"method\":\"lora\","
	               "\"lora_rank\":8,\"micro_batch\":1,\"seq_len\":1024,\"active_params_b\":3.8,\"layers\":32,"
	               "\"d_model\":3072}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	/* calibration files the runs under the model the name resolves to */
	http_post_json(h, url("/v1/calibrate"), "{\"bootstrap\":0,\"runs\":["
	               "{\"platform\":\"H100\",\"tp\":1,\"model\":\"" R1Q "\",\"running\":8,\"mean_power_w\":380},"
	               "{\"platform\":\"H100\",\"tp\":1,\"model\":\"" R1Q "\",\"running\":32,\"mean_power_w\":450}]}", &r);
	CHECK_INT(r.status, 200);
	const json_t *terms = json_object_get(json_object_get(r.json, "params"), "model_terms");
	CHECK_INT((int)json_array_size(terms), 1);
	CHECK(same_str(json_string_value(json_object_get(json_array_get(terms, 0), "model")), "Qwen3-8B"));
	w = json_object_get(r.json, "warnings");
	said = 0;
	for (size_t i = 0; i < json_array_size(w); i++)
		said += same_str(json_string_value(json_array_get(w, i)), "runs/0/" R1Q_NOTE);
	CHECK_INT(said, 1);
	http_reply_free(&r);
}

int
main(void)
{
	test_rule();
	test_cli();
	wc_params p = WC_PARAMS_INIT;
	wc_params_measured(&p);
	wc_server *srv = http_server_start(&p, "model-other-size", 2);
	if (!srv)
		return check_report("test_server_model_other_size");
	h = curl_easy_init();
	test_http();
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_model_other_size");
}

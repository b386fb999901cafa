/*
 * POST /v1/predict/finetune and /v1/predict/finetune/batch over real HTTP
 * (docs/http-api.md): the published law answers with the same numbers as
 * the library, a fitted law adds its interval, bad fields (negative batch,
 * zero sequence length, unknown method, rank <= 0, ...) are 422 with the
 * field's pointer, an unknown model 404, a batch isolates a bad item, and
 * a set without a fine-tuning law answers 422 no_finetune_law.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "fit/finetune_fit.h"
#include "server/server.h"
#include "validation/validation.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>

static CURL *h;

/* A string of the answer equal to `want` (NULL: absent or not a string). */
#define CHECK_STR(got, want)                                                          \
	do {                                                                          \
		const char *got_ = (got);                                             \
		CHECK(got_ && strcmp(got_, (want)) == 0);                             \
		if (!got_ || strcmp(got_, (want)) != 0)                               \
			fprintf(stderr, "  expected \"%s\", got \"%s\"\n", (want),          \
			        got_ ? got_ : "(null)");                              \
	} while (0)

static json_t *
post_ok(const char *path, const char *body)
{
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "  %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	json_t *j = r.json;
	r.json = NULL;
	http_reply_free(&r);
	return j;
}

static void
expect(const char *body, long status, const char *code, const char *field)
{
	http_reply r;
	int before = check_failures;
	http_post_json(h, url("/v1/predict/finetune"), body, &r);
	CHECK_INT(r.status, status);
	CHECK(http_error_str(&r, "code") && strcmp(http_error_str(&r, "code"), code) == 0);
	CHECK(http_error_str(&r, "field") && strcmp(http_error_str(&r, "field"), field) == 0);
	/* the message starts with the field (an unknown one is quoted) */
	if (strcmp(code, "unknown_field") != 0)
		CHECK(http_error_str(&r, "message") &&
		      strncmp(http_error_str(&r, "message"), field[0] ? field + 1 : "", field[0] ? strlen(field) - 1 : 0) == 0);
	if (check_failures != before)
		fprintf(stderr, "  case %s -> %ld %s\n", body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

static void
published_law(void)
{
	json_t *j = post_ok("/v1/predict/finetune",
	                    "{\"method\":\"qlora\",\"model\":\"Llama-3.1-8B\",\"micro_batch\":8,\"seq_len\":1024,"
	                    "\"grad_accum\":4,\"gpus\":4,\"lora_rank\":64,\"steps\":1000}");
	wc_ft_config c = WC_FT_CONFIG_INIT;
	wc_ft_flops f;
	wc_ft_config_from_model(&c, wc_model_lookup("Llama-3.1-8B"));
	c.lora_rank = 64;
	c.micro_batch = 8;
	c.seq_len = 1024;
	c.grad_accum = 4;
	c.gpus = 4;
	CHECK_INT(wc_ft_flops_compute(&c, &f, NULL), WC_OK);
	/* e0 per GPU (docs/finetune.md, "e0 and the number of GPUs"): four
	 * GPUs spend four times the fixed energy. */
	double e = 4 * 2176.3 + 4.5241 * f.flops_per_step_tflop;
	CHECK_NEAR(http_json_num(j, "energy_per_step_j"), e, 1e-6 * e);
	CHECK_NEAR(http_json_num(j, "energy_per_token_j"), e / (8.0 * 1024 * 4 * 4), 1e-6);
	CHECK_NEAR(http_json_num(j, "energy_total_kwh"), 1000 * e / 3.6e6, 1e-6);
	CHECK_NEAR(http_json_num(j, "flops_per_step_tflop"), f.flops_per_step_tflop, 1e-6);
	CHECK(json_is_null(json_object_get(j, "interval_95")));
	/* Which figure is the prediction, and how e0 entered it. */
	const json_t *law = json_object_get(j, "law");
	CHECK(law && strcmp(json_string_value(json_object_get(law, "prediction_from")), "compute_law") == 0);
	CHECK(strcmp(json_string_value(json_object_get(law, "e0_per")), "gpu") == 0);
	CHECK_NEAR(http_json_num(law, "fixed_energy_per_step_j"), 4 * 2176.3, 1e-6);
	CHECK_NEAR(http_json_num(law, "fixed_energy_per_step_j") + http_json_num(law, "compute_energy_per_step_j"), e, 1e-6 * e);
	CHECK(json_is_null(json_object_get(law, "calibrated")));
	CHECK(strcmp(json_string_value(json_object_get(law, "e0_source")), "published") == 0);
	/* Every answer names its profile and level source (docs/http-api.md,
	 * "Profiles"): the built-in law was published. */
	CHECK_STR(json_string_value(json_object_get(j, "profile")), "paper");
	CHECK_STR(json_string_value(json_object_get(j, "level_source")), "published");
	/* Four GPUs: outside the calibration's one. */
	const json_t *w = json_object_get(j, "warnings");
	CHECK(json_array_size(w) == 2 && strncmp(json_string_value(json_array_get(w, 0)), "gpus:", 5) == 0);
	/* The built-in law has neither draws nor a held-out error: no
	 * interval, and a warning says why (docs/intervals.md). */
	CHECK_CONTAINS(json_string_value(json_array_get(w, 1)), "interval_95: none");
	const json_t *rel = json_object_get(json_object_get(j, "relations"), "batch_size");
	CHECK_NEAR(http_json_num(rel, "energy_per_token_j"), 0.7555 + 1.2552 / 8, 1e-9);
	CHECK(json_is_null(json_object_get(rel, "on_sweep")));
	json_decref(j);
	/* Another method and platform are named. */
	j = post_ok("/v1/predict/finetune", "{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":2,"
	            "\"seq_len\":2048,\"platform\":\"H100\"}");
	w = json_object_get(j, "warnings");
	CHECK(json_array_size(w) == 3);
	CHECK_CONTAINS(json_string_value(json_array_get(w, 2)), "interval_95: none");
	CHECK_CONTAINS(json_string_value(json_array_get(w, 0)), "platform: H100 differs");
	CHECK_CONTAINS(json_string_value(json_array_get(w, 1)), "method: full is outside the calibration");
	/* Another GPU keeps the law's source: the law is the section's one level. */
	CHECK_STR(json_string_value(json_object_get(j, "level_source")), "published");
	json_decref(j);
}

static void
refusals(void)
{
	const char *base = "\"model\":\"Qwen3-8B\",\"seq_len\":1024";
	char body[512];
	snprintf(body, sizeof body, "{\"method\":\"qlora\",%s,\"micro_batch\":-2,\"lora_rank\":8}", base);
	expect(body, 422, "invalid_value", "/micro_batch");
	expect("{\"method\":\"qlora\",\"model\":\"Qwen3-8B\",\"seq_len\":0,\"micro_batch\":8,\"lora_rank\":8}",
	       422, "invalid_value", "/seq_len");
	snprintf(body, sizeof body, "{\"method\":\"dora\",%s,\"micro_batch\":8,\"lora_rank\":8}", base);
	expect(body, 422, "invalid_value", "/method");
	snprintf(body, sizeof body, "{\"method\":\"lora\",%s,\"micro_batch\":8,\"lora_rank\":0}", base);
	expect(body, 422, "invalid_value", "/lora_rank");
	snprintf(body, sizeof body, "{\"method\":\"lora\",%s,\"micro_batch\":8}", base);
	expect(body, 422, "missing_field", "/lora_rank");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"lora_rank\":8}", base);
	expect(body, 422, "conflicting_fields", "/lora_rank");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":1.5}", base);
	expect(body, 422, "wrong_type", "/micro_batch");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"colour\":1}", base);
	expect(body, 422, "unknown_field", "/colour");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"gpus\":4,\"data_parallel\":3}", base);
	expect(body, 422, "invalid_value", "/data_parallel");
	expect("{\"method\":\"full\",\"active_params_b\":7,\"layers\":32,\"seq_len\":10,\"micro_batch\":8}", 422,
	       "missing_field", "/d_model");
	expect("{\"method\":\"full\",\"model\":\"GPT-7\",\"seq_len\":10,\"micro_batch\":8}", 404, "unknown_model",
	       "/model");
	expect("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"layers\":3,\"seq_len\":10,\"micro_batch\":8}", 422,
	       "conflicting_fields", "/layers");
	/* A token count that would make an energy non-finite is refused on its
	 * field: never a 200 without energy_per_token_j, never field "". */
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"tokens_per_step\":5e-324}", base);
	expect(body, 422, "invalid_value", "/tokens_per_step");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"tokens_per_step\":1e308}", base);
	expect(body, 422, "invalid_value", "/tokens_per_step");
	snprintf(body, sizeof body, "{\"method\":\"full\",%s,\"micro_batch\":8,\"tokens_per_step\":0.5}", base);
	expect(body, 422, "invalid_value", "/tokens_per_step");
	/* The library's params_b is the request's active_params_b: the message
	 * starts with the field's name (expect checks it). */
	expect("{\"method\":\"full\",\"active_params_b\":1e308,\"layers\":32,\"d_model\":4096,\"micro_batch\":8,"
	       "\"seq_len\":1024}", 422, "invalid_value", "/active_params_b");
	/* -0 steps is 0 steps: no energy of -0 kWh. */
	json_t *z = post_ok("/v1/predict/finetune", "{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"seq_len\":10,"
	                    "\"micro_batch\":8,\"steps\":-0.0}");
	CHECK(json_is_number(json_object_get(z, "energy_total_kwh")) && http_json_num(z, "energy_total_kwh") == 0 &&
	      !signbit(http_json_num(z, "energy_total_kwh")) && !signbit(http_json_num(z, "steps")));
	json_decref(z);
	/* A profile by name answers; an unknown one is refused on its field. */
	json_t *j = post_ok("/v1/predict/finetune", "{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"seq_len\":10,"
	                    "\"micro_batch\":8,\"profile\":\"paper\"}");
	CHECK(isfinite(http_json_num(j, "energy_per_step_j")));
	json_decref(j);
	expect("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"seq_len\":10,\"micro_batch\":8,\"profile\":\"nope\"}",
	       422, "unknown_profile", "/profile");
}

static void
batch(void)
{
	json_t *j = post_ok("/v1/predict/finetune/batch",
	                    "[{\"method\":\"lora\",\"model\":\"Qwen3-4B\",\"micro_batch\":8,\"seq_len\":512,\"lora_rank\":16},"
	                    "{\"method\":\"lora\",\"model\":\"Qwen3-4B\",\"micro_batch\":-8,\"seq_len\":512,\"lora_rank\":16}]");
	CHECK_INT(json_integer_value(json_object_get(j, "count")), 2);
	CHECK_INT(json_integer_value(json_object_get(j, "failed")), 1);
	const json_t *res = json_object_get(j, "results");
	CHECK(isfinite(http_json_num(json_array_get(res, 0), "energy_per_step_j")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(res, 0), "profile")), "paper");
	CHECK_STR(json_string_value(json_object_get(json_array_get(res, 0), "level_source")), "published");
	const json_t *e = json_object_get(json_array_get(res, 1), "error");
	CHECK(e && strcmp(json_string_value(json_object_get(e, "field")), "/1/micro_batch") == 0);
	CHECK_INT(json_integer_value(json_object_get(e, "index")), 1);
	json_decref(j);
	http_reply r;
	http_post_json(h, url("/v1/predict/finetune/batch"), "{}", &r);
	CHECK_INT(r.status, 422);
	CHECK_CONTAINS(http_error_str(&r, "message"), "fine-tuning requests");
	http_reply_free(&r);
}

/* A fitted law: its bootstrap interval brackets the point. */
static void
fitted_law(wc_server *srv)
{
	wc_params p = WC_PARAMS_INIT;
	wc_ft_simulate_options so = WC_FT_SIMULATE_OPTIONS_INIT;
	wc_bootstrap_options bo = { 200, 1, 2 };
	wc_ft_table *t = NULL;
	wc_ft_fit_result fr;
	wc_params_default(&p);
	CHECK_INT(wc_simulate_finetune(&p, &so, &t, NULL), WC_OK);
	CHECK_INT(wc_fit_finetune(t, &bo, &fr, NULL), WC_OK);
	CHECK_INT(wc_finetune_params_copy(&p.finetune, &fr.section, NULL), WC_OK);
	CHECK_INT(wc_server_reload(srv, &p, "fitted", NULL), WC_OK);
	json_t *j = post_ok("/v1/predict/finetune", "{\"method\":\"qlora\",\"model\":\"Qwen3-4B\",\"micro_batch\":8,"
	                    "\"seq_len\":1024,\"grad_accum\":4,\"lora_rank\":64,\"steps\":10}");
	const json_t *iv = json_object_get(j, "interval_95");
	double e = http_json_num(j, "energy_per_step_j");
	const json_t *pair = json_object_get(iv, "energy_per_step_j");
	CHECK(json_number_value(json_array_get(pair, 0)) < e && e < json_number_value(json_array_get(pair, 1)));
	CHECK_INT(json_integer_value(json_object_get(iv, "draws")), 200);
	/* On the sequence-length sweep: the relation is a check. */
	const json_t *rel = json_object_get(json_object_get(j, "relations"), "sequence_length");
	CHECK(json_is_true(json_object_get(rel, "on_sweep")));
	CHECK(fabs(http_json_num(rel, "difference_pct")) < 5);
	/* Draws but no held-out error: the interval says what it covers. */
	CHECK_INT(json_array_size(json_object_get(j, "warnings")), 1);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j, "warnings"), 0)),
	               "covers the parameters' uncertainty only");
	CHECK(strcmp(json_string_value(json_object_get(iv, "covers")), "parameters") == 0);
	json_decref(j);
	/* Packed steps, 16 000 of the 32 768 tokens the sweep's steps held:
	 * not on the sweep, so no comparison and no warning (it was compared
	 * as on it, and warned of a gap of the law's own fixed energy per
	 * token). The same step written out in full stays on it. */
	const char *packed[2] = { "16000", "32768" };
	for (int i = 0; i < 2; i++) {
		char body[256];
		snprintf(body, sizeof body, "{\"method\":\"qlora\",\"model\":\"Qwen3-4B\",\"micro_batch\":8,"
		         "\"seq_len\":1024,\"grad_accum\":4,\"lora_rank\":64,\"tokens_per_step\":%s}", packed[i]);
		j = post_ok("/v1/predict/finetune", body);
		rel = json_object_get(json_object_get(j, "relations"), "sequence_length");
		CHECK(json_is_boolean(json_object_get(rel, "on_sweep")) &&
		      json_is_true(json_object_get(rel, "on_sweep")) == (i == 1));
		CHECK(i == 1 ? fabs(http_json_num(rel, "difference_pct")) < 5
		             : json_is_null(json_object_get(rel, "difference_pct")));
		for (size_t w = 0; w < json_array_size(json_object_get(j, "warnings")); w++)
			CHECK(!strstr(json_string_value(json_array_get(json_object_get(j, "warnings"), w)), "relations/"));
		json_decref(j);
	}
	/* A fitted law says so; a calibrated one too; e0 and kappa of different
	 * sources (no command writes that) name none. */
	const char *src_body = "{\"method\":\"qlora\",\"model\":\"Qwen3-4B\",\"micro_batch\":8,\"seq_len\":1024,"
	                       "\"lora_rank\":64}";
	j = post_ok("/v1/predict/finetune", src_body);
	CHECK_STR(json_string_value(json_object_get(j, "level_source")), "fitted");
	CHECK_STR(json_string_value(json_object_get(j, "profile")), p.name);
	json_decref(j);
	p.finetune.calibrated.present = 1;
	p.finetune.calibrated.factor = (wc_param){ 1.0, NAN, NAN, WC_SRC_CALIBRATED };
	CHECK_INT(wc_server_reload(srv, &p, "calibrated", NULL), WC_OK);
	j = post_ok("/v1/predict/finetune", src_body);
	CHECK_STR(json_string_value(json_object_get(j, "level_source")), "calibrated");
	json_decref(j);
	p.finetune.calibrated.present = 0;
	p.finetune.kappa.source = WC_SRC_PUBLISHED;
	CHECK_INT(wc_server_reload(srv, &p, "mixed", NULL), WC_OK);
	j = post_ok("/v1/predict/finetune", src_body);
	CHECK(json_is_null(json_object_get(j, "level_source")));
	json_decref(j);
	/* A law with e0 < 0 gives a small step no energy: the configuration
	 * is refused with its own code, not as a set without a law. */
	p.finetune.e0.value = -1e6;
	p.finetune.e0.lo = p.finetune.e0.hi = NAN; /* an interval contains its value */
	CHECK_INT(wc_server_reload(srv, &p, "negative-e0", NULL), WC_OK);
	expect("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"seq_len\":10,\"micro_batch\":8}", 422,
	       "law_gives_no_energy", "");
	/* A set without a fine-tuning law. */
	wc_finetune_params_clear(&p.finetune);
	CHECK_INT(wc_server_reload(srv, &p, "no-finetune", NULL), WC_OK);
	expect("{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"seq_len\":10,\"micro_batch\":8}", 422,
	       "no_finetune_law", "");
	wc_ft_fit_result_clear(&fr);
	wc_ft_table_free(t);
	wc_params_clear(&p);
}

/* A model-name suffix the name rule does not know: inference warns it
 * naming the entry that answered, and fine-tuning, on the CLI and over
 * HTTP, says it alike (it answered the catalog's shape silently). */
static void
unknown_suffix(void)
{
	const char *want = "model: 'Qwen3-8B-Banana' answered as the catalog's Qwen3-8B";
	for (int k = 0; k < 2; k++) {
		char body[160];
		snprintf(body, sizeof body, "{\"method\":\"qlora\",\"model\":\"%s\",\"micro_batch\":8,\"seq_len\":1024,"
		         "\"lora_rank\":64}", k ? "Qwen/Qwen3-8B" : "Qwen3-8B-Banana");
		json_t *j = post_ok("/v1/predict/finetune", body);
		const json_t *w = json_object_get(j, "warnings");
		int said = 0;
		for (size_t i = 0; i < json_array_size(w); i++)
			said += strcmp(json_string_value(json_array_get(w, i)), want) == 0;
		CHECK_INT(said, k ? 0 : 1);
		json_decref(j);
	}
	const char *argv[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--model", "Qwen3-8B-Banana",
		               "--micro-batch", "8", "--seq-len", "1024", "--lora-rank", "64", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_CONTAINS(r.out, want);
	run_result_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	srv = http_server_start(&paper, "profile:paper", 4);
	if (srv) {
		published_law();
		refusals();
		batch();
		unknown_suffix();
		fitted_law(srv);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_finetune");
}

/*
 * Parameter files evolve without breaking users
 * (docs/formats/params-file.md, "Versioning"): a file written by the
 * first release (schema 1, tests/fixtures/params/) still loads and
 * predicts the same; schema 2's sections round-trip with their draws; and
 * optional keys may be left out of a hand-written file (an absent
 * floor_logit or term value reads as null, it does not crash the loader).
 */
#include "data/data.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

/* The key schema 5 adds to the published fine-tuning section, as the dump
 * writes it: files of older schemas do not carry it. */
#define E0_PER_LINE ",\n      \"e0_per\": \"gpu\""

static void
v1_file_loads(void)
{
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "tests/fixtures/params/v1-power-law-fit.json");
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(path, &p, &err), WC_OK);
	CHECK_INT(p.form, WC_FORM_POWER_LAW);
	CHECK(p.n_draws == 50 && !p.capacity.present && !p.finetune.present);
	/* The value the first release predicted for this file (its own
	 * `predict inference --json`, kept here as a number). */
	wc_config c = WC_CONFIG_INIT;
	wc_power pw;
	c.platform = "H100";
	c.active_params_b = 8.19;
	c.tp = 2;
	c.running = 17;
	CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_OK);
	CHECK_NEAR(pw.node_power_w, 883.0142411, 1e-6);
	/* Re-written as the current schema, it reads back the same. */
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"schema\": \"wattcast.params/19\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v3", &q, &err), WC_OK);
	CHECK_INT(wc_law_power(&q, &c, &pw, &err), WC_OK);
	CHECK_NEAR(pw.node_power_w, 883.0142411, 1e-6);
	CHECK(q.n_draws == p.n_draws && memcmp(q.draws, p.draws, sizeof(double) * p.n_draws * p.n_draw_params) == 0);
	free(s);
	free(path);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

static void
sections_round_trip(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT, r = WC_PARAMS_INIT;
	wc_error err;
	char names[2][WC_LABEL_MAX] = { "eta[H100]", "t0[H100]" };
	double v[4] = { 0.7, 1e-3, 0.65, 1.1e-3 };
	wc_params_default(&p);
	wc_capacity_params_clear(&p.capacity);
	wc_capacity_params_init(&p.capacity);
	p.capacity.present = 1;
	p.capacity.n_levels = 1;
	snprintf(p.capacity.levels[0].name, WC_NAME_MAX, "H100");
	p.capacity.levels[0].bandwidth_tb_s = 3.35;
	p.capacity.levels[0].bf16_tflops = 989;
	p.capacity.levels[0].memory_gb = 80;
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		p.capacity.shared[k] = k >= WC_CAP_T1;
		p.capacity.levels[0].p[k] = (wc_param){ 0.5, NAN, NAN, WC_SRC_FITTED };
		p.capacity.shared_p[k] = (wc_param){ 1e-5, 1e-6, 2e-5, WC_SRC_FITTED };
	}
	CHECK_INT(wc_draws_set(&p.capacity.draws, 2, 2, (const char (*)[WC_LABEL_MAX])names, v, &err), WC_OK);
	p.finetune.present = 1;
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &q, &err), WC_OK);
	CHECK(q.capacity.present && q.finetune.present);
	CHECK(q.capacity.draws.n == 2 && q.capacity.draws.k == 2);
	CHECK(q.capacity.draws.values[3] == 1.1e-3);
	CHECK(strcmp(q.capacity.draws.names[1], "t0[H100]") == 0);
	CHECK(q.capacity.shared[WC_CAP_TAU] && !q.capacity.shared[WC_CAP_ETA]);
	CHECK(q.capacity.shared_p[WC_CAP_TAU].hi == 2e-5 && q.capacity.levels[0].p[WC_CAP_T0].value == 0.5);
	CHECK(isnan(q.capacity.price_per_kwh) && q.capacity.memory_reserve == WC_CAPACITY_DEFAULT_RESERVE);
	/* The section's first draft (draws only) loads as no capacity model. */
	char *old = wc_params_dump(&p, 0, &err), *cap = strstr(old, "\"capacity\": {");
	CHECK(cap != NULL);
	if (cap) {
		const char *draft = "\"capacity\": {\"draws\": null},\n  ";
		char *end = strstr(cap, "\"finetune\"");
		memmove(cap + strlen(draft), end, strlen(end) + 1);
		memcpy(cap, draft, strlen(draft));
		CHECK_INT(wc_params_load_buffer(old, strlen(old), "old", &r, &err), WC_OK);
		CHECK(!r.capacity.present);
		wc_params_clear(&r);
	}
	free(old);
	/* A deep copy owns its own sections (ASan would see a double free). */
	CHECK_INT(wc_params_copy(&r, &q, &err), WC_OK);
	CHECK(r.capacity.draws.values != q.capacity.draws.values);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
	wc_params_clear(&r);
}

/* Text of the default profile with the first `from` replaced by `to`. */
static char *
edited(const char *from, const char *to)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	p.pred_error.present = 0; /* older schemas have no prediction_error(s) */
	for (int k = 0; k < WC_PEQ_COUNT; k++)
		p.quantity_error[k].present = 0;
	char *s = wc_params_dump(&p, 0, NULL), *at = strstr(s, from);
	wc_params_clear(&p);
	CHECK(at != NULL);
	if (!at)
		return s;
	char *o = malloc(strlen(s) + strlen(to) + 1);
	memcpy(o, s, (size_t)(at - s));
	strcpy(o + (at - s), to);
	strcat(o, at + strlen(from));
	free(s);
	return o;
}

/* `s` (malloc'd, freed) with the first `from` replaced by `to`. */
/* Schema 4 and older: the fine-tuning law's e0 was the job's, whatever
 * the GPUs, and such files predict as they did; e0_per, residual_rms and
 * calibrated need schema 5, where they round-trip. */
static void
v4_finetune_e0_per_job(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	char *s = edited("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/4\"");
	CHECK(wc_params_load_buffer(s, strlen(s), "v4", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "e0_per");
	s = test_replaced(s, E0_PER_LINE, "");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v4", &p, &err), WC_OK);
	free(s);
	CHECK(p.finetune.present && p.finetune.e0_scope == WC_FT_E0_PER_JOB);
	wc_ft_config c = WC_FT_CONFIG_INIT;
	wc_ft_binding b;
	wc_ft_point pt;
	wc_ft_config_from_model(&c, wc_model_lookup("Llama-3.1-8B"));
	c.lora_rank = 64;
	c.micro_batch = 8;
	c.seq_len = 1024;
	c.grad_accum = 4;
	c.gpus = 4;
	CHECK_INT(wc_ft_bind(&p.finetune, &c, &b, &err), WC_OK);
	wc_ft_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.energy_per_step_j, 22196.58942, 1e-4); /* what schema 4 predicted */
	/* Re-written as schema 5 it keeps its meaning, and the new keys round-trip. */
	p.finetune.residual_rms = 0.03;
	p.finetune.calibrated = (wc_ft_calibrated){ .present = 1, .mode = WC_FT_CAL_KAPPA, .runs = 2,
	                                            .run_scatter = 0.05, .base_version = "0123456789abcdef",
	                                            .base_name = "paper" };
	p.finetune.calibrated.factor = (wc_param){ 0.5, 0.4, 0.6, WC_SRC_CALIBRATED };
	s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"e0_per\": \"job\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v5", &q, &err), WC_OK);
	const wc_ft_calibrated *k = &q.finetune.calibrated;
	CHECK(q.finetune.e0_scope == WC_FT_E0_PER_JOB && q.finetune.residual_rms == 0.03);
	CHECK(k->present && k->mode == WC_FT_CAL_KAPPA && k->runs == 2 && k->factor.value == 0.5 &&
	      k->factor.lo == 0.4 && k->run_scatter == 0.05 && strcmp(k->base_version, "0123456789abcdef") == 0);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

static void
optional_keys_may_be_absent(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	/* floor_logit of a level (null in the dump), and a term's value. */
	char *s = edited("\"floor_logit\": null,", "");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &p, &err), WC_OK);
	CHECK(isnan(p.levels[0].floor_logit.value));
	free(s);
	s = edited("\"value\": null,", "");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &p, &err), WC_OK);
	free(s);
	/* a required one missing is still refused, with the path */
	s = edited("\"theta\": {", "\"theta_\": {");
	CHECK(wc_params_load_buffer(s, strlen(s), "t", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/levels/0");
	free(s);
	wc_params_clear(&p);
}

/* Schema 2 (no model terms, no residual RMS) still loads; a model term
 * round-trips through schema 3 and applies to every variant of its model
 * on its level, in the point and in the draws. */
static void
v2_file_and_model_terms(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	char *s = edited("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/2\"");
	s = test_replaced(s, E0_PER_LINE, "");
	s = test_replaced(s, "\"model_terms\": [],", "");
	s = test_replaced(s, "\"created_utc\": null,\n    \"residual_rms\": null", "\"created_utc\": null");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v2", &p, &err), WC_OK);
	free(s);

	wc_config c = WC_CONFIG_INIT;
	wc_power before, after;
	c.platform = "H100";
	c.active_params_b = 8.19;
	c.running = 32;
	c.model = "Qwen/Qwen3-8B-FP8";
	CHECK_INT(wc_law_power(&p, &c, &before, &err), WC_OK);
	wc_model_term *m = &p.model_terms[p.n_model_terms++];
	snprintf(m->model, sizeof m->model, "Qwen3-8B");
	snprintf(m->level, sizeof m->level, "H100");
	m->shift = (wc_param){ -0.5, -0.7, -0.3, WC_SRC_CALIBRATED };
	m->runs = 1;
	p.residual_rms = 0.05;
	s = wc_params_dump(&p, 1, &err);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v3", &q, &err), WC_OK);
	free(s);
	CHECK_INT(q.n_model_terms, 1);
	CHECK(q.residual_rms == 0.05 && q.model_terms[0].shift.value == -0.5 &&
	      q.model_terms[0].shift.source == WC_SRC_CALIBRATED && q.model_terms[0].runs == 1);
	CHECK_INT(wc_law_power(&q, &c, &after, &err), WC_OK);
	CHECK(after.node_power_w < before.node_power_w - 10);
	/* Same as the law with theta lowered by the shift. */
	q.levels[1].theta.value -= 0.5;
	c.model = "Llama-3.1-8B";
	CHECK_INT(wc_law_power(&q, &c, &before, &err), WC_OK);
	CHECK_NEAR(after.node_power_w, before.node_power_w, 1e-9);
	/* Another level is untouched. */
	c.platform = "H200";
	c.model = "Qwen3-8B";
	CHECK_INT(wc_law_power(&q, &c, &after, &err), WC_OK);
	CHECK_NEAR(after.node_power_w, 613.0, 1.0);
	char label[WC_LABEL_MAX];
	wc_model_term_label(&q.model_terms[0], label, sizeof label);
	CHECK(strcmp(label, "shift[Qwen3-8B@H100]") == 0);
	double v;
	CHECK_INT(wc_params_get_named(&q, label, &v), WC_OK);
	CHECK(v == -0.5);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

/* Schema 3 (no phi) still loads and predicts as before; phi needs schema
 * 4, and a prefill-form set round-trips it. */
static void
v3_file_and_phi(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	char *s = edited("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/3\"");
	s = test_replaced(s, E0_PER_LINE, "");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v3", &p, &err), WC_OK);
	CHECK(p.phi.value == 1.0 && p.phi.source == WC_SRC_ASSUMED);
	s = test_replaced(s, "\"kappa\": {", "\"phi\": {\"value\": 1.2, \"source\": \"fitted\"}, \"kappa\": {");
	CHECK(wc_params_load_buffer(s, strlen(s), "v3", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/shared/phi");
	CHECK_CONTAINS(err.msg, "wattcast.params/4");
	free(s);
	p.form = WC_FORM_PREFILL;
	p.phi = (wc_param){ 1.25, 1.1, 1.4, WC_SRC_FITTED };
	s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"phi\"");
	CHECK_CONTAINS(s, "saturating_prefill");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v4", &q, &err), WC_OK);
	CHECK(q.form == WC_FORM_PREFILL && q.phi.value == 1.25 && q.phi.lo == 1.1 && q.phi.hi == 1.4);
	free(s);
	/* A published-form set does not write phi (its files stay as they were). */
	p.form = WC_FORM_SATURATING_QUADRATIC;
	s = wc_params_dump(&p, 1, &err);
	CHECK(strstr(s, "\"phi\"") == NULL);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

/* Schema 7 has no response dynamic scale: such a file loads with the
 * law's dynamic power as it is (scale 1), and may not carry the key
 * (refused by path); schema 8 round-trips it. */
static void
v7_response_dynamic_scale(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	wc_response_assumed(&p.response);
	p.response.fitted = 1;
	p.response.runs = 8;
	p.response.dynamic_scale = (wc_response_value){ 0.892, 0.808, 0.988 };
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"schema\": \"wattcast.params/19\"");
	CHECK_CONTAINS(s, "\"dynamic_scale\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v8", &q, &err), WC_OK);
	CHECK(q.response.present && q.response.dynamic_scale.value == 0.892 && q.response.dynamic_scale.lo == 0.808);
	CHECK(wc_response_dynamic_scale(&q.response) == 0.892);
	wc_params_clear(&q);
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/7\"");
	CHECK(wc_params_load_buffer(s, strlen(s), "v7", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response/dynamic_scale");
	CHECK_CONTAINS(err.msg, "wattcast.params/8");
	free(s);
	/* Without the key, the same /7 file loads and keeps the law as it is. */
	p.response.dynamic_scale = (wc_response_value){ 1.0, NAN, NAN };
	s = wc_params_dump(&p, 1, &err);
	CHECK(strstr(s, "\"dynamic_scale\"") == NULL);
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/7\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v7", &q, &err), WC_OK);
	CHECK(q.response.present && wc_response_dynamic_scale(&q.response) == 1.0);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

/* Schema 10: a calibration's record, a fitted response's record and the
 * fine-tuning section's own time round-trip; a /9 file may not carry them
 * (refused by path), and a record's time or hash of another shape is
 * refused as the top-level record's is. */
static void
v9_records(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	snprintf(p.calibration.fitted_on, sizeof p.calibration.fitted_on, "cal.csv");
	snprintf(p.calibration.input_sha256, sizeof p.calibration.input_sha256, "%064d", 7);
	p.calibration.runs = 3;
	p.calibration.seed = 5;
	p.calibration.bootstrap = 200;
	snprintf(p.calibration.created_utc, sizeof p.calibration.created_utc, "2026-09-21T14:13:20Z");
	wc_response_assumed(&p.response);
	p.response.fitted = 1;
	p.response.runs = 8;
	snprintf(p.response.record.fitted_on, sizeof p.response.record.fitted_on, "runs/a, runs/b");
	p.response.record.seed = 11;
	p.response.record.bootstrap = 50;
	snprintf(p.response.record.created_utc, sizeof p.response.record.created_utc, "2026-09-22T00:00:00Z");
	p.response.linger_bound_s = 0.2;
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"schema\": \"wattcast.params/19\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v10", &q, &err), WC_OK);
	CHECK(strcmp(q.calibration.fitted_on, "cal.csv") == 0 && q.calibration.runs == 3 && q.calibration.seed == 5 &&
	      q.calibration.bootstrap == 200 && strcmp(q.calibration.input_sha256, p.calibration.input_sha256) == 0 &&
	      strcmp(q.calibration.created_utc, "2026-09-21T14:13:20Z") == 0);
	CHECK(strcmp(q.response.record.fitted_on, "runs/a, runs/b") == 0 && q.response.record.seed == 11 &&
	      q.response.record.bootstrap == 50 && q.response.linger_bound_s == 0.2 && q.response.runs == 8 &&
	      strcmp(q.response.record.created_utc, "2026-09-22T00:00:00Z") == 0);
	wc_params_clear(&q);
	char *v9 = test_replaced(strdup(s), "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/9\"");
	CHECK(wc_params_load_buffer(v9, strlen(v9), "v9", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/provenance/calibration");
	free(v9);
	char *bad = test_replaced(strdup(s), "2026-09-22T00:00:00Z", "2026-13-22T00:00:00Z");
	CHECK(wc_params_load_buffer(bad, strlen(bad), "t", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response/provenance/created_utc");
	free(bad);
	bad = test_replaced(strdup(s), p.calibration.input_sha256, "abc");
	CHECK(wc_params_load_buffer(bad, strlen(bad), "t", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/provenance/calibration/input_sha256");
	free(bad);
	free(s);
	/* without the calibration, the response's record alone is refused in /9 */
	memset(&p.calibration, 0, sizeof p.calibration);
	s = wc_params_dump(&p, 1, &err);
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/9\"");
	CHECK(wc_params_load_buffer(s, strlen(s), "v9", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response/provenance");
	free(s);
	/* a set without records dumps no record keys: /9 readers' files */
	memset(&p.response.record, 0, sizeof p.response.record);
	s = wc_params_dump(&p, 1, &err);
	CHECK(strstr(s, "\"calibration\": {") == NULL || strstr(s, "\"fitted_on\"") == NULL);
	CHECK(strstr(s, "linger_bound_s") == NULL);
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/9\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v9", &q, &err), WC_OK);
	wc_params_clear(&q);
	free(s);
	wc_params_clear(&p);
}

int
main(void)
{
	v9_records();
	v7_response_dynamic_scale();
	v1_file_loads();
	v3_file_and_phi();
	v2_file_and_model_terms();
	sections_round_trip();
	optional_keys_may_be_absent();
	v4_finetune_e0_per_job();
	return check_report("test_params_versions");
}

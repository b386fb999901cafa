/*
 * Structure terms of the inference law (docs/fitting.md, "Structure
 * terms"): runs simulated from the paper profile with a known MoE shift
 * and a known log-TP slope give both back within their standard error;
 * a term only one model carries (the only hybrid) is refused by name; a
 * set without the terms answers exactly as before (the terms are neutral);
 * a bad --law-terms list names the item.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"
#include "tests/support/synth_runs.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>

#define TRUE_MOE (-0.40)
#define TRUE_TP 0.30

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, truth = WC_PARAMS_INIT;
	wc_runs_table *t = wc_runs_new();
	wc_error err;
	wc_pcg32 rng;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	wc_params_default(&truth);
	truth.law_terms = WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_TP);
	truth.law_term[WC_LT_MOE] = (wc_param){ TRUE_MOE, NAN, NAN, WC_SRC_FITTED };
	truth.law_term[WC_LT_TP] = (wc_param){ TRUE_TP, NAN, NAN, WC_SRC_FITTED };
	wc_pcg32_seed(&rng, 22, 0);
	static const struct {
		const char *name;
		double active_b;
	} models[] = { { "Qwen3-8B", 8.19 }, { "Qwen3-32B", 32.8 }, { "Llama-3.1-70B", 70.6 },
		       { "Qwen3-30B-A3B", 3.3 }, { "gpt-oss-120b", 5.0 }, { "DeepSeek-V3.1", 37.0 },
		       { "NVIDIA-Nemotron-Nano-12B-v2", 12.0 } };
	int id = 0;
	for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
		for (int tp = 1; tp <= 8; tp *= 2)
			for (int n = 4; n <= 256; n *= 4)
				synth_law_run(t, &truth, models[m].name, models[m].active_b, tp, n, WC_PREC_BF16, 0.01, id++, &rng);

	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	fo.prior = &paper;
	fo.law_terms = WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_HYBRID) | WC_LT_BIT(WC_LT_TP);
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	CHECK(r.converged);
	CHECK_INT((int)r.params.law_terms, (int)(WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_TP)));
	CHECK_NEAR(r.params.law_term[WC_LT_MOE].value, TRUE_MOE, 0.05);
	CHECK_NEAR(r.params.law_term[WC_LT_TP].value, TRUE_TP, 0.05);
	int hybrid_warned = 0;
	for (int w = 0; w < r.n_warnings; w++)
		hybrid_warned |= strstr(r.warnings[w], "arch_hybrid") && strstr(r.warnings[w], "only one model");
	CHECK(hybrid_warned);
	/* The fitted set predicts an MoE run at TP 4 with its terms. */
	wc_config c = WC_CONFIG_INIT;
	wc_power with, without;
	c.platform = "H100";
	c.tp = 4;
	c.active_params_b = 5.0;
	c.running = 64;
	c.idle_power_w = 60.0;
	c.model = "gpt-oss-120b";
	c.arch = wc_model_lookup(c.model);
	CHECK_INT(wc_law_power(&r.params, &c, &with, &err), WC_OK);
	CHECK_INT(wc_law_power(&truth, &c, &without, &err), WC_OK);
	CHECK_NEAR(with.node_power_w / without.node_power_w, 1.0, 0.02);

	/* The file carries the terms (schema 7); a /6 file may not. */
	char *dump = wc_params_dump(&r.params, 1, &err);
	wc_params back = WC_PARAMS_INIT;
	CHECK(dump != NULL);
	CHECK_INT(wc_params_load_buffer(dump, strlen(dump), "t.json", &back, &err), WC_OK);
	CHECK_INT((int)back.law_terms, (int)r.params.law_terms);
	CHECK(back.law_term[WC_LT_TP].value == r.params.law_term[WC_LT_TP].value);
	CHECK_INT(wc_law_power(&back, &c, &without, &err), WC_OK);
	CHECK(without.node_power_w == with.node_power_w);
	char *v6 = dump ? strstr(dump, "wattcast.params/19") : NULL;
	CHECK(v6 != NULL);
	if (v6) {
		dump = test_replaced(dump, "wattcast.params/19", "wattcast.params/6");
		CHECK(wc_params_load_buffer(dump, strlen(dump), "t.json", &back, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "/shared/arch_moe");
	}
	wc_params_clear(&back);
	free(dump);

	/* Neutral: values without their bit change nothing. */
	wc_params_clear(&truth);
	wc_params_default(&truth);
	truth.law_term[WC_LT_MOE].value = 5.0;
	truth.law_term[WC_LT_TP].value = 5.0;
	CHECK_INT(wc_law_power(&truth, &c, &with, &err), WC_OK);
	CHECK_INT(wc_law_power(&paper, &c, &without, &err), WC_OK);
	CHECK(with.node_power_w == without.node_power_w);

	unsigned mask = 0;
	CHECK_INT(wc_law_terms_parse("moe,tp", &mask, &err), WC_OK);
	CHECK_INT((int)mask, (int)(WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_TP)));
	CHECK(wc_law_terms_parse("moe,size", &mask, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "'size'");
	/* each term once, none alone: these were read as their union */
	CHECK_INT(wc_law_terms_parse("none", &mask, &err), WC_OK);
	CHECK_INT((int)mask, 0);
	CHECK_INT(wc_law_terms_parse("arch,tp,prompt", &mask, &err), WC_OK);
	const char *const twice[] = { "moe,moe", "arch,moe", "hybrid,arch", "tp,prompt,tp", "none,moe", "moe,none",
		                      "none,none" };
	for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
		CHECK(wc_law_terms_parse(twice[i], &mask, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, twice[i]);
		CHECK(strlen(err.msg) <= 255);
	}
	wc_fit_result_clear(&r);
	wc_params_clear(&truth);
	wc_params_clear(&paper);
	wc_runs_free(t);
	return check_report("test_fit_law_terms");
}

/*
 * A fine-tuning job of 0 steps draws 0 kWh under every draw: a quantity
 * the draws do not vary has no interval rather than a zero-width one
 * (docs/intervals.md, "Two parts"), in the prediction and in the JSON the
 * CLI and HTTP print, with a warning saying why. Until 2026-12-06 its
 * energy_total_kwh interval was [0, 0].
 */
#include "tests/support/check.h"
#include "predict/finetune_predict.h"
#include "server/render_internal.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
answer(wc_params *p, double steps, wc_finetune_prediction *fp, json_t **j)
{
	wc_error err;
	wc_predictor *pr = NULL;
	wc_finetune_query fq = { .config = WC_FT_CONFIG_INIT, .platform = NULL, .steps = steps, .want_interval = 1 };
	wc_ft_config_from_model(&fq.config, wc_model_lookup("Llama-3.1-8B"));
	fq.config.lora_rank = 64;
	fq.config.micro_batch = 8;
	fq.config.seq_len = 1024;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_finetune(pr, &fq, fp, &err), WC_OK);
	*j = wc_finetune_json(&fq, fp, "t");
	CHECK(*j != NULL);
	wc_predictor_free(pr);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_pred_error *fe = &p.quantity_error[WC_PEQ_FT_STEP];
	fe->present = 1;
	fe->level = WC_INTERVAL_LEVEL;
	fe->n_strata = 1;
	fe->strata[0] = (wc_pe_stratum){ .platform = "", .source = "", .n = 40, .q_lo = -0.1, .q_hi = 0.1 };
	wc_finetune_prediction fp;
	json_t *j;
	answer(&p, 0.0, &fp, &j);
	printf("0 steps: %g kWh, interval %g-%g\n", fp.energy_total_kwh, fp.total_lo_kwh, fp.total_hi_kwh);
	CHECK(fp.has_interval && fp.energy_total_kwh == 0.0);
	CHECK(isnan(fp.total_lo_kwh) && isnan(fp.total_hi_kwh));
	json_t *iv = json_object_get(j, "interval_95");
	CHECK(json_is_object(iv) && json_is_null(json_object_get(iv, "energy_total_kwh")));
	CHECK(json_is_array(json_object_get(iv, "energy_per_step_j")));
	int said = 0;
	for (int i = 0; i < fp.n_warnings; i++)
		said |= strstr(fp.warnings[i], "interval_95: energy_total_kwh: none") != NULL;
	CHECK(said);
	json_decref(j);
	/* a job of steps keeps its interval, steps x the step's */
	answer(&p, 100.0, &fp, &j);
	CHECK_NEAR(fp.total_hi_kwh, 100 * fp.step_hi_j / 3.6e6, 1e-12);
	CHECK(fp.total_lo_kwh < fp.energy_total_kwh && fp.energy_total_kwh < fp.total_hi_kwh);
	iv = json_object_get(j, "interval_95");
	CHECK(json_is_array(json_object_get(iv, "energy_total_kwh")));
	for (int i = 0; i < fp.n_warnings; i++)
		CHECK(strstr(fp.warnings[i], "energy_total_kwh: none") == NULL);
	json_decref(j);
	wc_params_clear(&p);
	return check_report("test_finetune_total_interval");
}

/*
 * Predictions from a frozen law: extrapolation warnings name the input,
 * and the 95 % interval comes from the bootstrap draws (percentiles of the
 * predicted node power).
 */
#include "data/params_file.h"
#include "predict/predict.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <stdlib.h>

static int
has_warning(const wc_inference_prediction *o, const char *needle)
{
	for (int i = 0; i < o->n_warnings; i++)
		if (strstr(o->warnings[i], needle))
			return 1;
	return 0;
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr;
	wc_inference_prediction o;
	wc_error err;
	wc_params_default(&p);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);

	wc_inference_query q = { .config = WC_CONFIG_INIT, .want_interval = 1 };
	q.config.platform = "A100";
	q.config.active_params_b = 8.19;
	q.config.running = 32;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK_NEAR(o.power.node_power_w, 362.8, 0.5);
	CHECK_INT(o.n_warnings, 0);
	/* The profile has no draws: its interval is the law's held-out error
	 * alone, around the estimate (docs/intervals.md). */
	CHECK(o.has_interval && o.n_draws == 0 && o.pe_stratum != NULL);
	CHECK(o.node_lo_w < o.power.node_power_w && o.power.node_power_w < o.node_hi_w);
	CHECK_NEAR(log(o.node_lo_w / o.power.node_power_w), o.pe_stratum->q_lo, 1e-12);
	/* its upper end at the A100's ceiling, 1.1 x 400 W, below point x e^q
	 * (docs/intervals.md, "Physical ceiling") */
	CHECK(o.power.node_power_w * exp(o.pe_stratum->q_hi) > 440.0);
	CHECK_NEAR(o.node_hi_w, 440.0, 1e-9);

	/* A size within the publishers' rounding (5 %) of the span's end (the
	 * A100's 32.8 B) is inside it; beyond it, outside. */
	double saved = q.config.active_params_b;
	q.config.active_params_b = 34.0;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(!has_warning(&o, "active_params_b:"));
	q.config.active_params_b = 35.0;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(has_warning(&o, "active_params_b: 35 B is outside the calibrated span 0.6-32.8 B"));
	q.config.active_params_b = saved;

	/* Outside the calibrated span: one warning per input. */
	q.config.active_params_b = 70.6;
	q.config.tp = 8;
	q.config.running = 512;
	q.config.weights = WC_PREC_FP8;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(has_warning(&o, "active_params_b: 70.6"));
	CHECK(has_warning(&o, "tp: 8"));
	CHECK(has_warning(&o, "concurrency: load 512"));
	CHECK(has_warning(&o, "weights: fp8 on A100 has no fitted term (tested on 4 pairs, p = 0.96"));
	CHECK(has_warning(&o, "not significant); its power is predicted as bf16's (step times and memory use "
	                      "fp8's bytes; prefill computes at the BF16 rate)"));
	CHECK_INT(o.n_warnings, 4);
	q.config.platform = "H100-locked";
	q.config.weights = WC_PREC_BF16;
	q.config.active_params_b = 8;
	q.config.tp = 1;
	q.config.running = 32;
	q.config.sm_clock_mhz = 1500;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	/* Table 13's H100-locked is a locked host whose clock and kappa are not
	 * published: what the caveat says is missing is a known clock, not
	 * locked runs (docs/inference-law.md, "Clock term"). */
	CHECK(has_warning(&o, "sm_clock_mhz: no runs at a known locked clock were calibrated on H100-locked and kappa "
	                      "is unpublished; kappa = 1 is assumed"));
	CHECK(!has_warning(&o, "no clock-locked runs"));

	/* Errors name the field. */
	q.config.platform = "B300";
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "platform:");
	q.config.platform = "A100";
	q.config.sm_clock_mhz = 0;
	double series[4] = { 0, 10, 20, -1 };
	q.running_series = series;
	q.series_len = 4;
	q.dt_s = 0.05;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "running_series/3");
	series[3] = 30;
	q.dt_s = 0;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "dt_s");
	q.dt_s = 0.05;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK_NEAR(o.mean_running, 15, 1e-12);
	wc_predictor_free(pr);

	/* Interval from draws: theta[A100] drawn from a known set; the bounds
	 * are the type-7 percentiles of the node power over the draws. */
	p.levels[0].theta.source = WC_SRC_FITTED;
	char names[1][WC_LABEL_MAX] = { "theta[A100]" };
	double thetas[101];
	for (int i = 0; i <= 100; i++)
		thetas[i] = 1.5 + i * 0.01; /* 1.50 .. 2.50 */
	CHECK_INT(wc_params_set_draws(&p, 101, 1, (const char (*)[WC_LABEL_MAX])names, thetas, &err), WC_OK);
	p.pred_error.present = 0; /* the draws' own interval */
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	q.running_series = NULL;
	q.series_len = 0;
	q.config.running = 32;
	q.config.active_params_b = 8;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(o.has_interval);
	CHECK_INT(o.n_draws, 101);
	/* node power is increasing in theta: percentiles map through. */
	double lo_theta = 1.5 + 2.5 * 0.01, hi_theta = 1.5 + 97.5 * 0.01;
	CHECK_NEAR(o.node_lo_w, 72.9 + 329 / (1 + exp(-lo_theta)), 1e-3);
	CHECK_NEAR(o.node_hi_w, 72.9 + 329 / (1 + exp(-hi_theta)), 1e-3);
	CHECK(o.node_lo_w < o.power.node_power_w && o.power.node_power_w < o.node_hi_w);
	/* Another level's draws do not move this level's interval. */
	q.config.platform = "H200";
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(!o.has_interval); /* never zero-width */
	q.want_interval = 0;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(!o.has_interval);
	wc_predictor_free(pr);

	/* A prefill-aware set reports its prefill share, and says when it has
	 * none (then the prediction is the published form's). */
	wc_params_default_prefill(&p);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	wc_inference_query pq = { .config = test_catalog_config("A100", 1, "Qwen3-8B", 1), .want_interval = 1 };
	CHECK_INT(wc_predict_inference(pr, &pq, &o, &err), WC_OK);
	CHECK(o.prefill_share == 0.0 && has_warning(&o, "no prefill share"));
	double published = o.power.node_power_w;
	pq.config.input_tokens = 4600;
	pq.config.output_tokens = 100;
	CHECK_INT(wc_predict_inference(pr, &pq, &o, &err), WC_OK);
	CHECK(o.prefill_share > 0.3 && o.prefill_share < 1.0 && !has_warning(&o, "no prefill share"));
	CHECK(o.power.node_power_w > published + 50.0);
	wc_predictor_free(pr);
	wc_params_clear(&p);

	/* A value outside the span never prints as the bound it lies beyond
	 * (docs/inference-law.md, "Unseen configurations"): the measured
	 * H100's span starts at 7.90085 running, which three digits gave as
	 * "load 7.9 is outside the calibrated span 7.9-1915". */
	wc_params m = WC_PARAMS_INIT;
	pr = test_measured_predictor(&m);
	wc_inference_query lq = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 7.9) };
	CHECK_INT(wc_predict_inference(pr, &lq, &o, &err), WC_OK);
	CHECK(has_warning(&o, "concurrency: load 7.9 is outside the calibrated span 7.901-1915 on H100"));
	lq.config.running = 1915.5; /* three digits tell these apart: as they were */
	CHECK_INT(wc_predict_inference(pr, &lq, &o, &err), WC_OK);
	CHECK(has_warning(&o, "concurrency: load 1916 is outside the calibrated span 7.9-1915 on H100"));
	/* A100 and H200 are H100 plus offsets (docs/fitting.md, "The measured
	 * profile"): their shape is H100's, so one running request lies as far
	 * outside their span as outside H100's; their range was the published
	 * design's 1-256 and they answered 199 W (A100) with no warning. */
	lq.config = test_catalog_config("A100", 1, "Qwen3-8B", 1);
	CHECK_INT(wc_predict_inference(pr, &lq, &o, &err), WC_OK);
	CHECK(has_warning(&o, "concurrency: load 1 is outside the calibrated span 7.9-256 on A100"));
	lq.config = test_catalog_config("H200", 1, "Qwen3-8B", 1);
	CHECK_INT(wc_predict_inference(pr, &lq, &o, &err), WC_OK);
	CHECK(has_warning(&o, "concurrency: load 1 is outside the calibrated span 7.9-256 on H200"));
	lq.config = test_catalog_config("A100", 1, "Qwen3-8B", 32); /* inside both: no load warning */
	CHECK_INT(wc_predict_inference(pr, &lq, &o, &err), WC_OK);
	CHECK(!has_warning(&o, "concurrency: load"));
	wc_predictor_free(pr);
	wc_params_clear(&m);
	return check_report("test_predict");
}

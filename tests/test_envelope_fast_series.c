/*
 * An n(t) whose count changes within one 50-ms bin of the envelope's grid
 * ends its mean's interval where predict's does (docs/intervals.md,
 * "Physical ceiling"): the idle share is the time at n = 0, as predict
 * takes the series sample by sample, not the share of bins no request
 * touched. Until 2026-12-06 A100 Qwen3-8B (`measured`) at 32 and 0 by
 * turns every 10 ms, hold 0, had every bin count as loaded: mean 214.9 W,
 * interval to 314.43 W, above the 256.46 W the boards can draw half idle
 * (0.5 x 72.9 W + 0.5 x 1.1 x 400 W), predict's top for the same series.
 */
#include "data/data.h"
#include "predict/envelope.h"
#include "predict/envelope_power.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#define N_SAMPLES 6000
#define DT_S 0.01

int
main(void)
{
	gsl_set_error_handler_off();
	static double n[N_SAMPLES];
	for (int i = 0; i < N_SAMPLES; i++)
		n[i] = i % 2 ? 0.0 : 32.0;
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);

	/* predict: the series' own time-weighted histogram */
	wc_inference_query q = { .config = test_catalog_config("A100", 1, "Qwen3-8B", 1) };
	q.want_interval = 1;
	q.running_series = n;
	q.series_len = N_SAMPLES;
	q.dt_s = DT_S;
	wc_inference_prediction pred;
	CHECK_INT(wc_predict_inference(pr, &q, &pred, &err), WC_OK);

	/* the envelope of the same series over its 60 s, hold 0 */
	wc_config c = test_catalog_config("A100", 1, "Qwen3-8B", 1);
	wc_power_map_law store;
	wc_power_map pm;
	CHECK_INT(wc_power_map_from_law(wc_predictor_params(pr), &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_running = n;
	w.series_len = N_SAMPLES;
	w.series_dt_s = DT_S;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = N_SAMPLES * DT_S;
	o.replicas = 1;
	o.tau_s = 0.001;
	o.hold_s = 0.0;
	o.decay_s = 0.0;
	wc_envelope_result r;
	CHECK_INT(wc_envelope_run(&w, NULL, &pm, &o, &r, &err), WC_OK);

	const double half = 0.5 * pm.idle_w + 0.5 * 1.1 * pm.max_w;
	printf("predict %.2f W [%.2f, %.2f] (ceiling %.2f); envelope %.2f W [%.2f, %.2f]; half idle %.2f W\n",
	       pred.power.node_power_w, pred.node_lo_w, pred.node_hi_w, pred.node_ceiling_w, r.server.mean_w.value,
	       r.server_interval.mean_lo, r.server_interval.mean_hi, half);
	CHECK_NEAR(r.server.mean_w.value, pred.power.node_power_w, 1e-4 * pred.power.node_power_w);
	CHECK_NEAR(pred.node_hi_w, half, 1e-6 * half);
	CHECK_NEAR(r.server_interval.mean_hi, pred.node_hi_w, 1e-6 * pred.node_hi_w);
	CHECK(r.server_interval.mean_hi > r.server.mean_w.value);
	wc_envelope_result_clear(&r);

	/* a hold longer than the 10-ms gaps keeps them all busy: no idle share,
	 * the top is the held-out error's, below the boards' 440 W */
	o.hold_s = 0.1;
	CHECK_INT(wc_envelope_run(&w, NULL, &pm, &o, &r, &err), WC_OK);
	printf("hold 0.1 s: envelope %.2f W [%.2f, %.2f]\n", r.server.mean_w.value, r.server_interval.mean_lo,
	       r.server_interval.mean_hi);
	CHECK(r.server_interval.mean_hi > half && r.server_interval.mean_hi <= 1.1 * pm.max_w * (1 + 1e-12));
	wc_envelope_result_clear(&r);

	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_envelope_fast_series");
}

/*
 * A power-capped load series ends its interval step by step
 * (docs/intervals.md, "Physical ceiling"): a step a clock brings under the
 * cap at most 1.1 x the cap, a step no clock brings under it at most
 * 1.1 x the board's limit (a cap no clock meets holds nothing), an idle
 * step its idle draw. Judged on the series' mean, H100 Qwen3-8B at 8 and 0
 * running under 150 W (149.2 W, its loaded steps at 172.0 W at the clock
 * of least power) had its interval end at the point: 126.3-149.2 W.
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_inference_prediction out, one;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	/* the single load of 8 under the cap: no clock meets it */
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 8) };
	q.want_interval = 1;
	q.power_cap_w = 150;
	CHECK_INT(wc_predict_power_cap(pr, &q, q.power_cap_w, &q.config.sm_clock_mhz, &err), WC_OK);
	CHECK_INT(wc_predict_inference(pr, &q, &one, &err), WC_OK);
	CHECK(one.power.per_gpu_power_w > 150.0);
	/* the series 8, 0, 8, 0 under the same cap, no clock of its own */
	double series[4] = { 8, 0, 8, 0 };
	wc_inference_query s = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 8) };
	s.want_interval = 1;
	s.power_cap_w = 150;
	s.running_series = series;
	s.series_len = 4;
	s.dt_s = 1.0;
	CHECK_INT(wc_predict_inference(pr, &s, &out, &err), WC_OK);
	const double p0 = out.power.idle_power_w, board = 700.0;
	fprintf(stderr, "series 8,0,8,0 under 150 W: %.2f W [%.2f, %.2f], ceiling %.2f; load 8: %.2f W\n",
	        out.power.node_power_w, out.node_lo_w, out.node_hi_w, out.node_ceiling_w, one.power.node_power_w);
	/* its loaded steps draw what the single load does: the mean of idle
	 * and that, under the cap on average but not on those steps */
	CHECK_NEAR(out.power.per_gpu_power_w, 0.5 * (p0 + one.power.per_gpu_power_w), 1e-6);
	CHECK(out.power.per_gpu_power_w < 150.0);
	/* the ceiling: half idle, half at the board's 1.1 x limit */
	CHECK_NEAR(out.node_ceiling_w, 0.5 * (p0 + 1.1 * board), 1e-6);
	CHECK(out.has_interval);
	CHECK(out.node_hi_w > out.power.node_power_w * 1.2); /* not held at the point */
	CHECK(out.node_lo_w < out.power.node_power_w);
	/* a cap a clock meets still holds its steps: 1 running settles at
	 * 150 W (377 MHz), so 1, 0, 1, 0 ends at idle and 1.1 x the cap */
	double met[4] = { 1, 0, 1, 0 };
	s.running_series = met;
	CHECK_INT(wc_predict_inference(pr, &s, &out, &err), WC_OK);
	fprintf(stderr, "series 1,0,1,0 under 150 W: %.2f W, ceiling %.2f\n", out.power.node_power_w,
	        out.node_ceiling_w);
	CHECK(out.power.per_gpu_power_w <= 150.0 * (1 + 1e-9));
	CHECK_NEAR(out.node_ceiling_w, 0.5 * (p0 + 1.1 * 150.0), 1e-6);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_series_cap_ceiling");
}

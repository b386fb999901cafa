/*
 * A power-cap sweep's step is the answer to its cap (docs/intervals.md,
 * "Physical ceiling"): H100 Qwen3-14B at 32 running, 512 + 256 tokens,
 * swept in 4 caps, had a node-power interval reaching 641.5 W at the
 * 438.45 W cap, where predict inference --power-cap 438.45 holds it at
 * 1.1 x the cap, 482.3 W. Each step's intervals are now the capacity
 * answer's under its cap at its clock, and end at 1.1 x the cap.
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-14B", 32), .want_interval = 1 };
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	wc_flexibility *f = malloc(sizeof *f);
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	CHECK(f && cap);
	if (pr && f && cap) {
		CHECK_INT(wc_predict_flexibility(pr, &q, 1, 4, f, &err), WC_OK);
		CHECK_INT(f->n_steps, 4);
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			wc_inference_query at = q;
			at.power_cap_w = s->power_cap_w;
			at.config.sm_clock_mhz = s->sm_clock_mhz;
			CHECK_INT(wc_predict_capacity(pr, &at, NAN, NAN, cap, &err), WC_OK);
			fprintf(stderr, "cap %.2f W at %.0f MHz: [%.1f, %.1f] W, answer's [%.1f, %.1f]\n", s->power_cap_w,
			        s->sm_clock_mhz, s->lo[WC_FLEX_POWER], s->hi[WC_FLEX_POWER], cap->lo[WC_CAPQ_POWER],
			        cap->hi[WC_CAPQ_POWER]);
			CHECK_NEAR(s->hi[WC_FLEX_POWER], cap->hi[WC_CAPQ_POWER], 1e-9 * cap->hi[WC_CAPQ_POWER]);
			CHECK_NEAR(s->lo[WC_FLEX_POWER], cap->lo[WC_CAPQ_POWER], 1e-9 * cap->lo[WC_CAPQ_POWER]);
			CHECK(s->hi[WC_FLEX_POWER] <= 1.1 * s->power_cap_w * (1 + 1e-9));
		}
	}
	/* An open loop's cap step is predict inference --power-cap's answer
	 * to that cap: the clock the cap settles at, then the rate it sustains
	 * at full load (docs/capacity.md, "The board's power limit"). H200
	 * Qwen3-8B at 1.4 requests/s of 8192 + 64 tokens: the sweep said a
	 * 198.2 W cap served all 89.6 tokens/s at 1229 MHz while the answer
	 * to that cap was 59.8 tokens/s, over capacity, at 345 MHz. */
	wc_inference_query o = { .config = test_catalog_config("H200", 1, "Qwen3-8B", 256) };
	o.config.input_tokens = 8192;
	o.config.output_tokens = 64;
	o.config.request_rate = 1.4;
	if (pr && f && cap) {
		CHECK_INT(wc_predict_flexibility(pr, &o, 1, 12, f, &err), WC_OK);
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			wc_inference_query at = o;
			at.power_cap_w = s->power_cap_w;
			CHECK_INT(wc_predict_power_cap(pr, &at, s->power_cap_w, &at.config.sm_clock_mhz, &err), WC_OK);
			CHECK_INT(wc_predict_board_limit(pr, &at, &err), WC_OK);
			CHECK_INT(wc_predict_capacity(pr, &at, NAN, NAN, cap, &err), WC_OK);
			CHECK_INT(wc_predict_capacity_sustained(pr, &at, cap, &err), WC_OK);
			CHECK_NEAR(s->sm_clock_mhz, at.config.sm_clock_mhz, 1e-9);
			CHECK_NEAR(s->throughput_tok_s, cap->value[WC_CAPQ_THROUGHPUT], 1e-9 * s->throughput_tok_s);
			CHECK_NEAR(s->node_power_w, cap->value[WC_CAPQ_POWER], 1e-9 * s->node_power_w);
		}
	}
	free(f);
	free(cap);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_flexibility_cap");
}

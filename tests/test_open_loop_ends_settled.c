/*
 * An open loop's held-out ends are the model's answer for an engine f
 * times the point's step times: at rate r, the answer at r f with its
 * times f times (docs/intervals.md, "An open loop's ends"). Under a power
 * cap or the board's limit that answer settles its own clock, as the
 * point's does: the ends kept the point's clock, and H100 Llama-3.1-70B on
 * 4 GPUs at 2 requests/s of 1024 + 512 under a 400 W cap had its slow end
 * at 29.78 s and 59.57 running (1409.6 MHz, 424.7 W per GPU), where the
 * answer at 2 f = 3.53 requests/s settles at 1287.9 MHz: 30.82 s and
 * 61.64. The board's limit with no cap too (A100 Qwen3-32B at 0.3
 * requests/s: 53.63 s, now 54.08 s). A locked clock stays locked.
 */
#include "data/params_file.h"
#include "models/models.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/check.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static wc_inference_query
query(const char *platform, int tp, const char *model, double rate, double in, double outt, double cap_w,
      double lock_mhz)
{
	wc_inference_query q = { .config = test_catalog_config(platform, tp, model, 128), .want_interval = 1 };
	q.config.request_rate = rate;
	q.config.input_tokens = in;
	q.config.output_tokens = outt;
	q.config.sm_clock_mhz = lock_mhz;
	q.power_cap_w = cap_w;
	return q;
}

/* q's answer as the CLI gives it, on the heap (the struct is large). */
static wc_capacity_prediction *
answer(const wc_predictor *pr, wc_inference_query q)
{
	wc_capacity_prediction *cp = malloc(sizeof *cp);
	wc_error err;
	CHECK(cp != NULL);
	CHECK_INT(wc_predict_settle_clock(pr, &q, &err), WC_OK);
	CHECK_INT(wc_predict_capacity_settled(pr, &q, NAN, NAN, cp, &err), WC_OK);
	return cp;
}

/* Each end of latency and mean_running against the answer at rate x f. */
static void
check_ends(const wc_predictor *pr, const wc_params *p, wc_inference_query q, const char *what)
{
	wc_pe_stratum st;
	const wc_pred_error *pe = &p->quantity_error[WC_PEQ_LATENCY];
	const wc_pe_stratum *s = wc_pe_find(pe, q.config.platform, "");
	CHECK(s != NULL);
	if (!s)
		return;
	wc_pe_transfer_stratum(pe, s, &st);
	wc_capacity_prediction *pt = answer(pr, q);
	CHECK(!pt->over_capacity);
	const double f[2] = { exp(st.q_lo), exp(st.q_hi) };
	for (int i = 0; i < 2; i++) {
		wc_inference_query at = q;
		at.config.request_rate = q.config.request_rate * f[i];
		at.want_interval = 0;
		wc_capacity_prediction *e = answer(pr, at);
		const double lat = e->value[WC_CAPQ_LATENCY] * f[i], n = e->value[WC_CAPQ_RUNNING];
		const double got_lat = i ? pt->hi[WC_CAPQ_LATENCY] : pt->lo[WC_CAPQ_LATENCY];
		const double got_n = i ? pt->hi[WC_CAPQ_RUNNING] : pt->lo[WC_CAPQ_RUNNING];
		fprintf(stderr, "%s, %s end (f %.4f): latency %.4f s (answer at rate x f: %.4f), running %.4f (%.4f)\n",
		        what, i ? "slow" : "fast", f[i], got_lat, lat, got_n, n);
		CHECK_NEAR(got_lat, lat, 1e-9 * lat);
		CHECK_NEAR(got_n, n, 1e-9 * n);
		free(e);
	}
	free(pt);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	check_ends(pr, &p, query("H100", 4, "Llama-3.1-70B", 2, 1024, 512, 400, 0), "H100 under a 400 W cap");
	check_ends(pr, &p, query("H100", 4, "Llama-3.1-70B", 2, 1024, 512, 0, 1200), "H100 locked at 1200 MHz");
	check_ends(pr, &p, query("A100", 1, "Qwen3-32B", 0.3, 1024, 512, 0, 0), "A100 at its board's limit");
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_open_loop_ends_settled");
}

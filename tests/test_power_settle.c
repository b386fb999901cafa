/*
 * Power at a binding limit or cap (docs/capacity.md, "Clocks and power
 * caps"): the clock a GPU settles at puts the answer's power on the limit
 * to printed precision, and more load never lowers it. Bisection alone
 * left it up to mW under (A100, Llama-3.1-70B, TP 2: 799.998866 W at 32
 * running, 799.998302 W at 256).
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

/* The node power answered as the CLI and the server answer it: a cap's
 * clock, else the board limit's, then the capacity answer's running count. */
static double
node_power(const wc_predictor *pr, const char *platform, const char *model, int tp, double running, double cap_w)
{
	wc_inference_query q = { .config = test_catalog_config(platform, tp, model, running) };
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	wc_inference_prediction *out = malloc(sizeof *out);
	wc_error err;
	double w = NAN;
	q.config.input_tokens = cap_w > 0 ? 2048 : 128;
	q.config.output_tokens = 128;
	q.power_cap_w = cap_w;
	if (cap && out &&
	    (cap_w <= 0 || wc_predict_power_cap(pr, &q, cap_w, &q.config.sm_clock_mhz, &err) == WC_OK) &&
	    wc_predict_board_limit(pr, &q, &err) == WC_OK &&
	    wc_predict_capacity(pr, &q, NAN, NAN, cap, &err) == WC_OK) {
		q.config.running = cap->value[WC_CAPQ_RUNNING];
		if (wc_predict_inference(pr, &q, out, &err) == WC_OK)
			w = out->power.node_power_w;
	}
	free(cap);
	free(out);
	return w;
}

static void
series(const char *profile, const char *platform, const char *model, int tp, double cap_w, double limit_w)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	CHECK_INT(wc_params_profile(profile, &p, &err), WC_OK);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	const double loads[] = { 32, 64, 128, 256 };
	double prev = 0.0;
	for (int i = 0; pr && i < 4; i++) {
		double w = node_power(pr, platform, model, tp, loads[i], cap_w);
		printf("  %s %s tp %d at %g: %.15g W\n", platform, model, tp, loads[i], w);
		CHECK(fabs(w - tp * limit_w) <= 1e-9 * tp * limit_w);
		CHECK(w >= prev * (1 - 1e-10)); /* at printed precision (10 digits) */
		prev = w;
	}
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

int
main(void)
{
	series("measured", "A100", "Llama-3.1-70B", 2, 0.0, 400.0); /* the board's limit binds */
	series("paper", "H200", "gpt-oss-20b", 2, 350.0, 350.0);    /* a cap binds */
	return check_report("test_power_settle");
}

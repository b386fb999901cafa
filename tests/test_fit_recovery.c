/*
 * Parameter recovery: data simulated from the published profile with the
 * published design and 3 % noise; the joint fit with every precision term
 * and a 400-replicate bootstrap must put every true value inside its 95 %
 * interval (fixed seeds), and the draws must not depend on the thread
 * count.
 */
#include "fit/fit.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

/* True value of a fitted parameter: the profile's, or 0 / 1 for terms the
 * truth does not have (no shift, no factor). */
int
main(void)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_error err;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	gsl_set_error_handler_off();
	wc_params_default(&truth);
	so.seed = 2024;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	CHECK_INT(t->n_runs, 247);

	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_bootstrap_options bo = WC_BOOTSTRAP_OPTIONS_INIT;
	wc_fit_result r, r1;
	fo.prior = &truth; /* P0 comes from the idle column; prior only starts */
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	CHECK(r.converged);
	CHECK_INT(r.n_used, 240);  /* 7 Llama-70B runs are marked excluded */
	CHECK_INT(r.n_free, 16);   /* 3 S, 4 theta, delta, g1, g2, kappa, 5 terms */
	bo.replicates = 400;
	bo.seed = 99;
	bo.threads = 2;
	CHECK_INT(wc_fit_bootstrap(t, &fo, &bo, &r, &err), WC_OK);
	CHECK_INT(r.params.n_draws, 400);

	int inside = 0;
	for (int k = 0; k < r.n_free; k++) {
		const wc_param *fp = wc_params_param_named(&r.params, r.names[k]);
		double v = test_truth_of(&truth, r.names[k]);
		CHECK(fp != NULL);
		if (!fp)
			continue;
		int ok = fp->lo <= v && v <= fp->hi;
		inside += ok;
		printf("  %-26s truth %9.4f  estimate %9.4f  95%% [%.4g, %.4g]%s\n", r.names[k], v, r.x[k],
		       fp->lo, fp->hi, ok ? "" : "  <-- outside");
		CHECK(fp->value == r.x[k]);
		CHECK(fp->lo <= fp->hi);
	}
	CHECK_INT(inside, r.n_free);
	/* The locked-clock host's theta is weakly identified: a wide interval
	 * and a warning naming it, as in the published table ([2.96, 238]). */
	int warned = 0;
	for (int i = 0; i < r.n_warnings; i++)
		warned |= strstr(r.warnings[i], "theta[H100-locked]") != NULL;
	CHECK(warned);

	/* Same seed, one thread: bit-identical draws. */
	CHECK_INT(wc_fit_inference_law(t, &fo, &r1, &err), WC_OK);
	bo.threads = 1;
	CHECK_INT(wc_fit_bootstrap(t, &fo, &bo, &r1, &err), WC_OK);
	CHECK_INT(r1.params.n_draws, r.params.n_draws);
	CHECK(memcmp(r1.params.draws, r.params.draws,
	             (size_t)r.params.n_draws * (size_t)r.params.n_draw_params * sizeof(double)) == 0);
	/* Another seed: other draws. */
	wc_fit_result_clear(&r1);
	CHECK_INT(wc_fit_inference_law(t, &fo, &r1, &err), WC_OK);
	bo.seed = 100;
	CHECK_INT(wc_fit_bootstrap(t, &fo, &bo, &r1, &err), WC_OK);
	CHECK(memcmp(r1.params.draws, r.params.draws, sizeof(double) * 8) != 0);

	wc_fit_result_clear(&r);
	wc_fit_result_clear(&r1);
	wc_runs_free(t);
	return check_report("test_fit_recovery");
}

/*
 * The prefill-aware fit on runs with an n(t) series fits the law the
 * prediction averages (docs/inference-law.md, "Averaging over a load
 * series"): each sample mixed on its own, idle ones drawing G*P0. Each
 * run of the published design is given prompt lengths and a series of a
 * third of its time idle, its mean power drawn without noise from the
 * paper-prefill profile with phi = 1.3 (wc_fit_predict_run, the
 * prediction's average); the fit must find the truth, phi to 1e-4 and
 * every residual below 1e-6. The fit's residual once mixed a series' mean
 * decode power, charging rho*A over its idle time: it found phi 0.866.
 */
#include "fit/fit.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	wc_params truth = WC_PARAMS_INIT, paper = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_error err;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	wc_params_default_prefill(&truth);
	truth.phi.value = 1.3;
	so.seed = 2025;
	CHECK_INT(wc_simulate_inference(&paper, &so, &t, &err), WC_OK);
	static const double inputs[3] = { 150, 1500, 6000 };
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_run *r = &t->runs[i];
		wc_power pw;
		const double n = r->running, series[3] = { 0, n, 2 * n };
		r->input_tokens = inputs[i % 3];
		/* the level's P0 throughout: a fit takes its level's from the
		 * runs' measured idle, so the truth's headroom would differ */
		r->idle_power_w = NAN;
		if (!(r->output_tokens > 0))
			r->output_tokens = 512;
		CHECK_INT(wc_load_histogram_build(series, NULL, 1.0, 3, &r->series, NULL), WC_OK);
		CHECK_INT(wc_fit_predict_run(&truth, r, &pw, &err), WC_OK);
		r->mean_power_w = pw.node_power_w;
		if (r->sm_clock_mhz > 0)
			snprintf(r->exclude, sizeof r->exclude, "locked clock");
	}

	/* The idle third draws G*P0 alone: a run's power is the mean of its
	 * three samples' (the prediction's rule, checked in test_law_prefill). */
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	fo.form = WC_FORM_PREFILL;
	fo.prior = &paper; /* starts at phi = 1 */
	fo.capacity = &truth.capacity; /* the shares the truth drew with */
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	CHECK(r.converged);
	int phi_seen = 0;
	for (int k = 0; k < r.n_free; k++)
		if (strcmp(r.names[k], "phi") == 0) {
			phi_seen = 1;
			printf("  phi %.6f (truth 1.3)\n", r.x[k]);
			CHECK_NEAR(r.x[k], 1.3, 1e-4);
		}
	CHECK(phi_seen);
	double worst = 0.0;
	for (size_t i = 0; i < t->n_runs; i++)
		if (isfinite(r.residuals[i]))
			worst = fmax(worst, fabs(r.residuals[i]));
	printf("  largest |log residual| %.3g, rms %.3g\n", worst, r.rms);
	CHECK(worst < 1e-6);

	wc_fit_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&truth);
	wc_params_clear(&paper);
	return check_report("test_fit_prefill_series");
}

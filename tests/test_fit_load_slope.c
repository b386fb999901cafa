/*
 * A fit whose gamma1 ends at or below 0 describes power that does not
 * grow with load; the monotone rule (docs/inference-law.md) then holds
 * the law flat in load. A power_law fit of PowerTrace-Sim's A100 runs
 * (gamma1 -0.125) answered 354.7 W at 1, 8 and 64 requests with no
 * warning. Runs whose power falls with load: the fit says so, naming
 * gamma1; runs whose power rises do not get the warning.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int
fit_warns(double slope, const char *what)
{
	wc_runs_table *t = wc_runs_new();
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 6; j++) {
			double n = (double)(1 << j), size = i ? 8.19 : 14.8;
			wc_run run;
			wc_run_init(&run);
			snprintf(run.run_id, sizeof run.run_id, "r%d_%d", i, j);
			snprintf(run.platform, sizeof run.platform, "A100");
			snprintf(run.model, sizeof run.model, "m%g", size);
			run.active_params_b = size;
			run.running = n;
			run.idle_power_w = 80.0;
			run.mean_power_w = 80.0 + 200.0 * pow(size / 8.0, 0.3) * pow(n / 32.0, slope) *
			                              (1.0 + 0.01 * ((j * 7 + i * 3) % 5 - 2));
			wc_runs_append(t, &run, NULL);
		}
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	fo.form = WC_FORM_POWER_LAW;
	wc_fit_result r;
	wc_error err;
	int warned = -1;
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	for (int i = 0; warned < 0 && i < r.n_warnings; i++)
		if (strstr(r.warnings[i], what))
			warned = i;
	if (warned >= 0) {
		fprintf(stderr, "%s\n", r.warnings[warned]);
		CHECK(strlen(r.warnings[warned]) <= 255);
	}
	wc_fit_result_clear(&r);
	wc_runs_free(t);
	return warned >= 0;
}

int
main(void)
{
	gsl_set_error_handler_off();
	CHECK(fit_warns(-0.12, "<= 0: the fitted power does not grow with load, so by the monotone rule predicted "
	                       "power is flat in load"));
	CHECK(!fit_warns(0.3, "gamma1"));
	return check_report("test_fit_load_slope");
}

/*
 * Bootstrap coverage (label slow): over 200 datasets simulated from the
 * published profile (published design, 3 % noise, dataset d drawn with
 * seed d; B = 1000 as by default), the 95 % intervals must cover the true
 * parameters 95 ± 3 % of the time, pooled over the law's parameters that
 * the fit identifies. A parameter the fit flags as weakly identified in a
 * dataset (the locked-clock host's theta: sigma = 0.996 at the truth, so
 * the runs cannot tell 5.5 from 25 and the likelihood is flat) has no
 * meaningful percentile interval; its coverage is printed, not pooled.
 */
#include "fit/fit.h"
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

#define DATASETS 200
#define REPLICATES 1000
#define MAX_P 32

int
main(void)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_error err;
	char names[MAX_P][WC_LABEL_MAX];
	int covered[MAX_P] = { 0 }, seen[MAX_P] = { 0 }, weak[MAX_P] = { 0 }, weak_hits[MAX_P] = { 0 };
	int n_names = 0;
	gsl_set_error_handler_off();
	wc_params_default(&truth);
	for (int d = 1; d <= DATASETS; d++) {
		wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
		wc_runs_table *t = NULL;
		wc_fit_options fo = WC_FIT_OPTIONS_INIT;
		wc_bootstrap_options bo = { REPLICATES, (uint64_t)(1000 + d), 2 };
		wc_fit_result r;
		so.seed = (uint64_t)d;
		fo.prior = &truth;
		fo.precision_terms = 0; /* the law itself; see the file comment */
		if (wc_simulate_inference(&truth, &so, &t, &err) != WC_OK ||
		    wc_fit_inference_law(t, &fo, &r, &err) != WC_OK) {
			CHECK(0);
			wc_runs_free(t);
			continue;
		}
		if (wc_fit_bootstrap(t, &fo, &bo, &r, &err) != WC_OK) {
			CHECK(0);
		} else {
			for (int k = 0; k < r.n_free && k < MAX_P; k++) {
				int j;
				for (j = 0; j < n_names && strcmp(names[j], r.names[k]); j++)
					;
				if (j == n_names)
					snprintf(names[n_names++], WC_LABEL_MAX, "%s", r.names[k]);
				const wc_param *fp = wc_params_param_named(&r.params, r.names[k]);
				double v;
				wc_params_get_named(&truth, r.names[k], &v);
				int hit = fp && fp->lo <= v && v <= fp->hi;
				if (r.weak[k]) {
					weak[j]++;
					weak_hits[j] += hit;
				} else {
					seen[j]++;
					covered[j] += hit;
				}
			}
		}
		wc_fit_result_clear(&r);
		wc_runs_free(t);
	}
	int total = 0, hits = 0;
	for (int j = 0; j < n_names; j++) {
		printf("  %-24s coverage %5.1f %% (%d datasets)", names[j],
		       seen[j] ? 100.0 * covered[j] / seen[j] : NAN, seen[j]);
		if (weak[j])
			printf("; flagged weak in %d: coverage there %.1f %%", weak[j], 100.0 * weak_hits[j] / weak[j]);
		putchar('\n');
		total += seen[j];
		hits += covered[j];
	}
	double pooled = 100.0 * hits / total;
	printf("  pooled coverage %.2f %% over %d intervals\n", pooled, total);
	CHECK(pooled >= 92.0 && pooled <= 98.0);
	CHECK_INT(seen[0], DATASETS); /* S[A100] is never weak */
	CHECK(total >= 9 * DATASETS); /* only the locked host's theta may drop out */
	return check_report("test_slow_coverage");
}

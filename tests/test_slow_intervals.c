/*
 * Predictive intervals with a known truth (label slow; docs/intervals.md):
 * over datasets simulated from the published profile (published design,
 * 3 % noise, dataset d drawn with seed d), the law is fitted, its held-out
 * error measured leaving one model out (`fit intervals --folds model`), and
 * the 95 % intervals of mean power must cover 95 +- 3 % of
 *   - new runs of the fitted configurations (fresh noise, seed 100000 + d);
 *   - runs of models nobody fitted: the same design with every model's
 *     active parameters 1.25 times larger (fresh noise, seed 200000 + d).
 * An optional argument sets the number of datasets (default 100).
 */
#include "fit/fit.h"
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

/* The same noise, at another model size: power scales by the truth's ratio. */
static void
unseen_models(const wc_params *truth, wc_runs_table *t)
{
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_run *r = &t->runs[i];
		wc_config c = WC_CONFIG_INIT;
		wc_power before, after;
		c.platform = r->platform;
		c.tp = r->tp;
		c.running = r->running;
		c.active_params_b = r->active_params_b;
		c.sm_clock_mhz = r->sm_clock_mhz;
		c.weights = r->weights;
		c.kv = r->kv;
		wc_law_power(truth, &c, &before, NULL);
		c.active_params_b *= 1.25;
		wc_law_power(truth, &c, &after, NULL);
		r->active_params_b = c.active_params_b;
		r->mean_power_w *= after.node_power_w / before.node_power_w;
		snprintf(r->model, sizeof r->model, "unseen-%.4gB", c.active_params_b);
	}
}

int
main(int argc, char **argv)
{
	int datasets = argc > 1 ? atoi(argv[1]) : 100;
	wc_params truth = WC_PARAMS_INIT;
	wc_error err;
	long in_n = 0, in_hit = 0, out_n = 0, out_hit = 0;
	double in_w = 0, out_w = 0;
	gsl_set_error_handler_off();
	wc_params_default(&truth);
	for (int d = 1; d <= datasets; d++) {
		wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
		wc_runs_table *t = NULL, *fresh = NULL, *unseen = NULL;
		wc_fit_options fo = WC_FIT_OPTIONS_INIT;
		wc_fit_result r;
		wc_pred_error pe;
		wc_heldout_report a, b;
		fo.prior = &truth;
		fo.precision_terms = 0;
		so.seed = (uint64_t)d;
		int ok = wc_simulate_inference(&truth, &so, &t, &err) == WC_OK;
		so.seed = (uint64_t)(100000 + d);
		ok = ok && wc_simulate_inference(&truth, &so, &fresh, &err) == WC_OK;
		so.seed = (uint64_t)(200000 + d);
		ok = ok && wc_simulate_inference(&truth, &so, &unseen, &err) == WC_OK;
		ok = ok && wc_fit_inference_law(t, &fo, &r, &err) == WC_OK;
		if (!ok) {
			CHECK(0);
			continue;
		}
		unseen_models(&truth, unseen);
		CHECK_INT(wc_validate_pred_error(t, &fo, NULL, "model", NULL, &pe, &err), WC_OK);
		r.params.pred_error = pe;
		CHECK_INT(wc_validate_heldout(&r.params, fresh, &a, NULL, &err), WC_OK);
		CHECK_INT(wc_validate_heldout(&r.params, unseen, &b, NULL, &err), WC_OK);
		in_n += a.overall.n_interval;
		in_hit += lround(a.overall.coverage_95 * a.overall.n_interval);
		in_w += a.overall.median_rel_width;
		out_n += b.overall.n_interval;
		out_hit += lround(b.overall.coverage_95 * b.overall.n_interval);
		out_w += b.overall.median_rel_width;
		wc_fit_result_clear(&r);
		wc_runs_free(t);
		wc_runs_free(fresh);
		wc_runs_free(unseen);
	}
	double in_cov = (double)in_hit / (double)in_n, out_cov = (double)out_hit / (double)out_n;
	printf("  in-sample configurations: coverage %.1f %% of %ld runs, mean median width %.1f %%\n",
	       100 * in_cov, in_n, 100 * in_w / datasets);
	printf("  unseen models:            coverage %.1f %% of %ld runs, mean median width %.1f %%\n",
	       100 * out_cov, out_n, 100 * out_w / datasets);
	CHECK(in_cov >= 0.92 && in_cov <= 0.98);
	CHECK(out_cov >= 0.92 && out_cov <= 0.98);
	wc_params_clear(&truth);
	return check_report("test_slow_intervals");
}

/*
 * A fit the runs cannot identify must not crash, must flag the weak
 * parameters, and its bootstrap must give only finite draws -- a
 * parameter file never holds inf or NaN. The runs follow
 * a pure power law (dynamic = e^z, no saturation), which the saturating
 * form can only approach as S -> inf and theta -> -inf: replicates run off
 * along that ridge and can overflow once S is exponentiated.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_runs_table *t = wc_runs_new();
	wc_error err;
	wc_pcg32 rng;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	wc_pcg32_seed(&rng, 5, 0);
	const double sizes[9] = { 0.6, 1.7, 4, 8.19, 14.8, 32.8, 3.3, 8.03, 70.6 };
	for (int i = 0; i < 9; i++) {
		double n = (double)(1 << (i % 3));
		double dyn = exp(4.0 + 0.3 * log(sizes[i] / 8.0) + 0.5 * log(n / 32.0));
		wc_run r;
		wc_run_init(&r);
		snprintf(r.run_id, sizeof r.run_id, "d%d", i);
		snprintf(r.platform, sizeof r.platform, "A100");
		snprintf(r.model, sizeof r.model, "m%d", i);
		r.active_params_b = sizes[i];
		r.running = n;
		r.idle_power_w = 72.9;
		r.mean_power_w = 72.9 + dyn * exp(0.05 * wc_pcg32_normal(&rng));
		wc_runs_append(t, &r, NULL);
	}
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_bootstrap_options bo = { 200, 9, 2 };
	wc_fit_result r;
	fo.prior = &paper;
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	int weak = 0;
	for (int k = 0; k < r.n_free; k++)
		weak += r.weak[k];
	CHECK(weak >= 1); /* S and theta run along the power-law ridge */
	/* Seed 9 and B = 200 give one outcome for any thread count: the
	 * bootstrap succeeds, with every draw finite, and the file it makes
	 * loads back. */
	CHECK_INT(wc_fit_bootstrap(t, &fo, &bo, &r, &err), WC_OK);
	CHECK(r.params.n_draws >= 2 && r.params.n_draws <= bo.replicates);
	for (long i = 0; i < (long)r.params.n_draws * r.params.n_draw_params; i++)
		CHECK(isfinite(r.params.draws[i]));
	char *dir = test_tmpdir("fit_degenerate"), *path = path_join(dir, "p.json");
	wc_params back = WC_PARAMS_INIT;
	CHECK_INT(wc_params_save_file(path, &r.params, &err), WC_OK);
	CHECK_INT(wc_params_load_file(path, &back, &err), WC_OK);
	CHECK_INT(back.n_draws, r.params.n_draws);
	wc_params_clear(&back);
	free(path);
	free(dir);
	wc_fit_result_clear(&r);
	wc_runs_free(t);

	/* Too few usable runs: the refusal says which were left out and why,
	 * since the fit's warnings are never printed when it refuses. */
	wc_runs_table *few = wc_runs_new();
	for (int i = 0; i < 4; i++) {
		wc_run q;
		wc_run_init(&q);
		snprintf(q.run_id, sizeof q.run_id, i == 3 ? "below_idle" : "f%d", i);
		snprintf(q.platform, sizeof q.platform, "A100");
		q.active_params_b = 8.0;
		q.running = 1 << i;
		q.idle_power_w = 72.9;
		q.mean_power_w = i == 3 ? 60.0 : 150.0 + 40.0 * i;
		wc_runs_append(few, &q, NULL);
	}
	CHECK_INT(wc_fit_inference_law(few, &fo, &r, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "usable runs for");
	CHECK_CONTAINS(err.msg, "left out of the fit");
	CHECK_CONTAINS(err.msg, "below_idle");
	wc_runs_free(few);
	return check_report("test_fit_degenerate");
}

/*
 * Leave-one-model-out accuracy on simulated data: with the law the data
 * came from, held-out models are predicted about as well as the noise
 * allows (3 % on mean power); every run is predicted or counted as
 * skipped; a platform with a single model cannot be predicted once that
 * model is held out and is skipped, not scored as 0.
 */
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>

int
main(void)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_heldout_report rep;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&truth);
	so.seed = 11;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	fo.prior = &truth;
	fo.precision_terms = 0; /* quantized runs out: 22 runs */
	wc_per_run pr = WC_PER_RUN_INIT;
	CHECK_INT(wc_validate_lomo(t, &fo, &rep, &pr, &err), WC_OK);
	/* 247 runs - 7 excluded (Llama-70B) = 240 take part. */
	CHECK_INT((long long)pr.n, rep.overall.n);
	for (size_t i = 0; i < pr.n; i++) {
		const wc_run *r = NULL;
		for (size_t j = 0; j < t->n_runs && !r; j++)
			if (strcmp(t->runs[j].run_id, pr.rows[i].run_id) == 0)
				r = &t->runs[j];
		CHECK(r && strcmp(pr.rows[i].set, r->platform) == 0);
		CHECK(r && strcmp(pr.rows[i].fold, wc_model_lookup(r->model)->name) == 0);
		CHECK(r && pr.rows[i].measured == r->mean_power_w);
	}
	wc_per_run_clear(&pr);
	CHECK_INT(rep.overall.n + rep.skipped, 240);
	CHECK(rep.overall.median_abs_err_pct < 3.0);
	CHECK(rep.overall.share_within_5pct > 0.8);
	CHECK(fabs(rep.overall.bias_pct) < 1.5);
	CHECK_INT(rep.n_sets, 4); /* A100, H100, H200, H100-locked */
	for (int s = 0; s < rep.n_sets; s++)
		printf("  %s: n %d, median %.2f %%\n", rep.sets[s].set, rep.sets[s].n, rep.sets[s].median_abs_err_pct);
	/* The quantized runs have no term when precision terms are off:
	 * they are predicted as bf16 (a few percent off), not dropped. */
	CHECK(rep.skipped == 0);

	/* One platform with one model: holding it out leaves its level without
	 * runs, so its runs are skipped. */
	snprintf(t->runs[0].platform, sizeof t->runs[0].platform, "L40S");
	CHECK_INT(wc_validate_lomo(t, &fo, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.skipped, 1);
	wc_runs_free(t);
	return check_report("test_validate_lomo");
}

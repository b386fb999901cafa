/*
 * Candidate forms (Table 11 analogue): on data simulated from each form,
 * `validate forms` chooses that form, or one whose primary score is within
 * 2 % of it. Truths: the published profile for the chosen form; for the
 * other forms, the law each of them fits best to noise-free data of the
 * published one (the floor form with a floor of sigma(-1) = 27 %). Each
 * truth is drawn --uncapped: the form chosen is the law's, and the rows a
 * board's power limit would hold are the law's own values (docs/fitting.md,
 * "Which runs enter").
 */
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>

static void
truth_for(wc_form form, const wc_params *paper, wc_params *out)
{
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_runs_table *t = NULL;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	wc_error err;
	if (form == WC_FORM_SATURATING_QUADRATIC) {
		wc_params_copy(out, paper, NULL);
		return;
	}
	so.noise = so.idle_noise = 0;
	so.uncapped = 1;
	CHECK_INT(wc_simulate_inference(paper, &so, &t, &err), WC_OK);
	fo.form = form == WC_FORM_FLOOR_PLUS_RISE ? WC_FORM_SATURATING_QUADRATIC : form;
	fo.prior = paper;
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	wc_params_copy(out, &r.params, NULL);
	if (form == WC_FORM_FLOOR_PLUS_RISE) {
		out->form = form;
		for (int i = 0; i < out->n_levels; i++)
			out->levels[i].floor_logit.value = -1.0;
	}
	/* keep the paper's locked-clock host and precision terms */
	out->kappa = paper->kappa;
	wc_fit_result_clear(&r);
	wc_runs_free(t);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		wc_params truth = WC_PARAMS_INIT;
		wc_runs_table *t = NULL;
		wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
		wc_fit_options fo = WC_FIT_OPTIONS_INIT;
		wc_forms_report rep;
		truth_for((wc_form)f, &paper, &truth);
		CHECK_INT(wc_params_validate(&truth, &err), WC_OK);
		so.seed = 500 + (uint64_t)f;
		so.uncapped = 1;
		CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
		fo.prior = &paper;
		fo.precision_terms = 0;
		CHECK_INT(wc_validate_forms(t, &fo, &rep, &err), WC_OK);
		CHECK(rep.chosen >= 0);
		if (rep.chosen < 0)
			continue;
		double mine = rep.forms[f].primary, best = rep.forms[rep.chosen].primary;
		printf("truth %-26s chosen %-26s primary %.4f vs %.4f\n", wc_form_name((wc_form)f),
		       wc_form_name((wc_form)rep.chosen), mine, best);
		CHECK(rep.chosen == f || mine <= 1.02 * best);
		/* k as in the published table (three platforms; the locked-clock
		 * host is not among the saturation runs): 5, 6, 8, 9, 12. The
		 * prefill-aware form has no prefill share on this design (no token
		 * lengths), so phi is not fitted: 9, as the published choice. */
		static const int k_expected[WC_FORM_COUNT] = { 5, 6, 8, 9, 12, 9 };
		CHECK_INT(rep.forms[f].k, k_expected[f]);
		CHECK_INT(rep.runs, 204);
		wc_params_clear(&truth);
		wc_runs_free(t);
	}
	return check_report("test_validate_forms");
}

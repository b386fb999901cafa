/*
 * Precision terms from paired runs (Table 12 analogue) on simulated data:
 * pairs are found automatically; the better placement is the true one
 * (shift inside z for weights, factor on S for the KV cache); terms the
 * truth has are kept with values near it when the noise allows, and the
 * A100 weight terms, absent from the truth, are not kept.
 */
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>

static const wc_precision_group *
group(const wc_precision_report *r, wc_setting s, wc_precision p, const char *level)
{
	for (int i = 0; i < r->n_groups; i++)
		if (r->groups[i].setting == s && r->groups[i].precision == p &&
		    strcmp(r->groups[i].level, level) == 0)
			return &r->groups[i];
	return NULL;
}

static void
analyse(double noise, uint64_t seed, wc_precision_report *rep)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_error err;
	wc_params_default(&truth);
	so.noise = noise;
	so.seed = seed;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	fo.prior = &truth;
	CHECK_INT(wc_validate_precision(t, &fo, rep, &err), WC_OK);
	wc_runs_free(t);
}

int
main(void)
{
	wc_precision_report rep;
	gsl_set_error_handler_off();

	/* Low noise (0.5 %): every true term is found, at its value. */
	analyse(0.005, 3, &rep);
	CHECK_INT(rep.n_groups, 5);
	CHECK_INT(rep.base_runs, 214);
	const wc_precision_group *kv = group(&rep, WC_SETTING_KV, WC_PREC_FP8, "");
	const wc_precision_group *f8 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_FP8, "H200");
	const wc_precision_group *i4 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_INT4, "H200");
	const wc_precision_group *a8 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_FP8, "A100");
	const wc_precision_group *a4 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_INT4, "A100");
	CHECK(kv && f8 && i4 && a8 && a4);
	if (kv && f8 && i4 && a8 && a4) {
		CHECK_INT(kv->pairs, 10);
		CHECK_INT(f8->pairs, 4);
		CHECK_INT(kv->better, WC_PLACE_ON_S);
		CHECK(kv->kept);
		CHECK_NEAR(kv->value, 0.967, 0.01);
		CHECK_INT(f8->better, WC_PLACE_INSIDE_Z);
		CHECK(f8->kept && f8->p_value < 0.05);
		CHECK_NEAR(f8->value, -0.81, 0.05);
		CHECK_INT(i4->better, WC_PLACE_INSIDE_Z);
		CHECK(i4->kept);
		CHECK_NEAR(i4->value, -0.92, 0.05);
		CHECK(!a8->kept && !a4->kept);
		CHECK(a8->p_value > 0.05 && a4->p_value > 0.05);
		/* no term fits the H200 pairs much worse than the shift */
		CHECK(f8->rms[0] > 5 * f8->rms[1]);
	}

	/* Published noise (3 %): the large int4 shift survives the test, the
	 * absent A100 terms are still refused. */
	analyse(0.03, 42, &rep);
	i4 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_INT4, "H200");
	a8 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_FP8, "A100");
	a4 = group(&rep, WC_SETTING_WEIGHTS, WC_PREC_INT4, "A100");
	CHECK(i4 && i4->kept && i4->better == WC_PLACE_INSIDE_Z);
	CHECK(a8 && !a8->kept);
	CHECK(a4 && !a4->kept);

	/* The report converts into fit term specs: kept ones with placements. */
	wc_precision_term specs[WC_PRECISION_GROUPS_MAX];
	int n = wc_precision_terms_from_report(&rep, specs, WC_PRECISION_GROUPS_MAX);
	CHECK_INT(n, rep.n_groups);
	for (int i = 0; i < n; i++)
		CHECK(specs[i].kept == rep.groups[i].kept &&
		      (specs[i].kept ? specs[i].placement != WC_PLACE_NONE : specs[i].placement == WC_PLACE_NONE));
	return check_report("test_validate_precision");
}

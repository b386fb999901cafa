/*
 * The capacity model on the real ML.ENERGY v3 table (label realdata; read
 * in place from ../shared): every configuration becomes evidence (Little's
 * law latency and median ITL), the joint fit converges, and leave one
 * model out -- capacity model and power law refitted without the model --
 * stays where docs/results.md reports it for the default, Huber-weighted
 * fit (docs/capacity.md, "Held-out accuracy": median |error| of throughput
 * H100 7.1 %, B200 16.0 %; of energy per output token H100 11.7 %, B200
 * 14.3 %; the goal of 10 % is met for H100 throughput only), and for
 * plain least squares (`--plain`: 8.2 % / 18.7 %, 13.6 % / 16.0 %), which
 * the default is no worse than on any of the four.
 * Expert-parallel runs are read from the table's expert_parallel column.
 */
#include "data/data.h"
#include "fit/capacity_fit.h"
#include "fit/fit.h"
#include "models/profile_measured.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const wc_accuracy *
platform(const wc_heldout_report *r, const char *name)
{
	for (int i = 0; i < r->n_sets; i++)
		if (strcmp(r->sets[i].set, name) == 0)
			return &r->sets[i];
	return NULL;
}

/* Leave one model out against its recorded medians {throughput, energy
 * per token} for H100 and B200, within `tol` points; the medians into `got`. */
static void
check_lomo(const wc_capacity_report *rep, const char *label, const double want[2][2], double tol,
           double got[2][2])
{
	static const char *const names[2] = { "H100", "B200" };
	for (int i = 0; i < 2; i++) {
		const wc_accuracy *a = platform(&rep->throughput, names[i]), *e = platform(&rep->energy, names[i]);
		CHECK(a && e);
		if (!a || !e)
			continue;
		printf("  LOMO %s %s: throughput n %d median |err| %.2f %% bias %+.2f %%; energy/token n %d median "
		       "|err| %.2f %% bias %+.2f %%\n", label, names[i], a->n, a->median_abs_err_pct, a->bias_pct, e->n,
		       e->median_abs_err_pct, e->bias_pct);
		CHECK_NEAR(a->median_abs_err_pct, want[i][0], tol);
		CHECK_NEAR(e->median_abs_err_pct, want[i][1], tol);
		got[i][0] = a->median_abs_err_pct;
		got[i][1] = e->median_abs_err_pct;
	}
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *path = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	wc_runs_table *t = NULL;
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options co = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result r;
	wc_params prior = WC_PARAMS_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	CHECK_INT(wc_import_mlenergy(path, &t, &err), WC_OK);
	if (!t)
		return check_report("test_real_capacity");
	/* the import keeps what the capacity fit reads */
	CHECK(t->runs[0].throughput_tok_s > 0 && t->runs[0].output_tokens > 0 && t->runs[0].running > 0);
	CHECK(wc_runs_get_extra(t, 0, "median_itl_ms") && atof(wc_runs_get_extra(t, 0, "median_itl_ms")) > 0);
	CHECK_INT(wc_capacity_data_add_runs(&d, t, &err), WC_OK);
	CHECK_INT((int)d.n_rows, 325);
	CHECK_INT(wc_fit_capacity(&d, &co, &r, &err), WC_OK);
	CHECK(r.converged);
	CHECK_INT(r.n_obs, 650);
	printf("  in-sample rms %.3f (log time)\n", r.rms);
	wc_capacity_fit_result_clear(&r);

	wc_params_default(&prior);
	wc_fit_options po = WC_FIT_OPTIONS_INIT;
	po.prior = &prior;
	wc_capacity_report rep;
	co.robust = 0; /* --plain */
	CHECK_INT(wc_validate_capacity(t, &d, &co, &po, &rep, NULL, &err), WC_OK);
	/* re-measured 2026-12-07 with tau_ep (one tau: 8.29 / 13.49, 18.88 / 16.09) */
	static const double plain[2][2] = { { 9.17, 12.76 }, { 19.56, 15.00 } };
	double got_plain[2][2] = { { NAN, NAN }, { NAN, NAN } }, got[2][2] = { { NAN, NAN }, { NAN, NAN } };
	check_lomo(&rep, "plain", plain, 0.5, got_plain);
	CHECK_INT(rep.throughput.overall.n + rep.throughput.skipped, 325);
	co.robust = 1; /* the default */
	CHECK_INT(wc_validate_capacity(t, &d, &co, &po, &rep, NULL, &err), WC_OK);
	/* one tau: 7.01 / 11.63, 15.90 / 14.33 */
	static const double robust[2][2] = { { 7.66, 11.11 }, { 15.59, 12.95 } };
	check_lomo(&rep, "robust", robust, 0.5, got);
	/* no worse than the plain fit on either platform */
	for (int i = 0; i < 2; i++)
		CHECK(got[i][0] <= got_plain[i][0] && got[i][1] <= got_plain[i][1]);
	/* The shipped recipe: each fold's power law refitted as the measured
	 * profile's is (structure terms moe,tp; quantized runs with no term).
	 * Its energy per token misses more than the per-level-terms fit above:
	 * a better power law no longer offsets B200's over-predicted throughput
	 * (docs/validation.md, "Refitting a set"). */
	wc_params_clear(&prior);
	wc_params_measured(&prior);
	wc_fit_options_like(&po, &prior, -1);
	CHECK(po.law_terms == (WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_TP)) && po.precision_terms == WC_TERMS_AS_BF16);
	CHECK_INT(wc_validate_capacity(t, &d, &co, &po, &rep, NULL, &err), WC_OK);
	/* one tau: 7.01 / 12.12, 15.90 / 15.31 */
	static const double shipped[2][2] = { { 7.66, 11.65 }, { 15.59, 12.32 } };
	check_lomo(&rep, "measured recipe", shipped, 0.05, got);

	/* One model alone: no fold has another model's rows to fit, and every
	 * run is counted as skipped, not left out without a word. */
	wc_runs_table *one = wc_runs_new();
	wc_capacity_data d1 = WC_CAPACITY_DATA_INIT;
	size_t n_one = 0;
	for (size_t i = 0; one && i < t->n_runs; i++)
		if (strcmp(t->runs[i].model, t->runs[0].model) == 0 && wc_runs_append(one, &t->runs[i], &err) == WC_OK)
			n_one++;
	CHECK(n_one > 5);
	CHECK_INT(wc_capacity_data_add_runs(&d1, one, &err), WC_OK);
	CHECK_INT(wc_validate_capacity(one, &d1, &co, &po, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.throughput.overall.n, 0);
	CHECK_INT(rep.throughput.skipped, (int)n_one);
	wc_capacity_data_clear(&d1);
	wc_runs_free(one);
	wc_params_clear(&prior);
	wc_capacity_data_clear(&d);
	wc_runs_free(t);
	free(path);
	return check_report("test_real_capacity");
}

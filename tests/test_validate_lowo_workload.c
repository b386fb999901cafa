/*
 * Leave one workload out holds out each `set` (ML.ENERGY's task), else
 * each `workload` column value (what `ingest` writes, with no set):
 * docs/validation.md, "Forms on real runs". It held out the set alone,
 * so an ingested table (PowerTrace-Sim: bursty, poisson, replay) was one
 * workload and the column was never scored.
 */
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <string.h>

int
main(void)
{
	static const wc_workload kinds[3] = { WC_WORKLOAD_POISSON, WC_WORKLOAD_BURSTY, WC_WORKLOAD_REPLAY };
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_forms_real_report rep;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&truth);
	so.seed = 11;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	if (!t)
		return check_report("test_validate_lowo_workload");
	/* as ingest writes them: no set, a workload per run */
	for (size_t i = 0; i < t->n_runs; i++) {
		t->runs[i].set[0] = '\0';
		t->runs[i].workload = kinds[i % 3];
	}
	fo.prior = &truth;
	fo.precision_terms = 0;
	wc_per_run pr = WC_PER_RUN_INIT;
	CHECK_INT(wc_validate_forms_real(t, &fo, &rep, &pr, &err), WC_OK);
	const wc_form_real_score *s = &rep.forms[WC_FORM_SATURATING_QUADRATIC];
	printf("workloads %d; %s lowo: n %d, median %.2f %%\n", rep.workloads, wc_form_name(s->form),
	       s->lowo.overall.n, s->lowo.overall.median_abs_err_pct);
	CHECK_INT(rep.workloads, 3);
	CHECK(s->lowo.overall.n > 0);
	int poisson = 0;
	for (size_t i = 0; i < pr.n; i++)
		poisson += strcmp(pr.rows[i].fold, "saturating_quadratic_load lowo poisson") == 0;
	CHECK(poisson > 0);
	wc_per_run_clear(&pr);

	/* a set, where present, is the workload: two sets, whatever the column says */
	for (size_t i = 0; i < t->n_runs; i++)
		snprintf(t->runs[i].set, sizeof t->runs[i].set, "%s", i % 2 ? "chat" : "code");
	CHECK_INT(wc_validate_forms_real(t, &fo, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.workloads, 2);
	wc_runs_free(t);
	wc_params_clear(&truth);
	return check_report("test_validate_lowo_workload");
}

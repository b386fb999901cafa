/*
 * The candidate forms on real runs (docs/validation.md, "Forms on real
 * runs"): the published five and the prefill-aware form, each held out by
 * model and by workload, so that a form that helps only the workloads it
 * was fitted on shows it.
 */
#include "validation_internal.h"

#include <stdio.h>
#include <string.h>

int
wc_validate_forms_real(const wc_runs_table *t, const wc_fit_options *base, wc_forms_real_report *out,
                       wc_per_run *per_run, wc_error *err)
{
	memset(out, 0, sizeof *out);
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		wc_form_real_score *s = &out->forms[out->n_forms++];
		wc_fit_options o = *base;
		char prefix[64];
		int rc, models = 0, workloads = 0;
		s->form = (wc_form)f;
		o.form = (wc_form)f;
		snprintf(prefix, sizeof prefix, "%s lomo ", wc_form_name((wc_form)f));
		if ((rc = wc__validate_lomo_groups(t, &o, prefix, &s->lomo, &models, per_run, err)) != WC_OK)
			return rc;
		snprintf(prefix, sizeof prefix, "%s lowo ", wc_form_name((wc_form)f));
		if ((rc = wc__validate_lowo_groups(t, &o, prefix, &s->lowo, &workloads, per_run, err)) != WC_OK)
			return rc;
		if (workloads < 2)
			memset(&s->lowo, 0, sizeof s->lowo); /* nothing to hold out against */
		s->fitted = s->lomo.overall.n > 0 || s->lowo.overall.n > 0;
		out->models = models;
		out->workloads = workloads;
	}
	return WC_OK;
}

/*
 * Where the prefill-aware form's shares of time come from
 * (docs/inference-law.md, "Prefill-aware form"): the caller's capacity
 * section, else one refitted on the runs being fitted when they carry
 * throughput (so a held-out fold's shares and workload input lengths come
 * from its training runs only), else the prior's section.
 */
#include "fit_internal.h"
#include "models/grow.h"
#include "fit/capacity_fit.h"

#include <stdlib.h>

/* The capacity model refitted on the runs `opt->use` keeps; 1 when it was,
 * 0 when the runs give nothing to fit (no throughput, no architecture). */
static int
refit_capacity(const wc_runs_table *t, const wc_fit_options *opt, wc_capacity_params *out, int *rows,
               wc_error *err)
{
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options co = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result fr;
	wc_error ferr;
	unsigned char *use = NULL;
	int rc = wc_capacity_data_add_runs(&d, t, err), fitted = 0;
	*rows = 0;
	if (rc != WC_OK)
		goto done;
	if (!(use = wc_alloc_zeroed(d.n_rows ? d.n_rows : 1, 1))) {
		rc = wc_error_set(err, WC_ENOMEM, "fit: out of memory");
		goto done;
	}
	for (size_t k = 0; k < d.n_rows; k++) {
		use[k] = !d.rows[k].exclude[0] && (!opt->use || opt->use[d.rows[k].source_index]);
		*rows += use[k];
	}
	co.use = use;
	/* plain least squares, as this form's scores were measured (choice;
	 * Huber-weighted shares were measured too: docs/capacity.md, "Robust
	 * fit") */
	co.robust = 0;
	if (*rows == 0 || wc_fit_capacity(&d, &co, &fr, &ferr) != WC_OK)
		goto done; /* the prior's section applies */
	rc = wc_capacity_params_copy(out, &fr.params, err);
	fitted = rc == WC_OK;
	wc_capacity_fit_result_clear(&fr);
done:
	free(use);
	wc_capacity_data_clear(&d);
	return rc != WC_OK ? rc : fitted;
}

int
wc__fit_prefill_capacity(const wc_runs_table *t, const wc_fit_options *opt, wc_capacity_params *out,
                     char *note, size_t cap, wc_error *err)
{
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *prior = opt->prior;
	int rows = 0, rc;
	note[0] = '\0';
	wc_capacity_params_init(out);
	if (!wc_form_has_prefill(opt->form))
		return WC_OK;
	if (opt->capacity)
		return wc_capacity_params_copy(out, opt->capacity, err);
	if ((rc = refit_capacity(t, opt, out, &rows, err)) < 0)
		return rc;
	if (rc == 1) {
		snprintf(note, cap, "prefill shares from the capacity model refitted on %d run(s) of the table", rows);
		return WC_OK;
	}
	if (!prior) {
		wc_params_default(&paper);
		prior = &paper;
	}
	rc = prior->capacity.present ? wc_capacity_params_copy(out, &prior->capacity, err) : WC_OK;
	wc_params_clear(&paper);
	return rc;
}

/* The prefill share of a run's time from the prior's capacity model, and
 * its duty cycle (docs/inference-law.md, "Prefill-aware form"). */
void
wc__fit_row_prefill(fit_problem *pb, const wc_params *prior, const wc_fit_options *opt, const wc_run *r, size_t k)
{
	wc_config c;
	wc_run_config(r, &c);
	pb->duty[k] = c.running > 0.0 && c.running < 1.0 ? c.running : 1.0;
	pb->rho[k] = wc_form_has_prefill(pb->form) && isfinite(pb->p_max[pb->lvl[k]])
	             ? wc_prefill_share(opt->capacity ? opt->capacity : &prior->capacity, &c) : 0.0;
}

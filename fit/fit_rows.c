/*
 * What identifies the rows and runs a fit used (docs/formats/params-file.md,
 * "Provenance", schema 19): each used row's content hash, as a
 * calibration records its rows, and each used run's id hash, a run's
 * `#seg<k>` pieces one run (wc_run_same_run). `validate heldout` finds
 * by them any subset of the fitted rows, and the pieces of a run the law
 * learned from (docs/validation.md, "Frozen-law accuracy").
 */
#include "fit_internal.h"

#include <stdlib.h>

#include "models/grow.h"

int
wc__fit_record_rows(const fit_problem *pb, const wc_runs_table *t, const double *mult, wc_fit_result *out,
                    wc_error *err)
{
	size_t n = pb->n_rows ? pb->n_rows : 1, k = 0;
	size_t *at = wc_alloc_array(n, sizeof *at), *unit = wc_alloc_array(n, sizeof *unit);
	uint64_t *rows = wc_alloc_array(n, sizeof *rows), *runs = wc_alloc_array(n, sizeof *runs);
	int rc = WC_OK;
	if (!at || !unit || !rows || !runs) {
		rc = wc_error_set(err, WC_ENOMEM, "fit: out of memory");
		goto done;
	}
	for (size_t i = 0; i < pb->n_rows; i++)
		if (mult[i] > 0) /* a fold's weight 0: not used */
			at[k++] = pb->row[i];
	size_t n_runs = wc_runs_units(t, at, k, unit), u = 0;
	for (size_t i = 0; i < k; i++) {
		rows[i] = wc_run_content_hash(&t->runs[at[i]]);
		if (unit[i] == u) /* its run's first row */
			runs[u++] = wc_run_id_hash(t->runs[at[i]].platform, t->runs[at[i]].run_id);
	}
	out->n_pieces = (int)k;
	out->n_runs = (int)n_runs;
	/* a run cut into pieces counts once (as a calibration counts it) */
	if (n_runs < k)
		out->params.runs = (int)n_runs;
	if ((rc = wc_params_set_fit_hashes(&out->params, 'r', rows, (int)k, err)) == WC_OK)
		rc = wc_params_set_fit_hashes(&out->params, 'u', runs, (int)u, err);
done:
	free(at);
	free(unit);
	free(rows);
	free(runs);
	return rc;
}

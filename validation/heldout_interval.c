/*
 * Coverage scored on the rows a set's interval was measured on
 * (docs/validation.md, "Frozen-law accuracy"): a set whose
 * prediction_error was computed frozen on these very runs covers them by
 * construction. Split from heldout.c, which finds the rows a law, a
 * calibration or a capacity section was fitted on.
 */
#include "validation_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Do the strata of `got` give those of `want` of one kind (datasheet or
 * not): each with the same platform and source, as many residuals and
 * the same quantiles? Into `*n` and `*q` the pooled one's (else the
 * first's) count and upper quantile. */
static int
same_strata(const wc_pred_error *want, const wc_pred_error *got, int datasheet, int *n, double *q)
{
	int seen = 0;
	for (int i = 0; i < want->n_strata; i++) {
		const wc_pe_stratum *a = &want->strata[i], *b = NULL;
		if ((strcmp(a->source, "datasheet") == 0) != datasheet)
			continue;
		for (int j = 0; j < got->n_strata && !b; j++)
			if (!strcmp(got->strata[j].platform, a->platform) && !strcmp(got->strata[j].source, a->source))
				b = &got->strata[j];
		if (!b || b->n != a->n || !wc__near(b->q_lo, a->q_lo) || !wc__near(b->q_hi, a->q_hi))
			return 0;
		if (!seen++ || !a->platform[0]) {
			*n = a->n;
			*q = a->q_hi;
		}
	}
	return seen > 0;
}

/* Rows of `t` on a board `p` has no level for: those `--datasheet`
 * answers by the board's transfer, widened by the datasheet stratum. */
static size_t
transferred_rows(const wc_params *p, const wc_runs_table *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_runs; i++)
		n += wc_params_level(p, t->runs[i].platform) == NULL;
	return n;
}

/* A set whose prediction_error was measured frozen (`fit intervals
 * --folds frozen`, the `paper` profile's on ML.ENERGY) scored on those
 * very runs covers them by construction: its quantile is the k-th
 * smallest of these residuals (docs/validation.md, "Frozen-law
 * accuracy"). The rows are known by what they give: the section
 * recomputed on `t` as it was measured -- frozen, and leaving each
 * platform out for the datasheet stratum when `--datasheet` transfers
 * a row -- gives the set's strata again (counts and quantiles to 1e-6),
 * as refit_matches knows a fit's rows. */
int
wc_heldout_interval_in_sample(const wc_params *p, const wc_runs_table *t, int datasheet, const char *input,
                              char *buf, size_t cap)
{
	const wc_pred_error *pe = &p->pred_error;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_pred_error got;
	wc_error err;
	int frozen = 0, sheet = 0, has_sheet = 0, n = 0, nd = 0;
	double q = NAN, qd = NAN;
	if (!pe->present)
		return 0;
	for (int i = 0; i < pe->n_strata; i++)
		has_sheet |= strcmp(pe->strata[i].source, "datasheet") == 0;
	if (!strcmp(pe->folds, "frozen") && wc_validate_pred_error(t, &fo, p, "frozen", NULL, &got, &err) == WC_OK)
		frozen = same_strata(pe, &got, 0, &n, &q);
	if (datasheet && has_sheet && transferred_rows(p, t) > 0 &&
	    wc_validate_pred_error(t, &fo, p, "platform", NULL, &got, &err) == WC_OK)
		sheet = same_strata(pe, &got, 1, &nd, &qd);
	if (!frozen && !sheet)
		return 0;
	char what[128], text[WC_ERROR_MSG_MAX];
	if (frozen && sheet)
		snprintf(what, sizeof what, "the set's frozen q %.3f from %d runs and datasheet q %.3f from %d", q, n,
		         qd, nd);
	else
		snprintf(what, sizeof what, "the set's %s q %.3f from %d runs", frozen ? "frozen" : "datasheet",
		         frozen ? q : qd, frozen ? n : nd);
	wc_error_format(text, sizeof text, ": coverage in-sample: the interval's quantile was computed on these rows (they "
	         "give %s again); `validate lomo` is the held-out check", what);
	wc__path_then(buf, cap, input, text);
	return 1;
}

/*
 * A calibrated set's held-out widening (docs/intervals.md, "Calibrated
 * sets"): which answers it applies to, and the one rule every interval of
 * mean power and of what is derived from it goes through -- the power
 * answer's, the capacity answer's (energy, cost and CO2 too, and so power
 * flexibility's steps), an envelope's mean and p95 and a budget plan's
 * statistic.
 */
#include "predict_internal.h"

#include <math.h>
#include <stdlib.h>

int
wc__predict_calibrated(const wc_law_binding *b)
{
	return (b->model_term && b->model_term->shift.source == WC_SRC_CALIBRATED) ||
	       b->level->theta.source == WC_SRC_CALIBRATED;
}

int
wc__predict_widen_power(const wc_law_binding *b, const wc_pred_error *pe, const wc_pe_stratum *s, double point,
                        double *lo, double *hi)
{
	/* A calibrated term or level: its draws are the calibration's own
	 * uncertainty from its k runs, which the base's held-out error does
	 * not contain; they add, not join. */
	return (wc__predict_calibrated(b) ? wc_pe_widen_calibrated : wc_pe_widen_transfer)(pe, s, point, lo, hi);
}

int
wc__predict_calibrated_pe(const wc_params *p, const wc_config *c, double running, const wc_pe_stratum *s,
                          wc_pe_stratum *out)
{
	*out = *s;
	if (p->n_draws < 2 || !isfinite(running) || !(running > 0.0))
		return 0;
	wc_config at = *c;
	wc_params *tmp = NULL;
	wc_law_binding b;
	wc_error err;
	if (wc_predict_resolve_platform(p, &at, &tmp, &err) != WC_OK || tmp) {
		free(tmp); /* a datasheet transfer is never calibrated */
		return 0;
	}
	if (wc_law_bind(p, &at, &b, &err) != WC_OK || !wc__predict_calibrated(&b))
		return 0;
	wc_load_histogram h;
	size_t bad = 0;
	if (wc_load_histogram_build(&running, NULL, 1.0, 1, &h, &bad) != WC_OK)
		return 0;
	double *node = wc_alloc_array((size_t)p->n_draws, sizeof *node);
	wc_law_point lp;
	wc_power pw;
	double point = NAN, lo = NAN, hi = NAN;
	size_t kept = 0;
	wc_law_bound_point(&b, NULL, &lp);
	if (node && wc_law_point_power(&lp, at.tp, &h, &pw, NULL) == WC_OK)
		point = pw.node_power_w;
	for (int r = 0; node && isfinite(point) && r < p->n_draws; r++) {
		wc_law_bound_point(&b, p->draws + (size_t)r * p->n_draw_params, &lp);
		if (wc_law_point_power(&lp, at.tp, &h, &pw, NULL) == WC_OK)
			node[kept++] = pw.node_power_w;
	}
	int folded = kept > 1 && wc_interval_from_draws(node, kept, point, &lo, &hi) &&
	             wc_pe_calibrated_stratum(&p->pred_error, s, point, lo, hi, out);
	free(node);
	wc_load_histogram_free(&h);
	if (!folded)
		*out = *s;
	return folded;
}

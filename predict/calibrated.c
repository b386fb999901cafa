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
                          wc_pe_stratum *out, int *n_draws)
{
	*out = *s;
	if (n_draws)
		*n_draws = 0;
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
	wc_law_point lp;
	wc_power pw;
	double point = NAN, lo = NAN, hi = NAN;
	int kept = 0, folded = 0;
	wc_law_bound_point(&b, NULL, &lp);
	if (wc_law_point_power(&lp, at.tp, &h, &pw, NULL) == WC_OK)
		point = pw.node_power_w;
	/* the answer's draws, by its interval's own loop, at this one running
	 * count (no series to settle under a limit) */
	if (isfinite(point) &&
	    wc__predict_draw_interval(&b, NULL, NAN, at.tp, &h, point, &lo, &hi, &kept, NULL) == WC_OK && kept > 0)
		folded = wc_pe_calibrated_stratum(&p->pred_error, s, point, lo, hi, out);
	wc_load_histogram_free(&h);
	if (!folded)
		*out = *s;
	else if (n_draws)
		*n_draws = kept;
	return folded;
}

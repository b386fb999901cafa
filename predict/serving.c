/*
 * The draw a power cap or the board's limit is judged on: what the GPUs
 * draw while they serve, not a mean over idle time (docs/capacity.md,
 * "Clocks and power caps"). A GPU's power management acts on what it
 * draws while it is busy, so a load below one running request -- an open
 * loop's idle share, a fractional closed loop, a fractional step of a
 * series, each a duty cycle of one request (docs/inference-law.md, "Below
 * one running request") -- is judged at one request
 * (wc_load_serving_count), and its mean is that duty cycle of the draw it
 * settles at. One rule for a single load (wc__predict_serving_w, through
 * which predict/clock.c settles the clock) and a series' steps
 * (wc__predict_settle_step), so that one load written either way settles
 * alike.
 */
#include "predict_internal.h"

#include <math.h>

double
wc__predict_serving_w(const wc_inference_query *q, const wc_law_point *lp, double n, double per_gpu_w)
{
	if (!q->series_len && q->serving_w > 0.0) /* the capacity answer's (steady_power_w) */
		return q->serving_w / q->config.tp;
	double s = wc_load_serving_count(n), one_w = 1.0;
	wc_load_histogram at = { &s, &one_w, 1, s };
	wc_power pw;
	if (q->series_len || s == n || wc_law_point_power(lp, q->config.tp, &at, &pw, NULL) != WC_OK)
		return per_gpu_w;
	return pw.per_gpu_power_w;
}

/* A power manager acts within a second or so, so a level above the
 * limit settles at the clock meeting it (predict_internal.h). */
int
wc__predict_settle_step(const wc_law_point *lp, const wc_law_point *low, int tp, double n, double limit_w,
                        double *w, double *serve_w, double *free_w)
{
	double s = wc_load_serving_count(n), one_w = 1.0;
	wc_load_histogram at_n = { &n, &one_w, 1, n }, serving = { &s, &one_w, 1, s };
	wc_power at, at_low;
	if (wc_law_point_power(lp, tp, &at_n, &at, NULL) != WC_OK)
		return 0;
	*w = *serve_w = *free_w = at.per_gpu_power_w;
	if (s != n) {
		if (wc_law_point_power(lp, tp, &serving, &at, NULL) != WC_OK)
			return 0;
		*serve_w = *free_w = at.per_gpu_power_w;
	}
	if (*free_w > limit_w * (1.0 + 1e-9)) {
		if (wc_law_point_power(low, tp, &serving, &at_low, NULL) != WC_OK)
			return 0;
		*serve_w = fmax(limit_w, fmin(*free_w, at_low.per_gpu_power_w));
		/* the level's mean: that draw for its busy share, idle the rest
		 * (the law's duty cycle, which wc_load_histogram_ceiling_w mixes) */
		*w = wc_load_histogram_ceiling_w(&at_n, lp->p0, *serve_w);
	}
	return 1;
}

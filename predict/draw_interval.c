/*
 * The parameters' interval of a mean power: node power at every bootstrap
 * draw of the set, through the same bound law as the point estimate
 * (docs/intervals.md). One loop for the power answer's interval and for
 * the calibrated widening every other answer takes (docs/intervals.md,
 * "Calibrated sets"), so that how a draw is evaluated -- one whose power
 * is not finite left out, a series settling under a limit -- cannot differ
 * between them.
 */
#include "predict_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A load's per-GPU draw as the answer settles it (wc__predict_settle_step,
 * under `limit_w` from the lowest clock `low`; the law as it is without
 * them), for the rule of power no board draws (wc_power_beyond_boards_step). */
typedef struct {
	const wc_law_point *lp, *low;
	int tp;
	double limit_w;
} settled_ctx;

static double
settled_w(const void *ctx, double n)
{
	const settled_ctx *s = ctx;
	double w, serve_w, free_w;
	return wc__predict_settle_step(s->lp, s->low, s->tp, n, s->limit_w, &w, &serve_w, &free_w) ? w : NAN;
}

int
wc__predict_beyond_boards(const wc_law_point *lp, const wc_law_point *low, double limit_w, int tp,
                          const wc_load_histogram *h, int series, double node_w, const wc_level *level,
                          wc_error *err)
{
	const double board_w = wc_level_power_limit_w(level);
	if (!series) /* one load, or an open loop's spread: its mean is the load asked */
		return wc_power_beyond_boards(node_w, board_w, tp)
		               ? wc_power_beyond_boards_refuse(err, node_w / tp, board_w, level->name, "here")
		               : WC_OK;
	/* a series step by step: its idle steps do not make a busy one's
	 * power no board draws an answer (docs/intervals.md, "Physical ceiling") */
	const settled_ctx s = { lp, low, tp, low ? limit_w : NAN };
	size_t i;
	double w;
	if (!wc_power_beyond_boards_step(h, settled_w, &s, board_w, tp, &i, &w))
		return WC_OK;
	return wc__predict_beyond_boards_at(err, h, i, 1, w, board_w, level->name);
}

int
wc__predict_beyond_boards_at(wc_error *err, const wc_load_histogram *h, size_t i, int series, double per_gpu_w,
                             double board_w, const char *board)
{
	char pct[32], where[80];
	if (series) {
		double total = 0.0;
		for (size_t k = 0; k < h->len; k++)
			total += h->weight[k];
		snprintf(where, sizeof where, "at %.4g running, %s of the series", h->running[i],
		         wc_predict_share_format(pct, sizeof pct, total > 0.0 ? h->weight[i] / total : 1.0));
	} else {
		snprintf(where, sizeof where, "at %.4g running", h->running[i]);
	}
	return wc_power_beyond_boards_refuse(err, per_gpu_w, board_w, board, where);
}

/* A series under a limit, step by step: the answer is the time-weighted
 * mean of its levels, each settled (wc__predict_settle_step). The levels
 * no clock meets are also averaged on their own: their draw, not the
 * series', is what the clock of least power gives. */
double
wc__predict_series_limited(const wc_law_point *lp, const wc_law_point *low, int tp, const wc_load_histogram *h,
                           double limit_w, wc_power *pw, double *unmet, double *unmet_w)
{
	double sum = 0.0, sum_w = 0.0, limited = 0.0, least = 0.0, least_sum = 0.0;
	for (size_t i = 0; i < h->len; i++) {
		double w, serve_w, free_w;
		if (!wc__predict_settle_step(lp, low, tp, h->running[i], limit_w, &w, &serve_w, &free_w))
			return 0.0;
		if (free_w > limit_w * (1.0 + 1e-9)) {
			limited += h->weight[i];
			if (serve_w > limit_w * (1.0 + 1e-9)) { /* no clock meets it: said by its draw while serving */
				least += h->weight[i];
				least_sum += h->weight[i] * serve_w;
			}
		}
		sum += h->weight[i] * w;
		sum_w += h->weight[i];
	}
	if (!(limited > 0.0) || !(sum_w > 0.0))
		return 0.0;
	pw->idle_power_w = tp * lp->p0;
	pw->node_power_w = tp * (sum / sum_w);
	pw->per_gpu_power_w = sum / sum_w;
	pw->dynamic_w = pw->node_power_w - pw->idle_power_w;
	if (unmet)
		*unmet = least / sum_w;
	if (unmet_w)
		*unmet_w = least > 0.0 ? least_sum / least : NAN;
	return limited / sum_w;
}

/* The ceiling of a series' mean power under a limit, step by step
 * (docs/intervals.md, "Physical ceiling"): each step ends at the ceiling
 * its own settled draw takes -- a cap where a clock meets it, the board's
 * limit where none does, since a cap no clock meets holds nothing -- and
 * its idle share at the floor, as wc_load_histogram_ceiling_w ends it.
 * Judged on the series' mean instead, a cap met on average but not on its
 * loaded steps ended the interval below the point (H100 Qwen3-8B, 8 and 0
 * running under 150 W: 149.2 W, its interval's top at the point). */
double
wc__predict_series_ceiling_w(const wc_law_point *lp, const wc_law_point *low, const wc_level *level, double cap_w,
                             int tp, const wc_load_histogram *h, double limit_w, double floor_w)
{
	double sum = 0.0, sum_w = 0.0;
	for (size_t i = 0; i < h->len; i++) {
		double w, serve_w, free_w, one_w = 1.0;
		wc_load_histogram one = { &h->running[i], &one_w, 1, h->running[i] };
		if (!wc__predict_settle_step(lp, low, tp, h->running[i], limit_w, &w, &serve_w, &free_w))
			return NAN;
		double top = wc_load_histogram_ceiling_w(&one, floor_w, wc_level_power_ceiling_w(level, cap_w, serve_w, tp));
		sum += h->weight[i] * top;
		sum_w += h->weight[i];
	}
	return sum_w > 0.0 ? sum / sum_w : NAN;
}

int
wc__predict_draw_interval(const wc_law_binding *b, const wc_law_binding *low, double limit_w, int tp,
                          const wc_load_histogram *h, double point, double *lo, double *hi, int *n_draws,
                          wc_error *err)
{
	const wc_params *p = b->p;
	*lo = *hi = NAN;
	*n_draws = 0;
	if (p->n_draws < 1)
		return WC_OK;
	double *node = wc_alloc_array((size_t)p->n_draws, sizeof *node);
	if (!node)
		return wc_error_set(err, WC_ENOMEM, "interval: out of memory");
	size_t kept = 0;
	for (int r = 0; r < p->n_draws; r++) {
		wc_law_point lp;
		wc_power pw;
		wc_law_bound_point(b, p->draws + (size_t)r * p->n_draw_params, &lp);
		/* A draw whose power is not finite is left out of the percentiles. */
		if (wc_law_point_power(&lp, tp, h, &pw, NULL) != WC_OK)
			continue;
		if (low) { /* a series under a limit: each draw settles as the point does */
			wc_law_point lpl;
			wc_law_bound_point(low, p->draws + (size_t)r * p->n_draw_params, &lpl);
			wc__predict_series_limited(&lp, &lpl, tp, h, limit_w, &pw, NULL, NULL);
		}
		node[kept++] = pw.node_power_w;
	}
	if (wc_interval_from_draws(node, kept, point, lo, hi))
		*n_draws = (int)kept;
	free(node);
	return WC_OK;
}

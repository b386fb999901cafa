/*
 * The clock a load series answers at when the board's limit or a cap
 * binds on some of its steps (docs/http-api.md, "The prediction object";
 * docs/capacity.md, "The board's power limit"). Each step settles on its
 * own (wc__predict_series_limited), so the steps at the highest load run
 * at the lowest clock: the series has one clock only where every step
 * answers at the same, else the lowest and highest clock its steps run
 * at. A step's clock is the one a single load of it settles at
 * (wc_predict_board_limit, wc_predict_power_cap): the same rule.
 */
#include "predict/capacity_predict.h"
#include "predict_internal.h"

#include <math.h>

/* The clock `n` running settles at under q's limit `limit_w` (a cap when
 * it is q->power_cap_w), from the clock locked, as a single load does. */
static int
step_clock(const wc_predictor *pr, const wc_inference_query *q, double n, double limit_w, double *mhz,
           wc_error *err)
{
	wc_inference_query at = *q;
	at.running_series = NULL;
	at.series_hold = NULL;
	at.series_len = 0;
	at.config.running = n;
	at.measured_load = 1; /* the law at the step's own count, as the series' */
	at.skip_memory_check = 1; /* the series' steps are held to the KV cache already */
	at.want_interval = 0;
	at.open_loop_max = at.serving_w = 0.0;
	at.cap_load_hi = 0.0;
	if (wc__predict_limit_is_cap(q, limit_w))
		return wc_predict_power_cap(pr, &at, limit_w, mhz, err);
	at.power_cap_w = 0.0;
	int rc = wc_predict_board_limit(pr, &at, err);
	*mhz = at.config.sm_clock_mhz;
	return rc;
}

int
wc__predict_series_clock(const wc_predictor *pr, const wc_inference_query *q, const wc_load_histogram *h,
                         double limit_w, double limited, double unmet, wc_inference_prediction *out, wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), q->config.platform);
	double lo, hi;
	int rc;
	if (!(limited > 0.0) || !info || !(h->len > 0))
		return WC_OK;
	out->series_limit_w = limit_w;
	out->series_limit_board = !wc__predict_limit_is_cap(q, limit_w);
	out->series_limit_share = limited;
	out->series_limit_met = !(unmet > 0.0);
	out->series_clock_mhz = out->series_clock_range_mhz[0] = out->series_clock_range_mhz[1] = NAN;
	/* law power rises with the count at a clock: the top step runs lowest,
	 * and no clock meets it first */
	if (unmet > 0.0)
		lo = info->min_sm_clock_mhz;
	else if ((rc = step_clock(pr, q, h->running[h->len - 1], limit_w, &lo, err)) != WC_OK)
		return rc;
	if (limited < WC__SHARE_ALL) /* the steps it leaves run at the lock, or free */
		hi = q->config.sm_clock_mhz > 0.0 ? q->config.sm_clock_mhz : NAN;
	else if (unmet >= limited * WC__SHARE_ALL)
		hi = info->min_sm_clock_mhz;
	else if ((rc = step_clock(pr, q, h->running[0], limit_w, &hi, err)) != WC_OK)
		return rc;
	if (isfinite(hi) && fabs(hi - lo) <= 1e-9 * fabs(hi))
		out->series_clock_mhz = lo;
	else {
		out->series_clock_range_mhz[0] = lo;
		out->series_clock_range_mhz[1] = hi;
	}
	return WC_OK;
}

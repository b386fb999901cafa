/*
 * The clock a load series answers at when the board's limit or a cap
 * binds on some of its steps (docs/http-api.md, "The prediction object";
 * docs/capacity.md, "The board's power limit"). Each step settles on its
 * own (wc__predict_series_limited), so the steps at the highest load run
 * at the lowest clock: the series has one clock only where every step
 * answers at the same, else the lowest and highest clock its steps run
 * at. A step's clock is the one a single load of it settles at
 * (wc_predict_board_limit, wc_predict_power_cap): the same rule. What
 * depends on the clock follows each step's: the prefill share and the
 * caveat of a clock below half the top one (docs/inference-law.md,
 * "Averaging over a load series"), so a series whose steps all run at
 * one clock answers them as a single load at that clock.
 */
#include "predict/capacity_predict.h"
#include "predict_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	memset(at.cap_span, 0, sizeof at.cap_span);
	if (wc__predict_limit_is_cap(q, limit_w))
		return wc_predict_power_cap(pr, &at, limit_w, mhz, err);
	at.power_cap_w = 0.0;
	int rc = wc_predict_board_limit(pr, &at, err);
	*mhz = at.config.sm_clock_mhz;
	return rc;
}

/* The clock step `i` of `h` runs at (0: free), NaN where the limit binds
 * and a clock meets it (settle_steps): see wc__predict_series_steps. */
static double
step_mhz(const wc_inference_query *q, const wc_platform_info *info, const wc_law_point *lp, const wc_law_point *low,
         const wc_load_histogram *h, size_t i, double limit_w)
{
	double w, serve_w, free_w;
	if (!low || !info ||
	    !wc__predict_settle_step(lp, low, q->config.tp, h->running[i], limit_w, &w, &serve_w, &free_w) ||
	    !(free_w > limit_w * (1.0 + 1e-9)))
		return q->config.sm_clock_mhz > 0.0 ? q->config.sm_clock_mhz : 0.0;
	return serve_w > limit_w * (1.0 + 1e-9) ? info->min_sm_clock_mhz /* no clock meets it: the lowest */ : NAN;
}

/* The steps a clock meets the limit at (mhz[i] NaN), each at the clock a
 * single load of it settles at (step_clock). A settling costs about 140
 * answers at one clock, each charged to the request (server/
 * route_batch.c): the lowest and highest count are settled, as the
 * series' clock needs (series_clock); the steps between only where their
 * clocks matter -- the prefill share (`want_rho`), or a top step below
 * half the top clock (the clock falls as the count rises, so none is
 * below it otherwise) -- up to WC_SERIES_CLOCK_SETTLES (capacity_predict.h) of them spread from the
 * lowest count to the highest, the rest interpolated in the log of the
 * count between the two settled around it (docs/inference-law.md,
 * "Averaging over a load series", gives the error on a ramp of 4000
 * counts). */
static int
settle_steps(const wc_predictor *pr, const wc_inference_query *q, const wc_config *c, const wc_load_histogram *h,
             double limit_w, int want_rho, double *mhz, wc_error *err)
{
	size_t m = 0, prev = 0, *need = malloc(h->len * sizeof *need);
	int rc = WC_OK;
	if (!need)
		return wc_error_set(err, WC_ENOMEM, "running_series: out of memory");
	for (size_t i = 0; i < h->len; i++)
		if (isnan(mhz[i]))
			need[m++] = i;
	if (m > 0)
		rc = step_clock(pr, q, h->running[need[0]], limit_w, &mhz[need[0]], err);
	if (rc == WC_OK && m > 1)
		rc = step_clock(pr, q, h->running[need[m - 1]], limit_w, &mhz[need[m - 1]], err);
	const int between = rc == WC_OK && m > 2 &&
	                    (want_rho || wc__predict_clock_low(wc_predictor_params(pr), c->platform, mhz[need[m - 1]]));
	const size_t most = between ? WC_SERIES_CLOCK_SETTLES : 2, knots = m <= most ? m : most;
	for (size_t j = 1; j < knots && rc == WC_OK; j++) {
		const size_t k = knots == m ? j : (size_t)llround((double)j * (double)(m - 1) / (double)(knots - 1));
		const size_t a = need[prev], b = need[k];
		if (k < m - 1 && (rc = step_clock(pr, q, h->running[b], limit_w, &mhz[b], err)) != WC_OK)
			break;
		for (size_t t = prev + 1; t < k; t++) {
			const double u = log(h->running[need[t]] / h->running[a]) / log(h->running[b] / h->running[a]);
			mhz[need[t]] = mhz[a] > 0.0 && mhz[b] > 0.0 ? mhz[a] + u * (mhz[b] - mhz[a]) : mhz[a];
		}
		prev = k;
	}
	free(need);
	return rc;
}

/* The series' clock for out's config (the header's "sm clock"), from its
 * steps' clocks `mhz`: the law's power rises with the count at a clock,
 * so the top step runs lowest and the bottom one highest; the steps the
 * limit leaves run at the lock, or free. */
static void
series_clock(const wc_inference_query *q, const wc_load_histogram *h,
             const double *mhz, double limit_w, double limited, double unmet, wc_inference_prediction *out)
{
	out->series_limit_w = limit_w;
	out->series_limit_board = !wc__predict_limit_is_cap(q, limit_w);
	out->series_limit_share = limited;
	out->series_limit_met = !(unmet > 0.0);
	out->series_clock_mhz = out->series_clock_range_mhz[0] = out->series_clock_range_mhz[1] = NAN;
	double lo = mhz[h->len - 1], hi;
	if (limited < WC__SHARE_ALL)
		hi = q->config.sm_clock_mhz > 0.0 ? q->config.sm_clock_mhz : NAN;
	else
		hi = mhz[0] > 0.0 ? mhz[0] : NAN;
	if (isfinite(hi) && fabs(hi - lo) <= 1e-9 * fabs(hi))
		out->series_clock_mhz = lo;
	else {
		out->series_clock_range_mhz[0] = lo;
		out->series_clock_range_mhz[1] = hi;
	}
}

int
wc__predict_series_steps(const wc_predictor *pr, const wc_inference_query *q, const wc_params *p,
                         const wc_config *c, const wc_law_point *lp, const wc_law_point *low,
                         const wc_load_histogram *h, double limit_w, double limited, double unmet,
                         wc__series_steps *st, wc_inference_prediction *out, wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), q->config.platform);
	st->rho = st->one_mhz = NAN;
	st->low_share = 0.0;
	st->low_mhz[0] = st->low_mhz[1] = NAN;
	if (!(h->len > 0))
		return WC_OK;
	double *mhz = malloc(h->len * sizeof *mhz);
	if (!mhz)
		return wc_error_set(err, WC_ENOMEM, "running_series: out of memory");
	double total = 0.0, busy = 0.0, rho = 0.0;
	int rc, one = 1;
	for (size_t i = 0; i < h->len; i++)
		mhz[i] = step_mhz(q, info, lp, limited > 0.0 ? low : NULL, h, i, limit_w);
	/* the share is 0 at every clock where it is 0 at the free one: no lengths */
	rc = settle_steps(pr, q, c, h, limit_w, wc_law_prefill_share(p, c) > 0.0, mhz, err);
	for (size_t i = 0; i < h->len && rc == WC_OK; i++) {
		total += h->weight[i];
		if (wc__predict_clock_low(p, c->platform, mhz[i])) {
			st->low_share += h->weight[i];
			st->low_mhz[0] = isfinite(st->low_mhz[0]) ? fmin(st->low_mhz[0], mhz[i]) : mhz[i];
			st->low_mhz[1] = isfinite(st->low_mhz[1]) ? fmax(st->low_mhz[1], mhz[i]) : mhz[i];
		}
		if (!(h->running[i] > 0.0)) /* an idle step has no busy time to share */
			continue;
		/* the series' law is bound at its mean count (docs/inference-law.md,
		 * "Averaging over a load series"); each step's clock slows its prefill */
		wc_config at = *c;
		at.sm_clock_mhz = mhz[i];
		rho += h->weight[i] * wc_law_prefill_share(p, &at);
		one = one && (!(busy > 0.0) || mhz[i] == st->one_mhz);
		st->one_mhz = mhz[i];
		busy += h->weight[i];
	}
	if (rc == WC_OK) {
		st->rho = busy > 0.0 ? rho / busy : NAN;
		st->one_mhz = busy > 0.0 && one ? st->one_mhz : NAN;
		st->low_share = total > 0.0 ? st->low_share / total : 0.0;
		if (limited > 0.0 && info)
			series_clock(q, h, mhz, limit_w, limited, unmet, out);
	}
	free(mhz);
	return rc;
}

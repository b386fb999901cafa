/*
 * A power cap as the clock the GPU settles at under it (docs/capacity.md,
 * "Clocks and power caps"): the per-GPU power the answer would give at a
 * locked clock f, solved for P(f) = cap within the platform's clock range
 * by bisection. The law's clock term phi(f) = (f / f_ref)^kappa makes the
 * power increase with f; with the capacity answers asked for, the running
 * count of an open loop (and the prefill share) follow the clock too.
 */
#include "predict/capacity_predict.h"

#include <math.h>
#include <stdlib.h>

/* The headline's power (wc_predict_inference), so a platform answered
 * from its datasheet (no level of the set: docs/fitting.md) is capped as
 * it is answered. On the heap: server handler stacks are small. */
static int
headline_power(const wc_predictor *pr, const wc_inference_query *q, wc_power *pw, wc_error *err)
{
	wc_inference_prediction *o = malloc(sizeof *o);
	int rc;
	if (!o)
		return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
	if ((rc = wc_predict_inference(pr, q, o, err)) == WC_OK)
		*pw = o->power;
	free(o);
	return rc;
}

/* Per-GPU power of `q` at clock `f` (0 = unlocked): the capacity answer's
 * when token lengths are given (it is the headline's), else the headline's own. */
static int
power_at(const wc_predictor *pr, const wc_inference_query *q, double f, wc_capacity_prediction *cap,
         double *out, wc_error *err)
{
	wc_inference_query at = *q;
	int rc;
	at.config.sm_clock_mhz = f;
	at.want_interval = 0;
	at.power_cap_w = 0.0;
	if (at.config.arch && at.config.output_tokens > 0) {
		if ((rc = wc_predict_capacity(pr, &at, NAN, NAN, cap, err)) != WC_OK)
			return rc;
		*out = cap->value[WC_CAPQ_POWER] / at.config.tp;
		return WC_OK;
	}
	wc_power pw = { NAN, NAN, NAN, NAN };
	if ((rc = headline_power(pr, &at, &pw, err)) == WC_OK)
		*out = pw.per_gpu_power_w;
	return rc;
}

/* P0 per GPU as the answer gives it (the set's level or the datasheet's). */
static int
idle_per_gpu(const wc_predictor *pr, const wc_inference_query *q, double *p0, wc_error *err)
{
	wc_inference_query at = *q;
	at.config.running = 0.0;
	at.config.request_rate = 0.0;
	at.running_series = NULL;
	at.series_len = 0;
	at.want_interval = 0;
	at.power_cap_w = 0.0;
	wc_power pw = { NAN, NAN, NAN, NAN };
	int rc;
	if ((rc = headline_power(pr, &at, &pw, err)) == WC_OK)
		*p0 = pw.idle_power_w / at.config.tp;
	return rc;
}

/* The clock in [f_min, f_max] at which the per-GPU power meets `cap_w`;
 * *clock_mhz = 0 when the cap does not bind at the free clock. */
static int
settle(const wc_predictor *pr, const wc_inference_query *q, const wc_platform_info *info, double cap_w,
       double *clock_mhz, wc_capacity_prediction *cap, wc_error *err)
{
	double p_free, p_lo, p_hi, lo = info->min_sm_clock_mhz, hi = info->max_sm_clock_mhz;
	int rc;
	if ((rc = power_at(pr, q, 0.0, cap, &p_free, err)) != WC_OK)
		return rc;
	*clock_mhz = 0.0;
	if (p_free <= cap_w)
		return WC_OK; /* the cap does not bind: the clock stays free */
	if ((rc = power_at(pr, q, lo, cap, &p_lo, err)) != WC_OK || (rc = power_at(pr, q, hi, cap, &p_hi, err)) != WC_OK)
		return rc;
	if (p_lo >= cap_w) {
		*clock_mhz = lo; /* even the lowest clock draws more: it settles there */
		return WC_OK;
	}
	if (p_hi <= cap_w) {
		*clock_mhz = hi;
		return WC_OK;
	}
	/* P(lo) < cap < P(hi): bisect to a hundredth of a MHz. */
	while (hi - lo > 0.01) {
		double mid = 0.5 * (lo + hi), pm;
		if ((rc = power_at(pr, q, mid, cap, &pm, err)) != WC_OK)
			return rc;
		if (pm > cap_w)
			hi = mid;
		else
			lo = mid;
	}
	*clock_mhz = lo;
	return WC_OK;
}

int
wc_predict_power_cap(const wc_predictor *pr, const wc_inference_query *q, double cap_w, double *clock_mhz,
                     wc_error *err)
{
	const wc_config *c = &q->config;
	const wc_platform_info *info = c->platform ? wc_platform_board(c->platform, NULL) : NULL;
	double p0 = NAN;
	int rc;
	*clock_mhz = 0.0;
	if (!isfinite(cap_w) || cap_w <= 0.0)
		return wc_error_set(err, WC_EINVAL, "power_cap_w: must be a finite number > 0");
	if (c->sm_clock_mhz > 0.0)
		return wc_error_set(err, WC_EINVAL, "power_cap_w: give either a power cap or sm_clock_mhz, not both");
	if (!info || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return wc_error_set(err, WC_EINVAL, "power_cap_w: the catalog has no clock range for platform '%s'",
		                    c->platform ? c->platform : "");
	if ((rc = idle_per_gpu(pr, q, &p0, err)) != WC_OK)
		return rc;
	if (cap_w <= p0)
		return wc_error_set(err, WC_EINVAL,
		                    "power_cap_w: %g W is at or below the idle power of %s, %.1f W per GPU: no clock "
		                    "settles under it", cap_w, c->platform, p0);
	/* On the heap: server handler stacks are small. */
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
	rc = settle(pr, q, info, cap_w, clock_mhz, cap, err);
	free(cap);
	return rc;
}

int
wc_predict_board_limit(const wc_predictor *pr, wc_inference_query *q, wc_error *err)
{
	const wc_config *c = &q->config;
	const wc_platform_info *info = c->platform ? wc_platform_board(c->platform, NULL) : NULL;
	double mhz = 0.0;
	int rc;
	q->board_limit_w = 0.0;
	q->board_free_w = NAN;
	if (!info || !(info->max_power_w > 0.0) || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return WC_OK; /* no limit or no clocks to settle at: answered as the law gives it */
	if (q->power_cap_w > 0.0 && q->power_cap_w <= info->max_power_w)
		return WC_OK; /* a tighter cap already set the clock */
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "platform: out of memory");
	/* Power rises with the clock, so the clock that meets the limit over
	 * the whole range lies below the one asked whenever that one draws
	 * more; solving over the whole range gives every clock asked above it
	 * the same answer. */
	if ((rc = power_at(pr, q, c->sm_clock_mhz, cap, &q->board_free_w, err)) == WC_OK &&
	    q->board_free_w > info->max_power_w * (1.0 + 1e-9) &&
	    (rc = settle(pr, q, info, info->max_power_w, &mhz, cap, err)) == WC_OK && mhz > 0.0) {
		q->config.sm_clock_mhz = c->sm_clock_mhz > 0.0 ? fmin(mhz, c->sm_clock_mhz) : mhz;
		q->board_limit_w = info->max_power_w;
	}
	free(cap);
	return rc;
}

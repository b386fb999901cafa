/*
 * The prefill-aware form's share of time spent prefilling and its mix
 * into the decode power (docs/inference-law.md, "Prefill-aware form"):
 * rho from the set's capacity model, mixed as D + rho*max(0, A - D).
 * Declared in models/law.h (the mix) and models/evaluate.h (the shares).
 */
#include "models/evaluate.h"

#include "models/capacity_model.h"
#include "models/catalog.h"

#include <math.h>

double
wc_law_point_mix(const wc_law_point *lp, double d, double n)
{
	/* No request runs at n = 0: no prefill either, the idle G*P0 alone
	 * (docs/inference-law.md, "Averaging over a load series"). */
	if (!(lp->rho > 0.0) || !(n > 0.0))
		return d;
	/* Below one request the mix is one request's, for a share n of time. */
	double share = n < 1.0 ? n : 1.0, one = d / share;
	return share * (one + lp->rho * fmax(0.0, lp->a_pre - one));
}

double
wc_law_prefill_headroom(const wc_params *p, const wc_level *level)
{
	(void)p;
	const double limit = wc_level_power_limit_w(level);
	return isfinite(limit) ? fmax(0.0, limit - level->p0.value) : NAN; /* fmax drops a NaN */
}

double
wc_law_prefill_share(const wc_params *p, const wc_config *c)
{
	return wc_prefill_share(&p->capacity, c);
}

double
wc_prefill_share(const wc_capacity_params *cap, const wc_config *c)
{
	wc_capacity_point pt;
	wc_capacity_hw hw;
	wc_capacity_arch arch;
	wc_capacity_times tm;
	if (!cap->present || !c->arch || !(c->output_tokens > 0) || !c->platform)
		return 0.0;
	double in = wc_config_input_tokens(c, cap);
	if (!(in > 0) || wc_capacity_point_any(cap, c->platform, &pt, &hw) != WC_OK ||
	    wc_capacity_arch_make(c->arch, c->weights, c->kv, &arch, NULL) != WC_OK)
		return 0.0;
	wc_capacity_arch_place(&arch, c->tp, c->expert_parallel);
	hw.clock_ratio = wc_capacity_clock_ratio(c->platform, c->sm_clock_mhz); /* a locked clock slows prefill */
	double n = c->running > 1.0 ? c->running : 1.0;
	wc_capacity_times_eval(&pt, &arch, &hw, c->tp, n, in, c->output_tokens, &tm);
	double rho = n * tm.t_pre / tm.latency_s;
	return isfinite(rho) && rho > 0.0 ? fmin(rho, 1.0) : 0.0;
}

double
wc_law_prefill_share_open(const wc_params *p, const wc_config *c, const wc_load_histogram *h)
{
	/* The closed loop's share at the count a request meets, n t_pre /
	 * latency(n), is the rate n / latency(n) times t_pre; an open loop's
	 * rate is m / latency(n) (Little's law at its times), and its
	 * prefills fall in its busy time alone (docs/capacity.md, "Closed
	 * loop, open loop, energy"). */
	const double met = fmax(wc_load_histogram_met(h), 1.0), busy = wc_load_histogram_busy(h);
	wc_config at = *c;
	at.running = met;
	at.request_rate = 0.0;
	const double rho = wc_law_prefill_share(p, &at) * h->mean / (met * busy);
	return isfinite(rho) && rho > 0.0 ? fmin(rho, 1.0) : 0.0;
}

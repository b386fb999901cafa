/*
 * A replay that draws nothing at random (every arrival and length known,
 * docs/validation.md "Envelopes") gives identical replicas: more of them
 * would repeat the first and show a seed and a Monte-Carlo spread that
 * cannot vary. `validate envelope` and `envelope --measured` both simulate
 * it once by this one rule.
 */
#include "predict/envelope.h"

#include <math.h>

/* Did the replicas of `s` all come out the same (no spread in any
 * metric, to rounding: the percentiles interpolate between replicas)? */
static int
no_spread(const wc_envelope_summary *s)
{
	const wc_envelope_stat *q[5] = { &s->mean_w, &s->p5_w, &s->p95_w, &s->max_w, &s->ramp_w_per_s };
	for (int i = 0; i < 5; i++) {
		double lo = q[i]->lo, hi = q[i]->hi;
		if (isnan(lo) && isnan(hi))
			continue;
		if (!(fabs(hi - lo) <= 1e-9 * fmax(1.0, fabs(hi))))
			return 0;
	}
	return 1;
}

int
wc_envelope_run_once_if_fixed(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                              const wc_envelope_options *o, wc_envelope_result *out, wc_error *err)
{
	wc_envelope_options two = *o;
	two.replicas = o->replicas > 2 ? 2 : o->replicas;
	int rc = wc_envelope_run(w, st, pm, &two, out, err);
	if (rc != WC_OK)
		return rc;
	if (two.replicas == 2 && no_spread(&out->server) && (out->fleet_size <= 1 || no_spread(&out->fleet))) {
		out->replicas = 1;
		return WC_OK;
	}
	if (o->replicas <= two.replicas)
		return WC_OK;
	wc_envelope_result_clear(out);
	return wc_envelope_run(w, st, pm, o, out, err);
}

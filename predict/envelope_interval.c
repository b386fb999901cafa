/*
 * An envelope's predictive interval (docs/intervals.md): the law's
 * held-out error of mean power around the simulated mean and p95, held
 * where predict holds its mean power ("Physical ceiling") -- by the same
 * rules, through the same functions: the servers' idle draw below, above
 * the boards' ceiling over the loaded share of the time and the idle draw
 * over the idle share (wc_load_histogram_ceiling_w), and no interval when
 * nothing runs ("Where it applies").
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdlib.h>

#include "models/grow.h"

double
wc__envelope_replica_ceiling(double *running, const double *kept, size_t len, int servers, double floor_w,
                             double ceiling_w)
{
	if (!isfinite(floor_w) || !isfinite(ceiling_w) || !len || servers < 1)
		return servers * ceiling_w;
	/* Bin by bin, at the grid's 0.05 s as predict takes a series sample by
	 * sample (a 1-s mean of 32 and 0 by turns every 0.25 s has no idle
	 * share; its bins have half). An idle bin draws P0 only where the hold
	 * and the decay do not keep it busy (docs/envelopes.md, "Hold and
	 * decay"): their share counts as loaded. A bin's mean count per server
	 * (a fleet's sum over its servers) below one idles at least 1 - n of
	 * it: no more than n of it can run (docs/inference-law.md, "Below one
	 * running request"). The bins at 0 and those at one or more are one
	 * entry each, the fractional ones their own: the histogram the rule
	 * reads, without one entry per bin of a week's idle grid. */
	size_t m = 0;
	double zero = 0.0, loaded = 0.0;
	for (size_t k = 0; k < len; k++) {
		const double n = (running[k] + (kept ? kept[k] : 0.0)) / servers;
		if (n >= 1.0)
			loaded += 1.0;
		else if (n > 0.0)
			running[m++] = n; /* m <= k: read already */
		else
			zero += 1.0;
	}
	double *v = wc_alloc_array(m + 2, sizeof *v), *w = wc_alloc_array(m + 2, sizeof *w), top = NAN;
	wc_load_histogram h = { 0 };
	if (v && w) {
		for (size_t i = 0; i < m; i++) {
			v[i] = running[i];
			w[i] = 1.0;
		}
		v[m] = 0.0;
		w[m] = zero;
		v[m + 1] = 1.0;
		w[m + 1] = loaded;
		if (wc_load_histogram_build(v, w, 0.0, m + 2, &h, NULL) == WC_OK)
			top = servers * wc_load_histogram_ceiling_w(&h, floor_w, ceiling_w);
	}
	wc_load_histogram_free(&h);
	free(v);
	free(w);
	return top;
}

int
wc__envelope_predictive(const wc_power_map *pm, const wc_envelope_summary *s, int servers, double ceiling_w,
                        wc_envelope_interval *iv)
{
	*iv = (wc_envelope_interval){ NAN, NAN, NAN, NAN };
	if (!pm->has_pe)
		return 0;
	/* Nothing runs: the answer is the idle draw, no dynamic part to miss
	 * (predict's rule at concurrency 0). */
	if (!(s->mean_running.value > 0.0))
		return 1;
	/* The mean ends where the boards do over its loaded share; p95 does
	 * not: 0.25 s samples of real A100 traces pass the board limit (p95
	 * 500 W on a 400 W board). A ceiling the replicas did not give (no
	 * memory for it) is the boards' alone. */
	if (!isfinite(ceiling_w))
		ceiling_w = wc_power_ceiling_w(pm->max_w, servers * pm->tp);
	/* Neither ends below the servers' idle draw (the run's measured idle
	 * where it has one, else the level's P0): the held-out error was
	 * measured on loaded runs, and a mostly idle trace of 81.6 W at 72.9 W
	 * idle was offered means down to 55.8 W. */
	const double idle = pm->idle_w > 0.0 ? pm->idle_w * servers * pm->tp : NAN;
	wc_pe_stratum pe; /* with a calibration's draws at the run's load */
	wc_power_map_pe(pm, s->mean_running.value / servers, &pe);
	if (s->mean_w.value > 0.0 && wc_pe_widen(&pe, s->mean_w.value, &iv->mean_lo, &iv->mean_hi)) {
		wc_interval_hold_ceiling(s->mean_w.value, ceiling_w, &iv->mean_hi);
		wc_interval_hold_floor(s->mean_w.value, idle, &iv->mean_lo);
	}
	if (s->p95_w.value > 0.0 && wc_pe_widen(&pe, s->p95_w.value, &iv->p95_lo, &iv->p95_hi))
		wc_interval_hold_floor(s->p95_w.value, idle, &iv->p95_lo);
	return 0;
}

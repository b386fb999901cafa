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

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "models/grow.h"
#include "models/interval.h"

double
wc__envelope_replica_ceiling(double *loaded, size_t len, int servers, double floor_w, double ceiling_w)
{
	if (!isfinite(floor_w) || !isfinite(ceiling_w) || !len || servers < 1)
		return servers * ceiling_w;
	/* Bin by bin, each bin's loaded share per server: the time its
	 * requests ran, as the simulation added them (a bin whose count went
	 * from 32 to 0 halfway is half idle, though its mean count is 16: an
	 * n(t) of 32 and 0 by turns every 10 ms is half idle, as predict takes
	 * it sample by sample), each moment below one running request a duty
	 * cycle (wc_load_busy_share), and the time the hold and the decay keep
	 * busy (docs/envelopes.md, "Hold and decay"); a fleet's summed over its
	 * servers. A bin's share s is one histogram entry at n = s: its idle
	 * share 1 - s draws P0 (wc_load_histogram_ceiling_w). The bins at 0 and
	 * those loaded throughout are one entry each, the others their own:
	 * the histogram the rule reads, without one entry per bin of a week's
	 * idle grid. */
	size_t m = 0;
	double zero = 0.0, full = 0.0;
	for (size_t k = 0; k < len; k++) {
		const double n = loaded[k] / servers;
		if (n >= 1.0)
			full += 1.0;
		else if (n > 0.0)
			loaded[m++] = n; /* m <= k: read already */
		else
			zero += 1.0;
	}
	double *v = wc_alloc_array(m + 2, sizeof *v), *w = wc_alloc_array(m + 2, sizeof *w), top = NAN;
	wc_load_histogram h = { 0 };
	if (v && w) {
		for (size_t i = 0; i < m; i++) {
			v[i] = loaded[i];
			w[i] = 1.0;
		}
		v[m] = 0.0;
		w[m] = zero;
		v[m + 1] = 1.0;
		w[m + 1] = full;
		if (wc_load_histogram_build(v, w, 0.0, m + 2, &h, NULL) == WC_OK)
			top = servers * wc_load_histogram_ceiling_w(&h, floor_w, ceiling_w);
	}
	wc_load_histogram_free(&h);
	free(v);
	free(w);
	return top;
}

int
wc__envelope_arrivals_random(const wc_envelope_workload *w)
{
	return w->kind == WC_ENVELOPE_POISSON || w->kind == WC_ENVELOPE_BURSTY;
}

/* The upper (1 + WC_INTERVAL_LEVEL) / 2 quantile of a Poisson count of
 * mean `mu`, by bisection on GSL's distribution function. */
static double
poisson_upper(double mu)
{
	const double p = 0.5 + 0.5 * WC_INTERVAL_LEVEL;
	double lo = 0.0, hi = ceil(mu + 10.0 * sqrt(mu) + 10.0);
	if (!(mu > 0.0) || !isfinite(hi) || hi > 4e9)
		return mu;
	if (gsl_cdf_poisson_P(0, mu) >= p)
		return 0.0;
	while (hi - lo > 1.0) { /* P(lo) < p <= P(hi) */
		const double mid = floor(0.5 * (lo + hi));
		if (gsl_cdf_poisson_P((unsigned)mid, mu) >= p)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double
wc__envelope_open_ceiling(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
                          const wc_power_map *pm, int servers, double m_sim, double *m_out)
{
	*m_out = 0.0;
	const double T = o->horizon_s, requests = wc_envelope_workload_requests(w, 0.0, T);
	if (!(requests > 0.0) || !(T > 0.0))
		return NAN; /* the workload has no load over the horizon */
	/* A request keeps the boards busy over its life and the hold and the
	 * decay after it (docs/envelopes.md, "Hold and decay"): a bound on its
	 * busy time at light load, where the idle share matters. */
	const double busy = wc__envelope_request_life(st, wc_envelope_mean_length(w, 1), wc_envelope_mean_length(w, 0)) +
	                    fmax(o->hold_s, 0.0) + fmax(o->decay_s, 0.0);
	if (!(busy > 0.0) || !isfinite(busy)) { /* a request lives a grid step at least */
		*m_out = fmax(m_sim, requests / T * WC_ENVELOPE_GRID_S);
		return NAN;
	}
	*m_out = requests / T * busy;
	/* The replicas' count, when more (a queue, longer steps at load), is
	 * the workload's too: one scale for every rate of a profile. */
	const double queue = m_sim > *m_out ? m_sim / *m_out : 1.0;
	*m_out *= queue;
	/* A window of the horizon draws its own number of arrivals: a 600-s
	 * window at 0.001 req/s holds one or more 45 % of the time, whose mean
	 * is above the expected one's ceiling. The count is taken at its upper
	 * quantile over all servers (a renewal count of shape b < 1 spreads
	 * about 1/b times a Poisson one's: b Poisson counts of mean N b). */
	const double b = w->kind == WC_ENVELOPE_BURSTY && w->burstiness < 1.0 ? w->burstiness : 1.0;
	const double all = servers * requests, up = fmax(poisson_upper(all * b) / b, all) / all;
	/* Arrivals smoother than Poisson's (b > 1) idle less than its count
	 * says: their loaded share is held only by the mean count (below one,
	 * a duty cycle), as a closed loop's. */
	const int poisson = !(w->kind == WC_ENVELOPE_BURSTY && w->burstiness > 1.0);
	const double floor_w = wc__envelope_idle_w(pm, pm->tp);
	const double ceiling_w = wc_power_ceiling_w(pm->max_w, pm->tp);
	double top = 0.0, from = 0.0;
	const size_t pieces = w->n_profile ? w->n_profile : 1;
	for (size_t i = 0; i < pieces && from < T; i++) { /* each rate's share of the horizon */
		const double until = i + 1 < pieces ? fmin(w->profile_until_s[i], T) : T;
		const double rate = w->n_profile ? w->profile_rate[i] : w->rate;
		if (until > from)
			top += (until - from) / T *
			       wc_law_loop_ceiling_w(ceiling_w, floor_w, rate * busy * queue * up, o->max_running, poisson);
		from = fmax(from, until);
	}
	return servers * top;
}

int
wc__envelope_predictive(const wc_power_map *pm, const wc_envelope_summary *s, int servers, double ceiling_w,
                        double load, wc_envelope_interval *iv)
{
	*iv = (wc_envelope_interval){ NAN, NAN, NAN, NAN };
	if (!pm->has_pe)
		return 0;
	/* Nothing runs: the answer is the idle draw, no dynamic part to miss
	 * (predict's rule at concurrency 0). */
	if (!(load > 0.0))
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
	const double idle = wc__envelope_idle_w(pm, servers) * pm->tp;
	wc_pe_stratum pe; /* with a calibration's draws at the run's load */
	wc_power_map_pe(pm, load / servers, &pe);
	if (s->mean_w.value > 0.0 && wc_pe_widen(&pe, s->mean_w.value, &iv->mean_lo, &iv->mean_hi)) {
		wc_interval_hold_ceiling(s->mean_w.value, ceiling_w, &iv->mean_hi);
		wc_interval_hold_floor(s->mean_w.value, idle, &iv->mean_lo);
	}
	if (s->p95_w.value > 0.0 && wc_pe_widen(&pe, s->p95_w.value, &iv->p95_lo, &iv->p95_hi))
		wc_interval_hold_floor(s->p95_w.value, idle, &iv->p95_lo);
	return 0;
}

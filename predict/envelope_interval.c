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

/* The workload's expected arrivals per server from workload time 0 to
 * `t`, negative before 0, where the first rate holds (the warm-up's,
 * wc_envelope_workload_requests). */
static double
arrivals_to(const wc_envelope_workload *w, double t)
{
	return t >= 0.0 ? wc_envelope_workload_requests(w, 0.0, t) : -wc_envelope_workload_requests(w, -t, 0.0);
}

/* The mean, over a stretch of the horizon whose mean count runs linearly
 * from `ma` to `mb`, of predict's open-loop ceiling at that count: its
 * count range in pieces that grow with the count (the idle share, near
 * exp(-m), changes fastest at small counts), three-point Gauss-Legendre
 * on each. */
static double
ramp_ceiling(double ma, double mb, double ceiling_w, double floor_w, double n_max, int poisson)
{
	static const double x[3] = { -0.7745966692414834, 0.0, 0.7745966692414834 },
	                    wt[3] = { 5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0 };
	const double lo = fmin(ma, mb), hi = fmax(ma, mb);
	if (!(hi - lo > 1e-12 * fmax(hi, 1.0)))
		return wc_law_loop_ceiling_w(ceiling_w, floor_w, 0.5 * (lo + hi), n_max, poisson);
	double sum = 0.0;
	for (double a = lo; a < hi;) {
		const double b = fmin(hi, fmax(a + 0.25, 1.5 * a)), mid = 0.5 * (a + b), half = 0.5 * (b - a);
		for (int k = 0; k < 3; k++)
			sum += half * wt[k] * wc_law_loop_ceiling_w(ceiling_w, floor_w, mid + half * x[k], n_max, poisson);
		a = b;
	}
	return sum / (hi - lo);
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
	/* A request keeps running after the step it arrived in: the count at
	 * t is what arrived over the life before it, [t - life, t], with life
	 * = busy x queue (the replicas' mean count over the horizon's mean
	 * rate, Little's law), so a step's work is carried past its end and
	 * its count builds up over a life from its start (docs/intervals.md,
	 * "Physical ceiling"). Between the step edges e and e + life the count
	 * runs linearly; where the window holds no edge it is the step's rate
	 * x life, the single rate's count. */
	const double life = busy * queue;
	const size_t edges = w->n_profile ? w->n_profile - 1 : 0; /* the last step holds after its until_s */
	double top = 0.0, from = 0.0;
	size_t i = 0, j = 0; /* edges at or before `from`, and edges whose life has ended by it */
	while (from < T) {
		while (i < edges && w->profile_until_s[i] <= from)
			i++;
		while (j < edges && w->profile_until_s[j] + life <= from)
			j++;
		double to = T, f;
		if (i < edges)
			to = fmin(to, w->profile_until_s[i]);
		if (j < edges)
			to = fmin(to, w->profile_until_s[j] + life);
		if (i == j) { /* no edge in the window: step i's rate throughout */
			const double rate = w->n_profile ? w->profile_rate[i] : w->rate;
			f = wc_law_loop_ceiling_w(ceiling_w, floor_w, rate * busy * queue * up, o->max_running, poisson);
		} else {
			const double ma = up * (arrivals_to(w, from) - arrivals_to(w, from - life));
			const double mb = up * (arrivals_to(w, to) - arrivals_to(w, to - life));
			f = ramp_ceiling(fmax(ma, 0.0), fmax(mb, 0.0), ceiling_w, floor_w, o->max_running, poisson);
		}
		top += (to - from) / T * f;
		from = to;
	}
	return servers * top;
}

int
wc__envelope_predictive(const wc_power_map *pm, const wc_envelope_summary *s, int servers, double ceiling_w,
                        double load, wc_envelope_interval *iv, int *n_draws)
{
	*iv = (wc_envelope_interval){ NAN, NAN, NAN, NAN, 0 };
	*n_draws = 0;
	if (!pm->has_pe)
		return 0;
	/* Nothing runs: the answer is the idle draw, no dynamic part to miss
	 * (predict's rule at concurrency 0). */
	if (!(load > 0.0))
		return 1;
	/* The mean ends where the boards do over its loaded share; p95 does
	 * not: 0.25 s samples of real A100 traces pass the board limit (p95
	 * 500 W on a 400 W board). A ceiling the replicas did not give (no
	 * memory for it) is the boards' alone, and so is one below the mean it
	 * holds: the simulation ran busier than that ceiling's idle share
	 * says, so the share is wrong for this load and the top is not the
	 * point (docs/intervals.md, "Physical ceiling"). */
	if (!isfinite(ceiling_w) || ceiling_w < s->mean_w.value)
		ceiling_w = wc_power_ceiling_w(pm->max_w, servers * pm->tp);
	/* Neither ends below the servers' idle draw (the run's measured idle
	 * where it has one, else the level's P0): the held-out error was
	 * measured on loaded runs, and a mostly idle trace of 81.6 W at 72.9 W
	 * idle was offered means down to 55.8 W. */
	const double idle = wc__envelope_idle_w(pm, servers) * pm->tp;
	wc_pe_stratum pe; /* with a calibration's draws at the run's load */
	int folded = 0, widened = 0;
	wc_power_map_pe(pm, load / servers, &pe, &folded);
	if (s->mean_w.value > 0.0 && wc_pe_widen(&pe, s->mean_w.value, &iv->mean_lo, &iv->mean_hi)) {
		wc_interval_hold_ceiling(s->mean_w.value, ceiling_w, &iv->mean_hi);
		wc_interval_hold_floor(s->mean_w.value, idle, &iv->mean_lo);
		widened = 1;
	}
	if (s->p95_w.value > 0.0 && wc_pe_widen(&pe, s->p95_w.value, &iv->p95_lo, &iv->p95_hi)) {
		wc_interval_hold_floor(s->p95_w.value, idle, &iv->p95_lo);
		widened = 1;
	}
	*n_draws = iv->draws = widened ? folded : 0;
	return 0;
}

/*
 * The fleet sizes a budget plan probes (docs/envelopes.md, "Budget
 * plans"), in one place: the search (envelope_budget.c) steps through them
 * and the work bound charges their worst case before any work
 * (docs/http-api.md, "Bounds"). Doubling from one server until the budget
 * is exceeded or the search bound reached, then bisection between the last
 * size that fits and the first that does not. Every server draws at least
 * its idle power tp x P0, so a fleet past budget / (tp x P0) is surely over
 * the budget: doubling probes that size rather than jumping past it, and
 * no fleet beyond it can fit.
 */
#include "envelope_internal.h"

#include <math.h>

/* The smallest fleet surely over the budget: every server draws at least
 * its idle power tp x P0, so floor(budget / (tp x P0)) + 1 servers exceed
 * it; INFINITY where no idle power bounds it. */
double
wc__plan_budget_over(const wc_budget_options *bo, const wc_power_map *pm)
{
	const double floor_w = pm->idle_w * pm->tp;
	if (!(floor_w > 0) || !isfinite(bo->budget_w))
		return INFINITY;
	return floor(bo->budget_w / floor_w) + 1.0;
}

void
wc__plan_walk_start(wc__plan_walk *pw, int max_k, double over)
{
	*pw = (wc__plan_walk){ 0, 0, 1, max_k, over, 0 };
}

int
wc__plan_walk_next(const wc__plan_walk *pw)
{
	if (!pw->bisecting)
		return pw->lo == pw->max_k ? 0 : pw->next;
	return pw->hi > pw->lo + 1 ? pw->lo + (pw->hi - pw->lo) / 2 : 0;
}

void
wc__plan_walk_seen(wc__plan_walk *pw, int k, int fits)
{
	if (!fits) {
		pw->hi = k;
		pw->bisecting = 1;
		return;
	}
	pw->lo = k;
	if (pw->bisecting || k == pw->max_k)
		return;
	int next = k > pw->max_k / 2 ? pw->max_k : 2 * k;
	/* the first size surely over, not a power of two past it: no larger
	 * fleet can fit, and probing one would only cost */
	if (k < pw->over && next > pw->over)
		next = (int)pw->over;
	pw->next = next;
}

int
wc__plan_search_bound(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode, size_t len,
                      int *capped)
{
	/* Servers sharing one arrival process run at once, each on a grid of
	 * its own under its own limit (envelope_sim.c): the plan probes no
	 * fleet over what those grids may hold. */
	const size_t shared_max = wc__envelope_fleet_grids_max(len);
	const int cap = mode != WC_FLEET_INDEPENDENT && pm->max_w > 0 && isfinite(pm->max_w) &&
	                (size_t)bo->max_fleet > shared_max;
	if (capped)
		*capped = cap;
	return cap ? (int)shared_max : bo->max_fleet;
}

/* The most servers the bisection between a size that fits, lo, and one
 * that does not, hi, can simulate: its probes' sum over its worst answers. */
static double
bisection_worst(int lo, int hi, double over)
{
	wc__plan_walk pw = { lo, hi, 0, hi, over, 1 };
	const int mid = wc__plan_walk_next(&pw);
	if (!mid)
		return 0.0;
	return mid + fmax(bisection_worst(mid, hi, over), bisection_worst(lo, mid, over));
}

/* The plan's worst case over every fleet size T that may fit (0 to the
 * search bound, and under the first size surely over): the servers
 * simulated afresh per probe (`sum`, when `shared`) and the largest probe
 * (`largest`).
 * Doubling's probes are the same for every T until the first over it;
 * the bisection after them is searched whole. */
static void
walk_worst(int max_k, double over, int shared, double *sum, double *largest)
{
	wc__plan_walk pw;
	wc__plan_walk_start(&pw, max_k, over);
	double doubled = 0.0;
	int lo = 0, k;
	*sum = *largest = 0.0;
	while ((k = wc__plan_walk_next(&pw)) != 0) {
		/* T in [lo, k): k is over, the bisection follows */
		if (shared)
			*sum = fmax(*sum, doubled + k + bisection_worst(lo, k, over));
		*largest = fmax(*largest, k);
		doubled += k;
		if (!(k < over)) /* no T reaches it */
			break;
		lo = k;
		wc__plan_walk_seen(&pw, k, 1);
	}
	if (k == 0) /* T = max_k: every doubling probe fits */
		*sum = fmax(*sum, doubled);
}

int
wc_envelope_budget_sets_servers(const wc_budget_options *bo, const wc_power_map *pm)
{
	return wc__plan_budget_over(bo, pm) <= bo->max_fleet;
}

/* The charge at search bound `max_k`: the largest probe for independent
 * servers (simulated once each, nested), the worst sum of probes for a
 * shared arrival process (simulated afresh per probe). */
static double
plan_charge(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode, int max_k)
{
	double sum, largest;
	walk_worst(max_k, wc__plan_budget_over(bo, pm), mode != WC_FLEET_INDEPENDENT, &sum, &largest);
	return mode == WC_FLEET_INDEPENDENT ? largest : sum;
}

double
wc_envelope_budget_servers(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode)
{
	return plan_charge(bo, pm, mode, bo->max_fleet);
}

double
wc__envelope_plan_servers(const wc_envelope_workload *w, const wc_budget_options *bo, const wc_power_map *pm,
                          wc_fleet_mode mode, size_t len)
{
	if (wc_envelope_fleet_lockstep(w, mode))
		return 1.0;
	return plan_charge(bo, pm, mode, wc__plan_search_bound(bo, pm, mode, len, NULL));
}

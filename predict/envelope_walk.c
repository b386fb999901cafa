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

/* A plan's grid bins x server runs and requests drawn over `runs` server
 * runs, as wc_envelope_work_check counts them (docs/http-api.md, "Bounds"). */
static void
plan_cost(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st, double runs,
          double *work, double *requests)
{
	const double bins = (o->horizon_s + o->warmup_s) / WC_ENVELOPE_GRID_S;
	*work = bins * runs * (o->fleet_mode != WC_FLEET_INDEPENDENT ? WC_ENVELOPE_SHARED_WORK_COST : 1.0);
	*requests = w->kind == WC_ENVELOPE_SERIES ? 0.0 : wc__envelope_requests_per_server(w, o, st) * runs;
}

int
wc__plan_over(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
              double runs, double max_work, double max_requests)
{
	double work, requests;
	plan_cost(w, o, st, runs, &work, &requests);
	return work > max_work || requests > max_requests;
}

/* The charge of a plan whose first size surely over is `over` (the
 * budget's) at search bound `max_k`. */
static double
charge_at(int max_k, double over, wc_fleet_mode mode)
{
	double sum, largest;
	walk_worst(max_k, over, mode != WC_FLEET_INDEPENDENT, &sum, &largest);
	return mode == WC_FLEET_INDEPENDENT ? largest : sum;
}

/* The largest first-size-surely-over (`by_budget`) or max_fleet whose
 * worst case is at most `ok` server runs, by bisection: the charge grows
 * with either (tests/test_server_plan_metered.c checks it does). */
static int
field_within(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode, size_t len, double ok,
             int by_budget)
{
	const double over = wc__plan_budget_over(bo, pm);
	int lo = 0, hi = by_budget ? (int)over : bo->max_fleet;
	while (hi - lo > 1) {
		const int mid = lo + (hi - lo) / 2;
		wc_budget_options b = *bo;
		if (!by_budget)
			b.max_fleet = mid;
		const int max_k = wc__plan_search_bound(&b, pm, mode, len, NULL);
		if (charge_at(max_k, by_budget ? (double)mid : over, mode) <= ok)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *
wc__plan_within_text(const wc_budget_options *bo, const wc_power_map *pm, wc_fleet_mode mode, size_t len, double ok,
                     char *buf, size_t cap)
{
	const int by_budget = wc_envelope_budget_sets_servers(bo, pm);
	const int within = field_within(bo, pm, mode, len, ok, by_budget);
	if (by_budget) /* under within x tp x P0 W, within servers are surely over */
		snprintf(buf, cap, "budget_w to %.0f W or less", floor(nextafter(within * pm->idle_w * pm->tp, 0.0)));
	else
		snprintf(buf, cap, "max_fleet to %d or less", within);
	return buf;
}

int
wc__plan_meter(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
               const wc_budget_options *bo, const wc_power_map *pm, double runs, double max_work,
               double max_requests, const char *limit, wc_error *err)
{
	double work, requests;
	plan_cost(w, o, st, runs, &work, &requests);
	if (!(work > max_work) && !(requests > max_requests))
		return WC_OK;
	const size_t len = (size_t)(llround(o->warmup_s / WC_ENVELOPE_GRID_S) + llround(o->horizon_s / WC_ENVELOPE_GRID_S));
	const int by_budget = wc_envelope_budget_sets_servers(bo, pm);
	/* the server runs either bound allows, and the field's largest value
	 * whose worst case stays within them: always answered */
	const double ok = floor(fmin(max_work / (work / runs), requests > 0.0 ? max_requests / (requests / runs)
	                                                                      : INFINITY));
	char value[48], n[32], sv[32], bound[32];
	wc__plan_within_text(bo, pm, o->fleet_mode, len, ok, value, sizeof value);
	const int over_work = work > max_work;
	char how[32] = "";
	if (over_work && o->fleet_mode != WC_FLEET_INDEPENDENT)
		snprintf(how, sizeof how, ", x %g shared", WC_ENVELOPE_SHARED_WORK_COST);
	return wc_error_set(err, WC_EINVAL, "%s: the plan's probes would %s %s %s (%s server runs of %g s%s), over %s "
	                    "of %s; lower %s (its worst case then passes), or shorten the horizon", by_budget ? "budget_w" : "max_fleet",
	                    over_work ? "take" : "draw", wc_num_text(n, over_work ? work : ceil(requests)),
	                    over_work ? "grid bins x servers" : "requests", wc_num_text(sv, runs),
	                    o->warmup_s + o->horizon_s, how, limit,
	                    wc_num_text(bound, over_work ? max_work : max_requests), value);
}

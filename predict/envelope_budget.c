/*
 * Power budget plans (docs/envelopes.md, "Budget plans"): the largest
 * fleet whose aggregate power statistic stays within a budget. Fleet
 * sizes are probed by doubling, then by bisection. Independent servers
 * form nested fleets -- server k draws from stream (seed, k) whatever the
 * fleet size, and the fleet of K is the first K servers -- so each server
 * is simulated once (the new ones of a probe in parallel) and the
 * statistic cannot decrease with K. Lockstep servers (a workload that
 * draws nothing at random) are all server 0: it alone is simulated and the
 * fleet of K is K times it. A shared arrival process is simulated afresh
 * for every probed K with the same seed.
 */
#include "envelope_internal.h"
#include "predict/capacity_predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/stats.h"
#include "models/parallel.h"
#include "models/progress.h"

/* Cached server traces beyond this many doubles are refused. */
#define BUDGET_MAX_CACHE ((size_t)1 << 25)
/* What the assumed hold adds to a server (docs/envelopes.md, "Assumed
 * response"): its share of the horizon held, the W it adds, the mean W. */
#define WC__HOLD_STATS 3

typedef struct {
	const wc_envelope_workload *w;
	const wc_service_times *st;
	const wc_power_map *pm;
	const wc_envelope_options *o;
	const wc_budget_options *bo;
	const double *dynamic_w;
	size_t len, skip, out_len, bin_stride, n_bins;
	double *cache;       /* server k's binned trace at cache + k*n_bins */
	double *wait_cache;  /* server k's requests still waiting at the end */
	double *run_cache;   /* server k's mean running count over the horizon */
	double *hold_cache;  /* server k's held share, W held and mean W (WC__HOLD_STATS each) */
	int cached;          /* servers in the cache */
	size_t cache_cap;    /* servers it has room for */
	double *agg, *scratch;
	double waiting;      /* of the last probe: requests waiting at the end, per server */
	double running;      /* of the last probe: mean running count, per server */
	double hold[3];      /* of the last probe, per server: as hold_cache */
	double plan_hold[3]; /* the plan's servers' (one server's when none fits) */
	int lockstep;        /* every server is server 0 (wc_envelope_fleet_lockstep) */
	double max_work, max_requests; /* the bounds the search meters its probes against (wc__plan_meter) */
	const char *limit;   /* their name in a refusal */
	int varied;          /* a server simulated drew a length off its fixed one (wc__replica_ctx) */
} budget_state;

typedef struct {
	budget_state *bs;
	int first, last, tid, threads, rc;
	wc_error err;
	int varied;          /* its servers' wc__replica_ctx.varied */
} budget_worker;

static int
ctx_alloc(budget_state *bs, wc__replica_ctx *c)
{
	*c = (wc__replica_ctx){ bs->w, bs->st, bs->pm, bs->o, bs->dynamic_w, bs->len, bs->skip,
	                        { NULL, NULL }, { NULL, NULL }, { 0 }, { 0, 0 }, 0.0, { 0, 0 }, { NULL, NULL }, 0 };
	for (int i = 0; i < 2; i++) {
		c->power[i] = wc_alloc_array(bs->len, sizeof(double));
		c->running[i] = wc_alloc_array(bs->len, sizeof(double));
	}
	return c->power[0] && c->power[1] && c->running[0] && c->running[1] ? WC_OK : WC_ENOMEM;
}

static void
ctx_free(wc__replica_ctx *c)
{
	for (int i = 0; i < 2; i++) {
		free(c->power[i]);
		free(c->running[i]);
	}
}

/* The mean running count per server of a trace of `servers` servers. */
static double
mean_running(const budget_state *bs, const double *running, int servers)
{
	double sum = 0.0;
	for (size_t b = 0; b < bs->out_len; b++)
		sum += running[b];
	return sum / (double)bs->out_len / servers;
}

/* Server 0's of a simulation: what the hold adds over the horizon, as an
 * envelope counts it (envelope_run.c), and its mean power. */
static void
hold_stats(const budget_state *bs, const wc__replica_ctx *c, double out[WC__HOLD_STATS])
{
	const double horizon = (double)bs->out_len * WC_ENVELOPE_GRID_S;
	out[0] = c->held[0] / horizon;
	out[1] = c->held[1] * bs->pm->tp / horizon;
	out[2] = mean_running(bs, c->power[0], 1);
}

static void *
simulate_new(void *arg)
{
	budget_worker *wk = arg;
	budget_state *bs = wk->bs;
	wc__replica_ctx c;
	double tokens[2];
	if (ctx_alloc(bs, &c) != WC_OK)
		wk->rc = wc_error_set(&wk->err, WC_ENOMEM, "budget: out of memory");
	for (int k = wk->first + wk->tid; wk->rc == WC_OK && k < wk->last; k += wk->threads) {
		wc_progress_add(1.0);
		wk->rc = wc__replica_simulate(&c, 1, WC_FLEET_INDEPENDENT, (uint64_t)k, tokens, &wk->err);
		if (wk->rc == WC_OK) {
			wc_stats_block_means(c.power[0], bs->out_len, bs->bin_stride, bs->n_bins,
			          bs->cache + (size_t)k * bs->n_bins);
			bs->wait_cache[k] = c.waiting_end;
			bs->run_cache[k] = mean_running(bs, c.running[0], 1);
			hold_stats(bs, &c, bs->hold_cache + (size_t)k * WC__HOLD_STATS);
		}
	}
	wk->varied = c.varied;
	ctx_free(&c);
	return NULL;
}

/* Simulate servers [cached, k) into the cache, on the option's threads. */
static int
extend_cache(budget_state *bs, int k, wc_error *err)
{
	if (k <= bs->cached)
		return WC_OK;
	if ((size_t)k > bs->cache_cap) {
		size_t cap = bs->cache_cap;
		double *nc = wc_grow(bs->cache, &cap, (size_t)k, bs->n_bins * sizeof *nc, 16);
		if (!nc)
			return wc_error_set(err, WC_ENOMEM, "budget: out of memory (%d server traces)", k);
		bs->cache = nc;
		double *nw = wc_resize_array(bs->wait_cache, cap, sizeof *nw);
		if (!nw)
			return wc_error_set(err, WC_ENOMEM, "budget: out of memory (%d server traces)", k);
		bs->wait_cache = nw;
		double *nr = wc_resize_array(bs->run_cache, cap, sizeof *nr);
		if (!nr)
			return wc_error_set(err, WC_ENOMEM, "budget: out of memory (%d server traces)", k);
		bs->run_cache = nr;
		double *nh = wc_resize_array(bs->hold_cache, cap * WC__HOLD_STATS, sizeof *nh);
		if (!nh)
			return wc_error_set(err, WC_ENOMEM, "budget: out of memory (%d server traces)", k);
		bs->hold_cache = nh;
		bs->cache_cap = cap;
	}
	int threads = bs->o->threads < k - bs->cached ? bs->o->threads : k - bs->cached, rc = WC_OK;
	/* On the heap: callers may run on small stacks (the server's workers). */
	budget_worker *wk = wc_alloc_zeroed((size_t)threads, sizeof *wk);
	if (!wk)
		return wc_error_set(err, WC_ENOMEM, "budget: out of memory");
	for (int t = 0; t < threads; t++)
		wk[t] = (budget_worker){ bs, bs->cached, k, t, threads, WC_OK, { 0, "" }, 0 };
	wc_progress_begin("budget: servers simulated", k - bs->cached);
	wc_run_jobs(wk, sizeof *wk, threads, simulate_new);
	wc_progress_end();
	for (int t = 0; t < threads; t++) /* an OR: whichever thread ran which server */
		bs->varied |= wk[t].varied;
	for (int t = 0; t < threads && rc == WC_OK; t++)
		if (wk[t].rc != WC_OK) {
			if (err)
				*err = wk[t].err;
			rc = wk[t].rc;
		}
	free(wk);
	if (rc == WC_OK)
		bs->cached = k;
	return rc;
}

static double
statistic(budget_state *bs)
{
	/* The maximum is the type-7 quantile at 1 (the last sorted value). */
	return wc_stats_quantile(bs->agg, bs->n_bins, bs->bo->stat == WC_BUDGET_MAX ? 1.0 : 0.95, bs->scratch);
}

/* The statistic of the fleet of k servers. */
static int
probe(budget_state *bs, int k, double *stat, wc_error *err)
{
	int rc;
	memset(bs->agg, 0, bs->n_bins * sizeof *bs->agg);
	if (bs->o->fleet_mode == WC_FLEET_INDEPENDENT) {
		if ((rc = extend_cache(bs, bs->lockstep ? 1 : k, err)) != WC_OK)
			return rc;
		/* Summed in server order: the same numbers for any thread count. */
		bs->waiting = bs->running = 0.0;
		memset(bs->hold, 0, sizeof bs->hold);
		if (bs->lockstep) { /* K copies of server 0, each limited alone */
			for (size_t b = 0; b < bs->n_bins; b++)
				bs->agg[b] = k * bs->cache[b];
			bs->waiting = bs->wait_cache[0];
			bs->running = bs->run_cache[0];
			memcpy(bs->hold, bs->hold_cache, sizeof bs->hold);
		}
		for (int s = 0; !bs->lockstep && s < k; s++) {
			for (size_t b = 0; b < bs->n_bins; b++)
				bs->agg[b] += bs->cache[(size_t)s * bs->n_bins + b];
			bs->waiting += bs->wait_cache[s] / k;
			bs->running += bs->run_cache[s] / k;
			for (int i = 0; i < WC__HOLD_STATS; i++)
				bs->hold[i] += bs->hold_cache[(size_t)s * WC__HOLD_STATS + i] / k;
		}
	} else {
		wc__replica_ctx c;
		double tokens[2];
		rc = ctx_alloc(bs, &c) != WC_OK ? wc_error_set(err, WC_ENOMEM, "budget: out of memory")
		                                : wc__replica_simulate(&c, k, bs->o->fleet_mode, 0, tokens, err);
		if (rc == WC_OK) {
			wc_stats_block_means(c.power[k > 1 ? 1 : 0], bs->out_len, bs->bin_stride, bs->n_bins, bs->agg);
			bs->running = mean_running(bs, c.running[k > 1 ? 1 : 0], k);
			hold_stats(bs, &c, bs->hold); /* server 0's, as an envelope of the fleet says it */
		}
		bs->waiting = c.waiting_end / k;
		ctx_free(&c);
		if (rc != WC_OK)
			return rc;
	}
	*stat = statistic(bs);
	return WC_OK;
}

int
wc_envelope_budget_check(const wc_budget_options *bo, const wc_envelope_options *o, wc_error *err)
{
	if (!(bo->budget_w > 0) || !(bo->budget_w <= WC_BUDGET_MAX_W))
		return wc_error_set(err, WC_EINVAL, "budget_w: must be a number of W > 0 and at most %g, got %s",
		                    WC_BUDGET_MAX_W, WC_NUM_TEXT(bo->budget_w));
	if ((unsigned)bo->stat > WC_BUDGET_MAX)
		return wc_error_set(err, WC_EINVAL, "stat: must be p95 or max");
	if (bo->max_fleet < 1 || bo->max_fleet > WC_ENVELOPE_MAX_FLEET)
		return wc_error_set(err, WC_EINVAL, "max_fleet: must be between 1 and %d, got %d",
		                    WC_ENVELOPE_MAX_FLEET, bo->max_fleet);
	if (!wc_envelope_on_grid(bo->bin_s) || bo->bin_s > o->horizon_s + 1e-9)
		return wc_error_set(err, WC_EINVAL, "budget_bin_s: must be a multiple of %g s up to the horizon, "
		                    "got %s", WC_ENVELOPE_GRID_S, WC_NUM_TEXT(bo->bin_s));
	return WC_OK;
}

static int
budget_setup(budget_state *bs, double **table, wc_error *err)
{
	const wc_envelope_options *o = bs->o;
	const double dt = WC_ENVELOPE_GRID_S;
	bs->skip = (size_t)llround(o->warmup_s / dt);
	bs->out_len = (size_t)llround(o->horizon_s / dt);
	bs->len = bs->skip + bs->out_len;
	bs->bin_stride = (size_t)llround(bs->bo->bin_s / dt);
	/* whole bins only (docs/envelopes.md, "Budget plans"): a leftover
	 * shorter than a bin counted as one more "bin mean" and, on a
	 * fraction of the time, could set the p95 and the plan's size;
	 * check_budget keeps at least one whole bin */
	bs->n_bins = bs->out_len / bs->bin_stride;
	/* The cache holds the servers the plan can simulate, as the work bound
	 * charges them (docs/envelopes.md, "Budget plans"), not max_fleet: a
	 * budget that fits 1372 servers never caches 10 000. The field named is
	 * the one that sets that count. */
	const double servers = wc__envelope_plan_servers(bs->w, bs->bo, bs->pm, WC_FLEET_INDEPENDENT, bs->len);
	if (o->fleet_mode == WC_FLEET_INDEPENDENT && servers > (double)(BUDGET_MAX_CACHE / bs->n_bins)) {
		if (!wc_envelope_budget_sets_servers(bs->bo, bs->pm)) /* as the work bound names it */
			return wc_error_set(err, WC_EINVAL, "max_fleet: %d servers x %zu bins of %g s exceed the plan's "
			                    "memory (%zu values); lower max_fleet, or use a wider budget_bin_s or a shorter "
			                    "horizon_s", bs->bo->max_fleet, bs->n_bins, bs->bo->bin_s, BUDGET_MAX_CACHE);
		return wc_error_set(err, WC_EINVAL, "budget_w: %g W may take %.0f servers (the first fleet surely over "
		                    "it, budget_w / (tp x P0) + 1) x %zu bins of %g s, over the plan's memory (%zu values); "
		                    "lower budget_w, or use a wider budget_bin_s or a shorter horizon_s", bs->bo->budget_w,
		                    servers, bs->n_bins, bs->bo->bin_s, BUDGET_MAX_CACHE);
	}
	double *t = wc_alloc_array((size_t)o->max_running + 1, sizeof *t);
	bs->agg = wc_alloc_array(bs->n_bins, sizeof *bs->agg);
	bs->scratch = wc_alloc_array(bs->n_bins, sizeof *bs->scratch);
	*table = t;
	if (!t || !bs->agg || !bs->scratch)
		return wc_error_set(err, WC_ENOMEM, "budget: out of memory");
	for (int n = 0; n <= o->max_running; n++)
		if (!isfinite(t[n] = bs->pm->dynamic_w(bs->pm->ctx, (double)n)) || t[n] < 0)
			return wc_error_set(err, WC_ERANGE, "power map: dynamic power at n = %d is not a finite "
			                    "number >= 0", n);
	int rc = wc__envelope_beyond_boards(bs->w, bs->pm, o->max_running, err);
	if (rc != WC_OK)
		return rc;
	bs->dynamic_w = t;
	return WC_OK;
}

/* The horizon's end a plan leaves out of its statistic, said: the
 * leftover after its whole bins (budget_setup), none when the bins tile
 * the horizon. 1 when there is one, its words in `buf`. */
static int
bin_leftover_note(const budget_state *bs, char *buf, size_t cap)
{
	const size_t rest = bs->out_len - bs->n_bins * bs->bin_stride;
	if (rest == 0)
		return 0;
	snprintf(buf, cap, "budget_bin_s: the horizon's last %g s, shorter than a bin of %g s, is left out of the %s "
	         "(a plan judges whole bins: %zu of %g s); a horizon of whole bins judges it all (docs/envelopes.md, "
	         "\"Budget plans\")", (double)rest * WC_ENVELOPE_GRID_S, bs->bo->bin_s,
	         bs->bo->stat == WC_BUDGET_MAX ? "max" : "p95", bs->n_bins, bs->bo->bin_s);
	return 1;
}

/* Doubling until the budget is exceeded (or the bound reached), then
 * bisection between the last size that fits and the first that does not:
 * the sizes wc__plan_walk steps through, as the work bound charges them. */
static int
search(budget_state *bs, wc_budget_plan *out, wc_error *err)
{
	const double budget = bs->bo->budget_w;
	/* servers sharing one arrival process are bounded by their grids
	 * (wc__plan_search_bound), and the plan says when that bounds it */
	int capped;
	const int max_k = wc__plan_search_bound(bs->bo, bs->pm, bs->o->fleet_mode, bs->len, &capped);
	wc__plan_walk pw;
	wc__plan_walk_start(&pw, max_k, wc__plan_budget_over(bs->bo, bs->pm));
	int lo = 0, hi = 0, k, rc = WC_OK;
	double s, s_lo = NAN, s_hi = NAN, w_lo = NAN, w_one = NAN, r_lo = NAN, r_one = NAN;
	while ((k = wc__plan_walk_next(&pw)) != 0) {
		/* charged what it simulates, the probes so far and this one,
		 * before it runs: a shared process afresh per probe, independent
		 * servers once each (docs/http-api.md, "Bounds") */
		const double runs = bs->o->fleet_mode != WC_FLEET_INDEPENDENT ? out->servers_simulated + k
		                  : bs->lockstep                             ? 1.0
		                                                             : fmax(bs->cached, k);
		if ((rc = wc__plan_meter(bs->w, bs->o, bs->st, bs->bo, bs->pm, runs, bs->max_work, bs->max_requests,
		                         bs->limit, err)) != WC_OK) {
			out->work_refused = 1;
			break;
		}
		if ((rc = probe(bs, k, &s, err)) != WC_OK)
			break;
		out->probes++;
		out->servers_simulated += bs->o->fleet_mode == WC_FLEET_INDEPENDENT ? 0 : k;
		if (k == 1) {
			w_one = bs->waiting;
			r_one = bs->running;
			memcpy(bs->plan_hold, bs->hold, sizeof bs->hold);
		}
		wc__plan_walk_seen(&pw, k, s <= budget);
		if (!(s <= budget)) {
			hi = k;
			s_hi = s;
			continue;
		}
		lo = k;
		s_lo = s;
		w_lo = bs->waiting;
		r_lo = bs->running;
		memcpy(bs->plan_hold, bs->hold, sizeof bs->hold);
	}
	out->fleet_size = lo;
	out->stat_w = s_lo;
	out->mean_running = lo > 0 ? r_lo : NAN;
	out->judged_running = lo > 0 ? r_lo : r_one;
	out->next_stat_w = hi == lo + 1 ? s_hi : NAN;
	out->at_bound = lo == max_k;
	out->search_bound = max_k;
	out->simulation_bound = capped;
	if (capped && out->at_bound)
		WC_WARN(out, "max_fleet: servers sharing one arrival process are simulated together, at most %d over "
		        "this horizon (%zu grid bins each): the plan stopped there, not at %d", max_k, bs->len,
		        bs->bo->max_fleet);
	/* the plan's servers' queue, or one server's when none fits */
	char note[WC_WARNING_LEN];
	if (rc == WC_OK && wc__envelope_queue_note(bs->w, bs->o->max_running, lo > 0 ? w_lo : w_one, note, sizeof note))
		WC_WARN(out, "%s", note);
	/* the board's limit as an envelope says it (docs/envelopes.md, "Board
	 * limit"): a plan keeps the clock asked, so where the law at its
	 * servers' mean load is over the limit the servers are held there
	 * while serving at the clock asked -- said, not left to the numbers */
	if (rc == WC_OK && wc__envelope_limit_note(bs->w, bs->pm, NULL, lo > 0 ? r_lo : r_one, note, sizeof note))
		WC_WARN(out, "%s", note);
	if (bs->o->fleet_mode == WC_FLEET_INDEPENDENT)
		out->servers_simulated = bs->cached;
	return rc;
}

/* The plan at hold 0 of lockstep servers: server 0 simulated again at
 * hold 0 and the search run over it (one server and the probes'
 * quantiles, as cheap as the plan); its warnings are the plan's own. */
static int
fleet_at_hold0(const budget_state *bs, int *k0, wc_error *err)
{
	wc_envelope_options o0 = *bs->o;
	o0.hold_s = 0.0;
	budget_state b0 = *bs;
	b0.o = &o0;
	b0.cache = b0.wait_cache = b0.run_cache = b0.hold_cache = NULL;
	b0.cached = 0;
	b0.cache_cap = 0;
	b0.agg = wc_alloc_array(bs->n_bins, sizeof *b0.agg);
	b0.scratch = wc_alloc_array(bs->n_bins, sizeof *b0.scratch);
	wc_budget_plan *p0 = wc_alloc_zeroed(1, sizeof *p0); /* on the heap: the server's small stacks */
	int rc = b0.agg && b0.scratch && p0 ? search(&b0, p0, err) : wc_error_set(err, WC_ENOMEM, "budget: out of memory");
	*k0 = rc == WC_OK ? p0->fleet_size : -1;
	free(p0);
	free(b0.cache);
	free(b0.wait_cache);
	free(b0.run_cache);
	free(b0.hold_cache);
	free(b0.agg);
	free(b0.scratch);
	return rc;
}

/* An assumed hold that moves the plan's servers' mean is said as an
 * envelope says it (docs/envelopes.md, "Assumed response"): it changes the
 * fleet a budget allows (an n(t) of 32 running and idle by turns every
 * 0.25 s on A100 under 3 kW: 11 servers, 13 at hold 0). Lockstep servers
 * name the plan at hold 0, one server simulated again; other plans would
 * simulate every server again, and say their servers' mean instead. */
static int
plan_hold_note(const budget_state *bs, wc_budget_plan *out, wc_error *err)
{
	char note[WC_WARNING_LEN], plan[48] = ", per server";
	const double *h = bs->plan_hold;
	if (!wc__envelope_hold_note(bs->o, h[0], h[1], h[2], plan, note, sizeof note))
		return WC_OK;
	if (bs->lockstep) {
		int k0, rc = fleet_at_hold0(bs, &k0, err);
		if (rc != WC_OK)
			return rc;
		snprintf(plan, sizeof plan, ", the plan %d server%s", k0, k0 == 1 ? "" : "s");
		wc__envelope_hold_note(bs->o, h[0], h[1], h[2], plan, note, sizeof note);
	}
	WC_WARN(out, "%s", note);
	return WC_OK;
}

int
wc_envelope_budget(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                   const wc_envelope_options *o, const wc_budget_options *bo, wc_budget_plan *out,
                   wc_error *err)
{
	return wc_envelope_budget_bounded(w, st, pm, o, bo, WC_ENVELOPE_MAX_WORK, WC_ENVELOPE_MAX_REQUESTS, NULL, out,
	                                  err);
}

int
wc_envelope_budget_bounded(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                           const wc_envelope_options *o, const wc_budget_options *bo, double max_work,
                           double max_requests, const char *limit, wc_budget_plan *out, wc_error *err)
{
	/* a replay's statistics over the requests it replays, as an
	 * envelope's (wc_envelope_workload_window) */
	wc_envelope_workload replayed = *w;
	wc_envelope_workload_window(&replayed, o->horizon_s);
	w = &replayed;
	budget_state bs = { .w = w, .st = st, .pm = pm, .o = o, .bo = bo, .max_work = max_work,
		            .max_requests = max_requests, .limit = limit ? limit : "the bound" };
	double *table = NULL;
	wc_envelope_options one = *o;
	int rc;
	memset(out, 0, sizeof *out);
	out->stat_w = out->next_stat_w = out->stat_lo_w = out->stat_hi_w = out->mean_running = NAN;
	out->judged_running = NAN;
	one.fleet_size = 1;
	one.replicas = 1;
	if ((rc = wc_envelope_workload_check(w, err)) || (rc = wc_envelope_options_check(&one, err)) ||
	    (rc = wc_envelope_budget_check(bo, o, err)))
		return rc;
	if (!pm || !pm->dynamic_w || pm->tp < 1 || !isfinite(pm->idle_w) || !isfinite(pm->prefill_w))
		return wc_error_set(err, WC_EINVAL, "power map: incomplete");
	if (w->kind != WC_ENVELOPE_SERIES && (!st || !st->decode_step_s || !st->prefill_s))
		return wc_error_set(err, WC_EINVAL, "service times: needs decode_step_s and prefill_s");
	if ((rc = wc_envelope_fleet_check(w, o, 1, err)))
		return rc;
	if ((rc = wc_envelope_work_check(w, o, st, bo, pm, max_work, max_requests, bs.limit, err)))
		return rc;
	/* the KV cache's limit, as wc_envelope_run applies it */
	char kv_note[WC_WARNING_LEN];
	wc_envelope_options capped;
	if ((rc = wc__envelope_kv_cap(w, st, &one, &capped, kv_note, sizeof kv_note, err)))
		return rc;
	one = capped;
	if (kv_note[0])
		WC_WARN(out, "%s", kv_note);
	if (wc__envelope_context_note(w, st, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	/* the workload's input against the window, as an envelope says it */
	if (wc__envelope_window_note(w, &one, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	bs.o = &one;
	one.fleet_mode = o->fleet_mode;
	bs.lockstep = wc_envelope_fleet_lockstep(w, o->fleet_mode);
	if ((rc = budget_setup(&bs, &table, err)) == WC_OK && bin_leftover_note(&bs, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK)
		rc = search(&bs, out, err);
	/* whether its servers ran in step is known once they have run: a
	 * spread too small to move a rounded length draws them alike
	 * (docs/envelopes.md, "Lockstep fleets") */
	out->lockstep = wc_envelope_fleet_seen_lockstep(w, o->fleet_mode, bs.varied);
	if (rc == WC_OK && wc__envelope_fleet_note(w, o->fleet_mode, out->lockstep, 0, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK)
		rc = plan_hold_note(&bs, out, err);
	/* the law's error moves every server of the fleet alike (one frozen
	 * law), so it scales the aggregate as it scales one server's mean */
	wc_pe_stratum pe; /* with a calibration's draws at the servers' load */
	/* Random arrivals: the workload's count where the path drew none; only
	 * a workload without load runs nothing (wc_envelope_run's rule). */
	double load = out->mean_running, m = 0.0;
	if (rc == WC_OK && wc__envelope_arrivals_random(w)) {
		wc__envelope_open_ceiling(w, &one, bs.st, bs.pm, 1, load, &m);
		load = load > 0.0 ? load : m;
	}
	const int idle = rc == WC_OK && out->fleet_size > 0 && !(load > 0.0);
	if (idle && pm->has_pe) /* nothing runs: the idle draw, as an envelope's (wc__envelope_predictive) */
		WC_WARN(out, "%s", WC_ENVELOPE_IDLE_NOTE);
	if (idle && pm->idle_note[0]) /* the idle is itself an estimate */
		WC_WARN(out, "%s", pm->idle_note);
	int drawn = 0; /* the calibration's draws the interval folds in */
	if (rc == WC_OK && !idle && out->stat_w > 0.0 && wc_power_map_pe(pm, load, &pe, &drawn) &&
	    !wc_pe_widen(&pe, out->stat_w, &out->stat_lo_w, &out->stat_hi_w))
		out->stat_lo_w = out->stat_hi_w = NAN;
	/* predict inference's caveat about too few of them (docs/intervals.md) */
	if (isfinite(out->stat_lo_w)) {
		wc_predict_note_few_draws(out->warnings, &out->n_warnings, drawn);
		out->stat_draws = drawn;
	}
	if (isfinite(out->stat_hi_w)) {
		/* means over a second or more end where the boards do, and no
		 * fleet draws less than its idle (docs/intervals.md) */
		const int gpus = out->fleet_size * pm->tp;
		if (bo->bin_s >= WC_ENVELOPE_SUSTAINED_S)
			wc_interval_hold_ceiling(out->stat_w, wc_power_ceiling_w(pm->max_w, gpus), &out->stat_hi_w);
		wc_interval_hold_floor(out->stat_w, wc__envelope_idle_w(pm, gpus), &out->stat_lo_w);
	}
	free(table);
	free(bs.cache);
	free(bs.wait_cache);
	free(bs.run_cache);
	free(bs.hold_cache);
	free(bs.agg);
	free(bs.scratch);
	return rc;
}

const char *
wc_budget_stat_text(char buf[32], double v, double budget)
{
	const int side = (v > budget) - (v < budget);
	for (int prec = 10; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		double shown = strtod(buf, NULL);
		if ((shown > budget) - (shown < budget) == side)
			break;
	}
	return buf;
}

/*
 * One replica of an envelope (docs/envelopes.md, "The pipeline"): one
 * server, a fleet of independent servers, or a fleet sharing one arrival
 * process split by a balancer (round robin, or the server with the fewest
 * requests running or waiting, ties to the one sent a request least
 * recently, as nginx's least_conn and HAProxy's leastconn take turns
 * among equals; docs/envelopes.md, "Workloads"), simulated event
 * by event; their activity integrated on the 50 ms grid, then passed
 * through the first-order response. Everything a replica draws comes
 * from its own PCG32 streams, so replicas are independent of threads.
 */
#include "envelope_internal.h"
#include "heap_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- the loops */

static int
fail(int rc, wc_error *err)
{
	return rc == WC_ENOMEM ? wc_error_set(err, WC_ENOMEM, "envelope: out of memory")
	                       : wc_error_set(err, WC_ERANGE,
	                                      "service times: a step time is not a finite number >= 0");
}

/* One server fed by its own arrivals until `end`. */
static int
run_single(wc__server *s, wc__arrivals *a, double end)
{
	double ta = wc__arrivals_peek(a);
	int rc = WC_OK;
	for (;;) {
		double te = s->busy ? s->t_end : INFINITY;
		if (ta <= te && ta < end) {
			double in, out;
			wc__arrivals_take(a, &in, &out);
			rc = wc__server_arrive(s, ta, in, out, a);
		} else if (te < end) {
			rc = wc__server_step(s, a);
		} else {
			break;
		}
		if (rc != WC_OK)
			return rc;
		ta = wc__arrivals_peek(a);
	}
	return WC_OK;
}

/* Servers sharing one arrival process: events in time order. */
static int
run_shared(wc__server *s, int k, wc__arrivals *a, wc_fleet_mode mode, double end)
{
	wc__iheap ev = { 0 }, ld = { 0 };
	int rc = wc__iheap_init(&ev, k, INFINITY);
	if (rc == WC_OK && mode == WC_FLEET_LEAST_LOADED)
		rc = wc__iheap_init(&ld, k, 0.0);
	long long sent = 0; /* requests sent so far: round robin's turn, a tie's age */
	double ta = wc__arrivals_peek(a);
	while (rc == WC_OK) {
		double te = ev.key[ev.heap[0]];
		int j;
		if (ta <= te && ta < end) {
			double in, out;
			wc__arrivals_take(a, &in, &out);
			j = mode == WC_FLEET_LEAST_LOADED ? ld.heap[0] : (int)(sent % k);
			/* Among servers equally loaded the next request goes to the
			 * one that waited longest for one: ties to the lowest index
			 * gave server 0, the answer's one server, every tie and
			 * more work than the fleet's mean (docs/envelopes.md,
			 * "Workloads"). */
			if (mode == WC_FLEET_LEAST_LOADED)
				wc__iheap_update_tie(&ld, j, ld.key[j], ++sent);
			else
				sent++;
			rc = wc__server_arrive(&s[j], ta, in, out, a);
		} else if (te < end) {
			j = ev.heap[0];
			rc = wc__server_step(&s[j], a);
		} else {
			break;
		}
		wc__iheap_update(&ev, j, s[j].busy ? s[j].t_end : INFINITY);
		if (mode == WC_FLEET_LEAST_LOADED)
			wc__iheap_update(&ld, j, (double)wc__server_load(&s[j]));
		ta = wc__arrivals_peek(a);
	}
	wc__iheap_free(&ev);
	wc__iheap_free(&ld);
	return rc;
}

/* An explicit n(t): no engine, no prefill; every server runs it. Each
 * sample holds over its own interval (wc_envelope_series_hold: a file's
 * samples at their own times, not moved onto a grid), which the response
 * grid integrates exactly, so the mean count and the law's mean are the
 * series' time averages (docs/formats/runs-table.md, "n(t) series files"). */
static void
run_series(const wc__replica_ctx *c, wc__server *s, double offset)
{
	const wc_envelope_workload *w = c->w;
	const wc_power_map *pm = c->pm;
	double t0 = offset;
	for (size_t i = 0; i < w->series_len; i++) {
		double n = w->series_running[i], t1 = t0 + wc_envelope_series_hold(w, i);
		if (w->series_hold == NULL)
			t1 = offset + (i + 1 < w->series_len ? (double)(i + 1) * w->series_dt_s : wc_envelope_series_span(w));
		if (n > 0) {
			double dyn = pm->dynamic_w(pm->ctx, n);
			for (int g = 0; g < s->n_grids; g++)
				wc_response_add(s->grid[g], &s->state[g], t0, t1, n, dyn, 0.0);
		}
		t0 = t1;
	}
}

/* ------------------------------------------------------- a replica */

/* Each board holds its own 1-s means under its own limit
 * (docs/envelopes.md, "Board limit"), so a fleet's sum carries each
 * server's trace as limited alone: what the limit takes from server k's
 * grid `own` (W*s per bin) is taken from the sum `fleet` too. `w` is
 * scratch of len bins. A server that never exceeds the limit leaves the
 * sum untouched, to the bit. */
static void
limit_server(const wc__replica_ctx *c, const double *own, double *w, double *fleet)
{
	const double dt = WC_ENVELOPE_GRID_S, max_w = c->pm->max_w;
	size_t first = 0;
	while (first < c->len && !(own[first] / dt > max_w))
		first++;
	if (!(max_w > 0) || first == c->len)
		return;
	for (size_t k = 0; k < c->len; k++)
		w[k] = own[k] / dt;
	wc_response_limit(w, c->len, dt, WC_ENVELOPE_SUSTAINED_S, max_w);
	for (size_t k = first; k < c->len; k++) {
		double cut = own[k] / dt - w[k];
		if (cut > 0.0)
			fleet[k] -= cut * dt;
	}
}

/* Power grid (W*s per bin) -> node trace after the response, warm-up
 * removed; running (requests*s) -> mean per bin; kept (s) -> share. */
static void
respond(const wc__replica_ctx *c, double *power, double *running, double *kept, int servers)
{
	const double dt = WC_ENVELOPE_GRID_S;
	const size_t out_len = c->len - c->skip;
	for (size_t k = 0; k < c->len; k++)
		power[k] /= dt;
	/* Sustained power stays within the board's limit (per GPU here; a
	 * fleet's servers were each limited alone, limit_server, and no sum
	 * of theirs exceeds K limits). */
	if (c->pm->max_w > 0)
		wc_response_limit(power, c->len, dt, WC_ENVELOPE_SUSTAINED_S, servers * c->pm->max_w);
	wc_response_filter(power, c->len, dt, c->o->tau_s, servers * c->pm->idle_w, power);
	for (size_t k = 0; k < out_len; k++) {
		power[k] = power[k + c->skip] * c->pm->tp;
		running[k] = running[k + c->skip] / dt;
		if (kept)
			kept[k] = kept[k + c->skip] / dt;
	}
}

/* `own`: per server of a fleet, len bins for its own grid (server 0's
 * is grid 0) and len of scratch; NULL for one server. */
static int
simulate_servers(wc__replica_ctx *c, wc__server *sv, int servers, wc_fleet_mode mode,
                 uint64_t first_stream, const wc_response_grid g[2], double *own, double end, wc_error *err)
{
	const double offset = (double)c->skip * WC_ENVELOPE_GRID_S;
	int shared = servers > 1 && mode != WC_FLEET_INDEPENDENT, rc = WC_OK, overflow = 0;
	int count = shared ? servers : 1;
	/* server k + j's own grid: grid 0's for server 0, else own's slot */
	wc_response_grid *mine = own ? wc_alloc_zeroed((size_t)count, sizeof *mine) : NULL;
	double *work = own ? own + (shared ? (size_t)(servers - 1) : 1) * c->len : NULL;
	if (own && !mine)
		return fail(WC_ENOMEM, err);
	for (int k = 0; k < servers && rc == WC_OK; k += count) {
		wc__envelope_rng rng;
		wc__arrivals a;
		wc__envelope_rng_init(&rng, c->o->seed, first_stream + (uint64_t)k);
		for (int j = 0; j < count; j++) {
			if ((rc = wc__server_init(&sv[j], c->st, c->dynamic_w, c->o->max_running, c->pm,
			                          c->o->hold_s, c->o->decay_s)) != WC_OK)
				break;
			sv[j].window_start = offset;
			sv[j].window_end = end;
			if (k + j == 0) {
				/* what the hold adds to server 0's horizon (docs/envelopes.md, "Assumed response") */
				wc_response_state_count(&sv[j].state[0], offset, end);
				wc__server_add_grid(&sv[j], &g[0]);
			} else if (own) {
				mine[j] = (wc_response_grid){ g[1].dt, c->len, own + (size_t)(shared ? j - 1 : 0) * c->len,
				                              NULL, NULL, NULL };
				memset(mine[j].power, 0, c->len * sizeof *mine[j].power);
				wc__server_add_grid(&sv[j], &mine[j]);
			}
			if (servers > 1)
				wc__server_add_grid(&sv[j], &g[1]);
		}
		if (rc == WC_OK && (rc = wc__arrivals_init(&a, c->w, &rng, offset, end,
		                                          shared ? servers : 1)) == WC_OK) {
			if (c->w->kind == WC_ENVELOPE_SERIES)
				run_series(c, &sv[0], offset);
			else
				rc = shared ? run_shared(sv, servers, &a, mode, end) : run_single(&sv[0], &a, end);
			overflow |= a.overflow;
			c->varied |= rng.varied;
			wc__arrivals_clear(&a);
		}
		for (int j = 0; j < count; j++) {
			wc__server_finish(&sv[j], end);
			if (own && rc == WC_OK)
				limit_server(c, k + j == 0 ? g[0].power : mine[j].power, work, g[1].power);
			if (k + j == 0) {
				c->tokens_acc[0] += sv[j].tokens;
				c->held[0] = sv[j].state[0].held_time_s;
				c->held[1] = sv[j].state[0].held_energy_ws;
			}
			c->tokens_acc[1] += sv[j].tokens;
			c->waiting_end += (double)sv[j].q_len;
			wc__server_clear(&sv[j]);
		}
	}
	free(mine);
	if (rc == WC_OK && overflow)
		return wc_error_set(err, WC_ERANGE, "%s: the arrival process drew more than 16 times its expected "
		                    "requests; its gaps no longer advance the clock",
		                    c->w->kind == WC_ENVELOPE_BURSTY ? "burstiness" : "rate");
	return rc == WC_OK ? WC_OK : fail(rc, err);
}

int
wc__replica_simulate(wc__replica_ctx *c, int servers, wc_fleet_mode mode, uint64_t first_stream,
                     double tokens[2], wc_error *err)
{
	const double dt = WC_ENVELOPE_GRID_S, end = (double)c->len * dt;
	int grids = servers > 1 ? 2 : 1;
	wc_response_grid g[2];
	for (int i = 0; i < grids; i++) {
		memset(c->power[i], 0, c->len * sizeof *c->power[i]);
		memset(c->running[i], 0, c->len * sizeof *c->running[i]);
		if (c->kept[i]) /* an envelope's interval needs it, a plan's search not */
			memset(c->kept[i], 0, c->len * sizeof *c->kept[i]);
		g[i] = (wc_response_grid){ dt, c->len, c->power[i], c->running[i], NULL, c->kept[i] };
	}
	int shared = servers > 1 && mode != WC_FLEET_INDEPENDENT;
	wc__server *sv = wc_alloc_zeroed(shared ? (size_t)servers : 1, sizeof *sv);
	if (!sv)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory (%d servers)", servers);
	/* a fleet's servers each on a grid of their own, limited alone
	 * (limit_server): a shared arrival process runs them all at once */
	double *own = NULL;
	if (servers > 1 && c->pm->max_w > 0 && isfinite(c->pm->max_w)) {
		size_t grids_own = shared ? (size_t)servers : 2;
		if (shared && grids_own > wc__envelope_fleet_grids_max(c->len)) {
			free(sv);
			return wc_error_set(err, WC_EINVAL, "fleet_size: %d servers sharing arrivals x %zu bins exceed "
			                    "the %zu bins their own limits may hold", servers, c->len,
			                    (size_t)WC_ENVELOPE_FLEET_BINS);
		}
		own = wc_alloc_array(grids_own * c->len, sizeof *own);
		if (!own) {
			free(sv);
			return wc_error_set(err, WC_ENOMEM, "envelope: out of memory (%d server grids)", servers);
		}
	}
	c->tokens_acc[0] = c->tokens_acc[1] = 0.0;
	c->waiting_end = 0.0;
	c->held[0] = c->held[1] = 0.0;
	int rc = simulate_servers(c, sv, servers, mode, first_stream, g, own, end, err);
	free(own);
	free(sv);
	if (rc != WC_OK)
		return rc;
	respond(c, c->power[0], c->running[0], c->kept[0], 1);
	if (grids == 2)
		respond(c, c->power[1], c->running[1], c->kept[1], servers);
	tokens[0] = c->tokens_acc[0];
	tokens[1] = c->tokens_acc[1];
	return WC_OK;
}

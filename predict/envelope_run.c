/*
 * Running an envelope (docs/envelopes.md, "The pipeline"): the
 * replicas are dealt to worker threads (replica r to thread r mod T);
 * replica r of one server draws from PCG32 stream (seed, r), server k of
 * replica r of an independent fleet of K from (seed, r*K + k), a shared
 * fleet's arrivals from (seed, r). Each replica writes its own slot; the
 * calling thread reduces the slots in replica order: per bin the mean and
 * the 5th/95th percentiles over replicas, per metric the same.
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

typedef struct {
	const wc_envelope_workload *w;
	const wc_service_times *st;
	const wc_power_map *pm;
	const wc_envelope_options *o;
	const double *dynamic_w;
	size_t len, skip, out_len, bin_stride, n_bins, sample_stride;
	int traces;                     /* 1 (one server) or 2 (server 0 and the fleet) */
	wc__trace_stats *stats[2];      /* per replica */
	double *band_w[2], *band_n[2];  /* replicas x n_bins */
	double *peak;                   /* per replica: largest bin of the fleet trace */
	double *waiting;                /* per replica: requests waiting at the end, per server */
	double *held;                   /* per replica: server 0's share of the horizon held, W the hold adds */
	double *ceiling[2];             /* per replica: its mean power's ceiling, W (wc__envelope_replica_ceiling) */
	int want_ceiling;               /* the ceilings are read: a predictive interval (the caller's map has a
	                                 * prediction_error) of a load the request fixes; random arrivals take
	                                 * the workload's (wc__envelope_open_ceiling), so no `kept` nor ceiling */
	const wc__envelope_settled *settled; /* the clock the board's limit settled (settled 0: none) */
	int varied;                     /* a replica's server drew a length off its fixed one (wc__replica_ctx) */
} run_state;

typedef struct {
	run_state *rs;
	int tid, threads, rc;
	wc_error err;
	int varied;                     /* its replicas' wc__replica_ctx.varied */
} worker;

static int
one_replica(run_state *rs, wc__replica_ctx *c, int r, wc_error *err)
{
	const wc_envelope_options *o = rs->o;
	int servers = o->fleet_size;
	uint64_t stream = o->fleet_mode == WC_FLEET_INDEPENDENT ? (uint64_t)r * (uint64_t)servers : (uint64_t)r;
	double tokens[2];
	/* a lockstep fleet's servers all run server 0's trace (docs/envelopes.md,
	 * "Lockstep fleets"): server 0 is simulated alone and the fleet is K
	 * times it, as a budget plan sums it; each was limited alone, so the
	 * sum is too */
	const int lockstep = servers > 1 && wc_envelope_fleet_lockstep(rs->w, o->fleet_mode);
	int rc = wc__replica_simulate(c, lockstep ? 1 : servers, o->fleet_mode, stream, tokens, err);
	if (rc == WC_OK && lockstep) {
		for (size_t k = 0; k < rs->out_len; k++) {
			c->power[1][k] = servers * c->power[0][k];
			c->running[1][k] = servers * c->running[0][k];
			if (c->kept[0])
				c->kept[1][k] = servers * c->kept[0][k];
		}
		tokens[1] = servers * tokens[0];
		c->waiting_end *= servers;
	}
	rs->waiting[r] = c->waiting_end / servers;
	const double horizon = (double)rs->out_len * WC_ENVELOPE_GRID_S;
	rs->held[2 * r] = c->held[0] / horizon;
	rs->held[2 * r + 1] = c->held[1] * rs->pm->tp / horizon;
	for (int i = 0; rc == WC_OK && i < rs->traces; i++) {
		wc__trace_stats *st = &rs->stats[i][r];
		rc = wc__trace_stats_compute(c->power[i], rs->out_len, WC_ENVELOPE_GRID_S, rs->sample_stride,
		                             &c->ws, st, err);
		double n_sum = 0.0, peak = -INFINITY;
		for (size_t k = 0; k < rs->out_len; k++) {
			n_sum += c->running[i][k];
			if (c->power[i][k] > peak) /* not fmax: a libm call per bin */
				peak = c->power[i][k];
		}
		st->mean_running = n_sum / (double)rs->out_len;
		st->output_tokens = tokens[i];
		st->energy_per_token_j = tokens[i] > 0 ? st->energy_j / tokens[i] : NAN;
		if (i == rs->traces - 1)
			rs->peak[r] = peak;
		wc_stats_block_means(c->power[i], rs->out_len, rs->bin_stride, rs->n_bins,
		          rs->band_w[i] + (size_t)r * rs->n_bins);
		wc_stats_block_means(c->running[i], rs->out_len, rs->bin_stride, rs->n_bins,
		          rs->band_n[i] + (size_t)r * rs->n_bins);
		/* kept is not read after this (NULL: no ceiling is read) */
		const wc_power_map *pm = rs->pm;
		rs->ceiling[i][r] = !c->kept[i] ? NAN
		                    : wc__envelope_replica_ceiling(c->kept[i], rs->out_len, i ? servers : 1,
		                                                   wc__envelope_idle_w(pm, pm->tp),
		                                                   wc_power_ceiling_w(pm->max_w, pm->tp));
	}
	return rc;
}

static void *
work(void *arg)
{
	worker *wk = arg;
	run_state *rs = wk->rs;
	wc__replica_ctx c = { rs->w, rs->st, rs->pm, rs->o, rs->dynamic_w, rs->len, rs->skip,
	                      { NULL, NULL }, { NULL, NULL }, { 0 }, { 0, 0 }, 0.0, { 0, 0 }, { NULL, NULL }, 0 };
	for (int i = 0; i < 2; i++) {
		c.power[i] = wc_alloc_array(rs->len, sizeof(double));
		c.running[i] = wc_alloc_array(rs->len, sizeof(double));
		c.kept[i] = rs->want_ceiling ? wc_alloc_array(rs->len, sizeof(double)) : NULL;
	}
	if (!c.power[0] || !c.power[1] || !c.running[0] || !c.running[1] ||
	    (rs->want_ceiling && (!c.kept[0] || !c.kept[1])) ||
	    wc__stats_ws_reserve(&c.ws, rs->len) != WC_OK)
		wk->rc = wc_error_set(&wk->err, WC_ENOMEM, "envelope: out of memory (%zu bins)", rs->len);
	for (int r = wk->tid; wk->rc == WC_OK && r < rs->o->replicas; r += wk->threads) {
		wc_progress_add(1.0);
		wk->rc = one_replica(rs, &c, r, &wk->err);
	}
	for (int i = 0; i < 2; i++) {
		free(c.power[i]);
		free(c.running[i]);
		free(c.kept[i]);
	}
	wc__stats_ws_clear(&c.ws);
	wk->varied = c.varied;
	return NULL;
}

/* Run the workers; the first failing thread's error is reported. */
static int
run_workers(run_state *rs, wc_error *err)
{
	int threads = rs->o->threads < rs->o->replicas ? rs->o->threads : rs->o->replicas;
	worker *wk = wc_alloc_zeroed((size_t)threads, sizeof *wk);
	int rc = WC_OK;
	if (!wk)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory");
	/* Replica r is worker r % threads's, whichever thread runs it; its
	 * numbers depend on r alone (docs/envelopes.md, "The pipeline"). */
	for (int t = 0; t < threads; t++)
		wk[t] = (worker){ rs, t, threads, WC_OK, { 0, "" }, 0 };
	wc_progress_begin("envelope replicas", rs->o->replicas);
	wc_run_jobs(wk, sizeof *wk, threads, work);
	wc_progress_end();
	for (int t = 0; t < threads; t++) /* an OR: whichever thread ran which replica */
		rs->varied |= wk[t].varied;
	for (int t = 0; t < threads && rc == WC_OK; t++)
		if (wk[t].rc != WC_OK) {
			rc = wk[t].rc;
			if (err)
				*err = wk[t].err;
		}
	free(wk);
	return rc;
}

/* ------------------------------------------------------- reductions */

static void
band_clear(wc_envelope_band *b)
{
	free(b->t_s);
	free(b->mean_w);
	free(b->p5_w);
	free(b->p95_w);
	free(b->mean_running);
	memset(b, 0, sizeof *b);
}

void
wc_envelope_result_clear(wc_envelope_result *r)
{
	if (!r)
		return;
	band_clear(&r->server_band);
	band_clear(&r->fleet_band);
	memset(r, 0, sizeof *r);
}

static int
band_alloc(wc_envelope_band *b, size_t n, double bin_s)
{
	b->n_bins = n;
	b->bin_s = bin_s;
	b->t_s = wc_alloc_array(n, sizeof *b->t_s);
	b->mean_w = wc_alloc_array(n, sizeof *b->mean_w);
	b->p5_w = wc_alloc_array(n, sizeof *b->p5_w);
	b->p95_w = wc_alloc_array(n, sizeof *b->p95_w);
	b->mean_running = wc_alloc_array(n, sizeof *b->mean_running);
	return b->t_s && b->mean_w && b->p5_w && b->p95_w && b->mean_running ? WC_OK : WC_ENOMEM;
}

/* Mean and 5th/95th percentiles of the finite values (NaN when none). */
static wc_envelope_stat
over_replicas(double *v, size_t n)
{
	size_t m = 0;
	double sum = 0.0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			sum += v[i];
			v[m++] = v[i];
		}
	if (m == 0)
		return (wc_envelope_stat){ NAN, NAN, NAN };
	wc_stats_sort(v, m);
	return (wc_envelope_stat){ sum / (double)m, wc_stats_quantile_sorted(v, m, 0.05),
		                   wc_stats_quantile_sorted(v, m, 0.95) };
}

static void
reduce_summary(const wc__trace_stats *st, int replicas, double *scratch, wc_envelope_summary *out)
{
	for (int i = 0; i < WC__TRACE_STAT_COUNT; i++) {
		for (int r = 0; r < replicas; r++)
			scratch[r] = wc__trace_stat_get(&st[r], i);
		*wc__summary_slot(out, i) = over_replicas(scratch, (size_t)replicas);
	}
	/* The workload's energy per token is a ratio of totals, every
	 * replica's energy over every replica's tokens, as `predict` divides
	 * them (docs/envelopes.md, "Outputs"); a mean of per-replica ratios
	 * dropped the energy of replicas that served none and weighed a
	 * replica cut after a few tokens as one of hundreds. The spread stays
	 * the replicas' own ratios (wc__envelope_per_token_note says when the
	 * two part). */
	out->energy_per_token_j.value = out->output_tokens.value > 0.0
	                                ? out->energy_j.value / out->output_tokens.value : NAN;
}

static int
band_copy(wc_envelope_band *dst, const wc_envelope_band *src)
{
	if (band_alloc(dst, src->n_bins, src->bin_s) != WC_OK)
		return WC_ENOMEM;
	size_t bytes = src->n_bins * sizeof(double);
	memcpy(dst->t_s, src->t_s, bytes);
	memcpy(dst->mean_w, src->mean_w, bytes);
	memcpy(dst->p5_w, src->p5_w, bytes);
	memcpy(dst->p95_w, src->p95_w, bytes);
	memcpy(dst->mean_running, src->mean_running, bytes);
	return WC_OK;
}

static int
reduce_band(const run_state *rs, int i, double *scratch, wc_envelope_band *b)
{
	const int R = rs->o->replicas;
	if (band_alloc(b, rs->n_bins, (double)rs->bin_stride * WC_ENVELOPE_GRID_S) != WC_OK)
		return WC_ENOMEM;
	for (size_t k = 0; k < rs->n_bins; k++) {
		double n_sum = 0.0;
		for (int r = 0; r < R; r++) {
			scratch[r] = rs->band_w[i][(size_t)r * rs->n_bins + k];
			n_sum += rs->band_n[i][(size_t)r * rs->n_bins + k];
		}
		wc_envelope_stat s = over_replicas(scratch, (size_t)R);
		b->t_s[k] = (double)k * b->bin_s;
		b->mean_w[k] = s.value;
		b->p5_w[k] = s.lo;
		b->p95_w[k] = s.hi;
		b->mean_running[k] = n_sum / R;
	}
	return WC_OK;
}

/* ---------------------------------------------------------- the run */

static int
check_inputs(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
             const wc_envelope_options *o, wc_error *err)
{
	int rc;
	if ((rc = wc_envelope_workload_check(w, err)) || (rc = wc_envelope_options_check(o, err)) ||
	    (rc = wc_envelope_work_check(w, o, st, NULL, pm, WC_ENVELOPE_MAX_WORK, WC_ENVELOPE_MAX_REQUESTS, NULL,
	                                 err)))
		return rc;
	if (!pm || !pm->dynamic_w || !isfinite(pm->idle_w) || pm->idle_w < 0 || !isfinite(pm->prefill_w) ||
	    pm->prefill_w < 0 || pm->tp < 1 || pm->tp > WC_LAW_MAX_TP)
		return wc_error_set(err, WC_EINVAL, "power map: needs a dynamic power function, P0 >= 0, "
		                    "a prefill increment >= 0 and tp 1 to %d", WC_LAW_MAX_TP);
	if (w->kind != WC_ENVELOPE_SERIES && (!st || !st->decode_step_s || !st->prefill_s))
		return wc_error_set(err, WC_EINVAL, "service times: needs decode_step_s and prefill_s");
	return wc_envelope_fleet_check(w, o, 0, err);
}

/* The grid's sizes and the power table. */
static int
setup(run_state *rs, double **table, wc_error *err)
{
	const wc_envelope_options *o = rs->o;
	const double dt = WC_ENVELOPE_GRID_S;
	rs->skip = (size_t)llround(o->warmup_s / dt);
	rs->out_len = (size_t)llround(o->horizon_s / dt);
	rs->len = rs->skip + rs->out_len;
	rs->bin_stride = (size_t)llround(o->bin_s / dt);
	rs->sample_stride = (size_t)llround(o->sample_s / dt);
	rs->n_bins = (rs->out_len + rs->bin_stride - 1) / rs->bin_stride;
	rs->traces = o->fleet_size > 1 ? 2 : 1;
	double *t = wc_alloc_array((size_t)o->max_running + 1, sizeof *t);
	if (!t)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory");
	for (int n = 0; n <= o->max_running; n++) {
		t[n] = rs->pm->dynamic_w(rs->pm->ctx, (double)n);
		if (!isfinite(t[n]) || t[n] < 0) {
			free(t);
			return wc_error_set(err, WC_ERANGE, "power map: dynamic power at n = %d is not a finite "
			                    "number >= 0", n);
		}
	}
	/* at the clock the run draws at (a settled one's map) */
	int rc = wc__envelope_beyond_boards(rs->w, rs->pm, o->max_running, err);
	if (rc != WC_OK) {
		free(t);
		return rc;
	}
	*table = t;
	rs->dynamic_w = t;
	return WC_OK;
}

static int
alloc_slots(run_state *rs)
{
	size_t R = (size_t)rs->o->replicas;
	int ok;
	size_t cells = wc_size_mul(R, rs->n_bins, &ok);
	if (!ok)
		return WC_ENOMEM;
	rs->peak = wc_alloc_array(R, sizeof *rs->peak);
	rs->waiting = wc_alloc_array(R, sizeof *rs->waiting);
	rs->held = wc_alloc_array(2 * R, sizeof *rs->held);
	if (!rs->waiting || !rs->held)
		return WC_ENOMEM;
	for (int i = 0; i < rs->traces; i++) {
		rs->stats[i] = wc_alloc_array(R, sizeof *rs->stats[i]);
		rs->band_w[i] = wc_alloc_array(cells, sizeof *rs->band_w[i]);
		rs->band_n[i] = wc_alloc_array(cells, sizeof *rs->band_n[i]);
		rs->ceiling[i] = wc_alloc_array(R, sizeof *rs->ceiling[i]);
		if (!rs->stats[i] || !rs->band_w[i] || !rs->band_n[i] || !rs->ceiling[i])
			return WC_ENOMEM;
	}
	return rs->peak ? WC_OK : WC_ENOMEM;
}

static void
free_slots(run_state *rs)
{
	for (int i = 0; i < 2; i++) {
		free(rs->stats[i]);
		free(rs->band_w[i]);
		free(rs->band_n[i]);
		free(rs->ceiling[i]);
	}
	free(rs->peak);
	free(rs->waiting);
	free(rs->held);
}

static int
fill_result(const run_state *rs, wc_envelope_result *out, wc_error *err)
{
	const int R = rs->o->replicas;
	double *scratch = wc_alloc_array((size_t)R, sizeof *scratch);
	int rc = scratch ? WC_OK : WC_ENOMEM;
	reduce_summary(rs->stats[0], R, scratch ? scratch : (double[1]){ 0 }, &out->server);
	if (rc == WC_OK)
		rc = reduce_band(rs, 0, scratch, &out->server_band);
	if (rc == WC_OK && rs->traces == 2) {
		reduce_summary(rs->stats[1], R, scratch, &out->fleet);
		rc = reduce_band(rs, 1, scratch, &out->fleet_band);
	} else if (rc == WC_OK) {
		/* One server: the fleet is the server. */
		out->fleet = out->server;
		rc = band_copy(&out->fleet_band, &out->server_band);
	}
	out->fleet_peak_w = -INFINITY;
	double waiting = 0.0, held[2] = { 0.0, 0.0 };
	for (int r = 0; r < R; r++) {
		out->fleet_peak_w = fmax(out->fleet_peak_w, rs->peak[r]);
		waiting += rs->waiting[r] / R;
		held[0] += rs->held[2 * r] / R;
		held[1] += rs->held[2 * r + 1] / R;
	}
	char note[WC_WARNING_LEN];
	if (wc__envelope_queue_note(rs->w, rs->o->max_running, waiting, note, sizeof note))
		WC_WARN(out, "%s", note);
	if (wc__envelope_hold_note(rs->o, held[0], held[1], out->server.mean_w.value, NULL, note, sizeof note))
		WC_WARN(out, "%s", note);
	/* The limit holds the power by the clock, which paces the service too
	 * (docs/envelopes.md, "Board limit"): settled, the run served and drew
	 * at predict's clock for the steady load; not (predict could not
	 * answer the load, a think time, an n(t)), the law at the mean load
	 * above it says the service kept the clock asked. */
	const wc__envelope_settled *set = rs->settled;
	if (wc__envelope_limit_note(rs->w, rs->pm, set, out->server.mean_running.value, note, sizeof note))
		WC_WARN(out, "%s", note);
	/* a settled clock binds as a lock there does, with predict's caveats of
	 * it (docs/envelopes.md, "Engine"); the setup's are of the clock asked */
	if (set->settled && set->pm.clock_note[0])
		WC_WARN(out, "%s", set->pm.clock_note);
	if (set->settled && set->pm.clock_low_note[0])
		WC_WARN(out, "%s", set->pm.clock_low_note);
	out->service_clock_mhz = set->settled ? set->clock_mhz : 0.0;
	if (wc__envelope_window_note(rs->w, rs->o, note, sizeof note))
		WC_WARN(out, "%s", note);
	free(scratch);
	return rc == WC_OK ? WC_OK : wc_error_set(err, WC_ENOMEM, "envelope: out of memory");
}

int
wc_envelope_run(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                const wc_envelope_options *o_asked, wc_envelope_result *out, wc_error *err)
{
	wc_envelope_options eff;
	const wc_envelope_options *o = &eff;
	char kv_note[WC_WARNING_LEN];
	/* a replay's statistics over the requests it replays (the log's
	 * beyond the horizon are left out: docs/envelopes.md, "Engine") */
	wc_envelope_workload replayed = *w;
	wc_envelope_workload_window(&replayed, o_asked->horizon_s);
	w = &replayed;
	run_state rs = { .w = w, .st = st, .pm = pm, .o = o,
	                 .want_ceiling = pm && pm->has_pe && !wc__envelope_arrivals_random(w) };
	double *table = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = check_inputs(w, st, pm, o_asked, err)) ||
	    (rc = wc__envelope_kv_cap(w, st, o_asked, &eff, kv_note, sizeof kv_note, err)))
		return rc;
	/* On the heap: server handler stacks are small. */
	wc__envelope_settled *set = malloc(sizeof *set);
	if (!set)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory");
	if ((rc = wc__envelope_settle(w, st, pm, o_asked, set, err)) != WC_OK) {
		free(set);
		return rc;
	}
	rs.settled = set;
	if (set->settled) {
		rs.st = &set->st;
		rs.pm = &set->pm;
	}
	if ((rc = setup(&rs, &table, err)) != WC_OK) {
		free(set);
		return rc;
	}
	if (alloc_slots(&rs) != WC_OK)
		rc = wc_error_set(err, WC_ENOMEM, "envelope: out of memory (%d replicas x %zu bins)",
		                  o->replicas, rs.n_bins);
	if (rc == WC_OK)
		rc = run_workers(&rs, err);
	if (rc == WC_OK)
		rc = fill_result(&rs, out, err);
	if (rc == WC_OK && kv_note[0])
		WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK && wc__envelope_context_note(w, st, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	const int lockstep = wc_envelope_fleet_seen_lockstep(w, o->fleet_mode, rs.varied);
	/* one server too: its clients in step (docs/envelopes.md, "Closed loops in lockstep") */
	if (rc == WC_OK && wc__envelope_fleet_note(w, o->fleet_mode, lockstep, o->fleet_size > 1 ? o->fleet_size : 1,
	                                           kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK && wc__envelope_steady_note(w, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK && wc__envelope_samples_note(o, kv_note, sizeof kv_note))
		WC_WARN(out, "%s", kv_note);
	for (int i = 0; rc == WC_OK && i < rs.traces; i++)
		if (wc__envelope_per_token_note(rs.stats[i], o->replicas, i ? &out->fleet : &out->server,
		                                i ? "fleet" : NULL, kv_note, sizeof kv_note))
			WC_WARN(out, "%s", kv_note);
	if (rc == WC_OK) {
		out->fleet_size = o->fleet_size;
		out->fleet_mode = o->fleet_mode;
		out->lockstep = lockstep;
		out->replicas = o->replicas;
		/* A load the request fixes (an n(t), a log's arrivals, a closed
		 * loop's clients): the replicas' mean ends no higher than their
		 * ceilings' mean. Random arrivals: the workload's, not what the
		 * replicas drew (docs/intervals.md, "Physical ceiling"). */
		double top[2] = { 0.0, 0.0 }, load[2] = { out->server.mean_running.value, out->fleet.mean_running.value };
		const int k[2] = { 1, o->fleet_size > 1 ? o->fleet_size : 1 };
		const wc_envelope_summary *sum[2] = { &out->server, &out->fleet };
		for (int i = 0; i < 2; i++) {
			const int t = i < rs.traces ? i : rs.traces - 1;
			for (int r = 0; r < o->replicas; r++)
				top[i] += rs.ceiling[t][r] / o->replicas;
			double m = 0.0;
			if (wc__envelope_arrivals_random(w)) {
				top[i] = wc__envelope_open_ceiling(w, o, rs.st, rs.pm, k[i], sum[i]->mean_running.value / k[i], &m);
				load[i] = load[i] > 0.0 ? load[i] : k[i] * m; /* no arrivals drawn: the workload's count */
			}
		}
		int drawn[2];
		int idle = wc__envelope_predictive(pm, &out->server, 1, top[0], load[0], &out->server_interval, &drawn[0]);
		idle |= wc__envelope_predictive(pm, &out->fleet, k[1], top[1], load[1], &out->fleet_interval, &drawn[1]);
		/* intervals that fold in a calibration's draws carry predict
		 * inference's caveat about too few of them (docs/intervals.md) */
		wc_predict_note_few_draws(out->warnings, &out->n_warnings, drawn[0] > drawn[1] ? drawn[0] : drawn[1]);
		if (idle)
			WC_WARN(out, "%s", WC_ENVELOPE_IDLE_NOTE);
		if (idle && pm->idle_note[0]) /* the idle is itself an estimate */
			WC_WARN(out, "%s", pm->idle_note);
		snprintf(out->service_source, sizeof out->service_source, "%s",
		         w->kind == WC_ENVELOPE_SERIES ? "none (explicit n(t))" : st->source);
		snprintf(out->power_source, sizeof out->power_source, "%s", pm->source);
	} else {
		wc_envelope_result_clear(out);
	}
	free_slots(&rs);
	free(table);
	free(set);
	return rc;
}

/*
 * A group's open window (docs/fleet.md, "Windows" and "Rows"): steps
 * added to it or held back while the load differs, a step taken out
 * again, counter increases withdrawn, the window closed into rows.
 * fleet_steps.c reads the steps.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/grow.h"

/* A step at which the engine ran and queued nothing: the state whose
 * power is the group's idle power (docs/fleet.md, "Idle power"). */
static int
step_idle(const fleet_step *st)
{
	return st->running == 0.0 && !(st->waiting > 0);
}

/* The other counter of a histogram's _sum/_count pair (-1: none). Their
 * mean, the increase of _sum over the increase of _count, holds over one
 * span only: a step whose increase one of them lacks (a stale series, a
 * withdrawn step) counts for neither. Counted apart, a _sum missing for
 * 60 s of 300 at a constant 0.02 s read itl_s 0.0147, a _count missing
 * 0.0271 (docs/fleet.md, "Rows"). */
static int
partner(int c)
{
	switch (c + WC_FLEET_FIRST_COUNTER) {
	case WC_FLEET_TTFT_SUM: return WC_FLEET_TTFT_COUNT - WC_FLEET_FIRST_COUNTER;
	case WC_FLEET_TTFT_COUNT: return WC_FLEET_TTFT_SUM - WC_FLEET_FIRST_COUNTER;
	case WC_FLEET_ITL_SUM: return WC_FLEET_ITL_COUNT - WC_FLEET_FIRST_COUNTER;
	case WC_FLEET_ITL_COUNT: return WC_FLEET_ITL_SUM - WC_FLEET_FIRST_COUNTER;
	default: return -1;
	}
}

static void
window_add(fleet_window *w, const fleet_step *st)
{
	int first = !w->open;
	if (first) {
		memset(w, 0, sizeof *w);
		w->open = 1;
		w->t0 = st->t;
		w->n_gpus = st->n_gpus;
		w->idle = step_idle(st);
	}
	w->n++;
	w->t1 = st->t;
	w->k1 = st->k;
	w->last = *st;
	w->power += st->power;
	w->running += st->running;
	if (isfinite(st->waiting)) {
		w->waiting += st->waiting;
		w->n_waiting++;
	}
	/* A step's increase is from the counter's last sample before the
	 * step to its last in it: the step's own span, the one its gauge
	 * means cover, so the window's first step counts too. Left out, the
	 * rates covered other steps than the power and load: a window opened
	 * by a load step from 8 to 32 running read 960 tok/s over its 60 s
	 * where its scrapes count 840, and its energy per token 12.5 % low
	 * (docs/fleet.md, "Rows"). */
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++) {
		w->last_span[c] = 0;
		w->last_dt[c] = 0.0;
		int p = partner(c);
		if (!isfinite(st->inc[c]) || !st->span[c] ||
		    (p >= 0 && (!isfinite(st->inc[p]) || st->span[p] != st->span[c])))
			continue;
		w->inc_before_last[c] = w->inc[c];
		w->last_span[c] = st->span[c];
		w->last_dt[c] = st->dt[c];
		w->inc[c] += st->inc[c];
		w->n_inc[c] += st->span[c];
		w->dt_inc[c] += st->dt[c];
	}
}

/* Counter c has no sample at step k. If it had one at the step before,
 * that sample is its last before it went stale, taken anywhere in the
 * step, so the increase up to it covers an unknown part of the step:
 * withdrawn, or the rate would count a whole step for it (docs/fleet.md,
 * "Rows"). The increase up to its next sample is not counted either,
 * for the same reason. */
static void
withdraw_last(fleet_group *g, int c, size_t k)
{
	fleet_window *w = &g->win;
	if (g->n_pending && g->pending[g->n_pending - 1].k + 1 == k) {
		g->pending[g->n_pending - 1].inc[c] = NAN;
	} else if (w->open && w->k1 + 1 == k && w->last_span[c]) {
		w->inc[c] = w->inc_before_last[c];
		w->n_inc[c] -= w->last_span[c];
		w->dt_inc[c] -= w->last_dt[c];
		w->last_span[c] = 0;
		w->last_dt[c] = 0.0;
	}
}

void
wc__fleet_withdraw(fleet_group *g, int c, size_t k)
{
	int before = g->seen_k[c] == k; /* grid index + 1 of step k - 1 */
	g->from_k[c] = 0;
	if (!before)
		return;
	withdraw_last(g, c, k);
	/* ... and its pair's over the same step (partner) */
	if (partner(c) >= 0)
		withdraw_last(g, partner(c), k);
}

/* Is step st, the last added, one to take out when no sample follows? */
static int
drop_it(const fleet_step *st, size_t k, int trail)
{
	return st->k + 1 == k && (st->part_end || (trail && st->trail > 0));
}

int
wc__fleet_drop_last(const wc_fleet *f, fleet_group *g, size_t k, int trail)
{
	fleet_window *w = &g->win;
	if (g->n_pending) {
		if (!drop_it(&g->pending[g->n_pending - 1], k, trail))
			return 0;
		g->n_pending--;
		return 1;
	}
	if (!w->open || w->k1 + 1 != k || !drop_it(&w->last, k, trail))
		return 0;
	const fleet_step *st = &w->last;
	/* A window's steps follow each other: a gap closes it. */
	if (--w->n == 0) {
		w->open = 0;
		return 1;
	}
	w->k1--;
	w->t1 = f->o.start + (double)w->k1 * f->o.step;
	w->power -= st->power;
	w->running -= st->running;
	if (isfinite(st->waiting)) {
		w->waiting -= st->waiting;
		w->n_waiting--;
	}
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++)
		if (w->last_span[c]) {
			w->inc[c] = w->inc_before_last[c];
			w->n_inc[c] -= w->last_span[c];
			w->dt_inc[c] -= w->last_dt[c];
			w->last_span[c] = 0;
			w->last_dt[c] = 0.0;
		}
	return 1;
}

/* Does the step's load go with a window of load `mean`, opened idle or
 * not? The rule of the windows (docs/fleet.md, "Windows"). */
static int
fits(const wc_fleet *f, const fleet_step *st, double mean, int idle)
{
	return step_idle(st) == idle && fabs(st->running - mean) <= fmax(f->o.abs_tol, f->o.rel_tol * mean);
}

/* The held steps into a new window, the open one closed (its mean
 * `before`). A load that changes within a step leaves that step at a mix
 * of the two levels, off both: the hold's first step, it seeded the new
 * window's mean, the steps at the new level were held against that mean
 * and cut again, and at --step 15 each change made a 45 s row at a load
 * that never existed (68.5 running between 8 and 96). Leading held steps
 * off the load of the held steps after them are left out of the rows,
 * the group's first said, the others counted at the end (docs/fleet.md,
 * "Windows"). */
static void
reseed(wc_fleet *f, fleet_group *g, double before)
{
	size_t j = 0;
	for (; j + 1 < g->n_pending; j++) {
		double mean = 0.0;
		for (size_t q = j + 1; q < g->n_pending; q++)
			mean += g->pending[q].running;
		mean /= (double)(g->n_pending - j - 1);
		if (fits(f, &g->pending[j], mean, step_idle(&g->pending[j + 1])))
			break;
		if (g->n_mixed++ == 0) {
			char at[40];
			wc_prom_format_time(g->pending[j].t, at, sizeof at);
			wc__fleet_warn(f, "group '%s': the load changed within the step at %s (running %.4g between "
			               "windows at %.4g and %.4g): the step is left out of the rows", g->name, at,
			               g->pending[j].running, before, mean);
		}
	}
	for (; j < g->n_pending; j++)
		window_add(&g->win, &g->pending[j]);
	g->n_pending = 0;
}

int
wc__fleet_close(wc_fleet *f, fleet_group *g, wc_error *err)
{
	int rc = WC_OK;
	double before = g->win.open && g->win.n ? g->win.running / (double)g->win.n : NAN;
	if (g->win.open)
		rc = wc__fleet_emit(f, g, &g->win, err);
	g->win.open = 0;
	if (rc == WC_OK && g->n_pending) {
		reseed(f, g, before);
		rc = wc__fleet_emit(f, g, &g->win, err);
		g->win.open = 0;
	}
	g->n_pending = 0;
	return rc;
}

/* The step into the open window, or held back while the load differs
 * from the window's; a difference that lasts hold_s starts a new window.
 * Idle and loaded differ whatever the counts: a window opened idle takes
 * no loaded step, nor a loaded one an idle step, but for excursions
 * shorter than the hold. Within the count tolerance 180 s at 0 running
 * joined 360 s at 1 and 2, and the group's idle power, which anchors P0,
 * was never measured (docs/fleet.md, "Windows"). */
int
wc__fleet_add_step(wc_fleet *f, fleet_group *g, const fleet_step *st, wc_error *err)
{
	fleet_window *w = &g->win;
	if (!w->open) {
		window_add(w, st);
		return WC_OK;
	}
	double mean = w->running / (double)w->n;
	if (fits(f, st, mean, w->idle)) {
		for (size_t j = 0; j < g->n_pending; j++)
			window_add(w, &g->pending[j]);
		g->n_pending = 0;
		window_add(w, st);
		return WC_OK;
	}
	fleet_step *np = wc_grow(g->pending, &g->cap_pending, g->n_pending + 1, sizeof *np, 16);
	if (!np)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	g->pending = np;
	g->pending[g->n_pending++] = *st;
	if ((double)g->n_pending * f->o.step < f->o.hold_s - 1e-9)
		return WC_OK;
	int rc = wc__fleet_emit(f, g, w, err);
	w->open = 0;
	reseed(f, g, mean);
	return rc;
}

/* The range ends after step n_steps - 1: a counter's last sample there
 * was taken anywhere in that step, as before a step without one, so its
 * increase is withdrawn the same way (withdraw). Kept, the last window's
 * rate depended on whether --end reached one step past the data: 309.9
 * tok/s with --end at the data's end, 358.5 one step later (docs/fleet.md,
 * "Rows"). */
void
wc__fleet_range_end(wc_fleet *f, fleet_group *g)
{
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++)
		wc__fleet_withdraw(g, c, f->n_steps);
	/* The last step, its samples ending within it (a run that stops 7 s
	 * into the range's last 15 s step): counted whole, it made a 315 s
	 * row for 307 s of data and weighed the mean power of its 7 s as
	 * 15 s. Left out as the group's first such step is (docs/fleet.md,
	 * "Windows"); its increases are withdrawn above. */
	const fleet_step *last = g->n_pending ? &g->pending[g->n_pending - 1] : g->win.open ? &g->win.last : NULL;
	double end_cover = last ? last->end_cover : 0.0, t = last ? last->t : 0.0;
	if (!last || !wc__fleet_drop_last(f, g, f->n_steps, 0) || !f->o.verbose)
		return;
	char at[40], msg[WC_ERROR_MSG_MAX];
	wc_prom_format_time(t, at, sizeof at);
	snprintf(msg, sizeof msg, "group '%.60s': its samples cover %.10g s of its last %.10g s step (to %s): "
	         "the step is left out of the rows, which end at the one before", g->name,
	         round(end_cover * 1000.0) / 1000.0, f->o.step, at);
	f->o.verbose(msg, f->o.warn_payload);
}

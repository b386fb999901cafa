/*
 * Power no board draws is no answer for envelopes and budget plans as for
 * predict (docs/intervals.md, "Physical ceiling"; docs/envelopes.md, "Board
 * limit"): the simulation holds each server's 1-s means at the board's
 * limit, so a law that gives many times what a board draws still came out
 * as an answer at the limit. The rule is applied, by the one function that
 * holds it (wc_power_beyond_boards_step), to every load the power map is
 * evaluated at before the simulation: the states a run can reach.
 */
#include "envelope_internal.h"
#include "predict_internal.h"

#include "models/evaluate.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>

/* The map's law at `n` running, per GPU: P0 + its dynamic power (the
 * prefill increment is the response's, not the law's). */
static double
map_law_w(const void *ctx, double n)
{
	const wc_power_map *pm = ctx;
	return pm->idle_w + pm->dynamic_w(pm->ctx, n);
}

/* The loads a run of `w` reaches: an n(t)'s own samples, each held its
 * time; else every count from 0 to the most that can run at once -- a
 * closed loop's clients, an open loop's or a replay's engine limit. */
static int
reachable(const wc_envelope_workload *w, int max_running, wc_load_histogram *h)
{
	size_t len = w->kind == WC_ENVELOPE_SERIES ? w->series_len
	             : w->kind == WC_ENVELOPE_CLOSED ? (size_t)fmin(ceil(w->concurrency), (double)max_running) + 1
	                                             : (size_t)max_running + 1;
	double *n = wc_alloc_array(len, sizeof *n), *hold = wc_alloc_array(len, sizeof *hold);
	int rc = n && hold ? WC_OK : WC_ENOMEM;
	for (size_t i = 0; rc == WC_OK && i < len; i++) {
		n[i] = w->kind == WC_ENVELOPE_SERIES ? w->series_running[i] : (double)i;
		hold[i] = w->kind == WC_ENVELOPE_SERIES ? wc_envelope_series_hold(w, i) : 1.0;
	}
	if (rc == WC_OK)
		rc = wc_load_histogram_build(n, hold, 0.0, len, h, NULL);
	free(n);
	free(hold);
	return rc;
}

int
wc__envelope_beyond_boards(const wc_envelope_workload *w, const wc_power_map *pm, int max_running, wc_error *err)
{
	if (!(pm->max_w > 0.0) || !isfinite(pm->max_w))
		return WC_OK;
	wc_load_histogram h = { NULL, NULL, 0, 0.0 };
	size_t i;
	double step_w;
	int rc = reachable(w, max_running, &h);
	if (rc != WC_OK) {
		wc_load_histogram_free(&h);
		/* the workload's check refused a bad sample before: only memory is left */
		return wc_error_set(err, rc, rc == WC_ENOMEM ? "envelope: out of memory" : "series_running: invalid");
	}
	if (wc_power_beyond_boards_step(&h, map_law_w, pm, pm->max_w, pm->tp, &i, &step_w))
		rc = wc__predict_beyond_boards_at(err, &h, i, w->kind == WC_ENVELOPE_SERIES, step_w, pm->max_w,
		                                  pm->level[0] ? pm->level : "these");
	wc_load_histogram_free(&h);
	return rc;
}

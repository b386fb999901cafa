/*
 * Calibration runs the calibrated law does not match: runs above the
 * level's physical ceiling (docs/calibration.md, "Runs above the ceiling"),
 * and runs the result misses by more than WC_CAL_MISS_PCT (scored by the caller's
 * o->score, as the set answers them, else by the law uncapped; docs/calibration.md,
 * "Runs the result misses"). A model term is a shift in z, and the
 * saturating forms bound the dynamic power by the level's S·m_KV·φ(f)
 * per GPU however large the shift: a run measuring more than that cannot
 * be matched, and the least squares (with its prior on the shift) then
 * settles on a law that predicts less than the run measured -- 637 W for a
 * measured 1000 W. Such runs are named with their numbers, and the
 * warning says how much of their excess over the base law the shift took
 * up and how much it could not. The power-law forms have no ceiling.
 */
#include "calibrate_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/warnings.h"

/* A shift in z this large puts sigma within 2e-22 of 1: the ceiling. */
#define CEILING_SHIFT 50.0

/* One group: 0 when no run is above the ceiling, else the runs named,
 * with the two warnings in `naming` and `absorbed` (`cap` bytes each). */
static int
group_warnings(const cal_group *g, wc_form form, const wc_calibrate_words *w, char *naming, char *absorbed,
               size_t cap)
{
	if (g->scope != WC_CALIBRATE_MODEL || !wc_form_has_scale(form))
		return 0;
	const double top[CAL_MAX_UNKNOWNS] = { CEILING_SHIFT }, zero[CAL_MAX_UNKNOWNS] = { 0.0 };
	double measured = 0, ceiling = 0, base = 0, fitted = 0;
	int n = 0;
	size_t len = 0;
	naming[0] = '\0';
	for (int i = 0; i < g->n_runs; i++) {
		double c, m, b, f, unused;
		if (wc__cal_run_power(g, i, top, &c, &m) != WC_OK || m <= c)
			continue;
		if (wc__cal_run_power(g, i, zero, &b, &unused) != WC_OK ||
		    wc__cal_run_power(g, i, g->x, &f, &unused) != WC_OK)
			b = f = NAN;
		const wc_run *r = g->runs[i]->run;
		double idle = r->mean_power_w - m; /* the group's idle, W */
		measured += r->mean_power_w;
		ceiling += idle + c;
		base += idle + b;
		fitted += idle + f;
		if (len < cap)
			len += (size_t)snprintf(naming + len, cap - len, "%s'%s'", n ? ", " : "", r->run_id);
		n++;
	}
	if (n == 0)
		return 0;
	char runs[160];
	snprintf(runs, sizeof runs, "%s", naming);
	/* Means over the runs above the ceiling, W of the whole group. */
	measured /= n;
	ceiling /= n;
	base /= n;
	fitted /= n;
	/* a list too long for one warning ends in "..." where it is cut */
	if (snprintf(naming, cap,
	             "model term %s on %s: %d run%s above the level's ceiling (%.0f W measured, ceiling "
	             "%.0f W = tp x (P0 + S x m_KV x phi)): %s",
	             g->model, g->level, n, n > 1 ? "s" : "", measured, ceiling, runs) >= (int)cap && cap > 4)
		memcpy(naming + cap - 4, "...", 4);
	snprintf(absorbed, cap,
	         "model term %s on %s: the shift absorbed %.0f W of these runs' %.0f W above the base "
	         "law (%.0f W) and cannot absorb the other %.0f W: their level's S or P0 is too low "
	         "for them (refit, or add them as a level: %s)",
	         g->model, g->level, fitted - base, measured - base, base, measured - fitted, w->scope_platform);
	return n;
}

int
wc__cal_ceiling_warnings(const cal_group *groups, int n_groups, wc_form form, const wc_calibrate_words *w,
                         wc_calibrate_result *out)
{
	char naming[WC_ERROR_MSG_MAX], absorbed[WC_ERROR_MSG_MAX];
	int total = 0;
	for (int j = 0; j < n_groups; j++) {
		int n = group_warnings(&groups[j], form, w, naming, absorbed, sizeof naming);
		if (n > 0) {
			WC_WARN(out, "%s", naming);
			WC_WARN(out, "%s", absorbed);
			total += n;
		}
	}
	return total;
}

/* Runs the calibrated law misses by more than this, in per cent of their
 * mean power, are named: one shift or level for runs that disagree (a
 * few seconds of smoke test beside long runs, another stack, a run
 * without its idle) fits none of them well, and nothing else says so. */
#define WC_CAL_MISS_PCT 15.0

/* Names a missed run in full: a user leaves it out by its id, and ids
 * that share a long prefix (ingest's platform_workload_tp_epoch) cut to
 * a fixed width name one run twice (docs/calibration.md). */
static int
miss_name(char *buf, size_t size, const char *sep, const wc_run *r, double err)
{
	return snprintf(buf, size, "%s%s %+.1f %%", sep, r->run_id, err);
}

/* Whether the result misses run i of g by over WC_CAL_MISS_PCT; *err its
 * error in per cent of the run's mean power. `scored` is the group's runs
 * as the set answers them (W, NaN = none), or NULL: the law's own power
 * at the point, uncapped, as the shift was fitted (docs/calibration.md). */
static int
run_missed(const cal_group *g, int i, const double *scored, double *err)
{
	const wc_run *r = g->runs[i]->run;
	double model, measured, answer;
	if (scored)
		answer = scored[i];
	else if (wc__cal_run_power(g, i, g->x, &model, &measured) == WC_OK)
		answer = r->mean_power_w - measured + model; /* the group's idle + the law's dynamic */
	else
		return 0;
	if (!isfinite(answer))
		return 0;
	*err = 100.0 * (answer / r->mean_power_w - 1.0);
	return fabs(*err) > WC_CAL_MISS_PCT;
}

/* Runs of each group the set misses by more than WC_CAL_MISS_PCT: one
 * warning per group naming them. `scored`: every group's runs in group
 * order as the set answers them (W; NaN = not scored), or NULL for the
 * law's own power, uncapped. Returns the runs named. */
static int
miss_warnings(const cal_group *groups, int n_groups, const double *scored, const wc_calibrate_words *w,
              wc_calibrate_result *out)
{
	int total = 0;
	for (int j = 0; j < n_groups; scored = scored ? scored + groups[j].n_runs : NULL, j++) {
		const cal_group *g = &groups[j];
		char names[WC_ERROR_MSG_MAX] = "";
		size_t len = 0;
		int n = 0, fits = 1;
		for (int i = 0; i < g->n_runs; i++) {
			double err;
			if (!run_missed(g, i, scored, &err))
				continue;
			const wc_run *r = g->runs[i]->run;
			if (fits) {
				int k = miss_name(names + len, sizeof names - len, n ? ", " : "", r, err);
				fits = k > 0 && (size_t)k < sizeof names - len;
				len += fits ? (size_t)k : 0;
			}
			n++;
		}
		if (n == 0)
			continue;
		const char *who = g->scope == WC_CALIBRATE_MODEL ? g->model : "level";
		char head[WC_ERROR_MSG_MAX];
		int k = snprintf(head, sizeof head, "%s on %s: the result misses %d of its %d runs by over %.0f %% (%s): "
		                 "they disagree (short runs, another stack, no idle?); %s",
		                 who, g->level, n, g->n_runs, WC_CAL_MISS_PCT, names, w->leave_out);
		total += n;
		if (fits && k > 0 && k < WC_WARNING_LEN) {
			WC_WARN(out, "%s", head);
			continue;
		}
		/* Too many names for one warning: one per run, as many as the
		 * list holds, and the head says how many are named. */
		int room = WC_WARNINGS_MAX - out->n_warnings - 1, shown = n < room ? n : room > 0 ? room : 0;
		char shown_words[64] = "each named below";
		if (shown < n)
			snprintf(shown_words, sizeof shown_words, "the first %d named below", shown);
		WC_WARN(out, "%s on %s: the result misses %d of its %d runs by over %.0f %% (%s): they disagree "
		        "(short runs, another stack, no idle?); %s",
		        who, g->level, n, g->n_runs, WC_CAL_MISS_PCT, shown_words, w->leave_out);
		for (int i = 0, named = 0; i < g->n_runs && named < shown; i++) {
			double err;
			if (!run_missed(g, i, scored, &err))
				continue;
			const wc_run *r = g->runs[i]->run;
			miss_name(names, sizeof names, "", r, err);
			WC_WARN(out, "%s on %s: run %s", who, g->level, names);
			named++;
		}
	}
	return total;
}

/* The runs the result misses, once its point estimates are stored: scored
 * by o->score when given (the CLI and the server: as the set answers them,
 * the clock settled under the board's limit), else by the law's own power
 * as the shift was fitted, uncapped (docs/calibration.md). */
int
wc__cal_misses(const cal_setup *s, const wc_calibrate_options *o, wc_error *err)
{
	if (!o->score) {
		miss_warnings(s->groups, s->n_groups, NULL, wc__cal_words(o), s->out);
		return WC_OK;
	}
	int n = 0;
	for (int j = 0; j < s->n_groups; j++)
		n += s->groups[j].n_runs;
	const wc_run **runs = wc_alloc_zeroed(n ? (size_t)n : 1, sizeof *runs);
	double *scored = wc_alloc_zeroed(n ? (size_t)n : 1, sizeof *scored);
	int rc = runs && scored ? WC_OK : wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	for (int j = 0, k = 0; rc == WC_OK && j < s->n_groups; j++)
		for (int i = 0; i < s->groups[j].n_runs; i++)
			runs[k++] = s->groups[j].runs[i]->run;
	if (rc == WC_OK)
		rc = o->score(o->score_ctx, &s->out->params, runs, n, scored, err);
	if (rc == WC_OK)
		miss_warnings(s->groups, s->n_groups, scored, wc__cal_words(o), s->out);
	free(runs);
	free(scored);
	return rc;
}

/*
 * A new level relative to a level the base already has
 * (docs/calibration.md, "Relative to a level"): `calibrate --scope
 * platform --platform T --relative-to R` on a table holding runs of both
 * T and R (the published design holds A100, H100 and H200) calibrates
 * two levels with the base's slopes held, T on T's runs and R' on R's
 * runs (under a name of its own), and stores
 *
 *   log S_T = log S_R + (log S_T' - log S_R'),   theta_T = theta_R + (theta_T' - theta_R')
 *
 * with S_R and theta_R the base's. When the base's slopes are not those
 * the runs were made with (the measured profile's slopes are fitted on
 * other runs than the published design), both calibrations absorb the same
 * misfit and the offset keeps what the runs say about T against R; the
 * base's own R level stays the anchor. Draws: row r composes the two
 * calibrations' row r with the base's R of the same base draw (both
 * calibrations cycle the base's draws alike), so the base's uncertainty
 * and both runs' scatter propagate. The result is T's calibration file
 * with T's S and theta (and their intervals) replaced and T's range
 * bounded by R's (its shape is R's; bound_range); the reference level R'
 * is not kept.
 */
#include "calibrate_internal.h"
#include "models/grow.h"
#include "models/interval.h"
#include "models/warnings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runs of `ref` (not excluded, as the options select them) under the
 * level name `as`, in a table of their own. */
static int
reference_runs(const wc_runs_table *t, const wc_calibrate_options *o, const char *ref, const char *as,
               wc_runs_table **out, wc_error *err)
{
	wc_runs_table *r = wc_runs_new();
	if (!r)
		return wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	/* The runs keep their lines: a refusal still names t's file. */
	snprintf(r->path, sizeof r->path, "%s", t->path);
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_run run = t->runs[i];
		if (run.exclude[0] || strcmp(run.platform, ref) != 0 || (o->use && !o->use[i]))
			continue;
		snprintf(run.platform, sizeof run.platform, "%s", as);
		int rc = wc_runs_append(r, &run, err);
		if (rc != WC_OK) {
			wc_runs_free(r);
			return rc;
		}
	}
	*out = r;
	return WC_OK;
}

/* The rows of both calibrations, by content (wc_run_content_hash), R's
 * under their own platform as `t` holds them, not the label they were
 * calibrated under: the record names rows of the table given. */
static int
own_rows(wc_calibrate_result *out, const wc_calibrate_result *ref_cal, const wc_runs_table *rt,
         const char *ref, wc_error *err)
{
	int nt = out->params.n_calibration_rows, nr = ref_cal->params.n_calibration_rows;
	uint64_t *rows = wc_alloc_zeroed((size_t)(nt + nr) + 1, sizeof *rows);
	if (!rows)
		return wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	memcpy(rows, out->params.calibration_rows, (size_t)nt * sizeof *rows);
	for (int k = 0; k < nr; k++) {
		rows[nt + k] = ref_cal->params.calibration_rows[k];
		for (size_t j = 0; j < rt->n_runs; j++) {
			if (wc_run_content_hash(&rt->runs[j]) != rows[nt + k])
				continue;
			wc_run run = rt->runs[j]; /* shallow: only read */
			snprintf(run.platform, sizeof run.platform, "%s", ref);
			rows[nt + k] = wc_run_content_hash(&run);
			break;
		}
	}
	int rc = wc_params_set_calibration_rows(&out->params, rows, nt + nr, err);
	free(rows);
	return rc;
}

/* One parameter of the new level (kind WC_LEVEL_S in log, else as is):
 * value and draws composed, interval from the draws. */
static void
compose(wc_calibrate_result *out, const wc_calibrate_result *ref_cal, const wc_params *base,
        wc_level_param kind, const char *target, const char *ref, const char *ref_as)
{
	char lt[WC_LABEL_MAX], lr[WC_LABEL_MAX], la[WC_LABEL_MAX];
	double vt, vr, va;
	int logged = kind == WC_LEVEL_S;
	wc_level_param_label(kind, target, lt, sizeof lt);
	wc_level_param_label(kind, ref, lr, sizeof lr);
	wc_level_param_label(kind, ref_as, la, sizeof la);
	wc_params_get_named(&out->params, lt, &vt);
	wc_params_get_named(base, lr, &vr);
	wc_params_get_named(&ref_cal->params, la, &va);
	double point = logged ? vr * vt / va : vr + vt - va;
	wc_params_set_named(&out->params, lt, point);
	wc_params *p = &out->params;
	int ct = wc_params_draw_column(p, lt), cr = wc_params_draw_column(p, lr);
	int ca = wc_params_draw_column(&ref_cal->params, la);
	int rows = p->n_draws < ref_cal->params.n_draws ? p->n_draws : ref_cal->params.n_draws;
	if (ct < 0 || ca < 0 || rows < 2)
		return;
	p->n_draws = rows; /* unpaired rows would not be composed */
	double *col = malloc((size_t)rows * sizeof *col);
	for (int r = 0; col && r < rows; r++) {
		double *row = p->draws + (size_t)r * p->n_draw_params;
		double t_r = row[ct], a_r = ref_cal->params.draws[(size_t)r * ref_cal->params.n_draw_params + ca];
		double r_r = cr >= 0 ? row[cr] : vr; /* a held reference parameter has no column */
		row[ct] = col[r] = logged ? r_r * t_r / a_r : r_r + t_r - a_r;
	}
	double lo, hi;
	if (col && wc_interval_from_draws(col, (size_t)rows, point, &lo, &hi))
		wc_params_set_interval_named(p, lt, lo, hi);
	free(col);
}

/* The composed S of `target` against the bound `fit` holds a fitted S at
 * (docs/calibration.md, "Relative to a level"). The intermediate
 * calibration's own "held" warning spoke of S on the new runs alone, not
 * of the result, and is dropped. A composed S above the bound is said,
 * not held: holding it without solving theta again would scale every
 * answer of the level, and answers are held under the board's limit
 * anyway (docs/capacity.md). */
static void
note_composed_s(wc_calibrate_result *out, const char *target)
{
	int k = 0;
	for (int i = 0; i < out->n_warnings; i++)
		if (!strstr(out->warnings[i], WC__CAL_HELD_S))
			memmove(out->warnings[k++], out->warnings[i], sizeof out->warnings[i]);
	out->n_warnings = k;
	for (int i = 0; i < out->params.n_levels; i++) {
		wc_level *l = &out->params.levels[i];
		if (strcmp(l->name, target) != 0)
			continue;
		l->s.source = WC_SRC_CALIBRATED;
		double s_max = wc__cal_s_max(l);
		if (s_max > 0.0 && l->s.value > s_max)
			WC_WARN(out, "S[%s] composed relative to its reference, %.1f W, is above the %.1f W at which fit "
			        "holds a fitted S (P0 + S = %g x the board limit); kept, and answers are held under the "
			        "board's limit", target, l->s.value, s_max, WC_LEVEL_LIMIT_FACTOR);
	}
}

/* One dimension of the new level's span bounded by R's: the new level's
 * shape in it is R's (the held slopes at R's S and theta), identified only
 * where R's runs lay, and its offset only where its own runs lay, so it is
 * calibrated on their intersection (docs/calibration.md, "Relative to a
 * level"). An unknown span of R (max 0) bounds nothing; spans that do not
 * meet keep R's (an inverted span is no span) and say so. Returns 1 when
 * they do not meet. */
static int
bound_span(double *lo, double *hi, double r_lo, double r_hi)
{
	if (!(r_hi > 0.0) || !(*hi > 0.0))
		return 0;
	double l = fmax(*lo, r_lo), h = fmin(*hi, r_hi);
	int apart = l > h;
	*lo = apart ? r_lo : l;
	*hi = apart ? r_hi : h;
	return apart;
}

/* The new level's range bounded by the base's R (bound_span), each
 * dimension whose spans do not meet said: predictions there warn against
 * R's span alone. */
static void
bound_range(wc_calibrate_result *out, const char *target, const wc_level *rl)
{
	wc_level *l = (wc_level *)wc_params_level(&out->params, target);
	if (!l)
		return;
	wc_range *r = &l->range;
	const wc_range *b = &rl->range;
	double tp_lo = r->tp_min, tp_hi = r->tp_max;
	const char *apart[3];
	int n = 0;
	if (bound_span(&r->active_b_min, &r->active_b_max, b->active_b_min, b->active_b_max))
		apart[n++] = "active_params_b";
	if (bound_span(&r->running_min, &r->running_max, b->running_min, b->running_max))
		apart[n++] = "running";
	if (bound_span(&tp_lo, &tp_hi, b->tp_min, b->tp_max))
		apart[n++] = "tp";
	r->tp_min = (int)tp_lo;
	r->tp_max = (int)tp_hi;
	for (int i = 0; i < n; i++)
		WC_WARN(out, "range: add runs of %s and %s that share a %s span; these share none, and %s's range "
		        "keeps %s's %s span, where its shape was fitted", target, rl->name, apart[i], target,
		        rl->name, apart[i]);
}

int
wc__cal_relative(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
                 wc_calibrate_result *out, wc_error *err)
{
	const char *ref = o->relative_to;
	const wc_level *rl = wc_params_level(base, ref);
	wc_calibrate_options ot = *o, orf = *o;
	wc_calibrate_result *rc_ref = NULL;
	wc_runs_table *rt = NULL;
	char as[WC_NAME_MAX];
	int rc;
	memset(out, 0, sizeof *out);
	if (!rl || rl->s_shared_with[0])
		return wc_error_set(err, WC_EINVAL,
		                    "%s: '%s' is not a level of the base '%s' with its own S; a level is "
		                    "calibrated relative to one the base has", wc__cal_words(o)->relative_to, ref,
		                    base->name);
	if (!o->platform || !o->platform[0] || strcmp(o->platform, ref) == 0)
		return wc_error_set(err, WC_EINVAL,
		                    "platform: %s needs the new platform named (%s), other than '%s'",
		                    wc__cal_words(o)->relative_to, wc__cal_words(o)->platform, ref);
	snprintf(as, sizeof as, "%.30s~runs", ref);
	ot.relative_to = orf.relative_to = NULL;
	orf.platform = as;
	/* R' is R on these runs: without their idle it takes the base's P0 of
	 * R (the idle given is T's, and the catalog knows no "R~runs", so the
	 * refusal named that internal label; docs/calibration.md). */
	orf.idle_power_w = isfinite(rl->p0.value) && rl->p0.value > 0 ? rl->p0.value : 0.0;
	if ((rc = wc__cal_once(base, t, &ot, out, err)) != WC_OK)
		return rc;
	rc_ref = calloc(1, sizeof *rc_ref);
	if (!rc_ref)
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	if (rc == WC_OK)
		rc = reference_runs(t, o, ref, as, &rt, err);
	if (rc == WC_OK && rt->n_runs == 0)
		rc = wc_error_set(err, WC_EINVAL, "%s: the runs hold no run on '%s' to calibrate against",
		                  wc__cal_words(o)->relative_to, ref);
	/* One run cannot tell R's S from its theta; the refusal names the
	 * option the user gave, not the internal label of R on these runs
	 * (docs/calibration.md, "Refusals"). */
	/* Runs, not rows: the pieces of one run (`<run>#seg<k>`) are one run
	 * (docs/calibration.md, "Segments"), named without the suffix. */
	int runs = 0;
	for (size_t i = 0; rc == WC_OK && i < rt->n_runs; i++) {
		size_t u = 0;
		while (u < i && !wc_run_same_run(&rt->runs[u], &rt->runs[i]))
			u++;
		runs += u == i;
	}
	const size_t cut = rc == WC_OK && rt->n_runs ? wc_run_id_segment_cut(rt->runs[0].run_id) : 0;
	if (rc == WC_OK && runs == 1)
		rc = wc_error_set(err, WC_EINVAL,
		                  "%s: the reference level '%s' has only 1 run here, '%.*s'%s; calibrating relative "
		                  "to it needs 2 or more of its runs at different loads", wc__cal_words(o)->relative_to,
		                  ref, (int)(cut < 80 ? cut : 80), rt->runs[0].run_id,
		                  rt->n_runs > 1 ? " (its pieces are one run)" : "");
	if (rc == WC_OK)
		rc = wc__cal_once(base, rt, &orf, rc_ref, err);
	if (rc != WC_OK)
		goto done;
	if (wc_form_has_scale(base->form))
		compose(out, rc_ref, base, WC_LEVEL_S, o->platform, ref, as);
	compose(out, rc_ref, base, WC_LEVEL_THETA, o->platform, ref, as);
	if (wc_form_has_scale(base->form))
		note_composed_s(out, o->platform);
	bound_range(out, o->platform, rl);
	out->params.calibration.runs += rc_ref->n_runs; /* T's runs and R's, of one table */
	if ((rc = own_rows(out, rc_ref, rt, ref, err)) != WC_OK)
		goto done;
	out->params.calibration.bootstrap = out->params.n_draws;
	if (out->params.n_draws != rc_ref->params.n_draws)
		WC_WARN(out, "relative to %s: %d and %d replicates converged; the first %d are paired", ref,
		        out->params.n_draws, rc_ref->params.n_draws,
		        out->params.n_draws < rc_ref->params.n_draws ? out->params.n_draws : rc_ref->params.n_draws);
	for (int i = 0; i < out->n_estimates; i++) {
		const wc_param *prm = wc_params_param_named(&out->params, out->estimates[i].label);
		if (prm)
			out->estimates[i].value = *prm;
	}
	WC_WARN(out, "%s is calibrated relative to the base's %s: its S and theta are %s's (S %.4g W, theta %.4g) "
	        "plus the offsets of %s from %s on these runs (%d runs of %s)", o->platform, ref, ref, rl->s.value,
	        rl->theta.value, o->platform, ref, rc_ref->n_runs, ref);
	rc = wc_params_validate(&out->params, err);
done:
	if (rc != WC_OK)
		wc_calibrate_result_clear(out);
	if (rc_ref)
		wc_calibrate_result_clear(rc_ref);
	free(rc_ref);
	wc_runs_free(rt);
	return rc;
}

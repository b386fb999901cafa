/*
 * The law's level calibrated leaving the run out (docs/envelopes.md,
 * "Level calibrated on the other runs"): what an operator with telemetry
 * of their own platform does. For held-out run i the platform's level
 * (P0, S and theta) is calibrated afresh by `wattcast calibrate --scope
 * platform`'s code path on the other runs on the same platform (any
 * model: the level is the platform's), each run's measured mean power
 * against the law over its own n(t), and run i is replayed with the
 * result. Platform scope adds a level and refuses one the set already
 * has, so the set's own level for that platform is removed first (with
 * the terms that name it, and their draws). The calibration draws as the
 * command does by default, so that the run's intervals add its draws as
 * the calibrated answer's do (docs/intervals.md, "Calibrated sets"); its
 * point is the same without them. A run with fewer than two such other runs --
 * or whose calibration is refused -- keeps the set's law (zero-shot),
 * with the reason in its note.
 */
#include "validation/envelope_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fit/calibrate.h"
#include "models/grow.h"

/* Run i as a row of a runs table: its configuration, its n(t) on the grid
 * as the load series, its measured group mean power and idle. */
static int
row_of(const wc_envelope_check_run *c, wc_run *row, wc_error *err)
{
	const wc_response_run *rr = &c->response_run;
	wc_run_init(row);
	snprintf(row->run_id, sizeof row->run_id, "%s", c->run_id ? c->run_id : "");
	snprintf(row->platform, sizeof row->platform, "%s", c->config.platform ? c->config.platform : "");
	snprintf(row->model, sizeof row->model, "%s", c->config.model ? c->config.model : "");
	row->tp = c->config.tp;
	row->active_params_b = c->config.active_params_b;
	row->weights = c->config.weights;
	row->kv = c->config.kv;
	row->sm_clock_mhz = c->config.sm_clock_mhz;
	row->idle_power_w = c->config.idle_power_w > 0 ? c->config.idle_power_w : NAN;
	row->mean_power_w = c->measured.mean_w;
	if (!rr->running || rr->n_grid == 0)
		return wc_error_set(err, WC_EINVAL, "%s: no n(t) to calibrate on", row->run_id);
	int rc = wc_load_histogram_build(rr->running, NULL, rr->dt, rr->n_grid, &row->series, NULL);
	if (rc != WC_OK)
		return wc_error_set(err, rc, "%s: its n(t) cannot be a load series", row->run_id);
	return WC_OK;
}

int
wc_envelope_level_table(const wc_envelope_check_run *runs, size_t n, wc_runs_table **out, wc_error *err)
{
	wc_runs_table *t = wc_runs_new();
	int rc = t ? WC_OK : wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
	for (size_t i = 0; i < n && rc == WC_OK; i++) {
		wc_run row;
		if ((rc = row_of(&runs[i], &row, err)) == WC_OK)
			rc = wc_runs_append(t, &row, err);
		wc_load_histogram_free(&row.series);
	}
	if (rc != WC_OK) {
		wc_runs_free(t);
		t = NULL;
	}
	*out = t;
	return rc;
}

/* The draws' columns that name a parameter `p` still has: those of the
 * level and terms removed go, as a set that never had them (the
 * calibration's replicates cycle the rest, docs/calibration.md). */
static int
keep_named_draws(wc_params *p, wc_error *err)
{
	int k = 0, rc;
	char (*names)[WC_LABEL_MAX] = wc_alloc_zeroed((size_t)(p->n_draw_params + 1), sizeof *names);
	double *v = wc_alloc_zeroed((size_t)p->n_draws * (size_t)(p->n_draw_params + 1) + 1, sizeof *v);
	int *col = wc_alloc_zeroed((size_t)(p->n_draw_params + 1), sizeof *col);
	if (!names || !v || !col) {
		rc = wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
		goto done;
	}
	for (int j = 0; j < p->n_draw_params; j++)
		if (wc_params_param_named(p, p->draw_names[j])) {
			memcpy(names[k], p->draw_names[j], WC_LABEL_MAX);
			col[k++] = j;
		}
	for (int r = 0; r < p->n_draws; r++)
		for (int j = 0; j < k; j++)
			v[(size_t)r * (size_t)k + (size_t)j] = p->draws[(size_t)r * (size_t)p->n_draw_params + (size_t)col[j]];
	rc = wc_params_set_draws(p, k ? p->n_draws : 0, k, (const char (*)[WC_LABEL_MAX])names, v, err);
done:
	free(names);
	free(v);
	free(col);
	return rc;
}

/* The set without level `name` (and the terms naming it, and their
 * draws), so that platform scope can calibrate it afresh as it would a
 * level the set never had. WC_EINVAL (note in `why`) when another level
 * shares its S. */
static int
without_level(const wc_params *p, const char *name, wc_params *out, char *why, size_t cap, wc_error *err)
{
	int rc = wc_params_copy(out, p, err), k = -1, m = 0;
	if (rc != WC_OK)
		return rc;
	for (int l = 0; l < out->n_levels; l++) {
		if (strcmp(out->levels[l].name, name) == 0)
			k = l;
		else if (strcasecmp(out->levels[l].s_shared_with, name) == 0) {
			snprintf(why, cap, "level '%s' shares the scale of '%s'", out->levels[l].name, name);
			return WC_EINVAL;
		}
	}
	if (k < 0)
		return WC_OK; /* not in the set: platform scope adds it */
	memmove(&out->levels[k], &out->levels[k + 1], (size_t)(out->n_levels - k - 1) * sizeof out->levels[0]);
	out->n_levels--;
	wc_params_drop_model_terms(out, name);
	for (int i = 0; i < out->n_terms; i++)
		if (strcasecmp(out->terms[i].level, name) != 0)
			out->terms[m++] = out->terms[i];
	out->n_terms = m;
	if (out->n_levels == 0) {
		snprintf(why, cap, "the set has no other level");
		return WC_EINVAL;
	}
	return keep_named_draws(out, err);
}

int
wc_envelope_level_for(const wc_params *p, const wc_runs_table *t, size_t i, const wc_envelope_check_options *o,
                      wc_calibrate_result *cal, wc_envelope_level *info, wc_error *err)
{
	unsigned char *use = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, 1);
	const wc_run *held = &t->runs[i];
	wc_calibrate_options co = WC_CALIBRATE_OPTIONS_INIT;
	wc_error cerr;
	int m = 0;
	memset(cal, 0, sizeof *cal);
	memset(info, 0, sizeof *info);
	info->p0_w = info->s_w = info->theta = NAN;
	if (!use)
		return wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
	for (size_t j = 0; j < t->n_runs; j++)
		if (j != i && strcmp(t->runs[j].platform, held->platform) == 0) {
			use[j] = 1;
			m++;
		}
	if (m < 2) {
		snprintf(info->note, sizeof info->note, "zero-shot: %s other run%s on %s (platform scope needs 2)",
		         m ? "one" : "no", m == 1 ? "" : "s", held->platform);
		free(use);
		return WC_OK;
	}
	wc_params base = WC_PARAMS_INIT;
	char why[160] = "";
	int rc = without_level(p, held->platform, &base, why, sizeof why, err);
	if (rc != WC_OK) {
		wc_params_clear(&base);
		free(use);
		if (!why[0])
			return rc;
		snprintf(info->note, sizeof info->note, "zero-shot: %s", why);
		return WC_OK;
	}
	co.scope = WC_CALIBRATE_PLATFORM;
	co.platform = held->platform;
	co.use = use;
	/* With its draws, as `wattcast calibrate` gives them by default (its
	 * replicates and seed; o->seed is the replays'): the envelope's point
	 * is the law's point, and its intervals add the calibration's draws as
	 * the calibrated answer's do (docs/intervals.md, "Calibrated sets"). */
	co.threads = o->threads > 0 ? o->threads : 1;
	rc = wc_calibrate(&base, t, &co, cal, &cerr);
	wc_params_clear(&base);
	free(use);
	if (rc != WC_OK) {
		wc_calibrate_result_clear(cal);
		memset(cal, 0, sizeof *cal);
		snprintf(info->note, sizeof info->note, "zero-shot: calibration refused: %.200s", cerr.msg);
		return WC_OK;
	}
	const wc_level *lv = wc_params_level(&cal->params, held->platform);
	info->runs = m;
	info->p0_w = lv ? lv->p0.value : NAN;
	info->s_w = lv ? lv->s.value : NAN;
	info->theta = lv ? lv->theta.value : NAN;
	snprintf(info->note, sizeof info->note, "calibrated on %d other run%s on %s: P0 %.1f W, S %.1f W, theta %.3f",
	         m, m == 1 ? "" : "s", held->platform, info->p0_w, info->s_w, info->theta);
	return WC_OK;
}

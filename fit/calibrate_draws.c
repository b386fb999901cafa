/*
 * The draws of a calibration (docs/calibration.md): the replicates that
 * combine the base law's draws with the scatter of single runs, each on
 * its own PCG32 stream (bit-identical for any thread count), and the
 * calibrated set's point estimates, draws and intervals. calibrate.c sets
 * up the groups and solves the point estimate first.
 */
#include "calibrate_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/params_file.h"
#include "models/grow.h"
#include "models/limits.h"
#include "models/parallel.h"
#include "models/progress.h"

/* ----------------------------------------------------------------- units */

void
wc__cal_span(const cal_group *g, wc_range *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < g->n_runs; i++) {
		const wc_run *q = g->runs[i]->run;
		double lo, hi;
		/* the loaded span of its n(t) series when it has one, as `fit`
		 * records it: the runs' means claimed 0.68-8.07 for runs loaded 1-20 */
		wc_run_running_span(q, &lo, &hi);
		r->active_b_min = i == 0 ? q->active_params_b : fmin(r->active_b_min, q->active_params_b);
		r->active_b_max = i == 0 ? q->active_params_b : fmax(r->active_b_max, q->active_params_b);
		r->running_min = i == 0 ? lo : fmin(r->running_min, lo);
		r->running_max = i == 0 ? hi : fmax(r->running_max, hi);
		r->tp_min = i == 0 || q->tp < r->tp_min ? q->tp : r->tp_min;
		r->tp_max = i == 0 || q->tp > r->tp_max ? q->tp : r->tp_max;
	}
	r->runs = g->n_units;
}

int
wc__cal_count_runs(const cal_run *runs, int n)
{
	int count = 0;
	for (int i = 0; i < n; i++) {
		int u = 0;
		while (u < i && !wc_run_same_run(runs[u].run, runs[i].run))
			u++;
		count += u == i;
	}
	return count;
}

void
wc__cal_units(cal_setup *s)
{
	s->out->n_runs = 0;
	s->out->n_pieces = s->n_runs;
	for (int j = 0; j < s->n_groups; j++) {
		cal_group *g = &s->groups[j];
		g->n_units = 0;
		for (int i = 0; i < g->n_runs; i++) {
			int u = 0; /* the one rule of a run's pieces (data/runs_table.h) */
			while (u < i && !wc_run_same_run(g->runs[u]->run, g->runs[i]->run))
				u++;
			g->runs[i]->unit = u;
			g->n_units += u == i;
		}
		/* each row of a run cut into k weighs 1/k: the run weighs one in
		 * the point estimate, as in the interval (docs/calibration.md) */
		for (int i = 0; i < g->n_runs; i++) {
			int k = 0;
			for (int m = 0; m < g->n_runs; m++)
				k += g->runs[m]->unit == g->runs[i]->unit;
			g->runs[i]->weight = 1.0 / k;
		}
		s->out->n_runs += g->n_units;
	}
	/* a new level records its runs' span and count as fit does, a run's
	 * segments once */
	if (s->work.n_levels && s->n_groups == 1 && s->groups[0].scope == WC_CALIBRATE_PLATFORM)
		wc__cal_span(&s->groups[0], &s->work.levels[s->work.n_levels - 1].range);
}

/* ------------------------------------------------------------ replicates */

typedef struct {
	const cal_setup *s;
	int replicates, threads, thread_id, n_new;
	uint64_t seed;
	double *values;            /* replicates x n_new, natural units */
	unsigned char *ok;
	int error;
} cal_job;

/* Replicate r: the base's draw r (cycled), each run's measurement moved
 * by a normal deviate of its group's scatter from PCG32 stream (seed, r). */
static void
replicate(const cal_job *job, int r, double *noise, double *row)
{
	const cal_setup *s = job->s;
	const wc_params *b = s->base;
	const double *draw = b->n_draws > 0 ? b->draws + (size_t)(r % b->n_draws) * b->n_draw_params : NULL;
	wc_pcg32 rng;
	int col = 0;
	wc_pcg32_seed(&rng, job->seed, (uint64_t)r);
	job->ok[r] = 1;
	for (int j = 0; j < s->n_groups; j++) {
		const cal_group *g = &s->groups[j];
		double x[CAL_MAX_UNKNOWNS];
		/* one deviate per run, shared by its segments: the scatter is
		 * that of single runs, and cutting a run finer must not narrow
		 * the interval (docs/calibration.md, "Segments") */
		for (int i = 0; i < g->n_runs; i++)
			noise[i] = g->runs[i]->unit == i ? g->sigma * wc_pcg32_normal(&rng) : noise[g->runs[i]->unit];
		if (wc__cal_solve(g, draw, noise, g->x, x, NULL) != WC_OK)
			job->ok[r] = 0;
		/* A draw above the board's bound is the bound's, and its theta is
		 * solved again with S fixed there, as the point's is: the free
		 * solve's theta belongs to the larger S and would put every such
		 * draw's theta on one side of the point (docs/calibration.md). */
		if (job->ok[r] && wc__cal_hold_ceiling(g, x) && wc__cal_solve_at_bound(g, draw, noise, x, NULL) != WC_OK)
			job->ok[r] = 0;
		for (int k = 0; k < g->p; k++)
			row[col++] = g->p == 2 && k == 0 ? exp(x[k]) : x[k];
	}
}

static void *
cal_worker(void *arg)
{
	cal_job *job = arg;
	double *noise = wc_alloc_array((size_t)job->s->n_runs, sizeof *noise);
	if (!noise) {
		job->error = WC_ENOMEM;
		return NULL;
	}
	for (int r = job->thread_id; r < job->replicates; r += job->threads) {
		wc_progress_add(1.0);
		replicate(job, r, noise, job->values + (size_t)r * job->n_new);
	}
	free(noise);
	return NULL;
}

static int
run_replicates(cal_job *proto, wc_error *err)
{
	int T = proto->threads > 0 ? proto->threads : 1;
	cal_job *jobs = wc_alloc_zeroed((size_t)T, sizeof *jobs);
	int rc = WC_OK;
	if (!jobs)
		return wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	for (int t = 0; t < T; t++) {
		jobs[t] = *proto;
		jobs[t].threads = T;
		jobs[t].thread_id = t;
	}
	wc_progress_begin("calibration replicates", proto->replicates);
	wc_run_jobs(jobs, sizeof *jobs, T, cal_worker);
	wc_progress_end();
	for (int t = 0; t < T; t++)
		if (jobs[t].error)
			rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	free(jobs);
	return rc;
}

/* --------------------------------------------------------------- result */

static int
new_names(const cal_setup *s, char (*names)[WC_LABEL_MAX])
{
	int k = 0;
	for (int j = 0; j < s->n_groups; j++) {
		const cal_group *g = &s->groups[j];
		if (g->scope == WC_CALIBRATE_MODEL) {
			wc_model_term t = { .runs = 0 };
			snprintf(t.model, sizeof t.model, "%s", g->model);
			snprintf(t.level, sizeof t.level, "%s", g->level);
			wc_model_term_label(&t, names[k++], WC_LABEL_MAX);
		} else {
			if (g->p == 2)
				wc_level_param_label(WC_LEVEL_S, g->level, names[k++], WC_LABEL_MAX);
			wc_level_param_label(WC_LEVEL_THETA, g->level, names[k++], WC_LABEL_MAX);
		}
	}
	return k;
}

/* The point estimates into `p`: model terms added (or replacing the
 * base's term for the same model and level), or the new level's S, theta. */
int
wc__cal_store_points(const cal_setup *s, wc_params *p, wc_error *err)
{
	for (int j = 0; j < s->n_groups; j++) {
		const cal_group *g = &s->groups[j];
		if (g->scope == WC_CALIBRATE_PLATFORM) {
			wc_level *l = &p->levels[p->n_levels - 1];
			l->s.value = g->p == 2 ? exp(g->x[0]) : NAN;
			l->s.source = g->p == 2 ? (g->held ? WC_SRC_BOUND : WC_SRC_CALIBRATED) : WC_SRC_ASSUMED;
			l->theta.value = g->x[g->p - 1];
			continue;
		}
		wc_model_term *t = (wc_model_term *)wc_params_find_model_term(p, g->model, g->level);
		if (!t) {
			if (p->n_model_terms >= WC_MAX_MODEL_TERMS)
				return wc_error_set(err, WC_EINVAL, "model_terms: the set already has %d",
				                    WC_MAX_MODEL_TERMS);
			t = &p->model_terms[p->n_model_terms++];
		}
		memset(t, 0, sizeof *t);
		snprintf(t->model, sizeof t->model, "%s", g->model);
		snprintf(t->level, sizeof t->level, "%s", g->level);
		t->shift = (wc_param){ g->x[0], NAN, NAN, WC_SRC_CALIBRATED };
		t->runs = g->n_units;
		/* the span of its runs, as a new level records it: answers
		 * outside it warn (docs/calibration.md, "Model scope") */
		wc__cal_span(g, &t->range);
		if (g->p0_w > 0.0) /* the idle the shift was fitted above */
			t->p0 = (wc_param){ g->p0_w, NAN, NAN, g->p0_src };
	}
	return WC_OK;
}

/* Base draw columns kept: all but those a new parameter replaces (a
 * model term calibrated again). Their indices into `keep`. */
static int
kept_columns(const wc_params *b, char (*nn)[WC_LABEL_MAX], int n_new, int *keep)
{
	int kb = 0;
	for (int j = 0; b->n_draws > 0 && j < b->n_draw_params; j++) {
		int replaced = 0;
		for (int u = 0; u < n_new && !replaced; u++)
			replaced = strcmp(b->draw_names[j], nn[u]) == 0;
		if (!replaced)
			keep[kb++] = j;
	}
	return kb;
}

/* Draws: the base's columns of draw r (cycled) and the new columns of
 * replicate r, for the replicates that converged; 95 % intervals of the
 * new parameters from the same rows. */
static int
store_draws(const cal_setup *s, const cal_job *job, char (*nn)[WC_LABEL_MAX], wc_params *p,
            wc_error *err)
{
	const wc_params *b = s->base;
	int *keep = wc_alloc_zeroed((size_t)(b->n_draw_params + 1), sizeof *keep);
	int kb = keep ? kept_columns(b, nn, job->n_new, keep) : 0, k = kb + job->n_new, rows = 0, rc;
	char (*names)[WC_LABEL_MAX] = wc_alloc_zeroed((size_t)k, sizeof *names);
	double *v = wc_alloc_zeroed((size_t)job->replicates * (size_t)k, sizeof *v);
	double *col = wc_alloc_zeroed((size_t)job->replicates, sizeof *col);
	if (!keep || !names || !v || !col) {
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
		goto done;
	}
	for (int j = 0; j < kb; j++)
		memcpy(names[j], b->draw_names[keep[j]], WC_LABEL_MAX);
	memcpy(names + kb, nn, (size_t)job->n_new * sizeof *names);
	for (int r = 0; r < job->replicates; r++) {
		if (!job->ok[r])
			continue;
		const double *brow = kb ? b->draws + (size_t)(r % b->n_draws) * b->n_draw_params : NULL;
		for (int j = 0; j < kb; j++)
			v[(size_t)rows * k + j] = brow[keep[j]];
		memcpy(v + (size_t)rows * k + kb, job->values + (size_t)r * job->n_new,
		       (size_t)job->n_new * sizeof *v);
		rows++;
	}
	if (rows < 2) {
		rc = wc_error_set(err, WC_ENOCONV, "calibrate: fewer than 2 replicates converged");
		goto done;
	}
	if ((rc = wc_params_set_draws(p, rows, k, (const char (*)[WC_LABEL_MAX])names, v, err)) != WC_OK)
		goto done;
	for (int j = 0; j < job->n_new; j++) {
		for (int r = 0; r < rows; r++)
			col[r] = v[(size_t)r * k + kb + j];
		double est = NAN, lo, hi;
		wc_params_get_named(p, nn[j], &est);
		if (wc_interval_from_draws(col, (size_t)rows, est, &lo, &hi))
			wc_params_set_interval_named(p, nn[j], lo, hi);
	}
	if (rows < job->replicates)
		WC_WARN(s->out, "%d of %d replicates did not converge and are left out of the draws",
		        job->replicates - rows, job->replicates);
done:
	free(keep);
	free(names);
	free(v);
	free(col);
	return rc;
}

static void
list_estimates(const cal_setup *s, char (*nn)[WC_LABEL_MAX], int n_new, wc_calibrate_result *out)
{
	int k = 0;
	for (int j = 0; j < s->n_groups; j++)
		for (int u = 0; u < s->groups[j].p && k < n_new; u++, k++) {
			wc_calibrate_estimate *e = &out->estimates[out->n_estimates++];
			const wc_param *prm = wc_params_param_named(&out->params, nn[k]);
			snprintf(e->label, sizeof e->label, "%s", nn[k]);
			e->value = prm ? *prm : (wc_param){ NAN, NAN, NAN, WC_SRC_CALIBRATED };
			e->runs = s->groups[j].n_units;
			e->pieces = s->groups[j].n_runs;
		}
}

/* The most draws of k columns the calibrated set `p` can hold (-1: the
 * writer will refuse the set in its own words). */
static long
draws_room(const wc_params *p, int k)
{
	wc_params shell = *p; /* shallow and only read: the set without its draws */
	wc_error derr;
	shell.n_draws = shell.n_draw_params = 0;
	shell.draw_names = NULL;
	shell.draws = NULL;
	return wc_params_draws_room(&shell, k, &derr);
}

/* R draws of k columns must fit in the file the calibrated set is
 * written to: refused before the replicates, not by the writer after
 * them (docs/fitting.md, "Bootstrap intervals"). */
static int
check_room(long room, const wc_calibrate_options *o, int R, int k, wc_error *err)
{
	if (room < 0 || R <= room)
		return WC_OK;
	return wc_error_set(err, WC_ERANGE, "%s: %d draws of %d parameters would take the parameter file over its %zu "
	                    "MiB; at most %ld surely fit (docs/fitting.md, \"Bootstrap intervals\")",
	                    wc__cal_words(o)->bootstrap, R, k, WC_PARAMS_MAX_BYTES >> 20, room);
}

int
wc__cal_draws(cal_setup *s, const wc_calibrate_options *o, wc_error *err)
{
	char nn[WC_CALIBRATE_ESTIMATES_MAX + 1][WC_LABEL_MAX];
	int n_new = new_names(s, nn), rc = WC_OK;
	wc_calibrate_result *out = s->out;
	int R = o->replicates > 0 ? o->replicates : s->base->n_draws > 0 ? s->base->n_draws : 1000;
	if (o->replicates < 0) {
		list_estimates(s, nn, n_new, out);
		return WC_OK;
	}
	int k = s->base->n_draw_params + n_new;
	long room = draws_room(&out->params, k);
	/* The default (the base's draw count) is the command's choice, not
	 * the user's: capped at what fits rather than refused
	 * (docs/calibration.md). */
	if (o->replicates == 0 && room >= 2 && R > room) {
		WC_WARN(out, "the base's %d draws of %d parameters would take the file over its %zu MiB: %ld drawn, as "
		        "many as surely fit", R, k, WC_PARAMS_MAX_BYTES >> 20, room);
		R = (int)room;
	}
	if ((rc = check_room(room, o, R, k, err)) != WC_OK)
		return rc;
	cal_job job = { s, R, o->threads, 0, n_new, o->seed, NULL, NULL, 0 };
	job.values = wc_alloc_zeroed((size_t)R * (size_t)n_new, sizeof *job.values);
	job.ok = wc_alloc_zeroed((size_t)R, 1);
	if (!job.values || !job.ok)
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	if (rc == WC_OK)
		rc = run_replicates(&job, err);
	if (rc == WC_OK)
		rc = store_draws(s, &job, nn, &out->params, err);
	if (rc == WC_OK) {
		/* provenance stays the base's: seed and bootstrap describe its
		 * fit, with its input and rows (docs/calibration.md, "Provenance") */
		/* An answer's interval is the draws widened by the base's held-out
		 * error, which a calibrated set keeps (docs/intervals.md): only a
		 * base without one leaves the answers the runs' scatter alone. */
		if (s->base->n_draws == 0 && s->base->pred_error.present)
			WC_WARN(out, "the base has no draws: the new parameters' intervals cover the calibration runs' "
			        "scatter only; an answer's interval also covers the base's held-out error of mean power, "
			        "which the set keeps");
		else if (s->base->n_draws == 0)
			WC_WARN(out, "the base has no draws and no held-out error: intervals, the answers' too, cover the "
			        "calibration runs' scatter only, not the base law's own uncertainty");
		list_estimates(s, nn, n_new, out);
	}
	free(job.values);
	free(job.ok);
	return rc;
}

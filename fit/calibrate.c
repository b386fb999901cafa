/*
 * Calibration from a few runs (docs/calibration.md): select and check the
 * runs, group them (one model term per model and level, or one new
 * level), solve each group for the point estimate, then the replicates
 * that combine the base law's draws with the scatter of single runs, and
 * write the calibrated parameter set.
 */
#include "calibrate_internal.h"
#include "models/warnings.h"
#include "models/grow.h"
#include "models/catalog.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/parallel.h"
#include "models/progress.h"

/* Weak priors (docs/calibration.md): wide enough that a few runs decide,
 * there only to keep an estimate finite when the runs cannot pin it down
 * (a run above the level's ceiling, loads that barely differ). */
#define PRIOR_SD_SHIFT 3.0
#define PRIOR_SD_LOG_S 1.0
#define PRIOR_SD_THETA 3.0
/* Run scatter assumed when neither the options nor the base give one. */
#define ASSUMED_RUN_SCATTER 0.1
/* Runs whose z-coordinates (size and load terms) span less than this
 * cannot tell S from theta. */
#define MIN_Z_SPREAD 0.05

typedef struct {
	const wc_params *base;
	wc_params work;            /* platform scope: base + the new level at S = 1, theta = 0 */
	cal_run *runs;
	int n_runs;
	cal_group *groups;
	int n_groups;
	double sigma0;
	wc_calibrate_result *out;
} cal_setup;

static const char *const scope_names[] = { "model", "platform" };

const char *
wc_calibrate_scope_name(wc_calibrate_scope s)
{
	return (unsigned)s <= WC_CALIBRATE_PLATFORM ? scope_names[s] : "?";
}

int
wc_calibrate_scope_from_name(const char *name, wc_calibrate_scope *out)
{
	for (int i = 0; name && i < 2; i++)
		if (strcmp(name, scope_names[i]) == 0) {
			*out = (wc_calibrate_scope)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

void
wc_calibrate_result_clear(wc_calibrate_result *r)
{
	if (!r)
		return;
	wc_params_clear(&r->params);
	memset(r, 0, sizeof *r);
}

static int
selected(const wc_runs_table *t, size_t i, const wc_calibrate_options *o)
{
	const wc_run *r = &t->runs[i];
	char key[WC_NAME_MAX], want[WC_NAME_MAX];
	if (r->exclude[0] || (o->use && !o->use[i]))
		return 0;
	if (o->platform && strcmp(r->platform, o->platform) != 0)
		return 0;
	if (o->model) {
		wc_model_key(r->model, key, sizeof key);
		wc_model_key(o->model, want, sizeof want);
		if (strcasecmp(key, want) != 0)
			return 0;
	}
	return 1;
}

/* The calibration runs, each checked: measured power, a known level for
 * the model scope, one platform for the platform scope. */
static int
check_runs(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
           cal_setup *s, wc_error *err)
{
	const char *platform = NULL;
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		if (!selected(t, i, o))
			continue;
		if (!isfinite(r->mean_power_w) || r->mean_power_w <= 0)
			return wc_error_set(err, WC_EINVAL,
			                    "mean_power_w: run '%s' has no measured power; calibration needs it",
			                    r->run_id);
		if (o->scope == WC_CALIBRATE_MODEL && !wc_params_level(base, r->platform))
			return wc_error_set(err, WC_EINVAL,
			                    "platform: run '%s' is on '%s', a level the base '%s' does not have; "
			                    "model scope calibrates models on known levels (--scope platform adds a level)",
			                    r->run_id, r->platform, base->name);
		if (o->scope == WC_CALIBRATE_PLATFORM && platform && strcmp(platform, r->platform) != 0)
			return wc_error_set(err, WC_EINVAL,
			                    "platform: the runs are on '%s' and '%s'; platform scope calibrates one "
			                    "level at a time (give --platform)", platform, r->platform);
		platform = r->platform;
		s->runs[s->n_runs++].run = r;
	}
	if (s->n_runs == 0)
		return wc_error_set(err, WC_EINVAL, "runs: no calibration run%s%s%s%s",
		                    o->model ? " of model " : "", o->model ? o->model : "",
		                    o->platform ? " on " : "", o->platform ? o->platform : "");
	return WC_OK;
}

static int
bind_run(const wc_params *p, cal_run *cr, wc_error *err)
{
	const wc_run *r = cr->run;
	wc_config c;
	/* Token lengths and architecture included: a prefill-aware base mixes
	 * in each run's prefill share (docs/inference-law.md). */
	wc_run_config(r, &c);
	if (!r->series.len)
		c.running = isfinite(r->running) ? r->running : 0.0;
	/* c.model cleared: the term being calibrated is measured against
	 * the law without any term the base may already have for it. */
	c.model = NULL;
	if (r->series.len) {
		cr->h = r->series;
	} else {
		cr->one_n = c.running;
		cr->one_w = 1.0;
		cr->h = (wc_load_histogram){ &cr->one_n, &cr->one_w, 1, c.running };
	}
	wc_error e;
	int rc = wc_law_bind(p, &c, &cr->bind, &e);
	if (rc != WC_OK)
		return wc_error_set(err, rc, "run '%s': %s", r->run_id, e.msg);
	return WC_OK;
}

/* Model scope: one group per (model key, level), in order of first run. */
static int
group_models(cal_setup *s, wc_error *err)
{
	for (int i = 0; i < s->n_runs; i++) {
		char key[WC_NAME_MAX];
		cal_group *g = NULL;
		wc_model_key(s->runs[i].run->model, key, sizeof key);
		for (int j = 0; j < s->n_groups && !g; j++)
			if (strcasecmp(s->groups[j].model, key) == 0 &&
			    strcmp(s->groups[j].level, s->runs[i].run->platform) == 0)
				g = &s->groups[j];
		if (!g) {
			if (s->n_groups >= WC_CALIBRATE_ESTIMATES_MAX)
				return wc_error_set(err, WC_EINVAL, "runs: more than %d model-level pairs",
				                    WC_CALIBRATE_ESTIMATES_MAX);
			g = &s->groups[s->n_groups++];
			g->scope = WC_CALIBRATE_MODEL;
			snprintf(g->model, sizeof g->model, "%s", key);
			snprintf(g->level, sizeof g->level, "%s", s->runs[i].run->platform);
			g->p = 1;
			g->prior_mean[0] = 0.0;
			g->prior_sd[0] = PRIOR_SD_SHIFT;
		}
		g->n_runs++;
	}
	return WC_OK;
}

/* Point each group's run list into one array of pointers, in run order. */
static int
fill_group_runs(cal_setup *s, cal_run ***store, wc_error *err)
{
	*store = wc_alloc_zeroed((size_t)s->n_runs, sizeof **store);
	if (!*store)
		return wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	int at = 0;
	for (int j = 0; j < s->n_groups; j++) {
		cal_group *g = &s->groups[j];
		g->runs = *store + at;
		int n = 0;
		for (int i = 0; i < s->n_runs; i++) {
			char key[WC_NAME_MAX];
			const wc_run *r = s->runs[i].run;
			wc_model_key(r->model, key, sizeof key);
			if (strcmp(r->platform, g->level) == 0 &&
			    (g->scope == WC_CALIBRATE_PLATFORM || strcasecmp(key, g->model) == 0))
				g->runs[n++] = &s->runs[i];
		}
		g->n_runs = n;
		at += n;
	}
	return WC_OK;
}

/* Mean log S and mean theta of the base's levels with their own S: the
 * centre of the weak priors of a new level. */
static void
level_prior(const wc_params *base, double *log_s, double *theta)
{
	double ls = 0, th = 0;
	int ns = 0, nt = 0;
	for (int i = 0; i < base->n_levels; i++) {
		const wc_level *l = &base->levels[i];
		if (!l->s_shared_with[0] && isfinite(l->s.value) && l->s.value > 0) {
			ls += log(l->s.value);
			ns++;
		}
		th += l->theta.value;
		nt++;
	}
	*log_s = ns ? ls / ns : log(500.0);
	*theta = nt ? th / nt : 0.0;
}

/* P0 of the new level: the runs' measured idle, else the option, else the
 * platform catalog's typical idle, else the estimate from the platform's
 * power limit (docs/fitting.md); the last two say so. */
static int
new_level_p0(const cal_setup *s, const wc_calibrate_options *o, const char *name, wc_param *p0,
             wc_calibrate_result *out, wc_error *err)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < s->n_runs; i++)
		if (isfinite(s->runs[i].run->idle_power_w)) {
			sum += s->runs[i].run->idle_power_w;
			n++;
		}
	if (n > 0) {
		*p0 = (wc_param){ sum / n, NAN, NAN, WC_SRC_MEASURED };
		return WC_OK;
	}
	if (o->idle_power_w > 0) {
		*p0 = (wc_param){ o->idle_power_w, NAN, NAN, WC_SRC_ASSUMED };
		return WC_OK;
	}
	const wc_platform_info *hw = wc_platform_lookup(name);
	if (hw && hw->idle_power_w > 0) {
		*p0 = (wc_param){ hw->idle_power_w, NAN, NAN, WC_SRC_PUBLISHED };
		WC_WARN(out, "P0[%s]: the runs carry no measured idle power; %.1f W, the platform catalog's typical "
		        "idle (%s; give --idle-power W to set it)", name, hw->idle_power_w, hw->idle_source);
		return WC_OK;
	}
	double est = wc_params_estimated_idle_w(name);
	if (isfinite(est)) {
		*p0 = (wc_param){ est, NAN, NAN, WC_SRC_ESTIMATED };
		WC_WARN(out, "P0[%s]: the runs carry no measured idle power; %.1f W estimated from the "
		        "platform's power limit (give --idle-power W to set it)", name, est);
		return WC_OK;
	}
	return wc_error_set(err, WC_EINVAL,
	                    "idle_power_w: the runs carry no measured idle power, none was given "
	                    "(--idle-power W) and the catalog does not know '%s'; a new level's P0 "
	                    "cannot be fitted from a few runs", name);
}

static void
level_range(const cal_setup *s, wc_range *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < s->n_runs; i++) {
		const wc_run *q = s->runs[i].run;
		double n = q->series.len ? q->series.mean : q->running;
		if (i == 0 || q->active_params_b < r->active_b_min)
			r->active_b_min = q->active_params_b;
		if (i == 0 || q->active_params_b > r->active_b_max)
			r->active_b_max = q->active_params_b;
		if (i == 0 || n < r->running_min)
			r->running_min = n;
		if (i == 0 || n > r->running_max)
			r->running_max = n;
		if (i == 0 || q->tp < r->tp_min)
			r->tp_min = q->tp;
		if (i == 0 || q->tp > r->tp_max)
			r->tp_max = q->tp;
	}
	r->runs = s->n_runs;
}

/* The z-coordinate of a run apart from theta: size, load and terms. */
static double
run_z(const cal_run *cr)
{
	wc_law_point lp;
	wc_law_bound_point(&cr->bind, NULL, &lp);
	double n = cr->h.mean >= 1.0 ? cr->h.mean : 1.0;
	double a = wc_law_load_argument(lp.gamma1, lp.gamma2, wc_law_log_load(n));
	return lp.z0 + lp.gamma1 * a + lp.gamma2 * a * a;
}

/* Platform scope: the work set (base + the new level at S = 1, theta = 0)
 * and its one group; refusals when the runs cannot identify the level. */
static int
setup_platform(cal_setup *s, const wc_calibrate_options *o, wc_error *err)
{
	const char *name = s->runs[0].run->platform;
	wc_param p0;
	int rc;
	if (wc_params_level(s->base, name))
		return wc_error_set(err, WC_EINVAL,
		                    "platform: level '%s' already exists in the base '%s'; platform scope adds a "
		                    "new level (--scope model adjusts models on a known one)", name, s->base->name);
	if (s->n_runs < 2)
		return wc_error_set(err, WC_EINVAL,
		                    "runs: platform scope needs 2 or more runs at different loads to identify S "
		                    "and theta of '%s'; got 1 run", name);
	if (wc_form_has_floor(s->base->form))
		return wc_error_set(err, WC_EINVAL, "form: platform scope does not calibrate the floor of %s",
		                    wc_form_name(s->base->form));
	if (s->base->n_levels >= WC_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "levels: the base already has %d levels", WC_MAX_LEVELS);
	if ((rc = new_level_p0(s, o, name, &p0, s->out, err)) != WC_OK ||
	    (rc = wc_params_copy(&s->work, s->base, err)) != WC_OK)
		return rc;
	wc_level *l = &s->work.levels[s->work.n_levels++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->p0 = p0;
	l->s = (wc_param){ 1.0, NAN, NAN, WC_SRC_CALIBRATED };
	l->theta = (wc_param){ 0.0, NAN, NAN, WC_SRC_CALIBRATED };
	l->floor_logit = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
	level_range(s, &l->range);
	cal_group *g = &s->groups[s->n_groups++];
	g->scope = WC_CALIBRATE_PLATFORM;
	snprintf(g->level, sizeof g->level, "%s", name);
	g->n_runs = s->n_runs;
	g->p = wc_form_has_scale(s->base->form) ? 2 : 1;
	double ls, th;
	level_prior(s->base, &ls, &th);
	g->prior_mean[0] = g->p == 2 ? ls : th;
	g->prior_sd[0] = g->p == 2 ? PRIOR_SD_LOG_S : PRIOR_SD_THETA;
	g->prior_mean[1] = th;
	g->prior_sd[1] = PRIOR_SD_THETA;
	return WC_OK;
}

static int
check_spread(const cal_setup *s, wc_error *err)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < s->n_runs; i++) {
		double z = run_z(&s->runs[i]);
		lo = fmin(lo, z);
		hi = fmax(hi, z);
	}
	if (hi - lo < MIN_Z_SPREAD)
		return wc_error_set(err, WC_EINVAL,
		                    "runs: all %d runs are at one load (and model size): S and theta of '%s' "
		                    "cannot be told apart; add a run at another load", s->n_runs,
		                    s->runs[0].run->platform);
	return WC_OK;
}

/* The run scatter: the option, else the base's residual RMS, else the
 * assumed value; a group with more runs than unknowns uses its own
 * residual RMS when that is larger. */
static double
base_scatter(const wc_params *base, const wc_calibrate_options *o, wc_calibrate_result *out)
{
	if (o->run_scatter > 0)
		return o->run_scatter;
	if (base->residual_rms > 0)
		return base->residual_rms;
	WC_WARN(out, "run scatter: the base records no residual RMS; %.2g (log dynamic power) is assumed "
	        "(--run-scatter sets it)", ASSUMED_RUN_SCATTER);
	return ASSUMED_RUN_SCATTER;
}

static int
solve_points(cal_setup *s, wc_error *err)
{
	for (int j = 0; j < s->n_groups; j++) {
		cal_group *g = &s->groups[j];
		double x0[CAL_MAX_UNKNOWNS];
		int rc;
		g->sigma = s->sigma0;
		memcpy(x0, g->prior_mean, sizeof x0);
		if ((rc = wc__cal_solve(g, NULL, NULL, x0, g->x, err)) != WC_OK)
			return rc;
		if (g->n_runs > g->p) {
			double own = wc__cal_rms(g, g->x) * sqrt((double)g->n_runs / (g->n_runs - g->p));
			if (isfinite(own) && own > g->sigma) {
				g->sigma = own;
				memcpy(x0, g->x, sizeof x0);
				if ((rc = wc__cal_solve(g, NULL, NULL, x0, g->x, err)) != WC_OK)
					return rc;
			}
		}
	}
	return WC_OK;
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
		for (int i = 0; i < g->n_runs; i++)
			noise[i] = g->sigma * wc_pcg32_normal(&rng);
		if (wc__cal_solve(g, draw, noise, g->x, x, NULL) != WC_OK)
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
new_names(const cal_setup *s, char (*names)[WC_NAME_MAX])
{
	int k = 0;
	for (int j = 0; j < s->n_groups; j++) {
		const cal_group *g = &s->groups[j];
		if (g->scope == WC_CALIBRATE_MODEL) {
			wc_model_term t = { .runs = 0 };
			snprintf(t.model, sizeof t.model, "%s", g->model);
			snprintf(t.level, sizeof t.level, "%s", g->level);
			wc_model_term_label(&t, names[k++], WC_NAME_MAX);
		} else {
			if (g->p == 2)
				wc_level_param_label(WC_LEVEL_S, g->level, names[k++], WC_NAME_MAX);
			wc_level_param_label(WC_LEVEL_THETA, g->level, names[k++], WC_NAME_MAX);
		}
	}
	return k;
}

/* The point estimates into `p`: model terms added (or replacing the
 * base's term for the same model and level), or the new level's S, theta. */
static int
store_points(const cal_setup *s, wc_params *p, wc_error *err)
{
	for (int j = 0; j < s->n_groups; j++) {
		const cal_group *g = &s->groups[j];
		if (g->scope == WC_CALIBRATE_PLATFORM) {
			wc_level *l = &p->levels[p->n_levels - 1];
			l->s.value = g->p == 2 ? exp(g->x[0]) : NAN;
			l->s.source = g->p == 2 ? WC_SRC_CALIBRATED : WC_SRC_ASSUMED;
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
		t->runs = g->n_runs;
	}
	return WC_OK;
}

/* Base draw columns kept: all but those a new parameter replaces (a
 * model term calibrated again). Their indices into `keep`. */
static int
kept_columns(const wc_params *b, char (*nn)[WC_NAME_MAX], int n_new, int *keep)
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
store_draws(const cal_setup *s, const cal_job *job, char (*nn)[WC_NAME_MAX], wc_params *p,
            wc_error *err)
{
	const wc_params *b = s->base;
	int *keep = wc_alloc_zeroed((size_t)(b->n_draw_params + 1), sizeof *keep);
	int kb = keep ? kept_columns(b, nn, job->n_new, keep) : 0, k = kb + job->n_new, rows = 0, rc;
	char (*names)[WC_NAME_MAX] = wc_alloc_zeroed((size_t)k, sizeof *names);
	double *v = wc_alloc_zeroed((size_t)job->replicates * (size_t)k, sizeof *v);
	double *col = wc_alloc_zeroed((size_t)job->replicates, sizeof *col);
	if (!keep || !names || !v || !col) {
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
		goto done;
	}
	for (int j = 0; j < kb; j++)
		memcpy(names[j], b->draw_names[keep[j]], WC_NAME_MAX);
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
	if ((rc = wc_params_set_draws(p, rows, k, (const char (*)[WC_NAME_MAX])names, v, err)) != WC_OK)
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
list_estimates(const cal_setup *s, char (*nn)[WC_NAME_MAX], int n_new, wc_calibrate_result *out)
{
	int k = 0;
	for (int j = 0; j < s->n_groups; j++)
		for (int u = 0; u < s->groups[j].p && k < n_new; u++, k++) {
			wc_calibrate_estimate *e = &out->estimates[out->n_estimates++];
			const wc_param *prm = wc_params_param_named(&out->params, nn[k]);
			snprintf(e->label, sizeof e->label, "%s", nn[k]);
			e->value = prm ? *prm : (wc_param){ NAN, NAN, NAN, WC_SRC_CALIBRATED };
			e->runs = s->groups[j].n_runs;
		}
}

/* Bind every run and refuse those whose measured power is not above idle. */
static int
bind_runs(cal_setup *s, wc_error *err)
{
	const wc_params *p = s->work.n_levels ? &s->work : s->base;
	for (int i = 0; i < s->n_runs; i++) {
		cal_run *cr = &s->runs[i];
		wc_law_point lp;
		int rc = bind_run(p, cr, err);
		if (rc != WC_OK)
			return rc;
		wc_law_bound_point(&cr->bind, NULL, &lp);
		if (!(cr->run->mean_power_w > cr->run->tp * lp.p0))
			return wc_error_set(err, WC_EINVAL,
			                    "mean_power_w: run '%s' draws %g W, not above its idle %g W (tp %d x P0 %g W): "
			                    "nothing to calibrate on", cr->run->run_id, cr->run->mean_power_w,
			                    cr->run->tp * lp.p0, cr->run->tp, lp.p0);
	}
	return WC_OK;
}

static int
calibrate_draws(cal_setup *s, const wc_calibrate_options *o, wc_error *err)
{
	char nn[WC_CALIBRATE_ESTIMATES_MAX + 1][WC_NAME_MAX];
	int n_new = new_names(s, nn), rc = WC_OK;
	wc_calibrate_result *out = s->out;
	int R = o->replicates > 0 ? o->replicates : s->base->n_draws > 0 ? s->base->n_draws : 1000;
	if (o->replicates < 0) {
		list_estimates(s, nn, n_new, out);
		return WC_OK;
	}
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
		out->params.bootstrap = R;
		out->params.seed = o->seed;
		if (s->base->n_draws == 0)
			WC_WARN(out, "the base has no draws: intervals cover the calibration runs' scatter only, "
			        "not the base law's own uncertainty");
		list_estimates(s, nn, n_new, out);
	}
	free(job.values);
	free(job.ok);
	return rc;
}

int
wc_calibrate(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
             wc_calibrate_result *out, wc_error *err)
{
	cal_setup s = { .base = base, .out = out };
	cal_run **store = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	s.runs = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, sizeof *s.runs);
	s.groups = wc_alloc_zeroed(WC_CALIBRATE_ESTIMATES_MAX, sizeof *s.groups);
	if (!s.runs || !s.groups) {
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
		goto done;
	}
	if ((rc = wc_params_validate(base, err)) != WC_OK || (rc = check_runs(base, t, o, &s, err)) != WC_OK)
		goto done;
	if (o->scope == WC_CALIBRATE_PLATFORM)
		rc = setup_platform(&s, o, err);
	if (rc == WC_OK)
		rc = bind_runs(&s, err);
	if (rc == WC_OK && o->scope == WC_CALIBRATE_PLATFORM)
		rc = check_spread(&s, err);
	if (rc == WC_OK && o->scope == WC_CALIBRATE_MODEL)
		rc = group_models(&s, err);
	if (rc == WC_OK)
		rc = fill_group_runs(&s, &store, err);
	if (rc != WC_OK)
		goto done;
	s.sigma0 = out->run_scatter = base_scatter(base, o, out);
	out->n_runs = s.n_runs;
	if ((rc = solve_points(&s, err)) != WC_OK)
		goto done;
	/* After the point solve, so the warning can say what the shift took up. */
	wc__cal_ceiling_warnings(s.groups, s.n_groups, base->form, out);
	if (
	    (rc = wc_params_copy(&out->params, s.work.n_levels ? &s.work : base, err)) != WC_OK ||
	    (rc = store_points(&s, &out->params, err)) != WC_OK ||
	    (rc = calibrate_draws(&s, o, err)) != WC_OK)
		goto done;
	rc = wc_params_validate(&out->params, err);
done:
	if (rc != WC_OK)
		wc_calibrate_result_clear(out);
	wc_params_clear(&s.work);
	free(store);
	free(s.runs);
	free(s.groups);
	return rc;
}

/*
 * Calibration from a few runs (docs/calibration.md): select and check the
 * runs, group them (one model term per model and level, or one new
 * level), solve each group for the point estimate; calibrate_draws.c then
 * runs the replicates that combine the base law's draws with the scatter
 * of single runs, and writes the calibrated parameter set.
 */
#include "calibrate_internal.h"
#include "models/warnings.h"
#include "models/grow.h"
#include "models/catalog.h"
#include "models/law.h"
#include "models/limits.h"

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

static const char *const scope_names[] = { "model", "platform" };

/* The CLI's flags (docs/cli.md), the words of callers that give none. */
static const wc_calibrate_words cli_words = { "--scope model", "--scope platform", "--platform",
	                                      "--idle-power W", "--run-scatter", "--relative-to", "--bootstrap",
	                                      "an exclude column leaves runs out" };

const wc_calibrate_words *
wc__cal_words(const wc_calibrate_options *o)
{
	return o->words ? o->words : &cli_words;
}

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
	char key[WC_MODEL_NAME_MAX], want[WC_MODEL_NAME_MAX];
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

/* A refusal of run r's value in `column`: at its cell when r comes from
 * t's file (file:line:column, as the runs-table reader words its own, so
 * the CLI points at it), else "COLUMN: run 'ID'" (POST /v1/calibrate then
 * points at /runs/K/COLUMN; docs/calibration.md, "Refusals"). */
static int __attribute__((format(printf, 5, 6)))
refuse_run(const wc_runs_table *t, const wc_run *r, const char *column, wc_error *err, const char *fmt, ...)
{
	char at[WC_ERROR_MSG_MAX], why[WC_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat(why, sizeof why, fmt, ap);
	va_end(ap);
	if (!wc_runs_cell_at(t, r, column, at, sizeof at))
		snprintf(at, sizeof at, "%s", column);
	return wc_error_set(err, WC_EINVAL, "%s: run '%s' %s", at, r->run_id, why);
}

/* The cell an idle run's refusal points at: `running`, which states the
 * load (docs/calibration.md, "Refusals"), also for a run with an n(t)
 * series when its `running` says idle too -- ingest writes the series'
 * mean there, and pointing at the series' file name (column 101) told
 * nothing; `n_series` only when the series alone is idle. */
static const char *
idle_column(const wc_run *r)
{
	int running_idle = isfinite(r->running) && wc_load_is_idle(r->running);
	return r->series.len && !running_idle ? "n_series" : "running";
}

/* A run's idle_power_w under its board's limit, the bound every idle
 * power is held to (wc_params_check_idle), refused at its cell as its
 * mean_power_w is; a new level (platform scope) by its board's name. */
static int
check_idle(const wc_params *base, const wc_runs_table *t, const wc_run *r, wc_error *err)
{
	const wc_level *l = wc_params_level(base, r->platform);
	char at[WC_ERROR_MSG_MAX];
	if (!isfinite(r->idle_power_w))
		return WC_OK;
	if (!wc_runs_cell_at(t, r, "idle_power_w", at, sizeof at))
		snprintf(at, sizeof at, "idle_power_w");
	size_t n = strlen(at);
	snprintf(at + n, sizeof at - n, ": run '%s'", r->run_id);
	return wc_params_check_idle(l ? l->name : r->platform, l ? l->s_shared_with : NULL, r->idle_power_w, at, err);
}

/* The calibration runs, each checked: measured power, a load (a run at 0
 * running is idle: the law's dynamic power is 0 there, so there is nothing
 * to calibrate on, and the solver met log 0 -- docs/calibration.md), a
 * known level for the model scope, one platform for the platform scope. */
static int
check_runs(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
           cal_setup *s, wc_error *err)
{
	const char *platform = NULL;
	const wc_calibrate_words *w = wc__cal_words(o);
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		if (!selected(t, i, o))
			continue;
		double load = r->series.len ? r->series.mean : r->running;
		if (!isfinite(r->mean_power_w) || r->mean_power_w <= 0)
			return refuse_run(t, r, "mean_power_w", err, "has no measured power; calibration needs it");
		/* Below the smallest load (wc_load_is_idle) a run is idle: 1e-320
		 * running left the solver without a direction, naming no field. */
		if (wc_load_is_idle(load))
			return refuse_run(t, r, idle_column(r), err,
			                  "is at %g running requests: an idle run has no dynamic power to calibrate on "
			                  "(give its mean power / tp as the loaded runs' idle_power_w)", load);
		if (o->scope == WC_CALIBRATE_MODEL && !wc_params_level(base, r->platform))
			return refuse_run(t, r, "platform", err,
			                  "is on '%s', a level the base '%s' does not have; model scope calibrates "
			                  "models on known levels (%s adds a level)", r->platform, base->name,
			                  w->scope_platform);
		int rc = check_idle(base, t, r, err);
		if (rc != WC_OK)
			return rc;
		if (o->scope == WC_CALIBRATE_PLATFORM && platform && strcmp(platform, r->platform) != 0)
			return wc_error_set(err, WC_EINVAL,
			                    "platform: the runs are on '%s' and '%s'; platform scope calibrates one "
			                    "level at a time (%s selects one)", platform, r->platform, w->platform);
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
	if (!(c.idle_power_w > 0.0))
		c.idle_power_w = cr->idle_w; /* its model term's, else 0: the level's */
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
		char key[WC_MODEL_NAME_MAX];
		cal_group *g = NULL;
		wc_model_key(s->runs[i].run->model, key, sizeof key);
		for (int j = 0; j < s->n_groups && !g; j++)
			if (strcasecmp(s->groups[j].model, key) == 0 &&
			    strcasecmp(s->groups[j].level, s->runs[i].run->platform) == 0)
				g = &s->groups[j];
		if (!g) {
			if (s->n_groups >= WC_CALIBRATE_ESTIMATES_MAX)
				return wc_error_set(err, WC_EINVAL, "runs: more than %d model-level pairs",
				                    WC_CALIBRATE_ESTIMATES_MAX);
			g = &s->groups[s->n_groups++];
			g->scope = WC_CALIBRATE_MODEL;
			snprintf(g->model, sizeof g->model, "%s", key);
			/* the term names the level as the base spells it */
			const wc_level *bl = s->base ? wc_params_level(s->base, s->runs[i].run->platform) : NULL;
			snprintf(g->level, sizeof g->level, "%s", bl ? bl->name : s->runs[i].run->platform);
			g->p = 1;
			g->prior_mean[0] = 0.0;
			g->prior_sd[0] = PRIOR_SD_SHIFT;
			/* The term is found by the name, and `predict --model` sizes a
			 * catalog name from the catalog: a run stating another size
			 * calibrates a term answers will use at the wrong size. */
			const wc_model_info *m = wc_model_lookup(s->runs[i].run->model);
			double b = s->runs[i].run->active_params_b;
			int told = 0; /* once per model, not per level */
			for (int j = 0; j + 1 < s->n_groups; j++)
				told |= strcasecmp(s->groups[j].model, key) == 0;
			/* a quarter: publishers round sizes in names (A3B is 3.3 B) */
			if (m && !told && fabs(b / m->active_params_b - 1.0) > 0.25)
				WC_WARN(s->out, "model %s: the runs state %g B active, the catalog %g B; the term is calibrated "
				        "at the runs' size, but answers naming %s use the catalog's (rename the runs' model "
				        "to calibrate a model of your own)", key, b, m->active_params_b, key);
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
			char key[WC_MODEL_NAME_MAX];
			const wc_run *r = s->runs[i].run;
			wc_model_key(r->model, key, sizeof key);
			if (strcasecmp(r->platform, g->level) == 0 &&
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

/* The z-coordinate of a run apart from theta: size, load and terms. */
static double
run_z(const cal_run *cr)
{
	wc_law_point lp;
	wc_law_bound_point(&cr->bind, NULL, &lp);
	double n = cr->h.mean >= 1.0 ? cr->h.mean : 1.0;
	return wc_law_z(lp.z0, lp.gamma1, lp.gamma2, wc_law_log_load(n), NULL);
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
		                    "new level (%s adjusts models on a known one)", name, s->base->name,
		                    wc__cal_words(o)->scope_model);
	if (wc__cal_count_runs(s->runs, s->n_runs) < 2) /* runs, not rows: a run's pieces are one */
		return wc_error_set(err, WC_EINVAL, "runs: platform scope needs 2 or more runs at different loads to "
		                    "identify S and theta of '%s'; got 1 run%s", name,
		                    s->n_runs > 1 ? " (its pieces are one run)" : "");
	if (wc_form_has_floor(s->base->form))
		return wc_error_set(err, WC_EINVAL, "form: platform scope does not calibrate the floor of %s",
		                    wc_form_name(s->base->form));
	if (s->base->n_levels >= WC_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "levels: the base already has %d levels", WC_MAX_LEVELS);
	if ((rc = wc__cal_new_level_p0(s, o, name, &p0, s->out, err)) != WC_OK ||
	    (rc = wc_params_copy(&s->work, s->base, err)) != WC_OK)
		return rc;
	wc_level *l = &s->work.levels[s->work.n_levels++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->p0 = p0;
	l->s = (wc_param){ 1.0, NAN, NAN, WC_SRC_CALIBRATED };
	l->theta = (wc_param){ 0.0, NAN, NAN, WC_SRC_CALIBRATED };
	l->floor_logit = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
	/* its range: the runs' span, once they are grouped (wc__cal_units) */
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
	g->s_max = wc__cal_s_max(l);
	return WC_OK;
}

double
wc__cal_s_max(const wc_level *l)
{
	return wc_power_ceiling_w(wc_level_power_limit_w(l), 1) - l->p0.value;
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

/* The run scatter: the option, else the base's residual RMS (at least the range's
 * floor: a perfect fit's 1e-15 did not converge), else the assumed value; a group
 * with more runs than unknowns uses its own residual RMS when that is larger. */
static double
base_scatter(const wc_params *base, const wc_calibrate_options *o, wc_calibrate_result *out)
{
	if (o->run_scatter > 0)
		return o->run_scatter;
	if (base->residual_rms > 0)
		return fmax(base->residual_rms, WC_RUN_SCATTER_MIN);
	WC_WARN(out, "run scatter: the base records no residual RMS; %.2g (log dynamic power) is assumed "
	        "(%s sets it)", ASSUMED_RUN_SCATTER, wc__cal_words(o)->run_scatter);
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
		if (g->scope == WC_CALIBRATE_PLATFORM && g->n_units <= g->p)
			WC_WARN(s->out, "level %s: %d runs for its %d unknowns (S, theta): no run is left to check them, the "
			        "prior holds them as much as the runs do, and their intervals come from the assumed run "
			        "scatter; give runs at more loads", g->level, g->n_units, g->p);
		if (g->n_units > g->p) {
			double own = wc__cal_rms(g, g->x) * sqrt((double)g->n_units / (g->n_units - g->p));
			if (isfinite(own) && own > g->sigma) {
				g->sigma = own;
				memcpy(x0, g->x, sizeof x0);
				if ((rc = wc__cal_solve(g, NULL, NULL, x0, g->x, err)) != WC_OK)
					return rc;
			}
		}
		/* After the last solve: the scatter's re-solve started from the
		 * held point and went back above the bound. */
		if ((g->held = wc__cal_hold_ceiling(g, g->x))) {
			/* theta again with S fixed at the bound (the replicates
			 * are held and solved the same way) */
			if ((rc = wc__cal_solve_at_bound(g, NULL, NULL, g->x, err)) != WC_OK)
				return rc;
			WC_WARN(s->out, "S[%s] " WC__CAL_HELD_S " %.1f W (P0 + S = %g x the board limit) and is "
			        "held there, as fit holds it: these runs cannot separate S from theta[%s]", g->level,
			        g->s_max, WC_LEVEL_LIMIT_FACTOR, g->level);
		}
	}
	return WC_OK;
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
			return refuse_run(s->t, cr->run, "mean_power_w", err,
			                  "draws %g W, not above its idle %g W (tp %d x P0 %g W): nothing to calibrate on",
			                  cr->run->mean_power_w, cr->run->tp * lp.p0, cr->run->tp, lp.p0);
	}
	return WC_OK;
}

int
wc__cal_once(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *given,
             wc_calibrate_result *out, wc_error *err)
{
	/* Levels are named as the catalog spells a board, as runs tables
	 * store them: "--platform 'NVIDIA L40S'" selects the L40S runs. */
	wc_calibrate_options canon = *given;
	const wc_calibrate_options *o = &canon;
	canon.platform = given->platform ? wc_platform_canonical(given->platform) : NULL;
	canon.relative_to = given->relative_to ? wc_platform_canonical(given->relative_to) : NULL;
	cal_setup s = { .base = base, .t = t, .out = out };
	cal_run **store = NULL;
	int rc;
	if (o->relative_to && o->relative_to[0] && o->scope != WC_CALIBRATE_PLATFORM) {
		memset(out, 0, sizeof *out);
		return wc_error_set(err, WC_EINVAL, "%s: only a new level (%s) is calibrated relative to a level",
		                    wc__cal_words(o)->relative_to, wc__cal_words(o)->scope_platform);
	}
	if (o->relative_to && o->relative_to[0])
		return wc__cal_relative(base, t, o, out, err);
	memset(out, 0, sizeof *out);
	s.runs = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, sizeof *s.runs);
	s.groups = wc_alloc_zeroed(WC_CALIBRATE_ESTIMATES_MAX, sizeof *s.groups);
	if (!s.runs || !s.groups) {
		rc = wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
		goto done;
	}
	if ((rc = wc_params_validate(base, err)) != WC_OK || (rc = check_runs(base, t, o, &s, err)) != WC_OK)
		goto done;
	/* Model scope: groups first, so that the runs of a term without
	 * idle_power_w are bound at the idle it will answer with. */
	rc = o->scope == WC_CALIBRATE_PLATFORM ? setup_platform(&s, o, err) : group_models(&s, err);
	if (rc == WC_OK)
		rc = fill_group_runs(&s, &store, err);
	if (rc == WC_OK && o->scope == WC_CALIBRATE_MODEL)
		rc = wc__cal_term_idle(base, o, s.groups, s.n_groups, out, err);
	if (rc == WC_OK)
		rc = bind_runs(&s, err);
	if (rc == WC_OK && o->scope == WC_CALIBRATE_PLATFORM)
		rc = check_spread(&s, err);
	if (rc != WC_OK)
		goto done;
	s.sigma0 = out->run_scatter = base_scatter(base, o, out);
	wc__cal_units(&s);
	if ((rc = solve_points(&s, err)) != WC_OK)
		goto done;
	/* After the point solve, so the warning can say what the shift took up. */
	wc__cal_ceiling_warnings(s.groups, s.n_groups, base->form, wc__cal_words(o), out);
	if (
	    (rc = wc_params_copy(&out->params, s.work.n_levels ? &s.work : base, err)) != WC_OK ||
	    (rc = wc__cal_store_points(&s, &out->params, err)) != WC_OK ||
	    (rc = wc__cal_misses(&s, o, err)) != WC_OK ||
	    (rc = wc__cal_draws(&s, o, err)) != WC_OK)
		goto done;
	/* Named for what it is, not for its base: a calibrated set answering
	 * as "measured" passes for the built-in profile (--name overrides). */
	snprintf(out->params.name, sizeof out->params.name, "%.22s-%.24s", base->name,
	         o->scope == WC_CALIBRATE_PLATFORM ? s.runs[0].run->platform : "calibrated");
	/* The calibration's own record, beside the base fit's, which stays
	 * whole (docs/calibration.md, "Provenance"); the caller names the
	 * input and stamps the time. */
	wc_record *rec = &out->params.calibration;
	memset(rec, 0, sizeof *rec);
	snprintf(rec->input_sha256, sizeof rec->input_sha256, "%s", t->sha256);
	snprintf(rec->tool_version, sizeof rec->tool_version, "%s", WC_VERSION);
	rec->runs = out->n_runs;
	rec->seed = o->seed;
	rec->bootstrap = out->params.n_draws;
	/* and its rows by content, which the hash of a table that holds
	 * them among others cannot tell (docs/validation.md) */
	uint64_t *rows = wc_alloc_zeroed((size_t)s.n_runs + 1, sizeof *rows);
	for (int i = 0; rows && i < s.n_runs; i++)
		rows[i] = wc_run_content_hash(s.runs[i].run);
	rc = rows ? wc_params_set_calibration_rows(&out->params, rows, s.n_runs, err)
	          : wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	free(rows);
	if (rc == WC_OK)
		rc = wc_params_validate(&out->params, err);
done:
	if (rc != WC_OK) {
		int idle_refused = out->idle_refused; /* why it failed, kept for the caller */
		wc_calibrate_result_clear(out);
		out->idle_refused = idle_refused;
	}
	wc_params_clear(&s.work);
	free(store);
	free(s.runs);
	free(s.groups);
	return rc;
}

/* One calibration (relative to a level: two, wc__cal_relative) and the
 * rows of every one before it: the record's row_hashes accumulate, each
 * row once, so a second calibration keeps the first's runs in-sample
 * (docs/formats/params-file.md, "Provenance"). */
int
wc_calibrate(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
             wc_calibrate_result *out, wc_error *err)
{
	int rc = wc__cal_once(base, t, o, out, err);
	if (rc == WC_OK) {
		/* its own rows each once, then the base's */
		uint64_t *own = out->params.calibration_rows;
		int n = out->params.n_calibration_rows;
		out->params.calibration_rows = NULL;
		out->params.n_calibration_rows = 0;
		rc = wc_params_add_calibration_rows(&out->params, own, n, err);
		free(own);
		if (rc == WC_OK)
			rc = wc_params_add_calibration_rows(&out->params, base->calibration_rows, base->n_calibration_rows,
			                                    err);
		if (rc != WC_OK)
			wc_calibrate_result_clear(out);
	}
	return rc;
}

/*
 * Setting up the joint fit (docs/fitting.md): which runs enter, the platform
 * levels and who shares S with whom, where each level's P0 comes from
 * (measured idle column > the prior parameters > fitted), which precision
 * terms exist, the layout of the free parameter vector, and a starting
 * point. Everything the residual loop needs is flattened here once.
 */
#include "fit_internal.h"

#include <math.h>
#include "models/stats.h"
#include "models/warnings.h"
#include "models/grow.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/catalog.h"
#include "models/law.h"
#include "models/limits.h"

void
wc__fit_problem_warn(fit_problem *pb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wc_warnings_vadd(pb->warnings, &pb->n_warnings, fmt, ap);
	va_end(ap);
}

void
wc__fit_problem_free(fit_problem *pb)
{
	if (!pb)
		return;
	free(pb->row);
	free(pb->lvl);
	free(pb->G);
	free(pb->l_n);
	free(pb->l_f);
	free(pb->y);
	free(pb->p0);
	free(pb->term_w);
	free(pb->term_kv);
	free(pb->mult);
	free(pb->rho);
	free(pb->duty);
	free(pb->lt_x);
	free(pb->off);
	free(pb->ln_pt);
	free(pb->w_pt);
	free(pb);
}

static int
level_index(const fit_problem *pb, const char *name)
{
	/* case-insensitive, as --platform: "a100" and "A100" are one level */
	for (int i = 0; i < pb->n_levels; i++)
		if (strcasecmp(pb->levels[i].name, name) == 0)
			return i;
	return -1;
}

/* A run's mean load: its n(t) series' mean, else its `running`. */
static double
row_load(const wc_run *r)
{
	return r->series.len > 0 ? r->series.mean : r->running;
}

static int
find_term(const fit_problem *pb, wc_setting s, wc_precision prec, const char *level)
{
	for (int k = 0; k < pb->n_terms; k++) {
		const wc_precision_term *t = &pb->terms[k];
		if (t->setting == s && t->precision == prec && strcasecmp(t->level, level) == 0)
			return k;
	}
	return -1;
}

static int
add_term(fit_problem *pb, wc_setting s, wc_precision prec, const char *level,
         wc_placement place, int kept, double p_value, int pairs)
{
	int k = find_term(pb, s, prec, level);
	if (k >= 0)
		return k;
	if (pb->n_terms >= WC_MAX_TERMS)
		return -1;
	wc_precision_term *t = &pb->terms[pb->n_terms];
	memset(t, 0, sizeof *t);
	t->setting = s;
	t->precision = prec;
	snprintf(t->level, sizeof t->level, "%s", level);
	t->placement = kept ? place : WC_PLACE_NONE;
	t->kept = kept;
	t->p_value = p_value;
	t->pairs = pairs;
	t->value.value = t->value.lo = t->value.hi = NAN;
	t->value.source = kept ? WC_SRC_FITTED : WC_SRC_ASSUMED;
	return pb->n_terms++;
}

/* The term a row's setting maps to, creating it (automatic mode) or
 * looking up the caller's specs; -1 = no term (bf16); -2 = no kept term,
 * the row is left out. */
static int
row_term(fit_problem *pb, const wc_fit_options *opt, wc_setting s, wc_precision prec,
         const char *level)
{
	if (prec == WC_PREC_BF16)
		return -1;
	const char *term_level = s == WC_SETTING_KV || opt->precision_terms == WC_TERMS_POOLED ? "" : level;
	if (!opt->term_specs) {
		if (opt->precision_terms == WC_TERMS_NONE)
			return -2;
		if (opt->precision_terms == WC_TERMS_AS_BF16)
			return -1;
		return add_term(pb, s, prec, term_level,
		                s == WC_SETTING_KV ? WC_PLACE_ON_S : WC_PLACE_INSIDE_Z, 1, NAN, 0);
	}
	const wc_precision_term *best = NULL;
	for (int i = 0; i < opt->n_term_specs; i++) {
		const wc_precision_term *t = &opt->term_specs[i];
		if (t->setting != s || t->precision != prec)
			continue;
		if (strcasecmp(t->level, level) == 0 || (t->level[0] == '\0' && !best))
			best = t;
	}
	if (!best)
		return -2;
	int k = add_term(pb, s, prec, best->level, best->placement, best->kept, best->p_value,
	                 best->pairs);
	if (k >= 0 && best->kept)
		pb->terms[k].value.value = best->value.value; /* starting value */
	return best->kept ? k : -2;
}

/* Resize a row array to exactly `n` elements, overflow-checked. */
static int
grow(void **p, size_t n, size_t size)
{
	void *np = wc_resize_array(*p, n, size);
	if (!np)
		return -1;
	*p = np;
	return 0;
}

/* Shares from the prior ("H100-locked" uses H100's S) and from options. */
static void
apply_shares(fit_problem *pb, const wc_params *prior, const wc_fit_options *opt)
{
	for (int i = 0; i < pb->n_levels; i++) {
		const wc_level *pl = wc_params_level(prior, pb->levels[i].name);
		int t = pl && pl->s_shared_with[0] ? level_index(pb, pl->s_shared_with) : -1;
		if (t >= 0 && t != i) /* spelled as this fit's level is */
			memcpy(pb->levels[i].s_shared_with, pb->levels[t].name, WC_NAME_MAX);
	}
	for (int k = 0; k < opt->n_shares; k++) {
		const char *eq = strchr(opt->shares[k], '=');
		if (!eq)
			continue;
		char name[WC_NAME_MAX];
		snprintf(name, sizeof name, "%.*s", (int)(eq - opt->shares[k]), opt->shares[k]);
		int a = level_index(pb, name), b = level_index(pb, eq + 1);
		if (a >= 0 && b >= 0 && a != b)
			memcpy(pb->levels[a].s_shared_with, pb->levels[b].name, WC_NAME_MAX); /* a != b */
		else
			wc__fit_problem_warn(pb, "share '%s' ignored: %s", opt->shares[k],
			                 a >= 0 && a == b ? "a level cannot share S with itself" : "both levels must have runs");
	}
	/* No chains: a level whose target shares too keeps its own S. */
	for (int i = 0; i < pb->n_levels; i++) {
		int t = pb->levels[i].s_shared_with[0] ? level_index(pb, pb->levels[i].s_shared_with) : -1;
		if (t >= 0 && pb->levels[t].s_shared_with[0]) {
			wc__fit_problem_warn(pb, "level %s: S sharing chain through %s ignored",
			                 pb->levels[i].name, pb->levels[t].name);
			pb->levels[i].s_shared_with[0] = '\0';
		}
	}
}

/* Median idle reading (per GPU) of a level's rows, NaN when none; *synth
 * says whether any reading is a synthetic row's. */
static double
measured_idle(const wc_runs_table *t, const unsigned char *in_fit, const char *level, int *synth)
{
	size_t n = 0;
	double *v = wc_alloc_array(t->n_runs, sizeof *v), med;
	*synth = 0;
	if (!v)
		return NAN;
	for (size_t i = 0; i < t->n_runs; i++)
		if (in_fit[i] && strcmp(t->runs[i].platform, level) == 0 && isfinite(t->runs[i].idle_power_w)) {
			v[n++] = t->runs[i].idle_power_w;
			*synth |= t->runs[i].synthetic;
		}
	med = wc_stats_median(v, n); /* NaN for none */
	free(v);
	return med;
}

static void
add_param(fit_problem *pb, param_kind kind, int index, double x0, int *slot)
{
	*slot = pb->n_params;
	pb->slots[pb->n_params].kind = kind;
	pb->slots[pb->n_params].index = index;
	pb->x0[pb->n_params++] = x0;
}

/* phi is fitted when some row knows its prefill share; otherwise it keeps
 * the prior's value (or 1, assumed) and the form predicts as published. */
static void
layout_prefill(fit_problem *pb, const wc_params *prior)
{
	int rows = 0;
	pb->p_phi = -1;
	pb->phi_fixed = wc_form_has_prefill(prior->form) && isfinite(prior->phi.value) && prior->phi.value > 0
	                ? prior->phi : (wc_param){ 1.0, NAN, NAN, WC_SRC_ASSUMED };
	if (!wc_form_has_prefill(pb->form))
		return;
	for (size_t i = 0; i < pb->n_rows; i++)
		rows += pb->rho[i] > 0.0;
	if (rows > 0)
		add_param(pb, PK_LOG_PHI, -1, log(pb->phi_fixed.value), &pb->p_phi);
	else
		wc__fit_problem_warn(pb, "form %s: no run has a known prefill share (it needs input and output "
		                 "tokens, a catalog model and a capacity section in the prior); phi kept at %g",
		                 wc_form_name(pb->form), pb->phi_fixed.value);
}

static void
layout_and_start(fit_problem *pb, const wc_params *prior, int any_clock)
{
	const int scale = wc_form_has_scale(pb->form), quad = wc_form_has_quadratic(pb->form);
	const int prior_quad = wc_form_has_quadratic(prior->form);
	for (int L = 0; L < pb->n_levels; L++) {
		wc_level *lv = &pb->levels[L];
		const wc_level *pl = wc_params_level(prior, lv->name);
		pb->p_s[L] = pb->p_floor[L] = pb->p_p0[L] = -1;
		/* Rough scale of the level's dynamic power, for starting values. */
		double dyn_max = 0.0;
		for (size_t i = 0; i < pb->n_rows; i++)
			if (pb->lvl[i] == L) {
				double d = isfinite(pb->p0[i]) ? exp(pb->y[i]) / pb->G[i] : 0.5 * exp(pb->y[i]) / pb->G[i];
				dyn_max = d > dyn_max ? d : dyn_max;
			}
		if (scale && !lv->s_shared_with[0]) {
			const wc_level *ps = pl ? wc_params_scale_level(prior, pl) : NULL;
			double s0 = ps && isfinite(ps->s.value) && wc_form_has_scale(prior->form)
			            ? ps->s.value : 1.3 * dyn_max;
			add_param(pb, PK_LOG_S, L, log(s0 > 1.0 ? s0 : 1.0), &pb->p_s[L]);
		}
		double th0 = pl && wc_form_has_scale(prior->form) == scale ? pl->theta.value : NAN;
		if (!isfinite(th0) || fabs(th0) > 20)
			th0 = scale ? 1.5 : log(dyn_max > 1.0 ? 0.7 * dyn_max : 1.0);
		add_param(pb, PK_THETA, L, th0, &pb->p_theta[L]);
		if (wc_form_has_floor(pb->form)) {
			double f0 = pl && isfinite(pl->floor_logit.value) ? pl->floor_logit.value : -1.0;
			add_param(pb, PK_FLOOR, L, f0, &pb->p_floor[L]);
		}
		if (lv->p0.source == WC_SRC_FITTED) {
			double lo = INFINITY;
			for (size_t i = 0; i < pb->n_rows; i++)
				if (pb->lvl[i] == L && exp(pb->y[i]) / pb->G[i] < lo)
					lo = exp(pb->y[i]) / pb->G[i];
			add_param(pb, PK_LOG_P0, L, log(0.5 * lo), &pb->p_p0[L]);
		}
	}
	/* Shared levels point at their target's S parameter. */
	for (int L = 0; L < pb->n_levels; L++)
		if (scale && pb->levels[L].s_shared_with[0])
			pb->p_s[L] = pb->p_s[level_index(pb, pb->levels[L].s_shared_with)];
	add_param(pb, PK_DELTA, -1, isfinite(prior->delta.value) ? prior->delta.value : 0.6, &pb->p_delta);
	add_param(pb, PK_GAMMA1, -1, isfinite(prior->gamma1.value) ? prior->gamma1.value : 0.75, &pb->p_gamma1);
	pb->p_gamma2 = pb->p_kappa = -1;
	if (quad)
		add_param(pb, PK_GAMMA2, -1, prior_quad ? prior->gamma2.value : 0.1, &pb->p_gamma2);
	if (any_clock)
		add_param(pb, PK_KAPPA, -1, isfinite(prior->kappa.value) ? prior->kappa.value : 1.0, &pb->p_kappa);
	layout_prefill(pb, prior);
	for (int k = 0; k < pb->n_terms; k++) {
		pb->p_term[k] = -1;
		if (!pb->terms[k].kept)
			continue;
		double v0 = pb->terms[k].value.value;
		if (pb->terms[k].placement == WC_PLACE_ON_S)
			add_param(pb, PK_TERM_LOG_FACTOR, k, isfinite(v0) && v0 > 0 ? log(v0) : 0.0, &pb->p_term[k]);
		else
			add_param(pb, PK_TERM_SHIFT, k, isfinite(v0) ? v0 : 0.0, &pb->p_term[k]);
	}
}

/* Step 1: rows that may enter (mask, exclude column, some load) and the
 * levels they name, in order of first appearance. */
static int
select_rows(fit_problem *pb, const wc_runs_table *t, const wc_fit_options *opt,
            unsigned char *in_fit, wc_error *err)
{
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		if ((opt->use && !opt->use[i]) || r->exclude[0])
			continue;
		/* idle by the one test (wc_load_is_idle): below the least
		 * load an answer takes, the law's dynamic power is nothing and
		 * a row at 1e-300 running left the fit 44.8 off in RMS */
		if (wc_load_is_idle(row_load(r))) {
			if (row_load(r) > 0)
				wc__fit_problem_warn(pb, "run %s: %g running requests, below the %g of a load (idle); left "
				                     "out of the fit", r->run_id, row_load(r), WC_CAPACITY_MIN_CONCURRENCY);
			else
				wc__fit_problem_warn(pb, "run %s: no running requests (idle only); left out of the fit",
				                     r->run_id);
			pb->n_excluded++;
			continue;
		}
		in_fit[i] = 1;
		if (level_index(pb, r->platform) < 0) {
			if (pb->n_levels >= WC_MAX_LEVELS)
				return wc_error_set(err, WC_EINVAL, "fit: more than %d platform levels", WC_MAX_LEVELS);
			wc_level *lv = &pb->levels[pb->n_levels++];
			const wc_platform_info *board = wc_platform_lookup(r->platform);
			memset(lv, 0, sizeof *lv);
			/* the catalog's spelling when only the case differs */
			snprintf(lv->name, sizeof lv->name, "%s",
			         board && strcasecmp(board->name, r->platform) == 0 ? board->name : r->platform);
		}
	}
	return WC_OK;
}

/* Step 2: P0 of each level: measured (simulated, from a synthetic
 * table) > prior > fitted. */
static void
choose_p0(fit_problem *pb, const wc_runs_table *t, const wc_params *prior,
          const unsigned char *in_fit)
{
	for (int L = 0; L < pb->n_levels; L++) {
		wc_level *lv = &pb->levels[L];
		const wc_level *pl = wc_params_level(prior, lv->name);
		int synth;
		double m = measured_idle(t, in_fit, lv->name, &synth);
		lv->p0.lo = lv->p0.hi = NAN;
		if (isfinite(m)) {
			lv->p0.value = m;
			lv->p0.source = wc_runs_idle_source(synth);
			if (synth)
				wc__fit_problem_warn(pb, "P0[%s]: %.1f W is the idle_power_w of a synthetic runs table (its "
				                     "first line says so): source simulated, not a measurement "
				                     "(docs/fitting.md)", lv->name, m);
		} else if (pl && isfinite(pl->p0.value)) {
			lv->p0.value = pl->p0.value;
			lv->p0.source = pl->p0.source;
		} else if (isfinite(wc_params_estimated_idle_w(lv->name))) {
			/* An unconstrained P0 drifts to implausible values when the
			 * runs carry no idle; the platform's limit anchors it. */
			lv->p0.value = wc_params_estimated_idle_w(lv->name);
			lv->p0.source = WC_SRC_ESTIMATED;
			wc__fit_problem_warn(pb, "level %s: no measured idle power and none in the prior; P0 estimated "
			                 "at %.1f W from its power limit (docs/fitting.md)", lv->name, lv->p0.value);
		} else {
			lv->p0.value = NAN;
			lv->p0.source = WC_SRC_FITTED;
			wc__fit_problem_warn(pb, "level %s: no measured idle power and none in the prior; P0 is fitted",
			                 lv->name);
		}
	}
}

static int
alloc_rows(fit_problem *pb, size_t n)
{
	return grow((void **)&pb->row, n + 1, sizeof *pb->row) ||
	       grow((void **)&pb->lvl, n + 1, sizeof *pb->lvl) ||
	       grow((void **)&pb->G, n + 1, sizeof *pb->G) || grow((void **)&pb->l_n, n + 1, sizeof *pb->l_n) ||
	       grow((void **)&pb->l_f, n + 1, sizeof *pb->l_f) || grow((void **)&pb->y, n + 1, sizeof *pb->y) ||
	       grow((void **)&pb->p0, n + 1, sizeof *pb->p0) ||
	       grow((void **)&pb->term_w, n + 1, sizeof *pb->term_w) ||
	       grow((void **)&pb->term_kv, n + 1, sizeof *pb->term_kv) ||
	       grow((void **)&pb->mult, n + 1, sizeof *pb->mult) ||
	       grow((void **)&pb->rho, n + 1, sizeof *pb->rho) || grow((void **)&pb->duty, n + 1, sizeof *pb->duty) ||
	       grow((void **)&pb->lt_x, n + 1, WC_LT_COUNT * sizeof *pb->lt_x) ||
	       grow((void **)&pb->off, n + 2, sizeof *pb->off);
}

/* One loaded point: below one request the law is the duty-cycle mix of
 * idle and one request (docs/inference-law.md), i.e. the point n = 1 with
 * its weight scaled by n. */
static void
add_point(fit_problem *pb, size_t *n_pts, double n, double w)
{
	pb->ln_pt[*n_pts] = wc_law_log_load(n < 1.0 ? 1.0 : n);
	pb->w_pt[(*n_pts)++] = n < 1.0 ? w * n : w;
}

/* The loaded points of run `r` (its n(t) histogram, or its one load), as
 * shares of the run's whole time: idle steps count in the total only. */
static int
add_load_points(fit_problem *pb, const wc_run *r, size_t *cap_pts)
{
	size_t n_pts = pb->off[pb->n_rows], len = r->series.len ? r->series.len : 1;
	if (n_pts + len > *cap_pts) {
		*cap_pts = 2 * (n_pts + len) + 64;
		if (grow((void **)&pb->ln_pt, *cap_pts, sizeof *pb->ln_pt) ||
		    grow((void **)&pb->w_pt, *cap_pts, sizeof *pb->w_pt))
			return -1;
	}
	if (r->series.len) {
		double total = 0.0;
		for (size_t j = 0; j < r->series.len; j++)
			total += r->series.weight[j];
		for (size_t j = 0; j < r->series.len; j++)
			if (!wc_load_is_idle(r->series.running[j]) && r->series.weight[j] > 0)
				add_point(pb, &n_pts, r->series.running[j], r->series.weight[j] / total);
	} else {
		add_point(pb, &n_pts, r->running, 1.0);
	}
	pb->off[pb->n_rows + 1] = n_pts;
	return 0;
}

typedef struct {
	int any_clock;
	size_t cap_pts;
	fit_runs_out out;
} row_tally;

/* Step 3: the per-row constants of one run, or a reason to leave it out
 * (counted in `tally`). Returns -1 only when memory runs out. */
static int
add_row(fit_problem *pb, const wc_params *prior, const wc_fit_options *opt, const wc_runs_table *t,
        size_t i, row_tally *tally)
{
	const wc_run *r = &t->runs[i];
	int L = level_index(pb, r->platform);
	int tw = row_term(pb, opt, WC_SETTING_WEIGHTS, r->weights, r->platform);
	int tk = row_term(pb, opt, WC_SETTING_KV, r->kv, r->platform);
	if (tw == -2 || tk == -2 || wc__fit_row_beyond_bounds(pb, L, r)) {
		wc__fit_out_count(&tally->out, L, tw == -2 || tk == -2 ? FIT_OUT_NO_TERM : FIT_OUT_BOUND, i, r);
		pb->n_excluded++;
		return 0;
	}
	double p0 = isfinite(r->idle_power_w) ? r->idle_power_w : pb->levels[L].p0.value, y;
	if (pb->levels[L].p0.source == WC_SRC_FITTED) {
		p0 = NAN;
		y = log(r->mean_power_w);
	} else {
		double dyn = r->mean_power_w - r->tp * p0;
		if (!(dyn > 0)) {
			wc__fit_out_count(&tally->out, L, FIT_OUT_LOW_POWER, i, r);
			pb->n_excluded++;
			return 0;
		}
		y = log(dyn);
	}
	size_t k = pb->n_rows;
	pb->row[k] = i;
	pb->lvl[k] = L;
	pb->G[k] = r->tp;
	pb->l_n[k] = wc_law_log_size(r->active_params_b, r->tp);
	const double clock = wc_law_clock_ratio(&pb->levels[L], pb->clock_ref_mhz, r->sm_clock_mhz);
	pb->l_f[k] = clock > 0 ? log(clock) : 0.0;
	tally->any_clock |= r->sm_clock_mhz > 0;
	pb->y[k] = y;
	pb->p0[k] = p0;
	pb->term_w[k] = tw;
	pb->term_kv[k] = tk;
	pb->mult[k] = 1.0;
	wc__fit_row_prefill(pb, prior, opt, r, k);
	wc__fit_law_terms_row(pb, r, k, opt->capacity ? opt->capacity : &prior->capacity);
	if (add_load_points(pb, r, &tally->cap_pts) != 0)
		return -1;
	pb->n_rows++;
	return 0;
}

static int
build_rows(fit_problem *pb, const wc_params *prior, const wc_runs_table *t, const wc_fit_options *opt,
           const unsigned char *in_fit, int *any_clock, wc_error *err)
{
	static const row_tally none;
	row_tally tally = none;
	size_t n = 0;
	for (size_t i = 0; i < t->n_runs; i++)
		n += in_fit[i];
	if (alloc_rows(pb, n))
		return wc_error_set(err, WC_ENOMEM, "fit: out of memory");
	pb->off[0] = 0;
	for (size_t i = 0; i < t->n_runs; i++)
		if (in_fit[i] && add_row(pb, prior, opt, t, i, &tally) != 0)
			return wc_error_set(err, WC_ENOMEM, "fit: out of memory");
	wc__fit_out_warn(pb, &tally.out);
	*any_clock = tally.any_clock;
	return wc__fit_levels_used(pb, t, &tally.out, err);
}

int
wc__fit_problem_build(const wc_runs_table *t, const wc_fit_options *opt, fit_problem **out,
                  wc_error *err)
{
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *prior = opt->prior;
	unsigned char *in_fit = NULL;
	int rc = WC_OK, any_clock = 0;
	*out = NULL;
	if (!prior) {
		wc_params_default(&paper);
		prior = &paper;
	}
	fit_problem *pb = calloc(1, sizeof *pb);
	in_fit = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, 1);
	if (!pb || !in_fit) {
		rc = wc_error_set(err, WC_ENOMEM, "fit: out of memory");
		goto done;
	}
	pb->form = opt->form;
	for (int k = 0; k < WC_LT_COUNT; k++)
		pb->p_lt[k] = -1;
	pb->clock_ref_mhz = prior->clock_ref_mhz > 0 ? prior->clock_ref_mhz : WC_LAW_REF_CLOCK_MHZ;
	pb->kappa_fixed = prior->kappa;
	if ((rc = select_rows(pb, t, opt, in_fit, err)) != WC_OK)
		goto done;
	apply_shares(pb, prior, opt);
	choose_p0(pb, t, prior, in_fit);
	for (int L = 0; L < pb->n_levels; L++)
		pb->p_max[L] = wc_level_power_limit_w(&pb->levels[L]);
	wc__fit_bounds_init(pb);
	if ((rc = build_rows(pb, prior, t, opt, in_fit, &any_clock, err)) != WC_OK)
		goto done;
	layout_and_start(pb, prior, any_clock);
	wc__fit_law_terms_layout(pb, t, opt, prior);
	/* A caller's start is in natural units (as the result's x). */
	if (opt->start && opt->start_len == (size_t)pb->n_params)
		for (int k = 0; k < pb->n_params; k++)
			pb->x0[k] = wc__fit_param_is_log(pb, k) ? log(opt->start[k]) : opt->start[k];
	wc__fit_bounds_hold_size_slope(pb);
	int why = pb->n_warnings - 1; /* the last "left out" warning: they die with the problem */
	while (why >= 0 && !strstr(pb->warnings[why], "left out of the fit"))
		why--;
	if (pb->n_rows < (size_t)pb->n_params)
		rc = wc_error_set(err, WC_EINVAL, "fit: %zu usable runs for %d parameters%s%s", pb->n_rows, pb->n_params,
		                  why >= 0 ? "; " : "", why >= 0 ? pb->warnings[why] : "");
done:
	free(in_fit);
	wc_params_clear(&paper);
	if (rc != WC_OK) {
		wc__fit_problem_free(pb);
		return rc;
	}
	*out = pb;
	return WC_OK;
}

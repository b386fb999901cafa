/*
 * Physical bounds of a saturating level (docs/fitting.md, "Physical
 * bounds"): P0 >= 0 (log coordinate), P0 + S within WC_LEVEL_LIMIT_FACTOR
 * times the board's power limit (per GPU, from the platform catalog;
 * WC_FIT_S_MAX_UNKNOWN_W when the catalog does not know the platform) and θ within [WC_FIT_THETA_MIN,
 * WC_FIT_THETA_MAX]. A level whose runs cannot separate S from θ runs off
 * along their ridge (S -> ∞, θ -> −∞) or saturates (θ -> ∞); the fit then
 * ends at the bound, holds the parameter there, refits the rest, and says
 * so: source "bound" in the file, a warning in every answer using it.
 */
#include "fit_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/evaluate.h"
#include "models/grow.h"
#include "models/law.h"

/* P0 of level L at x: fitted, else the level's. */
static double
level_p0(const fit_problem *pb, int L, const double *x)
{
	if (pb->p_p0[L] >= 0)
		return exp(x[pb->p_p0[L]]);
	return pb->levels[L].p0.value;
}

void
wc__fit_bounds_init(fit_problem *pb)
{
	for (int L = 0; L < pb->n_levels; L++)
		pb->s_max[L] = WC_LEVEL_LIMIT_FACTOR * (isfinite(pb->p_max[L]) ? pb->p_max[L] : WC_FIT_S_MAX_UNKNOWN_W);
}

/* The bound of S for level L at x, in W per GPU. */
static double
s_bound(const fit_problem *pb, int L, const double *x)
{
	double p0 = level_p0(pb, L, x);
	double room = pb->s_max[L] - (isfinite(p0) ? p0 : 0.0);
	/* A measured idle at or above the limit leaves no room: keep a sliver
	 * so the log stays finite (the rows are refused anyway). */
	return room > 1.0 ? room : 1.0;
}

static int
hold(fit_problem *pb, int k, double v, double *x)
{
	x[k] = v;
	if (pb->held[k])
		return 0;
	pb->held[k] = 1;
	pb->hold_value[k] = v;
	pb->n_held++;
	return 1;
}

int
wc__fit_bounds_hold_s(fit_problem *pb, double *x)
{
	int added = 0;
	if (!wc_form_has_scale(pb->form))
		return 0;
	for (int L = 0; L < pb->n_levels; L++) {
		int ks = pb->p_s[L];
		if (ks >= 0 && !pb->levels[L].s_shared_with[0] && !pb->held[ks]) {
			double b = log(s_bound(pb, L, x));
			if (!(x[ks] <= b))
				added += hold(pb, ks, b, x);
		}
	}
	return added;
}

int
wc__fit_bounds_apply(fit_problem *pb, double *x)
{
	if (!wc_form_has_scale(pb->form))
		return 0;
	/* S first: theta runs off only because S does, and comes back once S
	 * is held; theta's own bound is checked on the refit. */
	int added = wc__fit_bounds_hold_s(pb, x);
	for (int L = 0; L < pb->n_levels && !added; L++) {
		int kt = pb->p_theta[L];
		if (kt < 0 || pb->held[kt])
			continue;
		if (!(x[kt] >= WC_FIT_THETA_MIN))
			added += hold(pb, kt, WC_FIT_THETA_MIN, x);
		else if (x[kt] > WC_FIT_THETA_MAX)
			added += hold(pb, kt, WC_FIT_THETA_MAX, x);
	}
	return added;
}

void
wc__fit_bounds_hold_size_slope(fit_problem *pb)
{
	int k = pb->p_delta;
	if (k < 0 || pb->held[k])
		return;
	for (size_t i = 1; i < pb->n_rows; i++)
		for (size_t j = 0; j < i; j++)
			if (pb->lvl[j] == pb->lvl[i] && fabs(pb->l_n[j] - pb->l_n[i]) > 1e-9)
				return; /* two sizes on one level: delta is seen */
	hold(pb, k, pb->x0[k], pb->x0);
	pb->unidentified[k] = 1;
}

int
wc__fit_bounds_hold_dependent(fit_problem *pb, const unsigned char *dependent, double *x)
{
	int added = 0;
	for (int k = 0; k < pb->n_params; k++)
		if (dependent[k] && !pb->held[k]) {
			added += hold(pb, k, pb->x0[k], x);
			pb->unidentified[k] = 1;
		}
	return added;
}

/* Only S stays held in the resamples: S and theta run off together, and a
 * draw with S at the bound and theta free stays consistent. A theta held
 * at its bound varies in the resamples, its draws clipped to the range
 * (wc__fit_bounds_clip), so it keeps an interval. */
void
wc__fit_bounds_hold_from(fit_problem *pb, const wc_params *p)
{
	for (int k = 0; k < pb->n_params; k++) {
		char name[WC_LABEL_MAX];
		wc__fit_param_name(pb, k, name, sizeof name);
		const wc_param *q = wc_params_param_named(p, name);
		if (q && q->source == WC_SRC_ASSUMED && !pb->held[k]) {
			hold(pb, k, pb->x0[k], pb->x0);
			pb->unidentified[k] = 1;
		}
	}
	for (int L = 0; L < pb->n_levels; L++) {
		const wc_level *lv = wc_params_level(p, pb->levels[L].name);
		if (!lv)
			continue;
		int ks = pb->p_s[L];
		if (ks >= 0 && !pb->levels[L].s_shared_with[0] && lv->s.source == WC_SRC_BOUND && lv->s.value > 0)
			hold(pb, ks, log(lv->s.value), pb->x0);
	}
}

void
wc__fit_bounds_clip(const fit_problem *pb, double *x)
{
	if (!wc_form_has_scale(pb->form))
		return;
	for (int L = 0; L < pb->n_levels; L++) {
		int ks = pb->p_s[L], kt = pb->p_theta[L];
		if (ks >= 0 && !pb->levels[L].s_shared_with[0])
			x[ks] = fmin(x[ks], log(s_bound(pb, L, x)));
		if (kt >= 0)
			x[kt] = x[kt] < WC_FIT_THETA_MIN ? WC_FIT_THETA_MIN : x[kt] > WC_FIT_THETA_MAX ? WC_FIT_THETA_MAX : x[kt];
	}
}

void
wc__fit_bounds_describe(const fit_problem *pb, int k, const char *name, char *buf, size_t cap)
{
	int L = pb->slots[k].index;
	double v = wc__fit_param_is_log(pb, k) ? exp(pb->hold_value[k]) : pb->hold_value[k];
	if (pb->unidentified[k])
		snprintf(buf, cap, "%s is not identified by these runs (weakly identified at best: its effect is a "
		         "combination of the others'); held at %.4g, its starting value (the prior's where it has "
		         "one): source assumed, no interval (docs/fitting.md)", name, v);
	else if (pb->slots[k].kind == PK_LOG_S)
		snprintf(buf, cap, "%s ended at its physical bound %.1f W (P0 + S = %g x the board limit, %.0f W "
		         "per GPU) and is held there: these runs cannot separate S from theta[%s] (docs/fitting.md)",
		         name, exp(pb->hold_value[k]), WC_LEVEL_LIMIT_FACTOR, pb->s_max[L], pb->levels[L].name);
	else
		snprintf(buf, cap, "%s ended at its bound %g and is held there: beyond it the level is "
		         "saturated (or unsaturated) at every load these runs have (docs/fitting.md)",
		         name, pb->hold_value[k]);
}

/* Row k's load: its loaded points' weighted mean log running count;
 * NaN for a row with none (idle only). */
static double
row_log_load(const fit_problem *pb, size_t k)
{
	double sw = 0.0, s = 0.0;
	for (size_t i = pb->off[k]; i < pb->off[k + 1]; i++) {
		sw += pb->w_pt[i];
		s += pb->w_pt[i] * pb->ln_pt[i];
	}
	return sw > 0.0 ? s / sw : NAN;
}

/* A level's free parameters (S, theta, floor, P0 that the fit moves)
 * against the distinct loads its rows have: with no more loads than
 * parameters the curve passes through every run, the estimate says
 * nothing beyond them and a run resample cannot show it (one run gave
 * S[A100] "[309, 324] W"). `buf` gets the warning; 0 when supported. */
int
wc__fit_bounds_level_support(const fit_problem *pb, int L, char *buf, size_t cap)
{
	const int slot[4] = { pb->p_s[L], pb->p_theta[L], pb->p_floor[L], pb->p_p0[L] };
	int free_params = 0, rows = 0, loads = 0;
	for (int i = 0; i < 4; i++)
		free_params += slot[i] >= 0 && !pb->held[slot[i]];
	/* A row's load: the weighted mean of its loaded points' log running
	 * count (one point for a run at one load; l_n is the model's size),
	 * taken once per row of the level. */
	double *seen = wc_alloc_array(pb->n_rows ? pb->n_rows : 1, sizeof *seen);
	if (!seen)
		return 0; /* a diagnostic: no memory, no warning */
	for (size_t k = 0; k < pb->n_rows; k++) {
		if (pb->lvl[k] != L)
			continue;
		double lk = row_log_load(pb, k);
		int j = 0; /* a load counts once: two runs at one load fix one point */
		while (j < loads && !(fabs(seen[j] - lk) < 1e-9))
			j++;
		if (j == loads)
			seen[loads++] = lk;
		rows++;
	}
	free(seen);
	if (free_params == 0 || loads > free_params)
		return 0;
	snprintf(buf, cap, "level %s: %d run(s) at %d distinct load(s) for its %d free parameter(s): its curve in "
	         "load is fixed by those points alone, and its intervals describe resampling these runs, not the "
	         "level; give runs at more loads (docs/fitting.md)", pb->levels[L].name, rows, loads, free_params);
	return 1;
}

/* gamma1 <= 0: the load term falls where the law is anchored, and the
 * monotone rule (docs/inference-law.md, "Below one running request") holds power
 * flat where it would fall -- with no gamma2 to turn it up, flat at
 * every load, so a fit of PowerTrace-Sim's replays (gamma1 -0.125)
 * answered 354.7 W at 1, 8 and 64 requests with no word. */
int
wc__fit_bounds_load_slope(const fit_problem *pb, const double *x, char *buf, size_t cap)
{
	int k1 = pb->p_gamma1, k2 = pb->p_gamma2;
	if (k1 < 0 || pb->held[k1] || !(x[k1] <= 0.0))
		return 0;
	double g1 = x[k1], g2 = k2 >= 0 && !pb->held[k2] ? x[k2] : k2 >= 0 ? pb->hold_value[k2] : 0.0;
	/* Flat everywhere: no upturn (gamma2 <= 0) and the vertex of a
	 * concave term at or below n = 1. */
	int flat = !(g2 > 0.0) && (g2 == 0.0 || -g1 / (2.0 * g2) <= wc_law_log_load(1.0));
	if (flat)
		snprintf(buf, cap, "gamma1 %.4g <= 0: the fitted power does not grow with load, so by the monotone rule "
		         "predicted power is flat in load, its value at one request for any concurrency; check the "
		         "runs' running counts (docs/inference-law.md)", g1);
	else
		snprintf(buf, cap, "gamma1 %.4g <= 0: the fitted power falls with load around 32 requests, where the "
		         "monotone rule holds predicted power flat; check the runs' running counts "
		         "(docs/inference-law.md)", g1);
	return 1;
}

/*
 * The power response (docs/envelopes.md, "Power"): engine
 * activity added to a regular grid as exact integrals over each bin, the
 * hold of the busy level over the first part of an idle gap, and the
 * first-order response of the power to the target, solved exactly for a
 * target constant within each bin.
 */
#include "models/response.h"
#include "models/catalog.h"
#include "models/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void
wc_response_assumed(wc_response_params *out)
{
	memset(out, 0, sizeof *out);
	out->present = 1;
	out->fitted = 0;
	out->tau_s = (wc_response_value){ WC_RESPONSE_ASSUMED_TAU_S, NAN, NAN };
	out->hold_s = (wc_response_value){ WC_RESPONSE_ASSUMED_HOLD_S, NAN, NAN };
	out->prefill_ratio = (wc_response_value){ WC_RESPONSE_ASSUMED_PREFILL_RATIO, NAN, NAN };
	out->decay_s = (wc_response_value){ WC_RESPONSE_ASSUMED_DECAY_S, NAN, NAN };
	out->dynamic_scale = (wc_response_value){ 1.0, NAN, NAN };
	out->rms_w = NAN;
}

double
wc_response_dynamic_scale(const wc_response_params *p)
{
	double v = p ? p->dynamic_scale.value : NAN;
	return v > 0 && v <= WC_RESPONSE_MAX_DYNAMIC_SCALE ? v : 1.0;
}

void
wc_response_effective(const wc_response_params *p, wc_response_params *out)
{
	if (p && p->present)
		*out = *p;
	else
		wc_response_assumed(out);
}

static int
check_value(const wc_response_value *v, const char *key, double max, wc_error *err)
{
	if (!isfinite(v->value) || v->value < 0.0 || v->value > max)
		return wc_error_set(err, WC_EINVAL, "response/%s: must be a number between 0 and %g, got %s",
		                    key, max, WC_NUM_TEXT(v->value));
	if (isfinite(v->lo) != isfinite(v->hi) || (isfinite(v->lo) && v->lo > v->hi))
		return wc_error_set(err, WC_EINVAL, "response/%s: interval must be [lo, hi] with lo <= hi", key);
	return WC_OK;
}

int
wc_response_validate(const wc_response_params *p, wc_error *err)
{
	int rc;
	if (!p->present)
		return WC_OK;
	if ((rc = check_value(&p->tau_s, "tau_s", WC_RESPONSE_MAX_TAU_S, err)) ||
	    (rc = check_value(&p->hold_s, "hold_s", WC_RESPONSE_MAX_HOLD_S, err)) ||
	    (rc = check_value(&p->decay_s, "decay_s", WC_RESPONSE_MAX_DECAY_S, err)) ||
	    (rc = check_value(&p->prefill_ratio, "prefill_ratio", WC_RESPONSE_MAX_PREFILL_RATIO, err)) ||
	    (p->dynamic_scale.value != 0.0 &&
	     (rc = check_value(&p->dynamic_scale, "dynamic_scale", WC_RESPONSE_MAX_DYNAMIC_SCALE, err))))
		return rc;
	if (p->runs < 0)
		return wc_error_set(err, WC_EINVAL, "response/runs: must be >= 0");
	if (p->n_levels < 0 || p->n_levels > WC_RESPONSE_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "response/levels: at most %d", WC_RESPONSE_MAX_LEVELS);
	for (int i = 0; i < p->n_levels; i++) {
		char key[64];
		snprintf(key, sizeof key, "levels/%d/tau_s", i);
		if ((rc = check_value(&p->levels[i].tau_s, key, WC_RESPONSE_MAX_TAU_S, err)))
			return rc;
		if (!p->levels[i].level[0])
			return wc_error_set(err, WC_EINVAL, "response/levels/%d/level: empty", i);
		for (int j = 0; j < i; j++)
			if (strcasecmp(p->levels[j].level, p->levels[i].level) == 0)
				return wc_error_set(err, WC_EINVAL, "response/levels/%d/level: duplicate '%s'", i,
				                    p->levels[i].level);
	}
	return WC_OK;
}

int
wc_response_validate_levels(const wc_response_params *p, const struct wc_params *set, wc_error *err)
{
	if (!p->present)
		return WC_OK;
	/* A level matching neither is a typo ("A-100"): every envelope of the
	 * platform meant would fall back to the shared tau without a word. */
	for (int i = 0; i < p->n_levels; i++)
		if (!wc_params_level(set, p->levels[i].level) && !wc_platform_lookup(p->levels[i].level))
			return wc_error_set(err, WC_EINVAL, "response/levels/%d/level: '%s' is no level of the file "
			                    "and no platform the catalog knows", i, p->levels[i].level);
	return WC_OK;
}

/* A fitted value this close to its upper bound is the bound's (the fit
 * clamps there, fit/response.c). */
#define AT_BOUND(v, max) (isfinite(v) && (v) >= (max) * (1.0 - 1e-9))

static void
note_bound(char *buf, size_t cap, int *n, const char *name, double max, const char *unit)
{
	size_t len = strlen(buf);
	if (len < cap)
		snprintf(buf + len, cap - len, "%s%s %g%s", *n ? ", " : "", name, max, unit);
	(*n)++;
}

int
wc_response_bound_note(const wc_response_params *p, char *buf, size_t cap)
{
	int n = 0;
	if (!cap)
		return 0;
	buf[0] = '\0';
	if (!p->present || !p->fitted)
		return 0;
	if (AT_BOUND(p->tau_s.value, WC_RESPONSE_MAX_TAU_S))
		note_bound(buf, cap, &n, "tau_s", WC_RESPONSE_MAX_TAU_S, " s");
	if (AT_BOUND(p->hold_s.value, WC_RESPONSE_MAX_HOLD_S))
		note_bound(buf, cap, &n, "hold_s", WC_RESPONSE_MAX_HOLD_S, " s");
	if (AT_BOUND(p->decay_s.value, WC_RESPONSE_MAX_DECAY_S))
		note_bound(buf, cap, &n, "decay_s", WC_RESPONSE_MAX_DECAY_S, " s");
	if (AT_BOUND(p->prefill_ratio.value, WC_RESPONSE_MAX_PREFILL_RATIO))
		note_bound(buf, cap, &n, "prefill_ratio", WC_RESPONSE_MAX_PREFILL_RATIO, "");
	if (AT_BOUND(p->dynamic_scale.value, WC_RESPONSE_MAX_DYNAMIC_SCALE))
		note_bound(buf, cap, &n, "dynamic_scale", WC_RESPONSE_MAX_DYNAMIC_SCALE, "");
	for (int i = 0; i < p->n_levels; i++)
		if (AT_BOUND(p->levels[i].tau_s.value, WC_RESPONSE_MAX_TAU_S)) {
			char name[WC_RESPONSE_NAME_MAX + 16];
			snprintf(name, sizeof name, "tau_s[%s]", p->levels[i].level);
			note_bound(buf, cap, &n, name, WC_RESPONSE_MAX_TAU_S, " s");
		}
	if (n) {
		size_t len = strlen(buf);
		if (len < cap)
			snprintf(buf + len, cap - len,
			         ": ended at %s upper bound, so the runs do not bound %s from above and the value "
			         "is the bound's, not the data's (docs/envelopes.md, \"Fitting the response\")",
			         n > 1 ? "their" : "its", n > 1 ? "them" : "it");
	}
	return n;
}

double
wc_response_tau_for(const wc_response_params *p, const char *level)
{
	for (int i = 0; level && i < p->n_levels; i++)
		if (strcasecmp(p->levels[i].level, level) == 0)
			return p->levels[i].tau_s.value;
	/* a level named by a catalog alias of the board (the loader takes
	 * catalog names, docs/formats/params-file.md) */
	const wc_platform_info *hw = level ? wc_platform_lookup(level) : NULL;
	for (int i = 0; hw && i < p->n_levels; i++)
		if (wc_platform_lookup(p->levels[i].level) == hw)
			return p->levels[i].tau_s.value;
	return p->tau_s.value;
}

/* ---------------------------------------------------------------- grid */

void
wc_response_state_init(wc_response_state *s, double idle_w, double prefill_w, double hold_s)
{
	s->idle_w = idle_w;
	s->prefill_w = prefill_w;
	s->hold_s = hold_s;
	s->decay_s = 0.0;
	s->t_last = 0.0;
	s->held_w = 0.0;
	s->level_w = 0.0;
	s->count_from = 0.0;
	s->count_to = INFINITY;
	s->held_time_s = s->held_energy_ws = 0.0;
}

void
wc_response_state_count(wc_response_state *s, double from, double to)
{
	s->count_from = from;
	s->count_to = to;
}

void
wc_response_state_decay(wc_response_state *s, double decay_s)
{
	s->decay_s = isfinite(decay_s) && decay_s > 0.0 ? decay_s : 0.0;
}

void
wc_response_state_level(wc_response_state *s, double level_w)
{
	s->level_w = isfinite(level_w) && level_w > 0.0 ? level_w : 0.0;
}

/* Greedy in time order, each bin cut to what keeps every window holding
 * it within budget, counting the bins after it at min(target, limit):
 * a bin at most the limit is kept as it is, and a burst above it spends
 * only the slack of quieter bins in the same windows, before or after it.
 * Spending the earlier bins' slack alone (the first rule) starved the
 * bins after a burst to 0 W and made a saturated server a 1-s sawtooth.
 * Every bin keeps at least min(target, limit): earlier bursts were
 * admitted counting it there. Bins outside the grid count as idle.
 *
 * With D the slack of a bin before k (limit - its limited power), E that
 * of a bin after k (limit - min(target, limit)), and PD, PE their running
 * sums (PD[x] = sum of D below x), the window ending at e in [k, k+w-1]
 * leaves PD[k] - PE[k+1] + H[e], H[e] = PE[e+1] - PD[e-w+1]: the least
 * over the w windows is a sliding minimum of H, kept in a monotone deque
 * (O(1) a bin). */
#define LIMIT_MAX_WINDOW 64 /* bins; a power of two: ring indices are masks */
#define LIMIT_MASK (LIMIT_MAX_WINDOW - 1)

typedef struct {
	size_t head, n;
	size_t e[LIMIT_MAX_WINDOW];
	double h[LIMIT_MAX_WINDOW];
} limit_deque;

/* The window ending at bin e enters: PE runs on to PE[e + 1] (kept in
 * pe_at), and H[e] = PE[e + 1] - PD[e - w + 1] goes in at the deque's
 * back, dropping the entries it undercuts. */
static inline void
limit_enter(limit_deque *q, double *pe_at, double *pe, const double *target, size_t len, double limit_w, size_t e,
            double pd_first)
{
	double t = e < len ? target[e] : 0.0;
	*pe += t < limit_w ? limit_w - t : 0.0;
	pe_at[e & LIMIT_MASK] = *pe;
	double h = *pe - pd_first;
	while (q->n && q->h[(q->head + q->n - 1) & LIMIT_MASK] >= h)
		q->n--;
	q->e[(q->head + q->n) & LIMIT_MASK] = e;
	q->h[(q->head + q->n) & LIMIT_MASK] = h;
	q->n++;
}

void
wc_response_limit(double *target, size_t len, double dt, double window_s, double limit_w)
{
	size_t first = 0; /* nothing to do before the first bin over the limit */
	while (first < len && !(target[first] > limit_w))
		first++;
	if (!isfinite(limit_w) || first == len)
		return;
	double wf = round(window_s / dt);
	size_t w = wf >= 1.0 ? (size_t)wf : 1;
	if (w > LIMIT_MAX_WINDOW)
		w = LIMIT_MAX_WINDOW; /* the envelope's is 20 bins (1 s of 50 ms) */
	limit_deque q = { 0, 0, { 0 }, { 0 } };
	double pe_at[LIMIT_MAX_WINDOW]; /* pe_at[e & LIMIT_MASK] = PE[e + 1] */
	double pe = 0.0, none = 1e-12 * limit_w;
	/* the windows ending at e = 0 .. w - 2 enter before the first step
	 * (their first bins lie before the grid, idle: PD[e - w + 1] = e x
	 * limit, PD counted from bin 1 - w) */
	for (size_t e = 0; e + 1 < w; e++)
		limit_enter(&q, pe_at, &pe, target, len, limit_w, e, (double)e * limit_w);
	double pd = (double)(w - 1) * limit_w; /* PD[k] */
	for (size_t k = 0; k < len; k++) {
		if (q.n && q.e[q.head] < k) { /* the window ending before k leaves */
			q.head = (q.head + 1) & LIMIT_MASK;
			q.n--;
		}
		limit_enter(&q, pe_at, &pe, target, len, limit_w, k + w - 1, pd); /* the window ending w - 1 bins on */
		if (target[k] > limit_w) {
			double slack = pd - pe_at[k & LIMIT_MASK] + q.h[q.head];
			/* what is left of the running sums' rounding counts as none */
			double room = limit_w + (slack > none ? slack : 0.0);
			if (target[k] > room)
				target[k] = room;
		}
		pd += limit_w - target[k];
	}
}

/* The bin where [a, b) starts, a clamped to the grid's start; 0 when the
 * span is empty or starts beyond the grid. */
static int
first_bin(const wc_response_grid *g, double *a, double b, size_t *k)
{
	if (*a < 0.0)
		*a = 0.0;
	if (!(b > *a))
		return 0;
	double kf = floor(*a / g->dt);
	if (!(kf < (double)g->len))
		return 0;
	*k = (size_t)kf;
	return 1;
}

/* Add a constant level over [a, b): exact overlaps with each bin. */
static void
add_span(const wc_response_grid *g, double a, double b, double power_w, double running,
         double prefill_frac)
{
	const double dt = g->dt;
	size_t k;
	if (!first_bin(g, &a, b, &k))
		return;
	if (b <= (double)(k + 1) * dt && a >= (double)k * dt) {
		/* Within one bin: the common case. */
		double o = b - a;
		g->power[k] += power_w * o;
		if (g->running)
			g->running[k] += running * o;
		if (g->prefill && prefill_frac > 0.0)
			g->prefill[k] += prefill_frac * o;
		return;
	}
	/* a/dt can round down across a bin edge: step forward if so. */
	if ((double)(k + 1) * dt <= a)
		k++;
	for (; k < g->len; k++) {
		double lo = (double)k * dt, hi = (double)(k + 1) * dt;
		double o = (b < hi ? b : hi) - (a > lo ? a : lo);
		if (o > 0.0) {
			g->power[k] += power_w * o;
			if (g->running)
				g->running[k] += running * o;
			if (g->prefill && prefill_frac > 0.0)
				g->prefill[k] += prefill_frac * o;
		}
		if (b <= hi)
			break;
	}
}

/* Decay longer than this many time constants adds less than e^-30 of the
 * level: not added. */
#define DECAY_SPAN 30.0

/* w0 exp(-(t - t0) / d) over [a, b) (a >= t0): exact integrals over each
 * bin, w0 d (e^(-(lo - t0)/d) - e^(-(hi - t0)/d)). */
static void
add_decay(const wc_response_grid *g, double t0, double a, double b, double w0, double d)
{
	const double dt = g->dt;
	size_t k;
	if (!first_bin(g, &a, b, &k))
		return;
	double prev = exp(-(a - t0) / d);
	for (; k < g->len; k++) {
		double hi = (double)(k + 1) * dt;
		if (hi <= a)
			continue; /* a/dt rounded down across a bin edge */
		double end = b < hi ? b : hi, next = exp(-(end - t0) / d);
		g->power[k] += w0 * d * (prev - next);
		prev = next;
		if (b <= hi)
			break;
	}
}

/* The hold over the gap [s->t_last, until), then the decay. */
static void
add_hold(const wc_response_grid *g, wc_response_state *s, double until)
{
	if (s->held_w == 0.0 || !(until > s->t_last))
		return;
	double end = s->t_last + s->hold_s;
	/* the held and decaying time is idle to the engine but not to the
	 * power: `loaded` counts it (as a power of 1 over that time) */
	const wc_response_grid kept = { g->dt, g->len, g->loaded, NULL, NULL, NULL };
	if (s->hold_s > 0.0) {
		const double stop = until < end ? until : end;
		add_span(g, s->t_last, stop, s->held_w, 0.0, 0.0);
		if (g->loaded)
			add_span(&kept, s->t_last, stop, 1.0, 0.0, 0.0);
		const double a = fmax(s->t_last, s->count_from), b = fmin(stop, s->count_to);
		if (b > a) {
			s->held_time_s += b - a;
			s->held_energy_ws += s->held_w * (b - a);
		}
	}
	if (s->decay_s > 0.0 && until > end) {
		double stop = end + DECAY_SPAN * s->decay_s;
		add_decay(g, end, end, until < stop ? until : stop, s->held_w, s->decay_s);
		if (g->loaded)
			add_span(&kept, end, until < stop ? until : stop, 1.0, 0.0, 0.0);
	}
}

void
wc_response_add(const wc_response_grid *g, wc_response_state *s, double t0, double t1,
                double running, double dynamic_w, double prefill_frac)
{
	if (!(t1 > t0))
		return;
	if (t0 > s->t_last)
		add_hold(g, s, t0);
	double inc = s->level_w > 0.0 ? fmax(0.0, s->level_w - dynamic_w) : s->prefill_w;
	add_span(g, t0, t1, dynamic_w + prefill_frac * inc, running, prefill_frac);
	if (g->loaded) { /* the segment's own span, not its bins' mean count */
		const wc_response_grid busy = { g->dt, g->len, g->loaded, NULL, NULL, NULL };
		add_span(&busy, t0, t1, wc_load_busy_share(running), 0.0, 0.0);
	}
	s->t_last = t1;
	s->held_w = dynamic_w;
}

void
wc_response_finish(const wc_response_grid *g, wc_response_state *s, double t_end)
{
	add_hold(g, s, t_end);
	s->held_w = 0.0;
	const double idle = s->idle_w * g->dt;
	for (size_t k = 0; k < g->len; k++)
		g->power[k] += idle;
}

double
wc_response_filter(const double *target, size_t len, double dt, double tau, double y0,
                   double *out)
{
	double y = y0;
	if (!(tau > 0.0)) {
		for (size_t k = 0; k < len; k++)
			y = out[k] = target[k];
		return y;
	}
	/* y' = (x - y)/tau with x constant over the bin: y(t) = x + (y0 - x)e^(-t/tau);
	 * its mean over the bin is x + (y0 - x)(tau/dt)(1 - e^(-dt/tau)). */
	const double a = exp(-dt / tau), m = (tau / dt) * (1.0 - a);
	for (size_t k = 0; k < len; k++) {
		double x = target[k];
		out[k] = x + (y - x) * m;
		y = x + (y - x) * a;
	}
	return y;
}

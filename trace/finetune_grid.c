/*
 * A fine-tuning trace on a uniform grid (docs/finetune.md, "Measuring
 * energy per step"): exact bin means at the median sampling interval,
 * the trace's power states (trace/levels.h) and the pause threshold
 * between its training level and the state below, and the stretches
 * that are not training -- near-idle pauses (checkpoint saves) and
 * stretches of intermediate power (evaluation, warm-up, long stalls) --
 * marked bin by bin.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/stats.h"
#include "trace/levels.h"
#include "trace/metrics.h"

/* A compute state holding less than this share of the 1 s means is a
 * spike, not the training level. */
#define COMPUTE_MIN_SHARE 0.01

/* Levels (trace/levels.h): the states of the trace's bins (states held
 * for at least WC_FT_PAUSE_MIN_S in all). The
 * training level is the highest state holding at least
 * COMPUTE_MIN_SHARE of the time, the low level the lowest state (idle, or
 * the saves' I/O level in a log without idle), and the pause threshold
 * theta lies halfway between the two. States, unlike percentiles, do not
 * depend on how much of the time each one fills: with a save after every
 * step the saves fill most of the trace, and percentiles took the save
 * level for both the low and the training level. Theta stays below the
 * states in between -- a step's own lighter phase (data loading, the
 * optimizer update) is training, not a pause. */
static int
levels(ft_grid *g, wc_error *err)
{
	wc_power_levels lv;
	size_t min_count = (size_t)ceil(WC_FT_PAUSE_MIN_S / g->dt - 1e-9), m = 0;
	/* Not the bins of a gap: the straight line across a 1200-s gap from
	 * training power down to the next session's loading filled the space
	 * between the states with evenly spread values, so no two were apart
	 * and the trace was one state -- flat, all of it training, no save
	 * found (+33 % energy per step; docs/finetune.md, "Window"). */
	double *v = wc_alloc_array(g->nb, sizeof *v);
	if (!v)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", g->nb);
	for (size_t k = 0; k < g->nb; k++)
		if (g->mark[k] != FT_GAP)
			v[m++] = g->x[k];
	int rc = wc_trace_power_levels(v, m, min_count > 0 ? min_count : 1, &lv, err);
	free(v);
	if (rc != WC_OK)
		return rc;
	int top = lv.n - 1;
	while (top > 0 && lv.share[top] < COMPUTE_MIN_SHARE)
		top--;
	g->idle_w = lv.level[0];
	g->train_w = lv.level[top];
	g->theta = 0.5 * (lv.level[0] + lv.level[top]);
	/* Less than a fifth of the training level between the two: no pause
	 * can be told from a step. */
	g->flat = top == 0 || !(g->train_w - g->idle_w >= 0.2 * g->train_w);
	return WC_OK;
}

/* The bins of the power log's gaps (data/nvsmi_gaps.c holds the rule:
 * docs/formats/telemetry.md, "Time gaps"): those whose centre lies in a
 * gap, as wc__ft_mark_interval takes an interval. */
static void
mark_gaps(ft_grid *g, const double *gaps, size_t n_gaps)
{
	for (size_t j = 0; gaps && j < n_gaps; j++)
		for (size_t k = wc__ft_bin(g, gaps[2 * j]); k < wc__ft_bin(g, gaps[2 * j + 1]) && k < g->nb; k++)
			g->mark[k] = FT_GAP;
}

int
wc__ft_grid_build(ft_grid *g, const double *t, const double *p, size_t n, const double *gaps, size_t n_gaps,
                  wc_error *err)
{
	memset(g, 0, sizeof *g);
	g->t = t;
	g->p = p;
	g->n = n;
	if (n < 2) /* no interval to take the median of (n - 1 would wrap at 0) */
		return wc_error_set(err, WC_EINVAL, "trace: %zu power sample%s, at least 2 needed", n,
		                    n == 1 ? "" : "s");
	double *d = wc_alloc_array(n - 1, sizeof *d);
	if (!d)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = t[i + 1] - t[i];
	g->dt = wc_stats_median(d, n - 1);
	free(d);
	if (!(g->dt > 0))
		return wc_error_set(err, WC_EINVAL, "trace: samples share their timestamps");
	g->t0 = t[0];
	g->nb = wc_stats_bin_means(t, p, n, g->dt, NULL, 0);
	if (g->nb < 8)
		return wc_error_set(err, WC_EINVAL, "trace: too short (%zu bins of %.3f s)", g->nb, g->dt);
	g->x = wc_alloc_array(g->nb, sizeof *g->x);
	g->mark = wc_alloc_zeroed(g->nb, 1);
	if (!g->x || !g->mark)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory (%zu bins)", g->nb);
	wc_stats_bin_means(t, p, n, g->dt, g->x, g->nb);
	g->k0 = 0;
	g->k1 = g->nb;
	mark_gaps(g, gaps, n_gaps);
	return levels(g, err);
}

void
wc__ft_grid_free(ft_grid *g)
{
	free(g->x);
	free(g->mark);
	memset(g, 0, sizeof *g);
}

size_t
wc__ft_bin(const ft_grid *g, double t)
{
	double k = floor((t - g->t0) / g->dt + 0.5);
	return k <= 0 ? 0 : k >= (double)g->nb ? g->nb : (size_t)k;
}

void
wc__ft_window_from_trace(ft_grid *g)
{
	size_t a = 0, b = g->nb;
	/* the line across a gap is no power above theta */
	if (!g->flat) {
		while (a < g->nb && !(g->x[a] > g->theta && g->mark[a] != FT_GAP))
			a++;
		while (b > a && !(g->x[b - 1] > g->theta && g->mark[b - 1] != FT_GAP))
			b--;
	}
	g->k0 = a;
	g->k1 = b;
	wc__ft_mark_window(g);
}

void
wc__ft_mark_window(ft_grid *g)
{
	for (size_t k = 0; k < g->nb; k++)
		g->mark[k] = k < g->k0 || k >= g->k1 ? FT_OUTSIDE : g->mark[k] == FT_GAP ? FT_GAP : FT_ACTIVE;
}

void
wc__ft_mark_interval(ft_grid *g, double a, double b, unsigned char what)
{
	for (size_t k = wc__ft_bin(g, a); k < wc__ft_bin(g, b) && k < g->nb; k++)
		if (g->mark[k] == FT_ACTIVE)
			g->mark[k] = what;
}

int
wc__ft_mark_saves(ft_grid *g, double min_s)
{
	/* Spikes of at most 0.5 s inside a save do not end it: 0.5 s of
	 * bins, and at least two, as the bin means of the line through the
	 * samples spread one reading over two bins (a one-reading blip at
	 * 0.5-s sampling split every save). With samples further apart than
	 * 0.5 s none is so short: bridging two bins whatever their length
	 * swallowed 1-s samples of 1.3-s steps into the saves beside them (5
	 * steps counted for 40, docs/finetune.md). */
	size_t bridge = g->dt > 0.5 + 1e-9 ? 0 : (size_t)fmax(2.0, ceil(0.5 / g->dt - 1e-9)), count = 0;
	size_t need = (size_t)ceil(min_s / g->dt - 1e-9);
	if (g->flat)
		return 0;
	size_t k = g->k0;
	while (k < g->k1) {
		if (g->mark[k] != FT_ACTIVE || g->x[k] > g->theta) {
			k++;
			continue;
		}
		size_t a = k, b = k, gap = 0;
		for (size_t j = k; j < g->k1 && g->mark[j] == FT_ACTIVE; j++) {
			if (g->x[j] <= g->theta) {
				b = j + 1;
				gap = 0;
			} else if (++gap > bridge) {
				break;
			}
		}
		if (b - a >= need) {
			memset(g->mark + a, FT_SAVE, b - a);
			/* Next to a gap of the power log it is the job's stop or
			 * restart (a requeued job loading its model again), left
			 * out but no save: the trainer state's saves are weighed
			 * against the count (docs/finetune.md, "Window"). */
			count += !((a > g->k0 && g->mark[a - 1] == FT_GAP) || (b < g->k1 && g->mark[b] == FT_GAP));
		}
		k = b;
	}
	return (int)count;
}

/* The first sample after time `a` (the last one when none is). */
static size_t
first_after(const ft_grid *g, double a)
{
	size_t lo = 0, hi = g->n - 1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->t[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double
wc__ft_energy_between(const ft_grid *g, double a, double b)
{
	const double *t = g->t, *p = g->p;
	size_t n = g->n;
	if (!(b > a) || n < 2)
		return 0.0;
	a = fmax(a, t[0]);
	b = fmin(b, t[n - 1]);
	if (!(b > a))
		return 0.0;
	size_t lo = first_after(g, a);
	double e = 0.0, tp = a;
	double pp = p[lo - 1] + (p[lo] - p[lo - 1]) * (a - t[lo - 1]) / (t[lo] - t[lo - 1]);
	for (size_t i = lo; i < n && tp < b; i++) {
		double tn = fmin(t[i], b);
		double pn = tn == t[i] ? p[i] : p[i - 1] + (p[i] - p[i - 1]) * (tn - t[i - 1]) / (t[i] - t[i - 1]);
		e += 0.5 * (pp + pn) * (tn - tp);
		tp = tn;
		pp = pn;
	}
	return e;
}

int
wc__ft_next_run(const ft_grid *g, unsigned char m, size_t *k, size_t *a)
{
	while (*k < g->k1 && g->mark[*k] != m)
		(*k)++;
	*a = *k;
	while (*k < g->k1 && g->mark[*k] == m)
		(*k)++;
	return *k > *a;
}

/* Where a near-idle pause's edge at bin k lies in the raw readings: the
 * pause ends at bin k (`rising`, training after it) or starts there
 * (training before it). Between the last reading above theta and the
 * first at or below it (searched from a reading before bin k - 1 to one
 * after bin k + 1) the level changed at a time no reading shows, as
 * likely anywhere between the two: half the interval is the pause's, at
 * its level, the other half the step's, at the reading on its side.
 * `*outer` receives the midpoint, `*inner` the pause's reading; 0 when
 * the readings there do not cross theta once. */
static int
pause_edge(const ft_grid *g, size_t k, int rising, double *outer, double *inner)
{
	size_t i0 = first_after(g, g->t0 + ((double)k - 1.0) * g->dt), i1 = first_after(g, g->t0 + (double)(k + 1) * g->dt);
	i0 -= i0 > 0;
	size_t i = rising ? i0 : i1;
	/* rising: the first reading above theta, all before it at or below;
	 * falling: the last one, all after it at or below */
	while (!(g->p[i] > g->theta) && (rising ? i < i1 : i > i0))
		i += rising ? 1 : (size_t)-1;
	if (!(g->p[i] > g->theta) || i == (rising ? i0 : i1))
		return 0;
	size_t pause = rising ? i - 1 : i + 1;
	*outer = 0.5 * (g->t[i] + g->t[pause]);
	*inner = g->t[pause];
	return 1;
}

void
wc__ft_stretch(const ft_grid *g, size_t a, size_t b, double *scratch, double *time_s, double *energy_j)
{
	size_t lo = b - a >= 3 ? a + 1 : a, hi = b - a >= 3 ? b - 1 : b, m = 0;
	for (size_t k = lo; k < hi; k++)
		scratch[m++] = g->x[k];
	double level = wc_stats_median(scratch, m);
	double from = g->t0 + (double)a * g->dt, to = g->t0 + (double)b * g->dt;
	double in_from = g->t0 + (double)lo * g->dt, in_to = g->t0 + (double)hi * g->dt;
	/* a near-idle pause beside a step: its edges where the readings cross */
	if (g->mark[a] == FT_SAVE && a > g->k0 && g->mark[a - 1] == FT_ACTIVE && lo > a)
		pause_edge(g, a, 0, &from, &in_from);
	if (g->mark[a] == FT_SAVE && b < g->k1 && g->mark[b] == FT_ACTIVE && lo > a)
		pause_edge(g, b, 1, &to, &in_to);
	*time_s = to - from;
	if (lo == a || !(in_to > in_from))
		*energy_j = level * *time_s;
	else
		*energy_j = level * (in_from - from) + wc__ft_energy_between(g, in_from, in_to) + level * (to - in_to);
}

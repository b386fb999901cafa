/*
 * Intermediate-power stretches of a fine-tuning trace -- evaluations,
 * warm-up, long stalls (docs/finetune.md, "What is not training"): where
 * the active bins' rolling mean stays a quarter of the way below the
 * training level, where no bin of a window of steps reaches it, or where
 * a window does not swing as the steps do.
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean of the active bins within `h` bins of each bin (NaN with fewer
 * than h active bins around it). */
static void
rolling_mean(const ft_grid *g, size_t h, double *m, double *sum, size_t *cnt)
{
	sum[0] = 0.0;
	cnt[0] = 0;
	for (size_t k = 0; k < g->nb; k++) {
		int on = g->mark[k] == FT_ACTIVE;
		sum[k + 1] = sum[k] + (on ? g->x[k] : 0.0);
		cnt[k + 1] = cnt[k] + (size_t)on;
	}
	for (size_t k = 0; k < g->nb; k++) {
		size_t a = k > h ? k - h : 0, b = k + h + 1 < g->nb ? k + h + 1 : g->nb;
		size_t c = cnt[b] - cnt[a];
		m[k] = c >= h ? (sum[b] - sum[a]) / (double)c : NAN;
	}
}

/* The typical smoothed training level: the median over the active bins. */
static double
reference_level(const ft_grid *g, const double *m, double *scratch)
{
	size_t len = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		if (g->mark[k] == FT_ACTIVE && isfinite(m[k]))
			scratch[len++] = m[k];
	return wc_stats_median(scratch, len);
}

/* The edges of an intermediate stretch [*a, *b): where the rolling mean
 * crosses halfway between the stretch's own level (the median of its
 * bins) and the training level `ref` -- a window centred on a change of
 * level holds half of each. The quarter-way threshold that finds the
 * stretch holds only where the window lies almost wholly inside it when
 * the stretch draws nearly that much: evaluations at 77 % of the
 * training power were found up to half a window short on each side, and
 * the rest, charged to the steps, recurred once per evaluation and set
 * the step period (docs/finetune.md, "What is not training"). Each edge
 * moves out by at most the window's half (`h` bins), over active bins. */
static void
stretch_edges(const ft_grid *g, const double *m, double ref, size_t h, size_t *a, size_t *b, double *scratch)
{
	size_t n = 0;
	for (size_t k = *a; k < *b; k++)
		scratch[n++] = g->x[k];
	double mid = 0.5 * (wc_stats_median(scratch, n) + ref);
	for (size_t j = 0; j < h && *a > g->k0 && g->mark[*a - 1] == FT_ACTIVE && m[*a - 1] < mid; j++)
		(*a)--;
	for (size_t j = 0; j < h && *b < g->k1 && g->mark[*b] == FT_ACTIVE && m[*b] < mid; j++)
		(*b)++;
}

/* Max of the active bins within `h` bins of each bin, times `sign` (-1:
 * minus their min; NaN with fewer than h active bins around it), in blocks of 2h + 1 bins (a prefix and a
 * suffix max per block: a whole window spans at most two blocks); `pre`
 * and `suf` are scratch of g->nb, `cnt` of g->nb + 1. */
static void
rolling_max(const ft_grid *g, size_t h, double sign, double *mx, double *pre, double *suf, size_t *cnt)
{
	size_t w = 2 * h + 1;
	cnt[0] = 0;
	for (size_t k = 0; k < g->nb; k++) {
		int on = g->mark[k] == FT_ACTIVE;
		double v = on ? sign * g->x[k] : -INFINITY;
		cnt[k + 1] = cnt[k] + (size_t)on;
		pre[k] = k % w == 0 ? v : fmax(pre[k - 1], v);
	}
	for (size_t k = g->nb; k-- > 0;) {
		double v = g->mark[k] == FT_ACTIVE ? sign * g->x[k] : -INFINITY;
		suf[k] = k + 1 == g->nb || (k + 1) % w == 0 ? v : fmax(suf[k + 1], v);
	}
	for (size_t k = 0; k < g->nb; k++) {
		size_t a = k > h ? k - h : 0, b = k + h + 1 < g->nb ? k + h + 1 : g->nb;
		double top = -INFINITY;
		if (a / w != (b - 1) / w || a % w == 0)
			top = fmax(suf[a], pre[b - 1]);
		else /* a clipped window inside one block */
			for (size_t j = a; j < b; j++)
				top = g->mark[j] == FT_ACTIVE ? fmax(top, sign * g->x[j]) : top;
		mx[k] = cnt[b] - cnt[a] >= h ? top : NAN;
	}
}

/* Clearly not training: a quarter of the way from a training level `ref`
 * down to the low level. */
static double
below_training(const ft_grid *g, double ref)
{
	return ref - 0.25 * (ref - g->idle_w);
}

/* Every step reaches its compute level, however it dips between (data
 * loading, the optimizer, a stall): a stretch where no active bin within
 * the window of each reaches below_training() of the level the windows'
 * maxima typically reach holds no step. The rolling mean does not see it when the steps' dips pull
 * their mean down to the stretch's level: evaluations at two thirds of
 * the training power among steps with a dip each were charged to the steps
 * (docs/finetune.md, "What is not training"). Its edges move out over the
 * active bins that do not reach the threshold either, by at most `h`: the
 * window's half that kept the max above it. Returns how many. */
static int
mark_no_step(ft_grid *g, size_t h, size_t need, double *mx, double *pre, double *suf, size_t *cnt)
{
	int count = 0;
	rolling_max(g, h, 1.0, mx, pre, suf, cnt);
	/* the level the steps reach, as the rolling mean's: the median over
	 * the active bins (1-s means of 2-s steps never reach the trace's top
	 * state, only its mean) */
	double thr = below_training(g, reference_level(g, mx, pre));
	for (size_t k = g->k0; k < g->k1;) {
		size_t a = k;
		while (k < g->k1 && g->mark[k] == FT_ACTIVE && mx[k] < thr)
			k++;
		if (k - a >= need && k > a) {
			for (size_t j = 0; j < h && a > g->k0 && g->mark[a - 1] == FT_ACTIVE && g->x[a - 1] < thr; j++)
				a--;
			for (size_t j = 0; j < h && k < g->k1 && g->mark[k] == FT_ACTIVE && g->x[k] < thr; j++)
				k++;
			memset(g->mark + a, FT_MIDLEVEL, k - a);
			count++;
		}
		if (k == a)
			k++;
	}
	return count;
}

/* Every step swings once between its compute level and its dips (data
 * loading, the optimizer, a stall): a window of steps spans that swing.
 * A stretch whose windows span under a quarter of the steps' typical
 * swing (the median over the active bins) and stay a quarter of it below
 * the level the windows' maxima typically reach holds no step. It finds
 * evaluations within a quarter of the way from that level down to the
 * low level, which neither rule above can: flat 30-s evaluations at
 * 500 W among 600-W 2-s steps dipping to 350 W read +54.6 % energy per
 * step with --steps, now +0.1 % (docs/finetune.md, "What is not
 * training"). Steps that do not swing by a quarter of the way down to the
 * low level give no such sign; a flat stretch near the steps' peak (dips
 * that stop, the data cached) stays steps. Edges move out by at most `h`
 * over the active bins within a quarter of the swing of the stretch's
 * own level (its median). Returns how many. */
static int
mark_no_swing(ft_grid *g, size_t h, size_t need, double *mx, double *mn, double *sum, double *scratch,
              size_t *cnt)
{
	rolling_max(g, h, 1.0, mx, sum, scratch, cnt);
	double peak = reference_level(g, mx, scratch);
	rolling_max(g, h, -1.0, mn, sum, scratch, cnt);
	size_t len = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		if (g->mark[k] == FT_ACTIVE && isfinite(mx[k]) && isfinite(mn[k]))
			scratch[len++] = mx[k] + mn[k];
	double swing = wc_stats_median(scratch, len);
	if (!(swing >= 0.25 * (peak - g->idle_w)))
		return 0;
	int count = 0;
	for (size_t k = g->k0; k < g->k1;) {
		size_t a = k;
		while (k < g->k1 && g->mark[k] == FT_ACTIVE && mx[k] + mn[k] < 0.25 * swing && mx[k] < peak - 0.25 * swing)
			k++;
		if (k - a >= need && k > a) {
			size_t n = 0;
			for (size_t j = a; j < k; j++)
				scratch[n++] = g->x[j];
			double level = wc_stats_median(scratch, n), band = 0.25 * swing;
			for (size_t j = 0; j < h && a > g->k0 && g->mark[a - 1] == FT_ACTIVE && fabs(g->x[a - 1] - level) < band; j++)
				a--;
			for (size_t j = 0; j < h && k < g->k1 && g->mark[k] == FT_ACTIVE && fabs(g->x[k] - level) < band; j++)
				k++;
			memset(g->mark + a, FT_MIDLEVEL, k - a);
			count++;
		}
		if (k == a)
			k++;
	}
	return count;
}

int
wc__ft_mark_midlevel(ft_grid *g, double width_s, double min_s, int swing, wc_error *err, int *rc)
{
	size_t h = (size_t)ceil(0.5 * width_s / g->dt), need = (size_t)ceil(min_s / g->dt - 1e-9), count = 0;
	double *m = wc_alloc_array(g->nb, sizeof *m), *sum = wc_alloc_array(g->nb + 1, sizeof *sum);
	double *scratch = wc_alloc_array(g->nb, sizeof *scratch), *mx = wc_alloc_array(g->nb, sizeof *mx);
	double *mn = wc_alloc_array(g->nb, sizeof *mn);
	size_t *cnt = wc_alloc_array(g->nb + 1, sizeof *cnt);
	*rc = WC_OK;
	if (!m || !sum || !cnt || !scratch || !mx || !mn) {
		*rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	} else if (!g->flat) {
		rolling_mean(g, h, m, sum, cnt);
		double ref = reference_level(g, m, scratch);
		double thr = below_training(g, ref);
		size_t k = g->k0;
		while (k < g->k1) {
			size_t a = k;
			while (k < g->k1 && g->mark[k] == FT_ACTIVE && m[k] < thr)
				k++;
			if (k - a >= need && k > a) {
				stretch_edges(g, m, ref, h, &a, &k, scratch);
				memset(g->mark + a, FT_MIDLEVEL, k - a);
				count++;
			}
			if (k == a)
				k++;
		}
		count += (size_t)mark_no_step(g, h, need, m, sum, scratch, cnt);
		if (swing)
			count += (size_t)mark_no_swing(g, h, need, mx, mn, sum, scratch, cnt);
	}
	free(m);
	free(sum);
	free(cnt);
	free(scratch);
	free(mx);
	free(mn);
	return (int)count;
}

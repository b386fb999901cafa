/*
 * The other steps a trace's samples fit (docs/finetune.md, "Counting
 * steps"): where the samples repeat every whole number of them, the
 * folds of that repeat that order the samples more simply than the
 * counted period's, named in the row's aliased warning.
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>

/* The class of the i-th sample in phase order when the samples repeat
 * every `r` and are folded at r / j samples: class c has phase c j / r,
 * so the phases are the multiples of d = gcd(r, j), each held by d
 * classes r / d apart. `inv` is the inverse of j / d modulo r / d. */
static size_t
phase_class(size_t r, size_t d, size_t inv, size_t i)
{
	size_t q = r / d;
	return (i / d) * inv % q + (i % d) * q;
}

/* Each window of WC_FT_FOLD_CYCLES repeats of `r` raw active samples, its
 * class means (by position in the repeat) in m[0..r), handed to `use`.
 * Windows never cross a bin that is not active (a pause resets the
 * phase). Returns the number of windows. */
typedef void (*window_fn)(void *ctx, size_t window, const double *m);

static size_t
fold_windows(const ft_grid *g, size_t r, double *m, window_fn use, void *ctx)
{
	size_t w = (size_t)WC_FT_FOLD_CYCLES * r, n = 0, windows = 0;
	double a = g->t0 + (double)g->k0 * g->dt, b = g->t0 + (double)g->k1 * g->dt;
	for (size_t i = 0; i < g->n; i++) {
		if (g->t[i] < a || g->t[i] >= b)
			continue;
		if (g->mark[wc__ft_bin(g, g->t[i])] != FT_ACTIVE) {
			n = 0;
			continue;
		}
		if (n == 0)
			for (size_t c = 0; c < r; c++)
				m[c] = 0.0;
		m[n % r] += g->p[i] / WC_FT_FOLD_CYCLES;
		if (++n < w)
			continue;
		use(ctx, windows++, m);
		n = 0;
	}
	return windows;
}

typedef struct {
	size_t r, d, inv;
	double *per, *sum;
} fold_ctx;

static void
window_string(void *ctx, size_t window, const double *m)
{
	const fold_ctx *f = ctx;
	f->per[window] = 0.0;
	for (size_t c = 0; c < f->r; c++)
		f->per[window] += fabs(m[phase_class(f->r, f->d, f->inv, (c + 1) % f->r)] -
		                       m[phase_class(f->r, f->d, f->inv, c)]);
}

static void
window_sum(void *ctx, size_t window, const double *m)
{
	const fold_ctx *f = ctx;
	(void)window;
	for (size_t c = 0; c < f->r; c++)
		f->sum[c] += m[c];
}

/* The string of the class means of windows of WC_FT_FOLD_CYCLES repeats of `r`
 * raw samples, folded at r / j samples, per window: the means average the
 * noise out, so two folds of the same samples compare by their shapes, and
 * classes that share a phase (j not prime to r) but differ cost their
 * difference. The median over the windows: one that holds the ramp
 * into training is not the steps. `per` holds a string a window. NaN
 * without a window. */
static double
class_string(const ft_grid *g, size_t r, size_t j, double *m, double *per)
{
	size_t d = wc__ft_gcd(r, j), inv = 1;
	while (inv * (j / d) % (r / d) != 1 % (r / d))
		inv++;
	fold_ctx f = { r, d, inv, per, NULL };
	size_t windows = fold_windows(g, r, m, window_string, &f);
	return windows ? wc_stats_median(per, windows) : NAN;
}

/* Do the samples keep the repeat steps of r / j samples imply? With
 * d = gcd(r, j) > 1 such steps repeat every r / d samples, so classes
 * r / d apart hold the same phase and must be on the same side of the
 * middle of the class means' range (as aliased_step() reads them). 1-s
 * steps every 0.3 s catch their low phase once in 10 samples: 1.5-s steps
 * would catch it every 5, and were named though samples 5 apart differ
 * (docs/finetune.md, "Counting steps"). The means over the windows of
 * class_string(), summed. */
static int
keeps_repeat(const ft_grid *g, size_t r, size_t j, double *m, double *sum)
{
	size_t d = wc__ft_gcd(r, j);
	if (d == 1)
		return 1;
	for (size_t c = 0; c < r; c++)
		sum[c] = 0.0;
	fold_ctx f = { r, d, 0, NULL, sum };
	size_t windows = fold_windows(g, r, m, window_sum, &f);
	if (windows == 0)
		return 1;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t c = 0; c < r; c++) {
		lo = fmin(lo, sum[c]);
		hi = fmax(hi, sum[c]);
	}
	double mid = 0.5 * (lo + hi);
	for (size_t c = 0; c < r; c++)
		if ((sum[c] < mid) != (sum[(c + r / d) % r] < mid))
			return 0;
	return 1;
}

int
wc__ft_period_aliases(const ft_grid *g, double period, size_t repeat, double alias[WC_FT_ALIASES])
{
	size_t r = repeat, j0 = 0;
	for (int i = 0; i < WC_FT_ALIASES; i++)
		alias[i] = NAN;
	if (r < 3 || !isfinite(period) || period <= 0.0)
		return 0;
	double *m = wc_alloc_array(r, sizeof *m), *s = wc_alloc_array(r + 1, sizeof *s), *sum = wc_alloc_array(r, sizeof *sum);
	double *per = wc_alloc_array(g->n / ((size_t)WC_FT_FOLD_CYCLES * r) + 1, sizeof *per);
	if (!m || !s || !per || !sum) {
		free(m);
		free(s);
		free(sum);
		free(per);
		return -1;
	}
	/* The counted period as a fold of the repeat: the nearest r / j. */
	j0 = (size_t)llround((double)r * g->dt / period);
	for (size_t j = 1; j <= r; j++) {
		double p = (double)r / (double)j;
		s[j] = p >= WC_FT_MIN_SAMPLES_PER_STEP && p * g->dt >= WC_TRACE_PERIOD_MIN_S ? class_string(g, r, j, m, per)
		                                                                           : NAN;
	}
	int found = 0;
	if (j0 >= 1 && j0 <= r && isfinite(s[j0]) && fabs((double)r / (double)j0 * g->dt - period) < g->dt) {
		/* The shortest strings shorter than the counted fold's, in order. */
		for (; found < WC_FT_ALIASES; found++) {
			size_t best = 0;
			for (size_t j = 1; j <= r; j++)
				if (j != j0 && s[j] < s[j0] && (best == 0 || s[j] < s[best]))
					best = j;
			if (best == 0)
				break;
			s[best] = NAN;
			if (!keeps_repeat(g, r, best, m, sum)) {
				found--;
				continue;
			}
			alias[found] = (double)r / (double)best * g->dt;
		}
	}
	free(m);
	free(s);
	free(sum);
	free(per);
	return found;
}


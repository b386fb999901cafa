/*
 * The steps' clock of a fine-tuning trace with a trainer state's
 * evaluations to place (docs/finetune.md, "Evaluations a trainer state
 * lists"): the window's active time, where a step number puts an
 * evaluation on it, and the pauses and stretches near that place
 * (finetune_state.c places the evaluations).
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A bin of a pause the trace found: near-idle or intermediate. */
static int
is_pause(unsigned char m)
{
	return m == FT_SAVE || m == FT_MIDLEVEL;
}

void
wc__ft_clock_free(ft_clock *c)
{
	free(c->act);
	free(c->sum_x);
	free(c->sum_a);
	free(c->sum_p);
}

int
wc__ft_clock_build(const ft_grid *g, ft_clock *c)
{
	size_t nw = g->k1 - g->k0;
	memset(c, 0, sizeof *c);
	c->act = wc_alloc_array(nw + 1, sizeof *c->act);
	c->sum_x = wc_alloc_array(nw + 1, sizeof *c->sum_x);
	c->sum_a = wc_alloc_array(nw + 1, sizeof *c->sum_a);
	c->sum_p = wc_alloc_array(nw + 1, sizeof *c->sum_p);
	if (!c->act || !c->sum_x || !c->sum_a || !c->sum_p)
		return 0;
	c->sum_x[0] = 0;
	c->sum_a[0] = 0;
	c->sum_p[0] = 0;
	/* A gap the job trained through ran steps: on the clock, or every
	 * evaluation after a 300-s gap was put 300 s late, on steps (-2.7 %
	 * energy per step; docs/finetune.md, "Window"). */
	size_t gap_end = g->k0;
	int trained = 0;
	for (size_t k = g->k0; k < g->k1; k++) {
		if (g->mark[k] == FT_GAP && k >= gap_end) {
			for (gap_end = k; gap_end < g->k1 && g->mark[gap_end] == FT_GAP; gap_end++)
				;
			trained = wc__ft_gap_trained(g, k, gap_end);
		}
		int p = g->mark[k] == FT_ACTIVE, a = p || (g->mark[k] == FT_GAP && trained);
		if (a)
			c->act[c->na++] = k;
		c->sum_x[k - g->k0 + 1] = c->sum_x[k - g->k0] + g->x[k];
		c->sum_a[k - g->k0 + 1] = c->sum_a[k - g->k0] + (size_t)a;
		c->sum_p[k - g->k0 + 1] = c->sum_p[k - g->k0] + (size_t)p;
	}
	return 1;
}

/* The grid bin where `tau` s of active time have passed: the bin after
 * the last active one before it, so that a pause the trace found there
 * starts at it. */
size_t
wc__ft_clock_bin(const ft_grid *g, const ft_clock *c, double tau)
{
	double j = floor(tau / g->dt);
	if (c->na == 0)
		return g->k0;
	return j <= 0 ? c->act[0] : j >= (double)c->na ? c->act[c->na - 1] + 1 : c->act[(size_t)j - 1] + 1;
}

/* A pause the trace found (near-idle, intermediate) of at least half of
 * `len` s starting within `tol` s of active time of `tau` (the steps'
 * clock), not `taken`: its first bin, else (size_t)-1. Within active
 * time, not grid bins around wc__ft_clock_bin(tau): a place one bin past the
 * last active bin before a 65-s pause (a near-idle evaluation merged
 * with its save) was put after that pause, 65 s from it, and the pause
 * was not found. */
size_t
wc__ft_found_pause(const ft_grid *g, const ft_clock *c, double tau, double len, double tol, size_t taken)
{
	size_t a = wc__ft_clock_bin(g, c, tau - tol), b = wc__ft_clock_bin(g, c, tau + tol) + 1;
	a = a > g->k0 ? a - 1 : g->k0;
	for (size_t k = a; k < b && k < g->k1; k++) {
		unsigned char m = g->mark[k];
		if (!is_pause(m) || (k > g->k0 && g->mark[k - 1] == m) || k == taken ||
		    fabs((double)c->sum_a[k - g->k0] * g->dt - tau) > tol)
			continue;
		size_t e = k;
		while (e < g->k1 && is_pause(g->mark[e]))
			e++;
		if ((double)(e - k) * g->dt >= 0.5 * len)
			return k;
	}
	return (size_t)-1;
}

/* The stretch of `nr` active bins starting within `tol` s of bin kb with
 * the lowest mean power: an evaluation runs forward passes only. Where it
 * draws about as much as training, or more, the lowest stretch is steps
 * (+2.7 % energy per step with 90-s evaluations at 540 W over 510-W
 * steps): those a save or the window's end places are taken there
 * (finetune_state.c), this is for the others. Its first bin, else
 * (size_t)-1. */
size_t
wc__ft_lowest_stretch(const ft_grid *g, const ft_clock *c, size_t kb, size_t nr, double tol, const size_t prev[2])
{
	size_t w = (size_t)ceil(tol / g->dt), a = kb > g->k0 + w ? kb - w : g->k0, best = (size_t)-1;
	double low = INFINITY;
	for (size_t k = a; k <= kb + w && k + nr <= g->k1; k++) {
		size_t i = k - g->k0;
		/* active before any was placed, and clear of the one placed
		 * last (the evaluations are placed in step order) */
		if (c->sum_p[i + nr] - c->sum_p[i] != nr || (k < prev[1] && k + nr > prev[0]))
			continue;
		double mean = (c->sum_x[i + nr] - c->sum_x[i]) / (double)nr;
		if (mean < low) {
			low = mean;
			best = k;
		}
	}
	return best;
}

/* The first bin of the pause (near-idle or intermediate) starting
 * nearest `at` on the steps' clock, within half of `len` and nearer `at`
 * than `other`; else (size_t)-1. */
static size_t
pause_near(const ft_grid *g, const ft_clock *c, double at, double other, double len)
{
	size_t a = wc__ft_clock_bin(g, c, at - 0.5 * len), b = wc__ft_clock_bin(g, c, at + 1.5 * len) + 1;
	size_t best = (size_t)-1;
	double low = INFINITY;
	for (size_t k = a > g->k0 ? a - 1 : g->k0; k < b && k < g->k1; k++) {
		if (!is_pause(g->mark[k]) || (k > g->k0 && is_pause(g->mark[k - 1])))
			continue;
		double p = (double)c->sum_a[k - g->k0] * g->dt, d = fabs(p - at);
		if (d < fabs(p - other) && d <= 0.5 * len && d < low) {
			low = d;
			best = k;
		}
	}
	return best;
}

/* The Trainer evaluates, then saves: an evaluation with its save's pause
 * nearer its place than an eval_runtime after it was saved first (not the
 * Trainer's order) and starts at that pause's end; one whose save's pause
 * starts about an eval_runtime after its place ends there. */
size_t
wc__ft_save_before(const ft_grid *g, const ft_clock *c, double tau, double len)
{
	size_t best = pause_near(g, c, tau, tau + len, len);
	while (best != (size_t)-1 && best < g->k1 && is_pause(g->mark[best]))
		best++;
	return best;
}

size_t
wc__ft_save_after(const ft_grid *g, const ft_clock *c, double tau, double len, size_t nr)
{
	size_t k = pause_near(g, c, tau + len, tau, len);
	return k != (size_t)-1 && k >= g->k0 + nr ? k - nr : (size_t)-1;
}

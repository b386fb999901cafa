/*
 * Evaluations with a save after them, from a trainer state
 * (docs/finetune.md, "Evaluations a trainer state lists"): whether they
 * are the pauses the trace shows or ran at training power with the save's
 * pause after them, told by the steps' clock and, where it cannot tell,
 * by the pauses themselves (finetune_state.c places the evaluations).
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>

/* What an evaluation is when the readings below are weighed. */
enum { FT_KEEP, FT_ADJ, FT_END };

/* How far (s of active time, summed) the pauses the trace found start
 * from where the evaluations with a save after them (FT_ADJ) put a pause,
 * with those evaluations `shown` (the pause starts with the evaluation)
 * or not (at training power: the save's pause starts an eval_runtime
 * later, and the steps' clock is short of it) -- and, with a clear step
 * period, how far the steps' clock runs from it over the steps. The one
 * after the last step (FT_END) goes with them: at training power it is in
 * the window, else a pause or past the window's end. The others keep
 * `state`. */
static double
clock_misfit(const ft_grid *g, const ft_clock *c, const wc_ft_steps_info *in, const wc_ft_steps_result *out,
             const unsigned char *state, const unsigned char *role, int shown, size_t *nearest)
{
	double undetected = 0, before = 0, sum = 0;
	size_t n = in->n_evals;
	for (size_t i = 0; i < n; i++)
		undetected += (role[i] == FT_KEEP ? state[i] == 0 : !shown) ? in->eval_s[i] : 0.0;
	double ts = ((double)c->na * g->dt - undetected) / in->steps;
	if (!(ts > 0))
		return INFINITY;
	if (out->period_clear)
		sum = fabs(ts - wc__ft_period_step_s(out)) * in->steps;
	for (size_t i = 0; i < n; i++) {
		int active = role[i] == FT_KEEP ? state[i] == 0 : !shown;
		/* at training power the save's pause starts after it, or, saved
		 * first, where it would */
		double at = in->eval_at[i] * ts + before, after = at + (active ? in->eval_s[i] : 0.0), near = INFINITY;
		before += active ? in->eval_s[i] : 0.0;
		if (role[i] != FT_ADJ && !nearest)
			continue;
		if (nearest)
			nearest[i] = (size_t)-1;
		for (size_t k = g->k0; k < g->k1; k++)
			if ((g->mark[k] == FT_SAVE || g->mark[k] == FT_MIDLEVEL) && (k == g->k0 || g->mark[k - 1] != g->mark[k])) {
				double p = (double)c->sum_a[k - g->k0] * g->dt, d = fmin(fabs(p - after), fabs(p - at));
				if (d < near && nearest)
					nearest[i] = k;
				near = fmin(near, d);
			}
		sum += role[i] == FT_ADJ ? near : 0.0;
	}
	return sum;
}

/* Bins of the pause (near-idle or intermediate, of either kind) from bin
 * k on, and (`mid`) how many of them are intermediate. */
static size_t
pause_run(const ft_grid *g, size_t k, size_t *mid)
{
	size_t e = k;
	*mid = 0;
	while (e < g->k1 && (g->mark[e] == FT_SAVE || g->mark[e] == FT_MIDLEVEL))
		*mid += g->mark[e++] == FT_MIDLEVEL;
	return e - k;
}

/* When the steps' clock cannot tell the readings of start_adjacent apart
 * -- no clear step period, and evaluations every k steps with one after
 * the last step put a save's pause at the same place on the clock either
 * way -- the pauses themselves tell: at an evaluation's place, one that
 * holds an intermediate stretch of at least half its eval_runtime (a
 * save is near-idle), or that is at least half an eval_runtime longer
 * than the other saves (those at no evaluation's place), holds that
 * evaluation. Whether most do; with neither kind of evidence the pause is
 * the evaluation (docs/finetune.md, "Evaluations a trainer state lists").
 * Before, the tie went by rounding to training power: 4 evaluations at
 * 400 W of a run logged every 1 s were found as intermediate stretches
 * and taken out again from the steps (-9.7 % energy per step). */
static int
pauses_hold_evals(const ft_grid *g, const wc_ft_steps_info *in, const unsigned char *state,
                  const unsigned char *role, const size_t *nearest)
{
	size_t n = in->n_evals, ns = 0, held = 0, weighed = 0, mid;
	double *len = wc_alloc_array(g->k1 - g->k0 + 1, sizeof *len), save = NAN;
	if (!len)
		return 1;
	for (size_t k = g->k0; k < g->k1; k++) {
		if ((g->mark[k] != FT_SAVE && g->mark[k] != FT_MIDLEVEL) ||
		    (k > g->k0 && (g->mark[k - 1] == FT_SAVE || g->mark[k - 1] == FT_MIDLEVEL)))
			continue;
		size_t i = 0, l = pause_run(g, k, &mid);
		while (i < n && !(nearest[i] == k && (role[i] != FT_KEEP || state[i] == 1)))
			i++;
		if (i == n && mid == 0)
			len[ns++] = (double)l * g->dt;
	}
	if (ns > 0)
		save = wc_stats_median(len, ns);
	free(len);
	for (size_t i = 0; i < n; i++) {
		if (role[i] != FT_ADJ || nearest[i] == (size_t)-1)
			continue;
		double l = (double)pause_run(g, nearest[i], &mid) * g->dt, e = in->eval_s[i];
		weighed++;
		held += (double)mid * g->dt >= 0.5 * e || !(l - save < 0.5 * e);
	}
	return 2 * held >= weighed;
}

/* The evaluations with a save after them (eval_steps a multiple of
 * save_steps, the usual setup with load_best_model_at_end): the save's
 * near-idle pause lies where such an evaluation starts when the steps'
 * clock counts the evaluations as pauses -- their time then stretches
 * each step -- and both readings are stable below. Starting from that
 * one, 30-s evaluations at 91 % of the training power every 50 of 190 2-s
 * steps were each taken for the save after it: two of three stayed in the
 * steps (+15 % energy per step) and the saves were counted as them. So
 * they start at training power, and are not taken for the pause after
 * them, when that reading fits the pauses and the step period better;
 * the same evaluation draws the same power, so the one after the last
 * step goes with them. Returns whether they do. */
int
wc__ft_start_adjacent(const ft_grid *g, const ft_clock *c, const wc_ft_steps_info *in, const wc_ft_steps_result *out,
               unsigned char *state, size_t first, size_t last)
{
	size_t n = in->n_evals, m = 0;
	unsigned char *role = wc_alloc_zeroed(n ? n : 1, 1);
	if (!role)
		return 0;
	for (size_t i = 0; i < n; i++)
		m += (role[i] = state[i] == 1 && i != first && i != last && wc__ft_save_follows(in, i) ? FT_ADJ : FT_KEEP);
	if (last < n && state[last] == 1)
		role[last] = FT_END;
	size_t *nearest = m > 0 ? wc_alloc_array(n, sizeof *nearest) : NULL;
	int active = 0;
	for (size_t i = 0; nearest && i < n; i++)
		nearest[i] = (size_t)-1;
	if (nearest) {
		double at_power = clock_misfit(g, c, in, out, state, role, 0, NULL),
		       shown = clock_misfit(g, c, in, out, state, role, 1, nearest);
		/* within a bin per evaluation weighed, the clock cannot tell */
		active = fabs(at_power - shown) <= (double)m * g->dt ? !pauses_hold_evals(g, in, state, role, nearest)
		                                                     : at_power < shown;
	}
	free(nearest);
	for (size_t i = 0; active && i < n; i++)
		state[i] = role[i] != FT_KEEP ? 0 : state[i];
	free(role);
	return active;
}

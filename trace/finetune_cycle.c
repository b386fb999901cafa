/*
 * The cycle of the evaluations a trainer state lists, or of several
 * steps of a stated count, taken for the trace's step period
 * (docs/finetune.md, "Evaluations a trainer state lists", "What is not
 * training").
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <string.h>

/* Evaluations near the training power (82-86 % of it) are no
 * intermediate stretch: left in the active time, one every k steps, they
 * repeat where no step does, and their cycle -- k steps and an
 * evaluation, 80 s for 2-s steps with a 30-s evaluation every 25 -- came
 * out as the step period. Counted at it, 200 steps read as 8 and the run
 * was refused as a resumed run's last session, asking for --steps 8 (38x
 * the energy per step had it been followed); as the hint of the saves'
 * length it lost the 30-s saves (+11.8 % energy per step, said only as
 * saves not found). The period is that cycle when it is longer than the
 * evaluations themselves -- no step is -- and the active time holds as
 * many of it as the state's steps hold evaluation intervals, to one (the
 * run's first and last need not be whole). */
int
wc__ft_eval_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period)
{
	if (!isfinite(period) || !isfinite(in->steps) || in->n_evals < 2 || !in->eval_at || !in->eval_s)
		return 0;
	double every = in->eval_at[1] - in->eval_at[0], eval_s = 0.0;
	for (size_t i = 0; i < in->n_evals; i++) {
		double gap = i + 1 < in->n_evals ? in->eval_at[i + 1] - in->eval_at[i] : every;
		/* the last may come early: at max_steps, off the interval */
		if (fabs(gap - every) > 0.5 && !(i + 2 == in->n_evals && gap < every))
			return 0;
		eval_s += in->eval_s[i] / (double)in->n_evals;
	}
	if (!(every >= 2.0) || !(period > eval_s))
		return 0;
	size_t active = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		active += g->mark[k] == FT_ACTIVE;
	return fabs((double)active * g->dt / period - in->steps / every) <= 1.0;
}

/* A count the user states (--steps, finetune.steps) times the steps on
 * average at most the active time over it: a period over twice that is
 * no step but a cycle of several (k >= 2 steps and what follows them).
 * 1-s readings of 2-s steps do not resolve the steps, and with a 30-s
 * evaluation every 25 the period came out as that 80-s cycle; taken for
 * the step it set the intermediate stretches' shortest to 240 s, and
 * evaluations at 400 W among steps of 600 W read +44.6 % energy per
 * step with --steps 300 (now +0.1 %; docs/finetune.md, "What is not
 * training"). A trainer state's count is not weighed here: a resumed
 * run's trace may hold fewer steps than it counts (wc__ft_eval_cycle,
 * above, weighs its evaluations' cycle). */
int
wc__ft_stated_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period)
{
	if (!isfinite(period) || !(in->steps > 0) || !in->steps_source || strcmp(in->steps_source, "manifest") != 0)
		return 0;
	size_t active = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		active += g->mark[k] == FT_ACTIVE;
	return period > 2.0 * (double)active * g->dt / in->steps;
}

/* With no count at all (no step log, trainer state or stated count) the
 * period alone counts the steps. Flat steps show none of their own, and
 * an evaluation every k of them makes the trace's one clear period their
 * cycle: 6-s steps at 600 W with a 30-s evaluation at 460 W every 10 read
 * a 90-s period, 30.3 steps for 300 (+1270 % energy per step, no word).
 * No step holds a stretch at another level several steps long; a cycle
 * does. The period is that cycle when the intermediate stretches found at
 * the default step (`n` of them) number the active time over it, to one
 * (docs/finetune.md, "What is not training"). */
int
wc__ft_midlevel_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period, int n)
{
	if (!isfinite(period) || n < 2 || in->n_evals > 0 || in->n_step_end > 0 || in->steps > 0)
		return 0;
	size_t active = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		active += g->mark[k] == FT_ACTIVE || g->mark[k] == FT_MIDLEVEL;
	return fabs((double)active * g->dt / period - (double)n) <= 1.0;
}

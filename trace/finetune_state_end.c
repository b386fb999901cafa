/*
 * Where a trainer state's run ends against the trace: a checkpoint's
 * state whose run went on past its save (docs/finetune.md, "A stated
 * count against the trace"), and an evaluation after train()
 * (docs/finetune.md, "An evaluation after train()"): trainer.evaluate()
 * logged after the last train_runtime entry ran past training's end; its
 * stretch is cut off the window's end.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <string.h>

/* The signs that the power log stopped before the run did: the one
 * the refusal names (finetune_stated.c). A window short of train_runtime
 * counts when the log does not start at training power (one started late
 * is short at its start). */
int
wc__ft_log_ends_short(const ft_grid *g, const wc_ft_steps_info *in)
{
	if ((double)(g->nb - g->k1) * g->dt <= WC_FT_LOG_EDGE_S)
		return 1;
	if ((double)g->k0 * g->dt <= WC_FT_LOG_EDGE_S)
		return 0;
	return in->train_runtime_s > (1.0 + WC_FT_COUNT_MAX_DISAGREE) * (double)(g->k1 - g->k0) * g->dt ? 2 : 0;
}

/* A trainer state's count against the steps the trace's own period
 * finds (docs/finetune.md, "A stated count against the trace"): the
 * evaluations it lists are taken out before the counts are weighed.
 * Those the period does not find as pauses where their steps put them
 * draw training power and are still in the active time: nine 30-s
 * evaluations at 90 % of the training power made an early-stopped run's
 * 990 s of steps read as 1258 s, 572 steps for 450, and it was refused.
 * By the trace's period, not the state's count, which a run that went on
 * stretches and a log that stopped early squeezes: on the state's count a
 * crash's near-idle evaluations were missed and 60 s of steps taken out
 * for them, and a log cut at 175 of 200 steps had four 30-s stretches of
 * steps taken out for evaluations after steps it never reached (115
 * steps named for 175). Only those the log reaches are weighed: one
 * whose place lies past the active time is not in it, and one the log
 * stops in holds the time up to that stop.
 *
 * A checkpoint's state counts the steps up to its save, and the run may
 * have gone on; a power log that stopped before the run did (training
 * power at its end, or a window well short of train_runtime) covers
 * fewer. Whether the count goes over (a checkpoint's) or under (a log
 * that ends short) what the trace holds beyond the refusal; the
 * evaluations' time left in the active time in evals_hidden_s. */
int
wc__ft_count_refused(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	ft_clock c;
	double hidden = 0, clock_s = 0;
	size_t taken = (size_t)-1;
	int built = wc__ft_clock_build(g, &c);
	if (built)
		clock_s = (double)c.na * g->dt;
	for (size_t i = 0; built && i < in->n_evals; i++) {
		double s = in->eval_at[i], len = in->eval_s[i], tau = s * out->period_s + hidden;
		if (!(s >= 0.5 && s <= in->steps + 0.5 && len > 0) || !(tau < clock_s))
			continue;
		size_t k = wc__ft_found_pause(g, &c, tau, len, 0.5 * len, taken);
		hidden += k == (size_t)-1 ? fmin(len, clock_s - tau) : 0.0;
		taken = k == (size_t)-1 ? taken : k;
	}
	double traced = (clock_s - hidden) / out->period_s;
	wc__ft_clock_free(&c);
	int over = in->steps_at_save && traced > (1 + WC_FT_COUNT_MAX_DISAGREE) * in->steps;
	int under = in->steps_source && strcmp(in->steps_source, "trainer_state") == 0 && wc__ft_log_ends_short(g, in) &&
	            traced < (1 - g->dt / out->period_s) * in->steps;
	if (!built || !(over || under))
		return 0;
	out->evals_hidden_s = hidden;
	return 1;
}

/* trainer.evaluate() after train() runs past training's end, and past
 * the save that ends it, so train_runtime does not hold it: the window,
 * first to last bin above the threshold, holds it when it draws more, and
 * then runs past train_runtime by about its length (choice: within half
 * of it either way; a resumed run's window runs past by far more). Its
 * stretch is cut off the window's end, then the save's pause before it
 * (docs/finetune.md, "An evaluation after train()"). Left in, a
 * 30-s one at training power after the final save put +2.3 % on energy
 * per step. */
void
wc__ft_window_post_evals(ft_grid *g, const wc_ft_steps_info *in)
{
	double len = in->post_eval_s, over;
	size_t nr = (size_t)floor(len / g->dt + 0.5), b;
	if (!(len > 0) || !isfinite(in->train_runtime_s) || in->state_restarts > 0 || g->k1 < g->k0 + nr || nr == 0)
		return;
	over = (double)(g->k1 - g->k0) * g->dt - in->train_runtime_s;
	if (!(over > 0.5 * len && over < 1.5 * len))
		return;
	for (b = g->k1 - nr; b > g->k0 && !(g->x[b - 1] > g->theta && g->mark[b - 1] != FT_GAP); b--)
		;
	g->k1 = b;
	wc__ft_mark_window(g);
}

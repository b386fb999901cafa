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
 * is short at its start). Training power at the log's end is how a
 * logger stopped with the trainer ends too: a window that covers
 * train_runtime, to what the period is known, is the whole run, not one
 * cut short (docs/finetune.md, "A stated count against the trace"). A
 * complete run whose steps ran 30 % slower after step 105 counted 199 of
 * its 210 steps at the period of the faster ones and was refused naming
 * --steps 199. */
int
wc__ft_log_ends_short(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out)
{
	double window = (double)(g->k1 - g->k0) * g->dt, known = out->period_s > 0 ? g->dt / out->period_s : 0.0;
	if ((double)(g->nb - g->k1) * g->dt <= WC_FT_LOG_EDGE_S)
		return isfinite(in->train_runtime_s) && window >= (1.0 - known) * in->train_runtime_s ? 0 : 1;
	if ((double)g->k0 * g->dt <= WC_FT_LOG_EDGE_S)
		return 0;
	return in->train_runtime_s > (1.0 + WC_FT_COUNT_MAX_DISAGREE) * (double)(g->k1 - g->k0) * g->dt ? 2 : 0;
}

/* The evaluations the state lists that the log reaches and the trace
 * does not show as pauses, s, placed by steps of `step_s` of active time
 * (those at training power, still in the active time); `shown` (may be
 * NULL) receives how many it shows. */
static double
evals_hidden(const ft_grid *g, const ft_clock *c, const wc_ft_steps_info *in, double step_s, size_t *shown)
{
	double hidden = 0, clock_s = (double)c->na * g->dt;
	size_t taken = (size_t)-1, n = 0;
	for (size_t i = 0; i < in->n_evals; i++) {
		double s = in->eval_at[i], len = in->eval_s[i], tau = s * step_s + hidden;
		if (!(s >= 0.5 && s <= in->steps + 0.5 && len > 0) || !(tau < clock_s))
			continue;
		size_t k = wc__ft_found_pause(g, c, tau, len, 0.5 * len, taken);
		hidden += k == (size_t)-1 ? fmin(len, clock_s - tau) : 0.0;
		n += k != (size_t)-1;
		taken = k == (size_t)-1 ? taken : k;
	}
	if (shown)
		*shown = n;
	return hidden;
}

/* Whether `times` (a count over another) is a whole multiple of 2 or
 * more, to what the period is known (`known`); `told`: one the period can
 * tell from its neighbours, where nothing else says it (docs/finetune.md,
 * "A stated count against the trace"). */
int
wc__ft_is_multiple(double times, double known, int told)
{
	double k = round(times);
	return k >= 2.0 && (!told || k * known < 0.5) && fabs(times - k) <= k * known;
}

/* Steps in the trace's clear period against a stated count
 * (docs/finetune.md, "A stated count against the trace"): k when the
 * count is k >= 2 times the period's (a period of k steps: steps that
 * alternate, or sampled every second), -k when a k-th of it (a step of k
 * periods: micro-steps of grad_accum), each reading with the state's
 * evaluations at training power taken out at its own step; 0 neither, or
 * the period's own count. Judged with them in, 2x A100 6.5-s steps read
 * every second (a 13-s period) with six 40-s evaluations at 91 % of the
 * training power counted 168 for 300, no multiple, and the complete run
 * was refused as a resumed run's last session (9 of 20 seeds). */
int
wc__ft_period_steps(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out)
{
	ft_clock c;
	if (!out->period_clear || !(in->steps >= 1))
		return 0;
	if (!wc__ft_clock_build(g, &c)) {
		wc__ft_clock_free(&c);
		return 0;
	}
	double clock_s = (double)c.na * g->dt, p = out->period_s, known = g->dt / p;
	int found = 0, most = in->grad_accum > WC_FT_PERIOD_MULTIPLE_MAX ? in->grad_accum : WC_FT_PERIOD_MULTIPLE_MAX;
	size_t shown_1 = 0, shown_k = 0;
	double one = (clock_s - evals_hidden(g, &c, in, p, &shown_1)) / p;
	/* A reading that loses the pauses the period's own finds is not the
	 * run's: near-idle evaluations put at the wrong steps are not found
	 * and look like training power, and taking them out made a log cut
	 * at 189 of 200 steps read as 100 periods of 2 steps. */
	/* a step of k periods holds the evaluations' time less: k up to
	 * twice the period's own count over the stated one */
	double over = 2.0 * one / in->steps + 1.0;
	for (int k = 2; !found && fabs(in->steps / one - 1.0) > known && k <= most; k++) {
		if (k > WC_FT_PERIOD_MULTIPLE_MAX && k > over)
			break;
		double by_k = k <= WC_FT_PERIOD_MULTIPLE_MAX ? (clock_s - evals_hidden(g, &c, in, p / k, &shown_k)) / p : NAN;
		if (k <= WC_FT_PERIOD_MULTIPLE_MAX && shown_k >= shown_1 && wc__ft_is_multiple(in->steps / by_k, known, 1) &&
		    round(in->steps / by_k) == k) {
			found = k;
			break;
		}
		/* a period of whole micro-steps divides a step's grad_accum,
		 * which says it */
		if (in->grad_accum <= 0 || in->grad_accum % k != 0 || k > over) /* 0: unknown, says none */
			continue;
		double of_k = (clock_s - evals_hidden(g, &c, in, p * k, &shown_k)) / p;
		if (shown_k >= shown_1 && wc__ft_is_multiple(of_k / in->steps, known, 0) && round(of_k / in->steps) == k)
			found = -k;
	}
	wc__ft_clock_free(&c);
	return found;
}

/* Whether a checkpoint's state was left behind by the run: its period
 * counts `traced` steps, over WC_FT_COUNT_MAX_DISAGREE more than its
 * global_step and within max_steps, which the Trainer does not step past
 * (a final checkpoint-400/ of max_steps 400 whose 0.725-s micro-steps of
 * grad_accum 4 counted 1600 was refused). */
int
wc__ft_went_on(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out, double traced)
{
	double known = g->dt / out->period_s;
	return in->steps_at_save && traced > (1 + WC_FT_COUNT_MAX_DISAGREE) * in->steps &&
	       !(traced > (1 + known) * in->state_max_steps);
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
 * evaluations' time left in the active time in evals_hidden_s. By the
 * step the period reads (wc__ft_period_step_s). */
int
wc__ft_count_refused(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	ft_clock c;
	double hidden = 0, clock_s = 0, step = wc__ft_period_step_s(out);
	int built = wc__ft_clock_build(g, &c);
	if (built) {
		clock_s = (double)c.na * g->dt;
		hidden = evals_hidden(g, &c, in, step, NULL);
	}
	double traced = (clock_s - hidden) / step;
	wc__ft_clock_free(&c);
	int over = wc__ft_went_on(g, in, out, traced);
	int under = in->steps_source && strcmp(in->steps_source, "trainer_state") == 0 && wc__ft_log_ends_short(g, in, out) &&
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

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

/* A checkpoint's state counts the steps up to its save, and the run may
 * have gone on (docs/finetune.md, "A stated count against the trace"):
 * the evaluations it lists are taken out before the counts are weighed.
 * Those the trace's own period does not find as pauses where their steps
 * put them draw training power and are still in the active time: nine
 * 30-s evaluations at 90 % of the training power made an early-stopped
 * run's 990 s of steps read as 1258 s, 572 steps for 450, and it was
 * refused. By the trace's period, not the state's count, which a run that
 * went on stretches: on that count a crash's near-idle evaluations were
 * missed and 60 s of steps taken out for them. Whether the count, less
 * those evaluations, still goes over; their time in evals_hidden_s. */
int
wc__ft_went_on(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	ft_clock c;
	double hidden = 0;
	size_t taken = (size_t)-1;
	int built = wc__ft_clock_build(g, &c);
	for (size_t i = 0; built && i < in->n_evals; i++) {
		double s = in->eval_at[i], len = in->eval_s[i];
		if (!(s >= 0.5 && s <= in->steps + 0.5 && len > 0))
			continue;
		size_t k = wc__ft_found_pause(g, &c, s * out->period_s + hidden, len, 0.5 * len, taken);
		hidden += k == (size_t)-1 ? len : 0.0;
		taken = k == (size_t)-1 ? taken : k;
	}
	double traced = ((double)c.na * g->dt - hidden) / out->period_s;
	wc__ft_clock_free(&c);
	if (!built || !(traced > (1 + WC_FT_COUNT_MAX_DISAGREE) * in->steps))
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

/*
 * An evaluation after train() (docs/finetune.md, "An evaluation after
 * train()"): trainer.evaluate() logged after the last train_runtime entry
 * ran past training's end; its stretch is cut off the window's end.
 */
#include "finetune_trace_internal.h"

#include <math.h>

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

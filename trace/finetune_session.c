/*
 * The steps a trainer state's train_runtime holds (docs/finetune.md, "A
 * resumed run in a trainer state"): train_runtime is the last train()
 * call's, and holds that session's evaluations and saves besides its
 * steps. Divided by the step alone, a session of steps 201-500 with three
 * 45-s evaluations and three 30-s saves read as 357 steps, and a resumed
 * run whose 40-s evaluations every 50 steps lengthened its train_runtime
 * by 330 s read as 382 of 400 steps: no resume, and its evaluations were
 * placed at the steps of an uninterrupted run, away from the stretches
 * the trace showed them as, and taken out a second time from the steps.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdlib.h>

/* The length of the trace's saves where they show apart from the
 * evaluations: the shortest near-idle pause of the window shorter than
 * every listed evaluation by more than an evaluation's pause may be off
 * its eval_runtime (wc__ft_setup_slack), which cannot hold one: 30-s
 * evaluation pauses of eval_runtime 36 s, taken for saves, made a run
 * that never resumed one; 0 when none is (a pause that may hold an
 * evaluation, or an evaluation and its save, says no save's length).
 * `shown` receives how many such pauses there are: the saves known, of
 * those the state's schedule puts before the last step. */
static double
save_len(const ft_grid *g, const wc_ft_steps_info *in, size_t *shown)
{
	double shortest_eval = INFINITY, len = INFINITY;
	for (size_t i = 0; i < in->n_evals; i++)
		shortest_eval = in->eval_s[i] > 0 ? fmin(shortest_eval, in->eval_s[i]) : shortest_eval;
	size_t k = g->k0, a;
	while (wc__ft_next_run(g, FT_SAVE, &k, &a)) {
		double l = (double)(k - a) * g->dt;
		int save = l < shortest_eval - wc__ft_setup_slack(l);
		len = save ? fmin(len, l) : len;
		*shown += save;
	}
	return isfinite(len) ? len : 0.0;
}

typedef struct {
	double at, len;
	int saved; /* a save follows it (only the evaluations place the saves) */
} ft_event;

static int
later_first(const void *a, const void *b)
{
	double x = ((const ft_event *)a)->at, y = ((const ft_event *)b)->at;
	return x < y ? 1 : x > y ? -1 : 0;
}

double
wc__ft_session_steps(const ft_grid *g, const wc_ft_steps_info *in, double step_s, int shortest)
{
	size_t ne = 0, e = 0, saves = 0;
	double rt = in->train_runtime_s, gs = in->state_steps, slen = save_len(g, in, &saves), acc = 0.0;
	ft_event *ev = malloc((in->n_evals ? in->n_evals : 1) * sizeof *ev);
	if (!ev)
		return rt / step_s;
	/* the evaluations in the run, each with the save after it when only
	 * the evaluations place the saves (wc__ft_save_follows); none when
	 * they add up to train_runtime or more, eval_runtime then not this
	 * trace's (wc__ft_cross_checks says so) */
	for (size_t i = 0; !(in->expected_eval_s >= rt) && i < in->n_evals; i++)
		if (in->eval_at[i] >= 0.5 && in->eval_at[i] <= gs + 0.5 && in->eval_s[i] > 0) {
			ev[ne].at = in->eval_at[i];
			ev[ne].saved = in->save_steps <= 0 && wc__ft_save_follows(in, i);
			ev[ne++].len = in->eval_s[i] - (shortest ? wc__ft_setup_slack(in->eval_s[i]) : 0.0);
		}
	qsort(ev, ne, sizeof *ev, later_first);
	/* the saves every save_steps, latest first, and the one at the end */
	double next_save = in->save_steps > 0 && slen > 0 ? floor((gs + 0.5) / in->save_steps) * in->save_steps : 0.0;
	int trail = slen > 0 && in->trailing_save && !(in->save_steps > 0 && wc_ft_step_due(gs, in->save_steps));
	/* (one at global_step after its evaluation is that evaluation's) */
	for (size_t i = 0; trail && in->save_steps <= 0 && i < in->n_evals; i++)
		trail = !(fabs(in->eval_at[i] - gs) < 0.5 && wc__ft_save_follows(in, i));
	/* From the last step back, each step's evaluation and save is the
	 * session's when the steps left still reach back before it: the
	 * session began after a save (the checkpoint it resumed from), which
	 * is the earlier session's. */
	for (;;) {
		double s = e < ne ? ev[e].at : 0.0, len = 0.0;
		s = fmax(s, next_save >= 0.5 ? next_save : 0.0);
		s = trail ? fmax(s, gs) : s;
		if (!(s >= 0.5))
			break;
		for (; e < ne && fabs(ev[e].at - s) < 0.5; e++) {
			len += ev[e].len + (ev[e].saved && saves > 0 ? slen : 0.0);
			saves -= ev[e].saved && saves > 0;
		}
		/* no more of them than the trace shows: a schedule the run did
		 * not keep (a state's save_steps over a session of other saves)
		 * is no time of the session's */
		if (next_save >= 0.5 && fabs(next_save - s) < 0.5) {
			len += saves > 0 ? slen : 0.0;
			saves -= saves > 0;
			next_save -= in->save_steps;
		}
		if (trail && fabs(gs - s) < 0.5) {
			len += slen;
			trail = 0;
		}
		if (!(s > gs - (rt - acc - len) / step_s))
			break;
		acc += len;
	}
	free(ev);
	return (rt - acc) / step_s;
}

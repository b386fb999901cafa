/*
 * The pauses of a fine-tuning trace (docs/finetune.md, "What is not
 * training" and "Counting steps"): near-idle runs of bins (checkpoint
 * saves) and intermediate-power stretches, and the near-idle pauses that
 * recur once per step -- a long step's own low phase, such as a
 * data-loading stall at every step -- put back in the steps.
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

/* The period in samples: where the samples repeat exactly every `repeat`
 * (0 none) and the period is r / j of it within half a sample, r / j --
 * the repeat is a whole lag, where the parabola through the peak put
 * 0.9-s steps sampled every 0.3 s at 2.9995 samples and they were refused
 * as "not clear" (docs/finetune.md, "Counting steps"). */
static double
period_samples(const ft_grid *g, double period, size_t repeat)
{
	double k = period / g->dt;
	long long j = repeat > 0 && k > 0 ? llround((double)repeat / k) : 0;
	return j >= 1 && fabs((double)repeat / (double)j - k) < 0.5 ? (double)repeat / (double)j : k;
}

/* A clear period: a strong autocorrelation peak at least three samples
 * long (docs/finetune.md, "Counting steps"); the only one that counts
 * steps or goes in the row. */
int
wc__ft_period_clear(const ft_grid *g, double period, double acf, size_t repeat)
{
	return isfinite(period) && acf >= WC_FT_PERIOD_MIN_ACF &&
	       wc__ft_resolved(g, period_samples(g, period, repeat) * g->dt);
}

/* The pauses of a cycle's length or less -- the ones a step's own low
 * phase would draw -- counted into r with the energy they are left out
 * with as saves (wc__ft_stretch): what goes back into the steps, or the
 * other reading a warning gives, which then adds up to the window's. */
static int
sum_within(const ft_grid *g, const double *start, const double *len, size_t np, double cycle, ft_recur *r)
{
	double *scratch = wc_alloc_array(g->k1 - g->k0, sizeof *scratch), s, e;
	if (!scratch)
		return WC_ENOMEM;
	for (size_t i = 0; i < np; i++)
		if (len[i] < cycle) {
			size_t a = (size_t)llround(start[i] / g->dt), b = a + (size_t)llround(len[i] / g->dt);
			wc__ft_stretch(g, a, b, scratch, &s, &e);
			r->n++;
			r->energy_j += e;
		}
	free(scratch);
	return WC_OK;
}

/* Near-idle pauses that recur once per step are the steps' own low phase
 * (docs/finetune.md, "Counting steps"). Cut out as saves, 5-s steps ending
 * in 2.5 s at a quarter of the training power read -19 % energy per step
 * (-14 % for 6-s, -9 % for 9-s steps): the period, taken over what the
 * pauses left -- flat bursts -- was none, so the second pass with half of
 * it never ran. The evidence, in order: a trainer state's save interval
 * (global_step / save_steps saves) against pauses about as many as the
 * steps; else the trace alone, pauses regularly spaced between bursts of
 * one step each (as trace_bursts counts them) and no longer than those
 * bursts -- the rule that a step's own low phase is at most half the step
 * -- which a save after every step could also draw, so it is said. */
static int
recurring(ft_grid *g, const wc_ft_steps_info *in, double period, ft_recur *r)
{
	size_t cap = (g->k1 - g->k0) / 2 + 2, np = 0, nb = 0;
	double *start = wc_alloc_array(cap, sizeof *start), *len = wc_alloc_array(cap, sizeof *len);
	double *burst = wc_alloc_array(cap, sizeof *burst), *gap = wc_alloc_array(cap, sizeof *gap);
	int rc = WC_OK;
	memset(r, 0, sizeof *r);
	if (!start || !len || !burst || !gap) {
		rc = WC_ENOMEM;
		goto done;
	}
	for (size_t k = g->k0; k < g->k1;) {
		size_t a = k;
		int save = g->mark[k] == FT_SAVE;
		while (k < g->k1 && (g->mark[k] == FT_SAVE) == save)
			k++;
		if (save) {
			start[np] = (double)a * g->dt;
			len[np++] = (double)(k - a) * g->dt;
		} else if (np > 0 && k < g->k1) {
			burst[nb++] = (double)(k - a) * g->dt;
		}
	}
	if (np < 3 || nb < 2)
		goto done;
	for (size_t i = 0; i + 1 < np; i++)
		gap[i] = start[i + 1] - start[i];
	double cycle = wc_stats_median(gap, np - 1);
	size_t near = 0;
	for (size_t i = 0; i + 1 < np; i++)
		near += fabs(start[i + 1] - start[i] - cycle) <= 0.25 * cycle;
	memcpy(gap, len, np * sizeof *gap);
	r->len_s = wc_stats_median(gap, np);
	r->burst_s = wc_stats_median(burst, nb);
	r->cycle_s = cycle;
	r->found = (int)np;
	/* the steps run: a resumed run's re-run steps recur like the others
	 * (a crash at 137 resumed from checkpoint-100 ran 237 for a
	 * global_step of 200, and its 236 pauses were cut as saves) */
	double steps = isfinite(in->state_run_steps) ? in->state_run_steps
	               : isfinite(in->state_steps)   ? in->state_steps
	                                             : in->steps;
	if (isfinite(in->expected_saves) && in->save_steps > 0) {
		/* The trainer state says how many saves there are: the pauses
		 * are the steps' own only when far more numerous -- about one
		 * per step -- and the saves every save_steps >= 2 steps. */
		if (!(isfinite(steps) && fabs((double)np - steps) <= fmax(2.0, 0.1 * steps)))
			goto done;
		r->expected = in->expected_saves;
		r->steps = steps;
		if (in->save_steps < 2) {
			/* save_steps 1: a save after every step, as stated, and
			 * left out; but a step's own low phase draws the same
			 * pauses (-19 % energy per step if so, unsaid): said with
			 * the other reading when as short as twice the burst, as
			 * by the trace alone. */
			r->each_step = 1;
			r->cut = r->len_s < 2.0 * r->burst_s;
			if (r->cut)
				rc = sum_within(g, start, len, np, cycle, r);
			goto done;
		}
	} else {
		/* The trace alone: regular pauses between bursts of one step each. */
		if (4 * near < 3 * (np - 1) || r->burst_s > WC_FT_BURST_MAX_S ||
		    (isfinite(period) && !(r->burst_s < 1.5 * period)))
			goto done;
		r->trace_only = 1;
		if (!(r->len_s <= r->burst_s + g->dt)) {
			/* left out as a save after every step, said when as short as
			 * twice the burst */
			r->each_step = 1;
			r->cut = r->len_s < 2.0 * r->burst_s;
			if (r->cut)
				rc = sum_within(g, start, len, np, cycle, r);
			goto done;
		}
	}
	rc = sum_within(g, start, len, np, cycle, r);
done:
	free(start);
	free(len);
	free(burst);
	free(gap);
	return rc;
}

/* The intermediate stretches for steps of `step` s (3 s when NaN). */
static int
mark_midlevel_at(ft_grid *g, double step, const wc_ft_steps_info *in, wc_ft_steps_result *out, wc_error *err)
{
	int rc = WC_OK;
	step = isfinite(step) ? step : 3.0;
	/* Evaluations a trainer state lists are placed by their step and
	 * eval_runtime (finetune_state.c). Found by their swing first, one
	 * after the last step without a save read +2.0 % energy per step
	 * (tests/test_ft_state_run_end.c, why not yet known), and ones before
	 * a save went uncounted as placed: the swing rule waits for runs
	 * whose state lists none (docs/finetune.md, "What is not training"). */
	out->n_midlevel = wc__ft_mark_midlevel(g, fmax(3.0, 2.0 * step), fmax(WC_FT_MIDLEVEL_MIN_S, 3.0 * step),
	                                       in->n_evals == 0, err, &rc);
	return rc;
}

/* Mark the pauses; `hint` is the step period from step times (or NaN).
 * Without step times the period is not known yet: the near-idle pauses of
 * at least 2 s are found first, the period taken over what is left, and
 * the pauses found again with half that period as the shortest, so that a
 * step's own long low phase stays in the step -- unless the pauses recur
 * once per step (recurring(), above): then they go back whole, as the cut
 * left no period to find. (The period of the whole window would be the
 * saves' recurrence whenever the steps themselves are not resolved, e.g.
 * 2-s steps logged every second.) */
int
wc__ft_mark_pauses(ft_grid *g, double hint, const wc_ft_steps_info *in, wc_ft_steps_result *out, ft_recur *rec,
                   wc_error *err)
{
	int rc = WC_OK;
	memset(rec, 0, sizeof *rec);
	/* With a step log its save and evaluation rows (and a resume's
	 * restart, a step row far longer than the median) are already marked
	 * at their logged times; a near-idle run inside the steps is cut only
	 * when longer than a median step, which no step's own low phase is (a
	 * save in a row written every k steps without save rows still is).
	 * From half the median step, a 3-s data-loading stall in every 5-s
	 * step made 200 "saves": -26 % energy per step (docs/finetune.md, "What
	 * is not training"). */
	double shortest = !isfinite(hint) ? 0.0 : in->n_step_end > 0 ? hint : 0.5 * hint;
	out->n_saves = wc__ft_mark_saves(g, fmax(WC_FT_PAUSE_MIN_S, shortest));
	if (!isfinite(hint)) {
		double acf;
		size_t repeat = 0;
		/* Evaluations a trainer state lists recur every eval_steps: at
		 * intermediate power and left in, their cycle set the period (90 s
		 * for 6-s steps with an evaluation every 10 at 77 % of the training
		 * power), and half of it, the shortest save, lost the 30-s saves.
		 * Marked first at the default step, they are not in it
		 * (docs/finetune.md, "What is not training"). */
		if (in->n_evals > 0 && (rc = mark_midlevel_at(g, NAN, in, out, err)) != WC_OK)
			return rc;
		if ((rc = wc__ft_period(g, 1, &hint, &acf, NULL, &repeat, err)) != WC_OK)
			return rc;
		for (size_t k = g->k0; k < g->k1; k++)
			if (g->mark[k] == FT_MIDLEVEL)
				g->mark[k] = FT_ACTIVE;
		/* Only a clear period: one found where the steps are not resolved
		 * would throw the saves back in. */
		if (!wc__ft_period_clear(g, hint, acf, repeat) || wc__ft_eval_cycle(g, in, hint) ||
		    wc__ft_stated_cycle(g, in, hint))
			hint = NAN;
		/* With no count, a clear period holding one intermediate stretch
		 * each is their cycle, no step (wc__ft_midlevel_cycle). */
		if (isfinite(hint) && in->n_evals == 0) {
			if ((rc = mark_midlevel_at(g, NAN, in, out, err)) != WC_OK)
				return rc;
			if (wc__ft_midlevel_cycle(g, in, hint, out->n_midlevel))
				hint = NAN;
			for (size_t k = g->k0; k < g->k1; k++)
				if (g->mark[k] == FT_MIDLEVEL)
					g->mark[k] = FT_ACTIVE;
			out->n_midlevel = 0;
		}
		if (recurring(g, in, hint, rec) != WC_OK)
			return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		if (rec->n > 0 && !rec->cut) {
			/* Put back; what is left is at least a whole cycle long,
			 * which no step's own phase is. */
			for (size_t k = g->k0; k < g->k1; k++)
				if (g->mark[k] == FT_SAVE)
					g->mark[k] = FT_ACTIVE;
			out->n_saves = wc__ft_mark_saves(g, fmax(WC_FT_PAUSE_MIN_S, rec->cycle_s));
			hint = rec->cycle_s;
		} else if (rec->each_step) {
			/* A save after every step: the bursts between are one step
			 * each, and the period was read across them, each cut short
			 * by the half second beside its pauses (gather()). It means
			 * nothing, and the search from half of it lost the saves: 1-s
			 * readings of 5-s steps with a 16-s save after each read a
			 * clear 4-59 s in 45 of 200 synthetic runs, and the 17 over
			 * twice a save kept 0 to 30 of their 39 saves: +19 to +90 %
			 * energy per step with a stated count (docs/finetune.md,
			 * "What is not training"). */
			hint = NAN;
		} else if (isfinite(hint) && 0.5 * hint > WC_FT_PAUSE_MIN_S) {
			for (size_t k = g->k0; k < g->k1; k++)
				if (g->mark[k] == FT_SAVE)
					g->mark[k] = FT_ACTIVE;
			out->n_saves = wc__ft_mark_saves(g, 0.5 * hint);
		}
	}
	return mark_midlevel_at(g, hint, in, out, err);
}

/* Said with the energy per step of the other reading (docs/finetune.md,
 * "Counting steps"): the trace alone cannot tell a step's own low phase
 * from a save after every step. Each gives its reading and what would
 * tell first, the counts after: ingest cuts the line at 255 bytes after
 * the run's folder (docs/finetune.md, "A stated count against the
 * trace"). What would tell is what the run lacks: a trainer state with
 * no save_steps needs its save_steps, not itself. */
void
wc__ft_recur_warn(const ft_recur *r, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	if (r->n == 0 || !(out->steps > 0))
		return;
	double now = out->energy_per_step_j;
	const char *tell = in->n_step_end > 0          ? "on_save rows in steps.csv would tell"
	                   : isfinite(in->state_steps) ? "a steps.csv or save_steps in trainer_state.json would tell"
	                                               : "a step log or trainer_state.json would tell";
	/* The numbers the rule weighed: all the pauses against the steps run,
	 * then those shorter than their spacing put back, the rest saves. It
	 * named only those put back (212 of 299) against global_step. */
	if (!r->trace_only && r->cut)
		WC_WARN(out, "saves: left out as the save after every step save_steps 1 states; a step log would tell: "
		        "%d near-idle pauses of %.1f s after bursts of %.1f s, one a step; were they the steps' own low "
		        "phase, energy per step would be %.0f J, not %.0f", r->n, r->len_s, r->burst_s,
		        (out->active_energy_j + r->energy_j) / out->steps, now);
	else if (!r->trace_only)
		WC_WARN(out, "saves: %d near-idle pauses (median %.1f s) recur about once per step (%.0f steps run, "
		        "global_step / save_steps implies %.0f saves): the %d shorter than their median spacing "
		        "(%.1f s) are the steps' own low phase and stay in, %d stay out as saves",
		        r->found, r->len_s, r->steps, r->expected, r->n, r->cycle_s, out->n_saves);
	else if (!r->cut)
		WC_WARN(out, "pauses: counted as the steps' own low phase; %s: %d near-idle pauses of %.1f s recur every "
		        "%.2f s after bursts of %.1f s; were they a save after every step, energy per step would be "
		        "%.0f J, not %.0f", tell, r->n, r->len_s, r->cycle_s, r->burst_s,
		        (out->active_energy_j - r->energy_j) / out->steps, now);
	else
		WC_WARN(out, "pauses: left out as a save after every step; %s: %d near-idle pauses of %.1f s after bursts "
		        "of %.1f s; were they the steps' own low phase, energy per step would be %.0f J, not %.0f", tell,
		        r->n, r->len_s, r->burst_s, (out->active_energy_j + r->energy_j) / out->steps, now);
}

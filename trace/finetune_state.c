/*
 * What a Hugging Face trainer_state.json says beyond its step count
 * (docs/finetune.md): a resumed run, its evaluations, and the cross-checks
 * of saves and train_runtime against the trace.
 *
 * The evaluations a Hugging Face trainer_state.json lists (docs/finetune.md,
 * "Evaluations a trainer state lists"): its log_history holds, for each,
 * the step it follows and its eval_runtime, but no time. An evaluation
 * far below the training power is a pause the trace shows (near-idle, or
 * an intermediate stretch); one near it is not, and was charged to the
 * steps: 30-s evaluations at 91 % of the training power every 50 of 200
 * 2-s steps put +27 % on energy per step, with a warning that blamed a
 * resumed run. Here each evaluation is placed where its step number puts
 * it -- the steps spread evenly over the window's training time -- and,
 * unless the trace already shows a pause there, a stretch of its length
 * is taken out, as a logged evaluation is: the one its save's pause ends
 * (the Trainer evaluates, then saves), the one ending the window for the
 * evaluation after the last step, else the one near that place with the
 * lowest mean power; one at step 0 (eval_on_start) is placed before
 * the first step. The step numbers place it only when they are the
 * run's executed steps: not for a resumed run, which re-ran the steps
 * after its checkpoint, nor when another count is used.
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"

#include "models/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grid bins of evaluation i's eval_runtime. */
static size_t
eval_bins(const ft_grid *g, const wc_ft_steps_info *in, size_t i)
{
	return (size_t)fmax(1.0, floor(in->eval_s[i] / g->dt + 0.5));
}

/* Median length of the near-idle pauses found in the window, s; 0 none:
 * the saves'. With the evaluations placed (`state` 1 for one a pause the
 * trace shows, starting at bin at[i]), a pause that is an evaluation
 * followed by its save counts as the save only, and one that is an
 * evaluation alone not at all: with near-idle evaluations merged into
 * their saves (20 s and 45 s), the save after the last step was taken as
 * 65 s, which put that evaluation, near-idle and past the window, inside
 * it and took 20 s of steps out for it (-13.5 % energy per step). */
static double
median_save_s(const ft_grid *g, const wc_ft_steps_info *in, const unsigned char *state, const size_t *at)
{
	double *len = wc_alloc_array(g->k1 > g->k0 ? 2 * (g->k1 - g->k0) : 1, sizeof *len), m = 0.0, *raw;
	size_t n = 0, nr = 0, half = g->k1 > g->k0 ? g->k1 - g->k0 : 0;
	if (!len)
		return 0.0;
	raw = len + half;
	/* Not placed (a resumed run's, state NULL): by length, as the
	 * evaluations' median eval_runtime e tells them -- within its setup's
	 * slack an evaluation alone, longer one merged with its save when the
	 * state puts a save after some evaluation, its save l - e. Every
	 * pause was taken as a save: a resume's 25-s evaluations, 37-s
	 * evaluation-and-save and 40-s restart made the save after the last
	 * step 31 s, not 12, and 'window' said 55 s follow the last step for
	 * 37 (docs/finetune.md, "Counting steps"). A restart, no save, counts
	 * as one merged. */
	double e = NAN;
	int merged = 0;
	double *es = !state && in->eval_s && in->n_evals > 0 ? wc_alloc_array(in->n_evals, sizeof *es) : NULL;
	if (es) {
		for (size_t i = 0; i < in->n_evals; i++) {
			es[i] = in->eval_s[i];
			merged |= wc__ft_save_follows(in, i);
		}
		e = wc_stats_median(es, in->n_evals);
		free(es);
	}
	size_t k = g->k0, a;
	while (wc__ft_next_run(g, FT_SAVE, &k, &a)) {
		size_t i = 0, ne = state ? in->n_evals : 0;
		double l = (double)(k - a) * g->dt;
		raw[nr++] = l;
		while (i < ne && !(state[i] == 1 && at[i] == a))
			i++;
		if (isfinite(e) && fabs(l - e) <= wc__ft_setup_slack(l))
			continue;
		if (isfinite(e))
			len[n++] = merged && l > e ? l - e : l;
		else if (i == ne)
			len[n++] = l;
		else if (wc__ft_save_follows(in, i) && l > in->eval_s[i])
			len[n++] = l - in->eval_s[i];
	}
	if (n > 0)
		m = wc_stats_median(len, n);
	else if (nr > 0)
		m = wc_stats_median(raw, nr);
	free(len);
	return m;
}

/* How far off its eval_runtime a near-idle pause `pause_s` long may be
 * and still be that evaluation alone: eval_runtime leaves out the
 * evaluation's setup (WC_FT_EVAL_SETUP_SHARE). */
double
wc__ft_setup_slack(double pause_s)
{
	return fmax(WC_FT_PAUSE_MIN_S, WC_FT_EVAL_SETUP_SHARE * pause_s);
}

/* Are near-idle pauses of pause_lo to pause_hi s the evaluations alone,
 * of eval_runtime eval_lo to eval_hi? Each as long as an evaluation to
 * within WC_FT_PAUSE_MIN_S; or, with a save due after only `some` of
 * them (it would lengthen theirs, and so their spread), all off their
 * eval_runtime by the same to within that, by at most
 * WC_FT_EVAL_SETUP_SHARE of the shortest pause: eval_runtime leaves the
 * evaluation's setup out. 26-s eval_runtimes of 30-s near-idle pauses
 * read them as saves, put a 30-s save after the last step and the
 * evaluation there inside the window: 26 s of steps were taken out
 * (-6.5 % energy per step; 22 s -5.5 %, 36 s -9.0 %). With a save due
 * after every one, a shift as long may be those saves. */
static int
pauses_are_evals(double pause_lo, double pause_hi, double eval_lo, double eval_hi, int some)
{
	double lo = pause_lo - eval_lo, hi = pause_hi - eval_hi, slack = wc__ft_setup_slack(pause_lo);
	if (lo > -WC_FT_PAUSE_MIN_S && hi < WC_FT_PAUSE_MIN_S)
		return 1;
	return some && fabs(hi - lo) < 2.0 * WC_FT_PAUSE_MIN_S && fabs(lo) <= slack && fabs(hi) <= slack;
}

/* The first evaluation of a run does once what the later ones reuse,
 * part of it before eval_runtime's clock starts (the eval dataloader
 * Trainer.evaluate prepares first, kept with persistent workers; the
 * first switch to eval mode): its pause runs longer than theirs. With no save due after it, it is
 * judged apart (docs/finetune.md, "Evaluations a trainer state lists"):
 * the others by pauses_are_evals, and it off its eval_runtime by at least
 * their least excess (to WC_FT_PAUSE_MIN_S) and by at most their greatest
 * plus WC_FT_EVAL_SETUP_SHARE of its pause. A 40-s first pause among 30-s
 * ones, all of 26-s eval_runtimes, broke their common excess: the pauses
 * were read as saves and 26 s of steps taken out (-6.5 % energy per step;
 * a 36-s first the same). `first_s`/`first_rt`: its pause and eval_runtime;
 * the ranges are the others'. */
static int
pauses_are_evals_slow_first(double first_s, double first_rt, double pause_lo, double pause_hi, double eval_lo,
                            double eval_hi)
{
	double d = first_s - first_rt, lo = pause_lo - eval_lo, hi = pause_hi - eval_hi;
	return pauses_are_evals(pause_lo, pause_hi, eval_lo, eval_hi, 1) && d > fmin(lo, hi) - WC_FT_PAUSE_MIN_S &&
	       d <= fmax(lo, hi) + wc__ft_setup_slack(first_s);
}

/* Each evaluation starts as shown: from none shown, the steps' time is
 * short by the evaluations' and every place comes early, too early to
 * find the pauses that are there (near-idle evaluations at 330 W were
 * taken out a second time, from the steps). One at step 0
 * (eval_on_start) runs before the first step, where the steps' clock
 * puts it; it starts as outside the window, judged in place(). Sets
 * `first` and `last` (the one after the last step), n_evals for none. */
static void
start_states(const wc_ft_steps_info *in, unsigned char *state, size_t *first, size_t *last)
{
	*first = *last = in->n_evals;
	for (size_t i = 0; i < in->n_evals; i++) {
		double s = in->eval_at[i];
		state[i] = 1;
		if (!(s >= 0 && s <= in->steps + 0.5 && in->eval_s[i] > 0))
			state[i] = 2;
		else if (s > in->steps - 0.5)
			*last = i;
		else if (s < 0.5 && *first == in->n_evals)
			state[(*first = i)] = 2;
	}
}

/* Place the evaluations: which the trace already shows as a pause (fixed
 * point over the step clock: each one shown is not in the active time),
 * then the others where their save or the window's end puts them, else at
 * their lowest stretch. `slow_first`: the evaluation whose pause was
 * judged the run's first, setup and all (pauses_are_evals_slow_first);
 * n_evals none. */
static int
place(ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, size_t slow_first)
{
	ft_clock c;
	size_t n = in->n_evals, last = n, first = n;
	unsigned char *state = wc_alloc_zeroed(n ? n : 1, 1); /* 0 active, 1 shown, 2 outside */
	unsigned char *fixed = wc_alloc_zeroed(n ? n : 1, 1);
	size_t *at = wc_alloc_array(n ? n : 1, sizeof *at);
	double steps = in->steps, window = (double)(g->k1 - g->k0) * g->dt, ts = NAN;
	if (!state || !at || !fixed || !wc__ft_clock_build(g, &c)) {
		free(fixed);
		free(state);
		free(at);
		wc__ft_clock_free(&c);
		return 0;
	}
	start_states(in, state, &first, &last);
	int adj_active = wc__ft_start_adjacent(g, &c, in, out, state, first, last);
	for (int iter = 0; iter < 4; iter++) {
		double undetected = 0, before = 0, anchor_s = 0, anchor_step = 0, rest, local = NAN;
		size_t shown = 0, others = 0, taken = (size_t)-1;
		for (size_t i = 0; i < n; i++)
			undetected += state[i] == 0 ? in->eval_s[i] : 0.0;
		ts = ((double)c.na * g->dt - undetected) / steps;
		rest = ts;
		/* Evaluations not found as pauses that outlast the steps' time:
		 * their eval_runtime is not this trace's (or a resumed run's
		 * earlier one); none is placed, and the row says why rather than
		 * leaving them out without a word */
		if (!(ts > 0)) {
			out->evals_unfit_s = undetected;
			out->n_evals_unplaced += (int)n;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (state[i] == 2 && i != last && i != first)
				continue;
			/* from the last pause found: at the steps' pace since the
			 * one before (`local`), else spread over the time left */
			double tau = anchor_s + (in->eval_at[i] - anchor_step) * rest + before,
			       near = anchor_s + (in->eval_at[i] - anchor_step) * local + before;
			/* at training power, the pause next to it is its save */
			int forced = adj_active && i != first && wc__ft_save_follows(in, i);
			double len = in->eval_s[i];
			size_t k = forced || !isfinite(local) ? (size_t)-1 : wc__ft_found_pause(g, &c, near, len, 0.5 * len, taken);
			tau = k != (size_t)-1 ? near : tau;
			size_t kb = wc__ft_clock_bin(g, &c, tau);
			k = forced || k != (size_t)-1 ? k : wc__ft_found_pause(g, &c, tau, len, 0.5 * len, taken);
			size_t sb = forced ? wc__ft_save_before(g, &c, tau, len) : (size_t)-1,
			       sa = forced && sb == (size_t)-1 ? wc__ft_save_after(g, &c, tau, len, eval_bins(g, in, i))
			                                       : (size_t)-1;
			/* the save's pause says where it starts (saved first) or ends */
			fixed[i] = sb != (size_t)-1 || sa != (size_t)-1;
			kb = sb != (size_t)-1 ? sb : sa != (size_t)-1 ? sa : kb;
			/* the one before the first step keeps where it was put
			 * until it is judged below: taken as training power from the
			 * start, it moved every other place early by its length, too
			 * early to find the near-idle pauses there */
			state[i] = k != (size_t)-1 ? 1 : i == first && state[i] != 1 ? state[i] : 0;
			taken = k != (size_t)-1 ? k : taken;
			at[i] = k != (size_t)-1 ? k : kb;
			before += state[i] == 0 ? in->eval_s[i] : 0.0;
			/* A pause found is where its step ends on the clock: the
			 * next is looked for at the pace of the steps since the
			 * pause found before, then with the steps after it spread
			 * over the active time after it, less the evaluations
			 * still in it. Spread evenly from the window's start, steps
			 * 30 % slower after step 105 put the evaluations after
			 * steps 75-150 up to 30 s early, past the pauses that were
			 * them, and took 90 s of steps out for three (-18 % energy
			 * per step; docs/finetune.md, "Evaluations a trainer state
			 * lists"). */
			if (k != (size_t)-1 && i != last && i != first && in->eval_at[i] < steps - 0.5) {
				double left = 0.0;
				for (size_t j = i + 1; j < n; j++)
					left += state[j] == 0 ? in->eval_s[j] : 0.0;
				double at_s = (double)c.sum_a[k - g->k0] * g->dt,
				       r = ((double)c.na * g->dt - at_s - left) / (steps - in->eval_at[i]);
				double pace = (at_s - anchor_s - before) / (in->eval_at[i] - anchor_step);
				if (r > 0 && in->eval_at[i] > anchor_step) {
					local = pace > 0 ? pace : NAN;
					anchor_s = at_s;
					anchor_step = in->eval_at[i];
					rest = r;
					before = 0.0;
				}
			}
			if (i != last && i != first) {
				shown += state[i] == 1;
				others++;
			}
		}
		/* The evaluations at the ends: one the trace does not show as
		 * a pause is in the window when it draws training power, and
		 * outside it when near-idle (the window is where the power is
		 * high). Before the first step the other evaluations tell which
		 * -- the same evaluation at the same power; after the last step
		 * train_runtime, which holds it (and the one before the first
		 * step, when that is outside), does, else the others. With no
		 * others both ends go together by train_runtime. */
		double rt = in->train_runtime_s, lead = 0.0, after_s = in->trailing_save ? median_save_s(g, in, state, at) : 0.0;
		int by_rt = isfinite(rt) && !out->resumed, pair = first < n && state[first] != 1 && others == 0;
		if (first < n && state[first] != 1 && !pair)
			state[first] = 2 * shown > others ? 2 : 0;
		if (pair) {
			double r = in->eval_s[first] + (last < n && state[last] == 0 ? in->eval_s[last] : 0.0);
			int outside = by_rt && fabs(window + r + after_s - rt) < fabs(window + after_s - rt);
			state[first] = outside ? 2 : 0;
			if (last < n && state[last] == 0)
				state[last] = outside ? 2 : 0;
		}
		lead = first < n && state[first] == 2 ? in->eval_s[first] : 0.0;
		if (last < n && state[last] == 0 && !pair) {
			double r = in->eval_s[last];
			int outside = by_rt ? fabs(window + lead + r + after_s - rt) < fabs(window + lead + after_s - rt)
			                    : others > 0 && 2 * shown > others;
			state[last] = outside ? 2 : 0;
		}
		out->lead_eval_out_s = lead;
		out->save_s = after_s;
	}
	int placed = 0, unplaced = 0;
	size_t prev[2] = { 0, 0 };
	for (size_t i = 0; i < n && ts > 0; i++) {
		if (state[i] == 1) {
			/* a near-idle pause far longer than the evaluation holds the
			 * save after it too (the Trainer evaluates, then saves), and
			 * so does one with a save due after it, however short the
			 * save (60-s evaluations merged with 10-s saves were said to
			 * leave 0 of 3 saves) */
			size_t e = at[i];
			while (e < g->k1 && g->mark[e] == g->mark[at[i]])
				e++;
			double l = (double)(e - at[i]) * g->dt;
			out->n_evals_in_saves += g->mark[at[i]] == FT_SAVE && !wc__ft_save_follows(in, i) &&
			                         (l - in->eval_s[i] <= wc__ft_setup_slack(l) || i == slow_first);
			out->last_eval_in |= i == last;
			continue;
		}
		/* in a gap the job trained through (wc__ft_clock_build): its
		 * time is the gap's, left out already */
		if (state[i] != 0 || (at[i] < g->k1 && g->mark[at[i]] == FT_GAP))
			continue;
		size_t nr = eval_bins(g, in, i);
		/* the one after the last step ends the window, where the power
		 * falls: its last bin can be cut off (after a save it has no
		 * room before it) */
		if (i == last && at[i] < g->k1 && at[i] + nr > g->k1 && 2 * (g->k1 - at[i]) >= nr)
			nr = g->k1 - at[i];
		/* Where its save's pause puts it, or the window's end the one
		 * after the last step (the power falls after it): the stretch
		 * of lowest mean near its place took steps instead of evaluations
		 * drawing more than they (+2.7 % energy per step with 90-s ones at
		 * 540 W over 510-W steps). That stretch when free, else the
		 * lowest one. */
		size_t anchor = fixed[i] ? at[i] : i == last && g->k1 >= g->k0 + nr ? g->k1 - nr : (size_t)-1;
		size_t k = anchor != (size_t)-1 ? wc__ft_lowest_stretch(g, &c, anchor, nr, 0.0, prev) : (size_t)-1;
		k = k != (size_t)-1 ? k : wc__ft_lowest_stretch(g, &c, at[i], nr, 0.5 * in->eval_s[i], prev);
		if (k == (size_t)-1) {
			unplaced++;
			continue;
		}
		memset(g->mark + k, FT_LOGGED, nr);
		prev[0] = k;
		prev[1] = k + nr;
		out->last_eval_in |= i == last;
		placed++;
	}
	out->n_evals_placed = placed;
	out->n_logged += placed;
	out->n_evals_unplaced += unplaced;
	free(fixed);
	free(state);
	free(at);
	wc__ft_clock_free(&c);
	return 1;
}

/* Evaluation i is inside the run: after its first step, before its last. */
static int
eval_in_run(const wc_ft_steps_info *in, size_t i)
{
	return in->eval_at[i] >= 0.5 && in->eval_at[i] < in->steps - 0.5;
}

/* Are the trace's pauses the evaluations with a save due after them, not
 * those saves after evaluations at training power? The steps' clock
 * tells (start_adjacent): where each pause starts, and the step period
 * over the time left. 1 yes, 0 no, -1 out of memory. */
static int
evals_are_pauses(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out)
{
	ft_clock c;
	size_t first, last;
	unsigned char *state = wc_alloc_zeroed(in->n_evals ? in->n_evals : 1, 1);
	int built = state && wc__ft_clock_build(g, &c), r = -1;
	if (built) {
		start_states(in, state, &first, &last);
		r = !wc__ft_start_adjacent(g, &c, in, out, state, first, last);
		wc__ft_clock_free(&c);
	}
	free(state);
	return r;
}

void
wc__ft_cross_checks(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	/* Only the trainer state gives these (docs/finetune.md, "Measuring energy per step"):
	 * its evaluations found as near-idle pauses are no saves, those its step
	 * numbers could not place may be, and so may a resumed run's restart. */
	double saves = out->n_saves + out->n_logged - out->n_evals_placed - out->n_evals_in_saves;
	double extra = out->n_evals_unplaced + (out->resumed ? 1 : 0), tol = fmax(1.0, 0.1 * in->expected_saves);
	if (isfinite(in->expected_saves) && (saves < in->expected_saves - tol || saves > in->expected_saves + extra + tol))
		WC_WARN(out, "saves: the trainer state implies %.0f checkpoint saves (%s), %.0f near-idle pauses%s were "
		        "found", in->expected_saves, in->save_steps > 0 ? "global_step / save_steps" : "one after each "
		        "evaluation log_history lists", saves, extra > 0 ? " (some may be evaluations or a restart)" : "");
	if (out->saves_unseen > 0)
		WC_WARN(out, "saves: the trainer state puts a save after %d evaluations in the run, but the trace's "
		        "near-idle pauses are none or those evaluations alone: no save is taken there or after the last "
		        "step", out->saves_unseen);
	/* train_runtime holds the save and evaluation after the last step;
	 * the trace's window ends at the last step -- or at that evaluation,
	 * when it draws training power and was placed in the window. Without
	 * them, every Hugging Face run saving and evaluating at its end (300-s
	 * runs, a 30-s eval and a 16-s save) was told to check its clocks.
	 * The save is as long as the saves found in the trace -- less the
	 * near-idle evaluations merged with them (60-s evaluations with 10-s
	 * saves put 130 s after the last step, not 70, and the run was told
	 * to check its clocks). */
	double save = !in->trailing_save ? 0.0 : out->save_s > 0 ? out->save_s : median_save_s(g, in, NULL, NULL);
	double trailing = (out->last_eval_in ? 0.0 : in->trailing_eval_s) + save + out->lead_eval_out_s;
	int off = isfinite(in->train_runtime_s) &&
	          fabs(out->window_s + trailing - in->train_runtime_s) > FT_RUNTIME_TOL * in->train_runtime_s;
	char why[96];
	if (isfinite(out->runtime_steps) && in->state_steps > (1 + FT_RUNTIME_TOL) * out->runtime_steps)
		snprintf(why, sizeof why, "train_runtime is its last session: %.0f steps at %.3f s", out->runtime_steps,
		         wc__ft_period_step_s(out));
	else
		snprintf(why, sizeof why, "log_history's steps go back");
	/* Each says its reason or remedy first, the durations after: ingest
	 * cuts the line at 255 bytes after the run's folder, and "(check the
	 * clocks and that the power log c..." was left of the remedy
	 * (docs/finetune.md, "A stated count against the trace"). */
	if (off && out->resumed)
		/* HF's train_runtime is the last train() call's: a resumed run's
		 * last session. The trace's window apart from what follows the
		 * last step, as below: 2371 s "by the trace" held 70 s of the
		 * trainer state's save and evaluation, the row's window 2301 s. */
		WC_WARN(out, "window: a resumed run (%s): training lasted %.0f s by the trace, %.0f s with %.0f s of save "
		        "and evaluation after the last step, train_runtime %.0f s by the trainer state", why,
		        out->window_s, out->window_s + trailing, trailing, in->train_runtime_s);
	else if (off && in->expected_eval_s >= in->train_runtime_s)
		/* The evaluations of a train() call run inside its train_runtime;
		 * more says eval_runtime is not this trace's (or lists a resumed
		 * run's earlier sessions): the trace is not what is off. */
		WC_WARN(out, "window: eval_runtime is not this trace's: training lasted %.0f s by the trace, %.0f s with "
		        "%.0f s of save and evaluation after the last step%s, train_runtime %.0f s by the trainer state, "
		        "whose evaluations add up to %.0f s", out->window_s, out->window_s + trailing, trailing,
		        out->lead_eval_out_s > 0 ? " and before the first" : "", in->train_runtime_s, in->expected_eval_s);
	else if (off)
		/* The window is the trace's; what follows the last step is the
		 * trainer state's evaluation and the trace's saves: 910 s "by the
		 * trace" held 250 s of evaluation the trace showed as 30 */
		WC_WARN(out, "window: check the clocks and that the power log covers the run: training lasted %.0f s by "
		        "the trace, %.0f s with %.0f s of save and evaluation after the last step%s, train_runtime %.0f s "
		        "by the trainer state", out->window_s, out->window_s + trailing, trailing,
		        out->lead_eval_out_s > 0 ? " and before the first" : "", in->train_runtime_s);
	/* The true reason, of those the trace and the state show: a resume
	 * inferred from train_runtime alone re-ran no step the log shows, and
	 * evaluations adding up to train_runtime or more are not its
	 * (docs/finetune.md, "Measuring energy per step") */
	char cause[112];
	if (out->evals_unfit_s > 0)
		snprintf(cause, sizeof cause, "%.0f s of eval_runtime not found as pauses, more than the trace's "
		         "training", out->evals_unfit_s);
	else if (in->state_restarts > 0)
		snprintf(cause, sizeof cause, "a resumed run re-ran steps");
	else if (isfinite(in->train_runtime_s) && in->expected_eval_s >= in->train_runtime_s)
		snprintf(cause, sizeof cause, "they add up to %.0f s, train_runtime %.0f s: eval_runtime is not this "
		         "trace's", in->expected_eval_s, in->train_runtime_s);
	else if (out->resumed)
		snprintf(cause, sizeof cause, "a resumed run: train_runtime holds %.0f of global_step's %.0f steps",
		         out->runtime_steps, in->state_steps);
	else
		snprintf(cause, sizeof cause, "its steps are not the count used");
	if (out->n_evals_unplaced > 0)
		WC_WARN(out, "evaluations: %d of the trainer state's were not placed in the trace (%s); any near "
		        "training power are counted as training: give steps.csv", out->n_evals_unplaced, cause);
	if (out->pause_s > 0.5 * out->window_s)
		WC_WARN(out, "pauses: %.0f of %.0f s of the window were left out as not training", out->pause_s,
		        out->window_s);
}

int
wc__ft_trainer_evals(ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, wc_error *err)
{
	out->runtime_steps = NAN;
	if (!isfinite(in->state_steps))
		return WC_OK;
	/* HF's train_runtime covers the last train() call only: a run resumed
	 * from a checkpoint reports the second session's time, which holds
	 * fewer steps than global_step (a crash at 137 resumed from
	 * checkpoint-100: 284 s for 200 steps of 2 s), and every resumed run
	 * was told to check its clocks. At the step the period reads: a
	 * 13-s period of two 6.5-s steps read a complete run as a resume.
	 * Less the session's evaluations and saves, which train_runtime
	 * holds too (finetune_session.c). */
	double most = NAN;
	if (out->period_clear && isfinite(in->train_runtime_s)) {
		out->runtime_steps = wc__ft_session_steps(g, in, wc__ft_period_step_s(out), 0);
		/* judged with the evaluations at their shortest: eval_runtime
		 * 36 s over 30-s pauses made a single session a resume */
		most = wc__ft_session_steps(g, in, wc__ft_period_step_s(out), 1);
	}
	out->resumed = in->state_restarts > 0 || (isfinite(most) && in->state_steps > (1 + FT_RUNTIME_TOL) * most);
	if (in->n_evals == 0)
		return WC_OK;
	if (out->resumed || !(fabs(in->steps - in->state_steps) < 0.5) || g->k1 <= g->k0) {
		out->n_evals_unplaced = (int)in->n_evals;
		return WC_OK;
	}
	if (out->period_clear && wc__ft_count_refused(g, in, out)) {
		out->n_evals_unplaced = (int)in->n_evals; /* refused (finetune_steps.c) */
		return WC_OK;
	}
	/* A save schedule the trace shows none of is not the run's: a
	 * state's save_steps at or below global_step whose saves never ran
	 * (save_strategy "no" keeps the default 500; an edited state) read
	 * the pause after each evaluation it puts a save after as that save,
	 * and took 30-s stretches of steps out for evaluations the trace had
	 * already left out (-9.9 % energy per step, saves every 100 and none
	 * in the trace). With no near-idle pause in the window where saves
	 * are due after evaluations inside it, no save follows them
	 * (docs/finetune.md, "Evaluations a trainer state lists"). */
	wc_ft_steps_info local = *in;
	unsigned char *none = NULL;
	size_t due = 0, inside = 0, first = in->n_evals, np = 0;
	/* [0] all in the run, [1] all but the first evaluation (and pause) */
	double eval_lo[2] = { INFINITY, INFINITY }, eval_hi[2] = { 0.0, 0.0 }, pause_lo[2] = { INFINITY, INFINITY },
	       pause_hi[2] = { 0.0, 0.0 }, first_s = 0.0;
	int before = 0; /* an evaluation before the first step (eval_on_start) did the setup */
	for (size_t i = 0; i < in->n_evals; i++) {
		int in_run = eval_in_run(in, i);
		before |= in->eval_at[i] < 0.5 && in->eval_s[i] > 0;
		inside += in_run;
		due += in_run && wc__ft_save_follows(in, i);
		if (in_run && (first == in->n_evals || in->eval_at[i] < in->eval_at[first]))
			first = i;
	}
	for (size_t i = 0; i < in->n_evals; i++) {
		int in_run = eval_in_run(in, i);
		for (int r = 0; r < 1 + (i != first) && in_run; r++) {
			eval_lo[r] = fmin(eval_lo[r], in->eval_s[i]);
			eval_hi[r] = fmax(eval_hi[r], in->eval_s[i]);
		}
	}
	for (size_t k = g->k0, a = k; k < g->k1; k++) {
		a = k > g->k0 && g->mark[k - 1] == FT_SAVE ? a : k;
		if (g->mark[k] == FT_SAVE && (k + 1 == g->k1 || g->mark[k + 1] != FT_SAVE)) {
			double l = (double)(k + 1 - a) * g->dt;
			first_s = np++ == 0 ? l : first_s;
			for (int r = 0; r < 1 + (np > 1); r++) {
				pause_lo[r] = fmin(pause_lo[r], l);
				pause_hi[r] = fmax(pause_hi[r], l);
			}
		}
	}
	/* ... nor where the near-idle pauses are the evaluations alone: one
	 * per evaluation in the run, each as long as an evaluation to a
	 * save's shortest (with a save after some, theirs ran longer), the
	 * first, with no save due after it, judged apart when it ran the
	 * setup (none at step 0 before it). Short saves after evaluations at
	 * training power are as many as those evaluations, with none
	 * between: with a save due after every one, the steps' clock tells
	 * which the pauses are. Taken for saves, the
	 * evaluations' pauses put a save of their length after the last step,
	 * the evaluation there near-idle inside the window, and stretches of
	 * steps were taken out (-10 % energy per step with evaluations and
	 * saves every 100 of 300 steps, -20 % every 20). */
	int one_each = out->n_saves > 0 && (size_t)out->n_saves == inside;
	int evals_alone = one_each && pauses_are_evals(pause_lo[0], pause_hi[0], eval_lo[0], eval_hi[0], due < inside);
	size_t slow_first = in->n_evals;
	if (one_each && !evals_alone && inside >= 2 && np == inside && !before && !wc__ft_save_follows(in, first) &&
	    pauses_are_evals_slow_first(first_s, in->eval_s[first], pause_lo[1], pause_hi[1], eval_lo[1], eval_hi[1]))
	{
		evals_alone = 1;
		slow_first = first;
	}
	if (evals_alone && inside == due && due > 0 && (evals_alone = evals_are_pauses(g, in, out)) < 0)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	/* The save at the last step alone (save_steps = global_step, or the
	 * Trainer's at max_steps) is no different: a LoRA adapter's save too
	 * short to show, taken as one as long as the evaluations, put the
	 * one after the last step inside the window and 30-s stretches of
	 * steps were taken out (-30 % energy per step; docs/finetune.md,
	 * "Evaluations a trainer state lists"). */
	if ((out->n_saves == 0 || evals_alone) && (due > 0 || in->trailing_save)) {
		if (!(none = wc_alloc_zeroed(in->n_evals, 1)))
			return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		local.eval_saved = none;
		local.trailing_save = 0;
		out->saves_unseen = (int)due;
	}
	int ok = place(g, &local, out, slow_first);
	free(none);
	if (!ok)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	return WC_OK;
}

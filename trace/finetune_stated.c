/*
 * A count a trainer state or the manifest states against the trace's own
 * step period (docs/finetune.md, "A stated count against the trace").
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/warnings.h"

/* Whether the last train() call's train_runtime holds as many steps as
 * the trace counts, `traced`: a resumed run's last session alone, when
 * the state counts more (docs/finetune.md, "A stated count against the
 * trace"). */
static int
runtime_holds(const wc_ft_steps_result *out, double traced)
{
	return isfinite(out->runtime_steps) && fabs(out->runtime_steps / traced - 1.0) <= FT_RUNTIME_TOL;
}

/* A stated count against the trace's own clear period (docs/finetune.md,
 * "A stated count against the trace"). A checkpoint-N/ state counts the
 * steps up to its save: a run that crashed or hit its time limit after it
 * goes on in the power log, and its steps were split over too few -- +80 %
 * energy per step for a crash 37 steps after checkpoint-50, with no
 * warning. That is refused, not warned (a row's warning does not stop a
 * fit from using it), when the period counts more by over
 * WC_FT_COUNT_MAX_DISAGREE; the remedy is a count the user states. Any
 * disagreement beyond what the period itself is known to is said: its lag
 * is read to within half a grid bin either way, so one bin over the
 * period. A run resumed from a checkpoint re-runs the steps after it and
 * its final state counts them once: +18.5 % energy per step for a crash at
 * step 137 resumed from checkpoint-100, under the 20 % and silent before. */
int
wc__ft_stated_vs_period(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, wc_error *err)
{
	/* less a checkpoint's evaluations at training power, when they did
	 * not bring the count within the refusal (finetune_state_end.c) */
	double traced = (out->active_s - out->evals_hidden_s) / out->period_s, ratio = traced / in->steps;
	double known = g->dt / out->period_s;
	const char *file = in->steps_file ? in->steps_file : "wattcast-run.json";
	/* a count the user stated is not asked for again */
	const char *give = in->steps_source && strcmp(in->steps_source, "manifest") == 0 ? "" : "finetune.steps or ";
	if (!(fabs(ratio - 1.0) > known))
		return WC_OK;
	/* by the step the period reads: micro-steps of grad_accum are no
	 * steps the run went on with (finetune_state_end.c) */
	if (wc__ft_went_on(g, in, out, (out->active_s - out->evals_hidden_s) / wc__ft_period_step_s(out)))
		return wc_error_set_path(err, WC_EINVAL, file,
		                         " was saved at global_step %.0f, but the trace's step period %.3f s over "
		                         "%.0f s%s gives %.0f steps: the run went on after that save; give finetune.steps "
		                         "in wattcast-run.json or a steps.csv", in->steps, out->period_s,
		                         out->active_s - out->evals_hidden_s,
		                         out->evals_hidden_s > 0 ? " (evaluations out)" : "", traced);
	/* The other way: a power log that stopped early (or started late)
	 * covers fewer steps than the state's count, and the energy it holds
	 * was split over them all: -40 % energy per step for an 8xH100 log
	 * cut at 60 % of its run, -50 % for a 1-GPU one cut in half, with a
	 * warning only. Refused when the trace shows it too: training power at
	 * an end of the log, or a window well short of train_runtime. A count
	 * the user states is the remedy, and is not refused. */
	const int by_state = in->steps_source && strcmp(in->steps_source, "trainer_state") == 0;
	/* A log the trace shows stopping before the run did -- its steps by
	 * the period, the evaluations after steps it never reaches left out
	 * (finetune_state_end.c) -- is refused once the count is short beyond
	 * what the period is known to: a log cut at 189 of 200 steps, under the
	 * 20 %, was kept with a warning (-12.7 % energy per step, -5.5 % with
	 * its evaluations counted right). The other
	 * signs (a log starting at training power, whose steps the period
	 * cannot place, and a resumed run's last session) keep the 20 %. */
	const int ends_short = wc__ft_log_ends_short(g, in, out);
	if (by_state && ratio < 1.0 && (ends_short || 1.0 / ratio > 1.0 + WC_FT_COUNT_MAX_DISAGREE)) {
		char why[96] = "";
		if (ends_short == 1)
			snprintf(why, sizeof why, "ends at training power");
		else if (ends_short == 2)
			snprintf(why, sizeof why, "spans %.0f s, train_runtime %.0f s", out->window_s,
			         in->train_runtime_s);
		else if ((double)g->k0 * g->dt <= WC_FT_LOG_EDGE_S)
			snprintf(why, sizeof why, "starts at training power");
		/* A resumed run's last session alone: train_runtime (the last
		 * train() call's) holds as many steps as the log, global_step
		 * the earlier sessions' too (-70 % energy per step for 60 of
		 * 200; docs/finetune.md, "A stated count against the trace").
		 * Not when global_step is a whole multiple of the period's count
		 * (out->period_steps): a period that is a multiple of the step
		 * agrees with train_runtime by construction, and runtime_steps
		 * is at the step it reads. */
		else if (runtime_holds(out, traced) && out->period_steps < 2)
			snprintf(why, sizeof why, "holds train_runtime's %.0f s (a resumed run's last session?)",
			         in->train_runtime_s);
		/* The remedy names no count: the period's (an 80-s evaluation
		 * cycle read as the step asked for --steps 8 of global_step's
		 * 200, 38x the energy per step had it been followed) is a
		 * reading the user checks, not one to state against the
		 * trainer state (docs/finetune.md, "A stated count against the
		 * trace"). */
		if (why[0])
			return wc_error_set_path(err, WC_EINVAL, file,
			                         " gives %.0f steps, the trace's period %.3f s over %.0f s %.0f (%+.0f %%), "
			                         "and the power log %s: it covers fewer; give --steps, finetune.steps or "
			                         "a steps.csv",
			                         in->steps, out->period_s, out->active_s - out->evals_hidden_s, traced,
			                         100.0 * (ratio - 1.0), why);
	}
	/* A period of k steps (steps that alternate, or sampled every
	 * second), or a step of k periods (micro-steps): the count is told
	 * by neither a resume nor a short log, with the evaluations at
	 * training power out at that step (finetune_state_end.c) */
	if (out->period_steps > 1) {
		/* train_runtime agrees with either reading: a resumed session
		 * of 1/k of the steps is told, not refused */
		/* the reading and the remedy first, as below */
		WC_WARN(out, "steps: steps of %.3f s, %d per period of the trace%s used as stated: give steps.csv; %s "
		        "gives %.0f, the period (%.3f s) %.0f over %.0f s (to %.1f %%, evaluations at training power "
		        "out)", wc__ft_period_step_s(out), out->period_steps,
		        isfinite(in->train_runtime_s) ? ", or a resumed run's last session?" : ";", file, in->steps,
		        out->period_s, traced, out->active_s, 100.0 * known);
		return WC_OK;
	}
	if (out->period_steps < -1) {
		/* a period of one micro-step, or of several when fewer a step */
		char what[64];
		int k = -out->period_steps, per = in->grad_accum / k;
		if (per > 1)
			snprintf(what, sizeof what, "periods of %d micro-steps (grad_accum %d)", per, in->grad_accum);
		else
			snprintf(what, sizeof what, "micro-steps of grad_accum %d", in->grad_accum);
		WC_WARN(out, "steps: %s, not steps run again; used as stated: give steps.csv; %s gives %.0f steps, the "
		        "trace's period %.3f s %.0f over %.0f s of training, %d a step (to %.1f %%)", what, file,
		        in->steps, out->period_s, traced, out->active_s, k, 100.0 * known);
		return WC_OK;
	}
	/* A count that already holds the steps a resume ran again (stated, or
	 * the state's log_history going back) leaves the resume nothing to
	 * explain; its evaluations, not placed because it resumed
	 * (docs/finetune.md, "Evaluations a trainer state lists"), are what is
	 * left in the steps: blaming the resume sent users to --steps, which
	 * was already the count. */
	int rerun_counted = in->state_restarts > 0 || (in->steps_source && strcmp(in->steps_source, "manifest") == 0);
	double evals_s = 0.0;
	for (size_t i = 0; in->eval_s && i < in->n_evals; i++)
		evals_s += in->eval_s[i];
	/* The evaluations are the cause only when their share accounts for the
	 * excess to within what the period is known to; a stated count need
	 * not hold the re-runs (--steps 200 for 237 steps run), so the rest is
	 * said, not put on them (docs/finetune.md, "A stated count against
	 * the trace"). */
	double evals_share = evals_s / out->period_s / in->steps;
	int evals_part = ratio - 1.0 - evals_share > known;
	if (ratio > 1.0 && out->resumed && rerun_counted && out->n_evals_unplaced > 0 && evals_s > 0.0 && evals_part)
		WC_WARN(out, "steps: re-run steps not in the count, or unlisted pauses? used as stated: give steps.csv; "
		        "%s gives %.0f steps, the period %.0f (%+.1f %%, known to %.1f %%): its %d unplaced "
		        "evaluations (%.0f s) %+.1f %%, the rest %+.1f %% unexplained", file, in->steps, traced,
		        100.0 * (ratio - 1.0),
		        100.0 * known, out->n_evals_unplaced, evals_s, 100.0 * evals_share,
		        100.0 * (ratio - 1.0 - evals_share));
	else if (ratio > 1.0 && out->resumed && rerun_counted && out->n_evals_unplaced > 0 && evals_s > 0.0)
		WC_WARN(out, "steps: unplaced evaluations in the steps, not a resume; used as stated: give steps.csv; %s "
		        "gives %.0f steps (re-runs in), the period %.0f (%+.1f %%, known to %.1f %%): its %d unplaced "
		        "evaluations (%.0f s, %+.1f %%)", file, in->steps, traced, 100.0 * (ratio - 1.0), 100.0 * known,
		        out->n_evals_unplaced, evals_s, 100.0 * evals_share);
	/* A resume is named only when the trainer state shows one, or when
	 * no evaluation it lists can explain the surplus: 30-s evaluations at
	 * training power were blamed on a resume that never happened. The
	 * cause and the remedy first, the counts after: printed after the
	 * run's folder, the message is cut at 255 bytes, and "used as s..."
	 * was all that was left of them (docs/finetune.md, "A stated count
	 * against the trace"), as of the other warnings here naming a resume.
	 * Steps ran again, not "twice": a surplus of +300 % is no one re-run. */
	else if (ratio > 1.0 && (out->resumed || in->n_evals == 0))
		/* Not shown a resume, the surplus may be evaluations nothing lists
		 * at a level the steps' own dips hide: 3 x 30 s at 77 % of the
		 * training power among steps with a data-loading dip were blamed
		 * on a resume alone (+15.0 %). */
		WC_WARN(out, "steps: %s give %ssteps.csv; used as "
		        "stated: %s gives %.0f, the trace's period (%.3f s over %.0f s of training) %.0f (%+.1f %%, "
		        "known to %.1f %%)", out->resumed ? "a resumed run: steps after its checkpoint ran again:"
		                                          : "re-run steps of a resume, or unlisted evaluations?",
		        give, file, in->steps, out->period_s,
		        out->active_s, traced, 100.0 * (ratio - 1.0), 100.0 * known);
	else if (ratio > 1.0)
		/* the cause and the remedy first, as above */
		WC_WARN(out, "steps: unlisted pauses? used as stated: give steps.csv; %s gives %.0f steps, the trace's step "
		        "period (%.3f s over %.0f s of training) %.0f (%+.1f %%, known to %.1f %%), beyond its %zu "
		        "evaluations (%d taken out, %d found as pauses)", file,
		        in->steps, out->period_s, out->active_s, traced, 100.0 * (ratio - 1.0), 100.0 * known,
		        in->n_evals, out->n_evals_placed, out->n_evals_in_saves);
	/* Fewer steps in the trace, as many as train_runtime holds, and no
	 * step going back: the power log is a resumed run's last session, and
	 * global_step counts the earlier ones too (-70 % energy per step for
	 * a resume of 60 steps after 140; docs/finetune.md, "Counting steps") */
	else if (ratio < 1.0 && out->resumed && in->state_restarts == 0 && runtime_holds(out, traced))
		WC_WARN(out, "steps: a resumed run's last session alone? train_runtime %.0f s holds the trace's steps: "
		        "give %ssteps.csv; used as stated: %s gives %.0f, the trace's period (%.3f s over %.0f s of "
		        "training) %.0f (%+.1f %%, known to %.1f %%)", in->train_runtime_s, give, file, in->steps,
		        out->period_s, out->active_s, traced, 100.0 * (ratio - 1.0), 100.0 * known);
	else
		WC_WARN(out, "steps: check it, or give a steps.csv; used as stated: %s gives %.0f steps, the trace's step "
		        "period (%.3f s over %.0f s of training) %.0f (%+.1f %%, known to %.1f %%)", file,
		        in->steps, out->period_s, out->active_s, traced, 100.0 * (ratio - 1.0), 100.0 * known);
	return WC_OK;
}

int
wc__ft_steps_too_short(const wc_ft_steps_result *out, const char *file, const char *what, const char *remedy,
                       wc_error *err)
{
	const double step = out->active_s / out->steps;
	if (step >= WC_FT_MIN_STEP_S)
		return WC_OK;
	return wc_error_set_path(err, WC_EINVAL, file, "%s steps of %.3g s over %.0f s of training, under %g s, shorter "
	                         "than any optimizer step: %s", what, step, out->active_s, WC_FT_MIN_STEP_S, remedy);
}

/* A step log is counted as written, and a custom loop that numbers its
 * micro-batches (or samples) logs k rows per optimizer step: grad_accum 4
 * read 1200 steps for 300, -75 % energy per step, with the trace's clear
 * period exactly 4 of its steps and no word said. By the counts, as a
 * stated one is weighed (wc__ft_stated_vs_period): the micro-step rows'
 * median (0.45 s) leaves out the optimizer phase of the row that ends
 * each step. The trace cannot tell that from a period of k steps, so it
 * is said, not refused; a trainer state beside the log that agrees with
 * the period says which (docs/finetune.md, "A step log against the
 * trace"). The check and the remedy first: ingest cuts the line at 255
 * bytes after the run's folder. */
void
wc__ft_log_vs_period(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	const double logged = out->steps + out->warmup_steps, traced = out->active_s / out->period_s;
	const double known = g->dt / out->period_s, times = logged / traced;
	if (!out->period_clear || !wc__ft_is_multiple(times, known, 0))
		return;
	const int k = (int)round(times), ga = in->grad_accum;
	char what[64];
	if (ga > 1 && ga % k == 0)
		snprintf(what, sizeof what, "micro-steps of grad_accum %d?", ga);
	else if (ga > 0)
		snprintf(what, sizeof what, "micro-steps or samples? grad_accum %d", ga);
	else
		snprintf(what, sizeof what, "micro-steps or samples?");
	/* Two readings independent of the log -- the trainer state's count
	 * and the trace's period -- agree against it: its rows are k a step,
	 * and its count is divided by k (a micro-step log read 2471.9 J/step
	 * for 9837.6 with a warning, which does not stop a fit from using
	 * the row). Its times still place the window and its pauses. A
	 * refusal would ask for a count the run's own files give twice. */
	const double st = in->log_state_steps;
	if (isfinite(st) && fabs(st / traced - 1.0) <= known && fabs(st - logged) >= 0.5) {
		out->steps /= k;
		out->warmup_steps = (int)lround(out->warmup_steps / (double)k);
		out->log_rows_per_step = k;
		WC_WARN(out, "steps: steps.csv counted %d rows a step (%s), write state.global_step in its step column: "
		        "%s's %.0f steps and the trace's period %.3f s (%.0f) agree against its %.0f; %.0f steps", k,
		        ga > 1 && ga % k == 0 ? "micro-steps of grad_accum" : "micro-steps or samples",
		        in->log_state_file ? in->log_state_file : "trainer_state.json", st, out->period_s, traced, logged,
		        out->steps + out->warmup_steps);
	} else
		WC_WARN(out, "steps: check steps.csv's step column (%s): the trace's clear period %.3f s counts %.0f steps "
		        "for its %.0f, %d a step (to %.1f %%); its count is used", what, out->period_s, traced, logged, k,
		        100.0 * known);
}

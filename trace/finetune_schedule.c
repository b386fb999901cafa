/*
 * When a Hugging Face Trainer saved and evaluated (docs/finetune.md,
 * "Evaluations a trainer state lists"): the steps its log_history lists
 * evaluations at, the checkpoint-N/ folders of its saves, and the state's
 * save_steps only where those agree with it.
 *
 * The state keeps save_steps and eval_steps whatever the strategy: with
 * save_strategy and eval_strategy "epoch" both stay at the default 500,
 * while log_history lists the evaluations at each epoch's end (200, 400,
 * 600 of 600 steps), each followed by its save. Read as saves every 500
 * steps, no save followed an evaluation: 40-s evaluations at 92 % of the
 * training power were each taken for the 45-s save after it, two of three
 * stayed in the steps (+7.8 % energy per step) and a warning said they had
 * been taken out.
 */
#include "finetune_trace_internal.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
wc_ft_step_due(double step, double every)
{
	return every > 0 && fabs(remainder(step, every)) < 0.5;
}

int
wc__ft_save_follows(const wc_ft_steps_info *in, size_t i)
{
	return in->eval_saved ? in->eval_saved[i] : wc_ft_step_due(in->eval_at[i], in->save_steps);
}

/* Is there a checkpoint-`step`/ folder in `dir` (a save at that step)? */
static int
checkpoint_at(const char *dir, double step)
{
	char path[1100];
	struct stat st;
	if (!(step >= 1 && step <= 1e9))
		return 0;
	snprintf(path, sizeof path, "%s/checkpoint-%.0f", dir, step);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is step a listed evaluation's (after step 0)? */
static int
listed(const wc_trainer_state *st, double step)
{
	for (int i = 0; i < st->n_evals; i++)
		if (st->eval_at[i] >= 0.5 && fabs(st->eval_at[i] - step) < 0.5)
			return 1;
	return 0;
}

/* The checkpoint-N/ folders: whether all (but the one at global_step, a
 * save at the end) lie at multiples of `every` (`fit`), and at listed
 * evaluations (`paired`); how many there are, how many lie at multiples
 * of save_steps (`on`, the end's too), and the step of the last folder off
 * them (`off_at`, 0 none) with their number (`off`). */
static int
checkpoints(const char *dir, const wc_trainer_state *st, int *fit, int *paired, int *on, int *off, double *off_at)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	*fit = *paired = 1;
	*on = *off = 0;
	*off_at = 0;
	while (d && (e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "checkpoint-", 11) != 0)
			continue;
		long k = strtol(e->d_name + 11, &end, 10);
		if (*end != '\0' || !checkpoint_at(dir, (double)k))
			continue;
		n++;
		int due = wc_ft_step_due((double)k, st->save_steps);
		*on += due;
		if (k != st->global_step) {
			*fit &= due;
			*paired &= listed(st, (double)k);
			if (!due) {
				(*off)++;
				*off_at = (double)k;
			}
		}
	}
	if (d)
		closedir(d);
	return n;
}

void
wc__ft_state_schedule(const char *dir, const wc_trainer_state *st, wc_ft_steps_info *in, unsigned char *saved)
{
	double gs = st->global_step;
	int evals_fit = 1, dirs_fit, paired;
	/* The state's eval_steps is the Trainer's when every evaluation
	 * listed after step 0 falls on a multiple of it. */
	for (int i = 0; i < st->n_evals && st->eval_steps > 0; i++)
		if (st->eval_at[i] >= 0.5)
			evals_fit &= wc_ft_step_due(st->eval_at[i], st->eval_steps);
	int on, off;
	double off_at;
	int n_dirs = checkpoints(dir, st, &dirs_fit, &paired, &on, &off, &off_at);
	in->post_eval_s = st->post_eval_s;
	/* One folder off save_steps among folders on it is a save the
	 * schedule does not make -- a resume with another save_steps, a manual
	 * or preemption save, an output_dir reused from an earlier run -- not
	 * a schedule the state does not keep: checkpoint-50 beside
	 * checkpoint-100 and -300 of save_steps 100 voided it, 1 of 3
	 * evaluations went unplaced and energy per step read +4.6 %, unsaid.
	 * Taken as an extra save, left out where the trace shows one (the
	 * count's check allows one more), and said (ingest). */
	if (!dirs_fit && off == 1 && on >= 1 && st->save_steps > 0) {
		dirs_fit = 1;
		in->stray_checkpoint = off_at;
	}
	/* Its save_steps is the Trainer's when the checkpoint folders fit it,
	 * whatever the evaluations do: evaluations by epoch with saves every
	 * 100 steps were read as a save after each evaluation (3 for 6). Not
	 * when it shares the value of an eval_steps the evaluations contradict
	 * and no folder lies off the evaluations: both are then the state's
	 * untouched default (strategies by epoch, above). */
	int by_epoch = !evals_fit && st->save_steps == st->eval_steps && (n_dirs == 0 || paired);
	if (dirs_fit && (evals_fit || (st->save_steps > 0 && !by_epoch))) {
		in->save_steps = st->save_steps;
		if (st->save_steps > 0)
			in->expected_saves = floor(gs / st->save_steps);
		/* train_runtime runs to the end of what follows the last step:
		 * the Trainer saves there when global_step is a multiple of
		 * save_steps or max_steps (saves by steps end with one), as a
		 * checkpoint folder there shows, and evaluates when it is a
		 * multiple of eval_steps (the one log_history lists there when
		 * that is not the Trainer's). Without the save at max_steps 561
		 * an evaluation at training power there was put past the window
		 * (+3.5 % energy per step). Not at max_steps when save_steps is
		 * beyond it: no periodic save ran, and without a folder there
		 * nothing shows one -- save_strategy "no" keeps the default 500,
		 * and an assumed save took near-idle evaluations' places, 30-s
		 * stretches of steps taken out for them (-9.9 %). */
		in->trailing_save = wc_ft_step_due(gs, st->save_steps) || checkpoint_at(dir, gs) ||
		                    (st->save_steps > 0 && st->save_steps <= gs && st->global_step == st->max_steps);
		/* The one listed there is that evaluation; the log's mean only
		 * stands in for one not listed: a 690-s eval_runtime at step 100
		 * put 250 s of evaluation after the last step where the one
		 * listed there took 30 (docs/finetune.md, "Measuring energy per
		 * step"). */
		if (evals_fit && st->n_evals > 0 && wc_ft_step_due(gs, st->eval_steps))
			in->trailing_eval_s = st->eval_runtime_s / st->n_evals;
		for (int i = 0; i < st->n_evals; i++)
			if (fabs(st->eval_at[i] - gs) < 0.5)
				in->trailing_eval_s = st->eval_s[i];
		return;
	}
	/* Not the state's save_steps: a save follows an evaluation whose step
	 * has a checkpoint folder -- and each of them when the evaluations
	 * do not keep eval_steps (a strategy by epoch, whose saves go with
	 * the evaluations: load_best_model_at_end requires it) and no folder
	 * lies elsewhere. Saves every save_steps are then not known. */
	int with_evals = !evals_fit && (n_dirs == 0 || paired);
	double saves = 0;
	in->save_steps = 0;
	for (int i = 0; i < st->n_evals; i++) {
		double s = st->eval_at[i];
		saved[i] = (unsigned char)(s >= 0.5 && (with_evals || checkpoint_at(dir, s)));
		saves += saved[i];
		if (fabs(s - gs) < 0.5) {
			in->trailing_save |= saved[i];
			in->trailing_eval_s = st->eval_s[i];
		}
	}
	in->eval_saved = saved;
	in->trailing_save |= checkpoint_at(dir, gs);
	in->expected_saves = with_evals ? saves : NAN;
}

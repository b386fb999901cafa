/*
 * A trainer state whose evaluations add up to its train_runtime or more
 * (docs/finetune.md, "Measuring energy per step"): the evaluations of a
 * train() call run inside its train_runtime, so the state's eval_runtime
 * is not this trace's (or it lists a resumed run's earlier sessions,
 * whose evaluations the last call's train_runtime does not hold: not
 * refused). The window warning said "training lasted 910 s by the trace
 * (with 250 s of save and evaluation after the last step)" for a trace of
 * 660 s followed by a 30-s evaluation: the 250 s was the log's mean
 * eval_runtime, one of 690 s among them, for the 30 s the state lists at
 * the last step; and the evaluations, outlasting the steps' time, were
 * left unplaced without a word (their pauses counted as saves). A
 * synthetic one-GPU log at 100 ms of 200 2-s steps (1.6 s at 550 W, 0.4 s
 * at 350 W), a 30-s evaluation at 150 W after every 50th, no save.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */

/* The run with eval_runtime `first` at step 50 and `rest` at the others
 * (the train_runtime when first < 0); its stderr. */
static char *
run(const char *dir, const char *name, double first, double rest)
{
	static synth_trainer_wave v;
	char state[8192], *p = state, *err = NULL;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	double start = v.t;
	for (int k = 1; k <= 200; k++) {
		synth_trainer_add(&v, 1.6, 550.0);
		synth_trainer_add(&v, 0.4, 350.0);
		if (k % 50 == 0)
			synth_trainer_add(&v, 30.0, 150.0);
	}
	double rt = v.t - start;
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 50, \"save_steps\": 500,\n"
	             " \"eval_steps\": 50, \"log_history\": [\n");
	for (int s = 50; s <= 200; s += 50)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d}, {\"eval_loss\": 1.4, \"eval_runtime\": %.1f, \"step\": %d},\n",
		             s, s > 50 ? rest : first < 0 ? rt : first, s);
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", rt);
	char *folder = synth_trainer_folder(dir, name, &v, 9, 0.0, 0.0, state);
	wc_ft_table *t = synth_trainer_ingest(dir, folder, &err);
	CHECK(t != NULL);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%)\n%s", name, e, STEP_J, 100 * (e / STEP_J - 1), err);
		CHECK(fabs(e / STEP_J - 1) < 0.01);
	}
	wc_ft_table_free(t);
	free(folder);
	return err;
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_eval_sum");
	/* One evaluation as long as train_runtime: the one the state lists
	 * at the last step (30 s) follows it, and the trace's window, 490 s,
	 * and it make train_runtime; the evaluations are not placed, and the
	 * row says why. */
	char *err = run(dir, "one-as-long", -1, 30.0);
	CHECK(err == NULL || strstr(err, "window:") == NULL);
	CHECK_CONTAINS(err, "evaluations: 4 of the trainer state's were not placed in the trace (");
	CHECK_CONTAINS(err, " s of eval_runtime not found as pauses, more than the trace's training)");
	CHECK(err == NULL || strstr(err, "near-idle pauses were found") == NULL);
	free(err);
	/* Four of 400 s in a 520-s train_runtime: each alone within it, 1600 s
	 * together. The window is the trace's, the 400 s after it the state's. */
	err = run(dir, "sum-over", 400.0, 400.0);
	CHECK_CONTAINS(err, "window: eval_runtime is not this trace's: training lasted 490 s by the trace, 890 s with "
	               "400 s of save and evaluation after the last step, train_runtime 520 s by the trainer state, "
	               "whose evaluations add up to 1600 s");
	CHECK_CONTAINS(err, "evaluations: 4 of the trainer state's were not placed in the trace (1600 s of eval_runtime");
	free(err);
	free(dir);
	return check_report("test_ft_state_eval_sum");
}

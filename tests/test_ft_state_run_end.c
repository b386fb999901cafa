/*
 * `wattcast ingest` of fine-tuning runs counted by a trainer_state.json
 * (no step times) whose end the state tells (docs/finetune.md,
 * "Evaluations a trainer state lists"): synthetic one-GPU nvidia-smi logs
 * at 100 ms of 400 2-s steps (1.6 s at 550 W, 0.4 s at 350 W) with 30-s
 * evaluations.
 *
 * - No checkpointing (save_strategy "no"): the state keeps the default
 *   save_steps 500, past global_step = max_steps 400, so no save ran; read
 *   as a save after the last step (saves by steps end with one), the
 *   near-idle evaluations lost their places and 30-s stretches of steps
 *   were taken out for them (-9.9 % energy per step on an 8xH100 run).
 * - trainer.evaluate() after train(): its log_history entry follows the
 *   train_runtime one, at global_step, after the final save. Listed as
 *   the evaluation after the last step, 30 s of steps were taken out for
 *   it (-5.1 %); at training power it stayed in the window, on the steps
 *   (+2.3 %).
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */
#define STEPS 400

static double
extra(const wc_ft_table *t, const char *column)
{
	const char *v = wc_ft_table_get_extra(t, 0, column);
	return v ? atof(v) : NAN;
}

/* 400 steps, a 30-s evaluation at `eval_w` after every `eval_every`-th
 * (0: none; the state says 500),
 * a 16-s save after every `save_every`-th (0: none; the state says 500),
 * and with `post_w` > 0 a 30-s evaluation at that power after training,
 * logged after train_runtime. Energy per step must be within 1 %. */
static void
run_end(const char *dir, const char *name, int eval_every, double eval_w, int save_every, double post_w)
{
	static synth_trainer_wave v;
	char state[16384], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	double start = v.t;
	for (int k = 1; k <= STEPS; k++) {
		synth_trainer_add(&v, 1.6, 550.0);
		synth_trainer_add(&v, 0.4, 350.0);
		if (eval_every && k % eval_every == 0)
			synth_trainer_add(&v, 30.0, eval_w);
		if (save_every && k % save_every == 0)
			synth_trainer_add(&v, 16.0, 150.0);
	}
	double runtime = v.t - start;
	if (post_w > 0)
		synth_trainer_add(&v, 30.0, post_w);
	p += sprintf(p, "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, \"save_steps\": %d,\n"
	             " \"eval_steps\": %d, \"log_history\": [\n", STEPS, STEPS, save_every ? save_every : 500,
	             eval_every ? eval_every : 500);
	for (int s = 10; s <= STEPS; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (eval_every && s % eval_every == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"step\": %d},\n", s);
	}
	p += sprintf(p, "  {\"train_runtime\": %.1f, \"step\": %d}", runtime, STEPS);
	if (post_w > 0)
		p += sprintf(p, ",\n  {\"eval_loss\": 1.3, \"eval_runtime\": 30.0, \"step\": %d}", STEPS);
	sprintf(p, "]}\n");
	char *run = synth_trainer_folder(dir, name, &v, 17, 0.0, 0.0, state), *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%), %.0f saves, %.0f logged pauses\n%s", name, e,
		        STEP_J, 100 * (e / STEP_J - 1), extra(t, "saves"), extra(t, "logged_pauses"), err);
		CHECK(fabs(e / STEP_J - 1) < 0.01);
		/* the evaluations are pauses the trace shows, or at training
		 * power a stretch each; none is taken out twice */
		CHECK(extra(t, "logged_pauses") <= (eval_w > 450 && eval_every ? STEPS / eval_every : 0));
		CHECK(strstr(wc_ft_table_get_extra(t, 0, "warnings"), "saves:") == NULL);
		CHECK(strstr(wc_ft_table_get_extra(t, 0, "warnings"), "window:") == NULL);
	}
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_run_end");
	/* no checkpointing, near-idle evaluations every 50 steps */
	run_end(dir, "no-save", 50, 220.0, 0, 0.0);
	/* no checkpointing, evaluations at training power */
	run_end(dir, "no-save-busy", 50, 500.0, 0, 0.0);
	/* trainer.evaluate() after train(): near-idle, after the final save */
	run_end(dir, "post-eval", 100, 120.0, 100, 120.0);
	/* ... and at training power */
	run_end(dir, "post-eval-busy", 0, 0.0, 100, 500.0);
	/* ... without checkpointing, right after the last step */
	run_end(dir, "post-eval-no-save", 100, 500.0, 0, 500.0);
	free(dir);
	return check_report("test_ft_state_run_end");
}

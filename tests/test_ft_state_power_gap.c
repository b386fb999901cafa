/*
 * `wattcast ingest` of fine-tuning runs counted by a trainer_state.json
 * (no step times) whose power log has a gap (docs/finetune.md, "Window";
 * the gap rule of docs/formats/telemetry.md, "Time gaps"): synthetic
 * one-GPU nvidia-smi logs at 100 ms of 2-s steps (1.6 s at 550 W, 0.4 s
 * at 350 W) with a 16-s save at 150 W every 50 steps.
 *
 * - A requeued job: killed after step 240, requeued 10 minutes later,
 *   resumed from checkpoint-200 to 400; the logger died with the job and
 *   appended again (a second header), so the restart is a 600-s gap. The
 *   straight line across it, from training power down to the next
 *   session's model loading, spread values between every power state:
 *   the levels collapsed into one (low_w = training_w), the whole window
 *   counted as training, no save was found, and the line's energy was
 *   charged to the steps (+33 % energy per step on an 8xH100 run; here
 *   more). The gap's bins are out of the levels and of the energy, and the
 *   row says what was left out.
 * - The logger stopped for 60 s in mid-training: the steps run in the gap
 *   are in global_step but not in the power log; they are taken out of the
 *   count at the trace's period, and said.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */

static double
extra(const wc_ft_table *t, const char *column)
{
	const char *v = wc_ft_table_get_extra(t, 0, column);
	return v ? atof(v) : NAN;
}

/* Killed after step 240, 600 s of requeue without samples, resumed from
 * checkpoint-200 to 400; log_history 10..240, then 210..400. */
static void
requeued(const char *dir)
{
	static synth_trainer_wave v;
	char state[8192], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, 400, 50, 240, 0.0);
	double crash = v.t;
	synth_trainer_add(&v, 600.0, 75.0); /* the requeue: the logger is down with the job */
	double resume = v.t;
	synth_trainer_session(&v, 201, 400, 50, 0, 0.0);
	p += sprintf(p, "{\"global_step\": 400, \"max_steps\": 400, \"logging_steps\": 10, \"save_steps\": 50,\n"
	             " \"log_history\": [\n");
	for (int s = 10; s <= 240; s += 10)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
	for (int s = 210; s <= 400; s += 10)
		p += sprintf(p, "  {\"loss\": 1.4, \"step\": %d},\n", s);
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 400}]}\n", v.t - resume);
	char *run = synth_trainer_folder(dir, "requeued", &v, 13, crash, resume, state), *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "requeued: %.0f steps (truth 440), %.1f J/step (truth %.1f, %+.2f %%), %.0f saves (truth 7 "
		        "in the window), low %.0f W, training %.0f W\n%s", extra(t, "steps"), e, STEP_J,
		        100 * (e / STEP_J - 1), extra(t, "saves"), extra(t, "low_w"), extra(t, "training_w"), err);
		CHECK_NEAR(extra(t, "steps"), 440, 0);
		CHECK(fabs(e / STEP_J - 1) < 0.005);
		/* 50 to 350; the one after step 400 is past the window, and
		 * the next session's loading beside the gap is no save */
		CHECK_NEAR(extra(t, "saves"), 7, 0);
		CHECK(extra(t, "training_w") > 2 * extra(t, "low_w"));
		/* the gap's time is left out, not training */
		CHECK(extra(t, "excluded_s") >= 600);
		CHECK(strstr(wc_ft_table_get_extra(t, 0, "warnings"), "power.csv: 1 gap (600 s of the") != NULL);
	}
	CHECK_CONTAINS(err, "no measured power; none between training power on both sides (a stop or restart): no "
	               "step of the trainer_state count is taken to have run in it");
	CHECK(strstr(err, "a resumed run?") == NULL && strstr(err, "re-run steps of a resume") == NULL);
	wc_ft_table_free(t);
	free(err);
	free(run);
}

/* 200 steps; the logger down for 60 s from step 60 on (30 steps). With
 * `evals`, a 30-s evaluation at 480 W -- too near the steps' 510 W to
 * show as a pause -- before every save: the trainer state's evaluations,
 * placed on the steps' clock, were put 60 s late after the gap, on steps
 * (docs/finetune.md, "Evaluations a trainer state lists"). */
static void
trained_through(const char *dir, const char *name, int evals)
{
	static synth_trainer_wave v;
	char state[8192], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, 200, 50, 0, evals ? 480.0 : 0.0);
	/* idle, loading, steps 1..60 with a save (and an evaluation) between */
	double cut = v.s[2 + 2 * 60 + evals].b;
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": 50,\n"
	             " \"eval_steps\": 50, \"log_history\": [\n");
	for (int s = 10; s <= 200; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (evals && s % 50 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"step\": %d},\n", s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", v.t - 50.0);
	char *run = synth_trainer_folder(dir, name, &v, 13, cut, cut + 60.0, state), *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "%s: %.0f steps (truth 170 in the log), %.1f J/step (truth %.1f, %+.2f %%)\n%s", name,
		        extra(t, "steps"), e, STEP_J, 100 * (e / STEP_J - 1), err);
		CHECK(fabs(extra(t, "steps") - 170) <= 2);
		/* the truth is exact here: evaluations on steps read -1.1 % */
		CHECK(fabs(e / STEP_J - 1) < 0.005);
		CHECK_NEAR(extra(t, "saves"), 3, 0);
	}
	/* the remedy first: the printed line, cut at 255 bytes, keeps it; the
	 * row's warnings column has the count too */
	CHECK_CONTAINS(err, "left out: no measured power; give steps.csv: 60 s between training power held 30 steps at "
	               "the 2.000-s period (fewer if saves or evaluations fell there), taken out of the ");
	const char *w = t ? wc_ft_table_get_extra(t, 0, "warnings") : NULL;
	CHECK_CONTAINS(w ? w : "", "taken out of the trainer_state count of 200");
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_power_gap");
	requeued(dir);
	trained_through(dir, "trained-through", 0);
	trained_through(dir, "trained-through-evals", 1);
	free(dir);
	return check_report("test_ft_state_power_gap");
}

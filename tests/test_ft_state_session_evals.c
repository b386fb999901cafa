/*
 * A resumed run whose trainer state shows no resume but its
 * train_runtime (docs/finetune.md, "A resumed run in a trainer state"):
 * log_history, reloaded from the checkpoint, never goes back, and
 * train_runtime, the last train() call's, holds that session's
 * evaluations and saves besides its steps. Divided by the step alone, a
 * session of 300 steps with 30-s evaluations every 50 and saves every 100
 * read as 414 of global_step's 400 steps: no resume, and the evaluations
 * -- intermediate stretches the trace had left out already -- were placed
 * at the steps of an uninterrupted run and five 30-s stretches of steps
 * taken out again (logged_pauses 5, -16.8 % on the energy of the steps
 * run; a tester's 8xH100 run -2.6 % over global_step, the resume unsaid).
 * And where the resume was seen, the session was said to hold more steps
 * than it ran (204 for 150; the tester's "357 steps" for 300).
 * Synthetic one-GPU runs at 100 ms: 2-s steps (1.6 s at 550 W, 0.4 s at
 * 350 W), 30-s evaluations at 320 W, 16-s saves at 150 W.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */

static void
steps(synth_trainer_wave *v, int first, int last, int eval_every, int save_every)
{
	for (int k = first; k <= last; k++) {
		synth_trainer_add(v, 1.6, 550.0);
		synth_trainer_add(v, 0.4, 350.0);
		if (k % eval_every == 0)
			synth_trainer_add(v, 30.0, 320.0);
		if (k % save_every == 0)
			synth_trainer_add(v, 16.0, 150.0);
	}
}

/* `gs` steps, a crash after step `crash`, resumed from checkpoint-`from`:
 * the state's log is that of an uninterrupted run. */
static void
resumed(const char *dir, const char *name, int gs, int eval_every, int save_every, int crash, int from)
{
	static synth_trainer_wave v;
	char state[16384], *p = state, *err = NULL;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	steps(&v, 1, crash, eval_every, save_every);
	synth_trainer_add(&v, 60.0, 70.0); /* the crash and the restart */
	synth_trainer_add(&v, 30.0, 130.0);
	double resume = v.t;
	steps(&v, from + 1, gs, eval_every, save_every);
	p += sprintf(p, "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, \"save_steps\": %d,\n"
	             " \"eval_steps\": %d, \"log_history\": [\n", gs, gs, save_every, eval_every);
	for (int s = 1; s <= gs; s++) {
		if (s % 10 == 0)
			p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % eval_every == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"step\": %d},\n", s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": %d}]}\n", v.t - resume, gs);
	char *run = synth_trainer_folder(dir, name, &v, 31, 0.0, 0.0, state);
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	CHECK(t != NULL);
	if (t) {
		int ran = crash + gs - from;
		double e = t->runs[0].energy_per_step_j * gs / ran;
		char *out = path_join(dir, "out.csv"), *csv = test_slurp(out), logged[32], want[96];
		fprintf(stderr, "%s: %.1f J per step run (truth %.1f, %+.2f %%)\n%s", name, e, STEP_J,
		        100 * (e / STEP_J - 1), err);
		/* the energy of all steps run: no evaluation taken out twice */
		CHECK(fabs(e / STEP_J - 1) < 0.005);
		test_csv_field(csv, "logged_pauses", logged, sizeof logged);
		CHECK_INT((int)strtol(logged, NULL, 10), 0);
		/* the resume said, as without evaluations, and the session's
		 * steps without its evaluations and saves */
		snprintf(want, sizeof want, "(train_runtime is its last session: %d steps at 2.000 s)", gs - from);
		CHECK_CONTAINS(err, want);
		CHECK_CONTAINS(err, "steps: a resumed run: steps after its checkpoint ran again: give finetune.steps or "
		               "steps.csv");
		free(csv);
		free(out);
	}
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_session_evals");
	/* a crash at 150 resumed from checkpoint-100: 450 steps run, the
	 * resume seen only once the session's evaluations and saves are out */
	resumed(dir, "evals-every-50", 400, 50, 100, 150, 100);
	/* a crash at 180 resumed from checkpoint-150: seen before, but its
	 * session read as 204 steps for 150 */
	resumed(dir, "evals-every-75", 300, 75, 50, 180, 150);
	free(dir);
	return check_report("test_ft_state_session_evals");
}

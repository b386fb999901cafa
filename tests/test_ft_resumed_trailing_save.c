/*
 * What follows a resumed run's last step in the window warning
 * (docs/finetune.md, "Counting steps"): the evaluation after it and a save
 * as long as the trace's saves, an evaluation alone counting not at all,
 * one merged with its save only its save, a restart no save. A resumed
 * run's evaluations are not placed, and the save was the median of every
 * near-idle pause: 25-s evaluations, 37-s evaluation-and-save pauses and
 * the 40-s restart made it 31 s, so 'window' said 55 s follow the last
 * step for 37. One H100 at 100 ms: 2-s steps (1.6 s at 550 W, 0.4 s at
 * 350 W), a 25-s evaluation every 50 steps and a 12-s save every 100 at
 * 150 W; a crash after step 137, 40 s at 70 W, a resume from
 * checkpoint-100 to step 300.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
steps(synth_trainer_wave *v, int first, int last)
{
	for (int k = first; k <= last; k++) {
		synth_trainer_add(v, 1.6, 550.0);
		synth_trainer_add(v, 0.4, 350.0);
		if (k % 50 == 0)
			synth_trainer_add(v, 25.0, 150.0);
		if (k % 100 == 0)
			synth_trainer_add(v, 12.0, 150.0);
	}
}

int
main(void)
{
	char *dir = test_tmpdir("ft_resumed_trailing_save");
	static synth_trainer_wave v;
	char state[8192], *p = state, *err = NULL;
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	steps(&v, 1, 137);
	synth_trainer_add(&v, 40.0, 70.0); /* the crash and the restart */
	double resume = v.t;
	steps(&v, 101, 300);
	/* log_history as reloaded from checkpoint-100: no step goes back */
	p += sprintf(p, "{\"global_step\": 300, \"max_steps\": 300, \"logging_steps\": 10, \"save_steps\": 100,\n"
	             " \"eval_steps\": 50, \"log_history\": [\n");
	for (int s = 10; s <= 300; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % 50 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 25.0, \"step\": %d},\n", s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 300}]}\n", v.t - resume);
	char *run = synth_trainer_folder(dir, "resumed", &v, 7, 0.0, 0.0, state);
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	CHECK(t != NULL);
	fprintf(stderr, "%s", err ? err : "");
	const char *at = err ? strstr(err, "window: a resumed run (") : NULL;
	at = at ? strstr(at, " s by the trace, ") : NULL;
	double with = NAN, after = NAN;
	CHECK(at && sscanf(at, " s by the trace, %lf s with %lf s of save and evaluation after the last step", &with,
	                   &after) == 2);
	fprintf(stderr, "after the last step: %.0f s (a 25-s evaluation and a 12-s save)\n", after);
	CHECK(fabs(after - 37.0) <= 1.0);
	wc_ft_table_free(t);
	free(err);
	free(run);
	free(dir);
	return check_report("test_ft_resumed_trailing_save");
}

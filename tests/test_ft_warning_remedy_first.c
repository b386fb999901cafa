/*
 * More fine-tuning warnings that name a remedy give it first, the counts
 * after, as tests/test_ft_warning_remedy_cut.c checks for others: ingest
 * prints each after the run's folder and cuts the line at 255 bytes, and
 * under a long path "a steps.csv with step times would leave them out",
 * "a step log or trainer_state.json would tell" and "... a step log would
 * tell" were lost (docs/finetune.md, "A stated count against the trace").
 * The `pauses:` warning names what the run lacks: a trainer state without
 * save_steps is told its save_steps, not to give itself. And a steps.csv
 * a trainer state beside it contradicts on the count is said, as a
 * contradicted finetune.steps is (docs/finetune.md, "Counting steps").
 */
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LEAF "llama-3.1-8b-qlora-r64-b8-seq1024-very-long-experiment-name"
/* 2026/12/01 10:00:00 UTC, synth_trainer.c's first sample */
#define T0 1796119200.0

/* The printed line cut after the long folder holds `head` whole, and the
 * row's warnings column holds `head` and `whole`. */
static void
said(const char *err, const wc_ft_table *t, const char *head, const char *whole)
{
	char *line = test_line_with(err ? err : "", head);
	CHECK_CONTAINS(line, head);
	CHECK_CONTAINS(line, "/" LEAF ": ");
	CHECK(strlen(line) <= strlen("wattcast ingest: warning: ") + 255);
	const char *w = t ? wc_ft_table_get_extra(t, 0, "warnings") : NULL;
	CHECK(w != NULL);
	if (w) {
		CHECK_CONTAINS(w, head);
		CHECK_CONTAINS(w, whole);
	}
	free(line);
}

/* 100 steps of a `burst_s` burst at 550 W and `pause_s` at 150 W after each,
 * after 30 s of loading, in `dir`/`name`/LEAF with `state`. */
static char *
paused_run(const char *dir, const char *name, double burst_s, double pause_s, const char *state)
{
	static synth_trainer_wave v;
	v.n = 0;
	v.t = 0.0;
	synth_trainer_add(&v, 30.0, 130.0);
	for (int k = 0; k < 100; k++) {
		synth_trainer_add(&v, burst_s, 550.0);
		synth_trainer_add(&v, pause_s, 150.0);
	}
	char *sub = path_join(dir, name);
	mkdir(sub, 0755);
	char *run = synth_trainer_folder(sub, LEAF, &v, 7, 0, 0, state);
	free(sub);
	return run;
}

static double
energy_per_step(const wc_ft_table *t)
{
	return t && t->n_runs == 1 ? t->runs[0].energy_per_step_j : NAN;
}

int
main(void)
{
	char *dir = test_tmpdir("ft_warning_remedy_first");
	char *deep = test_deep_dir(dir); /* a cluster's scratch tree */
	char *err = NULL;
	/* A trainer state without save_steps, 3-s pauses after 3-s bursts:
	 * the steps' own low phase, or a save each? Its save_steps would
	 * tell, not the trainer_state.json it has. */
	char *run = paused_run(deep, "a", 3.0, 3.0, "{\"global_step\": 100, \"max_steps\": 100,\n"
	                                       " \"log_history\": [{\"step\": 100, \"train_runtime\": 600}]}\n");
	CHECK(strlen(run) > 200);
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	fprintf(stderr, "%s", err ? err : "");
	said(err, t, "warm-up: a steps.csv with step times would leave out slow leading steps (warm-up), counted as "
	     "training here: ", "trainer_state.json gives a step count without step times");
	said(err, t, "pauses: counted as the steps' own low phase; a steps.csv or save_steps in trainer_state.json "
	     "would tell: ", " near-idle pauses of 2.9 s recur every 6.00 s after bursts of 3.1 s; were they a save "
	     "after every step, energy per step would be ");
	CHECK(strstr(err ? err : "", "a step log or trainer_state.json would tell") == NULL);
	fprintf(stderr, "a: %.1f J per step\n", energy_per_step(t));
	wc_ft_table_free(t);
	free(err);
	free(run);
	/* The same state, 3-s pauses after 2-s bursts: left out as a save
	 * each, by the trace alone */
	run = paused_run(deep, "d", 2.0, 3.0, "{\"global_step\": 100, \"max_steps\": 100,\n"
	                                      " \"log_history\": [{\"step\": 100, \"train_runtime\": 500}]}\n");
	t = synth_trainer_ingest(dir, run, &err);
	fprintf(stderr, "%s", err ? err : "");
	said(err, t, "pauses: left out as a save after every step; a steps.csv or save_steps in trainer_state.json "
	     "would tell: ", " near-idle pauses of 2.9 s after bursts of 2.1 s; were they the steps' own low phase, "
	     "energy per step would be ");
	fprintf(stderr, "d: %.1f J per step\n", energy_per_step(t));
	wc_ft_table_free(t);
	free(err);
	free(run);
	/* save_steps 1 states a save after every step: 3-s pauses, left out */
	run = paused_run(deep, "b", 2.0, 3.0, "{\"global_step\": 100, \"max_steps\": 100, \"save_steps\": 1,\n"
	                                 " \"log_history\": [{\"step\": 100, \"train_runtime\": 500}]}\n");
	t = synth_trainer_ingest(dir, run, &err);
	fprintf(stderr, "%s", err ? err : "");
	said(err, t, "saves: left out as the save after every step save_steps 1 states; a step log would tell: ",
	     " near-idle pauses of 2.9 s after bursts of 2.1 s, one a step; were they the steps' own low phase, "
	     "energy per step would be ");
	wc_ft_table_free(t);
	free(err);
	free(run);
	/* A steps.csv of 100 steps beside a trainer state of 90: the step
	 * log counts, and says so, what is used first. */
	static synth_trainer_wave v;
	synth_trainer_session(&v, 1, 100, 20, 0, 0.0);
	char *sub = path_join(deep, "c");
	mkdir(sub, 0755);
	run = synth_trainer_folder(sub, LEAF, &v, 5, 0, 0,
	                           "{\"global_step\": 90, \"max_steps\": 100, \"save_steps\": 20,\n"
	                           " \"log_history\": [{\"step\": 90, \"train_runtime\": 240}]}\n");
	char *steps = path_join(run, "steps.csv");
	FILE *f = fopen(steps, "w");
	CHECK(f != NULL);
	if (f) {
		/* synth_trainer_session's: 30 s of loading, 2-s steps, a 16-s save
		 * after every 20th */
		fprintf(f, "step,epoch_s,event\n0,%.3f,start\n", T0 + 30.0);
		for (int k = 1; k <= 100; k++) {
			double end = T0 + 30.0 + 2.0 * k + 16.0 * ((k - 1) / 20);
			fprintf(f, "%d,%.3f,step\n", k, end);
			if (k % 20 == 0)
				fprintf(f, "%d,%.3f,save\n", k, end + 16.0);
		}
		fclose(f);
	}
	t = synth_trainer_ingest(dir, run, &err);
	fprintf(stderr, "%s", err ? err : "");
	said(err, t, "steps: steps.csv's count is used; ", "trainer_state.json gives 90 steps, steps.csv 100");
	const char *src = t ? wc_ft_table_get_extra(t, 0, "step_source") : NULL;
	CHECK(src && strcmp(src, "step_log") == 0);
	wc_ft_table_free(t);
	free(err);
	/* within half a step they agree: nothing said */
	char *state = path_join(run, "trainer_state.json");
	CHECK_INT(write_text(state, "{\"global_step\": 100, \"max_steps\": 100, \"save_steps\": 20}\n"), 0);
	t = synth_trainer_ingest(dir, run, &err);
	CHECK(strstr(err ? err : "", "steps.csv's count is used") == NULL);
	wc_ft_table_free(t);
	free(err);
	free(state);
	free(steps);
	free(sub);
	free(run);
	free(deep);
	free(dir);
	return check_report("test_ft_warning_remedy_first");
}

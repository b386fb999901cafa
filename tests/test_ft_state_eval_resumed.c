/*
 * An evaluation's eval_runtime against what holds it (docs/formats/
 * finetune-telemetry.md, "Step logs"). A resumed run whose first session
 * crashed writes no train_runtime for it, and log_history, reloaded from
 * the checkpoint, keeps that session's evaluations: they were refused as
 * longer than the resumed call's train_runtime, the next one in the log
 * (300-s evaluations at steps 70 and 140, a crash after the save at 140,
 * a resume training steps 141..200 in 120 s: "/log_history/15/eval_runtime:
 * 300 s is longer than train_runtime 120 s"). The log does not say where a
 * session began, so no train_runtime bounds an evaluation; the power log,
 * which holds the run's training, does: 5000 s listed in a single-session
 * run whose power log spans 703.9 s is still refused, with its JSON path.
 * Synthetic one-GPU runs at 100 ms: 2-s steps (1.6 s at 550 W, 0.4 s at
 * 350 W), evaluations and 16-s saves at 150 W.
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
steps(synth_trainer_wave *v, int first, int last, int every, double eval_s)
{
	for (int k = first; k <= last; k++) {
		synth_trainer_add(v, 1.6, 550.0);
		synth_trainer_add(v, 0.4, 350.0);
		if (k % every == 0) {
			synth_trainer_add(v, eval_s, 150.0);
			synth_trainer_add(v, 16.0, 150.0);
		}
	}
}

/* Session 1: steps 1..140, a 300-s evaluation and a save after 70 and 140,
 * then killed; session 2 from checkpoint-140: steps 141..200 in 120 s. */
static void
resumed(const char *dir)
{
	static synth_trainer_wave v;
	char state[8192], *p = state, *err = NULL;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	steps(&v, 1, 140, 70, 300.0);
	synth_trainer_add(&v, 60.0, 70.0); /* the crash and the restart */
	synth_trainer_add(&v, 30.0, 130.0);
	double resume = v.t;
	steps(&v, 141, 200, 70, 300.0);
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": 70,\n"
	             " \"eval_steps\": 70, \"log_history\": [\n");
	for (int s = 10; s <= 200; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % 70 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 300.0, \"step\": %d},\n", s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", v.t - resume);
	CHECK_NEAR(v.t - resume, 120.0, 1e-9);
	char *run = synth_trainer_folder(dir, "resumed-near-end", &v, 21, 0.0, 0.0, state);
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "resumed-near-end: %.1f J/step (truth %.1f, %+.2f %%)\n%s", e, STEP_J,
		        100 * (e / STEP_J - 1), err);
		CHECK(fabs(e / STEP_J - 1) < 0.01);
	}
	CHECK(err == NULL || strstr(err, "not a real eval_runtime") == NULL);
	wc_ft_table_free(t);
	free(err);
	free(run);
}

/* One session of 225 steps, a 30-s evaluation and a save after every 50th,
 * the state listing `first` s at step 50: refused when no power log could
 * hold it. */
static void
single(const char *dir, const char *name, const char *first, const char *want)
{
	static synth_trainer_wave v;
	char state[8192], *p = state, *out = path_join(dir, "single.csv");
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0);
	double start = v.t;
	steps(&v, 1, 225, 50, 30.0);
	p += sprintf(p, "{\"global_step\": 225, \"max_steps\": 225, \"logging_steps\": 25, \"save_steps\": 50,\n"
	             " \"eval_steps\": 50, \"log_history\": [\n");
	for (int s = 25; s <= 225; s += 25) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % 50 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": %s, \"step\": %d},\n", s == 50 ? first : "30.0",
			             s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 225}]}\n", v.t - start);
	char *run = synth_trainer_folder(dir, name, &v, 22, 0.0, 0.0, state);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	if (want) {
		CHECK(r.status != 0);
		CHECK_CONTAINS(r.err, want);
		CHECK(r.err == NULL || strlen(r.err) < 255 + strlen(run) + 64);
	} else {
		CHECK_INT(r.status, 0);
	}
	fprintf(stderr, "%s: exit %d\n%s", name, r.status, r.err ? r.err : "");
	run_result_free(&r);
	free(run);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_eval_resumed");
	resumed(dir);
	single(dir, "over-span", "5000",
	       "trainer_state.json: /log_history/2/eval_runtime: 5000 s is longer than the power log, 703.9 s from its "
	       "first sample to its last, which holds the run's training: not a real eval_runtime");
	single(dir, "absurd", "1e300", "/log_history/2/eval_runtime: 1e+300 s is longer than the power log");
	single(dir, "negative", "-20", "/log_history/2/eval_runtime: expected the evaluation's seconds (>= 0), got -20");
	/* as long as the whole log: not refused (the evaluations do not fit
	 * the trace and the row says so) */
	single(dir, "within-span", "600", NULL);
	free(dir);
	return check_report("test_ft_state_eval_resumed");
}

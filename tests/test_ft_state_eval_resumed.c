/*
 * An evaluation's eval_runtime against what holds it (docs/formats/
 * finetune-telemetry.md, "Step logs"). A resumed run whose first session
 * crashed writes no train_runtime for it, and log_history, reloaded from
 * the checkpoint, keeps that session's evaluations: they were refused as
 * longer than the resumed call's train_runtime, the next one in the log
 * (300-s evaluations at steps 70 and 140, a crash after the save at 140,
 * a resume training steps 141..200 in 120 s: "/log_history/15/eval_runtime:
 * 300 s is longer than train_runtime 120 s"), and with one power log per
 * session -- the resumed one's, 189.9 s -- as longer than the power log.
 * The log does not say where a session began, and nothing in a run's files
 * tells an earlier session's long evaluation from an absurd value: one
 * that cannot fit in the power log is not placed, with a warning naming
 * it, and only one below 0 or past a week (WC_FT_MAX_EVAL_S) is refused.
 * 5000 s listed in a single-session run whose power log spans 703.9 s
 * leaves energy per step as it is (+20.8 % when it was taken out).
 * With 100-s evaluations, which fit in that log, they were left unplaced
 * because "a resumed run re-ran steps", though the log's steps never go
 * back: the reason is their sum, 200 s against train_runtime 120 s; and
 * the -70 % step count (global_step 200, 60 in the log) was kept with a
 * warning (305.8 J/step for 1020.0), where train_runtime shows the log is
 * the last session's: refused, naming --steps 60, which reads it right.
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
resumed(const char *dir, int own_log, double eval_s)
{
	static synth_trainer_wave v;
	char state[8192], *p = state, *err = NULL;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	steps(&v, 1, 140, 70, eval_s);
	synth_trainer_add(&v, 60.0, 70.0); /* the crash and the restart */
	synth_trainer_add(&v, 30.0, 130.0);
	double resume = v.t;
	if (own_log) { /* the resumed session's power log alone */
		memset(&v, 0, sizeof v);
		synth_trainer_add(&v, 20.0, 70.0);
		synth_trainer_add(&v, 30.0, 130.0);
		resume = v.t;
	}
	steps(&v, 141, 200, 70, eval_s);
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": 70,\n"
	             " \"eval_steps\": 70, \"log_history\": [\n");
	for (int s = 10; s <= 200; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % 70 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": %.1f, \"step\": %d},\n", eval_s, s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", v.t - resume);
	CHECK_NEAR(v.t - resume, 120.0, 1e-9);
	const char *name = !own_log ? "resumed-near-end" : eval_s > 150 ? "resumed-own-log" : "resumed-own-log-100";
	char *run = synth_trainer_folder(dir, name, &v, 21, 0.0, 0.0, state);
	if (own_log) {
		/* the trace holds the 60 steps train_runtime does, and
		 * global_step all 200: energy per step over 200 is wrong by
		 * construction (305.8 J for 1020.0 with a warning), refused
		 * naming no count: the user gives the one it covers */
		char *out = path_join(dir, "out.csv");
		const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		fprintf(stderr, "%s: status %d\n%s", name, r.status, r.err);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "trainer_state.json gives 200 steps, the trace's period 1.999 s over 120 s 60 (-70 %), "
		               "and the power log holds train_runtime's 120 s (a resumed run's last session?): it covers "
		               "fewer; give --steps, finetune.steps or a steps.csv");
		run_result_free(&r);
		free(out);
		/* the count it covers, stated: ingested */
		char *manifest = path_join(run, "wattcast-run.json");
		CHECK_INT(write_text(manifest, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": "
		                     "\"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"lora\", "
		                     "\"micro_batch\": 4, \"seq_len\": 2048, \"grad_accum\": 4, \"gpus\": 1, "
		                     "\"lora_rank\": 16, \"checkpointing\": false, \"steps\": 60}}\n"), 0);
		free(manifest);
	}
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%)\n%s", name, e, STEP_J,
		        100 * (e / STEP_J - 1), err);
		/* over the steps it ran (the 60 stated with its own log) the
		 * energy is right, no evaluation taken out of it */
		CHECK(fabs(e / STEP_J - 1) < 0.01);
	}
	CHECK(t != NULL);
	/* The window warning's "by the trace" is the row's window_s, what
	 * follows the last step (the trainer state's save and evaluation)
	 * apart: it said 1483 s by the trace, 361 s of them after the last
	 * step, for a window_s of 1122 (docs/finetune.md, "Window") */
	if (t && !own_log) {
		char *out = path_join(dir, "out.csv"), *csv = test_slurp(out), win[64], want[160];
		test_csv_field(csv, "window_s", win, sizeof win);
		snprintf(want, sizeof want, "window: a resumed run (train_runtime is its last session: 60 steps at "
		         "2.000 s): training lasted %.0f s by the trace, ", strtod(win, NULL));
		CHECK_CONTAINS(err, want);
		CHECK_CONTAINS(err, " s of save and evaluation after the last step, train_runtime 120 s by the trainer "
		               "state");
		free(csv);
		free(out);
	}
	/* 100-s evaluations fit in the log but add up to more than
	 * train_runtime, and log_history's steps never go back: the reason
	 * is the sum, not re-run steps */
	if (own_log && eval_s < 150) {
		CHECK_CONTAINS(err, "evaluations: 2 of the trainer state's were not placed in the trace (they add up to "
		               "200 s, train_runtime 120 s: eval_runtime is not this trace's)");
		CHECK(err == NULL || strstr(err, "re-ran steps") == NULL);
	}
	if (own_log && eval_s > 150) /* both outside the 189.9-s log: named, not placed */
		CHECK_CONTAINS(err, "evaluations: 2 of the trainer state's (eval_runtime 300 s at step 70, the first) are "
		               "longer than the power log, 189.9 s from its first sample to its last: not placed");
	wc_ft_table_free(t);
	free(err);
	free(run);
}

/* One session of 225 steps, a 30-s evaluation and a save after every 50th,
 * the state listing `first` s at step 50: refused (want) when no
 * evaluation could take it, else ingested with energy per step right and
 * the warning `warn`. */
static void
single(const char *dir, const char *name, const char *first, const char *want, const char *warn)
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
		CHECK_CONTAINS(r.err, warn);
		char *err = NULL;
		wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
		CHECK(t != NULL);
		if (t) {
			double e = t->runs[0].energy_per_step_j;
			fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%)\n", name, e, STEP_J, 100 * (e / STEP_J - 1));
			CHECK(fabs(e / STEP_J - 1) < 0.01);
		}
		wc_ft_table_free(t);
		free(err);
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
	resumed(dir, 0, 300.0);
	resumed(dir, 1, 300.0);
	resumed(dir, 1, 100.0);
	single(dir, "over-span", "5000", NULL,
	       "evaluations: 1 of the trainer state's (eval_runtime 5000 s at step 50) is longer than the power log, "
	       "703.9 s from its first sample to its last: not placed");
	single(dir, "absurd", "1e300", "trainer_state.json:5:38: /log_history/2/eval_runtime: 1e+300 s is longer than a "
	       "week (604800 s), past any evaluation: not a real eval_runtime", NULL);
	single(dir, "past-week", "604801", "/log_history/2/eval_runtime: 604801 s is longer than a week", NULL);
	single(dir, "negative", "-20", "/log_history/2/eval_runtime: expected the evaluation's seconds (>= 0), got -20",
	       NULL);
	/* as long as the whole log: not refused (the evaluations do not fit
	 * the trace and the row says so) */
	single(dir, "within-span", "600", NULL, "evaluations:");
	free(dir);
	return check_report("test_ft_state_eval_resumed");
}

/*
 * A power log covering fewer steps than the trainer state beside it
 * (docs/finetune.md, "A stated count against the trace"): nvidia-smi
 * stopped before the run did, and the state's global_step split the
 * energy of the steps it holds over all of them (-40 % energy per step on
 * an 8xH100 run cut at 60 %, -50 % on a 1-GPU run cut in half), with a
 * warning only. Refused when the trace shows the log short too (training
 * power at its end, or a window well short of train_runtime), naming the
 * file and the remedy. A count off by less is kept with a warning, and the
 * averaging warning says which step it quotes. Synthetic one-GPU logs at
 * 100 ms of 2-s steps (1.6 s at 550 W, 0.4 s at 350 W), a 16-s save at
 * 150 W after every 50th.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */

static char *dir;

/* `ran` steps, their state saying `global` steps (train_runtime `runtime`,
 * none when NaN), the power log ending at `cut` s (0: whole). */
static char *
folder(const char *name, int ran, int global, double runtime, double cut)
{
	static synth_trainer_wave v;
	char state[1024], rt[96] = "";
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, ran, 50, 0, 0.0);
	if (isfinite(runtime))
		snprintf(rt, sizeof rt, ", {\"train_runtime\": %.1f, \"step\": %d}", runtime, global);
	snprintf(state, sizeof state,
	         "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, \"save_steps\": 50,\n"
	         " \"log_history\": [{\"loss\": 1.5, \"step\": 10}%s]}\n", global, global, rt);
	return synth_trainer_folder(dir, name, &v, 7, cut > 0 ? cut : 0.0, cut > 0 ? 1e9 : 0.0, state);
}

/* 200 2-s steps, a 30-s evaluation at 150 W after every 25th (the last
 * step's too) and no save (save_steps 500), train_runtime 640 s; the power
 * log ending at `cut` s. */
static char *
evals_folder(const char *name, double cut)
{
	static synth_trainer_wave v;
	char state[4096], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	for (int k = 1; k <= 200; k++) {
		synth_trainer_add(&v, 1.6, 550.0);
		synth_trainer_add(&v, 0.4, 350.0);
		if (k % 25 == 0)
			synth_trainer_add(&v, 30.0, 150.0);
	}
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 25, \"save_steps\": 500,\n"
	             " \"eval_steps\": 25, \"log_history\": [\n");
	for (int s = 25; s <= 200; s += 25)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d}, {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"step\": %d},\n",
		             s, s);
	sprintf(p, "  {\"train_runtime\": 640.0, \"step\": 200}]}\n");
	return synth_trainer_folder(dir, name, &v, 9, cut, 1e9, state);
}

/* `wattcast ingest run` (with `--steps steps` unless NULL): its exit
 * status, stderr into `err`. */
static int
ingest_steps(const char *run, const char *steps, char *err, size_t cap)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, steps ? "--steps" : NULL, steps, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	snprintf(err, cap, "%s", r.err);
	fprintf(stderr, "%s: status %d\n%s", run, r.status, r.err);
	int status = r.status;
	run_result_free(&r);
	free(out);
	return status;
}

static int
ingest(const char *run, char *err, size_t cap)
{
	return ingest_steps(run, NULL, err, cap);
}

static void
log_stops_early(void)
{
	char err[4096];
	/* The whole run: 50 s of idle and loading, 200 steps, 3 saves in the
	 * window and one after the last step, 514 s. Cut at 262 s, in step
	 * 99: the state's 200 steps are refused, the log ending at training
	 * power. */
	char *run = folder("cut-mid-step", 200, 200, NAN, 262.0);
	CHECK_INT(ingest(run, err, sizeof err), 1);
	CHECK_CONTAINS(err, "cut-mid-step: trainer_state.json gives 200 steps, the trace's period 1.999 s over 196 s "
	               "98 (-51 %), and the power log ends at training power");
	CHECK_CONTAINS(err, "and the power log ends at training power: it covers fewer; give --steps, finetune.steps "
	               "or a steps.csv");
	free(run);
	/* Cut in the second save (after step 100, at 266 s), at 270 s: the
	 * log ends at near-idle power, its window short of train_runtime. */
	run = folder("cut-in-save", 200, 200, 464.0, 270.0);
	CHECK_INT(ingest(run, err, sizeof err), 1);
	CHECK_CONTAINS(err, "cut-in-save: trainer_state.json gives 200 steps");
	CHECK_CONTAINS(err, "and the power log spans ");
	CHECK_CONTAINS(err, "train_runtime 464 s: it covers fewer; give --steps, finetune.steps or");
	free(run);
}

/* A state's count 15 % over the whole log's steps: within the refusal,
 * kept with the count's warning; the averaging warning quotes the step
 * the row uses and says the period's (it quoted 1.80 s for a 3-s period
 * without a word). Its train_runtime, 464 s, holds the log's 200 steps
 * and 4 saves of 16 s: the 230 are more than it holds, and the warning
 * names a last session (it read 232 steps, the saves as steps, and
 * asked to check the count; finetune_session.c). */
static void
count_off_a_little(void)
{
	char err[4096];
	char *run = folder("count-230", 200, 230, 464.0, 0.0);
	CHECK_INT(ingest(run, err, sizeof err), 0);
	CHECK_CONTAINS(err, "steps: a resumed run's last session alone? train_runtime 464 s holds the trace's steps: "
	               "give finetune.steps or steps.csv; used as stated: trainer_state.json gives 230, the trace's "
	               "period (2.000 s over");
	CHECK_CONTAINS(err, "power: log power.draw.instant every 100 ms; ");
	CHECK_CONTAINS(err, "smears the 6 of 230 steps (2.6 %) beside a pause, of 1.74 s (by the count; 2.00 s by "
	               "the period): -0.4 to +1.0 % per step (-17 to +37 % if all are)");
	free(run);
}

/* A resumed run's last session alone, its log whole: 100 steps and a save
 * in 216 s, as train_runtime says, under a global_step counting the
 * earlier sessions too. 170: refused, naming the count the log covers
 * (it was kept with a warning, -41 % energy per step). 200, a whole
 * multiple of the period's count, is what a period of two steps would
 * count too: kept with a warning naming both readings (docs/finetune.md,
 * "A stated count against the trace"). */
static void
last_session_alone(void)
{
	char err[4096];
	char *run = folder("session-of-170", 100, 170, 216.0, 0.0);
	CHECK_INT(ingest(run, err, sizeof err), 1);
	CHECK_CONTAINS(err, "session-of-170: trainer_state.json gives 170 steps, the trace's period 1.999 s over 200 s "
	               "100 (-41 %), and the power log holds train_runtime's 216 s (a resumed run's last session?): "
	               "it covers fewer; give --steps, finetune.steps or a steps.csv");
	free(run);
	run = folder("session-of-200", 100, 200, 216.0, 0.0);
	CHECK_INT(ingest(run, err, sizeof err), 0);
	CHECK_CONTAINS(err, "session-of-200: steps: steps of 1.000 s, 2 per period of the trace, or a resumed run's "
	               "last session? used as stated: give steps.csv; trainer_state.json gives 200, the period "
	               "(1.999 s) 100 over 200 s (to 5.0 %, evaluations at training power out)");
	free(run);
}

/* The evaluations the state lists after steps the log never reaches are
 * not in it: placed by the state's 200 steps, four of them took 120 s of
 * the 351 s of steps out, and a log cut 0.6 s into step 176 was refused
 * naming --steps 115 (+52 % energy per step); cut 0.6 s into step 190,
 * the last 30 s of steps were taken for the evaluation after step 200,
 * 175 counted, and the 200 kept with a warning (-12.7 %). Now the count
 * is the trace's, and a log that ends short is refused once the count is
 * short beyond what the period is known to (docs/finetune.md, "A stated
 * count against the trace"). */
static void
evals_past_the_cut(void)
{
	char err[4096], want[160];
	const struct {
		const char *name, *why;
		double cut;
		int steps, pct;
	} c[] = {
		{ "evals-cut-in-step-176", "ends at training power", 610.6, 175, -12 },
		{ "evals-cut-in-step-190", "ends at training power", 638.6, 189, -5 },
		/* 175 of 200 is -12.5 %: the period's count a hair under 175 */
		{ "evals-cut-in-evaluation", "spans 530 s, train_runtime 640 s", 589.3, 175, -13 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *run = evals_folder(c[i].name, c[i].cut), *out = path_join(dir, "out.csv"), steps[16];
		CHECK_INT(ingest(run, err, sizeof err), 1);
		snprintf(want, sizeof want, "trainer_state.json gives 200 steps, the trace's period ");
		CHECK_CONTAINS(err, want);
		snprintf(want, sizeof want, " %d (%d %%), and the power log %s: it covers fewer; give --steps, "
		         "finetune.steps or", c[i].steps, c[i].pct, c[i].why);
		CHECK_CONTAINS(err, want);
		/* no count in the remedy: none against global_step */
		CHECK(strstr(err, "--steps 1") == NULL && strstr(err, "--steps 2") == NULL);
		/* the count the period reads is the steps the log holds */
		snprintf(steps, sizeof steps, "%d", c[i].steps);
		CHECK_INT(ingest_steps(run, steps, err, sizeof err), 0);
		char *csv = test_slurp(out), v[64];
		test_csv_field(csv, "energy_per_step_j", v, sizeof v);
		double e = v[0] ? strtod(v, NULL) : NAN;
		fprintf(stderr, "%s --steps %d: %.1f J/step (truth %.1f)\n", c[i].name, c[i].steps, e, STEP_J);
		CHECK(fabs(e / STEP_J - 1.0) < 0.01);
		free(csv);
		free(out);
		free(run);
	}
}

int
main(void)
{
	dir = test_tmpdir("ft_state_log_short");
	log_stops_early();
	count_off_a_little();
	last_session_alone();
	evals_past_the_cut();
	free(dir);
	return check_report("test_ft_state_log_short");
}

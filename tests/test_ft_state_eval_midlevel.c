/*
 * Evaluations a trainer state lists that the trace shows at intermediate
 * power, with no steps.csv (docs/finetune.md, "What is not training" and
 * "Evaluations a trainer state lists"): 2-GPU nvidia-smi logs, sampled
 * about every 0.1 s, of optimizer steps at 650 W and 0.2 s at 380 W,
 * 30-s evaluations at 480 W (76 % of the training power) and 30-s saves
 * at 100 W.
 *
 * The stretches were found where a window of two steps lies almost
 * wholly inside them, up to half a window short on each side: the rest
 * of each evaluation was charged to the steps (+4.7 % energy per step for
 * 400 3-s steps with an evaluation every 25, read as 1-s means), and,
 * recurring once per evaluation, set the step period (79 s), read as a
 * resumed run that left the evaluations unplaced. Read instantaneously
 * the same run put the steps' clock off: four 30-s stretches of steps
 * were taken out as well (-5.0 %). With 6-s steps and an evaluation every
 * 10 steps, the evaluations, not yet marked, set the first period (90 s),
 * and the 30-s saves, shorter than half of it, were counted as training
 * (+2.7 %, saves 0).
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"
#include "tests/support/synth_ft_files.h"
#include "tests/support/synth_wave.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPUS 2
#define EVAL_W 480.0
#define OPT_S 0.2

/* A run: its steps, their length, evaluations every `eval_steps`, saves
 * every 100 and after the last step; read as 1-s means (`averaged`,
 * H100's power.draw) or instantaneously (power.draw.instant). */
typedef struct {
	int steps, eval_steps, averaged;
	double step_s;
} how;

/* Per-GPU: 70 W outside the run, each step's optimizer at its end. */
static const synth_draw draw = { 70.0, OPT_S, 380.0 };

/* The run and its truth: energy per step of all GPUs, J. */
static double
make_wave(synth_wave *v, const how *h)
{
	const synth_state_run r = { h->steps, h->eval_steps, h->step_s, 650.0, EVAL_W, 30.0, 100.0 };
	synth_wave_state_run(v, &r);
	return synth_state_run_truth(&r, &draw, GPUS);
}

/* Ingest the run `name`: energy per step within 1 % of the truth, the
 * evaluations found as intermediate stretches and nothing more taken
 * out for them, `saves` near-idle pauses, and the trace's step period
 * the step's (not the evaluations' cycle: no "steps:" warning). */
static void
run_case(const char *dir, const char *name, const how *h, const char *saves)
{
	static synth_seg segs[1024];
	synth_wave v = { segs, 0, 1024, 0.0 };
	double truth = make_wave(&v, h), first = 65.0;
	char *run = path_join(dir, name), *err = NULL, mid[16];
	mkdir(run, 0755);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ 0.1, h->averaged, GPUS, 66, 4.0 });
	/* from the first step to the end of the save after the last */
	synth_trainer_state_write(run, h->steps, 100, h->eval_steps, v.t - first);
	synth_ft_manifest_write(run, 2, 1);
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	snprintf(mid, sizeof mid, "%d", h->steps / h->eval_steps);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		const char *lp = wc_ft_table_get_extra(t, 0, "logged_pauses"),
		           *ml = wc_ft_table_get_extra(t, 0, "midlevel_stretches"),
		           *sv = wc_ft_table_get_extra(t, 0, "saves"), *w = wc_ft_table_get_extra(t, 0, "warnings");
		double period = atof(wc_ft_table_get_extra(t, 0, "period_s"));
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), logged_pauses %s, midlevel_stretches %s, "
		        "saves %s, period %.3f s\n%s\n", name, e, truth, 100 * (e / truth - 1), lp, ml, sv, period, w);
		CHECK(strcmp(lp, "0") == 0);
		CHECK(strcmp(ml, mid) == 0);
		CHECK(strcmp(sv, saves) == 0);
		CHECK(fabs(period / h->step_s - 1) < 0.02);
		CHECK(fabs(e / truth - 1) < 0.01);
		CHECK(strstr(w, "steps:") == NULL);
		CHECK(strstr(w, "evaluations:") == NULL);
		CHECK(strstr(w, "saves:") == NULL);
	}
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_eval_midlevel");
	/* saves after steps 100, 200, 300 in the window; the last one's after it */
	run_case(dir, "eval25-means", &(how){ 400, 25, 1, 3.0 }, "3");
	run_case(dir, "eval25-instant", &(how){ 400, 25, 0, 3.0 }, "3");
	run_case(dir, "eval10-6s-instant", &(how){ 200, 10, 0, 6.0 }, "1");
	free(dir);
	return check_report("test_ft_state_eval_midlevel");
}

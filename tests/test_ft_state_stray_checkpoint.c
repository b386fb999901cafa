/*
 * One checkpoint-N/ folder off the trainer state's save_steps, no
 * steps.csv (docs/finetune.md, "Evaluations a trainer state lists"):
 * 2-GPU nvidia-smi logs of 300 2-s steps at 620 W with a 0.4-s
 * data-loading dip at 110 W, 30-s evaluations at 520 W after steps 100,
 * 200 and 300 each followed by a 16-s save at 150 W, save_steps 100 (the
 * evaluations too near the training power for the trace to tell; at 480
 * W, under a quarter of the way down, it now finds them), and the folders
 * checkpoint-100 and -300 with a stray checkpoint-50 (or -60 alone beside
 * -300): a resume with another save_steps, a manual save or an earlier
 * run's folder. It voided save_steps: one evaluation went unplaced and
 * energy per step read +4.6 % (+9.3 % with -60), unsaid. Now save_steps
 * is kept, the folder taken as an extra save and named in a warning.
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
#define EVAL_W 520.0
#define OPT_S 0.4

/* 300 2-s steps at 620 W, an evaluation every 100, 16-s saves at 150 W,
 * read instantaneously (power.draw.instant). */
static const synth_state_run how = { 300, 100, 2.0, 620.0, EVAL_W, 16.0, 150.0 };

/* Per-GPU: 70 W outside the run, a data-loading dip in every step. */
static const synth_draw draw = { 70.0, OPT_S, 110.0 };

/* Ingest the run `name` with the checkpoint folders `dirs`: energy per
 * step within 1 % of the truth, the 3 evaluations placed, the stray
 * folder `stray` named. */
static void
run_case(const char *dir, const char *name, const int *dirs, int n_dirs, int stray)
{
	static synth_seg segs[1024];
	synth_wave v = { segs, 0, 1024, 0.0 };
	synth_wave_state_run(&v, &how);
	double truth = synth_state_run_truth(&how, &draw, GPUS), first = 65.0;
	char *run = path_join(dir, name), *err = NULL, cp[64];
	mkdir(run, 0755);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ 0.1, 0, GPUS, 66, 4.0 });
	synth_trainer_state_write(run, how.steps, 100, how.eval_steps, v.t - first);
	synth_ft_manifest_write(run, 2, 1);
	for (int i = 0; i < n_dirs; i++) {
		snprintf(cp, sizeof cp, "checkpoint-%d", dirs[i]);
		char *p = path_join(run, cp);
		mkdir(p, 0755);
		free(p);
	}
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		const char *lp = wc_ft_table_get_extra(t, 0, "logged_pauses"), *w = wc_ft_table_get_extra(t, 0, "warnings");
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), logged_pauses %s\n%s\n", name, e, truth,
		        100 * (e / truth - 1), lp, w);
		CHECK(strcmp(lp, "3") == 0);
		CHECK(fabs(e / truth - 1) < 0.01);
		snprintf(cp, sizeof cp, "saves: checkpoint-%d/ is off the save_steps 100", stray);
		CHECK_CONTAINS(w, cp);
	}
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_stray_checkpoint");
	run_case(dir, "stray50", (const int[]){ 50, 100, 300 }, 3, 50);
	run_case(dir, "stray60", (const int[]){ 60, 300 }, 2, 60);
	free(dir);
	return check_report("test_ft_state_stray_checkpoint");
}

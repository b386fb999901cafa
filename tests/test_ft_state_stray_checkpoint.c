/*
 * One checkpoint-N/ folder off the trainer state's save_steps, no
 * steps.csv (docs/finetune.md, "Evaluations a trainer state lists"):
 * 2-GPU nvidia-smi logs of 300 2-s steps at 620 W with a 0.4-s
 * data-loading dip at 110 W, 30-s evaluations at 480 W after steps 100,
 * 200 and 300 each followed by a 16-s save at 150 W, save_steps 100 (the
 * evaluations stay in the steps' smoothed level), and the folders
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
#define EVAL_W 480.0
#define OPT_S 0.4

/* A run: its steps, their length, evaluations every `eval_steps`, saves
 * every 100 and after the last step, read instantaneously
 * (power.draw.instant); `averaged` stays 0. */
typedef struct {
	int steps, eval_steps, averaged;
	double step_s;
} how;

/* Per-GPU power at t: 70 W outside the run, a step's own tail. */
static double
power_at(const synth_wave *v, double t)
{
	const synth_seg *s = synth_wave_at(v, t);
	if (!s)
		return 70.0;
	return s->step && t - s->a >= (s->b - s->a) - OPT_S ? 110.0 : s->w; /* a data-loading dip in every step */
}

/* The run and its truth: energy per step of all GPUs, J. */
static double
make_wave(synth_wave *v, const how *h)
{
	synth_wave_clear(v);
	synth_wave_add(v, 20.0, 70.0, 0);
	synth_wave_add(v, 45.0, 130.0, 0); /* loading the model */
	for (int k = 1; k <= h->steps; k++) {
		synth_wave_add(v, h->step_s, 620.0, 1);
		if (k % h->eval_steps == 0)
			synth_wave_add(v, 30.0, EVAL_W, 0);
		if (k % 100 == 0 || k == h->steps)
			synth_wave_add(v, 16.0, 150.0, 0);
	}
	return GPUS * ((h->step_s - OPT_S) * 620.0 + OPT_S * 110.0);
}

static void
write_power(const char *run, const synth_wave *v, const how *h)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 66, 0);
	fprintf(f, "timestamp, index, uuid, name, %s [W]\n", h->averaged ? "power.draw" : "power.draw.instant");
	/* samples 100-106 ms apart, as nvidia-smi -lms 100 keeps them */
	for (double s = 0.037; s < v->t + 30.0; s += 0.1 + 0.006 * wc_pcg32_uniform(&rng)) {
		double w = 0;
		/* a 1-s mean: of the second before the sample */
		for (int m = 0; h->averaged && m < 100; m++)
			w += power_at(v, s - 1.0 + (m + 0.5) * 0.01) / 100;
		w = h->averaged ? w : power_at(v, s);
		for (int g = 0; g < GPUS; g++)
			synth_ft_nvsmi_row(f, s, g, w + 4.0 * wc_pcg32_normal(&rng));
	}
	fclose(f);
	free(path);
}

/* Ingest the run `name` with the checkpoint folders `dirs`: energy per
 * step within 1 % of the truth, the 3 evaluations placed, the stray
 * folder `stray` named. */
static void
run_case(const char *dir, const char *name, const int *dirs, int n_dirs, int stray)
{
	static synth_seg segs[1024];
	const how h = { 300, 100, 0, 2.0 };
	synth_wave v = { segs, 0, 1024, 0.0 };
	double truth = make_wave(&v, &h), first = 65.0;
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv"), cp[64];
	mkdir(run, 0755);
	write_power(run, &v, &h);
	synth_trainer_state_write(run, h.steps, 100, h.eval_steps, v.t - first);
	synth_ft_manifest_write(run, 2, 1);
	for (int i = 0; i < n_dirs; i++) {
		snprintf(cp, sizeof cp, "checkpoint-%d", dirs[i]);
		char *p = path_join(run, cp);
		mkdir(p, 0755);
		free(p);
	}
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
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
	run_result_free(&r);
	free(out);
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

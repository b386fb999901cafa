/*
 * A trainer state's evaluations drawing near the training power, with no
 * steps.csv (docs/finetune.md, "Counting steps" and "Evaluations a
 * trainer state lists"): 2-GPU nvidia-smi logs of 200 2-s optimizer steps
 * at 650 W, flat, a 30-s evaluation at 82-86 % of that after every 25th
 * (an 80-s cycle), and 30-s saves at 100 W.
 *
 * The evaluations, above the intermediate stretches' threshold, made
 * their 80-s cycle the step period: 200 steps read as 8, the run was
 * refused as a resumed run's last session asking for "--steps 8", against
 * the state's global_step 200 (38x the energy per step if followed); with
 * saves every 100 steps, half the cycle, the saves' least length, lost
 * them (+11.8 % energy per step, said only as saves not found). Sampled
 * every 0.5 s the cycle is 160 samples, and the step search folded the
 * trace at every one of its divisors: hours of work (killed after 4 min).
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
#define STEPS 200
#define STEP_S 2.0
#define TRAIN_W 650.0

/* A run: a 30-s evaluation every `eval_steps` at `eval_share` of the
 * training power, a 30-s save every `save_steps` (0 none), sampled every
 * `dt` s (instantaneous readings). */
typedef struct {
	int eval_steps, save_steps;
	double eval_share, dt;
} how;

/* Per-GPU: 70 W outside the run, steps flat. */
static const synth_draw draw = { 70.0, 0.0, 0.0 };

/* The run and its truth: energy per step of all GPUs, J. */
static double
make_wave(synth_wave *v, const how *h)
{
	synth_wave_clear(v);
	synth_wave_add(v, 20.0, 70.0, 0);
	synth_wave_add(v, 45.0, 130.0, 0); /* loading the model */
	for (int k = 1; k <= STEPS; k++) {
		synth_wave_add(v, STEP_S, TRAIN_W, 1);
		if (k % h->eval_steps == 0)
			synth_wave_add(v, 30.0, h->eval_share * TRAIN_W, 0);
		if (h->save_steps && k % h->save_steps == 0)
			synth_wave_add(v, 30.0, 100.0, 0);
	}
	return GPUS * STEP_S * TRAIN_W;
}

/* Whether `text` asks for a step count other than `steps` ("--steps N"). */
static int
other_count(const char *text, int steps)
{
	for (const char *p = strstr(text, "--steps "); p; p = strstr(p + 1, "--steps "))
		if (atoi(p + 8) != steps)
			return 1;
	return 0;
}

/* Ingest the run `name`: it ends (CPU bounded: a bound, not an
 * expectation), is ingested with energy per step within 1 % of the
 * truth, asks for no step count but global_step's, says the period is
 * the evaluations' cycle, and says `also` (NULL none). */
static void
run_case(const char *dir, const char *name, const how *h, const char *also)
{
	static synth_seg segs[1024];
	synth_wave v = { segs, 0, 1024, 0.0 };
	double truth = make_wave(&v, h);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	remove(out);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ h->dt, 0, GPUS, 69, 4.0 });
	/* from the first step to the end of the run */
	synth_trainer_state_write(run, STEPS, h->save_steps ? h->save_steps : 500, h->eval_steps, v.t - 65.0);
	synth_ft_manifest_write(run, 2, 1);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast_limited(argv, NULL, 300, &r) == 0);
	fprintf(stderr, "%s: status %d\n%s", name, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK(!other_count(r.err ? r.err : "", STEPS));
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(r.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		const char *w = wc_ft_table_get_extra(t, 0, "warnings");
		const char *steps = wc_ft_table_get_extra(t, 0, "steps");
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), steps %s\n", name, e, truth,
		        100 * (e / truth - 1), steps);
		CHECK(fabs(e / truth - 1) < 0.01);
		CHECK(fabs(atof(steps) - STEPS) < 0.5);
		CHECK_CONTAINS(w, "period: not a step; trainer_state.json's 200 steps are used unchecked, a steps.csv "
		                  "would check them: the trace's period ");
		CHECK_CONTAINS(w, " s is the cycle of its 8 evaluations (one every 25 steps)");
		if (also)
			CHECK_CONTAINS(w, also);
		CHECK(!other_count(w, STEPS));
	}
	wc_ft_table_free(t);
	run_result_free(&r);
	free(out);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_eval_cycle");
	/* refused, asking for --steps 8 */
	run_case(dir, "eval84", &(how){ 25, 0, 0.84, 0.1 }, NULL);
	run_case(dir, "eval82", &(how){ 25, 0, 0.82, 0.1 }, NULL);
	/* +11.8 %: the cycle's half, the saves' least length, lost them */
	run_case(dir, "eval86-saves", &(how){ 25, 100, 0.86, 0.1 }, NULL);
	/* the first period 160 samples: all its divisors searched, for hours */
	run_case(dir, "eval84-0.5s", &(how){ 25, 0, 0.84, 0.5 },
	         "period: searched in part; a steps.csv or a stated count does without it: steps of ");
	run_case(dir, "eval84-0.5s-saves", &(how){ 25, 50, 0.84, 0.5 }, "the trace's first period over more than 32, "
	         "were not looked for (a bound on work)");
	free(dir);
	return check_report("test_ft_state_eval_cycle");
}

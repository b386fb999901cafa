/*
 * A save after every step, no step log (docs/finetune.md, "Steps under
 * three samples"): 8-GPU nvidia-smi logs (power.draw.instant, 3 % noise
 * per GPU) of 50 1-s steps at 550 W each followed by a 16-s save at
 * 150 W, the shape of a tester's generator, sampled every 100, 200 and
 * 500 ms. Each pause starts and ends between two readings, one at each
 * level; the interval between them went whole to the step: one interval
 * at the save's power per step, +2.7 % energy per step at 100 ms, +5.5 %
 * at 200 ms and +13.5 % at 500 ms (step_s 1.10 and 1.50 s). Half of it is
 * the pause's now, and the energy per step is within 0.5 % of the truth
 * at each, with the trainer state's count and, where the bursts are
 * resolved, from the trace alone.
 */
#include "data/data.h"
#include "models/pcg32.h"
#include "tests/support/support.h"
#include "tests/support/synth_ft_files.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPUS 8
#define STEPS 50
#define STEP_W 550.0
#define SAVE_W 150.0
/* The wave in ticks of 100 ms, so that every reading falls on the level
 * the generator gives it: 20 s idle, 40 s loading, then each step and its
 * save, 30 s idle. */
#define LEAD_TICKS 600
#define STEP_TICKS 10
#define CYCLE_TICKS 170
#define END_TICKS (LEAD_TICKS + STEPS * CYCLE_TICKS + 300)

static double
power_at(long tick)
{
	long in = tick - LEAD_TICKS;
	if (tick < 200)
		return 70.0;
	if (in < 0)
		return 90.0;
	if (in >= STEPS * CYCLE_TICKS)
		return 70.0;
	return in % CYCLE_TICKS < STEP_TICKS ? STEP_W : SAVE_W;
}

/* The run folder read every `every` ticks, with a trainer state of
 * save_steps 1 when `state`; ingested, its energy per step checked. */
static void
run_case(const char *dir, long every, int state)
{
	char name[48];
	snprintf(name, sizeof name, "every-%ldms%s", 100 * every, state ? "-state" : "");
	char *run = path_join(dir, name), *path = path_join(run, "power.csv");
	mkdir(run, 0755);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 9, 0);
	fprintf(f, "timestamp, index, uuid, name, power.draw.instant [W]\n");
	for (long tick = 0; tick < END_TICKS; tick += every)
		for (int g = 0; g < GPUS; g++)
			synth_ft_nvsmi_row(f, 0.1 * (double)tick, g, power_at(tick) * (1 + 0.03 * wc_pcg32_normal(&rng)));
	fclose(f);
	synth_ft_manifest_write(run, GPUS, 1);
	if (state)
		synth_trainer_state_write(run, STEPS, 1, 1000000, STEPS * CYCLE_TICKS * 0.1);
	char *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j, truth = GPUS * STEP_W * STEP_TICKS * 0.1;
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), step_s %.3f, %s steps, %s\n", name, e, truth,
		        100 * (e / truth - 1), t->runs[0].step_s, wc_ft_table_get_extra(t, 0, "steps"),
		        wc_ft_table_get_extra(t, 0, "excluded_s"));
		CHECK_NEAR(atof(wc_ft_table_get_extra(t, 0, "steps")), STEPS, 0.5);
		CHECK(fabs(e / truth - 1) < 0.005);
		CHECK(fabs(t->runs[0].step_s - 1.0) < 0.05);
	}
	wc_ft_table_free(t);
	free(err);
	free(path);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_save_edges");
	run_case(dir, 1, 0);
	run_case(dir, 1, 1);
	run_case(dir, 2, 1);
	run_case(dir, 5, 1);
	free(dir);
	return check_report("test_ft_save_edges");
}

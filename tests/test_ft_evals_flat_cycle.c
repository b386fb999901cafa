/*
 * Evaluations among flat steps, with no count (docs/finetune.md, "What is
 * not training"): 4-GPU nvidia-smi logs of 300 flat 6-s steps at 600 W
 * (no dip: no period at the step's scale), a 30-s evaluation at 460 W
 * after every 10th step, 16-s saves at 100 W after every 100th and the
 * last; no --steps, no trainer state, no step log.
 *
 * The trace's one clear period is then the 90-s cycle of ten steps and
 * an evaluation: taken for the step it counted about 30 steps for 300
 * and wrote +1270 % energy per step with no word. A cycle holding a
 * stretch at another level is no step: the run is refused naming the
 * remedies, or counted right.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_ft_files.h"
#include "tests/support/synth_wave.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPUS 4
#define STEPS 300

static void
run_case(const char *dir, double dt, int averaged, unsigned seed)
{
	static synth_seg segs[2048];
	synth_wave v = { segs, 0, 2048, 0.0 };
	const synth_state_run r = { STEPS, 10, 6.0, 600.0, 460.0, 16.0, 100.0 };
	const synth_draw draw = { 70.0, 0.0, 600.0 };
	synth_wave_state_run(&v, &r);
	double truth = synth_state_run_truth(&r, &draw, GPUS);
	char name[64];
	snprintf(name, sizeof name, "flat-%g-%d-%u", dt, averaged, seed);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	remove(out);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ dt, averaged, GPUS, seed, 4.0 });
	synth_ft_manifest_write(run, GPUS, 1);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", NULL };
	run_result res;
	CHECK(run_wattcast(argv, NULL, &res) == 0);
	wc_ft_table *t = NULL;
	wc_error error;
	if (res.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), steps %s\n", name, e, truth,
		        100 * (e / truth - 1), wc_ft_table_get_extra(t, 0, "steps"));
		CHECK(fabs(e / truth - 1) < 0.02);
	} else {
		fprintf(stderr, "%s: refused (%d): %s\n", name, res.status, res.err ? res.err : "");
		CHECK(res.status != 0);
		CHECK(res.err && strstr(res.err, "finetune.steps") && strstr(res.err, "step log"));
	}
	wc_ft_table_free(t);
	run_result_free(&res);
	free(out);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_evals_flat_cycle");
	for (unsigned seed = 1; seed <= 3; seed++) {
		run_case(dir, 0.1, 0, seed);
		run_case(dir, 1.0, 1, seed);
	}
	free(dir);
	return check_report("test_ft_evals_flat_cycle");
}

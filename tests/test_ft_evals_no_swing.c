/*
 * Evaluations within a quarter of the steps' level, told by their swing
 * (docs/finetune.md, "What is not training"): 4-GPU nvidia-smi logs read
 * every 100 ms of 300 steps at 600 W -- 2-s ones whose last 0.4 s dip to
 * 350 W, or 5-s ones ending in a 2.5-s stall at 150 W -- a flat 30-s
 * evaluation at 500 or 480 W after every 25th step, 16-s saves at 100 W
 * after every 100th and the last; the steps counted from the trace's
 * period or stated with --steps.
 *
 * Both evaluations lie within a quarter of the way from the steps' peak
 * down to the low level, and above what the rolling mean flags: they were
 * charged to the steps, +54.6 and +30.7 % energy per step with --steps,
 * -3.5 and +5.4 % from the period (480.4 and 371.8 steps counted for
 * 300). Every step swings from
 * its peak to its dip; the evaluations do not: they are found (12 each,
 * midlevel_stretches) and left out. A run without evaluations finds none.
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

typedef struct {
	const char *name;
	int eval_steps; /* past STEPS: no evaluation */
	double step_s, eval_w, dip_s, dip_w;
} how;

/* `mode` 0: the trace's period; 1: --steps 300. */
static void
run_case(const char *dir, const how *h, int mode, unsigned seed)
{
	static synth_seg segs[2048];
	static const char *const modes[] = { "period", "stated" };
	synth_wave v = { segs, 0, 2048, 0.0 };
	const synth_state_run r = { STEPS, h->eval_steps, h->step_s, 600.0, h->eval_w, 16.0, 100.0 };
	const synth_draw draw = { 70.0, h->dip_s, h->dip_w };
	synth_wave_state_run(&v, &r);
	double truth = synth_state_run_truth(&r, &draw, GPUS);
	char name[96];
	snprintf(name, sizeof name, "%s-%s-%u", h->name, modes[mode], seed);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	remove(out);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ 0.1, 0, GPUS, seed, 4.0 });
	synth_ft_manifest_write(run, GPUS, 1);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", mode == 1 ? "--steps" : NULL, "300", NULL };
	run_result res;
	CHECK(run_wattcast(argv, NULL, &res) == 0);
	CHECK_INT(res.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(res.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		const char *mid = wc_ft_table_get_extra(t, 0, "midlevel_stretches");
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), steps %s, midlevel_stretches %s\n", name, e,
		        truth, 100 * (e / truth - 1), wc_ft_table_get_extra(t, 0, "steps"), mid);
		CHECK(fabs(e / truth - 1) < 0.01);
		CHECK_INT(mid ? atoi(mid) : -1, STEPS / h->eval_steps);
	}
	wc_ft_table_free(t);
	run_result_free(&res);
	free(out);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_evals_no_swing");
	static const how cases[] = {
		{ "evals-500w-dip-350w", 25, 2.0, 500.0, 0.4, 350.0 },
		{ "evals-480w-stall-150w", 25, 5.0, 480.0, 2.5, 150.0 },
		{ "no-evals-dip-350w", 1000, 2.0, 0.0, 0.4, 350.0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int mode = 0; mode < 2; mode++)
			for (unsigned seed = 1; seed <= 2; seed++)
				run_case(dir, &cases[i], mode, seed);
	free(dir);
	return check_report("test_ft_evals_no_swing");
}

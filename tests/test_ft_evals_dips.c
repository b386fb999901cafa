/*
 * Evaluations among steps that dip once each, with no step log
 * (docs/finetune.md, "What is not training"): 4-GPU nvidia-smi logs of
 * 300 steps at 600 W -- 2-s ones whose last 0.3-0.4 s dip (data loading,
 * the optimizer), or 5-s ones ending in a 2.5-s stall -- a 30-s
 * evaluation at two thirds to three quarters of the training power after
 * every 20th or 25th step, 16-s saves at 100 W after every 100th and the
 * last, read every 100 ms; the steps counted from the trace or given
 * with --steps.
 *
 * The dips pull the steps' mean down to the evaluations' level, so the
 * rolling mean never fell a quarter of the way below it there: the
 * evaluations were charged to the steps, +49.1 % energy per step with
 * --steps at 450 W among 2-s steps, +25.5 % at 400 W among 5-s ones (the
 * trace's period counted 480.5 and 371.8 steps for 300 otherwise). No
 * bin in them reaches the training level, which every step does: they
 * are found and left out. The 0.3-s dips at 150 W pull the mean less:
 * those evaluations were found before too.
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

/* A run: steps of `step_s`, an evaluation at `eval_w` after every
 * `eval_steps`-th step, the steps' last `dip_s` at `dip_w`. */
typedef struct {
	int eval_steps;
	double step_s, eval_w, dip_s, dip_w;
} how;

/* Ingest the run `name` (with --steps when `stated`): energy per step
 * within 2 % of the truth, its evaluations found (the midlevel_stretches
 * column). */
static void
run_case(const char *dir, const char *name, const how *h, int stated)
{
	static synth_seg segs[2048];
	synth_wave v = { segs, 0, 2048, 0.0 };
	const synth_state_run r = { STEPS, h->eval_steps, h->step_s, 600.0, h->eval_w, 16.0, 100.0 };
	const synth_draw draw = { 70.0, h->dip_s, h->dip_w };
	synth_wave_state_run(&v, &r);
	double truth = synth_state_run_truth(&r, &draw, GPUS);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	remove(out);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ 0.1, 0, GPUS, 7, 4.0 });
	synth_ft_manifest_write(run, GPUS, 1);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", stated ? "--steps" : NULL, "300", NULL };
	run_result res;
	CHECK(run_wattcast(argv, NULL, &res) == 0);
	CHECK_INT(res.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(res.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		const char *mid = wc_ft_table_get_extra(t, 0, "midlevel_stretches");
		/* the one after the last step too: above the pause threshold,
		 * it is inside the window the trace gives */
		int evals = STEPS / h->eval_steps;
		fprintf(stderr, "%s%s: %.1f J/step, truth %.1f (%+.2f %%), steps %s, midlevel_stretches %s\n", name,
		        stated ? " --steps" : "", e, truth, 100 * (e / truth - 1), wc_ft_table_get_extra(t, 0, "steps"),
		        mid);
		CHECK(fabs(e / truth - 1) < 0.02);
		CHECK_INT(atoi(mid), evals);
	}
	wc_ft_table_free(t);
	run_result_free(&res);
	free(out);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_evals_dips");
	static const struct {
		const char *name;
		how h;
	} cases[] = {
		{ "evals-450w-dip-350w", { 25, 2.0, 450.0, 0.4, 350.0 } },
		{ "evals-400w-stall-150w", { 25, 5.0, 400.0, 2.5, 150.0 } },
		{ "evals-400w-dip-150w", { 20, 2.0, 400.0, 0.3, 150.0 } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int stated = 0; stated <= 1; stated++)
			run_case(dir, cases[i].name, &cases[i].h, stated);
	free(dir);
	return check_report("test_ft_evals_dips");
}

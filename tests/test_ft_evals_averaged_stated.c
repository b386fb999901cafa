/*
 * Evaluations in 1-s averaged readings with a stated count
 * (docs/finetune.md, "What is not training"): 4-GPU logs of H100's
 * power.draw (a 1-s mean) read every second, 300 steps at 600 W with a
 * 30-s evaluation after every 10th, 20th or 25th, 16-s saves at 100 W
 * after every 100th and the last, ingested with --steps 300.
 *
 * Readings every second do not resolve 2-s steps, and the evaluations'
 * cycle (k steps and an evaluation) came out as the trace's period;
 * taken for the step, it set the intermediate stretches' shortest to
 * three of it (240 s for an 80-s cycle) and no evaluation was found:
 * +44.6 % energy per step at 400 W among 2-s steps dipping to 350 W,
 * +57.3 % among 2-s steps dipping to 150 W, +38.6 % at 460 W among
 * flat 6-s steps. A period over twice the active time per stated step is
 * a cycle of several: it is not taken for the step, and the evaluations
 * are found (within 2 %, each counted in midlevel_stretches).
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
	int eval_steps;
	double step_s, eval_w, dip_s, dip_w;
} how;

static void
run_case(const char *dir, const how *h, unsigned seed)
{
	static synth_seg segs[2048];
	synth_wave v = { segs, 0, 2048, 0.0 };
	const synth_state_run r = { STEPS, h->eval_steps, h->step_s, 600.0, h->eval_w, 16.0, 100.0 };
	const synth_draw draw = { 70.0, h->dip_s, h->dip_w };
	synth_wave_state_run(&v, &r);
	double truth = synth_state_run_truth(&r, &draw, GPUS);
	char name[64];
	snprintf(name, sizeof name, "%s-%u", h->name, seed);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	remove(out);
	synth_wave_nvsmi_write(run, &v, &draw, &(synth_sampling){ 1.0, 1, GPUS, seed, 4.0 });
	synth_ft_manifest_write(run, GPUS, 1);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", "--steps", "300", NULL };
	run_result res;
	CHECK(run_wattcast(argv, NULL, &res) == 0);
	CHECK_INT(res.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(res.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		const char *mid = wc_ft_table_get_extra(t, 0, "midlevel_stretches");
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), midlevel_stretches %s\n", name, e, truth,
		        100 * (e / truth - 1), mid);
		CHECK(fabs(e / truth - 1) < 0.02);
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
	char *dir = test_tmpdir("ft_evals_averaged_stated");
	static const how cases[] = {
		{ "evals-400w-dip-350w", 25, 2.0, 400.0, 0.4, 350.0 },
		{ "evals-400w-dip-150w", 20, 2.0, 400.0, 0.3, 150.0 },
		{ "evals-460w-flat-6s", 10, 6.0, 460.0, 0.0, 0.0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (unsigned seed = 1; seed <= 3; seed++)
			run_case(dir, &cases[i], seed);
	free(dir);
	return check_report("test_ft_evals_averaged_stated");
}

/*
 * `wattcast ingest` of a fine-tuning run whose step log is a Hugging Face
 * trainer_state.json, when the trace shows no clear step period
 * (docs/finetune.md, "Evaluations a trainer state lists"): 4-GPU
 * nvidia-smi logs of 600 2-s steps with a 40-s evaluation after every
 * 200th and a 30-s save at 100 W after every 100th -- the evaluations
 * every k steps with one after the last step, so that the steps' clock
 * puts the saves' pauses at the same places whether the evaluations are
 * pauses or draw training power.
 *
 * That tie went by rounding: evaluations at 400 W the trace found as
 * intermediate stretches of 1-s means were taken out a second time from
 * the steps (-9.6 % energy per step, logged_pauses 3), and at training
 * power (546 W) two of three stayed in the steps (+3.0 %); the flat and
 * near-idle cases here fell the right way by chance (near-idle ones on a
 * like run did not: -6.7 %). Now the pauses decide: an intermediate
 * stretch, or a pause half an evaluation longer than the other saves, is
 * that evaluation; a pause as long as the other saves is the save alone.
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
#define STEPS 600
#define EVAL_S 40.0

/* How a run steps: flat at 600 W (no period at any sampling), or 80 % at
 * 600 W and 20 % at 350 W sampled every `dt` s as the mean of that
 * second (1-s samples of 2-s steps: no clear period). */
typedef struct {
	double eval_w;
	int flat;
	double dt;
} how;

/* Per-GPU: 70 W outside the run, a step's last 0.4 s at 350 W. */
static const synth_draw draw = { 70.0, 0.4, 350.0 };

/* The run and its truth: energy per step of all GPUs, J. */
static double
make_wave(synth_wave *v, const how *h)
{
	synth_wave_clear(v);
	synth_wave_add(v, 30.0, 70.0, 0);
	for (int k = 1; k <= STEPS; k++) {
		synth_wave_add(v, 2.0, 600.0, !h->flat);
		if (k % 200 == 0)
			synth_wave_add(v, EVAL_S, h->eval_w, 0);
		if (k % 100 == 0)
			synth_wave_add(v, 30.0, 100.0, 0);
	}
	return GPUS * (h->flat ? 2.0 * 600.0 : 1.6 * 600.0 + 0.4 * 350.0);
}

static void
write_power(const char *run, const synth_wave *v, const how *h)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 31, 0);
	fputs("timestamp, index, uuid, name, power.draw [W]\n", f);
	for (long i = 0; i < (long)((v->t + 30.0) / h->dt); i++) {
		double s = h->dt * (double)i, w = 0;
		/* samples every 1 s are the mean of the second before them */
		for (int m = 0; m < 10; m++)
			w += synth_wave_power(v, &draw, h->dt > 0.5 ? s - h->dt + (m + 0.5) * h->dt / 10 : s) / 10;
		for (int g = 0; g < GPUS; g++)
			synth_ft_nvsmi_row(f, s, g, w * (1 + 0.01 * wc_pcg32_normal(&rng)));
	}
	fclose(f);
	free(path);
}

static void
write_state(const char *run, double runtime)
{
	char *path = path_join(run, "trainer_state.json");
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, \"save_steps\": 100,\n"
	        " \"eval_steps\": 200, \"log_history\": [\n", STEPS, STEPS);
	for (int s = 10; s <= STEPS; s += 10) {
		fprintf(f, "  {\"loss\": %.3f, \"grad_norm\": 0.5, \"learning_rate\": 1e-05, \"epoch\": %.3f, \"step\": %d},\n",
		        1.5 - 0.5 * s / STEPS, s / 500.0, s);
		if (s % 200 == 0)
			fprintf(f, "  {\"eval_loss\": 1.2, \"eval_runtime\": %.1f, \"eval_samples_per_second\": 10.0, "
			        "\"epoch\": %.3f, \"step\": %d},\n", EVAL_S, s / 500.0, s);
	}
	fprintf(f, "  {\"train_runtime\": %.3f, \"train_loss\": 1.3, \"epoch\": 1.2, \"step\": %d}]}\n", runtime, STEPS);
	fclose(f);
	free(path);
}

/* Ingest the run `name`: energy per step within 1 % of the truth, and
 * its logged_pauses and midlevel_stretches columns as said. */
static void
run_case(const char *dir, const char *name, const how *h, const char *logged, const char *midlevel)
{
	static synth_seg segs[4096];
	synth_wave v = { segs, 0, 4096, 0.0 };
	double truth = make_wave(&v, h);
	char *run = path_join(dir, name), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	write_power(run, &v, h);
	/* from the first step to the end of the save after the last */
	write_state(run, v.t - 30.0);
	synth_ft_manifest_write(run, 4, 4);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--quiet", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	CHECK(wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		double e = t->runs[0].energy_per_step_j;
		const char *lp = wc_ft_table_get_extra(t, 0, "logged_pauses"),
		           *mid = wc_ft_table_get_extra(t, 0, "midlevel_stretches"),
		           *period = wc_ft_table_get_extra(t, 0, "period_s");
		fprintf(stderr, "%s: %.1f J/step, truth %.1f (%+.2f %%), logged_pauses %s, midlevel_stretches %s, "
		        "period '%s'\n", name, e, truth, 100 * (e / truth - 1), lp, mid, period);
		CHECK(fabs(e / truth - 1) < 0.01);
		CHECK(strcmp(lp, logged) == 0);
		CHECK(strcmp(mid, midlevel) == 0);
		/* the case is the one without a clear period */
		CHECK(strcmp(period, "") == 0);
		CHECK(strstr(wc_ft_table_get_extra(t, 0, "warnings"), "saves:") == NULL);
	}
	wc_ft_table_free(t);
	run_result_free(&r);
	free(out);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_evals_no_period");
	/* found as intermediate stretches: those evaluations, nothing more */
	run_case(dir, "flat-evals-400w", &(how){ 400.0, 1, 0.1 }, "0", "3");
	run_case(dir, "1s-means-evals-400w", &(how){ 400.0, 0, 1.0 }, "0", "3");
	/* near-idle, each merged with its save: a pause longer than a save */
	run_case(dir, "flat-evals-100w", &(how){ 100.0, 1, 0.1 }, "0", "0");
	/* at training power: the pause there is the save alone, and each
	 * evaluation in the window is taken out at training power */
	run_case(dir, "flat-evals-546w", &(how){ 546.0, 1, 0.1 }, "3", "0");
	free(dir);
	return check_report("test_ft_evals_no_period");
}

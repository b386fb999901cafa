/*
 * `wattcast ingest` of a fine-tuning run whose only step log is a Hugging
 * Face trainer_state.json (docs/finetune.md, "Evaluations a trainer state
 * lists"): synthetic 8-GPU nvidia-smi logs at 100 ms of 2-s steps after
 * three 5-s warm-up steps, with the evaluations and saves a Trainer runs.
 *
 * - Evaluations of 30 s at 91 % of the training power after every 50 of
 *   200 steps, which the trace alone cannot tell from training, were
 *   charged to the steps (+27 % energy per step) with a warning that
 *   blamed a resumed run; the log_history's eval entries now place them
 *   and they are taken out, with or without --steps.
 * - Near-idle evaluations (330 W), which the trace already shows as
 *   pauses, are not taken out a second time.
 * - Evaluations on two eval datasets, which the Trainer logs as one entry
 *   per dataset at the same step (eval_alpaca_runtime, eval_dolly_runtime,
 *   15 s each), were not read as evaluations: +27 % again, and the resume
 *   warning.
 * - An evaluation before the first step (eval_on_start, logged at step 0)
 *   was left in the steps: +6.3 %; near-idle, it lies before the window
 *   and nothing is taken out for it.
 * - A save right after every evaluation (save_steps = eval_steps, the
 *   usual setup with load_best_model_at_end): evaluations at training
 *   power were taken for the save after them, two of three stayed in the
 *   steps (+15 % energy per step) and the saves were counted as them
 *   (saves 1 of 3, with a warning saying 3 evaluations were taken out).
 *   Near-idle, each evaluation and its save are one pause, which made the
 *   save after the last step as long as both and put that evaluation in
 *   the window, where steps were taken out for it; with 5-s saves the
 *   pauses were counted as evaluations only ("0 near-idle pauses" for 4
 *   saves); with 90-s evaluations too, the run was told to check its
 *   clocks (the save after the last step taken as 95 s). Saved before
 *   the evaluation (not the Trainer's order), evaluations at training
 *   power were looked for before the save, not after it: +6.6 % energy
 *   per step.
 * - 90-s evaluations drawing more than the steps' mean power, each
 *   followed by its save: the stretch of lowest mean power near each
 *   place was steps, and the evaluations stayed in them (+2.2 %).
 * - By epoch (save_strategy and eval_strategy "epoch"), the state keeps
 *   save_steps and eval_steps at the default 500 while log_history lists
 *   the evaluations at steps 50, 100, 150, 200, each followed by its save:
 *   read as saves every 500 steps, each evaluation at training power was
 *   taken for the save after it (+26.9 % energy per step, logged_pauses 0).
 * - An early stop after checkpoint-150 of max_steps 200 was refused as a
 *   run that went on after that save: its evaluations at training power
 *   were counted as steps before the counts were weighed.
 * - A run that crashed at step 137 and resumed from checkpoint-100: its
 *   train_runtime covers the last session only, which was read as a clock
 *   error ("check the clocks"), and the saves it implies were called the
 *   step log's.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_ft_files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPUS 8

/* How a run evaluates: on two eval datasets (one log entry each), and
 * before its first step (eval_on_start); SAVE_EACH: it saves right after
 * every evaluation (a 25-s save at 100 W, save_steps 50; 5 s with
 * SHORT_SAVE; before the evaluation with SAVE_FIRST, not the Trainer's
 * order); LONG_EVAL: for 90 s, not 30; EPOCHS: by a strategy "epoch",
 * whose state keeps the default save_steps and eval_steps of 500;
 * EVAL_EPOCHS: evaluations by epoch (eval_steps left at 500), saves every
 * 75 steps and at max_steps (save_steps 75, saves by steps); STOPPED:
 * `crash` is an early stop, after that step's evaluation and save. */
enum { TWO_SETS = 1, ON_START = 2, SAVE_EACH = 4, SHORT_SAVE = 8, LONG_EVAL = 16, SAVE_FIRST = 32, EPOCHS = 64,
       STOPPED = 128, EVAL_EPOCHS = 256 };

/* An evaluation's length, s. */
static double
eval_len(int how)
{
	return how & LONG_EVAL ? 90.0 : 30.0;
}

/* Per-GPU power over [a, b). */
typedef struct {
	double a, b, w;
} seg;

typedef struct {
	seg s[2048];
	size_t n;
	double t;        /* the end of the last segment */
	double energy;   /* group energy of all steps executed, J */
	int steps;       /* steps executed */
	double t_train;  /* the (last) session's start */
} wave;

static void
add(wave *v, double len, double w)
{
	v->s[v->n++] = (seg){ v->t, v->t + len, w };
	v->t += len;
}

static void
step(wave *v, double len)
{
	add(v, 0.85 * len, 650.0);
	add(v, 0.15 * len, 400.0);
	v->energy += GPUS * len * (0.85 * 650.0 + 0.15 * 400.0);
	v->steps++;
}

/* Steps first..last of a session (3 warm-up steps of 5 s, then 2 s with
 * +-5 % spread), a 30-s evaluation at eval_w after every 50th (and before
 * the first with ON_START), a 16-s save at 150 W after every 100th (with
 * SAVE_EACH a 25-s save at 100 W after every evaluation); stops after
 * step `crash` (0 none). */
static void
session(wave *v, int first, int last, int crash, double eval_w, uint64_t seed, int how)
{
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, seed, 0);
	add(v, 50.0, 130.0); /* loading the model */
	v->t_train = v->t;
	if (how & ON_START)
		add(v, eval_len(how), eval_w);
	for (int k = first; k <= last; k++) {
		step(v, k < first + 3 ? 5.0 : 2.0 * (1 + 0.05 * (2 * wc_pcg32_uniform(&rng) - 1)));
		if (k == crash && !(how & STOPPED))
			return;
		if (k % 50 == 0 && (how & SAVE_FIRST))
			add(v, 25.0, 100.0);
		if (k % 50 == 0)
			add(v, eval_len(how), eval_w);
		if (k % 50 == 0 && (how & SAVE_EACH) && !(how & SAVE_FIRST))
			add(v, how & SHORT_SAVE ? 5.0 : 25.0, 100.0);
		else if (!(how & SAVE_EACH) && (how & EVAL_EPOCHS ? k % 75 == 0 || k == 200 : k % 100 == 0))
			add(v, 16.0, 150.0);
		if (k == crash)
			return;
	}
}

static double
power_at(const wave *v, double t)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (v->s[m].b <= t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < v->n && v->s[lo].a <= t ? v->s[lo].w : 70.0;
}

static void
write_power(const char *run, const wave *v)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 7, 0);
	fputs("timestamp, index, uuid, name, power.draw [W]\n", f);
	for (long i = 0; i < (long)((v->t + 30.0) / 0.1); i++) {
		double s = 0.1 * (double)i, w = power_at(v, s);
		for (int g = 0; g < GPUS; g++)
			synth_ft_nvsmi_row(f, s, g, w * (1 + 0.02 * wc_pcg32_normal(&rng)));
	}
	fclose(f);
	free(path);
}

/* The eval entries of one evaluation after step s: one, or one per
 * dataset (TWO_SETS: the Trainer's metric prefix eval_<name>). */
static void
write_eval(FILE *f, int s, int how, const char *end)
{
	if (how & TWO_SETS)
		fprintf(f, "  {\"eval_alpaca_loss\": 1.5, \"eval_alpaca_runtime\": %.1f, \"eval_alpaca_samples_per_second\": "
		        "33.1, \"epoch\": %.2f, \"step\": %d},\n  {\"eval_dolly_loss\": 1.6, \"eval_dolly_runtime\": %.1f, "
		        "\"eval_dolly_samples_per_second\": 33.1, \"epoch\": %.2f, \"step\": %d}%s\n", eval_len(how) / 2,
		        s / 200.0, s, eval_len(how) / 2, s / 200.0, s, end);
	else
		fprintf(f, "  {\"eval_loss\": 1.5, \"eval_runtime\": %.1f, \"eval_samples_per_second\": 33.1, "
		        "\"epoch\": %.2f, \"step\": %d}%s\n", eval_len(how), s / 200.0, s, end);
}

/* A trainer_state.json as the Trainer writes it: loss every 10 steps, an
 * evaluation after every 50th (and at step 0 with ON_START),
 * train_runtime at the end; `at` < 200: the state of checkpoint-`at`/,
 * written at that save (no train_runtime). */
static void
write_state(const char *run, double runtime, int at, int how)
{
	char name[64];
	snprintf(name, sizeof name, "checkpoint-%d", at);
	char *ck = at < 200 ? path_join(run, name) : NULL;
	if (ck)
		mkdir(ck, 0755);
	char *path = path_join(ck ? ck : run, "trainer_state.json");
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"global_step\": %d, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": %d,\n"
	        " \"eval_steps\": %d, \"log_history\": [\n", at,
	        how & EPOCHS ? 500 : how & SAVE_EACH ? 50 : how & EVAL_EPOCHS ? 75 : 100,
	        how & (EPOCHS | EVAL_EPOCHS) ? 500 : 50);
	if (how & ON_START)
		write_eval(f, 0, how, ",");
	for (int s = 10; s <= at; s += 10) {
		fprintf(f, "  {\"loss\": %.3f, \"grad_norm\": 0.81, \"learning_rate\": 1e-05, \"epoch\": %.2f, \"step\": %d}%s\n",
		        2.0 - 0.004 * s, s / 200.0, s, s < at || s % 50 == 0 || at == 200 ? "," : "");
		if (s % 50 == 0)
			write_eval(f, s, how, s < at || at == 200 ? "," : "");
	}
	if (at == 200)
		fprintf(f, "  {\"train_runtime\": %.3f, \"train_loss\": 1.7, \"epoch\": 1.0, \"step\": 200}", runtime);
	fputs("]}\n", f);
	fclose(f);
	free(path);
	free(ck);
}

static char *
run_folder(const char *dir, const char *name, const wave *v, double runtime, int at, int how)
{
	char *run = path_join(dir, name);
	mkdir(run, 0755);
	write_power(run, v);
	write_state(run, runtime, at, how);
	synth_ft_manifest_write(run, 8, 4);
	return run;
}

/* Ingest `run` (with `steps` when > 0): its energy per step, its stderr
 * in `err`, its saves and logged_pauses columns in `counts`. */
static double
ingest(const char *dir, const char *run, int steps, char **err, char counts[32])
{
	char *out = path_join(dir, "out.csv"), n[16];
	snprintf(n, sizeof n, "%d", steps);
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, steps > 0 ? "--steps" : NULL, n, NULL };
	run_result r;
	double e = NAN;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	wc_ft_table *t = NULL;
	wc_error error;
	if (r.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1)
		e = t->runs[0].energy_per_step_j;
	if (!isnan(e))
		snprintf(counts, 32, "%s/%s", wc_ft_table_get_extra(t, 0, "saves"),
		         wc_ft_table_get_extra(t, 0, "logged_pauses"));
	wc_ft_table_free(t);
	*err = r.err;
	r.err = NULL;
	run_result_free(&r);
	free(out);
	return e;
}

/* `counts`: the saves and logged_pauses the row must say; NULL any. */
static void
evaluations(const char *dir, double eval_w, const char *name, int how, const char *counts)
{
	static wave v;
	memset(&v, 0, sizeof v);
	add(&v, 40.0, 70.0);
	session(&v, 1, 200, 0, eval_w, 1, how);
	double truth = v.energy / v.steps, runtime = v.t - v.t_train;
	char *run = run_folder(dir, name, &v, runtime, 200, how), *err = NULL, got[32] = "";
	for (int stated = 0; stated < 2; stated++) {
		double e = ingest(dir, run, stated ? 200 : 0, &err, got);
		fprintf(stderr, "%s%s: %.1f J/step, truth %.1f (%+.2f %%), saves/logged_pauses %s\n", name,
		        stated ? " --steps 200" : "", e, truth, 100 * (e / truth - 1), got);
		CHECK(fabs(e / truth - 1) < 0.01);
		if (counts)
			CHECK(strcmp(got, counts) == 0);
		CHECK(strstr(err, "resumed") == NULL);
		CHECK(strstr(err, "window:") == NULL);
		CHECK(strstr(err, "saves:") == NULL);
		CHECK(strstr(err, "steps:") == NULL);
		free(err);
	}
	free(run);
}

static void
resumed(const char *dir)
{
	static wave v;
	memset(&v, 0, sizeof v);
	add(&v, 40.0, 70.0);
	session(&v, 1, 200, 137, 330.0, 2, 0);
	add(&v, 60.0, 70.0); /* the crash and the restart */
	session(&v, 101, 200, 0, 330.0, 3, 0);
	double truth = v.energy / v.steps, runtime = v.t - v.t_train;
	char *run = run_folder(dir, "resumed", &v, runtime, 200, 0), *err = NULL, got[32];
	CHECK_INT(v.steps, 237);
	double e = ingest(dir, run, 237, &err, got);
	fprintf(stderr, "resumed --steps 237: %.1f J/step, truth %.1f (%+.2f %%)\n%s", e, truth,
	        100 * (e / truth - 1), err);
	CHECK(fabs(e / truth - 1) < 0.02);
	CHECK(strstr(err, "check the clocks") == NULL);
	CHECK_CONTAINS(err, "window: a resumed run (");
	CHECK(strstr(err, "step log implies") == NULL);
	free(err);
	e = ingest(dir, run, 0, &err, got);
	CHECK_CONTAINS(err, "steps: a resumed run: steps after its checkpoint ran again: give finetune.steps or steps.csv");
	CHECK(strstr(err, "check the clocks") == NULL);
	CHECK(strstr(err, "step log implies") == NULL);
	free(err);
	free(run);
}

/* The same resume with its evaluations at training power: not placed (it
 * resumed), they stay in the steps. Under --steps 237, which holds the
 * steps run again, the excess was blamed on the resume ("its steps after
 * the checkpoint ran twice") and the remedy named was the count already
 * given; it is the evaluations', with their share (docs/finetune.md, "A
 * stated count against the trace"). Under the state's 200 the resume is
 * still named: that count lacks its 37 steps run again. */
static void
resumed_evals(const char *dir)
{
	static wave v;
	memset(&v, 0, sizeof v);
	add(&v, 40.0, 70.0);
	session(&v, 1, 200, 137, 560.0, 2, 0);
	add(&v, 60.0, 70.0);
	session(&v, 101, 200, 0, 560.0, 3, 0);
	double runtime = v.t - v.t_train;
	char *run = run_folder(dir, "resumed-evals", &v, runtime, 200, 0), *err = NULL, got[32];
	double e = ingest(dir, run, 237, &err, got);
	fprintf(stderr, "resumed-evals --steps 237: %.1f J/step\n%s", e, err);
	/* 4 evaluations of 30 s at the 2-s period: 60 steps over 237 */
	CHECK_CONTAINS(err, "its 4 unplaced evaluations (120 s, +25."); /* period 1.996 s */
	CHECK_CONTAINS(err, "steps: unplaced evaluations in the steps, not a resume; used as stated: give steps.csv; ");
	CHECK(strstr(err, "after its checkpoint ran again") == NULL);
	free(err);
	/* --steps 200 lacks the 37 steps run again: the evaluations' 30 %
	 * is part of the excess, the rest is said, not put on them */
	e = ingest(dir, run, 200, &err, got);
	fprintf(stderr, "resumed-evals --steps 200: %.1f J/step\n%s", e, err);
	CHECK_CONTAINS(err, "its 4 unplaced evaluations (120 s) +30.");
	CHECK_CONTAINS(err, "%, the rest +2"); /* 37 steps over 200 at 1.996 s: +18.5 %, +23 % with warm-up */
	CHECK_CONTAINS(err, "steps: re-run steps not in the count, or unlisted pauses? used as stated: give steps.csv; ");
	CHECK(strstr(err, "not a resume") == NULL);
	CHECK(strstr(err, "re-runs in") == NULL);
	free(err);
	e = ingest(dir, run, 0, &err, got);
	CHECK_CONTAINS(err, "steps: a resumed run: steps after its checkpoint ran again: give finetune.steps or steps.csv");
	CHECK(strstr(err, "unplaced evaluations") == NULL);
	free(err);
	free(run);
}

/* A crash 37 steps after checkpoint-100, whose state is the folder's
 * only one: refused, as without evaluations (docs/finetune.md, "A stated
 * count against the trace"). Its two evaluations placed by their step
 * numbers fell on the steps the run went on with, and the 60 s taken
 * out brought the count under the refusal. */
static void
crashed(const char *dir)
{
	static wave v;
	memset(&v, 0, sizeof v);
	add(&v, 40.0, 70.0);
	session(&v, 1, 200, 137, 330.0, 4, 0);
	char *run = run_folder(dir, "crashed", &v, 0, 100, 0), *out = path_join(dir, "crashed.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "checkpoint-100/trainer_state.json was saved at global_step 100, but the trace's "
	               "step period");
	CHECK_CONTAINS(r.err, "steps: the run went on after that save; give finetune.steps in wattcast-run.json");
	run_result_free(&r);
	free(out);
	free(run);
}

/* An early stop (EarlyStoppingCallback) after step 150 of max_steps 200,
 * its evaluation and save, whose checkpoint-150/ state is the folder's
 * only one: 30-s evaluations at 91 % of the training power, each followed
 * by a 25-s save. Their 90 s were counted as training when the count was
 * weighed against the trace (199 steps for 150), and the run was refused
 * as one that went on after that save; with --steps 150 they stayed in the
 * steps (+26.6 % energy per step) and the warning asked for finetune.steps.
 * Now taken out first, as for a state at max_steps. */
static void
stopped(const char *dir)
{
	static wave v;
	memset(&v, 0, sizeof v);
	add(&v, 40.0, 70.0);
	session(&v, 1, 200, 150, 560.0, 5, SAVE_EACH | STOPPED);
	double truth = v.energy / v.steps;
	char *run = run_folder(dir, "stopped", &v, 0, 150, SAVE_EACH), *err = NULL, got[32] = "";
	CHECK_INT(v.steps, 150);
	for (int stated = 0; stated < 2; stated++) {
		double e = ingest(dir, run, stated ? 150 : 0, &err, got);
		fprintf(stderr, "stopped%s: %.1f J/step, truth %.1f (%+.2f %%), saves/logged_pauses %s\n%s",
		        stated ? " --steps 150" : "", e, truth, 100 * (e / truth - 1), got, err);
		CHECK(fabs(e / truth - 1) < 0.01);
		CHECK(strcmp(got, "2/3") == 0);
		CHECK(strstr(err, "steps:") == NULL);
		CHECK(strstr(err, "went on after") == NULL);
		if (!stated)
			CHECK_CONTAINS(err, "checkpoint-150/trainer_state.json: global_step 150 is below max_steps 200");
		free(err);
	}
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_trainer_evals");
	evaluations(dir, 560.0, "evals-at-training-power", 0, NULL);
	evaluations(dir, 330.0, "evals-near-idle", 0, NULL);
	evaluations(dir, 560.0, "evals-two-datasets", TWO_SETS, NULL);
	evaluations(dir, 560.0, "eval-on-start", ON_START, NULL);
	evaluations(dir, 330.0, "eval-on-start-near-idle", ON_START | TWO_SETS, NULL);
	/* the saves after the steps 50, 100 and 150 (200's is after the
	 * window), the four evaluations taken out at training power */
	evaluations(dir, 560.0, "eval-then-save", SAVE_EACH, "3/4");
	evaluations(dir, 560.0, "eval-then-save-two-datasets", SAVE_EACH | TWO_SETS, "3/4");
	/* near-idle, each evaluation and its save are one pause: none taken
	 * out, and the last with its save past the window */
	evaluations(dir, 100.0, "near-idle-eval-then-save", SAVE_EACH, "3/0");
	/* ... a pause under 1.25 evaluations long: still the save too */
	evaluations(dir, 100.0, "near-idle-eval-then-short-save", SAVE_EACH | SHORT_SAVE, "3/0");
	/* ... the save after the last step is 5 s, not the 95-s pause: no
	 * 'window:' warning */
	evaluations(dir, 100.0, "near-idle-long-eval-then-short-save", SAVE_EACH | SHORT_SAVE | LONG_EVAL, "3/0");
	/* 90-s evaluations drawing more than the steps' mean (640 W over
	 * 612.5 W), each followed by its save: the stretch of lowest mean
	 * near each place was steps, and the evaluations stayed in them
	 * (+2.2 %); each is taken where its save's pause ends, the one after
	 * the last step where the window does */
	evaluations(dir, 640.0, "long-eval-over-step-mean-then-save", SAVE_EACH | LONG_EVAL, "3/4");
	/* saved first, each evaluation follows its save, also after the last
	 * step (that save in the window) */
	evaluations(dir, 560.0, "save-then-eval", SAVE_EACH | SAVE_FIRST, "4/4");
	evaluations(dir, 100.0, "save-then-near-idle-eval", SAVE_EACH | SAVE_FIRST, "3/0");
	/* by epoch: the state's save_steps 500 is not when it saved; the
	 * saves go with the evaluations log_history lists */
	evaluations(dir, 560.0, "epochs-eval-then-save", SAVE_EACH | EPOCHS, "3/4");
	/* evaluations by epoch, saves by steps: save_steps 75 is the
	 * Trainer's, eval_steps 500 is not; read as a save after each of
	 * the 4 evaluations, the 2 saves found were said to be short of 4 */
	evaluations(dir, 560.0, "epoch-evals-by-steps-ckpt", EVAL_EPOCHS, "2/4");
	evaluations(dir, 330.0, "epoch-evals-by-steps-ckpt-near-idle", EVAL_EPOCHS, NULL);
	resumed(dir);
	resumed_evals(dir);
	crashed(dir);
	stopped(dir);
	free(dir);
	return check_report("test_ft_trainer_evals");
}

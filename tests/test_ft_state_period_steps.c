/*
 * A stated count against a trace period that is not one step
 * (docs/finetune.md, "A stated count against the trace").
 *
 * Steps alternating 1.6 and 2.4 s repeat every 4 s, two steps: 200 of
 * them with 30-s evaluations at 465 W (91 % of the training power) after
 * every 50th and 16-s saves after every 100th, a complete single-session
 * run whose log covers train_runtime. The period's count with the
 * evaluations in the active time, 130 for 200, was no whole multiple,
 * and the run was refused as "a resumed run's last session", naming
 * --steps 130 (+54 % energy per step); given --steps 200, the evaluations
 * were not placed ("a resumed run: train_runtime holds 138 of
 * global_step's 200 steps") and stayed in the steps (1299.6 J for 1020,
 * +27 %). Now, with them out, the count is 2 per period: a warning, the
 * 200 used, the evaluations taken out.
 *
 * Steps of four 0.7-s micro-steps (grad_accum 4) repeat at the micro-step:
 * a final checkpoint-100/trainer_state.json (global_step = max_steps 100,
 * the folder holding checkpoint-75/ and checkpoint-100/ alone) was
 * refused as "the run went on after that save" for the period's 400, and
 * the same state at the top warned of a resumed run. Now the Trainer,
 * which does not step past max_steps, has not gone on, and the period is
 * a micro-step: a warning, the 100 used.
 *
 * One GPU at 100 ms (tests/support/synth_trainer.c).
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dir;

/* `wattcast ingest run`: exit status; stderr into `err`, the row's
 * energy per step into `*e` (NaN when refused). */
static int
ingest(const char *run, char *err, size_t cap, double *e)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	remove(out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	snprintf(err, cap, "%s", r.err ? r.err : "");
	fprintf(stderr, "%s: status %d\n%s", run, r.status, err);
	int status = r.status;
	*e = NAN;
	if (status == 0) {
		char *csv = test_slurp(out), v[64];
		test_csv_field(csv, "energy_per_step_j", v, sizeof v);
		*e = v[0] ? strtod(v, NULL) : NAN;
		free(csv);
	}
	run_result_free(&r);
	free(out);
	return status;
}

static void
alternating(void)
{
	static synth_trainer_wave v;
	char state[4096], *p = state, err[8192];
	const double truth = (3.2 * 550 + 0.8 * 350) / 2; /* J per step, 1020 */
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0); /* loading the model */
	double start = v.t;
	for (int k = 1; k <= 200; k++) {
		/* whole samples each phase: 1.6 and 2.4 s, 1020 J on average */
		synth_trainer_add(&v, k % 2 ? 1.3 : 1.9, 550.0);
		synth_trainer_add(&v, k % 2 ? 0.3 : 0.5, 350.0);
		if (k % 50 == 0)
			synth_trainer_add(&v, 30.0, 465.0);
		if (k % 100 == 0)
			synth_trainer_add(&v, 16.0, 150.0);
	}
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": 100,\n"
	             " \"eval_steps\": 50, \"log_history\": [\n");
	for (int s = 10; s <= 200; s += 10) {
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
		if (s % 50 == 0)
			p += sprintf(p, "  {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"step\": %d},\n", s);
	}
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", v.t - start);
	char *run = synth_trainer_folder(dir, "alternating", &v, 31, 0.0, 0.0, state);
	double e;
	CHECK_INT(ingest(run, err, sizeof err, &e), 0);
	CHECK_CONTAINS(err, "alternating: steps: steps of ");
	CHECK_CONTAINS(err, " s, 2 per period of the trace, or a resumed run's last session? used as stated: give "
	               "steps.csv; trainer_state.json gives 200, the period (");
	CHECK(strstr(err, "resumed run:") == NULL);
	CHECK(strstr(err, "not placed") == NULL);
	fprintf(stderr, "alternating: %.1f J/step (truth %.1f, %+.2f %%)\n", e, truth, 100 * (e / truth - 1));
	CHECK(fabs(e / truth - 1) < 0.01);
	free(run);
}

/* 100 steps of four micro-steps (0.6 s at 550 W, 0.1 s at 400 W) and a
 * 0.1-s optimizer phase at 400 W, a 16-s save after every 25th; the
 * state at the top (`top`) or in checkpoint-100/ beside checkpoint-75/. */
static void
micro_steps(int top)
{
	static synth_trainer_wave v;
	static char state[16384];
	char *p = state, err[8192];
	const double truth = 4 * (0.6 * 550 + 0.1 * 400) + 0.1 * 400;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_add(&v, 30.0, 130.0);
	double start = v.t;
	for (int k = 1; k <= 100; k++) {
		for (int m = 0; m < 4; m++) {
			synth_trainer_add(&v, 0.6, 550.0);
			synth_trainer_add(&v, 0.1, 400.0);
		}
		synth_trainer_add(&v, 0.1, 400.0);
		if (k % 25 == 0)
			synth_trainer_add(&v, 16.0, 150.0);
	}
	/* a checkpoint's state has no train_runtime */
	p += sprintf(p, "{\"global_step\": 100, \"max_steps\": 100, \"logging_steps\": 10, \"save_steps\": 25,\n"
	             " \"log_history\": [\n");
	for (int s = 10; s <= 100; s += 10)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
	if (top)
		sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 100}]}\n", v.t - start);
	else
		sprintf(p - 2, "\n]}\n");
	const char *name = top ? "micro-top" : "micro-ckpt";
	char *run = synth_trainer_folder(dir, name, &v, 32, 0.0, 0.0, state);
	if (!top) {
		char *from = path_join(run, "trainer_state.json"), *c3 = path_join(run, "checkpoint-75"),
		     *c4 = path_join(run, "checkpoint-100");
		mkdir(c3, 0755);
		mkdir(c4, 0755);
		char *to = path_join(c4, "trainer_state.json"), *s3 = path_join(c3, "trainer_state.json");
		CHECK(rename(from, to) == 0);
		CHECK_INT(write_text(s3, "{\"global_step\": 75, \"max_steps\": 100, \"logging_steps\": 10, "
		                         "\"save_steps\": 25, \"log_history\": [{\"loss\": 1.5, \"step\": 70}]}\n"), 0);
		free(from);
		free(to);
		free(s3);
		free(c3);
		free(c4);
	}
	double e;
	CHECK_INT(ingest(run, err, sizeof err, &e), 0);
	CHECK(strstr(err, "went on") == NULL);
	CHECK(strstr(err, "resumed run") == NULL);
	CHECK_CONTAINS(err, ", 4 a step (to ");
	CHECK_CONTAINS(err, "steps: micro-steps of grad_accum 4, not steps run again; used as stated: give steps.csv; ");
	fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%)\n", name, e, truth, 100 * (e / truth - 1));
	CHECK(fabs(e / truth - 1) < 0.01);
	free(run);
}

/* A count whose steps would be shorter than any optimizer step: the
 * micro-step run's 100 steps stated as global_step 1000000000 were kept
 * with a -100 % warning (1.5e-4 J and 2.9e-7 s per step), which fit then
 * refused as degenerate; refused at ingest, naming the file and field. */
static void
absurd_count(void)
{
	char *run = path_join(dir, "micro-top"), *state = path_join(run, "trainer_state.json"), err[8192];
	double e;
	CHECK_INT(write_text(state, "{\"global_step\": 1000000000, \"max_steps\": 1000000000, \"logging_steps\": "
	                            "10, \"log_history\": [{\"loss\": 1.5, \"step\": 10}]}\n"), 0);
	CHECK_INT(ingest(run, err, sizeof err, &e), 1);
	CHECK_CONTAINS(err, "micro-top: trainer_state.json: /global_step 1000000000 gives steps of 2.9e-07 s over 290 s "
	               "of training, under 0.01 s, shorter than any optimizer step: not this run's count");
	free(state);
	free(run);
}

int
main(void)
{
	dir = test_tmpdir("ft_state_period_steps");
	alternating();
	micro_steps(0);
	micro_steps(1);
	absurd_count();
	free(dir);
	return check_report("test_ft_state_period_steps");
}

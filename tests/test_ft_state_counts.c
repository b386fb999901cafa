/*
 * `wattcast ingest` of fine-tuning runs whose step log is a Hugging Face
 * trainer_state.json, on the numbers it divides by (docs/finetune.md,
 * "Counting steps"; docs/formats/finetune-telemetry.md, "Step logs"):
 * synthetic one-GPU nvidia-smi logs at 100 ms of 2-s steps (1.6 s at
 * 550 W, 0.4 s at 350 W) with a 16-s save at 150 W every save interval.
 *
 * - Tokens: the Trainer keeps the running num_input_tokens_seen at the
 *   state's top level and logs it every logging_steps. 120 steps of 6000
 *   packed tokens logged every 25: the last entry is step 100 with 600000,
 *   the top level says 720000. The last entry's count over global_step
 *   gave 5000 tokens per step (energy per token +20 %); the top level over
 *   global_step, else the last entry's over its own step, gives 6000.
 * - A resumed run whose log_history kept both sessions: a crash after
 *   step 140 (logged every 10), a resume from checkpoint-100, 240 steps
 *   run for a global_step of 200. Over global_step its energy per step was
 *   +20 % with only a warning; the steps run are counted, and said.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_J (1.6 * 550 + 0.4 * 350) /* one GPU */

/* 120 steps, 6000 tokens each, logged every 25; `top`: the state's own
 * total ("" none). */
static void
tokens(const char *dir, const char *name, const char *top)
{
	static synth_trainer_wave v;
	char state[2048], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, 120, 40, 0, 0.0);
	p += sprintf(p, "{\"global_step\": 120, \"max_steps\": 120, \"logging_steps\": 25, \"save_steps\": 40,%s\n"
	             " \"log_history\": [\n", top);
	for (int s = 25; s <= 100; s += 25)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d, \"num_input_tokens_seen\": %d},\n", s, 6000 * s);
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 120}]}\n", 120 * 2.0 + 2 * 16.0 + 16.0);
	char *run = synth_trainer_folder(dir, name, &v, 5, 0.0, 0.0, state), *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j, et = atof(wc_ft_table_get_extra(t, 0, "energy_per_token_j"));
		fprintf(stderr, "%s: %.0f tokens per step (truth 6000), %.1f J/step (truth %.1f), %.5f J/token (truth "
		        "%.5f)\n", name, t->runs[0].config.tokens_per_step, e, STEP_J, et, STEP_J / 6000);
		CHECK_NEAR(t->runs[0].config.tokens_per_step, 6000, 0);
		CHECK(fabs(e / STEP_J - 1) < 0.01);
		CHECK(fabs(et / (STEP_J / 6000) - 1) < 0.01);
	}
	CHECK(strstr(err, "num_input_tokens_seen") == NULL);
	wc_ft_table_free(t);
	free(err);
	free(run);
}

/* A crash after step 140 resumed from checkpoint-100 (a save every 50):
 * log_history 10..140, then 110..200, as a Trainer keeping the first
 * session's entries leaves it. */
static void
resumed(const char *dir)
{
	static synth_trainer_wave v;
	char state[8192], *p = state;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, 200, 50, 140, 0.0);
	synth_trainer_add(&v, 60.0, 70.0); /* the crash and the restart */
	double resume = v.t;
	synth_trainer_session(&v, 101, 200, 50, 0, 0.0);
	p += sprintf(p, "{\"global_step\": 200, \"max_steps\": 200, \"logging_steps\": 10, \"save_steps\": 50,\n"
	             " \"log_history\": [\n");
	for (int s = 10; s <= 140; s += 10)
		p += sprintf(p, "  {\"loss\": 1.5, \"step\": %d},\n", s);
	for (int s = 110; s <= 200; s += 10)
		p += sprintf(p, "  {\"loss\": 1.4, \"step\": %d},\n", s);
	sprintf(p, "  {\"train_runtime\": %.1f, \"step\": 200}]}\n", v.t - resume);
	char *run = synth_trainer_folder(dir, "resumed-log-kept", &v, 5, 0.0, 0.0, state), *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	if (t) {
		double e = t->runs[0].energy_per_step_j;
		fprintf(stderr, "resumed: %s steps (truth 240), %.1f J/step (truth %.1f, %+.2f %%)\n%s",
		        wc_ft_table_get_extra(t, 0, "steps"), e, STEP_J, 100 * (e / STEP_J - 1), err);
		CHECK(strcmp(wc_ft_table_get_extra(t, 0, "steps"), "240") == 0);
		CHECK(fabs(e / STEP_J - 1) < 0.01);
		CHECK(strcmp(wc_ft_table_get_extra(t, 0, "step_source"), "trainer_state") == 0);
	}
	CHECK_CONTAINS(err, "resumed-log-kept: trainer_state.json: log_history's step goes back from 140 to 110 (a "
	               "resumed run, 1 time): 240 steps counted, global_step 200 plus 40 run again; steps past the "
	               "last logged one before a crash are not known");
	/* counted, the steps agree with the trace: no count to doubt */
	CHECK(strstr(err, "after its checkpoint ran again") == NULL);
	wc_ft_table_free(t);
	free(err);
	free(run);
}

int
main(void)
{
	char *dir = test_tmpdir("ft_state_counts");
	tokens(dir, "tokens-top-level", " \"num_input_tokens_seen\": 720000,");
	/* without the top level (older Trainers): the last entry over its step */
	tokens(dir, "tokens-log-only", "");
	/* 0 is the Trainer's default when it does not count: the log's */
	tokens(dir, "tokens-top-level-zero", " \"num_input_tokens_seen\": 0,");
	resumed(dir);
	free(dir);
	return check_report("test_ft_state_counts");
}

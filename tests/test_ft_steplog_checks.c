/*
 * `wattcast ingest` of a fine-tuning step log held to a stated count's
 * rules (docs/finetune.md, "A step log against the trace"), and how a
 * steps.csv is read around them (docs/formats/finetune-telemetry.md,
 * "Step logs"). One H100 LoRA run of 100 2-s steps (1.6 s at 600 W, 0.4 s
 * at 350 W; grad_accum 4), power.draw.instant every 100 ms; each case a
 * steps.csv (and a trainer_state.json) written for it:
 *   - a row per micro-step (400 rows) with the state's 100 beside it was
 *     read as 400 steps, -75 % energy per step, without a word, then with
 *     a warning only: the state and the trace's period agree on 100, and
 *     the rows are counted 4 a step;
 *   - the last step number mistyped (100 as 1000) read 1000 steps in the
 *     same time, a tenth of the energy per step, with a gap warning only;
 *   - rows 5 ms apart read 40000 steps of 5 ms, accepted;
 *   - an unfinished last line refused the run ("expected 3 fields");
 *   - a steps.csv with no step row made ingest ignore the state beside it;
 *   - a step log of 120 steps starting 40 s before the power log, with a
 *     state of 120, was said to disagree with it ("steps.csv 100 in the
 *     power log");
 *   - --steps 2.5 and finetune.steps 2.5 were read, the warning quoting "2".
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_ft_files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STEPS 100
#define STEP_S 2.0
#define LEAD_S 30.0
#define EPOCH0 1796119200.0 /* 2026/12/01 10:00:00 UTC, synth_ft_nvsmi_row's 0 */

static const char *dir;

static double
power_at(double s)
{
	double u = s - LEAD_S;
	if (u < 0 || u >= STEPS * STEP_S)
		return 70.0;
	return fmod(u, STEP_S) < 1.6 ? 600.0 : 350.0;
}

/* The run folder `name` with its power log from `first` s and manifest. */
static char *
make_run(const char *name, double first)
{
	char *run = path_join(dir, name), *path = path_join(run, "power.csv");
	mkdir(run, 0755);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("timestamp, index, uuid, name, power.draw.instant [W]\n", f);
	for (int i = (int)(first / 0.1); i < (int)((2 * LEAD_S + STEPS * STEP_S) / 0.1); i++)
		synth_ft_nvsmi_row(f, 0.1 * i + 0.03, 0, power_at(0.1 * i + 0.03));
	fclose(f);
	synth_ft_manifest_write(run, 1, 4);
	free(path);
	return run;
}

static void
write_state(const char *run)
{
	char *path = path_join(run, "trainer_state.json");
	CHECK_INT(write_text(path, "{\"global_step\": 100, \"max_steps\": 100, \"logging_steps\": 10, \"log_history\": "
	                           "[{\"loss\": 1.5, \"step\": 100}]}\n"), 0);
	free(path);
}

/* steps.csv: a start row, then `rows` rows `every` s apart numbered
 * 1, 2, ...; `last` replaces the last row's number (0: none); `tail`
 * ends the file. */
static void
write_steps(const char *run, int rows, double every, int last, const char *tail)
{
	char *path = path_join(run, "steps.csv");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "step,epoch_s,event\n0,%.4f,start\n", EPOCH0 + LEAD_S);
	for (int k = 1; k <= rows; k++)
		fprintf(f, "%d,%.4f,step\n", k == rows && last ? last : k, EPOCH0 + LEAD_S + k * every);
	fputs(tail, f);
	fclose(f);
	free(path);
}

/* Ingest `run`; its exit status, stderr in `err` (cap bytes) and the
 * row's step_source and energy per step. */
static int
ingest(const char *run, char *err, size_t cap, char *source, double *e)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	snprintf(err, cap, "%s", r.err ? r.err : "");
	source[0] = '\0';
	*e = NAN;
	wc_ft_table *t = NULL;
	wc_error error;
	if (r.status == 0 && wc_ft_table_read(out, &t, &error) == WC_OK && t->n_runs == 1) {
		snprintf(source, 24, "%s", wc_ft_table_get_extra(t, 0, "step_source"));
		*e = t->runs[0].energy_per_step_j;
	}
	fprintf(stderr, "%s: status %d, %s %.1f J/step\n%s", run, r.status, source, *e, err);
	wc_ft_table_free(t);
	int status = r.status;
	run_result_free(&r);
	free(out);
	return status;
}

int
main(void)
{
	dir = test_tmpdir("ft_steplog_checks");
	const double truth = 1.6 * 600.0 + 0.4 * 350.0;
	char err[8192], source[24], *run;
	double e;

	/* a row per micro-step: said, with the state that agrees with the period */
	run = make_run("micro", 0.0);
	write_steps(run, 4 * STEPS, STEP_S / 4, 0, "");
	write_state(run);
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 0);
	CHECK_CONTAINS(err, "steps: steps.csv counted 4 rows a step (micro-steps of grad_accum), write state.global_step "
	               "in its step column: trainer_state.json's 100 steps and the trace's period");
	CHECK_CONTAINS(err, "(100) agree against its 400; 100 steps");
	/* counted 4 rows a step: -75 % energy per step before */
	CHECK(strcmp(source, "step_log") == 0 && fabs(e / truth - 1) < 0.01);
	CHECK(strstr(err, "count is used") == NULL);
	free(run);
	/* without the state the trace's period alone cannot tell it from a
	 * period of 4 steps: said, the log's count used */
	run = make_run("micro-nostate", 0.0);
	write_steps(run, 4 * STEPS, STEP_S / 4, 0, "");
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 0);
	CHECK_CONTAINS(err, "steps: check steps.csv's step column (micro-steps of grad_accum 4?): the trace's clear "
	               "period");
	CHECK(fabs(4 * e / truth - 1) < 0.01);
	free(run);

	/* the last step number mistyped: refused at its cell */
	run = make_run("typo", 0.0);
	write_steps(run, STEPS, STEP_S, 1000, "");
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 1);
	CHECK_CONTAINS(err, "steps.csv:102:1: column 'step': 1000 ends 901 steps in 2 s, 0.0022 s each, under 1/4 of "
	               "the log's median step 2 s: a mistyped step number? correct it");
	free(run);

	/* rows 5 ms apart: steps shorter than any optimizer step */
	run = make_run("fast", 0.0);
	write_steps(run, (int)(STEPS * STEP_S / 0.005), 0.005, 0, "");
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 1);
	CHECK_CONTAINS(err, "steps.csv: its step numbers count 40000 steps, which give steps of 0.005 s over 200 s of "
	               "training, under 0.01 s, shorter than any optimizer step");
	free(run);

	/* an unfinished last line: dropped and said, the run read */
	run = make_run("cut", 0.0);
	write_steps(run, STEPS, STEP_S, 0, "101,17961");
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 0);
	CHECK_CONTAINS(err, "steps.csv:103: unfinished last line (no newline: the log was still being written); "
	               "dropped");
	CHECK(strcmp(source, "step_log") == 0 && fabs(e / truth - 1) < 0.01);
	free(run);

	/* no step row: the trainer state beside it counts */
	run = make_run("nostep", 0.0);
	write_steps(run, 0, STEP_S, 0, "");
	write_state(run);
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 0);
	CHECK_CONTAINS(err, "steps.csv: holds no step rows (1 other row); the steps are counted from trainer_state");
	CHECK(strcmp(source, "trainer_state") == 0);
	free(run);
	/* a step log starting before the power log: the state against its own count */
	run = make_run("early", LEAD_S);
	char *path = path_join(run, "steps.csv");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "step,epoch_s,event\n0,%.4f,start\n", EPOCH0 + LEAD_S - 40.0);
	for (int k = 1; k <= STEPS + 20; k++)
		fprintf(f, "%d,%.4f,step\n", k, EPOCH0 + LEAD_S + STEP_S * (k - 20));
	fclose(f);
	free(path);
	path = path_join(run, "trainer_state.json");
	CHECK_INT(write_text(path, "{\"global_step\": 120, \"max_steps\": 120}\n"), 0);
	free(path);
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 0);
	CHECK_CONTAINS(err, "steps lie outside the power log");
	CHECK(strstr(err, "count is used") == NULL);
	free(run);
	/* a stated count that is not whole: refused, by flag and manifest */
	run = make_run("half", 0.0);
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--steps", "2.5", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err ? r.err : "", "--steps: expected a whole number, got '2.5'");
	run_result_free(&r);
	free(out);
	path = path_join(run, "wattcast-run.json");
	CHECK_INT(write_text(path, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": "
	                           "\"Llama-3.1-8B\",\n \"utc_offset_s\": 0, \"finetune\": {\"method\": \"lora\", "
	                           "\"micro_batch\": 4, \"seq_len\": 2048, \"grad_accum\": 4, \"gpus\": 1, "
	                           "\"lora_rank\": 16, \"checkpointing\": false, \"steps\": 2.5}}\n"), 0);
	free(path);
	CHECK_INT(ingest(run, err, sizeof err, source, &e), 1);
	CHECK_CONTAINS(err, "wattcast-run.json:2:165:");
	CHECK_CONTAINS(err, "/finetune/steps: 2.5 is no whole number of optimizer steps");
	free(run);
	return check_report("test_ft_steplog_checks");
}

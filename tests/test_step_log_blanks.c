/*
 * A steps.csv written with ", " separators, as nvidia-smi writes
 * power.csv (docs/formats/finetune-telemetry.md, "Step logs"): blanks
 * around a column name or a cell are no part of it. The header
 * "step, epoch_s, event" was refused as "missing required column
 * 'epoch_s'", and rows "0, 100.0, start" had their numbers read but their
 * event refused ("got ' start'"). Read now as the comma-only file, to the
 * same energy per step; a missing column names the columns the header has.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784386800.0 /* 2026/07/18 15:00:00 UTC, the power log's first sample */
#define N_STEPS 120
#define STEP_S 2.0

static void
read_buffer(void)
{
	const char *plain = "step,epoch_s,event\n0,100.0,start\n1,101.5,\n2,103.0,step\n2,118.0,save\n3,119.6,eval\n";
	const char *spaced = "step, epoch_s, event\n0, 100.0, start\n1, 101.5, \n2,\t103.0 ,step\n2, 118.0, save\n"
	                     "3, 119.6, eval\n";
	wc_step_log a = WC_STEP_LOG_INIT, b = WC_STEP_LOG_INIT;
	wc_error err = { 0, "" };
	CHECK_INT(wc_step_log_read_buffer(plain, strlen(plain), "steps.csv", &a, &err), WC_OK);
	CHECK_INT(wc_step_log_read_buffer(spaced, strlen(spaced), "steps.csv", &b, &err), WC_OK);
	if (b.n == 0)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(b.n, a.n);
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		CHECK_NEAR(b.t[i], a.t[i], 0);
		CHECK_INT(b.step[i], a.step[i]);
		CHECK_INT(b.event[i], a.event[i]);
		CHECK_INT(b.line[i], a.line[i]);
	}
	wc_step_log_free(&a);
	wc_step_log_free(&b);
	static const struct { const char *text, *msg; } bad[] = {
		/* a cell's refusal at the value, past its blanks */
		{ "step, epoch_s, event\n1, 100, ckpt\n",
		  "steps.csv:2:9: column 'event': expected start, step, save or eval, got 'ckpt'" },
		{ "step, epoch_s\n1,  12:00\n", "steps.csv:2:5: column 'epoch_s': expected Unix seconds, got '12:00'" },
		/* a missing column says what the header has */
		{ "step, time, kind\n1, 100, step\n",
		  "steps.csv:1:1: missing required column 'epoch_s': the header has 'step', 'time', 'kind'" },
		{ "iteration,epoch_s\n1,100\n", "steps.csv:1:1: missing required column 'step': the header has "
		  "'iteration', 'epoch_s'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		wc_step_log l = WC_STEP_LOG_INIT;
		wc_error e = { 0, "" };
		CHECK(wc_step_log_read_buffer(bad[i].text, strlen(bad[i].text), "steps.csv", &l, &e) == WC_EPARSE);
		CHECK_CONTAINS(e.msg, bad[i].msg);
	}
	/* a header of many long names is cut, the message under 256 bytes */
	char wide[2048] = "step";
	for (int i = 0; i < 40; i++)
		snprintf(wide + strlen(wide), sizeof wide - strlen(wide), ", a_rather_long_column_name_%02d", i);
	strcat(wide, "\n1, 2\n");
	wc_step_log l = WC_STEP_LOG_INIT;
	CHECK(wc_step_log_read_buffer(wide, strlen(wide), "steps.csv", &l, &err) == WC_EPARSE);
	CHECK_CONTAINS(err.msg, "missing required column 'epoch_s': the header has 'step', 'a_rather_long_column_...'");
	CHECK_CONTAINS(err.msg, ", ...");
	CHECK(strlen(err.msg) < 256);
}

/* A run folder of 120 2-s steps (1.6 s at 550 W, 0.4 s at 350 W) between
 * 10 s of idle, its steps.csv written with `sep` between cells. */
static char *
run_folder(const char *dir, const char *name, const char *sep)
{
	char *run = path_join(dir, name), *p = path_join(run, "power.csv"), *m = path_join(run, "wattcast-run.json");
	char *s = path_join(run, "steps.csv");
	mkdir(run, 0755);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Llama-3.1-8B\",\n"
	                        " \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", \"micro_batch\": 8,\n"
	                        "  \"seq_len\": 1024, \"grad_accum\": 4, \"lora_rank\": 64, \"checkpointing\": false}}\n"), 0);
	FILE *f = fopen(p, "w");
	fputs("timestamp, index, uuid, power.draw.instant [W]\n", f);
	double end = 10.0 + N_STEPS * STEP_S + 10.0;
	for (long long ms = 0; ms < llround(1000 * end); ms += 100) {
		double x = ms / 1000.0, w = 90;
		if (x >= 10.0 && x < 10.0 + N_STEPS * STEP_S)
			w = fmod(x - 10.0, STEP_S) < 1.6 ? 550 : 350;
		fprintf(f, "2026/07/18 15:%02lld:%02lld.%03lld, 0, GPU-a, %.2f W\n", ms / 60000, ms / 1000 % 60, ms % 1000, w);
	}
	fclose(f);
	f = fopen(s, "w");
	fprintf(f, "step%sepoch_s%sevent\n0%s%.3f%sstart\n", sep, sep, sep, T0 + 10.0, sep);
	for (int k = 1; k <= N_STEPS; k++)
		fprintf(f, "%d%s%.3f%sstep\n", k, sep, T0 + 10.0 + k * STEP_S, sep);
	fclose(f);
	free(p);
	free(m);
	free(s);
	return run;
}

static double
energy_per_step(const char *run)
{
	char *out = path_join(run, "row.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	wc_ft_table *t = NULL;
	wc_error err;
	double e = NAN;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "%s\n%s\n", r.out, r.err);
	run_result_free(&r);
	if (r.status == 0 && wc_ft_table_read(out, &t, &err) == WC_OK && t->n_runs == 1)
		e = t->runs[0].energy_per_step_j;
	wc_ft_table_free(t);
	free(out);
	return e;
}

int
main(void)
{
	read_buffer();
	char *dir = test_tmpdir("step_log_blanks");
	char *plain = run_folder(dir, "plain", ","), *spaced = run_folder(dir, "spaced", ", ");
	double e_plain = energy_per_step(plain), e_spaced = energy_per_step(spaced);
	fprintf(stderr, "energy per step: comma-only %.3f J, \", \" %.3f J (truth %.0f J)\n", e_plain, e_spaced,
	        1.6 * 550 + 0.4 * 350);
	CHECK(isfinite(e_plain));
	CHECK(fabs(e_plain / (1.6 * 550 + 0.4 * 350) - 1) < 0.02);
	CHECK_NEAR(e_spaced, e_plain, 0);
	free(plain);
	free(spaced);
	free(dir);
	return check_report("test_step_log_blanks");
}

/*
 * `wattcast ingest` of fine-tuning run folders (docs/formats/telemetry.md,
 * "Fine-tuning runs"), from files in the real multi-GPU nvidia-smi format:
 * no `index` column, eight rows per sample -- once with the `uuid`
 * column of the PowerTrace-Sim logs, once in nvidia-smi's default style
 * (", " separators, units after the values, no uuid, the rows of a sample
 * a millisecond apart). Energy per step within 1 % of the synthetic truth
 * with no step log, with steps.csv and with a checkpoint's
 * trainer_state.json; checkpoint saves excluded; refusals named.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define GPUS 8
#define STEPS 100
#define TRUTH (GPUS * (1.6 * 550 + 0.4 * 350)) /* J per step */

static char *dir;
static double t_start; /* epoch of the first sample */

/* Per-GPU power: idle 10 s, 100 steps of 2 s (1.6 s at 550 W, 0.4 s at
 * 350 W), a 15 s save at 150 W after every 20th, idle 10 s. Step ends
 * and saves go to `log` as steps.csv rows when given. */
static double
power_at(double s, FILE *log)
{
	double t = 10.0;
	if (s < t)
		return 90;
	for (int k = 1; k <= STEPS; k++) {
		if (log)
			fprintf(log, "%d,%.3f,step\n", k, t_start + t + 2.0);
		if (s < t + 1.6)
			return 550;
		if (s < t + 2.0)
			return 350;
		t += 2.0;
		if (k % 20 == 0 && k < STEPS) {
			if (log)
				fprintf(log, "%d,%.3f,save\n", k, t_start + t + 15.0);
			if (s < t + 15.0)
				return 150;
			t += 15.0;
		}
	}
	return 90;
}

static double
duration(void)
{
	return 10.0 + STEPS * 2.0 + 4 * 15.0 + 10.0;
}

static char *
folder(const char *name)
{
	char *d = path_join(dir, name);
	mkdir(d, 0755);
	return d;
}

/* power.csv in one of three styles: 0 by uuid, 1 the default query, 2 by index only. */
static void
write_power(const char *run, int default_style)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 7, (uint64_t)default_style);
	/* Instantaneous readings: on an H100 that is power.draw.instant
	 * (its power.draw is a 1-s mean, docs/formats/telemetry.md). */
	if (default_style == 2) /* by index, no uuid column */
		fputs("timestamp, index, power.draw.instant [W]\n", f);
	else if (default_style)
		fputs("timestamp, name, pci.bus_id, power.draw.instant [W], utilization.gpu [%]\n", f);
	else
		fputs("timestamp,uuid,power.draw.instant [W],clocks.sm [MHz],clocks.mem [MHz],utilization.gpu [%],"
		      "utilization.memory [%],memory.used [MiB],temperature.gpu\n", f);
	for (double s = 0; s < duration(); s += 0.1) {
		double w = power_at(s + 0.004, NULL);
		for (int g = 0; g < GPUS; g++) {
			double ms = 1000 * (s + (default_style ? 0.001 * g : 0.0));
			long long whole = (long long)llround(ms);
			int hh = 15 + (int)(whole / 3600000), mm = (int)(whole / 60000 % 60), ss = (int)(whole / 1000 % 60);
			double pw = w * (1 + 0.03 * wc_pcg32_normal(&rng));
			if (default_style == 2)
				fprintf(f, "2026/07/18 %02d:%02d:%02d.%03lld, %d, %.2f W\n", hh, mm, ss, whole % 1000, g, pw);
			else if (default_style)
				fprintf(f, "2026/07/18 %02d:%02d:%02d.%03lld, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %.2f W, %d %%\n",
				        hh, mm, ss, whole % 1000, 0x18 + g, pw, pw > 300 ? 98 : 0);
			else
				fprintf(f, "2026/07/18 %02d:%02d:%02d.%03lld,GPU-0000%04d-aaaa-bbbb-cccc-dddddddddddd,%.2f,1980,2619,%d,40,70000,50\n",
				        hh, mm, ss, whole % 1000, g, pw, pw > 300 ? 98 : 0);
		}
	}
	fclose(f);
	free(path);
}

static void
write_manifest(const char *run, const char *extra)
{
	char *path = path_join(run, "wattcast-run.json"), text[1024];
	snprintf(text, sizeof text,
	         "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Llama-3.1-8B\",\n"
	         " \"utc_offset_s\": 0,\n \"finetune\": {\"method\": \"qlora\", \"micro_batch\": 8, \"seq_len\": 1024,\n"
	         "  \"grad_accum\": 4, \"gpus\": 8, \"lora_rank\": 64, \"checkpointing\": false%s}}\n", extra);
	CHECK_INT(write_text(path, text), 0);
	free(path);
}

static void
write_steps(const char *run)
{
	char *path = path_join(run, "steps.csv");
	FILE *f = fopen(path, "w");
	fprintf(f, "# written by a TrainerCallback\nstep,epoch_s,event\n0,%.3f,start\n", t_start + 10.0);
	power_at(1e9, f);
	fclose(f);
	free(path);
}

/* The state of checkpoint-`at`, saved at step `at` of the run, logging
 * `tokens` num_input_tokens_seen per step when > 0. */
static void
write_trainer_state(const char *run, int at, double tokens)
{
	char name[32];
	snprintf(name, sizeof name, "checkpoint-%d", at);
	char *ck = path_join(run, name);
	mkdir(ck, 0755);
	char *path = path_join(ck, "trainer_state.json"), text[2048];
	snprintf(text, sizeof text,
	         "{\"best_metric\": null, \"epoch\": 1.0, \"eval_steps\": null, \"global_step\": %d,\n"
	         " \"logging_steps\": 10, \"max_steps\": %d, \"save_steps\": 20, \"train_batch_size\": 8,\n"
	         " \"log_history\": [{\"epoch\": 0.1, \"grad_norm\": 0.5, \"learning_rate\": 2e-05, \"loss\": 1.3, \"step\": 10},\n"
	         "   {\"epoch\": 1.0, \"step\": %d, \"total_flos\": 1e15, \"train_loss\": 1.1,\n"
	         "    \"num_input_tokens_seen\": %.0f,\n"
	         "    \"train_runtime\": %.1f, \"train_samples_per_second\": 4.0}]}\n",
	         at, STEPS, at, tokens > 0 ? tokens * at : 0.0, at * 2.0 + (at - 1) / 20 * 15.0);
	CHECK_INT(write_text(path, text), 0);
	free(path);
	free(ck);
}

static void
runs_ingest(void)
{
	char *a = folder("runs");
	char *r1 = path_join(a, "no-log"), *r2 = path_join(a, "steps-csv"), *r3 = path_join(a, "trainer-state");
	mkdir(r1, 0755);
	mkdir(r2, 0755);
	mkdir(r3, 0755);
	write_power(r1, 0);
	write_manifest(r1, "");
	write_power(r2, 0);
	write_manifest(r2, "");
	write_steps(r2);
	write_power(r3, 1);
	write_manifest(r3, "");
	write_trainer_state(r3, STEPS, 0);
	char *out = path_join(dir, "ft-runs.csv");
	const char *argv[] = { "wattcast", "ingest", a, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "%s\n%s\n", r.out, r.err);
	CHECK_CONTAINS(r.out, "wrote 3 fine-tuning rows");
	run_result_free(&r);
	wc_ft_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_ft_table_read(out, &t, &err), WC_OK);
	static const char *const sources[3] = { "trace_period", "step_log", "trainer_state" };
	for (size_t i = 0; t && i < t->n_runs && i < 3; i++) {
		const wc_ft_run *run = &t->runs[i];
		fprintf(stderr, "%s: %.1f J/step (truth %.1f, %+.2f %%), %s\n", run->run_id, run->energy_per_step_j,
		        TRUTH, 100 * (run->energy_per_step_j / TRUTH - 1), wc_ft_table_get_extra(t, i, "step_source"));
		CHECK(fabs(run->energy_per_step_j / TRUTH - 1) <= 0.01);
		CHECK(strcmp(wc_ft_table_get_extra(t, i, "step_source"), sources[i]) == 0);
		CHECK_INT(run->config.gpus, 8);
		/* found in the trace, or stated by steps.csv */
		CHECK(strcmp(wc_ft_table_get_extra(t, i, i == 1 ? "logged_pauses" : "saves"), "4") == 0);
		/* the saves' energy is out: about 4 x 15 s x 8 x 150 W */
		CHECK_NEAR(atof(wc_ft_table_get_extra(t, i, "excluded_energy_j")), 4 * 15 * 8 * 150.0, 0.03 * 72000);
		CHECK_NEAR(run->step_s, 2.0, 0.02);
	}
	CHECK(t && t->n_runs == 3);
	wc_ft_table_free(t);
	/* Two folders of one copied manifest template share a run_id: the
	 * table's reader would refuse it, so ingest refuses it, naming both
	 * folders, and writes nothing. */
	for (int k = 0; k < 2; k++) {
		char *m = path_join(k ? r2 : r1, "wattcast-run.json");
		CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"copied\", \"platform\": \"H100\", "
		                        "\"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
		                        "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"gpus\": 8, "
		                        "\"lora_rank\": 64, \"checkpointing\": false}}\n"), 0);
		free(m);
	}
	char *dup_out = path_join(dir, "ft-dup.csv");
	const char *argv_dup[] = { "wattcast", "ingest", r1, r2, "-o", dup_out, NULL };
	CHECK(run_wattcast(argv_dup, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "steps-csv: run_id 'copied' is also the id of a run of ");
	CHECK_CONTAINS(r.err, "no-log (run ids must be unique");
	CHECK(access(dup_out, F_OK) != 0);
	run_result_free(&r);
	free(dup_out);
	free(out);
	free(r1);
	free(r2);
	free(r3);
	free(a);
}

static void
refusals(void)
{
	/* A fine-tuning folder without its method. */
	char *a = folder("incomplete"), *out = path_join(dir, "x.csv");
	write_power(a, 0);
	char *steps = path_join(a, "steps.csv");
	CHECK_INT(write_text(steps, "step,epoch_s\n1,100\n"), 0);
	free(steps);
	char *m = path_join(a, "wattcast-run.json");
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Qwen3-8B\", "
	                        "\"utc_offset_s\": 0}"), 0);
	const char *argv[] = { "wattcast", "ingest", a, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "fine-tuning method unknown (give it in wattcast-run.json finetune.method or --method)");
	run_result_free(&r);
	/* Flags fill it; a steps.csv in seconds since the start (100 s) is no
	 * Unix time, and no offset would align it: said so, not an offset. */
	const char *argv2[] = { "wattcast", "ingest", a, "-o", out, "--method", "lora", "--lora-rank", "8",
	                        "--micro-batch", "4", "--seq-len", "512", "--grad-accum", "2",
	                        "--checkpointing", "false", NULL };
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "step log: epoch_s runs 100-100 s, not Unix time (before 2001)");
	run_result_free(&r);
	/* Power logged on a clock 2 h ahead of UTC, read with offset 0: both
	 * spans are said, and the offset that aligns them. */
	char text[160];
	snprintf(text, sizeof text, "step,epoch_s\n1,%.3f\n2,%.3f\n", t_start - 7200 + 12, t_start - 7200 + 14);
	steps = path_join(a, "steps.csv");
	CHECK_INT(write_text(steps, text), 0);
	free(steps);
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	/* the remedy first: a long folder path (CI's) cut it off the end */
	CHECK_CONTAINS(r.err, "no step lies inside the power log; utc_offset_s 7200 would align them (read with 0 s: ");
	snprintf(text, sizeof text, "steps at epoch %.0f-%.0f", t_start - 7200 + 12, t_start - 7200 + 14);
	CHECK_CONTAINS(r.err, text);
	run_result_free(&r);
	/* Three days apart: no time zone aligns them, and none is offered
	 * (an offset --utc-offset refuses was) */
	snprintf(text, sizeof text, "step,epoch_s\n1,%.3f\n2,%.3f\n", t_start + 3 * 86400.0 + 12, t_start + 3 * 86400.0 + 14);
	steps = path_join(a, "steps.csv");
	CHECK_INT(write_text(steps, text), 0);
	free(steps);
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no step lies inside the power log, and no UTC offset aligns them: they are 3.0 days apart");
	CHECK(strstr(r.err, "would align") == NULL);
	run_result_free(&r);
	/* A bad flag and a bad manifest value. */
	const char *argv3[] = { "wattcast", "ingest", a, "-o", out, "--micro-batch", "-2", NULL };
	CHECK(run_wattcast(argv3, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--micro-batch: must be between 1 and");
	run_result_free(&r);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"finetune\": {\"seq_len\": 0}}"), 0);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast-run.json:1:54: /finetune/seq_len: integer 0 outside [1, 100000000]");
	run_result_free(&r);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/2\", \"finetune\": {\"method\": \"lora\"}}"), 0);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_CONTAINS(r.err, "/finetune: needs \"schema\": \"wattcast.run/3\"");
	run_result_free(&r);
	free(m);
	free(a);
	free(out);
}

/* One QLoRA run of Qwen3-4B at micro-batch `b` on one GPU whose steps
 * cost what the published law says: 30 steps of E/600 W (80 % at 650 W,
 * 20 % at 400 W), a 15-s save at 150 W after every tenth. */
static double
sweep_run(const char *root, int b, wc_pcg32 *rng)
{
	char name[32], text[512];
	wc_params paper = WC_PARAMS_INIT;
	wc_ft_config c = WC_FT_CONFIG_INIT;
	wc_ft_binding bind;
	wc_ft_point pt;
	wc_params_default(&paper);
	wc_ft_config_from_model(&c, wc_model_lookup("Qwen3-4B"));
	c.lora_rank = 64;
	c.micro_batch = b;
	c.seq_len = 512;
	c.grad_accum = 4;
	CHECK_INT(wc_ft_bind(&paper.finetune, &c, &bind, NULL), WC_OK);
	wc_ft_bound_point(&bind, NULL, &pt);
	double e = pt.energy_per_step_j * exp(0.01 * wc_pcg32_normal(rng)), d = e / 600.0;
	snprintf(name, sizeof name, "b%02d", b);
	char *run = path_join(root, name), *path = path_join(run, "power.csv"), *man = path_join(run, "wattcast-run.json");
	mkdir(run, 0755);
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H200\", \"model\": \"Qwen3-4B\",\n"
	         " \"finetune\": {\"method\": \"qlora\", \"micro_batch\": %d, \"seq_len\": 512, \"grad_accum\": 4,\n"
	         "  \"lora_rank\": 64, \"checkpointing\": false}}\n", b);
	CHECK_INT(write_text(man, text), 0);
	FILE *f = fopen(path, "w");
	fputs("timestamp,index,uuid,power.draw [W]\n", f);
	double end = 10 + 30 * d + 2 * 15 + 10;
	for (double s = 0; s < end; s += 0.1) {
		double w = 90, t = 10;
		for (int k = 1; k <= 30 && s >= t; k++) {
			w = s < t + 0.8 * d ? 650 : s < t + d ? 400 : 90;
			t += d;
			if (k % 10 == 0 && k < 30 && s >= t) {
				w = s < t + 15 ? 150 : 90;
				t += 15;
			}
		}
		long long ms = llround(1000 * s);
		fprintf(f, "2026/07/18 %02lld:%02lld:%02lld.%03lld,0,GPU-a,%.2f\n", 12 + ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, w * (1 + 0.03 * wc_pcg32_normal(rng)));
	}
	fclose(f);
	free(run);
	free(path);
	free(man);
	wc_params_clear(&paper);
	return e;
}

/* The user's path on a micro-batch sweep: ingest -> fit -> validate. */
static void
user_path(void)
{
	char *root = folder("sweep"), *table = path_join(dir, "sweep.csv"), *law = path_join(dir, "sweep.json");
	static const int batches[5] = { 1, 2, 4, 8, 16 };
	double truth[5];
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 11, 0);
	for (int i = 0; i < 5; i++)
		truth[i] = sweep_run(root, batches[i], &rng);
	const char *ingest[] = { "wattcast", "ingest", root, "-o", table, NULL };
	const char *fit[] = { "wattcast", "fit", "finetune", table, "-o", law, "--bootstrap", "200", "--seed", "3", NULL };
	const char *val[] = { "wattcast", "validate", "finetune", table, NULL };
	run_result r;
	CHECK(run_wattcast(ingest, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_ft_table *t = NULL;
	CHECK_INT(wc_ft_table_read(table, &t, NULL), WC_OK);
	for (size_t i = 0; t && i < t->n_runs && i < 5; i++)
		CHECK(fabs(t->runs[i].energy_per_step_j / truth[i] - 1) <= 0.01);
	wc_ft_table_free(t);
	CHECK(run_wattcast(fit, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "batch_size       e_tok = a + b/x");
	run_result_free(&r);
	wc_params p = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_file(law, &p, NULL), WC_OK);
	fprintf(stderr, "user path: e0 %.1f [%.1f, %.1f], kappa %.4f [%.4f, %.4f]\n", p.finetune.e0.value,
	        p.finetune.e0.lo, p.finetune.e0.hi, p.finetune.kappa.value, p.finetune.kappa.lo, p.finetune.kappa.hi);
	CHECK(p.finetune.e0.lo <= 2176.3 && 2176.3 <= p.finetune.e0.hi);
	CHECK(p.finetune.kappa.lo <= 4.5241 && 4.5241 <= p.finetune.kappa.hi);
	wc_params_clear(&p);
	CHECK(run_wattcast(val, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "100.0%");
	run_result_free(&r);
	free(root);
	free(table);
	free(law);
}

/* A run that crashed (or hit its time limit) 40 steps after its last
 * checkpoint: the checkpoint's global_step counts the steps to that save,
 * the trace's period counts them all. Taking the state's count put +63 %
 * on energy per step with no warning; it is refused, naming both counts,
 * and finetune.steps in the manifest, the remedy it names, is taken
 * (docs/finetune.md, "Counting steps"). */
static void
crash_after_checkpoint(void)
{
	char *a = folder("crash"), *r1 = path_join(a, "after-60"), *out = path_join(dir, "crash.csv");
	mkdir(r1, 0755);
	write_power(r1, 0);
	write_manifest(r1, "");
	write_trainer_state(r1, 60, 0);
	const char *argv[] = { "wattcast", "ingest", a, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	/* one sentence, naming the file and both counts */
	CHECK_CONTAINS(r.err, "checkpoint-60/trainer_state.json was saved at global_step 60, but the trace's step "
	                      "period 1.999 s over 200 s gives 100 steps: the run went on after that save; give");
	CHECK_CONTAINS(r.err, "give finetune.steps in wattcast-run.json or a steps.csv\n");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	/* Under a 200-character folder path the message keeps its numbers
	 * and its remedy whole: the run is named by its last component. */
	{
		char *deep = strdup(a);
		for (int k = 0; k < 4; k++) {
			char *next = path_join(deep, "a-long-folder-name-of-a-cluster-scratch-filesystem");
			mkdir(next, 0755);
			free(deep);
			deep = next;
		}
		char *rl = path_join(deep, "after-60");
		mkdir(rl, 0755);
		write_power(rl, 0);
		write_manifest(rl, "");
		write_trainer_state(rl, 60, 0);
		const char *argvl[] = { "wattcast", "ingest", rl, "-o", out, NULL };
		CHECK(run_wattcast(argvl, NULL, &r) == 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "after-60: checkpoint-60/trainer_state.json was saved at global_step 60, but");
		CHECK_CONTAINS(r.err, "gives 100 steps: the run went on after that save");
		CHECK_CONTAINS(r.err, "give finetune.steps in wattcast-run.json or a steps.csv\n");
		run_result_free(&r);
		free(rl);
		free(deep);
	}
	write_manifest(r1, ", \"steps\": 100");
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_ft_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_ft_table_read(out, &t, &err), WC_OK);
	if (t && t->n_runs == 1) {
		CHECK(strcmp(wc_ft_table_get_extra(t, 0, "step_source"), "manifest") == 0);
		CHECK(fabs(t->runs[0].energy_per_step_j / TRUTH - 1) <= 0.01);
	}
	wc_ft_table_free(t);
	/* Ten steps after checkpoint-90 of max_steps 100 are within what the
	 * period tells apart (11 %): kept, with a warning naming max_steps. */
	char *r9 = path_join(a, "after-90"), *out9 = path_join(dir, "after-90.csv");
	mkdir(r9, 0755);
	write_power(r9, 0);
	write_manifest(r9, "");
	write_trainer_state(r9, 90, 0);
	const char *argv9[] = { "wattcast", "ingest", r9, "-o", out9, NULL };
	CHECK(run_wattcast(argv9, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "checkpoint-90/trainer_state.json: global_step 90 is below max_steps 100");
	run_result_free(&r);
	free(out9);
	free(r9);
	/* num_input_tokens_seen over what a step holds (8 x 1024 x 4 x 8 =
	 * 262144; some Trainer versions over-count): left out with a warning
	 * naming it, by the rule a runs-table row and a query are held to;
	 * the row's tokens_per_step stays blank (the most a step holds). */
	char *r2 = path_join(a, "overcount");
	mkdir(r2, 0755);
	write_power(r2, 0);
	write_manifest(r2, "");
	write_trainer_state(r2, STEPS, 300000);
	char *out2 = path_join(dir, "overcount.csv");
	const char *argv2[] = { "wattcast", "ingest", r2, "-o", out2, NULL };
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "checkpoint-100/trainer_state.json: num_input_tokens_seen / global_step is left out: "
	               "300000 tokens are more than one step holds");
	run_result_free(&r);
	CHECK_INT(wc_ft_table_read(out2, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1 && isnan(t->runs[0].config.tokens_per_step));
	wc_ft_table_free(t);
	free(r2);
	/* A node-wide log of 8 GPUs without a uuid column for a 4-GPU job,
	 * with and without gpu_uuids: the error says the log lacks the column
	 * gpu_uuids needs, rather than sending the user to gpu_uuids. */
	char *r3 = path_join(a, "four-of-eight"), *m3 = path_join(r3, "wattcast-run.json");
	mkdir(r3, 0755);
	write_power(r3, 2);
	for (int k = 0; k < 2; k++) {
		char text[1024];
		snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": "
		         "\"Llama-3.1-8B\", \"utc_offset_s\": 0,%s \"finetune\": {\"method\": \"qlora\", "
		         "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"gpus\": 4, \"lora_rank\": 64, "
		         "\"checkpointing\": false}}\n", k ? " \"gpu_uuids\": [\"0\", \"1\", \"2\", \"3\"]," : "");
		CHECK_INT(write_text(m3, text), 0);
		const char *argv3[] = { "wattcast", "ingest", r3, "-o", out2, NULL };
		CHECK(run_wattcast(argv3, NULL, &r) == 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "power.csv:2:2: the first sample holds 8 GPUs, expected 4 (gpu_uuids would name the "
		               "run's GPUs, but this log has no uuid column: add uuid to nvidia-smi --query-gpu)");
		run_result_free(&r);
	}
	free(m3);
	free(r3);
	free(out2);
	free(out);
	free(r1);
	free(a);
}

/* A top-level num_input_tokens_seen below log_history's own count (or
 * below 0) is no running total: log_history's is used over its step and
 * both are named; 1000 was read as 10 tokens per step without a word. */
static void
tokens_top_level(void)
{
	const double top[2] = { 1000, -5 };
	for (int k = 0; k < 2; k++) {
		char name[32], text[1024];
		snprintf(name, sizeof name, "tokens-top-%d", k);
		char *a = folder(name), *out = path_join(a, "out.csv"), *st = path_join(a, "trainer_state.json");
		write_power(a, 0);
		write_manifest(a, "");
		snprintf(text, sizeof text, "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, "
		         "\"save_steps\": 20, \"num_input_tokens_seen\": %.0f, \"log_history\": [{\"loss\": 1.3, "
		         "\"step\": 90, \"num_input_tokens_seen\": 540000}, {\"step\": %d, \"train_runtime\": 260.0}]}\n",
		         STEPS, STEPS, top[k], STEPS);
		CHECK_INT(write_text(st, text), 0);
		const char *argv[] = { "wattcast", "ingest", a, "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, k == 0 ? "trainer_state.json: num_input_tokens_seen 1000 is below log_history's "
		                               "540000 at step 90, which a running total cannot be: log_history's is used"
		                             : "trainer_state.json: num_input_tokens_seen -5 is negative: log_history's "
		                               "540000 at step 90 is used");
		run_result_free(&r);
		wc_ft_table *t = NULL;
		wc_error err;
		CHECK_INT(wc_ft_table_read(out, &t, &err), WC_OK);
		CHECK(t && t->n_runs == 1 && fabs(t->runs[0].config.tokens_per_step - 6000) < 1e-9);
		wc_ft_table_free(t);
		free(st);
		free(out);
		free(a);
	}
}

/* The summary's platform column holds the longest name whole, as the
 * inference summary's does: RTX-PRO-6000 was cut to "RTX-PR". */
static void
long_platform(void)
{
	char *a = folder("rtxpro"), *out = path_join(dir, "rtxpro.csv"), *m = path_join(a, "wattcast-run.json");
	write_power(a, 0);
	write_steps(a);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"RTX-PRO-6000\", \"model\": "
	                        "\"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
	                        "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"gpus\": 8, "
	                        "\"lora_rank\": 64, \"checkpointing\": false}}\n"), 0);
	const char *argv[] = { "wattcast", "ingest", a, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, " RTX-PRO-6000    8 qlora");
	run_result_free(&r);
	/* serving-only flags: said not applied, not dropped without a word */
	const char *serving[] = { "wattcast", "ingest", a, "-o", out, "--tp", "4", "--workload", "closed",
		                  "--power-only", NULL };
	CHECK(run_wattcast(serving, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "warning: --tp, --workload, --power-only: not applied; serving flags, not for "
	                      "fine-tuning runs");
	run_result_free(&r);
	free(m);
	free(out);
	free(a);
}

int
main(void)
{
	dir = test_tmpdir("cli_ingest_finetune");
	CHECK_INT(wc_nvsmi_parse_time("2026/07/18 15:00:00.000", 23, &t_start), 0);
	runs_ingest();
	crash_after_checkpoint();
	refusals();
	user_path();
	long_platform();
	tokens_top_level();
	free(dir);
	return check_report("test_cli_ingest_finetune");
}

/*
 * The unit-slip rule (a mean under 1 W per GPU is kW logged as W,
 * docs/formats/telemetry.md "power-under-a-watt") on the readers that
 * missed it: serving run folders, scrapes and Prometheus refused it
 * (test_run_power_floor), but
 * - a fine-tuning run folder in kW was ingested (a row at 1.02 J per step,
 *   0.51 W) and exit 0, for `fit finetune` to refuse it at its cell;
 * - a runs table's mean_power_w of 0.2514 W was read (only > 0 asked) and
 *   `validate heldout` scored it at +108097 % without a word;
 * - `wattcast metrics` printed a mean of 0.3 W without a word.
 * Now the first two are refused (the power file and column; the cell) and
 * metrics warns, by one rule (wc_power_under_floor); the same runs at a
 * board's power pass.
 */
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 100 LoRA steps with saves on one H100, its power in watts, or with
 * every reading divided by 1000 when `kw` (kilowatts written as watts). */
static char *
ft_folder(const char *dir, const char *name, int kw)
{
	static synth_trainer_wave v;
	memset(&v, 0, sizeof v);
	synth_trainer_add(&v, 20.0, 70.0);
	synth_trainer_session(&v, 1, 100, 50, 0, 0.0);
	char state[512];
	snprintf(state, sizeof state, "{\"global_step\": 100, \"max_steps\": 100, \"logging_steps\": 10, "
	         "\"save_steps\": 50, \"log_history\": [{\"loss\": 1.5, \"step\": 50}, {\"loss\": 1.4, \"step\": 100}, "
	         "{\"train_runtime\": %.1f, \"step\": 100}]}\n", 100 * 2.0 + 2 * 16.0);
	char *run = synth_trainer_folder(dir, name, &v, 7, 0.0, 0.0, state);
	if (!kw)
		return run;
	/* the last field of each data line, "550.12 W", becomes "0.55012 W" */
	char *path = path_join(run, "power.csv"), *text = test_slurp(path), *p = text, *q;
	FILE *f = fopen(path, "w");
	CHECK(text && f);
	if (!text || !f)
		exit(1);
	for (; *p; p = q + 1) {
		q = strchr(p, '\n');
		if (!q)
			break;
		*q = '\0';
		char *last = strrchr(p, ',');
		double watts;
		if (last && sscanf(last + 1, "%lf W", &watts) == 1)
			fprintf(f, "%.*s, %.5f W\n", (int)(last - p), p, watts / 1000.0);
		else
			fprintf(f, "%s\n", p);
	}
	fclose(f);
	free(text);
	free(path);
	return run;
}

int
main(void)
{
	char *dir = test_tmpdir("power_floor_readers"), *out = path_join(dir, "ft.csv");
	run_result r;

	/* 1. a fine-tuning run in kW: refused, power file and column named,
	 * nothing written; the same run in W is taken */
	char *kw = ft_folder(dir, "ftkw", 1), *w = ft_folder(dir, "ftw", 0);
	const char *a1[] = { "wattcast", "ingest", kw, "-o", out, NULL };
	CHECK_INT(run_wattcast(a1, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "ftkw/power.csv: power.draw: ");
	CHECK_CONTAINS(r.err, " J per step of 2 s: mean power 0.");
	CHECK_CONTAINS(r.err, " W per GPU is under 1 W, below any GPU's idle: a unit slip (kW read as W?)");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	const char *a2[] = { "wattcast", "ingest", w, "-o", out, NULL };
	CHECK_INT(run_wattcast(a2, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err ? r.err : "", "unit slip") == NULL);
	CHECK(access(out, F_OK) == 0);
	run_result_free(&r);

	/* 2. a runs table's mean_power_w under 1 W per GPU of its tp:
	 * refused at its cell (0.75 W per GPU of tp 4); 1.25 W per GPU is
	 * no slip */
	char *low = test_fixture(dir, "low.csv",
	                         "run_id,platform,tp,model,running,mean_power_w\n"
	                         "a,A100,1,Qwen/Qwen3-8B,8.07,251.4\n"
	                         "b,A100,4,Qwen/Qwen3-8B,8.07,3\n");
	const char *a3[] = { "wattcast", "validate", "heldout", "--profile", "paper", low, NULL };
	CHECK_INT(run_wattcast(a3, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "low.csv:3:29: column 'mean_power_w': mean power 0.75 W per GPU is under 1 W, below "
	               "any GPU's idle: a unit slip (kW read as W?), got '3'");
	run_result_free(&r);
	char *ok = test_fixture(dir, "ok.csv",
	                        "run_id,platform,tp,model,running,mean_power_w\n"
	                        "a,A100,1,Qwen/Qwen3-8B,8.07,251.4\n"
	                        "b,A100,4,Qwen/Qwen3-8B,8.07,5\n");
	const char *a4[] = { "wattcast", "validate", "heldout", "--profile", "paper", ok, NULL };
	CHECK_INT(run_wattcast(a4, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	/* 3. metrics of a log in kW: the numbers as read, and a warning
	 * naming the file and the column; none for the log in W */
	char *pkw = path_join(kw, "power.csv"), *pw = path_join(w, "power.csv");
	const char *a5[] = { "wattcast", "metrics", pkw, NULL };
	CHECK_INT(run_wattcast(a5, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "warning: ");
	CHECK_CONTAINS(r.err, "ftkw/power.csv: power.draw: mean power 0.");
	CHECK_CONTAINS(r.err, " W per GPU is under 1 W, below any GPU's idle: a unit slip (kW read as W?)");
	run_result_free(&r);
	const char *a6[] = { "wattcast", "metrics", pw, NULL };
	CHECK_INT(run_wattcast(a6, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err ? r.err : "", "unit slip") == NULL);
	run_result_free(&r);

	free(pkw);
	free(pw);
	free(low);
	free(ok);
	free(kw);
	free(w);
	free(out);
	free(dir);
	return check_report("test_power_floor_readers");
}

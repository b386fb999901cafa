/*
 * `wattcast ingest` of fine-tuning run folders: what the power log says
 * of the GPUs. The platform comes from the manifest, else nvidia-smi's
 * product name in power.csv, else --platform, as for a serving run
 * (docs/cli.md, "ingest"; docs/formats/telemetry.md, "The platform"),
 * and a manifest the product name contradicts is kept with the serving
 * ingest's warning; a board the catalog lacks is said as for a serving
 * run. Two nodes merged into one log without `uuid` repeat
 * the GPU indices: a job stated larger than one node is refused naming
 * the repeated index and the remedy (docs/finetune.md, "Limits"; the
 * reader's side in test_nvsmi_nodes).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STEPS 50

static char *dir;
static double t_start; /* epoch of the first sample */

/* Per-GPU power at s seconds: idle 10 s, STEPS steps of 2 s (1.6 s at
 * 550 W, 0.4 s at 350 W), idle 10 s. */
static double
power_at(double s)
{
	if (s < 10.0 || s >= 10.0 + 2.0 * STEPS)
		return 90.0;
	return fmod(s - 10.0, 2.0) < 1.6 ? 550.0 : 350.0;
}

/* power.csv of `nodes` nodes of `gpus` GPUs each, every 0.1 s, by index
 * (with the product name `name` when given); a second node's rows come
 * 13 ms after the first's, its indices again from 0. */
static void
write_power(const char *run, const char *name, int nodes, int gpus)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	fprintf(f, "timestamp, index,%s power.draw [W]\n", name ? " name," : "");
	for (int i = 0; i < (int)((20.0 + 2.0 * STEPS) * 10); i++)
		for (int n = 0; n < nodes; n++) {
			long long ms = 100LL * i + 13LL * n;
			for (int g = 0; g < gpus; g++)
				fprintf(f, "2026/07/18 15:%02lld:%02lld.%03lld, %d,%s%s%s %.2f W\n", ms / 60000, ms / 1000 % 60,
				        ms % 1000, g, name ? " " : "", name ? name : "", name ? "," : "",
				        power_at(ms / 1000.0 + 0.004) + g);
		}
	fclose(f);
	free(path);
}

static void
write_steps(const char *run)
{
	char *path = path_join(run, "steps.csv");
	FILE *f = fopen(path, "w");
	fprintf(f, "step,epoch_s,event\n0,%.3f,start\n", t_start + 10.0);
	for (int k = 1; k <= STEPS; k++)
		fprintf(f, "%d,%.3f,step\n", k, t_start + 10.0 + 2.0 * k);
	fclose(f);
	free(path);
}

/* A run folder: power.csv, steps.csv and wattcast-run.json naming
 * `platform` ("" none) and the job's `gpus`. */
static char *
run_folder(const char *id, const char *platform, const char *name, int nodes, int gpus)
{
	char *run = path_join(dir, id), *m = path_join(run, "wattcast-run.json"), text[1024], plat[64] = "";
	mkdir(run, 0755);
	write_power(run, name, nodes, gpus);
	write_steps(run);
	if (platform[0])
		snprintf(plat, sizeof plat, " \"platform\": \"%s\",", platform);
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\",%s \"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, "
	         "\"finetune\": {\"method\": \"lora\", \"micro_batch\": 4, \"seq_len\": 2048, \"grad_accum\": 4, "
	         "\"gpus\": %d, \"lora_rank\": 16, \"checkpointing\": false}}\n", plat, nodes * gpus);
	CHECK_INT(write_text(m, text), 0);
	free(m);
	return run;
}

/* Ingest `run` (with `flag` and its value when given) into `out`; the
 * exit status, stderr in `err` (caller frees). */
static int
ingest(const char *run, const char *out, const char *flag, const char *value, char **err)
{
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, flag, value, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	int status = r.status;
	*err = strdup(r.err ? r.err : "");
	run_result_free(&r);
	return status;
}

/* The platform column and warnings of a one-row fine-tuning table. */
static void
check_row(const char *out, const char *platform, const char *warning)
{
	wc_ft_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_ft_table_read(out, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK(strcmp(t->runs[0].platform, platform) == 0);
		CHECK_CONTAINS(wc_ft_table_get_extra(t, 0, "warnings"), warning);
	}
	wc_ft_table_free(t);
}

static void
platform_from_log(void)
{
	const char *h100 = "NVIDIA H100 80GB HBM3";
	char *out = path_join(dir, "plat.csv"), *err = NULL;
	/* No platform in the manifest: the product name's, as a serving run's. */
	char *a = run_folder("no-platform", "", h100, 1, 2);
	CHECK_INT(ingest(a, out, NULL, NULL, &err), 0);
	check_row(out, "H100", "");
	free(err);
	/* ... and wins over --platform, which is said not applied. */
	CHECK_INT(ingest(a, out, "--platform", "A100", &err), 0);
	CHECK_CONTAINS(err, "--platform A100 (the run says H100): not applied (wattcast-run.json and power.csv's "
	                    "GPU name win over flags)");
	check_row(out, "H100", "--platform A100 (the run says H100): not applied");
	free(err);
	/* A manifest the product name contradicts: kept, with the serving
	 * ingest's warning, on stderr and in the row. */
	char *b = run_folder("contradicted", "A100", h100, 1, 2);
	const char *said = "platform A100 (manifest), but power.csv's name is 'NVIDIA H100 80GB HBM3' (H100); A100 "
	                   "kept, check which is right";
	CHECK_INT(ingest(b, out, NULL, NULL, &err), 0);
	CHECK_CONTAINS(err, said);
	check_row(out, "A100", said);
	free(err);
	/* The same manifest and log as a serving run: the same words. */
	char *s = path_join(dir, "serving.csv");
	const char *argv[] = { "wattcast", "ingest", b, "-o", s, "--power-only", "--tp", "2", NULL };
	char *m = path_join(b, "wattcast-run.json"), *steps = path_join(b, "steps.csv");
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"A100\", \"model\": \"Llama-3.1-8B\", "
	                        "\"utc_offset_s\": 0}\n"), 0);
	remove(steps);
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, said);
	run_result_free(&r);
	/* Neither a manifest nor a known product name: refused as before. */
	char *c = run_folder("unnamed", "", NULL, 1, 2);
	CHECK_INT(ingest(c, out, NULL, NULL, &err), 1);
	CHECK_CONTAINS(err, "platform unknown (give it in wattcast-run.json or --platform)");
	free(err);
	free(m);
	free(steps);
	free(s);
	free(a);
	free(b);
	free(c);
	free(out);
}

/* A board the platform catalog lacks, as for a serving run
 * (docs/formats/telemetry.md, "Manifests"): named by power.csv alone, the
 * refusal says so (it said only "platform unknown"); named by the
 * manifest or --platform, the row is written with predict's note, on
 * stderr and in the row's warnings (it was written without a word). */
static void
unknown_board(void)
{
	const char *note = "platform GB200 is not in the platform catalog: its board power limit and clock range are "
	                   "unknown, so no power reading is checked against the board's limit";
	char *out = path_join(dir, "gb.csv"), *err = NULL;
	char *a = run_folder("gb-log", "", "NVIDIA GB200", 1, 2);
	CHECK_INT(ingest(a, out, NULL, NULL, &err), 1);
	CHECK_CONTAINS(err, "platform unknown (give it in wattcast-run.json or --platform; power.csv's 'NVIDIA GB200' "
	                    "is not in the platform catalog)");
	free(err);
	char *b = run_folder("gb-manifest", "GB200", "NVIDIA GB200", 1, 2);
	CHECK_INT(ingest(b, out, NULL, NULL, &err), 0);
	CHECK_CONTAINS(err, note);
	check_row(out, "GB200", note);
	free(err);
	char *c = run_folder("gb-flag", "", NULL, 1, 2);
	CHECK_INT(ingest(c, out, "--platform", "GB200", &err), 0);
	CHECK_CONTAINS(err, note);
	check_row(out, "GB200", note);
	free(err);
	/* a board the catalog knows: no such word */
	char *d = run_folder("h100-manifest", "H100", NULL, 1, 2);
	CHECK_INT(ingest(d, out, NULL, NULL, &err), 0);
	CHECK(strstr(err, "not in the platform catalog") == NULL);
	free(err);
	free(a);
	free(b);
	free(c);
	free(d);
	free(out);
}

/* Two nodes of 2 GPUs merged into one log without uuid, the job's 4
 * GPUs stated: refused naming the repeated index and the remedy (it said
 * only "expected 4"; docs/finetune.md said the second node was dropped). */
static void
merged_nodes(void)
{
	char *a = run_folder("two-nodes", "H100", "NVIDIA H100 80GB HBM3", 2, 2), *out = path_join(dir, "nodes.csv");
	char *err = NULL;
	CHECK_INT(ingest(a, out, NULL, NULL, &err), 1);
	CHECK_CONTAINS(err, "power.csv:2:2: the first sample holds 2 GPUs, expected 4: GPU 0 again at line 4, 0.013 s "
	                    "on: nodes merged without uuid repeat the indices; add uuid to --query-gpu on every node");
	free(err);
	free(out);
	free(a);
}

int
main(void)
{
	dir = test_tmpdir("cli_ingest_finetune_gpus");
	CHECK_INT(wc_nvsmi_parse_time("2026/07/18 15:00:00.000", 23, &t_start), 0);
	platform_from_log();
	unknown_board();
	merged_nodes();
	free(dir);
	return check_report("test_cli_ingest_finetune_gpus");
}

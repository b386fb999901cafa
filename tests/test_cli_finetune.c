/*
 * The fine-tuning commands end to end (docs/cli.md): simulate -> fit ->
 * predict with an interval -> validate (table, --json, --per-run); bad
 * flags exit 2 naming the flag; bad rows exit 1 naming file:line:column;
 * a job whose weights cannot fit its GPUs is answered with a memory warning.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>

static char *dir;

static run_result
run(const char *const *argv, int status)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	if (r.status != status)
		fprintf(stderr, "  %s %s: stdout %s stderr %s\n", argv[1], argv[2], r.out, r.err);
	return r;
}

static void
pipeline(void)
{
	char *runs = path_join(dir, "ft.csv"), *params = path_join(dir, "ft.json");
	char *per_run = path_join(dir, "per-run.csv");
	const char *sim[] = { "wattcast", "simulate", "finetune", "--seed", "3", "-o", runs, NULL };
	run_result r = run(sim, 0);
	CHECK(strstr(r.err, "design rows") == NULL); /* the design is the published law's own */
	run_result_free(&r);
	const char *fit[] = { "wattcast", "fit", "finetune", runs, "-o", params, "--bootstrap", "100",
	                      "--seed", "5", "--threads", "2", NULL };
	r = run(fit, 0);
	CHECK_CONTAINS(r.out, "compute law");
	CHECK_CONTAINS(r.out, "sequence_length");
	CHECK_CONTAINS(r.out, "100 bootstrap draws of the fine-tuning law");
	run_result_free(&r);
	wc_params p = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_file(params, &p, NULL), WC_OK);
	CHECK(p.finetune.present && p.finetune.draws.n == 100 && p.finetune.bootstrap == 100);
	CHECK(strcmp(p.name, "fit") == 0 && p.n_levels == 4); /* the paper's inference law is kept */
	wc_params_clear(&p);
	const char *pred[] = { "wattcast", "predict", "finetune", "--params", params, "--method", "qlora",
	                       "--model", "Qwen3-4B", "--micro-batch", "8", "--seq-len", "1024", "--grad-accum",
	                       "4", "--lora-rank", "64", "--steps", "500", NULL };
	r = run(pred, 0);
	CHECK_CONTAINS(r.out, "95 % interval");
	CHECK_CONTAINS(r.out, "energy, 500 steps");
	CHECK_CONTAINS(r.out, "on its sweep");
	CHECK_CONTAINS(r.out, "\n  level source      fitted\n"); /* as the JSON's level_source */
	run_result_free(&r);
	const char *val[] = { "wattcast", "validate", "finetune", runs, "--json", "--per-run", per_run, NULL };
	r = run(val, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	double share = json_number_value(json_object_get(json_object_get(j, "relation"), "share_within_5pct"));
	CHECK(share >= 0.9);
	CHECK_INT(json_array_size(json_object_get(j, "levels")), 22);
	json_decref(j);
	run_result_free(&r);
	char *text = NULL;
	size_t len;
	CHECK_INT(wc_read_file(per_run, 1 << 22, &text, &len, NULL), WC_OK);
	CHECK_CONTAINS(text, "run_id,set,fold,predictor,");
	CHECK_CONTAINS(text, ",compute_law,");
	/* one row per prediction: every one of the 22 levels the table scores
	 * has its fold in the file, the params_b = 4 level too, whose runs
	 * the sequence-length sweep held out first */
	char folds[32][96];
	int n_folds = 0;
	for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		const char *f = strchr(line + 1, ',');
		f = f ? strchr(f + 1, ',') : NULL; /* run_id,set,fold: the third field */
		const char *e = f ? strchr(f + 1, ',') : NULL;
		if (!e || e - f - 1 >= 96)
			continue;
		int seen = 0;
		for (int k = 0; k < n_folds && !seen; k++)
			seen = strncmp(folds[k], f + 1, (size_t)(e - f - 1)) == 0 && folds[k][e - f - 1] == '\0';
		if (!seen && n_folds < 32) {
			memcpy(folds[n_folds], f + 1, (size_t)(e - f - 1));
			folds[n_folds++][e - f - 1] = '\0';
		}
	}
	CHECK_INT(n_folds, 22);
	CHECK_CONTAINS(text, ",model_size,sweep 3: params_b = 4 held out,relation,");
	CHECK_CONTAINS(text, "held out in an earlier sweep too: its interval and coverage are that sweep's row's");
	free(text);
	/* a refit of the law on its own file drops the held-out error measured
	 * on the law it replaces, and says so */
	const char *iv[] = { "wattcast", "fit", "intervals", runs, "--quantity", "finetune", "--params", params,
	                     "-o", params, NULL };
	run_result_free((r = run(iv, 0), &r));
	/* one residual per run: the 63 runs, not 66 with the shared base
	 * point of two sweeps counted twice */
	CHECK_INT(wc_params_load_file(params, &p, NULL), WC_OK);
	CHECK(p.quantity_error[WC_PEQ_FT_STEP].present && p.quantity_error[WC_PEQ_FT_STEP].strata[0].n == 63);
	wc_params_clear(&p);
	const char *refit[] = { "wattcast", "fit", "finetune", runs, "--params", params, "-o", params,
	                        "--bootstrap", "0", NULL };
	r = run(refit, 0);
	CHECK_CONTAINS(r.err, "dropped the held-out error of finetune_energy_per_step_j");
	CHECK_CONTAINS(r.err, "fit intervals --quantity finetune");
	run_result_free(&r);
	CHECK_INT(wc_params_load_file(params, &p, NULL), WC_OK);
	CHECK(!p.quantity_error[WC_PEQ_FT_STEP].present);
	wc_params_clear(&p);
	free(runs);
	free(params);
	free(per_run);
}

/* A law calibrated on 8-GPU H100 LoRA runs draws the design (QLoRA rank
 * 64 on one H200) outside its calibration: said, each field once with
 * the rows it concerns, by predict's own warnings. */
static void
simulate_outside(void)
{
	wc_params p = WC_PARAMS_INIT;
	char *law = path_join(dir, "lora-h100.json"), *runs = path_join(dir, "sim-outside.csv");
	wc_params_default(&p);
	snprintf(p.finetune.platform, sizeof p.finetune.platform, "H100");
	p.finetune.methods = 1u << WC_FT_LORA;
	CHECK_INT(wc_params_save_file(law, &p, NULL), WC_OK);
	const char *sim[] = { "wattcast", "simulate", "finetune", "--seed", "7", "--params", law, "-o", runs, NULL };
	run_result r = run(sim, 0);
	CHECK_CONTAINS(r.err, "warning: 63 of 63 design rows: platform: H200 differs from the calibration's H100");
	CHECK_CONTAINS(r.err, "warning: 63 of 63 design rows: method: qlora is outside the calibration (lora runs)");
	run_result_free(&r);
	wc_params_clear(&p);
	free(law);
	free(runs);
}

static void
bad_flags(void)
{
	const char *base[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--model", "Qwen3-8B",
	                       "--micro-batch", "8", "--seq-len", "1024", "--lora-rank", "8", NULL };
	static const struct { int at; const char *value, *msg; } cases[] = {
		{ 8, "-2", "--micro-batch: must be between 1 and" },
		{ 10, "0", "--seq-len: must be between 1 and" },
		{ 4, "dora", "--method: expected full, lora or qlora, got 'dora'" },
		{ 12, "0", "--lora-rank: must be between 1 and" },
		{ 6, "GPT-7", "--model: unknown model 'GPT-7'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[14];
		memcpy(argv, base, sizeof argv);
		argv[cases[i].at] = cases[i].value;
		run_result r = run(argv, 2);
		CHECK_CONTAINS(r.err, cases[i].msg);
		run_result_free(&r);
	}
	/* The board the built-in law was calibrated on, spelt as a user or
	 * nvidia-smi spells it, is that board: no "h200 differs from H200". */
	const char *spelt[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--model", "Qwen3-8B",
	                        "--micro-batch", "8", "--seq-len", "1024", "--lora-rank", "64", "--platform",
	                        "NVIDIA H200", NULL };
	run_result rs = run(spelt, 0);
	CHECK(strstr(rs.out, "differs from the calibration") == NULL);
	run_result_free(&rs);
	spelt[14] = "h100";
	rs = run(spelt, 0);
	CHECK_CONTAINS(rs.out, "platform: H100 differs from the calibration's H200");
	run_result_free(&rs);
	const char *no_rank[] = { "wattcast", "predict", "finetune", "--method", "lora", "--model", "Qwen3-8B",
	                          "--micro-batch", "8", "--seq-len", "1024", NULL };
	run_result r = run(no_rank, 2);
	CHECK_CONTAINS(r.err, "--lora-rank is required for lora");
	run_result_free(&r);
}

static void
bad_rows(void)
{
	char *runs = path_join(dir, "bad.csv"), *out = path_join(dir, "bad.json");
	CHECK_INT(write_text(runs, "run_id,platform,gpus,model,method,lora_rank,micro_batch,seq_len,grad_accum,"
	                           "checkpointing,energy_per_step_j,step_s\n"
	                           "a,H200,1,Qwen3-8B,qlora,64,8,1024,4,false,9000,12\n"
	                           "b,H200,1,Qwen3-8B,qlora,64,-2,1024,4,false,9000,12\n"), 0);
	const char *fit[] = { "wattcast", "fit", "finetune", runs, "-o", out, NULL };
	run_result r = run(fit, 1);
	CHECK_CONTAINS(r.err, "bad.csv:3:28: column 'micro_batch': must be a whole number >= 1, got '-2'");
	run_result_free(&r);
	CHECK_INT(write_text(runs, "run_id,platform,gpus,model,method,lora_rank,micro_batch,seq_len,grad_accum,"
	                           "checkpointing,energy_per_step_j,step_s\n"
	                           "a,H200,1,Qwen3-8B,qlora,0,8,1024,4,false,9000,12\n"), 0);
	const char *val[] = { "wattcast", "validate", "finetune", runs, NULL };
	r = run(val, 1);
	CHECK_CONTAINS(r.err, "bad.csv:2:25: column 'lora_rank': must be a whole number >= 1, got '0'");
	run_result_free(&r);
	free(runs);
	free(out);
}

/* A job that cannot hold even its weights (and, for full fine-tuning,
 * gradients) on its GPUs is answered with a memory warning naming the
 * numbers; one that can gets none. */
static void
memory(void)
{
	const char *big[] = { "wattcast", "predict", "finetune", "--method", "full", "--model", "Llama-3.1-405B",
	                      "--micro-batch", "1", "--seq-len", "2048", "--platform", "A10G", NULL };
	run_result r = run(big, 0);
	CHECK_CONTAINS(r.out, "memory: full fine-tuning of 405 B parameters holds at least 1620 GB (4 bytes per "
	                      "parameter), more than the 24 GB of 1 x A10G");
	run_result_free(&r);
	const char *small[] = { "wattcast", "predict", "finetune", "--method", "qlora", "--lora-rank", "16",
	                        "--model", "Llama-3.1-8B", "--micro-batch", "1", "--seq-len", "2048",
	                        "--platform", "A10G", NULL };
	r = run(small, 0);
	CHECK(strstr(r.out, "memory:") == NULL && strstr(r.err, "memory:") == NULL);
	CHECK_CONTAINS(r.out, "energy per step");
	run_result_free(&r);
}

/* A schema-5-or-later file without e0_per reads it as "job": the answer
 * says so, not that the file is of schema 4 or older (it is not). */
static void
e0_per_absent(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 1, NULL);
	json_t *root = s ? json_loads(s, 0, NULL) : NULL;
	CHECK(root != NULL);
	json_object_del(json_object_get(json_object_get(root, "finetune"), "compute"), "e0_per");
	char *txt = json_dumps(root, 0), *path = test_fixture(dir, "no-e0-per.json", txt);
	const char *argv[] = { "wattcast", "predict", "finetune", "--params", path, "--method", "qlora", "--model",
		               "Qwen3-8B", "--micro-batch", "8", "--seq-len", "512", "--lora-rank", "64", NULL };
	run_result r = run(argv, 0);
	CHECK_CONTAINS(r.out, "(e0 for the whole job whatever G: e0_per \"job\"");
	run_result_free(&r);
	free(path);
	free(txt);
	json_decref(root);
	free(s);
	wc_params_clear(&p);
}

/* Runs whose energies are all equal say nothing of kappa: refused, no
 * file written (docs/cli.md, "fit finetune"). The simulated design with
 * every energy set to 2000 J gave R^2 0.9375 and kappa 6e-18, written as
 * a fitted law. */
static void
flat_energies(void)
{
	char *runs = path_join(dir, "flat_src.csv"), *flat = path_join(dir, "flat.csv");
	char *params = path_join(dir, "flat.json");
	const char *sim[] = { "wattcast", "simulate", "finetune", "--seed", "3", "-o", runs, NULL };
	run_result r = run(sim, 0);
	run_result_free(&r);
	char *text = test_slurp(runs), *out = malloc(strlen(text) * 2 + 64);
	int col = -1;
	size_t o = 0;
	for (char *line = strtok(text, "\n"); line && out; line = strtok(NULL, "\n")) {
		int k = 0;
		for (char *f = line, *next; f; f = next, k++) {
			next = strchr(f, ',');
			size_t len = next ? (size_t)(next - f) : strlen(f);
			if (line[0] != '#' && col < 0 && len == 17 && strncmp(f, "energy_per_step_j", 17) == 0)
				col = k;
			int repl = line[0] != '#' && col >= 0 && k == col && strncmp(f, "energy_per_step_j", 17) != 0;
			o += (size_t)sprintf(out + o, "%s%.*s", k ? "," : "", repl ? 4 : (int)len, repl ? "2000" : f);
			next = next ? next + 1 : NULL;
		}
		out[o++] = '\n';
	}
	CHECK(col >= 0);
	if (out) {
		out[o] = '\0';
		CHECK_INT(write_text(flat, out), 0);
	}
	const char *fit[] = { "wattcast", "fit", "finetune", flat, "-o", params, "--bootstrap", "0", NULL };
	r = run(fit, 1);
	CHECK_CONTAINS(r.err, "same energy per step");
	CHECK(!test_exists(params));
	run_result_free(&r);
	free(text);
	free(out);
	free(runs);
	free(flat);
	free(params);
}

int
main(void)
{
	dir = test_tmpdir("cli_finetune");
	flat_energies();
	e0_per_absent();
	memory();
	pipeline();
	simulate_outside();
	bad_flags();
	bad_rows();
	free(dir);
	return check_report("test_cli_finetune");
}

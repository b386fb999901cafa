#include "tests/support/synth_trainer.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define HEADER "timestamp, index, uuid, name, power.draw [W]\n"

void
synth_trainer_add(synth_trainer_wave *v, double len, double w)
{
	v->s[v->n++] = (synth_trainer_seg){ v->t, v->t + len, w };
	v->t += len;
}

void
synth_trainer_session(synth_trainer_wave *v, int first, int last, int save, int crash, double eval_w)
{
	synth_trainer_add(v, 30.0, 130.0); /* loading the model */
	for (int k = first; k <= last; k++) {
		synth_trainer_add(v, 1.6, 550.0);
		synth_trainer_add(v, 0.4, 350.0);
		if (k == crash)
			return;
		if (k % save == 0 && eval_w > 0)
			synth_trainer_add(v, 30.0, eval_w);
		if (k % save == 0)
			synth_trainer_add(v, 16.0, 150.0);
	}
}

static double
power_at(const synth_trainer_wave *v, double t)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->s[i].a <= t && t < v->s[i].b)
			return v->s[i].w;
	return 70.0;
}

char *
synth_trainer_folder(const char *dir, const char *name, const synth_trainer_wave *v, unsigned seed, double cut_a,
                double cut_b, const char *state)
{
	char *run = path_join(dir, name), *path = path_join(run, "power.csv");
	mkdir(run, 0755);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, seed, 0);
	fputs(HEADER, f);
	int again = 0;
	for (long i = 0; i < (long)((v->t + 20.0) / 0.1); i++) {
		double s = 0.1 * (double)i + 0.004, p = power_at(v, s) * (1 + 0.02 * wc_pcg32_normal(&rng));
		long long ms = (long long)llround(100.0 * (double)i);
		if (s >= cut_a && s < cut_b)
			continue;
		if (cut_b > cut_a && s >= cut_b && !again++)
			fputs(HEADER, f);
		fprintf(f, "2026/12/01 %02lld:%02lld:%02lld.%03lld, 0, GPU-00000000-1111-2222-3333-444455556666, "
		        "NVIDIA H100 80GB HBM3, %.2f W\n", 10 + ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, p);
	}
	fclose(f);
	free(path);
	path = path_join(run, "trainer_state.json");
	CHECK_INT(write_text(path, state), 0);
	free(path);
	path = path_join(run, "wattcast-run.json");
	CHECK_INT(write_text(path, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Llama-3.1-8B\",\n"
	                           " \"utc_offset_s\": 0, \"finetune\": {\"method\": \"lora\", \"micro_batch\": 4,\n"
	                           " \"seq_len\": 2048, \"grad_accum\": 4, \"gpus\": 1, \"lora_rank\": 16,\n"
	                           " \"checkpointing\": false}}\n"), 0);
	free(path);
	return run;
}

wc_ft_table *
synth_trainer_ingest(const char *dir, const char *run, char **err)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	wc_ft_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status == 0)
		CHECK_INT(wc_ft_table_read(out, &t, NULL), WC_OK);
	CHECK(t && t->n_runs == 1);
	*err = r.err;
	r.err = NULL;
	run_result_free(&r);
	free(out);
	if (t && t->n_runs != 1) {
		wc_ft_table_free(t);
		t = NULL;
	}
	return t;
}

void
synth_trainer_state_write(const char *run, int steps, int save_steps, int eval_steps, double runtime)
{
	char *path = path_join(run, "trainer_state.json");
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"global_step\": %d, \"max_steps\": %d, \"logging_steps\": 10, \"save_steps\": %d,\n"
	        " \"eval_steps\": %d, \"log_history\": [\n", steps, steps, save_steps, eval_steps);
	for (int s = 1; s <= steps; s++) {
		if (s % 10 == 0)
			fprintf(f, "  {\"loss\": 1.5, \"grad_norm\": 0.8, \"learning_rate\": 1e-04, \"step\": %d},\n", s);
		if (s % eval_steps == 0)
			fprintf(f, "  {\"eval_loss\": 1.4, \"eval_runtime\": 30.0, \"eval_samples_per_second\": 12.5, "
			        "\"step\": %d},\n", s);
	}
	fprintf(f, "  {\"train_runtime\": %.3f, \"train_loss\": 1.3, \"step\": %d}]}\n", runtime, steps);
	fclose(f);
	free(path);
}

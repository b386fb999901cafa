/*
 * `wattcast ingest` of fine-tuning run folders (docs/formats/telemetry.md,
 * "Fine-tuning runs"): power.csv with every GPU of the job (summed), an
 * optional step log -- steps.csv, else trainer_state.json in the folder or
 * in its latest checkpoint-N/ -- and wattcast-run.json with a "finetune"
 * object. One fine-tuning runs-table row per folder
 * (docs/formats/finetune-runs.md).
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "ingest_internal.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"

/* The folder's trainer_state.json, or the one of its highest
 * checkpoint-N/ (written at each save; the last holds the whole log). */
static int
find_trainer_state(const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/trainer_state.json", dir);
	if (wc__file_exists(out))
		return 1;
	DIR *d = opendir(dir);
	struct dirent *e;
	long best = -1;
	while (d && (e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "checkpoint-", 11) != 0)
			continue;
		long k = strtol(e->d_name + 11, &end, 10);
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/trainer_state.json", dir, e->d_name);
		if (*end == '\0' && k > best && wc__file_exists(path)) {
			best = k;
			snprintf(out, cap, "%s", path);
		}
	}
	if (d)
		closedir(d);
	return best >= 0;
}

int
wc_ft_is_run_dir(const char *run_dir)
{
	char path[1024];
	wc_run_manifest m;
	snprintf(path, sizeof path, "%s/steps.csv", run_dir);
	if (wc__file_exists(path) || find_trainer_state(run_dir, path, sizeof path))
		return 1;
	snprintf(path, sizeof path, "%s/wattcast-run.json", run_dir);
	wc_run_manifest_init(&m);
	return wc__file_exists(path) && wc_run_manifest_load(path, &m, NULL) == WC_OK && m.finetune.present;
}

/* A run folder's facts, the files it holds and what was read from them. */
typedef struct {
	const char *dir;
	wc_run_manifest m;
	char steps_path[1024], state_path[1024];
	wc_step_log log;
	wc_trainer_state state;
	int have_state;
	wc_power_trace *pt;
} ft_ctx;

static int
missing(const ft_ctx *c, const char *what, const char *where, wc_error *err)
{
	return wc_error_set(err, WC_EINVAL, "%s: %s unknown (give it in wattcast-run.json %s)", c->dir, what, where);
}

/* The configuration from the manifests (and the trainer state's batch size). */
static int
configuration(ft_ctx *c, wc_ft_run *run, wc_error *err)
{
	const wc_run_finetune *f = &c->m.finetune;
	wc_ft_config *k = &run->config;
	const wc_model_info *mi = wc_model_lookup(c->m.model);
	if (!c->m.platform[0])
		return missing(c, "platform", "or --platform", err);
	if (!c->m.model[0])
		return missing(c, "model", "or --model", err);
	if (f->method < 0)
		return missing(c, "fine-tuning method", "finetune.method or --method", err);
	k->method = (wc_ft_method)f->method;
	if (mi)
		wc_ft_config_from_model(k, mi);
	if (!isnan(c->m.active_params_b))
		k->params_b = c->m.active_params_b;
	k->layers = f->layers ? f->layers : k->layers;
	k->d_model = f->d_model ? f->d_model : k->d_model;
	if (!(k->params_b > 0) || !k->layers || !k->d_model)
		return missing(c, "model size or shape (model not in the catalog)", "active_params_b, finetune.layers and finetune.d_model", err);
	k->micro_batch = f->micro_batch;
	if (!k->micro_batch)
		return missing(c, "micro-batch", "finetune.micro_batch or --micro-batch", err);
	if (!(k->seq_len = f->seq_len))
		return missing(c, "sequence length", "finetune.seq_len or --seq-len", err);
	if (!(k->grad_accum = f->grad_accum))
		return missing(c, "gradient accumulation", "finetune.grad_accum or --grad-accum", err);
	if (f->checkpointing < 0)
		return missing(c, "activation checkpointing", "finetune.checkpointing or --checkpointing", err);
	k->checkpointing = f->checkpointing;
	k->lora_rank = k->method == WC_FT_FULL ? 0 : f->lora_rank;
	if (k->method != WC_FT_FULL && !k->lora_rank)
		return missing(c, "LoRA rank", "finetune.lora_rank or --lora-rank", err);
	k->gpus = f->gpus ? f->gpus : c->pt->info.n_gpus;
	k->data_parallel = f->data_parallel;
	k->tokens_per_step = f->tokens_per_step;
	if (isnan(k->tokens_per_step) && c->have_state && c->state.tokens_seen > 0)
		k->tokens_per_step = c->state.tokens_seen / c->state.global_step;
	snprintf(run->run_id, sizeof run->run_id, "%s", c->m.run_id);
	snprintf(run->platform, sizeof run->platform, "%s", c->m.platform);
	snprintf(run->model, sizeof run->model, "%s", c->m.model);
	wc_error e;
	if (wc_ft_config_check(k, &e) != WC_OK)
		return wc_error_set(err, WC_EINVAL, "%s: %s", c->dir, e.msg);
	return WC_OK;
}

/* Manifests, step log and power log. */
static int
read_files(ft_ctx *c, const wc_ingest_options *opt, wc_error *err)
{
	char path[1024];
	int rc;
	wc_run_manifest_init(&c->m);
	snprintf(path, sizeof path, "%s/wattcast-run.json", c->dir);
	if (wc__file_exists(path) && (rc = wc_run_manifest_load(path, &c->m, err)) != WC_OK)
		return rc;
	wc_run_manifest_fill(&c->m, &opt->defaults);
	if (!c->m.run_id[0]) {
		const char *slash = strrchr(c->dir, '/');
		snprintf(c->m.run_id, sizeof c->m.run_id, "%s", slash && slash[1] ? slash + 1 : c->dir);
	}
	snprintf(c->steps_path, sizeof c->steps_path, "%s/steps.csv", c->dir);
	if (!wc__file_exists(c->steps_path))
		c->steps_path[0] = '\0';
	else if ((rc = wc_step_log_read(c->steps_path, &c->log, err)) != WC_OK)
		return rc;
	if (!c->steps_path[0] && find_trainer_state(c->dir, c->state_path, sizeof c->state_path)) {
		if ((rc = wc_trainer_state_read(c->state_path, &c->state, err)) != WC_OK)
			return rc;
		c->have_state = 1;
	}
	if (c->steps_path[0] && isnan(c->m.utc_offset_s))
		return wc_error_set(err, WC_EINVAL, "%s: power timestamps are local time and the UTC offset is unknown; "
		                    "steps.csv is in Unix time: give utc_offset_s or --utc-offset", c->dir);
	wc_telemetry_options t = wc__ingest_reader_options(opt);
	/* Without a step log the clock only orders the samples. */
	t.utc_offset_s = isnan(c->m.utc_offset_s) ? 0.0 : c->m.utc_offset_s;
	t.epoch_offset_s = c->m.power_epoch_offset_s;
	t.n_gpus = c->m.finetune.gpus;
	const wc_platform_info *pi = wc_platform_lookup(c->m.platform);
	t.max_power_w = pi && pi->max_power_w > 0 ? WC_TELEMETRY_POWER_LIMIT_FACTOR * pi->max_power_w : 0.0;
	/* A node-wide log: keep the job's GPUs (the manifest's gpu_uuids). */
	const char *uuids[WC_TELEMETRY_MAX_GPUS];
	for (int g = 0; g < c->m.n_gpu_uuids; g++)
		uuids[g] = c->m.gpu_uuids[g];
	t.gpu_uuids = c->m.n_gpu_uuids ? uuids : NULL;
	t.n_gpu_uuids = (size_t)c->m.n_gpu_uuids;
	snprintf(path, sizeof path, "%s/power.csv", c->dir);
	if ((rc = wc_power_trace_read(path, &t, opt->max_samples, &c->pt, err)) != WC_OK)
		return rc;
	if (c->m.finetune.gpus && c->pt->info.n_gpus != c->m.finetune.gpus)
		return wc_error_set(err, WC_EINVAL, "%s: holds %d GPUs, but the job has gpus %d", path,
		                    c->pt->info.n_gpus, c->m.finetune.gpus);
	return WC_OK;
}

/* The step log as the analysis wants it; arrays into `buf` (4 n doubles). */
static void
step_info(const ft_ctx *c, wc_ft_steps_info *in, double *buf)
{
	const wc_step_log *l = &c->log;
	size_t ns = 0, np = 0;
	wc_ft_steps_info_init(in);
	in->grad_accum = c->m.finetune.grad_accum;
	if (strcmp(c->pt->info.power_column, "power.draw.average") == 0)
		in->averaged_s = WC_FT_AVERAGE_WINDOW_S;
	for (size_t i = 0; i < l->n; i++) {
		if (l->event[i] == WC_STEP_STEP)
			buf[ns++] = l->t[i];
		else if (l->event[i] == WC_STEP_START && ns == 0)
			in->start = l->t[i];
		else if (i > 0 && (l->event[i] == WC_STEP_SAVE || l->event[i] == WC_STEP_EVAL)) {
			buf[l->n + np] = l->t[i - 1];
			buf[2 * l->n + np++] = l->t[i];
		}
	}
	in->step_end = buf;
	in->n_step_end = ns;
	in->pause_from = buf + l->n;
	in->pause_to = buf + 2 * l->n;
	in->n_logged = np;
	if (c->have_state) {
		in->steps = c->state.global_step;
		in->steps_source = "trainer_state";
		in->train_runtime_s = c->state.train_runtime_s;
		if (c->state.save_steps > 0)
			in->expected_saves = floor(c->state.global_step / c->state.save_steps);
		in->expected_eval_s = c->state.n_evals ? c->state.eval_runtime_s : NAN;
		/* train_runtime runs to the end of what follows the last step:
		 * the Trainer saves and evaluates there when global_step is a
		 * multiple of save_steps / eval_steps. */
		double gs = c->state.global_step;
		in->trailing_save = c->state.save_steps > 0 && fmod(gs, c->state.save_steps) < 0.5;
		if (c->state.eval_steps > 0 && c->state.n_evals > 0 && fmod(gs, c->state.eval_steps) < 0.5)
			in->trailing_eval_s = c->state.eval_runtime_s / c->state.n_evals;
	} else if (!isnan(c->m.finetune.steps)) {
		in->steps = c->m.finetune.steps;
		in->steps_source = "manifest";
	}
}

/* A step log wholly outside the power log: a wrong UTC offset, most
 * likely. Both spans and the offset that would align them are said, as
 * the serving ingest does for an engine log. */
static int
clocks_overlap(const ft_ctx *c, wc_error *err)
{
	const wc_step_log *l = &c->log;
	const wc_power_trace *pt = c->pt;
	if (l->n == 0 || pt->n == 0 || (l->t[l->n - 1] > pt->t[0] && l->t[0] < pt->t[pt->n - 1]))
		return WC_OK;
	/* The remedy before the spans: a message holds 255 bytes, and a long
	 * folder path cut the offset off the end. */
	return wc_error_set(err, WC_EINVAL, "%s: step log: no step lies inside the power log; utc_offset_s %.0f would "
	                    "align them (read with %.0f s: steps at epoch %.0f-%.0f, power %.0f-%.0f)", c->dir,
	                    wc__ingest_suggest_offset(c->m.utc_offset_s, pt->t[0], l->t[0]), c->m.utc_offset_s,
	                    l->t[0], l->t[l->n - 1], pt->t[0], pt->t[pt->n - 1]);
}

int
wc_ft_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ft_table *table, wc_error *err)
{
	ft_ctx c;
	wc_ft_run run;
	wc_ft_steps_info in;
	wc_ft_steps_result res;
	double *buf = NULL;
	int rc;
	memset(&c, 0, sizeof c);
	c.dir = run_dir;
	wc_ft_run_init(&run);
	if ((rc = read_files(&c, opt, err)) != WC_OK || (rc = configuration(&c, &run, err)) != WC_OK)
		goto done;
	if (!(buf = wc_alloc_array(3 * c.log.n + 1, sizeof *buf))) {
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", run_dir);
		goto done;
	}
	step_info(&c, &in, buf);
	if ((rc = clocks_overlap(&c, err)) != WC_OK)
		goto done;
	if ((rc = wc_ft_steps_analyse(c.pt->t, c.pt->group, c.pt->n, &in, &res, err)) != WC_OK) {
		char msg[WC_ERROR_MSG_MAX];
		snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
		rc = wc_error_set(err, rc, "%s: %s", run_dir, msg);
		goto done;
	}
	rc = wc__ft_make_row(run_dir, &run, &res, c.pt->info.bad_lines, opt, table, err);
done:
	free(buf);
	wc_step_log_free(&c.log);
	wc_power_trace_free(c.pt);
	return rc;
}

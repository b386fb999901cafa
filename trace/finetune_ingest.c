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
	char tokens_note[WC_WARNING_LEN]; /* num_input_tokens_seen left out: why */
	char platform_note[WC_WARNING_LEN]; /* power.csv's product name contradicts the manifest */
	char flags_note[WC_WARNING_LEN];  /* flags the manifest overrides */
	char zoned_note[WC_WARNING_LEN];  /* the same, --utc-offset left out */
	int offset_overruled;             /* --utc-offset differs from the run's */
	char offset_note[WC_WARNING_LEN]; /* power.csv carries its zone: no offset applies */
	const char *steps_by;             /* who stated finetune.steps, or NULL */
} ft_ctx;

static int
missing(const ft_ctx *c, const char *what, const char *where, wc_error *err)
{
	return wc_error_set_path(err, WC_EINVAL, c->dir, ": %s unknown (give it in wattcast-run.json %s)", what, where);
}

/* The configuration from the manifests (and the trainer state's batch size). */
static int
configuration(ft_ctx *c, wc_ft_run *run, wc_error *err)
{
	const wc_run_finetune *f = &c->m.finetune;
	wc_ft_config *k = &run->config;
	const wc_model_info *mi = wc_model_lookup(c->m.model);
	if (!c->m.platform[0]) {
		/* a product name the catalog lacks is said, as the serving
		 * ingest says it (docs/formats/telemetry.md, "Manifests") */
		char path[1024], log[96], where[128];
		snprintf(path, sizeof path, "%s/power.csv", c->dir);
		snprintf(where, sizeof where, "or --platform%s", wc__ingest_platform_unnamed(path, log, sizeof log));
		return missing(c, "platform", where, err);
	}
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
	if (isnan(k->tokens_per_step) && c->have_state && c->state.tokens_seen > 0) {
		/* Over the step it was counted at: the state's own total at
		 * global_step, else the last log entry's at its step.
		 * Some Trainer versions over-count num_input_tokens_seen: a value
		 * the configuration's steps cannot hold (the check of
		 * wc_ft_config_check) is left out with a warning, the row keeping
		 * the most a step holds (docs/formats/finetune-telemetry.md). */
		wc_error e;
		char over[48] = "global_step";
		if (c->state.tokens_step != c->state.global_step)
			snprintf(over, sizeof over, "its log_history step %.0f", c->state.tokens_step);
		k->tokens_per_step = c->state.tokens_seen / c->state.tokens_step;
		if (wc_ft_config_check(k, &e) != WC_OK && strncmp(e.msg, "tokens_per_step:", 16) == 0) {
			wc_error_format(c->tokens_note, sizeof c->tokens_note, "%s: num_input_tokens_seen / %s is "
			         "left out:%s", c->state_path + strlen(c->dir) + 1, over, e.msg + 16);
			k->tokens_per_step = NAN;
		}
	}
	snprintf(run->run_id, sizeof run->run_id, "%s", c->m.run_id);
	snprintf(run->platform, sizeof run->platform, "%s", c->m.platform);
	snprintf(run->model, sizeof run->model, "%s", c->m.model);
	wc_error e;
	if (wc_ft_config_check(k, &e) != WC_OK)
		return wc_error_set_path(err, WC_EINVAL, c->dir, ": %s", e.msg);
	return WC_OK;
}

/* Flags fill what wattcast-run.json leaves unknown (docs/cli.md,
 * "ingest"); one naming another value than the run states is said not
 * applied, by the serving ingest's rule (wc_run_manifest_overruled):
 * --method qlora --micro-batch 8 on a folder of a LoRA run of micro-batch
 * 4 gave the run's row without a word. The note goes in `out` ("" when
 * none). */
static void
flags_not_applied(const wc_run_manifest *m, const wc_run_manifest *d, int with_utc, int named_by_log, char *out,
                  size_t cap)
{
	/* Whole flags, then the rule, within a warning's 255 bytes: a longer
	 * suffix cut the rule mid-word. A platform only the power log names
	 * wins over --platform too, as in the serving ingest. */
	const char *rule = named_by_log && d->platform[0] ? "wattcast-run.json and power.csv's GPU name win over flags"
	                                                  : "wattcast-run.json wins over flags";
	char list[WC_WARNING_LEN];
	wc_run_manifest_overruled(m, d, with_utc, list, sizeof list - 23 - strlen(rule));
	if (list[0])
		wc_error_format(out, cap, "%s: not applied (%s)", list, rule);
	else
		out[0] = '\0';
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
	/* The platform as the serving ingest takes it: the manifest's, else
	 * power.csv's product name, then --platform (docs/cli.md, "ingest"). */
	const int named_by_log = !c->m.platform[0];
	snprintf(path, sizeof path, "%s/power.csv", c->dir);
	wc__ingest_platform_from_log(&c->m, path, c->platform_note, sizeof c->platform_note);
	const int by_log = named_by_log && c->m.platform[0];
	flags_not_applied(&c->m, &opt->defaults, 1, by_log, c->flags_note, sizeof c->flags_note);
	flags_not_applied(&c->m, &opt->defaults, 0, by_log, c->zoned_note, sizeof c->zoned_note);
	c->offset_overruled = !isnan(opt->defaults.utc_offset_s) && !isnan(c->m.utc_offset_s) &&
	                      opt->defaults.utc_offset_s != c->m.utc_offset_s;
	const char *plat_by = by_log ? "power.csv's name" : c->m.platform[0] ? "wattcast-run.json" : "--platform";
	c->steps_by = !isnan(c->m.finetune.steps) ? "finetune.steps in wattcast-run.json"
	            : !isnan(opt->defaults.finetune.steps) ? "--steps" : NULL;
	wc_run_manifest_fill(&c->m, &opt->defaults);
	if (!c->m.run_id[0] && (rc = wc__ingest_dir_run_id(c->dir, c->m.run_id, sizeof c->m.run_id, err)) != WC_OK)
		return rc;
	snprintf(c->steps_path, sizeof c->steps_path, "%s/steps.csv", c->dir);
	if (!wc__file_exists(c->steps_path))
		c->steps_path[0] = '\0';
	else if ((rc = wc_step_log_read(c->steps_path, &c->log, err)) != WC_OK)
		return rc;
	wc_telemetry_options t = wc__ingest_reader_options(opt);
	/* Without a step log the clock only orders the samples. */
	t.utc_offset_s = isnan(c->m.utc_offset_s) ? 0.0 : c->m.utc_offset_s;
	t.epoch_offset_s = c->m.power_epoch_offset_s;
	t.n_gpus = c->m.finetune.gpus;
	char origin[WC_NAME_MAX + 48];
	wc__ingest_power_bound(&t, c->m.platform, plat_by, origin, sizeof origin);
	/* A node-wide log: keep the job's GPUs (the manifest's gpu_uuids). */
	const char *uuids[WC_TELEMETRY_MAX_GPUS];
	for (int g = 0; g < c->m.n_gpu_uuids; g++)
		uuids[g] = c->m.gpu_uuids[g];
	t.gpu_uuids = c->m.n_gpu_uuids ? uuids : NULL;
	t.n_gpu_uuids = (size_t)c->m.n_gpu_uuids;
	snprintf(path, sizeof path, "%s/power.csv", c->dir);
	if ((rc = wc_power_trace_read(path, &t, opt->max_samples, &c->pt, err)) != WC_OK)
		return rc;
	/* Timestamps that carry their zone take no UTC offset, as the serving
	 * ingest reads them (docs/formats/telemetry.md, "Timestamps"): one
	 * given is said not applied, and local ones need it against a step
	 * log in Unix time. */
	if (c->pt->info.utc_stamps) {
		wc__ingest_zoned_offset_note("power.csv", c->offset_overruled, c->m.utc_offset_s,
		                             opt->defaults.utc_offset_s, c->offset_note, sizeof c->offset_note);
		snprintf(c->flags_note, sizeof c->flags_note, "%s", c->zoned_note);
		c->m.utc_offset_s = 0.0;
	} else if (c->steps_path[0] && isnan(c->m.utc_offset_s)) {
		return wc_error_set_path(err, WC_EINVAL, c->dir,
		                         ": power timestamps are local time and the UTC offset is unknown; "
		                         "steps.csv is in Unix time: give utc_offset_s or --utc-offset");
	}
	if (c->m.finetune.gpus && c->pt->info.n_gpus != c->m.finetune.gpus)
		return wc_error_set_path(err, WC_EINVAL, path, ": holds %d GPUs, but the job has gpus %d",
		                         c->pt->info.n_gpus, c->m.finetune.gpus);
	/* After the power log: an evaluation during training longer than
	 * its span is not placed (docs/formats/finetune-telemetry.md, "Step logs").
	 * A steps.csv without a step row is no step log: the state beside it
	 * counts, as without one (a logger that never flushed a step made the
	 * state unread, and the refusal asked for it). */
	size_t step_rows = 0;
	for (size_t i = 0; i < c->log.n; i++)
		step_rows += c->log.event[i] == WC_STEP_STEP;
	if ((!c->steps_path[0] || step_rows == 0) && find_trainer_state(c->dir, c->state_path, sizeof c->state_path)) {
		double span = c->pt->n ? c->pt->t[c->pt->n - 1] - c->pt->t[0] : NAN;
		if ((rc = wc_trainer_state_read_within(c->state_path, span, &c->state, err)) != WC_OK)
			return rc;
		c->have_state = 1;
	}
	return WC_OK;
}

/* A stated count steps.csv contradicts: the step log counts exactly, and
 * within half a step they agree; beyond, steps.csv's count is used and
 * said, what is used first (ingest cuts the line at 255 bytes after the
 * run's folder; docs/finetune.md, "Counting steps"). One rule for
 * finetune.steps, --steps and a trainer state beside the log. */
static void
warn_count_vs_log(wc_ft_steps_result *res, const char *by, double stated, double logged, const char *where)
{
	if (strcmp(res->step_source, "step_log") == 0 && isfinite(stated) && fabs(stated - logged) >= 0.5)
		WC_WARN(res, "steps: steps.csv's count is used; %s gives %.0f steps, steps.csv %.0f%s", by, stated, logged,
		        where);
}

/* A trainer state beside a steps.csv is not read for the count (the step
 * log's wins); its steps run (global_step, plus a resume's re-run ones as
 * steps.csv's segments count them), to say a disagreement. NaN: none, or
 * unreadable (then it says nothing: the step log is what counts). */
static double
state_count_beside_log(const ft_ctx *c, char *file, size_t cap)
{
	char path[1024];
	file[0] = '\0';
	if (!c->steps_path[0] || c->have_state || !find_trainer_state(c->dir, path, sizeof path))
		return NAN;
	wc_trainer_state s;
	memset(&s, 0, sizeof s);
	double n = wc_trainer_state_read(path, &s, NULL) == WC_OK && s.global_step > 0 ? wc_trainer_state_run_steps(&s)
	                                                                               : NAN;
	wc_trainer_state_free(&s);
	snprintf(file, cap, "%s", path + strlen(c->dir) + 1);
	return n;
}

/* The step log's steps and pauses (finetune_log.c), then the trainer
 * state's or the manifest's count. */
static void
step_info(const ft_ctx *c, wc_ft_steps_info *in, double *buf, int *lines, unsigned char *resumed,
          unsigned char *restarts, unsigned char *saved, ft_log_notes *notes)
{
	wc_ft_steps_info_init(in);
	in->grad_accum = c->m.finetune.grad_accum;
	in->averaged_s = wc__ft_power_averaged(c->pt->info.power_column, c->dir, c->m.platform, in->averaged_what,
	                                       sizeof in->averaged_what);
	wc__ft_log_walk(&c->log, in, buf, lines, resumed, restarts, notes);
	in->log_no_steps = c->steps_path[0] && in->n_step_end == 0;
	if (c->have_state) {
		in->steps = c->state.global_step;
		in->steps_source = "trainer_state";
		/* the state's path from the folder: trainer_state.json, or
		 * checkpoint-N/trainer_state.json -- a save's, not the run's end */
		in->steps_file = c->state_path + strlen(c->dir) + 1;
		in->steps_at_save = strchr(in->steps_file, '/') != NULL;
		in->train_runtime_s = c->state.train_runtime_s;
		/* its evaluations, by step, to take out of the trace (also under
		 * a stated count: the Trainer ran them all the same; for a
		 * checkpoint's short of max_steps, before its count is weighed
		 * against the trace, finetune_state_end.c) */
		in->eval_at = c->state.eval_at;
		in->eval_s = c->state.eval_s;
		in->n_evals = (size_t)c->state.n_evals;
		in->state_steps = c->state.global_step;
		in->state_max_steps = c->state.max_steps > 0 ? c->state.max_steps : NAN;
		in->state_restarts = c->state.n_restarts;
		/* a step going back from 130 to 110 (logged every 10) is a resume
		 * from checkpoint-100 after a crash past 130: 30 steps run again,
		 * as many as the log can tell (docs/finetune.md, "Counting steps") */
		in->state_run_steps = wc_trainer_state_run_steps(&c->state);
		/* ... and they are the count: each ran and drew its energy, as a
		 * steps.csv's resumed segments count; over global_step alone the
		 * energy per step was 11.7 % high for a crash at 370 resumed from
		 * checkpoint-300 (ingest says it: resume_note). */
		if (c->state.n_restarts > 0)
			in->steps = in->state_run_steps;
		in->expected_eval_s = c->state.n_evals ? c->state.eval_runtime_s : NAN;
		wc__ft_state_schedule(c->dir, &c->state, in, saved);
	}
	/* A count the user states wins over a trainer state's: the remedy
	 * when a checkpoint's global_step is not the run's (docs/finetune.md,
	 * "Counting steps"). */
	if (!isnan(c->m.finetune.steps)) {
		in->steps = c->m.finetune.steps;
		in->steps_source = "manifest";
		in->steps_file = c->steps_by;
		in->steps_at_save = 0;
	}
}

/* A trainer state whose log_history goes back counts the steps run, not
 * global_step (docs/finetune.md, "Counting steps"): said with the numbers,
 * and that a resume past the last logged step is not in them. Not when a
 * stated count won. */
static void
resume_note(const ft_ctx *c, wc_ft_steps_result *res)
{
	const wc_trainer_state *s = &c->state;
	if (!c->have_state || s->n_restarts == 0 || strcmp(res->step_source, "trainer_state") != 0)
		return;
	const double run = wc_trainer_state_run_steps(s);
	WC_WARN(res, "%s: log_history's step goes back from %.0f to %.0f (a resumed run, %d time%s): %.0f steps "
	        "counted, global_step %d plus %.0f run again; steps past the last logged one before a crash are not "
	        "known", c->state_path + strlen(c->dir) + 1, s->back_from, s->back_to, s->n_restarts,
	        s->n_restarts == 1 ? "" : "s", run, s->global_step, run - s->global_step);
}

/* A top-level num_input_tokens_seen that is no running total (below 0,
 * or below log_history's count at an earlier step) is not used, and said
 * with both values (docs/formats/finetune-telemetry.md):
 * 1000 against a log's 3600000 was read as 1.67 tokens per step. */
static void
tokens_top_note(const ft_ctx *c, wc_ft_steps_result *res)
{
	const wc_trainer_state *s = &c->state;
	const char *f = c->state_path + strlen(c->dir) + 1;
	if (!c->have_state || !isfinite(s->tokens_top_bad) || !isnan(c->m.finetune.tokens_per_step))
		return;
	if (s->tokens_top_bad >= 0)
		WC_WARN(res, "%s: num_input_tokens_seen %.0f is below log_history's %.0f at step %.0f, which a running "
		        "total cannot be: log_history's is used", f, s->tokens_top_bad, s->tokens_seen, s->tokens_step);
	else if (s->tokens_seen > 0)
		WC_WARN(res, "%s: num_input_tokens_seen %.0f is negative: log_history's %.0f at step %.0f is used", f,
		        s->tokens_top_bad, s->tokens_seen, s->tokens_step);
	else
		WC_WARN(res, "%s: num_input_tokens_seen %.0f is negative: left out", f, s->tokens_top_bad);
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
	/* Seconds since the run's start are no Unix time, and no offset
	 * within a time zone's +-14 h would align them. */
	if (l->t[l->n - 1] < 1e9)
		return wc_error_set_path(err, WC_EINVAL, c->dir,
		                         ": step log: epoch_s runs %.0f-%.0f s, not Unix time (before "
		                         "2001): write time.time() there, not the seconds since the run started",
		                         l->t[0], l->t[l->n - 1]);
	/* The remedy before the spans: a message holds 255 bytes, and a long
	 * folder path cut the offset off the end. An offset no time zone has
	 * (beyond the +-14 h utc_offset_s takes, docs/cli.md) is no remedy:
	 * the logs are of different runs or days. */
	if (pt->info.utc_stamps)
		return wc_error_set_path(err, WC_EINVAL, c->dir,
		                         ": steps.csv (epoch) and power.csv (zoned: no UTC offset applies) "
		                         "never overlap, %.0f s apart: check the step logger's clock (steps %.0f-%.0f, power "
		                         "%.0f-%.0f)", l->t[0] - pt->t[0], l->t[0], l->t[l->n - 1], pt->t[0],
		                         pt->t[pt->n - 1]);
	const double offset = wc__ingest_suggest_offset(c->m.utc_offset_s, pt->t[0], l->t[0]);
	if (fabs(offset) > 14 * 3600.0)
		return wc_error_set_path(err, WC_EINVAL, c->dir,
		                         ": step log: no step lies inside the power log, and no UTC offset "
		                         "aligns them: they are %.1f days apart (steps at epoch %.0f-%.0f, power %.0f-%.0f); "
		                         "another run's log?", fabs(l->t[0] - pt->t[0]) / 86400.0, l->t[0],
		                         l->t[l->n - 1], pt->t[0], pt->t[pt->n - 1]);
	return wc_error_set_path(err, WC_EINVAL, c->dir,
	                         ": step log: no step lies inside the power log; utc_offset_s %.0f would "
	                         "align them (read with %.0f s: steps at epoch %.0f-%.0f, power %.0f-%.0f)",
	                         offset, c->m.utc_offset_s, l->t[0], l->t[l->n - 1], pt->t[0], pt->t[pt->n - 1]);
}

int
wc_ft_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ft_table *table, wc_error *err)
{
	ft_ctx c;
	wc_ft_run run;
	wc_ft_steps_info in;
	wc_ft_steps_result res;
	ft_log_notes notes;
	double *buf = NULL;
	int *lines = NULL;
	unsigned char *resumed = NULL, *restarts = NULL, *saved = NULL;
	int rc;
	memset(&c, 0, sizeof c);
	c.dir = run_dir;
	wc_ft_run_init(&run);
	if ((rc = read_files(&c, opt, err)) != WC_OK || (rc = configuration(&c, &run, err)) != WC_OK)
		goto done;
	lines = wc_alloc_array(c.log.n + 1, sizeof *lines);
	resumed = wc_alloc_zeroed(c.log.n + 1, 1);
	restarts = wc_alloc_zeroed(c.log.n + 1, 1);
	saved = wc_alloc_zeroed((size_t)c.state.n_evals + 1, 1);
	if (!(buf = wc_alloc_array(6 * c.log.n + 1, sizeof *buf)) || !lines || !resumed || !restarts || !saved) {
		rc = wc_error_set_path(err, WC_ENOMEM, run_dir, ": out of memory");
		goto done;
	}
	step_info(&c, &in, buf, lines, resumed, restarts, saved, &notes);
	/* the walk's sixth n of buf is scratch once it is done */
	if ((rc = clocks_overlap(&c, err)) != WC_OK ||
	    (rc = wc__ft_log_typos(&c.log, c.steps_path, &in, buf + 5 * c.log.n, err)) != WC_OK)
		goto done;
	char state_file[1024];
	in.log_state_steps = state_count_beside_log(&c, state_file, sizeof state_file);
	in.log_state_file = state_file;
	in.gaps = c.pt->gaps;
	in.n_gaps = c.pt->n_gaps;
	if ((rc = wc_ft_steps_analyse(c.pt->t, c.pt->group, c.pt->n, &in, &res, err)) != WC_OK) {
		char msg[WC_ERROR_MSG_MAX];
		snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
		/* the folder says which run, by the one path rule; the
		 * numbers and the remedy stay whole (docs/architecture.md, "Errors") */
		rc = wc_error_set_path(err, rc, run_dir, ": %s", msg);
		goto done;
	}
	/* A step's energy under 1 W per GPU over its time is a unit slip (kW
	 * logged as W), refused as a serving run is, naming the power file
	 * and its column (the folder is the run), not written for `fit
	 * finetune` to refuse at its cell (docs/formats/telemetry.md, "Units
	 * and plausibility"). */
	char why[200];
	if (wc_power_under_floor(res.energy_per_step_j / res.step_s, run.config.gpus, why, sizeof why)) {
		rc = wc_error_set_path(err, WC_EINVAL, run_dir, "/power.csv: %s: %.3g J per step of %.3g s: %s",
		                       c.pt->info.power_column, res.energy_per_step_j, res.step_s, why);
		goto done;
	}
	wc__ft_log_warnings(&notes, &res);
	if (c.log.unfinished_line)
		WC_WARN(&res, "steps.csv:%d: " WC_UNFINISHED_LINE_DROPPED, c.log.unfinished_line);
	/* A log that never reached a step (a job dead before step 1, a logger
	 * that never flushed) is no step log: said, as the count then comes
	 * from elsewhere (docs/formats/finetune-telemetry.md). */
	if (c.steps_path[0] && in.n_step_end == 0)
		WC_WARN(&res, "steps.csv: holds no step rows (%zu other row%s); the steps are counted from %s", c.log.n,
		        c.log.n == 1 ? "" : "s", res.step_source);
	if (c.tokens_note[0])
		WC_WARN(&res, "%s", c.tokens_note);
	/* An evaluation that cannot fit in the power log is not this log's:
	 * a crashed session's kept from the checkpoint, or no real value;
	 * not placed, and said (docs/finetune.md, "Measuring energy per step") */
	if (c.have_state && c.state.n_evals_long > 0)
		WC_WARN(&res, "evaluations: %d of the trainer state's (eval_runtime %.6g s at step %.0f%s) %s longer than "
		        "the power log, %.1f s from its first sample to its last: not placed (an earlier session's, or "
		        "not a real eval_runtime)", c.state.n_evals_long, c.state.long_s, c.state.long_at,
		        c.state.n_evals_long > 1 ? ", the first" : "", c.state.n_evals_long > 1 ? "are" : "is",
		        c.state.long_span_s);
	tokens_top_note(&c, &res);
	resume_note(&c, &res);
	if (in.stray_checkpoint > 0)
		WC_WARN(&res, "saves: checkpoint-%.0f/ is off the save_steps %.0f the other checkpoint folders keep: "
		        "kept, and that folder taken as an extra save, left out where the trace shows one (a resume with "
		        "another save_steps, a manual save, or an earlier run's folder)", in.stray_checkpoint, in.save_steps);
	if (c.platform_note[0])
		WC_WARN(&res, "%s", c.platform_note);
	/* a board the catalog lacks: predict's note, as for a serving run */
	char board[WC_WARNING_LEN];
	if (wc__ingest_platform_note(c.m.platform, board, sizeof board)[0])
		WC_WARN(&res, "%s", board);
	if (c.flags_note[0])
		WC_WARN(&res, "%s", c.flags_note);
	if (c.offset_note[0])
		WC_WARN(&res, "%s", c.offset_note);
	/* The step log counts exactly; a stated count it contradicts is
	 * dropped, and said (a manifest's wrong finetune.steps often means it
	 * belongs to another run; docs/finetune.md, "Counting steps"). */
	const double logged = res.steps + res.warmup_steps;
	if (c.steps_by)
		warn_count_vs_log(&res, c.steps_by, c.m.finetune.steps, logged, " in the power log");
	/* A trainer state counts the whole run, as the step log's own rows
	 * do: against the steps in the power log, one that started 170 s
	 * into training read "300 steps, steps.csv 227" for a log of 300. */
	double log_all = 0.0;
	for (size_t i = 0; i < in.n_step_end; i++)
		log_all += in.step_count[i];
	/* ... counted as the rows were (wc__ft_log_vs_period) */
	if (res.log_rows_per_step > 1)
		log_all /= res.log_rows_per_step;
	warn_count_vs_log(&res, state_file, in.log_state_steps, log_all, "");
	/* A checkpoint short of max_steps: the run either stopped there or
	 * went on, and a few steps on are within what the trace's period can
	 * tell (docs/finetune.md, "Counting steps"). The remedy first, the
	 * counts after: ingest cuts the line at 255 bytes after the run's
	 * folder (docs/finetune.md, "A stated count against the trace"). */
	if (in.steps_at_save && c.state.max_steps > c.state.global_step)
		WC_WARN(&res, "checkpoint: if the run went on past its last save, give finetune.steps in wattcast-run.json: "
		        "steps past it are in the power log but not in the count; %s: global_step %d is below "
		        "max_steps %d", in.steps_file, c.state.global_step, c.state.max_steps);
	rc = wc__ft_make_row(run_dir, &run, &res, c.pt->info.bad_lines, opt, table, err);
done:
	free(buf);
	free(lines);
	free(resumed);
	free(restarts);
	free(saved);
	wc_step_log_free(&c.log);
	wc_trainer_state_free(&c.state);
	wc_power_trace_free(c.pt);
	return rc;
}

/*
 * Run manifests: what a measured run was (platform, TP degree, model, load) and how its clocks relate
 * (docs/formats/telemetry.md). Two formats: the powertrace-sim `manifest.json` as that tool writes it (read
 * leniently: only the facts wattcast needs), and wattcast's own `wattcast-run.json` (schema "wattcast.run/1", read
 * strictly) for users whose tools write none. Values a file states replace what the caller already had, so files
 * can be layered: manifest.json, then wattcast-run.json, then command-line flags fill the gaps.
 */
#include "data/run_manifest.h"
#include "data/step_log.h"
#include "models/limits.h"

#include "data/fileio.h"
#include "json_internal.h"
#include "run_manifest_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void
wc__run_level_init(wc_run_level *l)
{
	memset(l, 0, sizeof *l);
	l->start_epoch = l->end_epoch = NAN;
	l->concurrency = l->request_rate = l->burstiness = l->requests = NAN;
	l->input_tokens = l->output_tokens = NAN;
}

static void
finetune_init(wc_run_finetune *f)
{
	memset(f, 0, sizeof *f);
	f->method = f->checkpointing = -1;
	f->steps = f->tokens_per_step = NAN;
}

void
wc_run_manifest_init(wc_run_manifest *m)
{
	memset(m, 0, sizeof *m);
	m->active_params_b = m->total_params_b = NAN;
	m->weights = m->kv = -1;
	m->sm_clock_mhz = NAN;
	m->request_rate = m->burstiness = m->concurrency = NAN;
	m->utc_offset_s = NAN;
	m->idle_start = m->idle_end = NAN;
	m->requests = NAN;
	finetune_init(&m->finetune);
}

/* The fine-tuning facts `d` knows and `f` does not. */
static void
fill_finetune(wc_run_finetune *f, const wc_run_finetune *d)
{
	int *mine[] = { &f->micro_batch, &f->seq_len, &f->grad_accum, &f->gpus, &f->data_parallel,
	                &f->lora_rank, &f->layers, &f->d_model };
	const int *theirs[] = { &d->micro_batch, &d->seq_len, &d->grad_accum, &d->gpus, &d->data_parallel,
	                        &d->lora_rank, &d->layers, &d->d_model };
	for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
		if (*mine[i] == 0)
			*mine[i] = *theirs[i];
	if (f->method < 0)
		f->method = d->method;
	if (f->checkpointing < 0)
		f->checkpointing = d->checkpointing;
	if (isnan(f->steps))
		f->steps = d->steps;
	if (isnan(f->tokens_per_step))
		f->tokens_per_step = d->tokens_per_step;
	f->present |= d->present;
}

#define FILL_STR(f) do { if (!m->f[0] && d->f[0]) snprintf(m->f, sizeof m->f, "%s", d->f); } while (0)
#define FILL_NUM(f) do { if (isnan(m->f) && !isnan(d->f)) m->f = d->f; } while (0)

void
wc_run_manifest_fill(wc_run_manifest *m, const wc_run_manifest *d)
{
	FILL_STR(run_id);
	FILL_STR(platform);
	FILL_STR(model);
	if (m->architecture == WC_ARCH_UNKNOWN)
		m->architecture = d->architecture;
	if (m->workload == WC_WORKLOAD_UNKNOWN)
		m->workload = d->workload;
	if (m->tp <= 0 && d->tp > 0)
		m->tp = d->tp;
	if (m->data_parallel <= 0 && d->data_parallel > 0)
		m->data_parallel = d->data_parallel;
	FILL_NUM(active_params_b);
	FILL_NUM(total_params_b);
	FILL_NUM(sm_clock_mhz);
	FILL_NUM(request_rate);
	FILL_NUM(burstiness);
	FILL_NUM(concurrency);
	FILL_NUM(utc_offset_s);
	FILL_NUM(requests);
	if (isnan(m->idle_start) && !isnan(d->idle_start)) {
		m->idle_start = d->idle_start;
		m->idle_end = d->idle_end;
	}
	if (m->weights < 0)
		m->weights = d->weights;
	if (m->kv < 0)
		m->kv = d->kv;
	if (m->power_epoch_offset_s == 0)
		m->power_epoch_offset_s = d->power_epoch_offset_s;
	if (m->engine_epoch_offset_s == 0)
		m->engine_epoch_offset_s = d->engine_epoch_offset_s;
	if (m->n_levels == 0 && d->n_levels > 0) {
		m->n_levels = d->n_levels;
		memcpy(m->levels, d->levels, sizeof m->levels);
	}
	if (m->n_gpu_uuids == 0 && d->n_gpu_uuids > 0) {
		m->n_gpu_uuids = d->n_gpu_uuids;
		memcpy(m->gpu_uuids, d->gpu_uuids, sizeof m->gpu_uuids);
	}
	fill_finetune(&m->finetune, &d->finetune);
}

/* ------------------------------------------------------- wattcast.run/3 */

static const char *const own_keys[] = {
	"schema", "run_id", "platform", "model", "architecture", "workload", "weights", "kv_cache",
	"tp", "data_parallel", "active_params_b", "total_params_b", "sm_clock_mhz", "request_rate", "burstiness",
	"concurrency", "utc_offset_s", "power_epoch_offset_s", "engine_epoch_offset_s", "requests",
	"idle_window", "gpu_uuids", "levels", "finetune", NULL,
};

/* A string key whose value must be one of a list of names. */
static int
own_name(wc__json_loader *ld, json_t *root, const char *key, int *out,
         int (*parse)(const char *, int *), const char *choices)
{
	char text[64] = "", p[WC__JSON_PATH_MAX];
	int rc = wc__json_optional_string(ld, root, "", key, text, sizeof text);
	if (rc != WC_OK || !text[0])
		return rc;
	wc__json_join(p, "", key);
	if (parse(text, out) != WC_OK)
		return wc__json_fail(ld, p, "expected %s, got '%s'", choices, text);
	return WC_OK;
}

static int
parse_arch(const char *s, int *out)
{
	wc_architecture a;
	int rc = wc_architecture_from_name(s, &a);
	*out = (int)a;
	return rc;
}

static int
parse_workload(const char *s, int *out)
{
	wc_workload w;
	int rc = wc_workload_from_name(s, &w);
	*out = (int)w;
	return rc;
}

static int
parse_weights(const char *s, int *out)
{
	wc_precision p;
	int rc = wc_precision_from_name(s, &p);
	*out = (int)p;
	return rc;
}

static int
parse_kv(const char *s, int *out)
{
	int rc = parse_weights(s, out);
	return rc == WC_OK && *out == WC_PREC_INT4 ? WC_ENOTFOUND : rc;
}

static int
own_names(wc__json_loader *ld, json_t *root, wc_run_manifest *m)
{
	int arch = (int)m->architecture, workload = (int)m->workload, rc;
	if ((rc = wc__json_optional_string(ld, root, "", "run_id", m->run_id, sizeof m->run_id)) ||
	    (rc = wc__json_optional_string(ld, root, "", "platform", m->platform, sizeof m->platform)) ||
	    (rc = wc__json_optional_string(ld, root, "", "model", m->model, sizeof m->model)) ||
	    (rc = own_name(ld, root, "architecture", &arch, parse_arch, wc_architecture_choices())) ||
	    (rc = own_name(ld, root, "workload", &workload, parse_workload, wc_workload_choices())) ||
	    (rc = own_name(ld, root, "weights", &m->weights, parse_weights, "bf16, fp8 or int4")) ||
	    (rc = own_name(ld, root, "kv_cache", &m->kv, parse_kv, "bf16 or fp8")))
		return rc;
	m->architecture = (wc_architecture)arch;
	m->workload = (wc_workload)workload;
	return WC_OK;
}

static int
own_numbers(wc__json_loader *ld, json_t *root, wc_run_manifest *m)
{
	const double big = 1e300, day = 14 * 3600.0;
	double clock = NAN, po = NAN, eo = NAN;
	json_t *tp = json_object_get(root, "tp");
	int rc;
	if (tp) {
		double v = json_is_number(tp) ? json_number_value(tp) : NAN;
		if (!(v >= 1 && v <= WC_LAW_MAX_TP && v == floor(v)))
			return wc__json_fail(ld, "/tp", "expected a whole number between 1 and %d",
			                     WC_LAW_MAX_TP);
		m->tp = (int)v;
	}
	json_t *dp = json_object_get(root, "data_parallel");
	if (dp) {
		double v = json_is_number(dp) ? json_number_value(dp) : NAN;
		if (!(v >= 1 && v <= WC_TELEMETRY_MAX_GPUS && v == floor(v)))
			return wc__json_fail(ld, "/data_parallel", "expected a whole number between 1 and %d",
			                     WC_TELEMETRY_MAX_GPUS);
		m->data_parallel = (int)v;
	}
	if ((rc = wc__json_optional_number(ld, root, "", "active_params_b", 1e-9, big, &m->active_params_b)) ||
	    (rc = wc__json_optional_number(ld, root, "", "total_params_b", 1e-9, big, &m->total_params_b)) ||
	    (rc = wc__json_optional_number(ld, root, "", "sm_clock_mhz", 1e-9, big, &clock)) ||
	    (rc = wc__json_optional_number(ld, root, "", "request_rate", 1e-12, big, &m->request_rate)) ||
	    (rc = wc__json_optional_number(ld, root, "", "burstiness", 1e-12, big, &m->burstiness)) ||
	    (rc = wc__json_optional_number(ld, root, "", "concurrency", 1e-12, big, &m->concurrency)) ||
	    (rc = wc__json_optional_number(ld, root, "", "utc_offset_s", -day, day, &m->utc_offset_s)) ||
	    (rc = wc__json_optional_number(ld, root, "", "power_epoch_offset_s", -big, big, &po)) ||
	    (rc = wc__json_optional_number(ld, root, "", "engine_epoch_offset_s", -big, big, &eo)) ||
	    (rc = wc__json_optional_count(ld, root, "", "requests", "request count", 0, WC_RUN_MAX_REQUESTS,
	                                  &m->requests)))
		return rc;
	/* Stated as null: the clock is not locked; the offsets are zero. */
	if (json_object_get(root, "sm_clock_mhz"))
		m->sm_clock_mhz = isnan(clock) ? 0.0 : clock;
	if (json_object_get(root, "power_epoch_offset_s"))
		m->power_epoch_offset_s = isnan(po) ? 0.0 : po;
	if (json_object_get(root, "engine_epoch_offset_s"))
		m->engine_epoch_offset_s = isnan(eo) ? 0.0 : eo;
	return WC_OK;
}

static int
own_idle_window(wc__json_loader *ld, json_t *root, wc_run_manifest *m)
{
	static const char *const keys[] = { "start_epoch", "end_epoch", NULL };
	json_t *w = json_object_get(root, "idle_window");
	double s = NAN, e = NAN;
	int rc;
	if (!w || json_is_null(w))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, w, "/idle_window", keys, keys)) ||
	    (rc = wc__json_number(ld, json_object_get(w, "start_epoch"), "/idle_window/start_epoch", &s)) ||
	    (rc = wc__json_number(ld, json_object_get(w, "end_epoch"), "/idle_window/end_epoch", &e)))
		return rc;
	if (!(e > s))
		return wc__json_fail(ld, "/idle_window", "needs start_epoch < end_epoch");
	m->idle_start = s;
	m->idle_end = e;
	return WC_OK;
}

int
wc__run_manifest_check_uuids(wc__json_loader *ld, const wc_run_manifest *m, const char *at)
{
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX];
	for (int i = 1; i < m->n_gpu_uuids; i++)
		for (int j = 0; j < i; j++)
			if (wc_telemetry_uuid_same(m->gpu_uuids[i], m->gpu_uuids[j], strlen(m->gpu_uuids[j]))) {
				wc__json_join_index(p, at, (size_t)i);
				wc__json_join_index(q, at, (size_t)j);
				return wc__json_fail(ld, p, "%.48s repeats %s: each of the run's GPUs is named once", m->gpu_uuids[i],
				                     q);
			}
	return WC_OK;
}

static int
own_gpu_uuids(wc__json_loader *ld, json_t *root, wc_run_manifest *m)
{
	json_t *v = json_object_get(root, "gpu_uuids");
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	if (!json_is_array(v) || json_array_size(v) > WC_TELEMETRY_MAX_GPUS)
		return wc__json_fail(ld, "/gpu_uuids", "expected an array of at most %d strings",
		                     WC_TELEMETRY_MAX_GPUS);
	m->n_gpu_uuids = 0;
	for (size_t i = 0; i < json_array_size(v); i++) {
		wc__json_join_index(p, "/gpu_uuids", i);
		if ((rc = wc__json_string(ld, json_array_get(v, i), p, 0, m->gpu_uuids[i],
		                          sizeof m->gpu_uuids[i])))
			return rc;
		m->n_gpu_uuids++;
	}
	return wc__run_manifest_check_uuids(ld, m, "/gpu_uuids");
}

/* One entry of /levels. Its token totals (schema 4) are the PowerTrace-Sim
 * summary's, of the same name: a stack without a token counter (TGI) has
 * its tokens from them (docs/formats/telemetry.md, "wattcast's own manifest"). */
static int
own_level(wc__json_loader *ld, json_t *v, const char *path, wc_run_level *lv, int version)
{
	static const char *const keys[] = { "label", "start_epoch", "end_epoch", "concurrency", "request_rate",
		                             "burstiness", "requests", "total_input_tokens",
		                             "total_output_tokens", NULL };
	static const char *const required[] = { "start_epoch", "end_epoch", NULL };
	const char *const *totals = wc_run_level_total_keys;
	const double big = 1e300;
	char p[WC__JSON_PATH_MAX];
	int rc;
	wc__run_level_init(lv);
	snprintf(lv->at, sizeof lv->at, "%.39s", path); /* "/levels/63" */
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)) ||
	    (rc = wc__json_optional_string(ld, v, path, "label", lv->label, sizeof lv->label)) ||
	    (rc = wc__json_optional_number(ld, v, path, "start_epoch", -big, big, &lv->start_epoch)) ||
	    (rc = wc__json_optional_number(ld, v, path, "end_epoch", -big, big, &lv->end_epoch)) ||
	    (rc = wc__json_optional_number(ld, v, path, "concurrency", 1e-12, big, &lv->concurrency)) ||
	    (rc = wc__json_optional_number(ld, v, path, "request_rate", 1e-12, big, &lv->request_rate)) ||
	    (rc = wc__json_optional_number(ld, v, path, "burstiness", 1e-12, big, &lv->burstiness)) ||
	    (rc = wc__json_optional_count(ld, v, path, "requests", "request count", 0, WC_RUN_MAX_REQUESTS,
	                                  &lv->requests)) ||
	    (rc = wc__json_optional_count(ld, v, path, totals[0], "token total", 0, WC_RUN_MAX_TOTAL_TOKENS,
	                                  &lv->input_tokens)) ||
	    (rc = wc__json_optional_count(ld, v, path, totals[1], "token total", 0, WC_RUN_MAX_TOTAL_TOKENS,
	                                  &lv->output_tokens)))
		return rc;
	for (int k = 0; k < 2; k++) {
		const double n = k ? lv->output_tokens : lv->input_tokens;
		wc__json_join(p, path, totals[k]);
		if (json_object_get(v, totals[k]) && version < 4)
			return wc__json_fail(ld, p, "needs \"schema\": \"%s\"", WC_RUN_MANIFEST_SCHEMA);
		/* the totals of the level's completed requests, as the manifest's */
		if (!isnan(n) && isnan(lv->requests))
			return wc__json_fail(ld, p, "needs the level's \"requests\", the completed requests it totals");
	}
	if ((rc = wc__run_level_check_totals(ld, lv)))
		return rc;
	wc__json_join(p, path, "end_epoch");
	if (!(lv->end_epoch > lv->start_epoch))
		return wc__json_fail(ld, p, "must be after start_epoch");
	if (!isnan(lv->request_rate) && isnan(lv->burstiness))
		lv->burstiness = 1.0;
	return WC_OK;
}

static int
own_levels(wc__json_loader *ld, json_t *root, wc_run_manifest *m, int version)
{
	json_t *v = json_object_get(root, "levels");
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	if (version < 2)
		return wc__json_fail(ld, "/levels", "needs \"schema\": \"%s\"", WC_RUN_MANIFEST_SCHEMA_V2);
	if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > WC_RUN_MAX_LEVELS)
		return wc__json_fail(ld, "/levels", "expected an array of 1 to %d levels", WC_RUN_MAX_LEVELS);
	m->n_levels = 0;
	for (size_t i = 0; i < json_array_size(v); i++) {
		wc__json_join_index(p, "/levels", i);
		if ((rc = own_level(ld, json_array_get(v, i), p, &m->levels[i], version)))
			return rc;
		m->n_levels++;
	}
	return WC_OK;
}

/* Levels must not overlap each other or the idle window (which is never
 * part of a load row). */
static int
check_windows(wc__json_loader *ld, const wc_run_manifest *m)
{
	char p[WC__JSON_PATH_MAX];
	for (int i = 0; i < m->n_levels; i++) {
		const wc_run_level *a = &m->levels[i];
		wc__json_join_index(p, "/levels", (size_t)i);
		if (isfinite(m->idle_start) && a->start_epoch < m->idle_end && m->idle_start < a->end_epoch)
			return wc__json_fail(ld, p, "overlaps the idle window %.3f-%.3f", m->idle_start,
			                     m->idle_end);
		for (int j = 0; j < i; j++) {
			const wc_run_level *b = &m->levels[j];
			if (a->start_epoch < b->end_epoch && b->start_epoch < a->end_epoch)
				return wc__json_fail(ld, p, "overlaps level %d", j);
		}
	}
	return WC_OK;
}

/* An integer key of /finetune in [lo, hi]; absent keeps `*out`. */
static int
ft_int(wc__json_loader *ld, json_t *o, const char *key, long long lo, long long hi, int *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(o, key);
	long long n;
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	wc__json_join(p, "/finetune", key);
	if ((rc = wc__json_int(ld, v, p, lo, hi, &n)))
		return rc;
	*out = (int)n;
	return WC_OK;
}

static int
ft_method(wc__json_loader *ld, json_t *o, wc_run_finetune *f)
{
	char text[16] = "";
	wc_ft_method m;
	int rc = wc__json_optional_string(ld, o, "/finetune", "method", text, sizeof text);
	if (rc != WC_OK || !text[0])
		return rc;
	if (wc_ft_method_from_name(text, &m) != WC_OK)
		return wc__json_fail(ld, "/finetune/method", "expected %s, got '%s'", wc_ft_method_choices(), text);
	f->method = (int)m;
	return WC_OK;
}

/* /finetune: the configuration of a fine-tuning run (schema 3). */
static int
own_finetune(wc__json_loader *ld, json_t *root, wc_run_manifest *m, int version)
{
	static const char *const keys[] = { "method", "micro_batch", "seq_len", "grad_accum", "gpus",
	                                    "data_parallel", "lora_rank", "layers", "d_model", "checkpointing",
	                                    "steps", "tokens_per_step", NULL };
	static const char *const none[] = { NULL };
	json_t *o = json_object_get(root, "finetune"), *ck;
	wc_run_finetune *f = &m->finetune;
	int rc;
	if (!o || json_is_null(o))
		return WC_OK;
	if (version < 3)
		return wc__json_fail(ld, "/finetune", "needs \"schema\": \"%s\"", WC_RUN_MANIFEST_SCHEMA_V3);
	if ((rc = wc__json_check_keys(ld, o, "/finetune", keys, none)) || (rc = ft_method(ld, o, f)) ||
	    (rc = ft_int(ld, o, "micro_batch", 1, WC_FT_MAX_INT, &f->micro_batch)) ||
	    (rc = ft_int(ld, o, "seq_len", 1, WC_FT_MAX_INT, &f->seq_len)) ||
	    (rc = ft_int(ld, o, "grad_accum", 1, WC_FT_MAX_INT, &f->grad_accum)) ||
	    (rc = ft_int(ld, o, "gpus", 1, WC_FT_MAX_GPUS, &f->gpus)) ||
	    (rc = ft_int(ld, o, "data_parallel", 1, WC_FT_MAX_GPUS, &f->data_parallel)) ||
	    (rc = ft_int(ld, o, "lora_rank", 1, WC_FT_MAX_LORA_RANK, &f->lora_rank)) ||
	    (rc = ft_int(ld, o, "layers", 1, WC_FT_MAX_LAYERS, &f->layers)) ||
	    (rc = ft_int(ld, o, "d_model", 1, WC_FT_MAX_D_MODEL, &f->d_model)) ||
	    /* whole optimizer steps, as global_step's (data/step_log.h) */
	    (rc = wc__json_optional_count(ld, o, "/finetune", "steps", "whole number of optimizer steps", 1,
	                                  WC_STEP_LOG_MAX_STEP, &f->steps)) ||
	    (rc = wc__json_optional_number(ld, o, "/finetune", "tokens_per_step", 1e-9, 1e300, &f->tokens_per_step)))
		return rc;
	if ((ck = json_object_get(o, "checkpointing")) && !json_is_null(ck)) {
		if (!json_is_boolean(ck))
			return wc__json_fail(ld, "/finetune/checkpointing", "expected true or false, got %s",
			                     wc_json_type_name(ck));
		f->checkpointing = json_is_true(ck);
	}
	f->present = 1;
	return WC_OK;
}

static int
load_own(wc__json_loader ld, json_t *root, wc_run_manifest *m, int version, wc_error *err)
{
	static const char *const required[] = { "schema", NULL };
	int rc;
	snprintf(m->format, sizeof m->format, "%s",
	         version >= 4   ? WC_RUN_MANIFEST_SCHEMA
	         : version == 3 ? WC_RUN_MANIFEST_SCHEMA_V3
	         : version == 2 ? WC_RUN_MANIFEST_SCHEMA_V2 : WC_RUN_MANIFEST_SCHEMA_V1);
	if ((rc = wc__json_check_keys(&ld, root, "", own_keys, required)) ||
	    (rc = own_names(&ld, root, m)) || (rc = own_numbers(&ld, root, m)) ||
	    (rc = own_idle_window(&ld, root, m)) || (rc = own_gpu_uuids(&ld, root, m)) ||
	    (rc = own_levels(&ld, root, m, version)) || (rc = check_windows(&ld, m)) ||
	    (rc = wc__run_manifest_check_labels(&ld, m, "/levels", NULL)) ||
	    (rc = own_finetune(&ld, root, m, version))) {
		if (err)
			err->code = WC_EPARSE;
		return WC_EPARSE;
	}
	return WC_OK;
}

int
wc_run_manifest_load_buffer(const char *buf, size_t len, const char *path, wc_run_manifest *m,
                            wc_error *err)
{
	json_error_t jerr;
	int rc;
	if (wc__json_refuse_utf8(path, buf, len, err) != WC_OK) /* a Latin-1 "caf\xe9", named at its byte */
		return WC_EPARSE;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return wc_json_error_set(err, path, "", &jerr, buf, len);
	/* into a copy, so a refused file leaves `m` as it was; the text kept for a value's line:column */
	wc__json_loader ld = { .source = path, .err = err, .text = buf, .text_len = len };
	wc_run_manifest tmp = *m;
	/* NULL when absent or not a string */
	const char *schema = json_is_object(root) ? json_string_value(json_object_get(root, "schema")) : NULL;
	if (!json_is_object(root))
		rc = wc_error_set_path(err, WC_EPARSE, path, ": expected a JSON object");
	else if (schema && strcmp(schema, WC_RUN_MANIFEST_SCHEMA) == 0)
		rc = load_own(ld, root, &tmp, 4, err);
	else if (schema && strcmp(schema, WC_RUN_MANIFEST_SCHEMA_V3) == 0)
		rc = load_own(ld, root, &tmp, 3, err);
	else if (schema && strcmp(schema, WC_RUN_MANIFEST_SCHEMA_V2) == 0)
		rc = load_own(ld, root, &tmp, 2, err);
	else if (schema && strcmp(schema, WC_RUN_MANIFEST_SCHEMA_V1) == 0)
		rc = load_own(ld, root, &tmp, 1, err);
	else if (schema)
		rc = wc__json_fail(&ld, "/schema", "expected \"%s\" (or \"%s\", \"%s\", \"%s\"), got \"%s\"",
		                   WC_RUN_MANIFEST_SCHEMA, WC_RUN_MANIFEST_SCHEMA_V3, WC_RUN_MANIFEST_SCHEMA_V2,
		                   WC_RUN_MANIFEST_SCHEMA_V1, schema) ? WC_EPARSE : WC_OK;
	else if (json_object_get(root, "manifest_version") || json_object_get(root, "clock") ||
	         json_object_get(root, "probe"))
		rc = wc__run_manifest_load_powertrace(ld, root, &tmp);
	else
		rc = wc_error_set_path(err, WC_EPARSE, path, ": neither a powertrace-sim manifest nor \"schema\": \"%s\"",
		                       WC_RUN_MANIFEST_SCHEMA);
	json_decref(root);
	if (rc == WC_OK)
		*m = tmp;
	return rc;
}

int
wc_run_manifest_load(const char *path, wc_run_manifest *m, wc_error *err)
{
	char *buf = NULL;
	size_t len;
	int rc = wc_read_file(path, WC_MANIFEST_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK)
		return rc;
	rc = wc_run_manifest_load_buffer(buf, len, path, m, err);
	free(buf);
	return rc;
}

/* Appends "--flag MINE (the run says RUN)" when both are known and
 * differ. */
static void
overruled(char *list, size_t cap, int known, int differ, const char *flag, const char *mine, const char *run)
{
	size_t len = strlen(list);
	if (!known || !differ || (len >= 3 && strcmp(list + len - 3, "...") == 0))
		return;
	char item[160];
	snprintf(item, sizeof item, "%s--%s %s (the run says %s)", len ? ", " : "", flag, mine, run);
	snprintf(list + len, cap - len, "%s", len + strlen(item) + 4 < cap ? item : ", ...");
}

/* Do two names differ? By their catalog entries (ka, kb; NULL = not in
 * the catalog) when either has one, so that "h100" and "H100" agree;
 * else by spelling. */
static int
names_differ(const void *ka, const void *kb, const char *a, const char *b)
{
	return ka || kb ? ka != kb : strcmp(a, b) != 0;
}

void
wc_run_manifest_overruled(const wc_run_manifest *m, const wc_run_manifest *d, int with_utc, char *list, size_t cap)
{
	char a[32], b[32];
	list[0] = '\0';
	overruled(list, cap, d->platform[0] && m->platform[0],
	          names_differ(wc_platform_lookup(d->platform), wc_platform_lookup(m->platform), d->platform,
	                       m->platform),
	          "platform", d->platform, m->platform);
	overruled(list, cap, d->model[0] && m->model[0],
	          names_differ(wc_model_lookup(d->model), wc_model_lookup(m->model), d->model, m->model), "model",
	          d->model, m->model);
	snprintf(a, sizeof a, "%d", d->tp);
	snprintf(b, sizeof b, "%d", m->tp);
	overruled(list, cap, d->tp > 0 && m->tp > 0, d->tp != m->tp, "tp", a, b);
	overruled(list, cap, d->workload != WC_WORKLOAD_UNKNOWN && m->workload != WC_WORKLOAD_UNKNOWN,
	          d->workload != m->workload, "workload", wc_workload_name(d->workload), wc_workload_name(m->workload));
	snprintf(a, sizeof a, "%g", d->utc_offset_s);
	snprintf(b, sizeof b, "%g", m->utc_offset_s);
	overruled(list, cap, with_utc && !isnan(d->utc_offset_s) && !isnan(m->utc_offset_s),
	          d->utc_offset_s != m->utc_offset_s, "utc-offset", a, b);
	const wc_run_finetune *fd = &d->finetune, *fm = &m->finetune;
	overruled(list, cap, fd->method >= 0 && fm->method >= 0, fd->method != fm->method, "method",
	          fd->method >= 0 ? wc_ft_method_name((wc_ft_method)fd->method) : "",
	          fm->method >= 0 ? wc_ft_method_name((wc_ft_method)fm->method) : "");
	const struct { const char *flag; int mine, run; } ints[] = {
		{ "gpus", fd->gpus, fm->gpus }, { "micro-batch", fd->micro_batch, fm->micro_batch },
		{ "seq-len", fd->seq_len, fm->seq_len }, { "grad-accum", fd->grad_accum, fm->grad_accum },
		{ "lora-rank", fd->lora_rank, fm->lora_rank }, { "data-parallel", fd->data_parallel, fm->data_parallel },
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		snprintf(a, sizeof a, "%d", ints[i].mine);
		snprintf(b, sizeof b, "%d", ints[i].run);
		overruled(list, cap, ints[i].mine > 0 && ints[i].run > 0, ints[i].mine != ints[i].run, ints[i].flag, a, b);
	}
	overruled(list, cap, fd->checkpointing >= 0 && fm->checkpointing >= 0, fd->checkpointing != fm->checkpointing,
	          "checkpointing", fd->checkpointing > 0 ? "true" : "false", fm->checkpointing > 0 ? "true" : "false");
	snprintf(a, sizeof a, "%g", fd->steps);
	snprintf(b, sizeof b, "%g", fm->steps);
	overruled(list, cap, !isnan(fd->steps) && !isnan(fm->steps), fd->steps != fm->steps, "steps", a, b);
}

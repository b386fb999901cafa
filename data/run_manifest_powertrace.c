/*
 * The powertrace-sim `manifest.json` (docs/formats/telemetry.md), read
 * leniently: only the facts wattcast needs (platform, TP degree, model and
 * architecture, the clock correction, the server's limits and the probe's
 * load levels). run_manifest.c dispatches on the file's schema and reads
 * wattcast's own `wattcast-run.json`.
 */
#include "run_manifest_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v && json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *
str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static void
set_str(char *dst, size_t cap, const char *s)
{
	if (s && s[0])
		snprintf(dst, cap, "%s", s);
}

static int
kv_precision(const char *dtype)
{
	if (!dtype)
		return -1;
	if (strncasecmp(dtype, "fp8", 3) == 0)
		return WC_PREC_FP8;
	/* "auto": the cache takes the model's dtype (bf16 for these runs). */
	return WC_PREC_BF16;
}

/* /arch: active parameters, dense or MoE, fp8 weights. */
static void
powertrace_arch(json_t *arch, wc_run_manifest *m)
{
	double na = num(arch, "n_active");
	if (isfinite(na) && na > 0)
		m->active_params_b = na / 1e9;
	double moe = num(arch, "moe_frac"), experts = num(arch, "n_experts");
	if (isfinite(moe) || isfinite(experts))
		m->architecture = (moe > 0 || experts > 1) ? WC_ARCH_MOE : WC_ARCH_DENSE;
	double fp8 = num(arch, "fp8");
	if (isfinite(fp8))
		m->weights = fp8 > 0 ? WC_PREC_FP8 : WC_PREC_BF16;
}

/* /clock: how each log's timestamps map to Unix epoch seconds. */
static int
powertrace_clock(const char *path, json_t *clock, wc_run_manifest *m, wc_error *err)
{
	const char *pb = str(clock, "power_timestamp_basis"), *eb = str(clock, "engine_timestamp_basis");
	const char *rb = str(clock, "request_timestamp_basis");
	if (pb && strcmp(pb, "local_wall_time") == 0) {
		double off = num(clock, "local_utc_offset_s");
		if (isfinite(off))
			m->utc_offset_s = off;
	} else if (pb && (strcmp(pb, "unix_epoch") == 0 || strcmp(pb, "utc") == 0)) {
		m->utc_offset_s = 0.0;
	} else if (pb) {
		return wc_error_set_path(err, WC_EPARSE, path, ": /clock/power_timestamp_basis: unknown basis '%s'",
		                         pb);
	}
	if ((eb && strcmp(eb, "unix_epoch") != 0) || (rb && strcmp(rb, "unix_epoch") != 0))
		return wc_error_set_path(err, WC_EPARSE, path, ": /clock: engine and request timestamps must be "
		                         "unix_epoch, got '%s' / '%s'", eb ? eb : "-", rb ? rb : "-");
	double po = num(clock, "power_epoch_offset_s"), eo = num(clock, "engine_epoch_offset_s");
	if (isfinite(po))
		m->power_epoch_offset_s = po;
	if (isfinite(eo))
		m->engine_epoch_offset_s = eo;
	return WC_OK;
}

/* /server: KV-cache precision and the GPUs the run used. */
static void
powertrace_server(json_t *server, wc_run_manifest *m)
{
	int kv = kv_precision(str(server, "kv_cache_dtype"));
	if (kv >= 0)
		m->kv = kv;
	json_t *uu = json_object_get(server, "active_gpu_uuids");
	size_t i;
	json_t *u;
	if (json_is_array(uu) && json_array_size(uu) <= WC_TELEMETRY_MAX_GPUS) {
		m->n_gpu_uuids = 0;
		json_array_foreach(uu, i, u) if (json_is_string(u))
			snprintf(m->gpu_uuids[m->n_gpu_uuids++], sizeof m->gpu_uuids[0], "%s",
			         json_string_value(u));
	}
}

/* /probe/levels (non-empty): the workload from the first level, the
 * completed requests over all of them. */
static void
powertrace_levels(json_t *levels, wc_run_manifest *m)
{
	json_t *l0 = json_array_get(levels, 0), *params = json_object_get(l0, "params");
	double rate = num(params, "request_rate"), burst = num(params, "burstiness");
	double conc = num(l0, "concurrency");
	if (isfinite(rate) && rate > 0) {
		m->request_rate = rate;
		m->burstiness = isfinite(burst) ? burst : 1.0;
		if (m->workload == WC_WORKLOAD_UNKNOWN)
			m->workload = m->burstiness == 1.0 ? WC_WORKLOAD_POISSON : WC_WORKLOAD_BURSTY;
	} else if (isfinite(conc) && conc > 0) {
		m->concurrency = conc;
		if (m->workload == WC_WORKLOAD_UNKNOWN)
			m->workload = WC_WORKLOAD_CLOSED;
	}
	/* Completed requests over all levels (the load generator's
	 * own count). */
	double done = 0.0;
	int known = 1;
	size_t i;
	json_t *l;
	json_array_foreach(levels, i, l) {
		double c = num(json_object_get(l, "summary"), "completed");
		if (isfinite(c))
			done += c;
		else
			known = 0;
	}
	if (known)
		m->requests = done;
	/* Each level's window and load (docs/formats/telemetry.md). */
	m->n_levels = 0;
	json_array_foreach(levels, i, l) {
		if (m->n_levels >= WC_RUN_MAX_LEVELS)
			break;
		wc_run_level *lv = &m->levels[m->n_levels];
		json_t *p = json_object_get(l, "params"), *s = json_object_get(l, "summary");
		const char *label = str(l, "label");
		wc__run_level_init(lv);
		lv->start_epoch = num(l, "t_start_epoch");
		lv->end_epoch = num(l, "t_end_epoch");
		if (!(lv->end_epoch > lv->start_epoch))
			continue; /* a level without its window: the whole log stays one row */
		snprintf(lv->label, sizeof lv->label, "%s", label ? label : "");
		double c = num(l, "concurrency"), r = num(p, "request_rate"), b = num(p, "burstiness");
		lv->concurrency = c > 0 ? c : NAN;
		lv->request_rate = r > 0 ? r : NAN;
		lv->burstiness = r > 0 ? (b > 0 ? b : 1.0) : NAN;
		lv->requests = num(s, "completed");
		lv->input_tokens = num(s, "total_input_tokens");
		lv->output_tokens = num(s, "total_output_tokens");
		m->n_levels++;
	}
}

/* /probe: the idle window and the workload. */
static void
powertrace_probe(json_t *probe, wc_run_manifest *m)
{
	const char *type = str(probe, "type");
	json_t *idle = json_object_get(probe, "idle_window");
	if (json_is_object(idle) && isfinite(num(idle, "start_epoch")) && isfinite(num(idle, "end_epoch"))) {
		m->idle_start = num(idle, "start_epoch");
		m->idle_end = num(idle, "end_epoch");
	}
	if (type && strcmp(type, "trace_replay") == 0)
		m->workload = WC_WORKLOAD_REPLAY;
	json_t *levels = json_object_get(probe, "levels");
	if (json_is_array(levels) && json_array_size(levels) > 0)
		powertrace_levels(levels, m);
}

int
wc__run_manifest_load_powertrace(const char *path, json_t *root, wc_run_manifest *m, wc_error *err)
{
	json_t *clock = json_object_get(root, "clock"), *arch = json_object_get(root, "arch");
	json_t *probe = json_object_get(root, "probe"), *server = json_object_get(root, "server");
	int rc;
	snprintf(m->format, sizeof m->format, "powertrace-sim");
	set_str(m->run_id, sizeof m->run_id, str(root, "run_id"));
	set_str(m->platform, sizeof m->platform, str(root, "hardware"));
	set_str(m->model, sizeof m->model, str(root, "model"));
	/* Compared as a double first: a huge value must not reach the cast. */
	double tp = num(root, "tp");
	if (isfinite(tp) && tp >= 1 && tp <= WC_LAW_MAX_TP && tp == floor(tp))
		m->tp = (int)tp;
	else if (!isnan(tp))
		return wc_error_set_path(err, WC_EPARSE, path, ": /tp: expected a whole number between 1 and %d",
		                         WC_LAW_MAX_TP);
	if (json_is_object(arch))
		powertrace_arch(arch, m);
	if (json_is_object(clock) && (rc = powertrace_clock(path, clock, m, err)) != WC_OK)
		return rc;
	if (json_is_object(server))
		powertrace_server(server, m);
	if (json_is_object(probe))
		powertrace_probe(probe, m);
	return WC_OK;
}

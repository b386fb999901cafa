/*
 * The powertrace-sim `manifest.json` (docs/formats/telemetry.md), read
 * leniently: only the facts wattcast needs (platform, TP degree, model and
 * architecture, the clock correction, the server's limits and the probe's
 * load levels). run_manifest.c dispatches on the file's schema and reads
 * wattcast's own `wattcast-run.json`.
 */
#include "run_manifest_internal.h"
#include "json_internal.h"
#include "models/limits.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The reader: the file and its first refusal. Keys wattcast does not need
 * are ignored, and a key it reads may be absent or null (not stated); but
 * a value of another type than the one it reads is refused at its JSON
 * pointer, as wattcast.run's reader refuses one (json_strict.c): a
 * "hardware": 5 was taken for no platform, and ingest asked for
 * --platform the manifest states. */
typedef struct {
	wc__json_loader ld;
	int rc;
} pt_reader;

/* o[key] when it is of `type` (JSON_REAL: any number), NULL when absent
 * or null; else NULL and the refusal, if it is the first. */
static json_t *
typed(pt_reader *r, json_t *o, const char *path, const char *key, json_type type)
{
	static const char *const want[] = { [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		                            [JSON_STRING] = "a string", [JSON_REAL] = "a number" };
	json_t *v = json_object_get(o, key);
	char p[WC__JSON_PATH_MAX];
	if (!v || json_is_null(v))
		return NULL;
	if (type == JSON_REAL ? json_is_number(v) : json_typeof(v) == type)
		return v;
	if (r->rc == WC_OK) {
		wc__json_join(p, path, key);
		r->rc = wc__json_fail(&r->ld, p, "expected %s or null, got %s", want[type], wc_json_type_name(v));
	}
	return NULL;
}

static double
num(pt_reader *r, json_t *o, const char *path, const char *key)
{
	json_t *v = typed(r, o, path, key, JSON_REAL);
	return v ? json_number_value(v) : NAN;
}

/* o[key] as a count of [0, hi] (wc__json_optional_count), NaN when
 * absent or null: the summary's counts are wattcast-run.json's level
 * counts, by the same rule (docs/formats/telemetry.md, "Manifests"). */
static double
count(pt_reader *r, json_t *o, const char *path, const char *key, const char *what, double hi)
{
	double v = NAN;
	if (typed(r, o, path, key, JSON_REAL) && r->rc == WC_OK)
		r->rc = wc__json_optional_count(&r->ld, o, path, key, what, 0, hi, &v);
	return r->rc == WC_OK ? v : NAN;
}

static const char *
str(pt_reader *r, json_t *o, const char *path, const char *key)
{
	json_t *v = typed(r, o, path, key, JSON_STRING);
	return v ? json_string_value(v) : NULL;
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
powertrace_arch(pt_reader *r, json_t *arch, wc_run_manifest *m)
{
	const char *at = "/arch";
	double na = num(r, arch, at, "n_active");
	if (isfinite(na) && na > 0)
		m->active_params_b = na / 1e9;
	double moe = num(r, arch, at, "moe_frac"), experts = num(r, arch, at, "n_experts");
	if (isfinite(moe) || isfinite(experts))
		m->architecture = (moe > 0 || experts > 1) ? WC_ARCH_MOE : WC_ARCH_DENSE;
	double fp8 = num(r, arch, at, "fp8");
	if (isfinite(fp8))
		m->weights = fp8 > 0 ? WC_PREC_FP8 : WC_PREC_BF16;
}

/* /clock: how each log's timestamps map to Unix epoch seconds. */
static void
powertrace_clock(pt_reader *r, json_t *clock, wc_run_manifest *m)
{
	const char *at = "/clock";
	const char *pb = str(r, clock, at, "power_timestamp_basis"), *eb = str(r, clock, at, "engine_timestamp_basis");
	const char *rb = str(r, clock, at, "request_timestamp_basis");
	double off = num(r, clock, at, "local_utc_offset_s");
	double po = num(r, clock, at, "power_epoch_offset_s"), eo = num(r, clock, at, "engine_epoch_offset_s");
	if (r->rc != WC_OK)
		return;
	if (pb && strcmp(pb, "local_wall_time") == 0) {
		if (isfinite(off))
			m->utc_offset_s = off;
	} else if (pb && (strcmp(pb, "unix_epoch") == 0 || strcmp(pb, "utc") == 0)) {
		m->utc_offset_s = 0.0;
	} else if (pb) {
		r->rc = wc__json_fail(&r->ld, "/clock/power_timestamp_basis", "unknown basis '%s'", pb);
		return;
	}
	if ((eb && strcmp(eb, "unix_epoch") != 0) || (rb && strcmp(rb, "unix_epoch") != 0)) {
		r->rc = wc__json_fail(&r->ld, at, "engine and request timestamps must be unix_epoch, got '%s' / '%s'",
		                      eb ? eb : "-", rb ? rb : "-");
		return;
	}
	if (isfinite(po))
		m->power_epoch_offset_s = po;
	if (isfinite(eo))
		m->engine_epoch_offset_s = eo;
}

/* /server: KV-cache precision and the GPUs the run used. */
static void
powertrace_server(pt_reader *r, json_t *server, wc_run_manifest *m)
{
	const char *at = "/server";
	int kv = kv_precision(str(r, server, at, "kv_cache_dtype"));
	if (kv >= 0)
		m->kv = kv;
	json_t *uu = typed(r, server, at, "active_gpu_uuids", JSON_ARRAY);
	size_t i;
	json_t *u;
	char p[WC__JSON_PATH_MAX];
	json_array_foreach(uu, i, u) if (!json_is_string(u) && r->rc == WC_OK) {
		wc__json_join_index(p, "/server/active_gpu_uuids", i);
		r->rc = wc__json_fail(&r->ld, p, "expected a string, got %s", wc_json_type_name(u));
	}
	if (uu && r->rc == WC_OK && json_array_size(uu) <= WC_TELEMETRY_MAX_GPUS) {
		m->n_gpu_uuids = 0;
		json_array_foreach(uu, i, u)
			snprintf(m->gpu_uuids[m->n_gpu_uuids++], sizeof m->gpu_uuids[0], "%s", json_string_value(u));
		r->rc = wc__run_manifest_check_uuids(&r->ld, m, "/server/active_gpu_uuids");
	}
}

/* The refusal of `key` of the object at `at`, which may be absent: at
 * the object's line:column then, as the strict reader names a missing key
 * (wc__json_check_keys), but with the key's own pointer. */
static int
fail_key(pt_reader *r, const char *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int
fail_key(pt_reader *r, const char *at, const char *key, const char *fmt, ...)
{
	char p[WC__JSON_PATH_MAX], reason[192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	wc__json_join(p, at, key);
	int line, col;
	size_t o, n;
	if (r->ld.text && !wc__json_value_at(r->ld.text, r->ld.text_len, p, &line, &col, &o, &n) &&
	    wc__json_value_at(r->ld.text, r->ld.text_len, at, &line, &col, &o, &n))
		return wc_error_set_path(r->ld.err, WC_EINVAL, r->ld.source, ":%d:%d: %s: %s", line, col, p, reason);
	return wc__json_fail(&r->ld, p, "%s", reason);
}

/* A level's window: both its times, the end after the start. One that
 * states one time and not the other, or an end not after its start, has
 * no window and so no row; it was left out without a word, its load
 * gone from the table, where wattcast-run.json's is refused
 * (docs/formats/telemetry.md, "powertrace-sim manifest.json"). */
static void
level_window(pt_reader *r, const char *at, const wc_run_level *lv)
{
	const int has_s = isfinite(lv->start_epoch), has_e = isfinite(lv->end_epoch);
	if (r->rc != WC_OK || (!has_s && !has_e))
		return;
	if (!has_s || !has_e)
		r->rc = fail_key(r, at, has_e ? "t_start_epoch" : "t_end_epoch", "not stated, but %s is: a level's row "
		                 "is cut to its window, which needs both", has_e ? "t_end_epoch" : "t_start_epoch");
	else if (!(lv->end_epoch > lv->start_epoch))
		r->rc = fail_key(r, at, "t_end_epoch", "must be after t_start_epoch: %.3f is %.3f s before it",
		                 lv->end_epoch, lv->start_epoch - lv->end_epoch);
}

/* One level of /probe/levels, at `at`, into `lv`; 0 when it states no
 * window (neither time: the whole log stays one row, when no level states
 * one). The first level's load is the run's workload. */
static int
powertrace_level(pt_reader *r, json_t *l, const char *at, int first, wc_run_level *lv, wc_run_manifest *m)
{
	char pp[WC__JSON_PATH_MAX], sp[WC__JSON_PATH_MAX];
	wc__json_join(pp, at, "params");
	wc__json_join(sp, at, "summary");
	json_t *p = typed(r, l, at, "params", JSON_OBJECT), *s = typed(r, l, at, "summary", JSON_OBJECT);
	const char *label = str(r, l, at, "label");
	double c = num(r, l, at, "concurrency"), rate = num(r, p, pp, "request_rate"), b = num(r, p, pp, "burstiness");
	if (first && isfinite(rate) && rate > 0) {
		m->request_rate = rate;
		m->burstiness = isfinite(b) ? b : 1.0;
		if (m->workload == WC_WORKLOAD_UNKNOWN)
			m->workload = m->burstiness == 1.0 ? WC_WORKLOAD_POISSON : WC_WORKLOAD_BURSTY;
	} else if (first && isfinite(c) && c > 0) {
		m->concurrency = c;
		if (m->workload == WC_WORKLOAD_UNKNOWN)
			m->workload = WC_WORKLOAD_CLOSED;
	}
	wc__run_level_init(lv);
	lv->start_epoch = num(r, l, at, "t_start_epoch");
	lv->end_epoch = num(r, l, at, "t_end_epoch");
	lv->requests = count(r, s, sp, "completed", "request count", WC_RUN_MAX_REQUESTS);
	lv->input_tokens = count(r, s, sp, "total_input_tokens", "token total", WC_RUN_MAX_TOTAL_TOKENS);
	lv->output_tokens = count(r, s, sp, "total_output_tokens", "token total", WC_RUN_MAX_TOTAL_TOKENS);
	snprintf(lv->at, sizeof lv->at, "%.39s", sp); /* "/probe/levels/63/summary" */
	if (r->rc == WC_OK)
		r->rc = wc__run_level_check_totals(&r->ld, lv);
	level_window(r, at, lv);
	if (!(lv->end_epoch > lv->start_epoch))
		return 0;
	snprintf(lv->label, sizeof lv->label, "%s", label ? label : "");
	lv->concurrency = c > 0 ? c : NAN;
	lv->request_rate = rate > 0 ? rate : NAN;
	lv->burstiness = rate > 0 ? (b > 0 ? b : 1.0) : NAN;
	return 1;
}

/* /probe/levels: each level's window and load (docs/formats/telemetry.md),
 * and the completed requests over all of them (the load generator's own
 * count). */
static void
powertrace_levels(pt_reader *r, json_t *levels, wc_run_manifest *m)
{
	wc_run_level lv;
	double done = 0.0;
	int known = 1;
	size_t bare = 0; /* the first level stating no window, + 1 */
	size_t index[WC_RUN_MAX_LEVELS]; /* each level's entry of the array */
	size_t i;
	json_t *l;
	char at[WC__JSON_PATH_MAX];
	m->n_levels = 0;
	json_array_foreach(levels, i, l) {
		wc__json_join_index(at, "/probe/levels", i);
		if (!json_is_object(l)) {
			if (r->rc == WC_OK)
				r->rc = wc__json_fail(&r->ld, at, "expected an object, got %s", wc_json_type_name(l));
			return;
		}
		int windowed = powertrace_level(r, l, at, i == 0, &lv, m);
		if (isfinite(lv.requests))
			done += lv.requests;
		else
			known = 0;
		if (!windowed && !bare)
			bare = i + 1;
		if (windowed && m->n_levels < WC_RUN_MAX_LEVELS) {
			index[m->n_levels] = i;
			m->levels[m->n_levels++] = lv;
		}
	}
	/* a level with no window beside levels with one would lose its row
	 * (and its load) without a word: each level is a row of its own */
	if (r->rc == WC_OK && bare && m->n_levels > 0) {
		wc__json_join_index(at, "/probe/levels", bare - 1);
		r->rc = fail_key(r, at, "t_start_epoch", "not stated, nor t_end_epoch, but level %zu states its window: "
		                 "each level is a row cut to its own", index[0]);
	}
	if (r->rc == WC_OK)
		r->rc = wc__run_manifest_check_labels(&r->ld, m, "/probe/levels", index);
	if (known)
		m->requests = done;
}

/* /probe: the idle window and the workload. */
static void
powertrace_probe(pt_reader *r, json_t *probe, wc_run_manifest *m)
{
	const char *at = "/probe";
	const char *type = str(r, probe, at, "type");
	json_t *idle = typed(r, probe, at, "idle_window", JSON_OBJECT);
	double s = num(r, idle, "/probe/idle_window", "start_epoch"), e = num(r, idle, "/probe/idle_window", "end_epoch");
	if (isfinite(s) && isfinite(e)) {
		m->idle_start = s;
		m->idle_end = e;
	}
	if (type && strcmp(type, "trace_replay") == 0)
		m->workload = WC_WORKLOAD_REPLAY;
	json_t *levels = typed(r, probe, at, "levels", JSON_ARRAY);
	if (json_array_size(levels) > 0)
		powertrace_levels(r, levels, m);
}

int
wc__run_manifest_load_powertrace(wc__json_loader ld, json_t *root, wc_run_manifest *m)
{
	pt_reader r = { ld, WC_OK };
	json_t *clock = typed(&r, root, "", "clock", JSON_OBJECT), *arch = typed(&r, root, "", "arch", JSON_OBJECT);
	json_t *probe = typed(&r, root, "", "probe", JSON_OBJECT), *server = typed(&r, root, "", "server", JSON_OBJECT);
	json_t *tp = json_object_get(root, "tp");
	snprintf(m->format, sizeof m->format, "powertrace-sim");
	set_str(m->run_id, sizeof m->run_id, str(&r, root, "", "run_id"));
	set_str(m->platform, sizeof m->platform, str(&r, root, "", "hardware"));
	set_str(m->model, sizeof m->model, str(&r, root, "", "model"));
	/* Compared as a double first: a huge value must not reach the cast. */
	if (tp && !json_is_null(tp)) {
		double v = json_is_number(tp) ? json_number_value(tp) : NAN;
		if (v >= 1 && v <= WC_LAW_MAX_TP && v == floor(v))
			m->tp = (int)v;
		else if (r.rc == WC_OK)
			r.rc = wc__json_fail(&r.ld, "/tp", "expected a whole number between 1 and %d", WC_LAW_MAX_TP);
	}
	powertrace_arch(&r, arch, m);
	powertrace_clock(&r, clock, m);
	powertrace_server(&r, server, m);
	powertrace_probe(&r, probe, m);
	/* Both from this file: the contradiction is the manifest's, not the
	 * power log's, whose GPUs the names pick out (docs/formats/telemetry.md,
	 * "powertrace-sim manifest.json"). A data-parallel server's GPUs are
	 * tp x data_parallel, which wattcast-run.json states (the manifest
	 * does not): only a count no replicas make is refused here; ingest
	 * checks the run's (trace/ingest_replica.c). */
	if (r.rc == WC_OK && m->tp > 0 && m->n_gpu_uuids > 0 && m->n_gpu_uuids % m->tp != 0)
		r.rc = wc__json_fail(&r.ld, "/tp", "%d, but /server/active_gpu_uuids names %d GPU%s", m->tp,
		                     m->n_gpu_uuids, m->n_gpu_uuids == 1 ? "" : "s");
	if (r.rc != WC_OK && r.ld.err)
		r.ld.err->code = WC_EPARSE;
	return r.rc == WC_OK ? WC_OK : WC_EPARSE;
}

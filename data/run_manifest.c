/*
 * Run manifests: what a measured run was (platform, TP degree, model,
 * load) and how its clocks relate (SPEC §1 inputs, §7 columns). Two
 * formats: the powertrace-sim `manifest.json` as that tool writes it (read
 * leniently: only the facts wattcast needs), and wattcast's own
 * `wattcast-run.json` (schema "wattcast.run/1", read strictly) for users
 * whose tools write none. Values a file states replace what the caller
 * already had, so files can be layered: manifest.json, then
 * wattcast-run.json, then command-line flags fill the gaps.
 */
#include "data/data.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MANIFEST_MAX_BYTES ((size_t)16 << 20)

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
}

#define FILL_STR(f) do { if (!m->f[0] && d->f[0]) snprintf(m->f, sizeof m->f, "%s", d->f); } while (0)
#define FILL_NUM(f) do { if (isnan(m->f) && !isnan(d->f)) m->f = d->f; } while (0)

void
wc_run_manifest_fill(wc_run_manifest *m, const wc_run_manifest *d)
{
	FILL_STR(run_id);
	FILL_STR(platform);
	FILL_STR(model);
	FILL_STR(architecture);
	FILL_STR(workload);
	if (m->tp <= 0 && d->tp > 0)
		m->tp = d->tp;
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
	if (m->n_gpu_uuids == 0 && d->n_gpu_uuids > 0) {
		m->n_gpu_uuids = d->n_gpu_uuids;
		memcpy(m->gpu_uuids, d->gpu_uuids, sizeof m->gpu_uuids);
	}
}

/* ------------------------------------------------------- powertrace-sim */

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

static int
load_powertrace(const char *path, json_t *root, wc_run_manifest *m, wc_error *err)
{
	json_t *clock = json_object_get(root, "clock"), *arch = json_object_get(root, "arch");
	json_t *probe = json_object_get(root, "probe"), *server = json_object_get(root, "server");
	snprintf(m->format, sizeof m->format, "powertrace-sim");
	set_str(m->run_id, sizeof m->run_id, str(root, "run_id"));
	set_str(m->platform, sizeof m->platform, str(root, "hardware"));
	set_str(m->model, sizeof m->model, str(root, "model"));
	if (isfinite(num(root, "tp")) && num(root, "tp") >= 1)
		m->tp = (int)num(root, "tp");
	if (json_is_object(arch)) {
		double na = num(arch, "n_active");
		if (isfinite(na) && na > 0)
			m->active_params_b = na / 1e9;
		double moe = num(arch, "moe_frac"), experts = num(arch, "n_experts");
		if (isfinite(moe) || isfinite(experts))
			snprintf(m->architecture, sizeof m->architecture, "%s",
			         (moe > 0 || experts > 1) ? "moe" : "dense");
		double fp8 = num(arch, "fp8");
		if (isfinite(fp8))
			m->weights = fp8 > 0 ? WC_PREC_FP8 : WC_PREC_BF16;
	}
	if (json_is_object(clock)) {
		const char *pb = str(clock, "power_timestamp_basis"), *eb = str(clock, "engine_timestamp_basis");
		const char *rb = str(clock, "request_timestamp_basis");
		if (pb && strcmp(pb, "local_wall_time") == 0) {
			double off = num(clock, "local_utc_offset_s");
			if (isfinite(off))
				m->utc_offset_s = off;
		} else if (pb && (strcmp(pb, "unix_epoch") == 0 || strcmp(pb, "utc") == 0)) {
			m->utc_offset_s = 0.0;
		} else if (pb) {
			return wc_error_set(err, WC_EPARSE, "%s: /clock/power_timestamp_basis: unknown basis '%s'",
			                    path, pb);
		}
		if ((eb && strcmp(eb, "unix_epoch") != 0) || (rb && strcmp(rb, "unix_epoch") != 0))
			return wc_error_set(err, WC_EPARSE, "%s: /clock: engine and request timestamps must be "
			                    "unix_epoch, got '%s' / '%s'", path, eb ? eb : "-", rb ? rb : "-");
		double po = num(clock, "power_epoch_offset_s"), eo = num(clock, "engine_epoch_offset_s");
		if (isfinite(po))
			m->power_epoch_offset_s = po;
		if (isfinite(eo))
			m->engine_epoch_offset_s = eo;
	}
	if (json_is_object(server)) {
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
	if (json_is_object(probe)) {
		const char *type = str(probe, "type");
		json_t *idle = json_object_get(probe, "idle_window");
		if (json_is_object(idle) && isfinite(num(idle, "start_epoch")) && isfinite(num(idle, "end_epoch"))) {
			m->idle_start = num(idle, "start_epoch");
			m->idle_end = num(idle, "end_epoch");
		}
		if (type && strcmp(type, "trace_replay") == 0)
			snprintf(m->workload, sizeof m->workload, "replay");
		json_t *levels = json_object_get(probe, "levels");
		if (json_is_array(levels) && json_array_size(levels) > 0) {
			json_t *l0 = json_array_get(levels, 0), *params = json_object_get(l0, "params");
			double rate = num(params, "request_rate"), burst = num(params, "burstiness");
			double conc = num(l0, "concurrency");
			if (isfinite(rate) && rate > 0) {
				m->request_rate = rate;
				m->burstiness = isfinite(burst) ? burst : 1.0;
				if (!m->workload[0])
					snprintf(m->workload, sizeof m->workload, "%s",
					         m->burstiness == 1.0 ? "poisson" : "bursty");
			} else if (isfinite(conc) && conc > 0) {
				m->concurrency = conc;
				if (!m->workload[0])
					snprintf(m->workload, sizeof m->workload, "closed");
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
		}
	}
	return WC_OK;
}

/* ------------------------------------------------------- wattcast.run/1 */

static int
want_number(const char *path, const char *key, json_t *v, double *out, wc_error *err)
{
	if (json_is_null(v)) {
		*out = NAN;
		return WC_OK;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return wc_error_set(err, WC_EPARSE, "%s: /%s: expected a number", path, key);
	*out = json_number_value(v);
	return WC_OK;
}

static int
want_string(const char *path, const char *key, json_t *v, char *out, size_t cap, wc_error *err)
{
	if (!json_is_string(v))
		return wc_error_set(err, WC_EPARSE, "%s: /%s: expected a string", path, key);
	if (strlen(json_string_value(v)) >= cap)
		return wc_error_set(err, WC_EPARSE, "%s: /%s: longer than %zu characters", path, key, cap - 1);
	snprintf(out, cap, "%s", json_string_value(v));
	return WC_OK;
}

static int
load_own(const char *path, json_t *root, wc_run_manifest *m, wc_error *err)
{
	const char *key;
	json_t *v;
	int rc = WC_OK;
	snprintf(m->format, sizeof m->format, "%s", WC_RUN_MANIFEST_SCHEMA);
	json_object_foreach(root, key, v) {
		double x = NAN;
		char text[96];
		if (strcmp(key, "schema") == 0)
			continue;
		if (strcmp(key, "run_id") == 0)
			rc = want_string(path, key, v, m->run_id, sizeof m->run_id, err);
		else if (strcmp(key, "platform") == 0)
			rc = want_string(path, key, v, m->platform, sizeof m->platform, err);
		else if (strcmp(key, "model") == 0)
			rc = want_string(path, key, v, m->model, sizeof m->model, err);
		else if (strcmp(key, "architecture") == 0) {
			if ((rc = want_string(path, key, v, m->architecture, sizeof m->architecture, err)) == WC_OK &&
			    strcmp(m->architecture, "dense") && strcmp(m->architecture, "moe") &&
			    strcmp(m->architecture, "hybrid"))
				rc = wc_error_set(err, WC_EPARSE, "%s: /architecture: expected dense, moe or hybrid", path);
		} else if (strcmp(key, "workload") == 0) {
			if ((rc = want_string(path, key, v, m->workload, sizeof m->workload, err)) == WC_OK &&
			    strcmp(m->workload, "closed") && strcmp(m->workload, "poisson") &&
			    strcmp(m->workload, "bursty") && strcmp(m->workload, "replay"))
				rc = wc_error_set(err, WC_EPARSE,
				                  "%s: /workload: expected closed, poisson, bursty or replay", path);
		} else if (strcmp(key, "weights") == 0 || strcmp(key, "kv_cache") == 0) {
			wc_precision p = WC_PREC_BF16;
			if ((rc = want_string(path, key, v, text, sizeof text, err)) == WC_OK &&
			    (wc_precision_from_name(text, &p) != WC_OK || (key[0] == 'k' && p == WC_PREC_INT4)))
				rc = wc_error_set(err, WC_EPARSE, "%s: /%s: unknown precision '%s'", path, key, text);
			if (rc == WC_OK)
				*(key[0] == 'w' ? &m->weights : &m->kv) = (int)p;
		} else if (strcmp(key, "tp") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 4096)
				rc = wc_error_set(err, WC_EPARSE, "%s: /tp: expected a whole number >= 1", path);
			else
				m->tp = (int)json_integer_value(v);
		} else if (strcmp(key, "active_params_b") == 0 || strcmp(key, "total_params_b") == 0 ||
		           strcmp(key, "sm_clock_mhz") == 0 || strcmp(key, "request_rate") == 0 ||
		           strcmp(key, "burstiness") == 0 || strcmp(key, "concurrency") == 0 ||
		           strcmp(key, "utc_offset_s") == 0 || strcmp(key, "power_epoch_offset_s") == 0 ||
		           strcmp(key, "engine_epoch_offset_s") == 0 || strcmp(key, "requests") == 0) {
			if ((rc = want_number(path, key, v, &x, err)) != WC_OK)
				break;
			if (strcmp(key, "active_params_b") == 0) {
				if (!(x > 0))
					rc = wc_error_set(err, WC_EPARSE, "%s: /active_params_b: must be > 0", path);
				m->active_params_b = x;
			} else if (strcmp(key, "total_params_b") == 0) {
				m->total_params_b = x;
			} else if (strcmp(key, "sm_clock_mhz") == 0) {
				m->sm_clock_mhz = isnan(x) ? 0.0 : x;
			} else if (strcmp(key, "request_rate") == 0) {
				m->request_rate = x;
			} else if (strcmp(key, "burstiness") == 0) {
				m->burstiness = x;
			} else if (strcmp(key, "concurrency") == 0) {
				m->concurrency = x;
			} else if (strcmp(key, "utc_offset_s") == 0) {
				if (fabs(x) > 14 * 3600.0)
					rc = wc_error_set(err, WC_EPARSE, "%s: /utc_offset_s: beyond +-14 h", path);
				m->utc_offset_s = x;
			} else if (strcmp(key, "power_epoch_offset_s") == 0) {
				m->power_epoch_offset_s = isnan(x) ? 0 : x;
			} else if (strcmp(key, "engine_epoch_offset_s") == 0) {
				m->engine_epoch_offset_s = isnan(x) ? 0 : x;
			} else {
				m->requests = x;
			}
		} else if (strcmp(key, "idle_window") == 0) {
			double s = NAN, e = NAN;
			const char *k2;
			json_t *v2;
			if (!json_is_object(v)) {
				rc = wc_error_set(err, WC_EPARSE, "%s: /idle_window: expected an object", path);
				break;
			}
			json_object_foreach(v, k2, v2) {
				if (strcmp(k2, "start_epoch") == 0)
					rc = want_number(path, "idle_window/start_epoch", v2, &s, err);
				else if (strcmp(k2, "end_epoch") == 0)
					rc = want_number(path, "idle_window/end_epoch", v2, &e, err);
				else
					rc = wc_error_set(err, WC_EPARSE, "%s: /idle_window/%s: unknown key", path, k2);
				if (rc)
					break;
			}
			if (rc == WC_OK && !(e > s))
				rc = wc_error_set(err, WC_EPARSE, "%s: /idle_window: needs start_epoch < end_epoch", path);
			m->idle_start = s;
			m->idle_end = e;
		} else if (strcmp(key, "gpu_uuids") == 0) {
			size_t i;
			json_t *u;
			if (!json_is_array(v) || json_array_size(v) > WC_TELEMETRY_MAX_GPUS) {
				rc = wc_error_set(err, WC_EPARSE, "%s: /gpu_uuids: expected an array of at most %d strings",
				                  path, WC_TELEMETRY_MAX_GPUS);
				break;
			}
			m->n_gpu_uuids = 0;
			json_array_foreach(v, i, u) {
				char name[32];
				snprintf(name, sizeof name, "gpu_uuids/%zu", i);
				if ((rc = want_string(path, name, u, m->gpu_uuids[i], sizeof m->gpu_uuids[i], err)))
					break;
				m->n_gpu_uuids++;
			}
		} else {
			rc = wc_error_set(err, WC_EPARSE, "%s: /%s: unknown key", path, key);
		}
		if (rc != WC_OK)
			break;
	}
	return rc;
}

int
wc_run_manifest_load(const char *path, wc_run_manifest *m, wc_error *err)
{
	char *buf = NULL;
	size_t len;
	json_error_t jerr;
	int rc = wc_read_file(path, MANIFEST_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK)
		return rc;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (!root)
		return wc_error_set(err, WC_EPARSE, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
	/* Parse into a copy so that a refused file leaves `m` as it was. */
	wc_run_manifest tmp = *m;
	const char *schema = json_is_object(root) ? str(root, "schema") : NULL;
	if (!json_is_object(root))
		rc = wc_error_set(err, WC_EPARSE, "%s: expected a JSON object", path);
	else if (schema && strcmp(schema, WC_RUN_MANIFEST_SCHEMA) == 0)
		rc = load_own(path, root, &tmp, err);
	else if (schema)
		rc = wc_error_set(err, WC_EPARSE, "%s: /schema: expected \"%s\", got \"%s\"", path,
		                  WC_RUN_MANIFEST_SCHEMA, schema);
	else if (json_object_get(root, "manifest_version") || json_object_get(root, "clock") ||
	         json_object_get(root, "probe"))
		rc = load_powertrace(path, root, &tmp, err);
	else
		rc = wc_error_set(err, WC_EPARSE, "%s: neither a powertrace-sim manifest nor \"schema\": \"%s\"",
		                  path, WC_RUN_MANIFEST_SCHEMA);
	json_decref(root);
	if (rc == WC_OK)
		*m = tmp;
	return rc;
}

/*
 * Parameter files, reading side (docs/formats/params-file.md): schemas
 * "wattcast.params/1" to "/5", loaded strictly -- every object lists its allowed
 * and required keys, every refusal names the JSON path and the reason.
 */
#include "data/params_file.h"
#include "models/limits.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_internal.h"
#include "params_internal.h"
#include "models/grow.h"

/* Columns of a draw matrix a file may hold: its parameters, a few per
 * level and model of a set of at most WC_MAX_LEVELS levels, so a few
 * hundred at most; the bound is private to this reader, as no command
 * writes or takes a count of them. */
#define DRAW_NAMES_MAX 4096


/* {"value": x, "ci95": [lo, hi], "source": "..."}; null when `nullable`. */
int
wc__params_read_tp_span(wc__json_loader *ld, json_t *obj, const char *path, int *tp_min, int *tp_max)
{
	char p[WC__JSON_PATH_MAX];
	double lo, hi;
	json_t *x = json_object_get(obj, "tp");
	int rc;
	if (!x || json_is_null(x))
		return WC_OK;
	wc__json_join(p, path, "tp");
	if ((rc = wc__json_pair(ld, x, p, &lo, &hi)))
		return rc;
	if (lo < 1 || hi > WC_LAW_MAX_TP || lo != floor(lo) || hi != floor(hi))
		return wc__json_fail(ld, p, "expected whole numbers between 1 and %d", WC_LAW_MAX_TP);
	*tp_min = (int)lo;
	*tp_max = (int)hi;
	return WC_OK;
}

int
wc__params_read_count(wc__json_loader *ld, json_t *obj, const char *path, const char *key, int *out)
{
	char p[WC__JSON_PATH_MAX];
	long long n;
	json_t *x = json_object_get(obj, key);
	int rc;
	if (!x)
		return WC_OK;
	wc__json_join(p, path, key);
	if ((rc = wc__json_int(ld, x, p, 0, 100000000, &n)))
		return rc;
	*out = (int)n;
	return WC_OK;
}

static int
read_param(wc__json_loader *ld, json_t *v, const char *path, int nullable, wc_param *out)
{
	static const char *const allowed[] = { "value", "ci95", "source", NULL };
	static const char *const required[] = { "value", "source", NULL };
	char p[WC__JSON_PATH_MAX], src[16], names[128];
	json_t *ci;
	int rc;
	out->value = out->lo = out->hi = NAN;
	out->source = WC_SRC_ASSUMED;
	/* Absent (NULL) reads as null for an optional parameter. */
	if (nullable && (!v || json_is_null(v)))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	wc__json_join(p, path, "value");
	if ((rc = wc__json_number(ld, json_object_get(v, "value"), p, &out->value)))
		return rc;
	wc__json_join(p, path, "source");
	if ((rc = wc__json_string(ld, json_object_get(v, "source"), p, 0, src, sizeof src)))
		return rc;
	if (wc_source_from_name(src, &out->source) != WC_OK)
		return wc__json_fail(ld, p, "unknown source '%s' (%s)", src, wc_source_names(names, sizeof names));
	/* docs/formats/params-file.md, "Versioning": /3 adds "calibrated",
	 * /5 "bound" and "datasheet", /17 "simulated"; an older file may not
	 * carry them. */
	int need = out->source == WC_SRC_CALIBRATED                                 ? 3
	           : out->source == WC_SRC_BOUND || out->source == WC_SRC_DATASHEET ? 5
	           : out->source == WC_SRC_SIMULATED                                ? 17
	                                                                            : 0;
	if (ld->version && ld->version < need)
		return wc__json_fail(ld, p, "source '%s' needs \"%s\" or later", src,
		                     need == 3 ? WC_PARAMS_SCHEMA_V3 : need == 5 ? WC_PARAMS_SCHEMA_V5 : WC_PARAMS_SCHEMA_V17);
	if ((ci = json_object_get(v, "ci95")) && !json_is_null(ci)) {
		wc__json_join(p, path, "ci95");
		if ((rc = wc__json_pair(ld, ci, p, &out->lo, &out->hi)))
			return rc;
	}
	return WC_OK;
}

int
wc__params_read_param(wc__json_loader *ld, json_t *v, const char *path, int nullable,
                      wc_param *out)
{
	return read_param(ld, v, path, nullable, out);
}

int
wc__params_read_range(wc__json_loader *ld, json_t *v, const char *path, wc_range *r)
{
	static const char *const allowed[] = { "active_params_b", "running", "tp",
	                                       "sm_clock_mhz", "runs", NULL };
	static const char *const none[] = { NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	int rc;
	memset(r, 0, sizeof *r);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, none)))
		return rc;
	if ((x = json_object_get(v, "active_params_b")) && !json_is_null(x)) {
		wc__json_join(p, path, "active_params_b");
		if ((rc = wc__json_pair(ld, x, p, &r->active_b_min, &r->active_b_max)))
			return rc;
	}
	if ((x = json_object_get(v, "running")) && !json_is_null(x)) {
		wc__json_join(p, path, "running");
		if ((rc = wc__json_pair(ld, x, p, &r->running_min, &r->running_max)))
			return rc;
	}
	if ((x = json_object_get(v, "sm_clock_mhz")) && !json_is_null(x)) {
		wc__json_join(p, path, "sm_clock_mhz");
		if ((rc = wc__json_pair(ld, x, p, &r->clock_min, &r->clock_max)))
			return rc;
	}
	if ((rc = wc__params_read_tp_span(ld, v, path, &r->tp_min, &r->tp_max)))
		return rc;
	/* absent or null: unknown, as every key of the range */
	r->runs = -1;
	if ((x = json_object_get(v, "runs")) && json_is_null(x))
		return WC_OK;
	return wc__params_read_count(ld, v, path, "runs", &r->runs);
}

static int
read_level(wc__json_loader *ld, json_t *v, const char *path, wc_level *l)
{
	static const char *const allowed[] = { "name", "s_shared_with", "p0_w", "s_w", "theta",
	                                       "floor_logit", "range", NULL };
	static const char *const required[] = { "name", "p0_w", "s_w", "theta", NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	int rc;
	memset(l, 0, sizeof *l);
	l->range.runs = -1; /* no range: unknown */
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	wc__json_join(p, path, "name");
	if ((rc = wc__json_string(ld, json_object_get(v, "name"), p, 0, l->name, sizeof l->name)))
		return rc;
	if ((x = json_object_get(v, "s_shared_with"))) {
		wc__json_join(p, path, "s_shared_with");
		if ((rc = wc__json_string(ld, x, p, 1, l->s_shared_with, sizeof l->s_shared_with)))
			return rc;
	}
	wc__json_join(p, path, "p0_w");
	if ((rc = read_param(ld, json_object_get(v, "p0_w"), p, 0, &l->p0)))
		return rc;
	wc__json_join(p, path, "s_w");
	if ((rc = read_param(ld, json_object_get(v, "s_w"), p, 1, &l->s)))
		return rc;
	wc__json_join(p, path, "theta");
	if ((rc = read_param(ld, json_object_get(v, "theta"), p, 0, &l->theta)))
		return rc;
	wc__json_join(p, path, "floor_logit");
	if ((rc = read_param(ld, json_object_get(v, "floor_logit"), p, 1, &l->floor_logit)))
		return rc; /* absent key reads as null: NaN */
	if ((x = json_object_get(v, "range")) && !json_is_null(x)) {
		wc__json_join(p, path, "range");
		if ((rc = wc__params_read_range(ld, x, p, &l->range)))
			return rc;
	}
	return WC_OK;
}

static int
read_term(wc__json_loader *ld, json_t *v, const char *path, wc_precision_term *t)
{
	static const char *const allowed[] = { "setting", "precision", "level", "placement", "value",
	                                       "p_value", "pairs", "kept", NULL };
	static const char *const required[] = { "setting", "precision", "placement", "kept", NULL };
	char p[WC__JSON_PATH_MAX], buf[WC_NAME_MAX];
	json_t *x;
	long long n;
	int rc;
	memset(t, 0, sizeof *t);
	t->p_value = NAN;
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	wc__json_join(p, path, "setting");
	if ((rc = wc__json_string(ld, json_object_get(v, "setting"), p, 0, buf, sizeof buf)))
		return rc;
	if (strcmp(buf, wc_setting_name(WC_SETTING_WEIGHTS)) == 0)
		t->setting = WC_SETTING_WEIGHTS;
	else if (strcmp(buf, wc_setting_name(WC_SETTING_KV)) == 0)
		t->setting = WC_SETTING_KV;
	else
		return wc__json_fail(ld, p, "unknown setting '%s' (weights, kv_cache)", buf);
	wc__json_join(p, path, "precision");
	if ((rc = wc__json_string(ld, json_object_get(v, "precision"), p, 0, buf, sizeof buf)))
		return rc;
	if (wc_precision_from_name(buf, &t->precision) != WC_OK)
		return wc__json_fail(ld, p, "unknown precision '%s' (fp8, int4)", buf);
	if ((x = json_object_get(v, "level"))) {
		wc__json_join(p, path, "level");
		if ((rc = wc__json_string(ld, x, p, 1, t->level, sizeof t->level)))
			return rc;
	}
	wc__json_join(p, path, "placement");
	if ((rc = wc__json_string(ld, json_object_get(v, "placement"), p, 0, buf, sizeof buf)))
		return rc;
	if (wc_placement_from_name(buf, &t->placement) != WC_OK)
		return wc__json_fail(ld, p, "unknown placement '%s' (inside_z, on_s, none)", buf);
	wc__json_join(p, path, "value");
	if ((rc = read_param(ld, json_object_get(v, "value"), p, 1, &t->value)))
		return rc;
	if ((x = json_object_get(v, "p_value")) && !json_is_null(x)) {
		wc__json_join(p, path, "p_value");
		if ((rc = wc__json_number(ld, x, p, &t->p_value)))
			return rc;
	}
	if ((x = json_object_get(v, "pairs"))) {
		wc__json_join(p, path, "pairs");
		if ((rc = wc__json_int(ld, x, p, 0, 1000000, &n)))
			return rc;
		t->pairs = (int)n;
	}
	wc__json_join(p, path, "kept");
	x = json_object_get(v, "kept");
	if (!json_is_boolean(x))
		return wc__json_fail(ld, p, "expected a boolean, got %s", wc_json_type_name(x));
	t->kept = json_is_true(x);
	return WC_OK;
}

static int
read_provenance(wc__json_loader *ld, json_t *v, const char *path, int version, wc_params *out)
{
	static const char *const allowed[] = { "input_sha256", "runs", "seed", "bootstrap",
	                                       "tool_version", "created_utc", "residual_rms",
	                                       "precision_mode", "calibration", "row_hashes", "run_hashes",
	                                       "idle_row_hashes", NULL };
	static const char *const record[] = { "fitted_on", "input_sha256", "runs", "seed", "bootstrap",
	                                      "tool_version", "created_utc", "row_hashes", NULL };
	static const char *const none[] = { NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	long long n;
	int rc;
	if ((rc = wc__json_check_keys(ld, v, path, allowed, none)) ||
	    (rc = wc__json_optional_string(ld, v, path, "input_sha256", out->input_sha256, sizeof out->input_sha256)) ||
	    (rc = wc__json_optional_string(ld, v, path, "tool_version", out->tool_version, sizeof out->tool_version)) ||
	    (rc = wc__json_optional_string(ld, v, path, "created_utc", out->created_utc, sizeof out->created_utc)))
		return rc;
	if ((rc = wc__params_read_count(ld, v, path, "runs", &out->runs)) ||
	    (rc = wc__params_read_seed(ld, v, path, 0, &out->seed)))
		return rc;
	if ((rc = wc__params_read_fit_hashes(ld, v, path, out)))
		return rc;
	if ((x = json_object_get(v, "bootstrap"))) {
		wc__json_join(p, path, "bootstrap");
		if ((rc = wc__json_int(ld, x, p, 0, 10000000, &n)))
			return rc;
		out->bootstrap = (int)n;
	}
	if ((x = json_object_get(v, "residual_rms")) && !json_is_null(x)) {
		wc__json_join(p, path, "residual_rms");
		/* its range with the law's (params_ranges.c) */
		if ((rc = wc__json_number(ld, x, p, &out->residual_rms)))
			return rc;
	}
	if ((x = json_object_get(v, "precision_mode")) && !json_is_null(x)) {
		char mode[16];
		wc__json_join(p, path, "precision_mode");
		if (version < 9)
			return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V9);
		if ((rc = wc__json_string(ld, x, p, 1, mode, sizeof mode)))
			return rc;
		if (wc_precision_mode_from_name(mode, &out->precision_mode) != WC_OK)
			return wc__json_fail(ld, p, "expected paired, all, pooled, as-bf16 or none, got \"%s\"", mode);
	}
	if ((x = json_object_get(v, "calibration")) && !json_is_null(x)) {
		wc__json_join(p, path, "calibration");
		if ((rc = wc__params_read_record(ld, x, p, record, &out->calibration)))
			return rc;
		return wc__params_read_row_hashes(ld, x, p, out);
	}
	return WC_OK;
}

/* {"names": [...], "values": [[...], ...]} into a draw matrix. */
int
wc__params_read_draws(wc__json_loader *ld, json_t *v, const char *path, wc_draws *out)
{
	static const char *const keys[] = { "names", "values", NULL };
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX];
	char (*names)[WC_LABEL_MAX] = NULL;
	double *values = NULL;
	int rc;
	if ((rc = wc__json_check_keys(ld, v, path, keys, keys)))
		return rc;
	json_t *jn = json_object_get(v, "names"), *jv = json_object_get(v, "values");
	wc__json_join(p, path, "names");
	if (!json_is_array(jn) || json_array_size(jn) == 0 || json_array_size(jn) > DRAW_NAMES_MAX)
		return wc__json_fail(ld, p, "expected a non-empty array of at most %d names", DRAW_NAMES_MAX);
	wc__json_join(q, path, "values");
	/* No command writes more draws than it may ask for (models/limits.h). */
	if (!json_is_array(jv) || json_array_size(jv) == 0 || json_array_size(jv) > WC_BOOTSTRAP_MAX)
		return wc__json_fail(ld, q, "expected a non-empty array of at most %d draws", WC_BOOTSTRAP_MAX);
	size_t k = json_array_size(jn), b = json_array_size(jv);
	int ok;
	size_t cells = wc_size_mul(k, b, &ok);
	names = wc_alloc_zeroed(k, sizeof *names);
	values = ok ? wc_alloc_array(cells, sizeof *values) : NULL;
	if (!names || !values) {
		rc = wc_error_set_path(ld->err, WC_ENOMEM, ld->source, ": out of memory for draws");
		goto done;
	}
	for (size_t j = 0; j < k; j++) {
		char pj[WC__JSON_PATH_MAX];
		wc__json_join_index(pj, p, j);
		if ((rc = wc__json_string(ld, json_array_get(jn, j), pj, 0, names[j], WC_LABEL_MAX)))
			goto done;
		/* A name twice is two columns for one parameter: which one a
		 * prediction used would be the loader's choice, not the file's. */
		for (size_t i = 0; i < j; i++)
			if (strcasecmp(names[i], names[j]) == 0) {
				rc = wc__json_fail(ld, pj, "duplicate name '%s' (already at index %zu)", names[j], i);
				goto done;
			}
	}
	for (size_t r = 0; r < b; r++) {
		char pr[WC__JSON_PATH_MAX], pe[WC__JSON_PATH_MAX];
		json_t *row = json_array_get(jv, r);
		wc__json_join_index(pr, q, r);
		if (!json_is_array(row) || json_array_size(row) != k) {
			rc = wc__json_fail(ld, pr, "expected an array of %zu numbers (one per name)", k);
			goto done;
		}
		for (size_t j = 0; j < k; j++) {
			wc__json_join_index(pe, pr, j);
			if ((rc = wc__json_number(ld, json_array_get(row, j), pe, &values[r * k + j])))
				goto done;
		}
	}
	rc = wc_draws_set(out, (int)b, (int)k, (const char (*)[WC_LABEL_MAX])names, values, ld->err);
done:
	free(names);
	free(values);
	return rc;
}

static int
read_draws(wc__json_loader *ld, json_t *v, const char *path, wc_params *out)
{
	wc_draws d = WC_DRAWS_INIT;
	int rc = wc__params_read_draws(ld, v, path, &d);
	if (rc == WC_OK)
		rc = wc_params_set_draws(out, d.n, d.k, (const char (*)[WC_LABEL_MAX])d.names, d.values,
		                         ld->err);
	wc_draws_clear(&d);
	return rc;
}

/* The schema tag, and what older versions may not carry. */
static int
read_version(wc__json_loader *ld, json_t *root, int *version)
{
	char buf[64];
	int rc;
	if ((rc = wc__json_string(ld, json_object_get(root, "schema"), "/schema", 0, buf, sizeof buf)))
		return rc;
	/* Older schemas keep loading, each without what a later one added
	 * (data/params_file.h lists them; their readers refuse them earlier). */
	static const char *const schemas[] = {
		WC_PARAMS_SCHEMA_V1,  WC_PARAMS_SCHEMA_V2,  WC_PARAMS_SCHEMA_V3,  WC_PARAMS_SCHEMA_V4,  WC_PARAMS_SCHEMA_V5,
		WC_PARAMS_SCHEMA_V6,  WC_PARAMS_SCHEMA_V7,  WC_PARAMS_SCHEMA_V8,  WC_PARAMS_SCHEMA_V9,  WC_PARAMS_SCHEMA_V10,
		WC_PARAMS_SCHEMA_V11, WC_PARAMS_SCHEMA_V12, WC_PARAMS_SCHEMA_V13, WC_PARAMS_SCHEMA_V14, WC_PARAMS_SCHEMA_V15,
		WC_PARAMS_SCHEMA_V16, WC_PARAMS_SCHEMA_V17, WC_PARAMS_SCHEMA_V18, WC_PARAMS_SCHEMA_V19
	};
	*version = 0;
	for (int v = 1; v <= (int)(sizeof schemas / sizeof *schemas); v++)
		*version = strcmp(buf, schemas[v - 1]) == 0 ? v : *version;
	/* The versions read as a range: listed one by one they ran past the
	 * reason's room, and the name given was cut off. */
	if (!*version)
		return wc__json_fail(ld, "/schema", "expected \"%s\" (written) or an earlier one it reads, \"%s\" "
		                     "to \"%s\", got \"%.64s\"", WC_PARAMS_SCHEMA, WC_PARAMS_SCHEMA_V1,
		                     WC_PARAMS_SCHEMA_V18, buf);
	if (*version == 1 && (json_object_get(root, "capacity") || json_object_get(root, "finetune") ||
	                      json_object_get(root, "response")))
		return wc__json_fail(ld, "/schema", "sections need \"%s\" or later", WC_PARAMS_SCHEMA_V2);
	json_t *prov = json_object_get(root, "provenance");
	if (*version < 3 && (json_object_get(root, "model_terms") ||
	                     (json_is_object(prov) && json_object_get(prov, "residual_rms"))))
		return wc__json_fail(ld, "/schema", "model terms and residual_rms need \"%s\" or later",
		                     WC_PARAMS_SCHEMA_V3);
	/* Before version 5 the fine-tuning law's e0 was the whole job's. */
	json_t *ft = json_object_get(root, "finetune");
	json_t *ftc = json_is_object(ft) ? json_object_get(ft, "compute") : NULL;
	if (*version < 5 && json_is_object(ft) &&
	    (json_object_get(ft, "calibrated") ||
	     (json_is_object(ftc) && (json_object_get(ftc, "e0_per") || json_object_get(ftc, "residual_rms")))))
		return wc__json_fail(ld, "/schema", "finetune's e0_per, residual_rms and calibrated need \"%s\" or later",
		                     WC_PARAMS_SCHEMA_V5);
	return WC_OK;
}

/* The structure terms (schema 7) the shared object carries, if any. */
static int
read_law_terms(wc__json_loader *ld, json_t *x, int version, wc_params *out)
{
	char p[WC__JSON_PATH_MAX];
	int rc;
	out->law_terms = 0;
	for (int k = 0; k < WC_LT_COUNT; k++) {
		const char *name = wc_law_term_name((wc_law_term)k);
		out->law_term[k] = (wc_param){ 0.0, NAN, NAN, WC_SRC_ASSUMED };
		if (!json_object_get(x, name))
			continue;
		wc__json_join(p, "/shared", name);
		if (version < 7)
			return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V7);
		if ((rc = read_param(ld, json_object_get(x, name), p, 0, &out->law_term[k])))
			return rc;
		out->law_terms |= WC_LT_BIT(k);
	}
	return WC_OK;
}

/* The shared parameters; phi (schema 4) defaults to 1, assumed. */
static int
read_shared(wc__json_loader *ld, json_t *x, int version, wc_params *out)
{
	static const char *const shared_keys[] = { "delta", "gamma1", "gamma2", "kappa", "phi", "arch_moe",
	                                           "arch_hybrid", "log_tp", "prompt_share", NULL };
	static const char *const shared_required[] = { "delta", "gamma1", "gamma2", "kappa", NULL };
	char p[WC__JSON_PATH_MAX];
	int rc;
	if ((rc = wc__json_check_keys(ld, x, "/shared", shared_keys, shared_required)))
		return rc;
	out->phi = (wc_param){ 1.0, NAN, NAN, WC_SRC_ASSUMED };
	if (json_object_get(x, "phi")) {
		if (version < 4)
			return wc__json_fail(ld, "/shared/phi", "needs \"%s\" or later", WC_PARAMS_SCHEMA_V4);
		if ((rc = read_param(ld, json_object_get(x, "phi"), "/shared/phi", 0, &out->phi)))
			return rc;
	}
	wc_param *shared[4] = { &out->delta, &out->gamma1, &out->gamma2, &out->kappa };
	for (int i = 0; i < 4; i++) {
		wc__json_join(p, "/shared", shared_keys[i]);
		if ((rc = read_param(ld, json_object_get(x, shared_keys[i]), p, 0, shared[i])))
			return rc;
	}
	return read_law_terms(ld, x, version, out);
}

static int
load_root(wc__json_loader *ld, json_t *root, wc_params *out)
{
	static const char *const allowed[] = { "schema", "name", "form", "clock_ref_mhz", "levels",
	                                       "shared", "precision_terms", "model_terms",
	                                       "provenance", "draws", "capacity", "finetune",
	                                       "response", "prediction_error", "prediction_errors", NULL };
	static const char *const required[] = { "schema", "name", "form", "levels", "shared", NULL };
	char buf[64], p[WC__JSON_PATH_MAX];
	json_t *x;
	int rc, version;
	if ((rc = wc__json_check_keys(ld, root, "", allowed, required)))
		return rc;
	if ((rc = read_version(ld, root, &version)))
		return rc;
	ld->version = version;
	if ((rc = wc__json_string(ld, json_object_get(root, "name"), "/name", 0, out->name, sizeof out->name)))
		return rc;
	if ((rc = wc__json_string(ld, json_object_get(root, "form"), "/form", 0, buf, sizeof buf)))
		return rc;
	if (wc_form_from_name(buf, &out->form) != WC_OK)
		return wc__json_fail(ld, "/form", "unknown form '%s'", buf);
	if (version < 4 && !wc_form_is_published(out->form))
		return wc__json_fail(ld, "/form", "form '%s' needs \"%s\" or later", buf, WC_PARAMS_SCHEMA_V4);
	out->clock_ref_mhz = WC_LAW_REF_CLOCK_MHZ;
	if ((x = json_object_get(root, "clock_ref_mhz"))) {
		if ((rc = wc__json_number(ld, x, "/clock_ref_mhz", &out->clock_ref_mhz)))
			return rc;
	}
	x = json_object_get(root, "levels");
	if (!json_is_array(x) || json_array_size(x) < 1 || json_array_size(x) > WC_MAX_LEVELS)
		return wc__json_fail(ld, "/levels", "expected an array of 1 to %d levels", WC_MAX_LEVELS);
	for (size_t i = 0; i < json_array_size(x); i++) {
		wc__json_join_index(p, "/levels", i);
		if ((rc = read_level(ld, json_array_get(x, i), p, &out->levels[i])))
			return rc;
		out->n_levels++;
	}
	if ((rc = read_shared(ld, json_object_get(root, "shared"), version, out)))
		return rc;
	if ((x = json_object_get(root, "precision_terms"))) {
		if (!json_is_array(x) || json_array_size(x) > WC_MAX_TERMS)
			return wc__json_fail(ld, "/precision_terms", "expected an array of at most %d terms", WC_MAX_TERMS);
		for (size_t i = 0; i < json_array_size(x); i++) {
			wc__json_join_index(p, "/precision_terms", i);
			if ((rc = read_term(ld, json_array_get(x, i), p, &out->terms[i])))
				return rc;
			out->n_terms++;
		}
	}
	if ((x = json_object_get(root, "model_terms")) && !json_is_null(x) &&
	    (rc = wc__params_read_model_terms(ld, x, "/model_terms", out)))
		return rc;
	if ((x = json_object_get(root, "provenance")) && !json_is_null(x)) {
		if ((rc = read_provenance(ld, x, "/provenance", version, out)))
			return rc;
	}
	if ((x = json_object_get(root, "draws")) && !json_is_null(x)) {
		if ((rc = read_draws(ld, x, "/draws", out)))
			return rc;
	}
	if ((x = json_object_get(root, "capacity")) && !json_is_null(x) &&
	    (rc = wc__params_read_capacity(ld, x, "/capacity", &out->capacity)))
		return rc;
	if ((x = json_object_get(root, "finetune")) && !json_is_null(x) &&
	    (rc = wc__params_read_finetune(ld, x, "/finetune", &out->finetune)))
		return rc;
	/* A file older than version 8 has no dynamic scale: a reader of that
	 * version would not know it, so such a file may not carry one. */
	if ((x = json_object_get(root, "response")) && json_is_object(x) && version < 8 &&
	    json_object_get(x, "dynamic_scale"))
		return wc__json_fail(ld, "/response/dynamic_scale", "needs \"%s\" or later", WC_PARAMS_SCHEMA_V8);
	if ((x = json_object_get(root, "response")) && !json_is_null(x) &&
	    (rc = wc__params_read_response(ld, x, "/response", out)))
		return rc;
	if ((x = json_object_get(root, "prediction_error")) && !json_is_null(x)) {
		if (version < 5)
			return wc__json_fail(ld, "/prediction_error", "needs \"%s\"", WC_PARAMS_SCHEMA_V5);
		if ((rc = wc__params_read_pred_error(ld, x, "/prediction_error", &out->pred_error)))
			return rc;
	}
	if ((x = json_object_get(root, "prediction_errors")) && !json_is_null(x)) {
		if (version < 6)
			return wc__json_fail(ld, "/prediction_errors", "needs \"%s\" or later", WC_PARAMS_SCHEMA_V6);
		if ((rc = wc__params_read_quantity_errors(ld, x, "/prediction_errors", out->quantity_error)))
			return rc;
	}
	return WC_OK;
}

int
wc_params_load_buffer(const char *buf, size_t len, const char *source, wc_params *out,
                      wc_error *err)
{
	/* the text kept: a refused value is named file:line:column */
	wc__json_loader ld = { .source = source ? source : "params", .err = err, .text = buf, .text_len = len };
	json_error_t jerr;
	wc_params_clear(out);
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return wc_json_error_set(err, ld.source, "malformed JSON: ", &jerr, buf, len);
	int rc = load_root(&ld, root, out);
	if (rc == WC_OK) {
		wc_error verr;
		/* the ranges first: a value outside them is named at its leaf
		 * with the value ("p0_w/value: -50 is outside ..."), as one too
		 * large is, before the law's own checks */
		if ((rc = wc__params_check_ranges(out, &verr)) != WC_OK ||
		    (rc = wc_params_validate(out, &verr)) != WC_OK ||
		    (rc = wc__params_check_intervals(root, &verr)) != WC_OK)
			rc = wc__json_fail_said(&ld, rc, verr.msg);
	}
	json_decref(root);
	if (rc != WC_OK)
		wc_params_clear(out);
	return rc;
}

int
wc_params_load_file(const char *path, wc_params *out, wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, WC_PARAMS_MAX_BYTES, &buf, &len, err);
	if (rc) {
		wc_params_clear(out);
		return rc;
	}
	rc = wc_params_load_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

/*
 * Parameter files (SPEC §8): JSON schema "wattcast.params/1".
 *
 * Loading is strict: every object lists its allowed and required keys, and
 * each refusal names the JSON path (RFC 6901 pointer) and the reason, so a
 * user editing a frozen law by hand finds the mistake at once. Dumping uses
 * 17 significant digits so that load(dump(p)) gives back the same doubles;
 * NaN (no value / no interval) is written as null or left out.
 */
#include "data/data.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAMS_MAX_BYTES (64u << 20)
#define PATH_MAX_LEN 160

typedef struct {
	const char *source;
	wc_error *err;
} loader;

static int
fail(loader *ld, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(loader *ld, const char *path, const char *fmt, ...)
{
	char reason[192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	return wc_error_set(ld->err, WC_EINVAL, "%s: %s: %s", ld->source, path[0] ? path : "/", reason);
}

const char *
wc_json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "number";
	case JSON_TRUE:
	case JSON_FALSE: return "boolean";
	default: return "null";
	}
}

static int
in_list(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(key, *list) == 0)
			return 1;
	return 0;
}

/* Refuse keys outside `allowed` and report the first missing `required`. */
static int
check_keys(loader *ld, json_t *obj, const char *path, const char *const *allowed,
           const char *const *required)
{
	const char *key;
	json_t *v;
	if (!json_is_object(obj))
		return fail(ld, path, "expected an object, got %s", wc_json_type_name(obj));
	json_object_foreach(obj, key, v) {
		if (!in_list(key, allowed))
			return fail(ld, path, "unknown key '%s'", key);
	}
	for (; *required; required++)
		if (!json_object_get(obj, *required))
			return fail(ld, path, "missing required key '%s'", *required);
	return WC_OK;
}

static void
join(char *out, const char *path, const char *key)
{
	snprintf(out, PATH_MAX_LEN, "%s/%s", path, key);
}

static void
join_index(char *out, const char *path, size_t i)
{
	snprintf(out, PATH_MAX_LEN, "%s/%zu", path, i);
}

static int
read_number(loader *ld, json_t *v, const char *path, double *out)
{
	if (!json_is_number(v))
		return fail(ld, path, "expected a number, got %s", wc_json_type_name(v));
	*out = json_number_value(v);
	if (!isfinite(*out))
		return fail(ld, path, "number is not finite");
	return WC_OK;
}

static int
read_int(loader *ld, json_t *v, const char *path, long long lo, long long hi, long long *out)
{
	if (!json_is_integer(v))
		return fail(ld, path, "expected an integer, got %s", wc_json_type_name(v));
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return fail(ld, path, "integer %lld outside [%lld, %lld]", *out, lo, hi);
	return WC_OK;
}

/* String into a fixed buffer; NULL JSON allowed when `nullable`. */
static int
read_string(loader *ld, json_t *v, const char *path, int nullable, char *out, size_t cap)
{
	if (nullable && json_is_null(v)) {
		out[0] = '\0';
		return WC_OK;
	}
	if (!json_is_string(v))
		return fail(ld, path, "expected a string%s, got %s", nullable ? " or null" : "", wc_json_type_name(v));
	if (json_string_length(v) >= cap)
		return fail(ld, path, "string longer than %zu characters", cap - 1);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return WC_OK;
}

static int
read_pair(loader *ld, json_t *v, const char *path, double *lo, double *hi)
{
	char p[PATH_MAX_LEN];
	int rc;
	if (!json_is_array(v) || json_array_size(v) != 2)
		return fail(ld, path, "expected an array of two numbers");
	join_index(p, path, 0);
	if ((rc = read_number(ld, json_array_get(v, 0), p, lo)))
		return rc;
	join_index(p, path, 1);
	if ((rc = read_number(ld, json_array_get(v, 1), p, hi)))
		return rc;
	if (*lo > *hi)
		return fail(ld, path, "lower bound %g above upper bound %g", *lo, *hi);
	return WC_OK;
}

/* {"value": x, "ci95": [lo, hi], "source": "..."}; null when `nullable`. */
static int
read_param(loader *ld, json_t *v, const char *path, int nullable, wc_param *out)
{
	static const char *const allowed[] = { "value", "ci95", "source", NULL };
	static const char *const required[] = { "value", "source", NULL };
	char p[PATH_MAX_LEN], src[16];
	json_t *ci;
	int rc;
	out->value = out->lo = out->hi = NAN;
	out->source = WC_SRC_ASSUMED;
	if (nullable && json_is_null(v))
		return WC_OK;
	if ((rc = check_keys(ld, v, path, allowed, required)))
		return rc;
	join(p, path, "value");
	if ((rc = read_number(ld, json_object_get(v, "value"), p, &out->value)))
		return rc;
	join(p, path, "source");
	if ((rc = read_string(ld, json_object_get(v, "source"), p, 0, src, sizeof src)))
		return rc;
	if (wc_source_from_name(src, &out->source) != WC_OK)
		return fail(ld, p, "unknown source '%s' (published, fitted, measured, estimated, assumed)", src);
	if ((ci = json_object_get(v, "ci95")) && !json_is_null(ci)) {
		join(p, path, "ci95");
		if ((rc = read_pair(ld, ci, p, &out->lo, &out->hi)))
			return rc;
	}
	return WC_OK;
}

static int
read_range(loader *ld, json_t *v, const char *path, wc_range *r)
{
	static const char *const allowed[] = { "active_params_b", "running", "tp",
	                                       "sm_clock_mhz", "runs", NULL };
	static const char *const none[] = { NULL };
	char p[PATH_MAX_LEN];
	json_t *x;
	long long n;
	double lo, hi;
	int rc;
	memset(r, 0, sizeof *r);
	if ((rc = check_keys(ld, v, path, allowed, none)))
		return rc;
	if ((x = json_object_get(v, "active_params_b")) && !json_is_null(x)) {
		join(p, path, "active_params_b");
		if ((rc = read_pair(ld, x, p, &r->active_b_min, &r->active_b_max)))
			return rc;
	}
	if ((x = json_object_get(v, "running")) && !json_is_null(x)) {
		join(p, path, "running");
		if ((rc = read_pair(ld, x, p, &r->running_min, &r->running_max)))
			return rc;
	}
	if ((x = json_object_get(v, "sm_clock_mhz")) && !json_is_null(x)) {
		join(p, path, "sm_clock_mhz");
		if ((rc = read_pair(ld, x, p, &r->clock_min, &r->clock_max)))
			return rc;
	}
	if ((x = json_object_get(v, "tp")) && !json_is_null(x)) {
		join(p, path, "tp");
		if ((rc = read_pair(ld, x, p, &lo, &hi)))
			return rc;
		if (lo < 1 || hi > 4096 || lo != floor(lo) || hi != floor(hi))
			return fail(ld, p, "expected whole numbers between 1 and 4096");
		r->tp_min = (int)lo;
		r->tp_max = (int)hi;
	}
	if ((x = json_object_get(v, "runs"))) {
		join(p, path, "runs");
		if ((rc = read_int(ld, x, p, 0, 100000000, &n)))
			return rc;
		r->runs = (int)n;
	}
	return WC_OK;
}

static int
read_level(loader *ld, json_t *v, const char *path, wc_level *l)
{
	static const char *const allowed[] = { "name", "s_shared_with", "p0_w", "s_w", "theta",
	                                       "floor_logit", "range", NULL };
	static const char *const required[] = { "name", "p0_w", "s_w", "theta", NULL };
	char p[PATH_MAX_LEN];
	json_t *x;
	int rc;
	memset(l, 0, sizeof *l);
	if ((rc = check_keys(ld, v, path, allowed, required)))
		return rc;
	join(p, path, "name");
	if ((rc = read_string(ld, json_object_get(v, "name"), p, 0, l->name, sizeof l->name)))
		return rc;
	if ((x = json_object_get(v, "s_shared_with"))) {
		join(p, path, "s_shared_with");
		if ((rc = read_string(ld, x, p, 1, l->s_shared_with, sizeof l->s_shared_with)))
			return rc;
	}
	join(p, path, "p0_w");
	if ((rc = read_param(ld, json_object_get(v, "p0_w"), p, 0, &l->p0)))
		return rc;
	join(p, path, "s_w");
	if ((rc = read_param(ld, json_object_get(v, "s_w"), p, 1, &l->s)))
		return rc;
	join(p, path, "theta");
	if ((rc = read_param(ld, json_object_get(v, "theta"), p, 0, &l->theta)))
		return rc;
	join(p, path, "floor_logit");
	if ((rc = read_param(ld, json_object_get(v, "floor_logit"), p, 1, &l->floor_logit)))
		return rc; /* absent key reads as null: NaN */
	if ((x = json_object_get(v, "range")) && !json_is_null(x)) {
		join(p, path, "range");
		if ((rc = read_range(ld, x, p, &l->range)))
			return rc;
	}
	return WC_OK;
}

static int
read_term(loader *ld, json_t *v, const char *path, wc_precision_term *t)
{
	static const char *const allowed[] = { "setting", "precision", "level", "placement", "value",
	                                       "p_value", "pairs", "kept", NULL };
	static const char *const required[] = { "setting", "precision", "placement", "kept", NULL };
	char p[PATH_MAX_LEN], buf[WC_NAME_MAX];
	json_t *x;
	long long n;
	int rc;
	memset(t, 0, sizeof *t);
	t->p_value = NAN;
	if ((rc = check_keys(ld, v, path, allowed, required)))
		return rc;
	join(p, path, "setting");
	if ((rc = read_string(ld, json_object_get(v, "setting"), p, 0, buf, sizeof buf)))
		return rc;
	if (strcmp(buf, "weights") == 0)
		t->setting = WC_SETTING_WEIGHTS;
	else if (strcmp(buf, "kv_cache") == 0)
		t->setting = WC_SETTING_KV;
	else
		return fail(ld, p, "unknown setting '%s' (weights, kv_cache)", buf);
	join(p, path, "precision");
	if ((rc = read_string(ld, json_object_get(v, "precision"), p, 0, buf, sizeof buf)))
		return rc;
	if (wc_precision_from_name(buf, &t->precision) != WC_OK)
		return fail(ld, p, "unknown precision '%s' (fp8, int4)", buf);
	if ((x = json_object_get(v, "level"))) {
		join(p, path, "level");
		if ((rc = read_string(ld, x, p, 1, t->level, sizeof t->level)))
			return rc;
	}
	join(p, path, "placement");
	if ((rc = read_string(ld, json_object_get(v, "placement"), p, 0, buf, sizeof buf)))
		return rc;
	if (strcmp(buf, "inside_z") == 0)
		t->placement = WC_PLACE_INSIDE_Z;
	else if (strcmp(buf, "on_s") == 0)
		t->placement = WC_PLACE_ON_S;
	else if (strcmp(buf, "none") == 0)
		t->placement = WC_PLACE_NONE;
	else
		return fail(ld, p, "unknown placement '%s' (inside_z, on_s, none)", buf);
	join(p, path, "value");
	if ((rc = read_param(ld, json_object_get(v, "value"), p, 1, &t->value)))
		return rc;
	if ((x = json_object_get(v, "p_value")) && !json_is_null(x)) {
		join(p, path, "p_value");
		if ((rc = read_number(ld, x, p, &t->p_value)))
			return rc;
	}
	if ((x = json_object_get(v, "pairs"))) {
		join(p, path, "pairs");
		if ((rc = read_int(ld, x, p, 0, 1000000, &n)))
			return rc;
		t->pairs = (int)n;
	}
	join(p, path, "kept");
	x = json_object_get(v, "kept");
	if (!json_is_boolean(x))
		return fail(ld, p, "expected a boolean, got %s", wc_json_type_name(x));
	t->kept = json_is_true(x);
	return WC_OK;
}

static int
read_provenance(loader *ld, json_t *v, const char *path, wc_params *out)
{
	static const char *const allowed[] = { "input_sha256", "runs", "seed", "bootstrap",
	                                       "tool_version", "created_utc", NULL };
	static const char *const none[] = { NULL };
	char p[PATH_MAX_LEN];
	json_t *x;
	long long n;
	int rc;
	if ((rc = check_keys(ld, v, path, allowed, none)))
		return rc;
	if ((x = json_object_get(v, "input_sha256"))) {
		join(p, path, "input_sha256");
		if ((rc = read_string(ld, x, p, 1, out->input_sha256, sizeof out->input_sha256)))
			return rc;
	}
	if ((x = json_object_get(v, "tool_version"))) {
		join(p, path, "tool_version");
		if ((rc = read_string(ld, x, p, 1, out->tool_version, sizeof out->tool_version)))
			return rc;
	}
	if ((x = json_object_get(v, "created_utc"))) {
		join(p, path, "created_utc");
		if ((rc = read_string(ld, x, p, 1, out->created_utc, sizeof out->created_utc)))
			return rc;
	}
	if ((x = json_object_get(v, "runs"))) {
		join(p, path, "runs");
		if ((rc = read_int(ld, x, p, 0, 100000000, &n)))
			return rc;
		out->runs = (int)n;
	}
	if ((x = json_object_get(v, "bootstrap"))) {
		join(p, path, "bootstrap");
		if ((rc = read_int(ld, x, p, 0, 10000000, &n)))
			return rc;
		out->bootstrap = (int)n;
	}
	if ((x = json_object_get(v, "seed"))) {
		join(p, path, "seed");
		if ((rc = read_int(ld, x, p, 0, INT64_MAX, &n)))
			return rc;
		out->seed = (uint64_t)n;
	}
	return WC_OK;
}

static int
read_draws(loader *ld, json_t *v, const char *path, wc_params *out)
{
	static const char *const keys[] = { "names", "values", NULL };
	char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
	char (*names)[WC_NAME_MAX] = NULL;
	double *values = NULL;
	int rc;
	if ((rc = check_keys(ld, v, path, keys, keys)))
		return rc;
	json_t *jn = json_object_get(v, "names"), *jv = json_object_get(v, "values");
	join(p, path, "names");
	if (!json_is_array(jn) || json_array_size(jn) == 0 || json_array_size(jn) > 4096)
		return fail(ld, p, "expected a non-empty array of at most 4096 names");
	join(q, path, "values");
	if (!json_is_array(jv) || json_array_size(jv) == 0 || json_array_size(jv) > 1000000)
		return fail(ld, q, "expected a non-empty array of draws");
	size_t k = json_array_size(jn), b = json_array_size(jv);
	names = calloc(k, sizeof *names);
	values = malloc(k * b * sizeof *values);
	if (!names || !values) {
		rc = wc_error_set(ld->err, WC_ENOMEM, "%s: out of memory for draws", ld->source);
		goto done;
	}
	for (size_t j = 0; j < k; j++) {
		char pj[PATH_MAX_LEN];
		join_index(pj, p, j);
		if ((rc = read_string(ld, json_array_get(jn, j), pj, 0, names[j], WC_NAME_MAX)))
			goto done;
	}
	for (size_t r = 0; r < b; r++) {
		char pr[PATH_MAX_LEN], pe[PATH_MAX_LEN];
		json_t *row = json_array_get(jv, r);
		join_index(pr, q, r);
		if (!json_is_array(row) || json_array_size(row) != k) {
			rc = fail(ld, pr, "expected an array of %zu numbers (one per name)", k);
			goto done;
		}
		for (size_t j = 0; j < k; j++) {
			join_index(pe, pr, j);
			if ((rc = read_number(ld, json_array_get(row, j), pe, &values[r * k + j])))
				goto done;
		}
	}
	rc = wc_params_set_draws(out, (int)b, (int)k, (const char (*)[WC_NAME_MAX])names, values, ld->err);
done:
	free(names);
	free(values);
	return rc;
}

static int
load_root(loader *ld, json_t *root, wc_params *out)
{
	static const char *const allowed[] = { "schema", "name", "form", "clock_ref_mhz", "levels",
	                                       "shared", "precision_terms", "provenance", "draws", NULL };
	static const char *const required[] = { "schema", "name", "form", "levels", "shared", NULL };
	static const char *const shared_keys[] = { "delta", "gamma1", "gamma2", "kappa", NULL };
	char buf[64], p[PATH_MAX_LEN];
	json_t *x;
	int rc;
	if ((rc = check_keys(ld, root, "", allowed, required)))
		return rc;
	if ((rc = read_string(ld, json_object_get(root, "schema"), "/schema", 0, buf, sizeof buf)))
		return rc;
	if (strcmp(buf, WC_PARAMS_SCHEMA) != 0)
		return fail(ld, "/schema", "expected \"%s\", got \"%s\"", WC_PARAMS_SCHEMA, buf);
	if ((rc = read_string(ld, json_object_get(root, "name"), "/name", 0, out->name, sizeof out->name)))
		return rc;
	if ((rc = read_string(ld, json_object_get(root, "form"), "/form", 0, buf, sizeof buf)))
		return rc;
	if (wc_form_from_name(buf, &out->form) != WC_OK)
		return fail(ld, "/form", "unknown form '%s'", buf);
	out->clock_ref_mhz = 1980.0;
	if ((x = json_object_get(root, "clock_ref_mhz"))) {
		if ((rc = read_number(ld, x, "/clock_ref_mhz", &out->clock_ref_mhz)))
			return rc;
	}
	x = json_object_get(root, "levels");
	if (!json_is_array(x) || json_array_size(x) < 1 || json_array_size(x) > WC_MAX_LEVELS)
		return fail(ld, "/levels", "expected an array of 1 to %d levels", WC_MAX_LEVELS);
	for (size_t i = 0; i < json_array_size(x); i++) {
		join_index(p, "/levels", i);
		if ((rc = read_level(ld, json_array_get(x, i), p, &out->levels[i])))
			return rc;
		out->n_levels++;
	}
	x = json_object_get(root, "shared");
	if ((rc = check_keys(ld, x, "/shared", shared_keys, shared_keys)))
		return rc;
	wc_param *shared[4] = { &out->delta, &out->gamma1, &out->gamma2, &out->kappa };
	for (int i = 0; i < 4; i++) {
		join(p, "/shared", shared_keys[i]);
		if ((rc = read_param(ld, json_object_get(x, shared_keys[i]), p, 0, shared[i])))
			return rc;
	}
	if ((x = json_object_get(root, "precision_terms"))) {
		if (!json_is_array(x) || json_array_size(x) > WC_MAX_TERMS)
			return fail(ld, "/precision_terms", "expected an array of at most %d terms", WC_MAX_TERMS);
		for (size_t i = 0; i < json_array_size(x); i++) {
			join_index(p, "/precision_terms", i);
			if ((rc = read_term(ld, json_array_get(x, i), p, &out->terms[i])))
				return rc;
			out->n_terms++;
		}
	}
	if ((x = json_object_get(root, "provenance")) && !json_is_null(x)) {
		if ((rc = read_provenance(ld, x, "/provenance", out)))
			return rc;
	}
	if ((x = json_object_get(root, "draws")) && !json_is_null(x)) {
		if ((rc = read_draws(ld, x, "/draws", out)))
			return rc;
	}
	return WC_OK;
}

int
wc_params_load_buffer(const char *buf, size_t len, const char *source, wc_params *out,
                      wc_error *err)
{
	loader ld = { source ? source : "params", err };
	json_error_t jerr;
	memset(out, 0, sizeof *out);
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return wc_error_set(err, WC_EPARSE, "%s:%d:%d: malformed JSON: %s", ld.source,
		                    jerr.line, jerr.column, jerr.text);
	int rc = load_root(&ld, root, out);
	json_decref(root);
	if (rc == WC_OK) {
		wc_error verr;
		if ((rc = wc_params_validate(out, &verr)) != WC_OK)
			rc = wc_error_set(err, rc, "%s: /%s", ld.source, verr.msg);
	}
	if (rc != WC_OK)
		wc_params_clear(out);
	return rc;
}

int
wc_params_load_file(const char *path, wc_params *out, wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, PARAMS_MAX_BYTES, &buf, &len, err);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	rc = wc_params_load_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ dump */

static json_t *
number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
param_json(const wc_param *p)
{
	if (!isfinite(p->value))
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "value", json_real(p->value));
	if (isfinite(p->lo) && isfinite(p->hi))
		json_object_set_new(o, "ci95", json_pack("[ff]", p->lo, p->hi));
	json_object_set_new(o, "source", json_string(wc_source_name(p->source)));
	return o;
}

static json_t *
string_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *
range_json(const wc_range *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "active_params_b", r->active_b_max > 0
	                    ? json_pack("[ff]", r->active_b_min, r->active_b_max) : json_null());
	json_object_set_new(o, "running", r->running_max > 0
	                    ? json_pack("[ff]", r->running_min, r->running_max) : json_null());
	json_object_set_new(o, "tp", r->tp_max > 0
	                    ? json_pack("[II]", (json_int_t)r->tp_min, (json_int_t)r->tp_max) : json_null());
	json_object_set_new(o, "sm_clock_mhz", r->clock_max > 0
	                    ? json_pack("[ff]", r->clock_min, r->clock_max) : json_null());
	json_object_set_new(o, "runs", json_integer(r->runs));
	return o;
}

static json_t *
params_json(const wc_params *p, int with_draws)
{
	json_t *root = json_object(), *levels = json_array(), *terms = json_array();
	json_object_set_new(root, "schema", json_string(WC_PARAMS_SCHEMA));
	json_object_set_new(root, "name", json_string(p->name));
	json_object_set_new(root, "form", json_string(wc_form_name(p->form)));
	json_object_set_new(root, "clock_ref_mhz", json_real(p->clock_ref_mhz));
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(l->name));
		json_object_set_new(o, "s_shared_with", string_or_null(l->s_shared_with));
		json_object_set_new(o, "p0_w", param_json(&l->p0));
		json_object_set_new(o, "s_w", l->s_shared_with[0] ? json_null() : param_json(&l->s));
		json_object_set_new(o, "theta", param_json(&l->theta));
		json_object_set_new(o, "floor_logit", param_json(&l->floor_logit));
		json_object_set_new(o, "range", range_json(&l->range));
		json_array_append_new(levels, o);
	}
	json_object_set_new(root, "levels", levels);
	json_object_set_new(root, "shared", json_pack("{s:o,s:o,s:o,s:o}",
	                    "delta", param_json(&p->delta), "gamma1", param_json(&p->gamma1),
	                    "gamma2", param_json(&p->gamma2), "kappa", param_json(&p->kappa)));
	for (int i = 0; i < p->n_terms; i++) {
		const wc_precision_term *t = &p->terms[i];
		json_t *o = json_object();
		json_object_set_new(o, "setting", json_string(wc_setting_name(t->setting)));
		json_object_set_new(o, "precision", json_string(wc_precision_name(t->precision)));
		json_object_set_new(o, "level", string_or_null(t->level));
		json_object_set_new(o, "placement", json_string(wc_placement_name(t->placement)));
		json_object_set_new(o, "value", param_json(&t->value));
		json_object_set_new(o, "p_value", number_or_null(t->p_value));
		json_object_set_new(o, "pairs", json_integer(t->pairs));
		json_object_set_new(o, "kept", json_boolean(t->kept));
		json_array_append_new(terms, o);
	}
	json_object_set_new(root, "precision_terms", terms);
	json_object_set_new(root, "provenance", json_pack("{s:o,s:I,s:I,s:I,s:o,s:o}",
	                    "input_sha256", string_or_null(p->input_sha256),
	                    "runs", (json_int_t)p->runs, "seed", (json_int_t)p->seed,
	                    "bootstrap", (json_int_t)p->bootstrap,
	                    "tool_version", string_or_null(p->tool_version),
	                    "created_utc", string_or_null(p->created_utc)));
	if (with_draws && p->n_draws > 0) {
		json_t *names = json_array(), *values = json_array();
		for (int j = 0; j < p->n_draw_params; j++)
			json_array_append_new(names, json_string(p->draw_names[j]));
		for (int r = 0; r < p->n_draws; r++) {
			json_t *row = json_array();
			for (int j = 0; j < p->n_draw_params; j++)
				json_array_append_new(row, json_real(p->draws[(size_t)r * p->n_draw_params + j]));
			json_array_append_new(values, row);
		}
		json_object_set_new(root, "draws", json_pack("{s:o,s:o}", "names", names, "values", values));
	} else {
		json_object_set_new(root, "draws", json_null());
	}
	return root;
}

char *
wc_params_dump(const wc_params *p, int with_draws, wc_error *err)
{
	wc_error verr;
	if (wc_params_validate(p, &verr) != WC_OK) {
		wc_error_set(err, WC_EINVAL, "params: /%s", verr.msg);
		return NULL;
	}
	json_t *root = params_json(p, with_draws);
	char *s = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	                                  JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	if (!s)
		wc_error_set(err, WC_ENOMEM, "params: cannot serialise (out of memory)");
	return s;
}

int
wc_params_save_file(const char *path, const wc_params *p, wc_error *err)
{
	char *s = wc_params_dump(p, 1, err);
	if (!s)
		return err ? err->code : WC_EINVAL;
	size_t len = strlen(s);
	s[len] = '\n'; /* json_dumps leaves no trailing newline; reuse the NUL slot */
	int rc = wc_write_file_atomic(path, s, len + 1, err);
	free(s);
	return rc;
}

int
wc_params_fingerprint(const wc_params *p, char out[17], wc_error *err)
{
	char hex[65];
	char *s = wc_params_dump(p, 1, err);
	if (!s)
		return err ? err->code : WC_EINVAL;
	wc_sha256_hex(s, strlen(s), hex);
	free(s);
	memcpy(out, hex, 16);
	out[16] = '\0';
	return WC_OK;
}

int
wc_params_profile(const char *name, wc_params *out, wc_error *err)
{
	if (name && strcmp(name, "paper") == 0) {
		wc_params_default(out);
		return WC_OK;
	}
	memset(out, 0, sizeof *out);
	return wc_error_set(err, WC_ENOTFOUND, "profile: unknown profile '%s' (available: paper)",
	                    name ? name : "");
}

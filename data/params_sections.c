/*
 * The sections of a parameter file beyond the inference law (schema 2,
 * docs/formats/params-file.md): the capacity model, the fine-tuning
 * law and the power response of envelopes. Each is read strictly like the rest of the file; a section the
 * file does not have is null.
 */
#include "params_internal.h"

#include <math.h>
#include <string.h>

static int
read_section_draws(wc__json_loader *ld, json_t *v, const char *path, wc_draws *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *x = json_object_get(v, "draws");
	if (!x || json_is_null(x))
		return WC_OK;
	wc__json_join(p, path, "draws");
	return wc__params_read_draws(ld, x, p, out);
}

int
wc__params_read_capacity(wc__json_loader *ld, json_t *v, const char *path, wc_capacity_params *out)
{
	static const char *const allowed[] = { "draws", NULL };
	static const char *const required[] = { NULL };
	int rc;
	wc_capacity_params_clear(out);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)) ||
	    (rc = read_section_draws(ld, v, path, &out->draws)))
		return rc;
	out->present = 1;
	return WC_OK;
}

json_t *
wc__params_capacity_json(const wc_capacity_params *c, int with_draws)
{
	json_t *o = json_object();
	json_object_set_new(o, "draws", with_draws && c->draws.n > 0 ? wc__params_draws_json(&c->draws)
	                                                              : json_null());
	return o;
}

int
wc__params_read_finetune(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *out)
{
	static const char *const allowed[] = { "draws", NULL };
	static const char *const required[] = { NULL };
	int rc;
	wc_finetune_params_clear(out);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)) ||
	    (rc = read_section_draws(ld, v, path, &out->draws)))
		return rc;
	out->present = 1;
	return WC_OK;
}

json_t *
wc__params_finetune_json(const wc_finetune_params *f, int with_draws)
{
	json_t *o = json_object();
	json_object_set_new(o, "draws", with_draws && f->draws.n > 0 ? wc__params_draws_json(&f->draws)
	                                                              : json_null());
	return o;
}

/* ------------------------------------------------------------ response */

/* {"value", "ci95"?, "source"} of the response section: the source is
 * "fitted" or "assumed"; `*fitted` is set when it is "fitted". */
static int
read_response_value(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                    wc_response_value *out, int *fitted)
{
	static const char *const allowed[] = { "value", "ci95", "source", NULL };
	static const char *const required[] = { "value", "source", NULL };
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX], src[16];
	json_t *v = json_object_get(obj, key), *ci;
	int rc;
	wc__json_join(p, path, key);
	out->lo = out->hi = NAN;
	if ((rc = wc__json_check_keys(ld, v, p, allowed, required)))
		return rc;
	wc__json_join(q, p, "value");
	if ((rc = wc__json_number(ld, json_object_get(v, "value"), q, &out->value)))
		return rc;
	wc__json_join(q, p, "source");
	if ((rc = wc__json_string(ld, json_object_get(v, "source"), q, 0, src, sizeof src)))
		return rc;
	if (strcmp(src, "fitted") != 0 && strcmp(src, "assumed") != 0)
		return wc__json_fail(ld, q, "expected \"fitted\" or \"assumed\", got \"%s\"", src);
	*fitted |= strcmp(src, "fitted") == 0;
	if ((ci = json_object_get(v, "ci95")) && !json_is_null(ci)) {
		wc__json_join(q, p, "ci95");
		return wc__json_pair(ld, ci, q, &out->lo, &out->hi);
	}
	return WC_OK;
}

/* [{"level", "tau_s", "runs"?}, ...]: per-level time constants. */
static int
read_response_levels(wc__json_loader *ld, json_t *v, const char *path, wc_response_params *out)
{
	static const char *const allowed[] = { "level", "tau_s", "runs", NULL };
	static const char *const required[] = { "level", "tau_s", NULL };
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX];
	int rc, fitted = 0;
	if (!json_is_array(v) || json_array_size(v) > WC_RESPONSE_MAX_LEVELS)
		return wc__json_fail(ld, path, "expected an array of at most %d levels", WC_RESPONSE_MAX_LEVELS);
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *l = json_array_get(v, i), *x;
		wc_response_level *lv = &out->levels[i];
		long long n;
		wc__json_join_index(p, path, i);
		if ((rc = wc__json_check_keys(ld, l, p, allowed, required)))
			return rc;
		wc__json_join(q, p, "level");
		if ((rc = wc__json_string(ld, json_object_get(l, "level"), q, 0, lv->level, sizeof lv->level)) ||
		    (rc = read_response_value(ld, l, p, "tau_s", &lv->tau_s, &fitted)))
			return rc;
		if ((x = json_object_get(l, "runs")) && !json_is_null(x)) {
			wc__json_join(q, p, "runs");
			if ((rc = wc__json_int(ld, x, q, 0, 100000000, &n)))
				return rc;
			lv->runs = (int)n;
		}
		out->n_levels++;
	}
	return WC_OK;
}

int
wc__params_read_response(wc__json_loader *ld, json_t *v, const char *path, wc_response_params *out)
{
	static const char *const allowed[] = { "tau_s", "hold_s", "prefill_ratio", "runs", "rms_w", "levels", NULL };
	static const char *const required[] = { "tau_s", "hold_s", "prefill_ratio", NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	long long n;
	int rc, fitted = 0;
	memset(out, 0, sizeof *out);
	out->rms_w = NAN;
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)) ||
	    (rc = read_response_value(ld, v, path, "tau_s", &out->tau_s, &fitted)) ||
	    (rc = read_response_value(ld, v, path, "hold_s", &out->hold_s, &fitted)) ||
	    (rc = read_response_value(ld, v, path, "prefill_ratio", &out->prefill_ratio, &fitted)) ||
	    (rc = wc__json_optional_number(ld, v, path, "rms_w", 0.0, 1e9, &out->rms_w)))
		return rc;
	if ((x = json_object_get(v, "runs")) && !json_is_null(x)) {
		wc__json_join(p, path, "runs");
		if ((rc = wc__json_int(ld, x, p, 0, 100000000, &n)))
			return rc;
		out->runs = (int)n;
	}
	if ((x = json_object_get(v, "levels")) && !json_is_null(x)) {
		wc__json_join(p, path, "levels");
		if ((rc = read_response_levels(ld, x, p, out)))
			return rc;
	}
	out->present = 1;
	out->fitted = fitted;
	return WC_OK;
}

static json_t *
response_value_json(const wc_response_value *v, int fitted)
{
	json_t *o = json_object();
	json_object_set_new(o, "value", json_real(v->value));
	if (isfinite(v->lo) && isfinite(v->hi))
		json_object_set_new(o, "ci95", json_pack("[ff]", v->lo, v->hi));
	json_object_set_new(o, "source", json_string(fitted ? "fitted" : "assumed"));
	return o;
}

json_t *
wc__params_response_json(const wc_response_params *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "tau_s", response_value_json(&r->tau_s, r->fitted));
	json_object_set_new(o, "hold_s", response_value_json(&r->hold_s, r->fitted));
	json_object_set_new(o, "prefill_ratio", response_value_json(&r->prefill_ratio, r->fitted));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "rms_w", isfinite(r->rms_w) ? json_real(r->rms_w) : json_null());
	json_t *levels = json_array();
	for (int i = 0; i < r->n_levels; i++)
		json_array_append_new(levels, json_pack("{s:s,s:o,s:i}", "level", r->levels[i].level, "tau_s",
		                      response_value_json(&r->levels[i].tau_s, r->fitted), "runs", r->levels[i].runs));
	json_object_set_new(o, "levels", levels);
	return o;
}

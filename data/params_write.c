/*
 * Parameter files, writing side (docs/formats/params-file.md): canonical
 * dumps with 17 significant digits, so that load(dump(p)) gives back the
 * same doubles (NaN -- no value, no interval -- is null or left out),
 * atomic saves, fingerprints, and the built-in profiles by name.
 */
#include "models/limits.h"
#include "data/params_file.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/fileio.h"
#include "models/profile_measured.h"
#include "params_internal.h"

static json_t *
number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *param_json(const wc_param *p);

json_t *
wc__params_draws_json(const wc_draws *d)
{
	json_t *names = json_array(), *values = json_array();
	for (int j = 0; j < d->k; j++)
		json_array_append_new(names, wc__json_text(d->names[j]));
	for (int r = 0; r < d->n; r++) {
		json_t *row = json_array();
		for (int j = 0; j < d->k; j++)
			json_array_append_new(row, json_real(d->values[(size_t)r * d->k + j]));
		json_array_append_new(values, row);
	}
	return json_pack("{s:o,s:o}", "names", names, "values", values);
}

json_t *
wc__params_param_json(const wc_param *p)
{
	return param_json(p);
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
	return s[0] ? wc__json_text(s) : json_null();
}

json_t *
wc__params_range_json(const wc_range *r)
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
	json_object_set_new(o, "runs", r->runs >= 0 ? json_integer(r->runs) : json_null());
	return o;
}

static json_t *
params_json(const wc_params *p, int with_draws)
{
	json_t *root = json_object(), *levels = json_array(), *terms = json_array();
	json_object_set_new(root, "schema", json_string(WC_PARAMS_SCHEMA));
	json_object_set_new(root, "name", wc__json_text(p->name));
	json_object_set_new(root, "form", json_string(wc_form_name(p->form)));
	json_object_set_new(root, "clock_ref_mhz", json_real(p->clock_ref_mhz));
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", wc__json_text(l->name));
		json_object_set_new(o, "s_shared_with", string_or_null(l->s_shared_with));
		json_object_set_new(o, "p0_w", param_json(&l->p0));
		json_object_set_new(o, "s_w", l->s_shared_with[0] ? json_null() : param_json(&l->s));
		json_object_set_new(o, "theta", param_json(&l->theta));
		json_object_set_new(o, "floor_logit", param_json(&l->floor_logit));
		json_object_set_new(o, "range", wc__params_range_json(&l->range));
		json_array_append_new(levels, o);
	}
	json_object_set_new(root, "levels", levels);
	json_t *shared = json_pack("{s:o,s:o,s:o,s:o}", "delta", param_json(&p->delta), "gamma1",
	                           param_json(&p->gamma1), "gamma2", param_json(&p->gamma2), "kappa",
	                           param_json(&p->kappa));
	if (wc_form_has_prefill(p->form)) /* only the form that uses it */
		json_object_set_new(shared, "phi", param_json(&p->phi));
	for (int k = 0; k < WC_LT_COUNT; k++) /* only the structure terms the set carries */
		if (p->law_terms & WC_LT_BIT(k))
			json_object_set_new(shared, wc_law_term_name((wc_law_term)k), param_json(&p->law_term[k]));
	json_object_set_new(root, "shared", shared);
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
	json_object_set_new(root, "model_terms", wc__params_model_terms_json(p));
	json_object_set_new(root, "provenance", json_pack("{s:o,s:I,s:I,s:I,s:o,s:o,s:o}",
	                    "input_sha256", string_or_null(p->input_sha256),
	                    "runs", (json_int_t)p->runs, "seed", (json_int_t)p->seed,
	                    "bootstrap", (json_int_t)p->bootstrap,
	                    "tool_version", string_or_null(p->tool_version),
	                    "created_utc", string_or_null(p->created_utc),
	                    "residual_rms", p->residual_rms > 0 ? number_or_null(p->residual_rms)
	                                                        : json_null()));
	/* Written only when the set records it (schema 9), so a set that
	 * does not dumps as before. */
	if (wc_precision_mode_name(p->precision_mode))
		json_object_set_new(json_object_get(root, "provenance"), "precision_mode",
		                    json_string(wc_precision_mode_name(p->precision_mode)));
	/* schema 19: the fit's rows and runs, and the rows of a level's idle */
	wc__params_fit_hashes_json(p, json_object_get(root, "provenance"));
	/* A calibration's own record (schema 10), beside the base fit's. */
	if (wc_record_present(&p->calibration)) {
		json_t *rec = wc__params_record_json(&p->calibration, 1);
		/* schema 12: the rows it used, by content (written when known) */
		if (p->n_calibration_rows > 0)
			json_object_set_new(rec, "row_hashes", wc__params_row_hashes_json(p));
		json_object_set_new(json_object_get(root, "provenance"), "calibration", rec);
	}
	if (with_draws && p->n_draws > 0) {
		wc_draws d = { p->n_draws, p->n_draw_params, p->draw_names, p->draws };
		json_object_set_new(root, "draws", wc__params_draws_json(&d));
	} else {
		json_object_set_new(root, "draws", json_null());
	}
	json_object_set_new(root, "capacity", p->capacity.present
	                    ? wc__params_capacity_json(&p->capacity, with_draws) : json_null());
	json_object_set_new(root, "finetune", p->finetune.present
	                    ? wc__params_finetune_json(&p->finetune, with_draws) : json_null());
	/* Left out, not null, when absent: the canonical form -- and so the
	 * params_version -- of every set without a response stays as it was. */
	if (p->response.present)
		json_object_set_new(root, "response", wc__params_response_json(&p->response));
	/* schema 14: the runs the response was fitted on, by content (written
	 * when known) */
	json_t *resp_rec = p->response.present ? json_object_get(json_object_get(root, "response"), "provenance") : NULL;
	if (resp_rec && p->n_response_runs > 0)
		json_object_set_new(resp_rec, "run_hashes", wc__params_run_hashes_json(p));
	json_object_set_new(root, "prediction_error", p->pred_error.present
	                    ? wc__params_pred_error_json(&p->pred_error) : json_null());
	/* Left out when absent, as "response". */
	for (int q = 0; q < WC_PEQ_COUNT; q++)
		if (p->quantity_error[q].present) {
			json_object_set_new(root, "prediction_errors", wc__params_quantity_errors_json(p->quantity_error));
			break;
		}
	return root;
}

char *
wc_params_dump(const wc_params *p, int with_draws, wc_error *err)
{
	wc_error verr;
	/* The loader's checks: never write what it would refuse. */
	if (wc_params_validate(p, &verr) != WC_OK || wc__params_check_ranges(p, &verr) != WC_OK) {
		wc_error_set(err, WC_EINVAL, "params: /%s", verr.msg);
		return NULL;
	}
	json_t *root = params_json(p, with_draws);
	/* Every string whole (wc__json_text): a name jansson cannot write
	 * refuses the file rather than leaving it out of it. */
	if (root && (wc__json_check_text(root, &verr) != WC_OK || wc__params_check_intervals(root, &verr) != WC_OK)) {
		json_decref(root);
		wc_error_set(err, WC_EINVAL, "params: /%s", verr.msg);
		return NULL;
	}
	char *s = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	                                  JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	if (!s) {
		wc_error_set(err, WC_ENOMEM, "params: cannot serialise (out of memory)");
		return NULL;
	}
	/* Never write a file the loader refuses for its size (with its
	 * newline): too many bootstrap draws. */
	if (strlen(s) + 1 > WC_PARAMS_MAX_BYTES) {
		wc_error_set(err, WC_ERANGE, "params: the file would be %.1f MB, over the %zu MiB a parameter file "
		             "may have (%d bootstrap draws of %d parameters); fit with fewer draws (--bootstrap)",
		             (double)strlen(s) / 1e6, WC_PARAMS_MAX_BYTES >> 20, p->n_draws, p->n_draw_params);
		free(s);
		return NULL;
	}
	return s;
}

long
wc_params_draws_room(const wc_params *p, int k, wc_error *err)
{
	/* The draws of a section (capacity, finetune) are the deepest: each
	 * value on a line of its own at indent 10, each row's brackets at 8
	 * (JSON_INDENT(2), wc_params_dump). A value at 17 significant digits
	 * is at most 24 characters ("-1.2345678901234567e-308"). */
	enum { VALUE_MAX = 10 + 24 + 2, ROW_MAX = (8 + 2) + (8 + 3), SECTION_SLACK = 64 << 10 };
	char *s = wc_params_dump(p, 1, err);
	if (!s)
		return -1;
	/* the names and the section around them, generously */
	size_t fixed = strlen(s) + 1 + SECTION_SLACK + (size_t)(k > 0 ? k : 0) * (WC_LABEL_MAX + 16);
	free(s);
	if (fixed >= WC_PARAMS_MAX_BYTES)
		return 0;
	return (long)((WC_PARAMS_MAX_BYTES - fixed) / ((size_t)ROW_MAX + (size_t)(k > 0 ? k : 0) * VALUE_MAX));
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
	if (name && strcmp(name, "measured") == 0) {
		wc_params_measured(out);
		return WC_OK;
	}
	if (name && strcmp(name, "paper-prefill") == 0) {
		wc_params_default_prefill(out);
		return WC_OK;
	}
	wc_params_clear(out);
	return wc_error_set(err, WC_ENOTFOUND, "profile: unknown profile '%s' (available: " WC_PARAMS_PROFILE_NAMES ")",
	                    name ? name : "");
}

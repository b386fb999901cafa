/*
 * The sections of a parameter file beyond the inference law (schema 2,
 * docs/formats/params-file.md): the capacity model and the fine-tuning
 * law; and the model terms of the inference law (schema 3,
 * docs/calibration.md). Each is read strictly like the rest of the file;
 * a section the file does not have is null.
 */
#include "params_internal.h"

#include <math.h>
#include <string.h>

static int
read_model_term(wc__json_loader *ld, json_t *v, const char *path, wc_model_term *t)
{
	static const char *const allowed[] = { "model", "level", "shift", "runs", NULL };
	static const char *const required[] = { "model", "level", "shift", NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	long long n;
	int rc;
	memset(t, 0, sizeof *t);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	wc__json_join(p, path, "model");
	if ((rc = wc__json_string(ld, json_object_get(v, "model"), p, 0, t->model, sizeof t->model)))
		return rc;
	wc__json_join(p, path, "level");
	if ((rc = wc__json_string(ld, json_object_get(v, "level"), p, 0, t->level, sizeof t->level)))
		return rc;
	wc__json_join(p, path, "shift");
	if ((rc = wc__params_read_param(ld, json_object_get(v, "shift"), p, 0, &t->shift)))
		return rc;
	if ((x = json_object_get(v, "runs"))) {
		wc__json_join(p, path, "runs");
		if ((rc = wc__json_int(ld, x, p, 0, 100000000, &n)))
			return rc;
		t->runs = (int)n;
	}
	return WC_OK;
}

int
wc__params_read_model_terms(wc__json_loader *ld, json_t *v, const char *path, wc_params *out)
{
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!json_is_array(v) || json_array_size(v) > WC_MAX_MODEL_TERMS)
		return wc__json_fail(ld, path, "expected an array of at most %d model terms",
		                     WC_MAX_MODEL_TERMS);
	for (size_t i = 0; i < json_array_size(v); i++) {
		wc__json_join_index(p, path, i);
		if ((rc = read_model_term(ld, json_array_get(v, i), p, &out->model_terms[i])))
			return rc;
		out->n_model_terms++;
	}
	return WC_OK;
}

json_t *
wc__params_model_terms_json(const wc_params *p)
{
	json_t *a = json_array();
	for (int i = 0; i < p->n_model_terms; i++) {
		const wc_model_term *t = &p->model_terms[i];
		json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:i}", "model", t->model, "level",
		                                   t->level, "shift", wc__params_param_json(&t->shift),
		                                   "runs", t->runs));
	}
	return a;
}

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

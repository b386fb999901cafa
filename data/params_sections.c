/*
 * The sections of a parameter file beyond the inference law (schema 2,
 * docs/formats/params-file.md): the capacity model here, the fine-tuning
 * law in params_finetune.c, the power response of envelopes; and the model
 * terms of the inference law (schema 3, docs/calibration.md). Each is read
 * strictly like the rest of the file; a section the file does not have is
 * null.
 */
#include "params_internal.h"
#include "models/limits.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int
read_model_term(wc__json_loader *ld, json_t *v, const char *path, wc_model_term *t)
{
	static const char *const allowed[] = { "model", "level", "shift", "runs", "p0_w", "range", NULL };
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
	if ((x = json_object_get(v, "p0_w"))) {
		wc__json_join(p, path, "p0_w");
		if (ld->version && ld->version < 13)
			return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V13);
		if ((rc = wc__params_read_param(ld, x, p, 0, &t->p0)))
			return rc;
		if (!(t->p0.value > 0.0))
			return wc__json_fail(ld, p, "must be an idle power above 0 W, got %g", t->p0.value);
	}
	t->range.runs = -1; /* unknown until a range says */
	if ((x = json_object_get(v, "range")) && !json_is_null(x)) {
		wc__json_join(p, path, "range");
		if (ld->version && ld->version < 19)
			return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V19);
		if ((rc = wc__params_read_range(ld, x, p, &t->range)))
			return rc;
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
		json_t *o = json_pack("{s:o,s:o,s:o,s:i}", "model", wc__json_text(t->model), "level",
		                      wc__json_text(t->level), "shift", wc__params_param_json(&t->shift), "runs", t->runs);
		if (t->p0.value > 0.0) /* written only when the term has its own idle */
			json_object_set_new(o, "p0_w", wc__params_param_json(&t->p0));
		/* written only when its runs' span is known (schema 19) */
		if (t->range.running_max > 0 || t->range.active_b_max > 0 || t->range.tp_max > 0)
			json_object_set_new(o, "range", wc__params_range_json(&t->range));
		json_array_append_new(a, o);
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

/* ------------------------------------------------------------ capacity */

static int
read_cap_range(wc__json_loader *ld, json_t *v, const char *path, wc_capacity_range *r)
{
	static const char *const keys[] = { "running", "input_tokens", "output_tokens", "active_params_b",
	                                    "tp", "rows", NULL };
	static const char *const none[] = { NULL };
	double *pairs[4][2] = { { &r->running_min, &r->running_max }, { &r->input_min, &r->input_max },
	                        { &r->output_min, &r->output_max }, { &r->active_b_min, &r->active_b_max } };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	int rc;
	memset(r, 0, sizeof *r);
	if ((rc = wc__json_check_keys(ld, v, path, keys, none)))
		return rc;
	for (int i = 0; i < 4; i++)
		if ((x = json_object_get(v, keys[i])) && !json_is_null(x)) {
			wc__json_join(p, path, keys[i]);
			if ((rc = wc__json_pair(ld, x, p, pairs[i][0], pairs[i][1])))
				return rc;
		}
	if ((rc = wc__params_read_tp_span(ld, v, path, &r->tp_min, &r->tp_max)))
		return rc;
	return wc__params_read_count(ld, v, path, "rows", &r->rows);
}

/* A level: its name, datasheet facts, the kinds it does not share, range. */
static int
read_cap_level(wc__json_loader *ld, json_t *v, const char *path, const wc_capacity_params *c,
               wc_capacity_level *l)
{
	static const char *const keys[] = { "name", "bandwidth_tb_s", "bf16_tflops", "memory_gb", "eta", "t0",
	                                    "t1", "etac", "tau", "tau_ep", "range", NULL };
	static const char *const required[] = { "name", "bandwidth_tb_s", "bf16_tflops", "memory_gb", NULL };
	char p[WC__JSON_PATH_MAX];
	double *facts[3] = { &l->bandwidth_tb_s, &l->bf16_tflops, &l->memory_gb };
	json_t *x;
	int rc;
	memset(l, 0, sizeof *l);
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "name");
	if ((rc = wc__json_string(ld, json_object_get(v, "name"), p, 0, l->name, sizeof l->name)))
		return rc;
	for (int i = 0; i < 3; i++) {
		wc__json_join(p, path, keys[1 + i]);
		if ((rc = wc__json_number(ld, json_object_get(v, keys[1 + i]), p, facts[i])))
			return rc;
	}
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		const char *key = wc_capacity_kind_name((wc_capacity_kind)k);
		if (k == WC_CAP_TAU_EP && c->tau_ep_tied)
			continue; /* taken from tau once the levels are read */
		x = json_object_get(v, key);
		wc__json_join(p, path, key);
		if (c->shared[k] && x)
			return wc__json_fail(ld, p, "'%s' is in /capacity/shared; give it there or per level, not both", key);
		if (!c->shared[k] && !x)
			return wc__json_fail(ld, path, "missing '%s' (not in /capacity/shared either)", key);
		if (!c->shared[k] && (rc = wc__params_read_param(ld, x, p, 0, &l->p[k])))
			return rc;
	}
	if ((x = json_object_get(v, "range")) && !json_is_null(x)) {
		wc__json_join(p, path, "range");
		return read_cap_range(ld, x, p, &l->range);
	}
	return WC_OK;
}

static int
read_cap_shared(wc__json_loader *ld, json_t *v, wc_capacity_params *c)
{
	static const char *const keys[] = { "eta", "t0", "t1", "etac", "tau", "tau_ep", NULL };
	static const char *const none[] = { NULL };
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, "/capacity/shared", keys, none)))
		return rc;
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		json_t *x = json_object_get(v, keys[k]);
		if (!x)
			continue;
		wc__json_join(p, "/capacity/shared", keys[k]);
		c->shared[k] = 1;
		if ((rc = wc__params_read_param(ld, x, p, 0, &c->shared_p[k])))
			return rc;
	}
	return WC_OK;
}

/* Where the section gives tau_ep (schema 18), if anywhere: "" when it
 * gives none. */
static void
find_tau_ep(json_t *shared, json_t *levels, char *where, size_t cap)
{
	where[0] = '\0';
	if (json_is_object(shared) && json_object_get(shared, "tau_ep"))
		snprintf(where, cap, "/capacity/shared/tau_ep");
	for (size_t i = 0; !where[0] && json_is_array(levels) && i < json_array_size(levels); i++)
		if (json_is_object(json_array_get(levels, i)) && json_object_get(json_array_get(levels, i), "tau_ep"))
			snprintf(where, cap, "/capacity/levels/%zu/tau_ep", i);
}

static int
read_cap_levels(wc__json_loader *ld, json_t *x, wc_capacity_params *c)
{
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!json_is_array(x) || json_array_size(x) < 1 || json_array_size(x) > WC_CAPACITY_MAX_LEVELS)
		return wc__json_fail(ld, "/capacity/levels", "expected an array of 1 to %d levels",
		                     WC_CAPACITY_MAX_LEVELS);
	for (size_t i = 0; i < json_array_size(x); i++) {
		wc__json_join_index(p, "/capacity/levels", i);
		if ((rc = read_cap_level(ld, json_array_get(x, i), p, c, &c->levels[i])))
			return rc;
		c->n_levels++;
	}
	/* A section without tau_ep (every file before schema 18) charges
	 * expert-parallel groups tau, as it was fitted to
	 * (docs/formats/params-file.md, "capacity"). */
	if (c->tau_ep_tied)
		wc_capacity_tie_tau_ep(c);
	return WC_OK;
}

static int
read_cap_workloads(wc__json_loader *ld, json_t *x, wc_capacity_params *c)
{
	static const char *const keys[] = { "set", "input_tokens", NULL };
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX];
	int rc;
	if (!x || json_is_null(x))
		return WC_OK;
	if (!json_is_array(x) || json_array_size(x) > WC_CAPACITY_MAX_WORKLOADS)
		return wc__json_fail(ld, "/capacity/workloads", "expected an array of at most %d workloads",
		                     WC_CAPACITY_MAX_WORKLOADS);
	for (size_t i = 0; i < json_array_size(x); i++) {
		json_t *w = json_array_get(x, i);
		wc_capacity_workload *o = &c->workloads[i];
		wc__json_join_index(p, "/capacity/workloads", i);
		if ((rc = wc__json_check_keys(ld, w, p, keys, keys)))
			return rc;
		wc__json_join(q, p, "set");
		if ((rc = wc__json_string(ld, json_object_get(w, "set"), q, 0, o->set, sizeof o->set)))
			return rc;
		wc__json_join(q, p, "input_tokens");
		if ((rc = wc__params_read_param(ld, json_object_get(w, "input_tokens"), q, 0, &o->input_tokens)))
			return rc;
		c->n_workloads++;
	}
	return WC_OK;
}

static int
read_cap_provenance(wc__json_loader *ld, json_t *v, wc_capacity_params *c)
{
	static const char *const keys[] = { "calibrated_on", "input_sha256", "rows", "seed", "bootstrap",
	                                    "tool_version", "created_utc", "run_hashes", NULL };
	static const char *const none[] = { NULL };
	const char *path = "/capacity/provenance";
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, keys, none)) ||
	    (rc = wc__json_optional_string(ld, v, path, "calibrated_on", c->calibrated_on, sizeof c->calibrated_on)) ||
	    (rc = wc__json_optional_string(ld, v, path, "input_sha256", c->input_sha256, sizeof c->input_sha256)) ||
	    (rc = wc__json_optional_string(ld, v, path, "tool_version", c->tool_version, sizeof c->tool_version)) ||
	    (rc = wc__json_optional_string(ld, v, path, "created_utc", c->created_utc, sizeof c->created_utc)))
		return rc;
	if ((rc = wc__params_read_count(ld, v, path, "rows", &c->rows)) ||
	    (rc = wc__params_read_count(ld, v, path, "bootstrap", &c->bootstrap)) ||
	    (rc = wc__params_read_capacity_runs(ld, v, path, c)))
		return rc;
	return wc__params_read_seed(ld, v, path, 0, &c->seed);
}

static int
read_cap_defaults(wc__json_loader *ld, json_t *root, wc_capacity_params *c)
{
	static const char *const keys[] = { "price_per_kwh", "grams_co2_per_kwh", NULL };
	static const char *const none[] = { NULL };
	json_t *v = json_object_get(root, "defaults");
	int rc;
	if (!v || json_is_null(v))
		return WC_OK;
	/* A default is the price (carbon intensity) a prediction takes when it gives none: the
	 * same limit as a price given (docs/formats/params-file.md), so a
	 * served set never answers with one its routes refuse. */
	if ((rc = wc__json_check_keys(ld, v, "/capacity/defaults", keys, none)) ||
	    (rc = wc__json_optional_number(ld, v, "/capacity/defaults", "price_per_kwh", 0, WC_CAPACITY_MAX_PRICE,
	                                   &c->price_per_kwh)))
		return rc;
	return wc__json_optional_number(ld, v, "/capacity/defaults", "grams_co2_per_kwh", 0, WC_CAPACITY_MAX_CO2,
	                                &c->grams_co2_per_kwh);
}

int
wc__params_read_capacity(wc__json_loader *ld, json_t *v, const char *path, wc_capacity_params *out)
{
	static const char *const allowed[] = { "levels", "shared", "workloads", "memory_reserve", "defaults",
	                                       "provenance", "draws", NULL };
	static const char *const required[] = { NULL };
	json_t *levels;
	int rc;
	wc_capacity_params_clear(out);
	wc_capacity_params_init(out);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	/* The section's first draft held draws only: such a file has no
	 * capacity model, and loads as one without. */
	if (!(levels = json_object_get(v, "levels")) || json_is_null(levels))
		return WC_OK;
	char ep[WC__JSON_PATH_MAX];
	find_tau_ep(json_object_get(v, "shared"), levels, ep, sizeof ep);
	if (ep[0] && ld->version && ld->version < 18)
		return wc__json_fail(ld, ep, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V18);
	out->tau_ep_tied = !ep[0];
	if ((rc = read_cap_shared(ld, json_object_get(v, "shared"), out)) ||
	    (rc = read_cap_levels(ld, levels, out)) ||
	    (rc = read_cap_workloads(ld, json_object_get(v, "workloads"), out)) ||
	    (rc = wc__json_optional_number(ld, v, path, "memory_reserve", 0, 0.9, &out->memory_reserve)) ||
	    (rc = read_cap_defaults(ld, v, out)) ||
	    (rc = read_cap_provenance(ld, json_object_get(v, "provenance"), out)) ||
	    (rc = read_section_draws(ld, v, path, &out->draws)))
		return rc;
	if (!isfinite(out->memory_reserve))
		out->memory_reserve = WC_CAPACITY_DEFAULT_RESERVE;
	out->present = 1;
	return WC_OK;
}

static json_t *
pair_or_null(double lo, double hi)
{
	return hi > 0 ? json_pack("[ff]", lo, hi) : json_null();
}

static json_t *
cap_level_json(const wc_capacity_params *c, const wc_capacity_level *l)
{
	const wc_capacity_range *r = &l->range;
	json_t *o = json_pack("{s:o,s:f,s:f,s:f}", "name", wc__json_text(l->name), "bandwidth_tb_s", l->bandwidth_tb_s,
	                      "bf16_tflops", l->bf16_tflops, "memory_gb", l->memory_gb);
	for (int k = 0; k < WC_CAP_KINDS; k++)
		if (!c->shared[k] && !(k == WC_CAP_TAU_EP && c->tau_ep_tied))
			json_object_set_new(o, wc_capacity_kind_name((wc_capacity_kind)k), wc__params_param_json(&l->p[k]));
	json_object_set_new(o, "range", json_pack("{s:o,s:o,s:o,s:o,s:o,s:I}",
	                    "running", pair_or_null(r->running_min, r->running_max),
	                    "input_tokens", pair_or_null(r->input_min, r->input_max),
	                    "output_tokens", pair_or_null(r->output_min, r->output_max),
	                    "active_params_b", pair_or_null(r->active_b_min, r->active_b_max),
	                    "tp", r->tp_max > 0 ? json_pack("[II]", (json_int_t)r->tp_min, (json_int_t)r->tp_max)
	                                        : json_null(),
	                    "rows", (json_int_t)r->rows));
	return o;
}

static json_t *
string_or_null(const char *s)
{
	return s[0] ? wc__json_text(s) : json_null();
}

json_t *
wc__params_capacity_json(const wc_capacity_params *c, int with_draws)
{
	json_t *o = json_object(), *levels = json_array(), *shared = json_object(), *work = json_array();
	for (int i = 0; i < c->n_levels; i++)
		json_array_append_new(levels, cap_level_json(c, &c->levels[i]));
	/* a tied tau_ep is written as absent: it reads back tied */
	for (int k = 0; k < WC_CAP_KINDS; k++)
		if (c->shared[k] && !(k == WC_CAP_TAU_EP && c->tau_ep_tied))
			json_object_set_new(shared, wc_capacity_kind_name((wc_capacity_kind)k),
			                    wc__params_param_json(&c->shared_p[k]));
	for (int i = 0; i < c->n_workloads; i++)
		json_array_append_new(work, json_pack("{s:o,s:o}", "set", wc__json_text(c->workloads[i].set), "input_tokens",
		                                      wc__params_param_json(&c->workloads[i].input_tokens)));
	json_object_set_new(o, "levels", levels);
	json_object_set_new(o, "shared", shared);
	json_object_set_new(o, "workloads", work);
	json_object_set_new(o, "memory_reserve", json_real(c->memory_reserve));
	json_object_set_new(o, "defaults", json_pack("{s:o,s:o}", "price_per_kwh", wc__json_number_or_null(c->price_per_kwh),
	                                             "grams_co2_per_kwh", wc__json_number_or_null(c->grams_co2_per_kwh)));
	json_object_set_new(o, "provenance", json_pack("{s:o,s:o,s:I,s:I,s:I,s:o,s:o}",
	                    "calibrated_on", string_or_null(c->calibrated_on),
	                    "input_sha256", string_or_null(c->input_sha256), "rows", (json_int_t)c->rows,
	                    "seed", (json_int_t)c->seed, "bootstrap", (json_int_t)c->bootstrap,
	                    "tool_version", string_or_null(c->tool_version),
	                    "created_utc", string_or_null(c->created_utc)));
	/* from schema 16; an older fit's section, which has none, writes none */
	if (c->n_run_hashes > 0)
		json_object_set_new(json_object_get(o, "provenance"), "run_hashes", wc__params_capacity_runs_json(c));
	json_object_set_new(o, "draws", with_draws && c->draws.n > 0 ? wc__params_draws_json(&c->draws)
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
wc__params_read_response(wc__json_loader *ld, json_t *v, const char *path, wc_params *set)
{
	static const char *const allowed[] = { "tau_s", "hold_s", "decay_s", "prefill_ratio", "dynamic_scale", "runs",
		                                       "rms_w", "levels", "provenance", NULL };
	/* How `fit response` made it (schema 10); its runs are `runs`, each
	 * known by its hash (schema 14). */
	static const char *const record[] = { "fitted_on", "seed", "bootstrap", "tool_version", "created_utc",
		                                      "linger_bound_s", "run_hashes", NULL };
	wc_response_params *out = &set->response;
	static const char *const required[] = { "tau_s", "hold_s", "prefill_ratio", NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	long long n;
	int rc, fitted = 0, runs_known = 0;
	memset(out, 0, sizeof *out);
	out->rms_w = NAN;
	out->decay_s = (wc_response_value){ 0.0, NAN, NAN };
	out->dynamic_scale = (wc_response_value){ 1.0, NAN, NAN };
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)) ||
	    (rc = read_response_value(ld, v, path, "tau_s", &out->tau_s, &fitted)) ||
	    (rc = read_response_value(ld, v, path, "hold_s", &out->hold_s, &fitted)) ||
	    (rc = read_response_value(ld, v, path, "prefill_ratio", &out->prefill_ratio, &fitted)) ||
	    /* decay_s is absent from files written before it existed: no decay. */
	    (json_object_get(v, "decay_s") &&
	     (rc = read_response_value(ld, v, path, "decay_s", &out->decay_s, &fitted))) ||
	    /* dynamic_scale likewise: the law's dynamic power as it is. */
	    (json_object_get(v, "dynamic_scale") &&
	     (rc = read_response_value(ld, v, path, "dynamic_scale", &out->dynamic_scale, &fitted))) ||
	    (rc = wc__json_optional_number(ld, v, path, "rms_w", 0.0, 1e9, &out->rms_w)))
		return rc;
	if ((x = json_object_get(v, "runs")) && !json_is_null(x)) {
		wc__json_join(p, path, "runs");
		if ((rc = wc__json_int(ld, x, p, 0, 100000000, &n)))
			return rc;
		out->runs = (int)n;
		runs_known = 1;
	}
	if ((x = json_object_get(v, "levels")) && !json_is_null(x)) {
		wc__json_join(p, path, "levels");
		if ((rc = read_response_levels(ld, x, p, out)))
			return rc;
	}
	if ((x = json_object_get(v, "provenance")) && !json_is_null(x)) {
		wc__json_join(p, path, "provenance");
		if ((rc = wc__params_read_record(ld, x, p, record, &out->record)) ||
		    (rc = wc__json_optional_number(ld, x, p, "linger_bound_s", 0.0, WC_RESPONSE_MAX_HOLD_S,
		                                   &out->linger_bound_s)) ||
		    (rc = wc__params_read_run_hashes(ld, x, p, runs_known, set)))
			return rc;
		if (isnan(out->linger_bound_s))
			out->linger_bound_s = 0.0; /* null: not recorded */
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
	if (r->decay_s.value > 0.0) /* no decay: written as before it existed */
		json_object_set_new(o, "decay_s", response_value_json(&r->decay_s, r->fitted));
	json_object_set_new(o, "prefill_ratio", response_value_json(&r->prefill_ratio, r->fitted));
	if (r->dynamic_scale.value > 0.0 && r->dynamic_scale.value != 1.0) /* 1: as before it existed */
		json_object_set_new(o, "dynamic_scale", response_value_json(&r->dynamic_scale, r->fitted));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "rms_w", isfinite(r->rms_w) ? json_real(r->rms_w) : json_null());
	json_t *levels = json_array();
	for (int i = 0; i < r->n_levels; i++)
		json_array_append_new(levels, json_pack("{s:o,s:o,s:i}", "level", wc__json_text(r->levels[i].level), "tau_s",
		                      response_value_json(&r->levels[i].tau_s, r->fitted), "runs", r->levels[i].runs));
	json_object_set_new(o, "levels", levels);
	/* Written when a fit recorded it (schema 10), so older sets dump as
	 * before. */
	if (r->record.created_utc[0] || r->record.fitted_on[0]) {
		json_t *rec = wc__params_record_json(&r->record, 0);
		json_object_del(rec, "input_sha256");
		json_object_set_new(rec, "linger_bound_s", r->linger_bound_s > 0 ? json_real(r->linger_bound_s) : json_null());
		json_object_set_new(o, "provenance", rec);
	}
	return o;
}

/*
 * The fine-tuning law's section of a parameter file (docs/formats/
 * params-file.md, "The fine-tuning section"; docs/finetune.md): read
 * strictly, every refusal naming its JSON path, and written so that a load
 * gives back the same doubles. A section holding nothing but "draws" (the
 * placeholder schema 2 had before the law existed) reads as no law.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "params_internal.h"

/* ------------------------------------------------------------- read */

/* [lo, hi] or null (unknown); absent leaves the span unknown. */
static int
read_span(wc__json_loader *ld, json_t *obj, const char *path, const char *key, wc_ft_span *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(obj, key);
	out->lo = out->hi = NAN;
	if (!v || json_is_null(v))
		return WC_OK;
	wc__json_join(p, path, key);
	return wc__json_pair(ld, v, p, &out->lo, &out->hi);
}

static int
read_ranges(wc__json_loader *ld, json_t *v, const char *path, wc_ft_ranges *r)
{
	static const char *const keys[] = { "micro_batch", "seq_len", "params_b", "gpus", "lora_rank",
	                                    "flops_per_step_tflop", "fixed_share", NULL };
	static const char *const none[] = { NULL };
	int rc;
	wc_ft_ranges_unknown(r);
	if (!v || json_is_null(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, keys, none)) ||
	    (rc = read_span(ld, v, path, "micro_batch", &r->micro_batch)) ||
	    (rc = read_span(ld, v, path, "seq_len", &r->seq_len)) ||
	    (rc = read_span(ld, v, path, "params_b", &r->params_b)) ||
	    (rc = read_span(ld, v, path, "gpus", &r->gpus)) ||
	    (rc = read_span(ld, v, path, "lora_rank", &r->lora_rank)) ||
	    (rc = read_span(ld, v, path, "flops_per_step_tflop", &r->flops_tflop)))
		return rc;
	/* The runs' fixed share (schema 11); without it a prediction's e0
	 * warning keeps the published design's bound (docs/finetune.md,
	 * "Predicting"). */
	if (json_object_get(v, "fixed_share") && ld->version && ld->version < 11) {
		char p[WC__JSON_PATH_MAX];
		wc__json_join(p, path, "fixed_share");
		return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V11);
	}
	return read_span(ld, v, path, "fixed_share", &r->fixed_share);
}

/* An integer key into an int (absent keeps `*out`; null is 0 when allowed). */
static int
read_int(wc__json_loader *ld, json_t *obj, const char *path, const char *key, long long lo,
         long long hi, int *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(obj, key);
	long long n;
	int rc;
	if (!v)
		return WC_OK;
	wc__json_join(p, path, key);
	if (json_is_null(v) && lo <= 0) {
		*out = 0;
		return WC_OK;
	}
	if ((rc = wc__json_int(ld, v, p, lo, hi, &n)))
		return rc;
	*out = (int)n;
	return WC_OK;
}

/* The share of each step the sweep's runs filled (schema 15): a number in
 * (0, 1]; absent -- every file before 15 -- reads as full steps, as those
 * files meant (docs/formats/params-file.md, "The fine-tuning section"). */
static int
read_step_fill(wc__json_loader *ld, json_t *v, const char *path, double *fill)
{
	char p[WC__JSON_PATH_MAX];
	json_t *x = json_object_get(v, "step_fill");
	int rc;
	*fill = 1.0;
	if (!x)
		return WC_OK;
	wc__json_join(p, path, "step_fill");
	if (ld->version && ld->version < 15)
		return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V15);
	if ((rc = wc__json_number(ld, x, p, fill)))
		return rc;
	if (!(*fill > 0.0 && *fill <= 1.0))
		return wc__json_fail(ld, p, "the share of a step its runs filled must be in (0, 1], got %g", *fill);
	return WC_OK;
}

/* The configuration a sweep held fixed. */
static int
read_base(wc__json_loader *ld, json_t *v, const char *path, wc_ft_config *c)
{
	static const char *const keys[] = { "method", "params_b", "layers", "d_model", "attention_heads",
	                                    "kv_heads", "head_dim", "lora_rank", "micro_batch", "seq_len",
	                                    "grad_accum", "gpus", "data_parallel", "checkpointing", "step_fill",
	                                    NULL };
	static const char *const required[] = { "method", "params_b", "layers", "d_model", "micro_batch",
	                                        "seq_len", "grad_accum", "gpus", NULL };
	char p[WC__JSON_PATH_MAX], method[16];
	int rc;
	*c = (wc_ft_config)WC_FT_CONFIG_INIT;
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "method");
	if ((rc = wc__json_string(ld, json_object_get(v, "method"), p, 0, method, sizeof method)))
		return rc;
	if (wc_ft_method_from_name(method, &c->method) != WC_OK)
		return wc__json_fail(ld, p, "expected %s, got '%s'", wc_ft_method_choices(), method);
	wc__json_join(p, path, "params_b");
	if ((rc = wc__json_number(ld, json_object_get(v, "params_b"), p, &c->params_b)))
		return rc;
	json_t *ck = json_object_get(v, "checkpointing");
	if (ck && !json_is_boolean(ck)) {
		wc__json_join(p, path, "checkpointing");
		return wc__json_fail(ld, p, "expected true or false");
	}
	c->checkpointing = ck && json_is_true(ck);
	if ((rc = read_int(ld, v, path, "layers", 1, WC_FT_MAX_INT, &c->layers)) ||
	    (rc = read_int(ld, v, path, "d_model", 1, WC_FT_MAX_INT, &c->d_model)) ||
	    (rc = read_int(ld, v, path, "attention_heads", 0, WC_FT_MAX_INT, &c->attention_heads)) ||
	    (rc = read_int(ld, v, path, "kv_heads", 0, WC_FT_MAX_INT, &c->kv_heads)) ||
	    (rc = read_int(ld, v, path, "head_dim", 0, WC_FT_MAX_INT, &c->head_dim)) ||
	    (rc = read_int(ld, v, path, "lora_rank", 0, WC_FT_MAX_INT, &c->lora_rank)) ||
	    (rc = read_int(ld, v, path, "micro_batch", 1, WC_FT_MAX_INT, &c->micro_batch)) ||
	    (rc = read_int(ld, v, path, "seq_len", 1, WC_FT_MAX_INT, &c->seq_len)) ||
	    (rc = read_int(ld, v, path, "grad_accum", 1, WC_FT_MAX_INT, &c->grad_accum)) ||
	    (rc = read_int(ld, v, path, "gpus", 1, WC_FT_MAX_GPUS, &c->gpus)) ||
	    (rc = read_int(ld, v, path, "data_parallel", 0, WC_FT_MAX_GPUS, &c->data_parallel)))
		return rc;
	wc_error e;
	if (wc_ft_config_check(c, &e) != WC_OK)
		return wc__json_fail(ld, path, "%s", e.msg);
	return WC_OK;
}

/* The counts, fit quality and levels of a relation. */
static int
read_relation_facts(wc__json_loader *ld, json_t *v, const char *path, wc_ft_relation *r)
{
	int rc;
	if ((rc = wc__json_optional_number(ld, v, path, "r2", -1e300, 1.0, &r->r2)) ||
	    (rc = read_int(ld, v, path, "runs", 0, WC_FT_MAX_INT, &r->runs)) ||
	    (rc = read_int(ld, v, path, "levels", 0, WC_FT_MAX_INT, &r->levels)) ||
	    (rc = read_span(ld, v, path, "x_range", &r->x)))
		return rc;
	json_t *base = json_object_get(v, "base");
	if (base && !json_is_null(base)) {
		char p[WC__JSON_PATH_MAX];
		wc__json_join(p, path, "base");
		if ((rc = read_base(ld, base, p, &r->base)) || (rc = read_step_fill(ld, base, p, &r->fill)))
			return rc;
		r->has_base = 1;
	}
	return WC_OK;
}

static int
read_relation(wc__json_loader *ld, json_t *v, const char *path, wc_ft_relation_kind k,
              wc_ft_relation *r)
{
	static const char *const keys[] = { "form", "a", "b", "c", "r2", "runs", "levels", "x_range",
	                                    "base", NULL };
	static const char *const required[] = { "form", "a", "b", NULL };
	char p[WC__JSON_PATH_MAX], form[32];
	int rc;
	memset(r, 0, sizeof *r);
	r->r2 = r->x.lo = r->x.hi = NAN;
	if (!v || json_is_null(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "form");
	if ((rc = wc__json_string(ld, json_object_get(v, "form"), p, 0, form, sizeof form)))
		return rc;
	if (strcmp(form, wc_ft_relation_form(k)) != 0)
		return wc__json_fail(ld, p, "expected \"%s\", got \"%s\"", wc_ft_relation_form(k), form);
	for (int j = 0; j < 3; j++) {
		char key[2] = { (char)('a' + j), '\0' };
		int needed = j < wc_ft_relation_terms(k);
		wc__json_join(p, path, key);
		if ((rc = wc__params_read_param(ld, json_object_get(v, key), p, !needed, &r->coef[j])))
			return rc;
	}
	if ((rc = read_relation_facts(ld, v, path, r)))
		return rc;
	r->present = 1;
	return WC_OK;
}

static int
read_relations(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *f)
{
	static const char *const keys[] = { "batch_size", "sequence_length", "model_size", NULL };
	static const char *const none[] = { NULL };
	char p[WC__JSON_PATH_MAX];
	int rc;
	if ((rc = wc__json_check_keys(ld, v, path, keys, none)))
		return rc;
	for (int k = 0; k < WC_FT_REL_COUNT; k++) {
		const char *name = wc_ft_relation_name((wc_ft_relation_kind)k);
		wc__json_join(p, path, name);
		if ((rc = read_relation(ld, json_object_get(v, name), p, (wc_ft_relation_kind)k,
		                        &f->relations[k])))
			return rc;
	}
	return WC_OK;
}

static int
read_methods(wc__json_loader *ld, json_t *v, const char *path, unsigned *out)
{
	char p[WC__JSON_PATH_MAX], name[16];
	int rc;
	*out = 0;
	if (!json_is_array(v) || json_array_size(v) == 0)
		return wc__json_fail(ld, path, "expected a non-empty array of %s", wc_ft_method_choices());
	for (size_t i = 0; i < json_array_size(v); i++) {
		wc_ft_method m;
		wc__json_join_index(p, path, i);
		if ((rc = wc__json_string(ld, json_array_get(v, i), p, 0, name, sizeof name)))
			return rc;
		if (wc_ft_method_from_name(name, &m) != WC_OK)
			return wc__json_fail(ld, p, "expected %s, got '%s'", wc_ft_method_choices(), name);
		*out |= 1u << m;
	}
	return WC_OK;
}

static int
read_calibration(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *f)
{
	static const char *const keys[] = { "platform", "stack", "methods", "runs", "input_sha256",
	                                    "seed", "bootstrap", "created_utc", NULL };
	static const char *const required[] = { "platform", "methods", NULL };
	char p[WC__JSON_PATH_MAX];
	int rc;
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "platform");
	if ((rc = wc__json_string(ld, json_object_get(v, "platform"), p, 0, f->platform, sizeof f->platform)) ||
	    (rc = wc__json_optional_string(ld, v, path, "stack", f->stack, sizeof f->stack)) ||
	    (rc = read_int(ld, v, path, "runs", 0, WC_FT_MAX_INT, &f->runs)) ||
	    (rc = read_int(ld, v, path, "bootstrap", 0, WC_FT_MAX_INT, &f->bootstrap)) ||
	    (rc = wc__json_optional_string(ld, v, path, "input_sha256", f->input_sha256,
	                                   sizeof f->input_sha256)))
		return rc;
	uint64_t seed = f->seed;
	if ((rc = wc__params_read_seed(ld, v, path, 1, &seed)))
		return rc;
	f->seed = seed;
	/* The section's own time (schema 10): the set's top-level record is
	 * the inference law's (docs/formats/params-file.md, "Provenance"). */
	if (json_object_get(v, "created_utc")) {
		wc__json_join(p, path, "created_utc");
		if (ld->version && ld->version < 10)
			return wc__json_fail(ld, p, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V10);
		if ((rc = wc__json_optional_string(ld, v, path, "created_utc", f->created_utc, sizeof f->created_utc)))
			return rc;
		if (f->created_utc[0] && !wc__params_utc_stamp_ok(f->created_utc))
			return wc__json_fail(ld, p, "'%s' is not YYYY-MM-DDTHH:MM:SSZ or null", f->created_utc);
	}
	wc__json_join(p, path, "methods");
	return read_methods(ld, json_object_get(v, "methods"), p, &f->methods);
}

static int
read_compute(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *f)
{
	static const char *const keys[] = { "e0_j", "kappa_j_per_tflop", "e0_se_j",
	                                    "kappa_se_j_per_tflop", "r2", "e0_per", "residual_rms", NULL };
	static const char *const required[] = { "e0_j", "kappa_j_per_tflop", NULL };
	char p[WC__JSON_PATH_MAX], per[8] = "job";
	int rc;
	f->e0_se = f->kappa_se = f->r2 = f->residual_rms = NAN;
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "e0_j");
	if ((rc = wc__params_read_param(ld, json_object_get(v, "e0_j"), p, 0, &f->e0)))
		return rc;
	wc__json_join(p, path, "kappa_j_per_tflop");
	if ((rc = wc__params_read_param(ld, json_object_get(v, "kappa_j_per_tflop"), p, 0, &f->kappa)) ||
	    (rc = wc__json_optional_number(ld, v, path, "e0_se_j", 0, 1e300, &f->e0_se)) ||
	    (rc = wc__json_optional_number(ld, v, path, "kappa_se_j_per_tflop", 0, 1e300, &f->kappa_se)))
		return rc;
	if ((rc = wc__json_optional_number(ld, v, path, "r2", -1e300, 1.0, &f->r2)) ||
	    (rc = wc__json_optional_number(ld, v, path, "residual_rms", 0, 10.0, &f->residual_rms)) ||
	    (rc = wc__json_optional_string(ld, v, path, "e0_per", per, sizeof per)))
		return rc;
	/* Absent: a file of schema 4 or older, whose e0 was the job's. */
	if (wc_ft_e0_scope_from_name(per, &f->e0_scope) != WC_OK) {
		wc__json_join(p, path, "e0_per");
		return wc__json_fail(ld, p, "expected \"gpu\" or \"job\", got \"%s\"", per);
	}
	return WC_OK;
}

/* How the law was calibrated from a few runs (schema 5). */
static int
read_calibrated(wc__json_loader *ld, json_t *v, const char *path, wc_ft_calibrated *c)
{
	static const char *const keys[] = { "mode", "held", "factor", "runs", "run_scatter",
	                                    "base_params_version", "base_name", NULL };
	static const char *const required[] = { "mode", "factor", "runs", NULL };
	char p[WC__JSON_PATH_MAX], mode[16], held[256];
	int rc;
	memset(c, 0, sizeof *c);
	c->run_scatter = NAN;
	if (!v || json_is_null(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)))
		return rc;
	wc__json_join(p, path, "mode");
	if ((rc = wc__json_string(ld, json_object_get(v, "mode"), p, 0, mode, sizeof mode)))
		return rc;
	if (wc_ft_cal_mode_from_name(mode, &c->mode) != WC_OK)
		return wc__json_fail(ld, p, "expected \"scale\" or \"kappa\", got \"%s\"", mode);
	wc__json_join(p, path, "factor");
	if ((rc = wc__params_read_param(ld, json_object_get(v, "factor"), p, 0, &c->factor)))
		return rc;
	if (!(c->factor.value > 0))
		return wc__json_fail(ld, p, "must be > 0, got %s", WC_NUM_TEXT(c->factor.value));
	if ((rc = read_int(ld, v, path, "runs", 1, WC_FT_MAX_INT, &c->runs)) ||
	    (rc = wc__json_optional_number(ld, v, path, "run_scatter", 0, 10.0, &c->run_scatter)) ||
	    (rc = wc__json_optional_string(ld, v, path, "held", held, sizeof held)) ||
	    (rc = wc__json_optional_string(ld, v, path, "base_params_version", c->base_version,
	                                   sizeof c->base_version)) ||
	    (rc = wc__json_optional_string(ld, v, path, "base_name", c->base_name, sizeof c->base_name)))
		return rc;
	c->present = 1;
	return WC_OK;
}

/* The placeholder a schema-2 file could hold before the law existed. */
static int
is_placeholder(json_t *v)
{
	const char *key;
	json_t *x;
	json_object_foreach(v, key, x) if (strcmp(key, "draws") != 0) return 0;
	return 1;
}

int
wc__params_read_finetune(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *out)
{
	static const char *const allowed[] = { "calibration", "compute", "ranges", "relations", "draws",
	                                       "calibrated", NULL };
	static const char *const required[] = { "calibration", "compute", "relations", NULL };
	char p[WC__JSON_PATH_MAX];
	json_t *x;
	int rc;
	wc_finetune_params_clear(out);
	if (json_is_object(v) && is_placeholder(v))
		return WC_OK;
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)))
		return rc;
	wc__json_join(p, path, "calibration");
	if ((rc = read_calibration(ld, json_object_get(v, "calibration"), p, out)))
		return rc;
	wc__json_join(p, path, "compute");
	if ((rc = read_compute(ld, json_object_get(v, "compute"), p, out)))
		return rc;
	wc__json_join(p, path, "calibrated");
	if ((rc = read_calibrated(ld, json_object_get(v, "calibrated"), p, &out->calibrated)))
		return rc;
	wc__json_join(p, path, "ranges");
	if ((rc = read_ranges(ld, json_object_get(v, "ranges"), p, &out->ranges)))
		return rc;
	wc__json_join(p, path, "relations");
	if ((rc = read_relations(ld, json_object_get(v, "relations"), p, out)))
		return rc;
	if ((x = json_object_get(v, "draws")) && !json_is_null(x)) {
		wc__json_join(p, path, "draws");
		if ((rc = wc__params_read_draws(ld, x, p, &out->draws)))
			return rc;
	}
	out->present = 1;
	return WC_OK;
}

/* ------------------------------------------------------------ write */

static json_t *
span_json(const wc_ft_span *s)
{
	return isfinite(s->lo) && isfinite(s->hi) ? json_pack("[ff]", s->lo, s->hi) : json_null();
}

static json_t *
base_json(const wc_ft_config *c, double fill)
{
	json_t *o = json_object();
	json_object_set_new(o, "method", json_string(wc_ft_method_name(c->method)));
	json_object_set_new(o, "params_b", json_real(c->params_b));
	json_object_set_new(o, "layers", json_integer(c->layers));
	json_object_set_new(o, "d_model", json_integer(c->d_model));
	json_object_set_new(o, "attention_heads", json_integer(c->attention_heads));
	json_object_set_new(o, "kv_heads", json_integer(c->kv_heads));
	json_object_set_new(o, "head_dim", json_integer(c->head_dim));
	json_object_set_new(o, "lora_rank", json_integer(c->lora_rank));
	json_object_set_new(o, "micro_batch", json_integer(c->micro_batch));
	json_object_set_new(o, "seq_len", json_integer(c->seq_len));
	json_object_set_new(o, "grad_accum", json_integer(c->grad_accum));
	json_object_set_new(o, "gpus", json_integer(c->gpus));
	json_object_set_new(o, "data_parallel", json_integer(wc_ft_replicas(c)));
	json_object_set_new(o, "checkpointing", json_boolean(c->checkpointing));
	json_object_set_new(o, "step_fill", json_real(isfinite(fill) && fill > 0 ? fill : 1.0));
	return o;
}

static json_t *
relation_json(wc_ft_relation_kind k, const wc_ft_relation *r)
{
	if (!r->present)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "form", json_string(wc_ft_relation_form(k)));
	for (int j = 0; j < 3; j++) {
		char key[2] = { (char)('a' + j), '\0' };
		json_object_set_new(o, key, j < wc_ft_relation_terms(k) ? wc__params_param_json(&r->coef[j])
		                                                        : json_null());
	}
	json_object_set_new(o, "r2", wc__json_number_or_null(r->r2));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "levels", json_integer(r->levels));
	json_object_set_new(o, "x_range", span_json(&r->x));
	json_object_set_new(o, "base", r->has_base ? base_json(&r->base, r->fill) : json_null());
	return o;
}

static json_t *
ranges_json(const wc_ft_ranges *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "micro_batch", span_json(&r->micro_batch));
	json_object_set_new(o, "seq_len", span_json(&r->seq_len));
	json_object_set_new(o, "params_b", span_json(&r->params_b));
	json_object_set_new(o, "gpus", span_json(&r->gpus));
	json_object_set_new(o, "lora_rank", span_json(&r->lora_rank));
	json_object_set_new(o, "flops_per_step_tflop", span_json(&r->flops_tflop));
	/* Left out when unknown (schema 11; the published section and older
	 * ones dump as before). */
	if (isfinite(r->fixed_share.lo) && isfinite(r->fixed_share.hi))
		json_object_set_new(o, "fixed_share", span_json(&r->fixed_share));
	return o;
}

static json_t *
calibrated_json(const wc_ft_calibrated *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "mode", json_string(wc_ft_cal_mode_name(c->mode)));
	json_object_set_new(o, "held", json_string(wc_ft_cal_mode_held(c->mode)));
	json_object_set_new(o, "factor", wc__params_param_json(&c->factor));
	json_object_set_new(o, "runs", json_integer(c->runs));
	json_object_set_new(o, "run_scatter", wc__json_number_or_null(c->run_scatter));
	json_object_set_new(o, "base_params_version", c->base_version[0] ? wc__json_text(c->base_version) : json_null());
	json_object_set_new(o, "base_name", c->base_name[0] ? wc__json_text(c->base_name) : json_null());
	return o;
}

json_t *
wc__params_finetune_json(const wc_finetune_params *f, int with_draws)
{
	json_t *o = json_object(), *methods = json_array(), *rel = json_object();
	for (int m = 0; m < WC_FT_METHOD_COUNT; m++)
		if (f->methods & (1u << m))
			json_array_append_new(methods, json_string(wc_ft_method_name((wc_ft_method)m)));
	json_object_set_new(o, "calibration", json_pack("{s:o,s:o,s:o,s:i,s:o,s:I,s:i}",
	                    "platform", wc__json_text(f->platform),
	                    "stack", f->stack[0] ? wc__json_text(f->stack) : json_null(),
	                    "methods", methods, "runs", f->runs,
	                    "input_sha256", f->input_sha256[0] ? wc__json_text(f->input_sha256) : json_null(),
	                    "seed", (json_int_t)f->seed, "bootstrap", f->bootstrap));
	if (f->created_utc[0]) /* schema 10; older sections dump as before */
		json_object_set_new(json_object_get(o, "calibration"), "created_utc", wc__json_text(f->created_utc));
	json_t *compute = json_pack("{s:o,s:o,s:o,s:o,s:o,s:s}",
	                            "e0_j", wc__params_param_json(&f->e0),
	                            "kappa_j_per_tflop", wc__params_param_json(&f->kappa),
	                            "e0_se_j", wc__json_number_or_null(f->e0_se),
	                            "kappa_se_j_per_tflop", wc__json_number_or_null(f->kappa_se),
	                            "r2", wc__json_number_or_null(f->r2), "e0_per", wc_ft_e0_scope_name(f->e0_scope));
	/* Left out when unknown, like "calibrated" below: the published
	 * section's canonical form gains only e0_per. */
	if (compute && isfinite(f->residual_rms))
		json_object_set_new(compute, "residual_rms", json_real(f->residual_rms));
	json_object_set_new(o, "compute", compute);
	if (f->calibrated.present)
		json_object_set_new(o, "calibrated", calibrated_json(&f->calibrated));
	json_object_set_new(o, "ranges", ranges_json(&f->ranges));
	for (int k = 0; k < WC_FT_REL_COUNT; k++)
		json_object_set_new(rel, wc_ft_relation_name((wc_ft_relation_kind)k),
		                    relation_json((wc_ft_relation_kind)k, &f->relations[k]));
	json_object_set_new(o, "relations", rel);
	json_object_set_new(o, "draws", with_draws && f->draws.n > 0 ? wc__params_draws_json(&f->draws)
	                                                              : json_null());
	return o;
}

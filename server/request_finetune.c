/*
 * One fine-tuning request object -> a prediction (docs/http-api.md, "POST
 * /v1/predict/finetune"), strictly: unknown fields, wrong types and
 * invalid values are 422 with the JSON pointer of the field; an unknown
 * model name is 404. Serves POST /v1/predict/finetune and each item of
 * POST /v1/predict/finetune/batch.
 *
 * Fields: method; model | active_params_b (+ layers, d_model); micro_batch,
 * seq_len, grad_accum, gpus, data_parallel, lora_rank, checkpointing,
 * tokens_per_step, steps, platform; profile (docs/http-api.md, "Profiles").
 */
#include "render_internal.h"
#include "requests_internal.h"

#include "data/data.h"
#include "models/catalog.h"
#include "models/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_fields[] = {
	"method", "model", "active_params_b", "layers", "d_model", "micro_batch", "seq_len",
	"grad_accum", "gpus", "data_parallel", "lora_rank", "checkpointing", "tokens_per_step",
	"steps", "platform", "profile", NULL,
};

static int
fail(wc_api_error *e, const char *code, const char *field, const char *fmt, const char *a, const char *b)
{
	char msg[WC_ERROR_MSG_MAX];
	wc_error_format(msg, sizeof msg, fmt, a, b); /* b: a number as WC_NUM_TEXT quotes it */
	wc_api_error_set(e, 422, code, field, "%s: %s", field + 1, msg);
	return -1;
}

/* An integer field in [min, max]; absent gives `dflt` (or missing_field
 * when `required`). 2.0 counts as 2, 1.5 is not an integer. */
static int
get_int(const json_t *obj, const char *name, long min, long max, int required, int dflt, int *out,
        wc_api_error *e)
{
	char field[64] = "";
	const json_t *v = json_object_get(obj, name);
	wc_json_pointer_append(field, sizeof field, name);
	if (!v) {
		*out = dflt;
		return required ? fail(e, "missing_field", field, "%srequired", "", 0) : 0;
	}
	if (!json_is_number(v))
		return fail(e, "wrong_type", field, "expected an integer, got %s", wc_json_type_name(v), "");
	double x = json_number_value(v);
	if (x != floor(x))
		return fail(e, "wrong_type", field, "%sexpected an integer, got %s", "", WC_NUM_TEXT(x));
	if (x < min || x > max) {
		char why[96];
		snprintf(why, sizeof why, "%%smust be an integer between %ld and %ld, got %%s", min, max);
		return fail(e, "invalid_value", field, why, "", wc_api_value_text((char[32]){ 0 }, v, x));
	}
	*out = (int)x;
	return 0;
}

/* A number > 0 (or >= 0 with `zero_ok`); absent leaves `*out`. */
static int
get_number(const json_t *obj, const char *name, int zero_ok, double *out, wc_api_error *e)
{
	char field[64] = "";
	const json_t *v = json_object_get(obj, name);
	if (!v)
		return 0;
	wc_json_pointer_append(field, sizeof field, name);
	if (!json_is_number(v))
		return fail(e, "wrong_type", field, "expected a number, got %s", wc_json_type_name(v), "");
	double x = json_number_value(v);
	if (zero_ok ? !(x >= 0) : !(x > 0))
		return fail(e, "invalid_value", field, zero_ok ? "%smust be >= 0, got %s" : "%smust be > 0, got %s",
		            "", wc_api_value_text((char[32]){ 0 }, v, x));
	*out = x;
	return 0;
}

static int
check_fields(const json_t *item, wc_api_error *e)
{
	if (!json_is_object(item)) {
		wc_api_error_set(e, 422, "wrong_type", "", "expected a JSON object, got %s", wc_json_type_name(item));
		return -1;
	}
	return wc_api_check_fields(item, "", known_fields, NULL, e);
}

static int
parse_method(const json_t *item, wc_ft_config *c, wc_api_error *e)
{
	const json_t *v = json_object_get(item, "method");
	if (!v)
		return fail(e, "missing_field", "/method", "%srequired (full, lora or qlora)", "", "");
	if (!json_is_string(v))
		return fail(e, "wrong_type", "/method", "expected a string, got %s", wc_json_type_name(v), "");
	if (wc_ft_method_from_name(json_string_value(v), &c->method) != WC_OK) {
		char got[48]; /* a cut inside a character reads "..." (wc_api_error_set) */
		snprintf(got, sizeof got, "%.*s", (int)wc_utf8_prefix(json_string_value(v), 40), json_string_value(v));
		return fail(e, "invalid_value", "/method", "expected \"full\", \"lora\" or \"qlora\", got \"%s\"", got, "");
	}
	return 0;
}

/* The model: a catalog name, or active_params_b with layers and d_model,
 * beside which a name the catalog does not answer names a model of its
 * own, as inference takes it (docs/capacity.md, "Model names"). */
static int
parse_model(const json_t *item, wc_ft_config *c, wc_api_error *e)
{
	const json_t *model = json_object_get(item, "model");
	int have_active = json_object_get(item, "active_params_b") != NULL;
	if (model && !json_is_string(model))
		return fail(e, "wrong_type", "/model", "expected a string, got %s", wc_json_type_name(model), "");
	const wc_model_info *m = model ? wc_model_lookup(json_string_value(model)) : NULL;
	if (m && have_active) {
		char why[160];
		snprintf(why, sizeof why, "\"%.*s\" is the catalog's %s (%g B): give model or active_params_b, not both",
		         (int)wc_utf8_prefix(json_string_value(model), 64), json_string_value(model), m->name,
		         m->total_params_b);
		return fail(e, "conflicting_fields", "/model", "%s", why, "");
	}
	if (m) {
		const char *shape = json_object_get(item, "layers") ? "/layers"
		                    : json_object_get(item, "d_model") ? "/d_model" : NULL;
		if (shape)
			return fail(e, "conflicting_fields", shape, "%sonly with active_params_b (model gives its own)", "", "");
		wc_ft_config_from_model(c, m);
		c->model_name = json_string_value(model);
		return 0;
	}
	if (model && !have_active)
		return wc_api_unknown_model(e, json_string_value(model), "give its active_params_b, layers and d_model "
		                            "beside it");
	c->model_name = model ? json_string_value(model) : NULL;
	if (!have_active)
		return fail(e, "missing_field", "/active_params_b", "%srequired (or give a catalog model name in model)", "", "");
	if (get_number(item, "active_params_b", 0, &c->params_b, e) < 0 ||
	    get_int(item, "layers", 1, WC_FT_MAX_LAYERS, 1, 0, &c->layers, e) < 0 ||
	    get_int(item, "d_model", 1, WC_FT_MAX_D_MODEL, 1, 0, &c->d_model, e) < 0)
		return -1;
	return 0;
}

static int
parse_shape(const json_t *item, wc_ft_config *c, wc_api_error *e)
{
	const json_t *ck = json_object_get(item, "checkpointing");
	if (get_int(item, "micro_batch", 1, WC_FT_MAX_INT, 1, 0, &c->micro_batch, e) < 0 ||
	    get_int(item, "seq_len", 1, WC_FT_MAX_INT, 1, 0, &c->seq_len, e) < 0 ||
	    get_int(item, "grad_accum", 1, WC_FT_MAX_INT, 0, 1, &c->grad_accum, e) < 0 ||
	    get_int(item, "gpus", 1, WC_FT_MAX_GPUS, 0, 1, &c->gpus, e) < 0 ||
	    get_int(item, "data_parallel", 1, WC_FT_MAX_GPUS, 0, 0, &c->data_parallel, e) < 0 ||
	    get_number(item, "tokens_per_step", 0, &c->tokens_per_step, e) < 0)
		return -1;
	if (ck && !json_is_boolean(ck))
		return fail(e, "wrong_type", "/checkpointing", "expected true or false, got %s", wc_json_type_name(ck), "");
	c->checkpointing = ck && json_is_true(ck);
	if (c->data_parallel > 0 && c->gpus % c->data_parallel != 0)
		return fail(e, "invalid_value", "/data_parallel", "%smust divide gpus, got %s", "", WC_NUM_TEXT(c->data_parallel));
	const json_t *rank = json_object_get(item, "lora_rank");
	if (c->method == WC_FT_FULL && rank)
		return fail(e, "conflicting_fields", "/lora_rank", "%sonly for lora and qlora", "", "");
	if (c->method != WC_FT_FULL)
		return get_int(item, "lora_rank", 1, WC_FT_MAX_LORA_RANK, 1, 0, &c->lora_rank, e);
	return 0;
}

static int
parse_query(const json_t *item, const wc_state *st, wc_finetune_query *q, wc_api_error *e)
{
	const json_t *platform = json_object_get(item, "platform");
	memset(q, 0, sizeof *q);
	q->config = (wc_ft_config)WC_FT_CONFIG_INIT;
	q->steps = NAN;
	q->want_interval = 1;
	if (check_fields(item, e) < 0 || parse_method(item, &q->config, e) < 0 ||
	    parse_model(item, &q->config, e) < 0 || parse_shape(item, &q->config, e) < 0 ||
	    get_number(item, "steps", 1, &q->steps, e) < 0)
		return -1;
	/* the predictor's rule, said here with the value as sent (docs/http-api.md,
	 * "Errors"): the predictor's message read 100000000000000001 as 1e+17 */
	wc_error err;
	if (wc_ft_steps_check(q->steps, &err) != WC_OK)
		return wc_api_refused_value(e, "/steps", json_object_get(item, "steps"), q->steps, err.msg);
	if (platform && !json_is_string(platform))
		return fail(e, "wrong_type", "/platform", "expected a string, got %s", wc_json_type_name(platform), "");
	if (!platform)
		return 0;
	/* A platform is the fine-tuning law's own calibration platform (any
	 * name, as ingest and fit take any), a level of the set or a catalog
	 * board, as on every other route (docs/http-api.md, "POST
	 * /v1/predict/inference"); the law is the set's one fine-tuning level
	 * whichever it is, but a name nothing knows is a typo, not another
	 * GPU. Answered under the catalog's name (h100-sxm5 is H100); the
	 * message lists every name accepted. */
	const char *asked = json_string_value(platform);
	const wc_params *params = wc_predictor_params(st->pred);
	if (!(q->platform = wc_finetune_platform(params, asked))) {
		char msg[WC_ERROR_MSG_MAX];
		wc_finetune_unknown_platform(params, "platform", '"', asked, "GET /v1/platforms", msg);
		wc_api_error_set(e, 422, "unknown_platform", "/platform", "%s", msg);
		return -1;
	}
	return 0;
}

/* The predictor's messages start with the field; map it to the request's. */
static void
predictor_error(const wc_error *err, wc_api_error *e)
{
	static const struct { const char *msg, *field; } map[] = {
		{ "params_b", "/active_params_b" }, { "layers", "/layers" }, { "d_model", "/d_model" },
		{ "lora_rank", "/lora_rank" }, { "micro_batch", "/micro_batch" }, { "seq_len", "/seq_len" },
		{ "grad_accum", "/grad_accum" }, { "gpus", "/gpus" }, { "data_parallel", "/data_parallel" },
		{ "tokens_per_step", "/tokens_per_step" }, { "steps", "/steps" }, { "platform", "/platform" },
		{ "model", "/model" }, { "finetune", "" },
	};
	const char *field = "", *rest = err->msg;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		size_t n = strlen(map[i].msg);
		if (strncmp(err->msg, map[i].msg, n) == 0 && err->msg[n] == ':') {
			field = map[i].field;
			rest = err->msg + n;
		}
	}
	if (err->code == WC_ENOMEM)
		wc_api_error_set(e, 500, "internal", NULL, "%s", err->msg);
	else if (field[0]) /* a message starts with the field's name as the request spells it
	                    * (docs/http-api.md, "Errors"): the library's params_b is /active_params_b */
		wc_api_error_set(e, 422, "invalid_value", field, "%s%s", field + 1, rest);
	else if (strncmp(err->msg, "finetune:", 9) == 0)
		/* The set has a law and it gives this configuration no energy
		 * (e0 < 0 and a small step): the configuration's refusal, not a
		 * missing law (docs/http-api.md, "Errors"). */
		wc_api_error_set(e, 422, err->code == WC_ERANGE ? "law_gives_no_energy" : "no_finetune_law", field,
		                 "%s", err->msg);
	else
		wc_api_error_set(e, 422, "invalid_value", field, "%s", err->msg);
}

json_t *
wc_finetune_answer(const json_t *item, const wc_profiles *pf, wc_api_error *e)
{
	wc_finetune_query q;
	wc_error err;
	json_t *out = NULL;
	const wc_state *st;
	/* Worker stacks are small (http_internal.h): the prediction, with
	 * its warnings, lives on the heap. */
	wc_finetune_prediction *pred = malloc(sizeof *pred);
	if (!pred) {
		wc_api_error_set(e, 500, "internal", NULL, "out of memory");
		return NULL;
	}
	if (!(st = wc_profiles_select(pf, item, e)) || parse_query(item, st, &q, e) < 0)
		goto done;
	if (wc_predict_finetune(st->pred, &q, pred, &err) != WC_OK) {
		predictor_error(&err, e);
		goto done;
	}
	if (!(out = wc_finetune_json(&q, pred, st->version)))
		wc_api_error_set(e, 500, "internal", NULL, "out of memory rendering the answer");
done:
	free(pred);
	return out;
}

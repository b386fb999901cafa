/*
 * The bounds of server/openapi.json's request schemas are the ones the
 * server enforces (docs/http-api.md, "Limits"; the limits themselves live
 * in models/limits.h): for each bounded numeric field of the inference,
 * flexibility, envelope, budget, calibration and fine-tuning requests (the architecture
 * object's too), every probe value -- each bound the schema states,
 * a hair either side of it, zero, the smallest and largest doubles -- is
 * valid by the schema exactly when the server does not refuse it on that
 * field. A bound the server enforces and the schema omits (a client
 * generated from the document would send the value and get 422), or one
 * the schema states and the server does not, fails here. (The
 * calibration's bootstrap allowed 1, which the server refuses.)
 */
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/schema_check.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

static CURL *h;

/* A base body each route answers 200, and the fields probed over it. The
 * inference request's concurrency is probed without token lengths: with
 * them it is also at most 1e6 and not 0 (closed loop), a condition the
 * schema's keywords cannot state and its description does. */
#define INFER "\"platform\":\"H100\",\"model\":\"Qwen3-8B\""
#define TOKENS ",\"input_tokens\":512,\"output_tokens\":128"
#define NUMBERS "tp", "active_params_b", "rate", "input_tokens", "output_tokens", "price_per_kwh", \
	"grams_co2_per_kwh", "gpu_memory_utilization"
/* layers, kv_heads and head_dim are left out: the capacity answers refuse
 * 0 in them, with the token lengths only (the schema's description says so) */
#define ARCH "architecture/d_model", "architecture/total_params_b", "architecture/experts", \
	"architecture/cache_layers", "architecture/sliding_window"
#define ENVELOPE INFER ",\"workload\":{\"type\":\"closed\",\"concurrency\":16},\"horizon_s\":30"
static const struct {
	const char *schema, *route, *base;
	const char *fields[24];
} requests[] = {
	{ "InferenceRequest", "/v1/predict/inference", "{" INFER TOKENS ",\"concurrency\":8}", { NUMBERS, ARCH, NULL } },
	{ "InferenceRequest", "/v1/predict/inference", "{" INFER ",\"concurrency\":8}", { "concurrency", NULL } },
	{ "FlexibilityRequest", "/v1/predict/flexibility", "{" INFER TOKENS ",\"concurrency\":8,\"steps\":2}",
	  { NUMBERS, "concurrency", ARCH, NULL } },
	{ "EnvelopeRequest", "/v1/forecast/envelope", "{" ENVELOPE "}", { "tp", "active_params_b", NULL } },
	{ "BudgetRequest", "/v1/plan/budget", "{" ENVELOPE ",\"budget_w\":5000}",
	  { "tp", "active_params_b", "budget_w", NULL } },
	{ "FinetuneRequest", "/v1/predict/finetune", "{\"method\":\"qlora\",\"model\":\"Qwen3-0.6B\","
	  "\"micro_batch\":2,\"seq_len\":512,\"lora_rank\":64}", { "steps", "tokens_per_step", NULL } },
	/* parsed before the worker is looked for: 503 without one */
	{ "CalibrateRequest", "/v1/calibrate", "{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\","
	  "\"running\":32,\"mean_power_w\":575}]}", { "runs/0/tp", "runs/0/active_params_b", "bootstrap", NULL } },
};

/* Every bound `s` (or an anyOf branch of it) states, into b[]. */
static size_t
schema_bounds(const json_t *s, double *b, size_t n, size_t cap)
{
	static const char *const keys[] = { "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" };
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const json_t *v = json_object_get(s, keys[k]);
		if (json_is_number(v) && n < cap)
			b[n++] = json_number_value(v);
	}
	const json_t *any = json_object_get(s, "anyOf");
	for (size_t i = 0; i < json_array_size(any); i++)
		n = schema_bounds(json_array_get(any, i), b, n, cap);
	return n;
}

/* A whole number as a JSON integer (as a client would write tp), else a real. */
static json_t *
number(double x)
{
	return x == floor(x) && fabs(x) < 1e15 ? json_integer((json_int_t)x) : json_real(x);
}

/* Refused on `field` for its type or a bound (wc_api_invalid's "must be",
 * "at most", "expected"). The other 422s on a field -- a tp that does not divide the
 * model's heads, token lengths whose KV cache does not fit -- depend on the
 * model and the platform, which no schema bound can say. */
static int
refused_on(const http_reply *r, const char *field)
{
	const char *f = http_error_str(r, "field"), *code = http_error_str(r, "code"),
		   *msg = http_error_str(r, "message");
	if (r->status != 422 || !f || f[0] != '/' || strcmp(f + 1, field) != 0)
		return 0;
	return (code && strcmp(code, "wrong_type") == 0) ||
	       (msg && (strstr(msg, "must be") || strstr(msg, "at most") || strstr(msg, "expected")));
}

/* The schema of `field`, a JSON pointer without its leading '/' into the
 * request schema `name` (a number steps into "items"); NULL if none. */
static const json_t *
field_schema(const json_t *doc, const char *name, const char *field)
{
	const json_t *s = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), name);
	char seg[64];
	for (const char *p = field; s && *p;) {
		size_t n = strcspn(p, "/");
		snprintf(seg, sizeof seg, "%.*s", (int)n, p);
		s = wc_schema_resolve(s);
		s = isdigit((unsigned char)seg[0]) ? json_object_get(s, "items")
		                                   : json_object_get(json_object_get(s, "properties"), seg);
		p += n + (p[n] == '/');
	}
	return s ? wc_schema_resolve(s) : NULL;
}

/* The object of `body` that holds `field`'s last segment (made when
 * absent), and that segment in `last`. */
static json_t *
field_parent(json_t *body, const char *field, const char **last)
{
	json_t *o = body;
	char seg[64];
	const char *p = field;
	for (size_t n; o && p[n = strcspn(p, "/")] == '/'; p += n + 1) {
		snprintf(seg, sizeof seg, "%.*s", (int)n, p);
		json_t *c = isdigit((unsigned char)seg[0]) ? json_array_get(o, (size_t)atoi(seg)) : json_object_get(o, seg);
		if (!c)
			json_object_set_new(o, seg, c = json_object());
		o = c;
	}
	*last = p;
	return o;
}

static void
probe_field(const json_t *doc, size_t ri, const char *field)
{
	const json_t *s = field_schema(doc, requests[ri].schema, field);
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "  %s has no property %s\n", requests[ri].schema, field);
		return;
	}
	double b[16], probes[128];
	size_t nb = schema_bounds(s, b, 0, 16), np = 0;
	static const double fixed[] = { 0, -0.5, 0.5, 1, 2, 1e-300, -1e-300, 1e-7, 1e300, -1e300 };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		probes[np++] = fixed[i];
	for (size_t i = 0; i < nb; i++) {
		double d = b[i] != 0 ? fabs(b[i]) * 1e-7 : 1e-300;
		probes[np++] = b[i];
		probes[np++] = b[i] + d;
		probes[np++] = b[i] - d;
		probes[np++] = b[i] + 1;
		probes[np++] = b[i] - 1;
	}
	int refusals = 0;
	for (size_t i = 0; i < np; i++) {
		json_t *body = json_loads(requests[ri].base, 0, NULL);
		/* one load, one model: rate replaces the closed loop's running
		 * count, and active_params_b the catalog name (both together
		 * are 422 conflicting_fields) */
		const char *last;
		json_t *parent = field_parent(body, field, &last);
		if (strcmp(last, "rate") == 0)
			json_object_del(parent, "concurrency");
		if (strcmp(last, "active_params_b") == 0)
			json_object_set_new(parent, "model", json_string("my-own-model"));
		/* the rules between fields held for every value the schema
		 * allows: total >= active, cache_layers <= layers */
		if (strcmp(field, "architecture/total_params_b") == 0) {
			json_object_set_new(body, "model", json_string("my-own-model"));
			json_object_set_new(body, "active_params_b", json_real(WC_MODEL_MIN_PARAMS_B));
		}
		if (strcmp(last, "cache_layers") == 0)
			json_object_set_new(parent, "layers", json_integer(WC_MODEL_MAX_ARCH_INT));
		json_t *v = number(probes[i]);
		json_object_set(parent, last, v);
		char why[256] = "";
		int valid = wc_schema_validate(s, v, field, why, sizeof why);
		char *text = json_dumps(body, JSON_COMPACT);
		http_reply r;
		char url_buf[128];
		snprintf(url_buf, sizeof url_buf, "%s", url(requests[ri].route));
		http_post_json(h, url_buf, text, &r);
		int refused = refused_on(&r, field);
		refusals += refused;
		if (valid == refused) {
			CHECK(!"schema and server disagree");
			fprintf(stderr, "  %s %s = %.17g: schema %s, server %ld %s\n", requests[ri].schema, field, probes[i],
			        valid ? "valid" : why, r.status,
			        http_error_str(&r, "message") ? http_error_str(&r, "message") : "(no error)");
		}
		http_reply_free(&r);
		free(text);
		json_decref(v);
		json_decref(body);
	}
	/* each probed field has a bound the server enforces: a probe that
	 * never reaches it would pass vacuously */
	CHECK(refusals > 0);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p);
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	CHECK_INT(wc_server_start(&so, &p, NULL, &srv, &err), WC_OK);
	if (srv) {
		http_set_base(wc_server_port(srv));
		http_reply d;
		http_get(h, url("/openapi.json"), &d);
		CHECK_INT(d.status, 200);
		wc_schema_set_document(d.json);
		for (size_t ri = 0; d.json && ri < sizeof requests / sizeof requests[0]; ri++) {
			http_reply r;
			http_post_json(h, url(requests[ri].route), requests[ri].base, &r);
			/* 503 calibration_unavailable: the body passed */
			CHECK_INT(r.status, strcmp(requests[ri].route, "/v1/calibrate") == 0 ? 503 : 200);
			http_reply_free(&r);
			for (size_t fi = 0; requests[ri].fields[fi]; fi++)
				probe_field(d.json, ri, requests[ri].fields[fi]);
		}
		http_reply_free(&d);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_openapi_bounds");
}

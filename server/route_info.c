/*
 * Read-only routes: GET /v1/params (the loaded set, precomputed per
 * state), GET /v1/models (the catalog, precomputed at start-up),
 * GET /v1/health, and the benchmark's baseline GET /v1/bench/trivial.
 */
#include "render_internal.h"
#include "routes_internal.h"

#include "data/data.h"

#include <civetweb.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One pair of the query, decoded (application/x-www-form-urlencoded):
 * `key` and `val` (`val` NULL without "="); a decoded %00 would end either
 * C string early, so the decoded lengths are kept. */
typedef struct {
	char *key, *val;
	int klen, vlen;
} query_pair;

/* The refusal of pair `q` (docs/http-api.md, "GET /v1/params"): 0 when it
 * is the first profile with a value, whose name it leaves in q, or, where
 * the route reads it (`draws` not NULL), the first draws=0 or draws=1,
 * read into *draws. */
static int
pair_refused(const query_pair *q, int *seen, int *draws, int *draws_seen, wc_api_error *e)
{
	const int profile = strcmp(q->key, "profile") == 0 && q->klen == 7;
	const char *reads = draws ? "profile=NAME and draws=1" : "profile=NAME";
	char field[64];
	if ((size_t)q->klen != strlen(q->key)) {
		wc_api_error_set(e, 422, "unknown_field", "", "query parameter name holds a NUL (%%00): this route reads "
		                 "only %s", reads);
		return 1;
	}
	if (profile && q->val && ++*seen == 1)
		return 0;
	if (draws && strcmp(q->key, "draws") == 0) {
		const int ok = q->val && (strcmp(q->val, "0") == 0 || strcmp(q->val, "1") == 0) && q->vlen == 1;
		if (ok && ++*draws_seen == 1) {
			*draws = q->val[0] == '1';
			return 2;
		}
		if (ok)
			wc_api_error_set(e, 422, "invalid_value", "/draws", "draws: given more than once");
		else
			wc_api_error_set(e, 422, "invalid_value", "/draws", "draws: expected 0 or 1 (1: the file with "
			                 "its bootstrap draws), got '%.*s'", (int)wc_utf8_prefix(q->val ? q->val : "", 40),
			                 q->val ? q->val : "");
		return 1;
	}
	snprintf(field, sizeof field, "/%.*s", (int)wc_utf8_prefix(q->key, 40), q->key);
	if (profile && !q->val) /* "?profile": no value, as "?profile=" has an empty one */
		wc_api_error_set(e, 422, "invalid_value", "/profile",
		                 "profile: given without a value; send profile=NAME (see GET /v1/profiles)");
	else if (profile)
		wc_api_error_set(e, 422, "invalid_value", "/profile", "profile: given more than once");
	else if (!q->key[0])
		wc_api_error_set(e, 422, "unknown_field", "", "query parameter without a name (=%.*s): this "
		                 "route reads only %s", (int)wc_utf8_prefix(q->val ? q->val : "", 40),
		                 q->val ? q->val : "", reads);
	else
		wc_api_error_set(e, 422, "unknown_field", field, "%s: unknown query parameter (this route "
		                 "reads only %s)", field + 1, draws ? "profile and draws" : "profile");
	return 1;
}

const wc_state *
wc_request_profile(wc_request *req, wc_response *res, int *draws)
{
	const struct mg_request_info *ri = mg_get_request_info(req->conn);
	const wc_state *st = req->state;
	wc_api_error e;
	int draws_seen = 0;
	if (draws)
		*draws = 0;
	if (!ri->query_string)
		return st;
	/* profile alone, once: a misspelt key (?profle=paper) or a second
	 * profile answered from another set without a word (docs/http-api.md,
	 * "GET /v1/params"). Every pair is checked, however many (the head's
	 * size bounds them), and the profile is the value of the decoded pair
	 * accepted: ?%70rofile=paper is profile=paper. */
	const char *q = ri->query_string;
	const size_t cap = strlen(q) + 1;
	char *buf = malloc(3 * cap), *name = NULL;
	int seen = 0, refused = !buf, nlen = 0, rc;
	if (!buf)
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory");
	for (const char *p = q; buf && !refused;) {
		const char *end = strchr(p, '&');
		const size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		const size_t kl = eq ? (size_t)(eq - p) : len;
		/* an empty pair (a stray "&", leading or doubled) holds no key:
		 * skipped, as a trailing one is (WHATWG URL, the
		 * application/x-www-form-urlencoded parser) */
		if (len > 0) {
			query_pair qp = { buf, eq ? buf + cap : NULL, 0, 0 };
			qp.klen = mg_url_decode(p, (int)kl, qp.key, (int)cap, 1);
			qp.vlen = eq ? mg_url_decode(eq + 1, (int)(len - kl - 1), qp.val, (int)cap, 1) : 0;
			if (qp.klen < 0 || qp.vlen < 0) {
				wc_api_error_set(&e, 422, "invalid_value", "/profile", "profile: not a valid query value");
				refused = 1;
			} else if ((rc = pair_refused(&qp, &seen, draws, &draws_seen, &e)) == 1) {
				refused = 1;
			} else if (rc == 0) { /* kept apart: the next pair is decoded over key and val */
				name = buf + 2 * cap;
				memcpy(name, qp.val, (size_t)qp.vlen + 1);
				nlen = qp.vlen;
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	if (!refused && name) {
		refused = 1;
		if (nlen == 0) /* "?profile=": empty, as an empty string in a body is */
			wc_api_error_set(&e, 422, "invalid_value", "/profile", "profile: expected a non-empty string");
		/* A decoded %00 would end the C string early and answer the
		 * prefix's profile: refused as a NUL in a body is
		 * (docs/http-api.md, Limits). */
		else if (strlen(name) != (size_t)nlen)
			wc_api_error_set(&e, 422, "invalid_value", "/profile",
			                 "profile: holds a NUL (%%00); C strings would end there");
		else if (!(st = wc_profiles_find(req->profiles, name)))
			wc_profiles_unknown(req->profiles, name, &e);
		else
			refused = 0;
	}
	free(buf);
	if (refused) {
		wc_response_error(res, &e);
		return NULL;
	}
	return st;
}

/* GET /v1/params[?profile=NAME][&draws=1]: the default profile's set, or
 * the named one's, in the same shape; with draws=1 the whole file, its
 * bootstrap draws too, so that saved it is the set its params_version
 * names (docs/http-api.md, "GET /v1/params"). */
void
wc_route_params(wc_request *req, wc_response *res)
{
	int draws;
	const wc_state *st = wc_request_profile(req, res, &draws);
	if (!st)
		return;
	/* The body lives as long as the profiles, which the request holds;
	 * the one with draws is built by the first request that asks. */
	const char *body = st->params_body;
	size_t len = st->params_len;
	wc_error err = { 0 };
	wc_api_error e;
	if (draws && wc_state_params_whole(st, &body, &len, &err) != WC_OK) {
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory rendering the set with its draws; GET "
		                 "/v1/params without draws=1 gives it without them");
		wc_response_error(res, &e);
		return;
	}
	if (!body) {
		wc_api_error_set(&e, 413, "answer_too_large", "/draws", "draws: the set with its draws is %zu bytes, more than "
		                 "a parameter file may be (%zu, WC_PARAMS_MAX_BYTES); GET /v1/params without draws=1 "
		                 "gives it without them", len, (size_t)WC_PARAMS_MAX_BYTES);
		wc_response_error(res, &e);
		return;
	}
	wc_response_static(res, 200, NULL, body, len);
}

void
wc_route_profiles(wc_request *req, wc_response *res)
{
	wc_response_static(res, 200, NULL, req->profiles->profiles_body, req->profiles->profiles_len);
}

void
wc_route_models(wc_request *req, wc_response *res)
{
	wc_response_static(res, 200, NULL, req->srv->models_body, req->srv->models_len);
}

void
wc_route_health(wc_request *req, wc_response *res)
{
	const wc_state *st = req->state;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double up = (double)(now.tv_sec - req->srv->started.tv_sec) +
	            1e-9 * (double)(now.tv_nsec - req->srv->started.tv_nsec);
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:i,s:i,s:i}", "status", "ok",
	                      "params_version", st->version,
	                      "params_name", wc_predictor_params(st->pred)->name,
	                      "loaded_utc", st->loaded_utc, "uptime_s", up,
	                      "in_flight", atomic_load(&req->srv->in_flight),
	                      "profiles", req->profiles->n,
	                      "heavy_in_flight", atomic_load(&req->srv->heavy),
	                      "max_heavy", req->srv->max_heavy);
	wc_response_json(res, 200, o);
}

void
wc_route_bench_trivial(wc_request *req, wc_response *res)
{
	static const char body[] = "{\"ok\":true}";
	(void)req;
	wc_response_static(res, 200, NULL, body, sizeof body - 1);
}

/* Zero means "not stated" in the catalog; say so with null. */
static json_t *
count_or_null(int v)
{
	return v > 0 ? json_integer(v) : json_null();
}

/* The catalog's models, one object each: what GET /v1/models lists and
 * `wattcast models --json` prints (docs/cli.md, "models"). */
static json_t *
models_array(void)
{
	json_t *list = json_array();
	for (size_t i = 0; list && i < wc_model_count(); i++) {
		const wc_model_info *m = wc_model_at(i);
		json_t *o = json_pack("{s:s,s:s,s:f,s:f,s:o,s:o,s:o,s:o,s:o,s:i,s:i,s:o,s:o,s:s,s:o}",
		                      "name", m->name, "architecture", wc_architecture_name(m->architecture),
		                      "total_params_b", m->total_params_b,
		                      "active_params_b", m->active_params_b,
		                      "layers", count_or_null(m->layers),
		                      "d_model", count_or_null(m->d_model),
		                      "attention_heads", count_or_null(m->attention_heads),
		                      "kv_heads", count_or_null(m->kv_heads),
		                      "head_dim", count_or_null(m->head_dim),
		                      "experts", m->experts,
		                      "experts_per_token", m->experts_per_token,
		                      "cache_layers", count_or_null(m->attention_layers > 0 ? m->attention_layers : m->layers),
		                      "sliding_window", count_or_null(m->window),
		                      "weights", wc_precision_name((wc_precision)m->weights),
		                      "context_tokens", count_or_null(m->context_tokens));
		if (!o || json_array_append_new(list, o) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

char *
wc_render_models(int indent, wc_error *err)
{
	json_t *list = models_array();
	char *s = list ? json_dumps(list, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) |
	                                  (indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT)) : NULL;
	json_decref(list);
	if (!s)
		wc_error_set(err, WC_ENOMEM, "models: out of memory");
	return s;
}

char *
wc_models_body(size_t *len)
{
	json_t *root = json_object(), *list = models_array();
	char *s = NULL;
	if (!root || !list)
		goto done;
	json_object_set_new(root, "count", json_integer((json_int_t)wc_model_count()));
	json_object_set(root, "models", list);
	s = json_dumps(root, WC_JSON_FLAGS);
done:
	json_decref(list);
	json_decref(root);
	*len = s ? strlen(s) : 0;
	return s;
}

/*
 * The parameter state handlers read: a predictor (which owns its copy of
 * the parameters), the version tag and the precomputed GET /v1/params
 * answer. Built completely before it is published, never changed after,
 * freed by whoever drops the last reference (C11 atomics), so a reload
 * never disturbs a request that is still using the previous set.
 */
#include "state_internal.h"

#include "data/data.h"
#include "models/limits.h"
#include "models/warnings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* {"params_version", "name", "source", "loaded_utc", "n_draws",
 * "draws_included", "params", "warnings"}: the parameter file's canonical
 * form, with its bootstrap draws (`with_draws`) or without them (they can
 * be megabytes; their count is reported, and a warning says that saved
 * this is another set: docs/http-api.md, "GET /v1/params"). */
static char *
params_answer(const wc_state *st, const wc_params *p, int with_draws, wc_error *err)
{
	json_error_t jerr;
	char *dump = wc_params_dump(p, with_draws, err);
	if (!dump)
		return NULL;
	json_t *params = json_loads(dump, 0, &jerr), *warnings = json_array();
	free(dump);
	if (!with_draws && p->n_draws > 0 && warnings) {
		char msg[WC_WARNING_LEN];
		snprintf(msg, sizeof msg, "params: draws: the %d bootstrap draws are left out (\"draws\": null): saved, "
		         "this is another set, with another params_version and narrower intervals; "
		         "GET /v1/params?draws=1 gives the whole file", p->n_draws);
		json_array_append_new(warnings, json_string(msg));
	}
	json_t *root = params && warnings ? json_pack("{s:s,s:s,s:s,s:s,s:i,s:b,s:O,s:O}", "params_version",
	                                              st->version, "name", p->name, "source", st->source,
	                                              "loaded_utc", st->loaded_utc, "n_draws", p->n_draws,
	                                              "draws_included", with_draws || p->n_draws == 0, "params",
	                                              params, "warnings", warnings) : NULL;
	json_decref(params);
	json_decref(warnings);
	char *body = root ? json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	if (!body)
		wc_error_set(err, WC_ENOMEM, "%s: params: cannot render GET /v1/params (out of memory)", st->source);
	return body;
}

/* GET /v1/params without draws, the answer every load serves. */
static int
params_body(wc_state *st, const wc_params *p, wc_error *err)
{
	if (!(st->params_body = params_answer(st, p, 0, err)))
		return err->code;
	st->params_len = strlen(st->params_body);
	return WC_OK;
}

static atomic_ulong whole_renders;

unsigned long
wc__state_whole_renders(void)
{
	return atomic_load(&whole_renders);
}

/* The answer with draws is kept only when it could be read back as a
 * parameter file (WC_PARAMS_MAX_BYTES): past it ?draws=1 is refused,
 * naming its size. Rendered once, on the first request that asks: a set
 * of 64 MiB of draws held per profile and rebuilt at every reload, asked
 * or not, cost the memory and the reload's time (docs/http-api.md, "GET
 * /v1/params"). */
int
wc_state_params_whole(const wc_state *cst, const char **body, size_t *len, wc_error *err)
{
	/* only the lazily built fields change, under the lock: the state is
	 * allocated writable (wc_state_new) */
	wc_state *st = (wc_state *)cst;
	const wc_params *p = wc_predictor_params(st->pred);
	int rc = WC_OK;
	if (p->n_draws == 0) {
		*body = st->params_body;
		*len = st->params_len;
		return WC_OK;
	}
	if (!atomic_load_explicit(&st->whole_built, memory_order_acquire)) {
		pthread_mutex_lock(&st->whole_lock);
		if (!atomic_load_explicit(&st->whole_built, memory_order_relaxed)) {
			char *whole = params_answer(st, p, 1, err);
			if (whole) {
				atomic_fetch_add(&whole_renders, 1);
				st->params_whole_len = strlen(whole);
				if (st->params_whole_len > WC_PARAMS_MAX_BYTES)
					free(whole);
				else
					st->params_whole_body = whole;
				atomic_store_explicit(&st->whole_built, 1, memory_order_release);
			} else {
				rc = err->code;
			}
		}
		pthread_mutex_unlock(&st->whole_lock);
	}
	*body = st->params_whole_body;
	*len = st->params_whole_len;
	return rc;
}

int
wc_state_new(const wc_params *p, const char *source, wc_state **out, wc_error *err)
{
	int rc;
	struct timespec now;
	wc_state *st = calloc(1, sizeof *st);

	*out = NULL;
	if (!st)
		return wc_error_set(err, WC_ENOMEM, "params: out of memory");
	atomic_init(&st->refs, 1);
	atomic_init(&st->whole_built, 0);
	pthread_mutex_init(&st->whole_lock, NULL);
	/* shown in GET /v1/params and /v1/profiles: a path's bytes as UTF-8 */
	wc_utf8_mend(source ? source : "", st->source, sizeof st->source);
	clock_gettime(CLOCK_REALTIME, &now);
	st->loaded_unix = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
	wc_utc_now(st->loaded_utc);
	if ((rc = wc_predictor_new(p, &st->pred, err)) != WC_OK ||
	    (rc = wc_params_fingerprint(p, st->version, err)) != WC_OK ||
	    (rc = params_body(st, p, err)) != WC_OK) {
		wc_state_release(st);
		return rc;
	}
	*out = st;
	return WC_OK;
}

void
wc_state_retain(wc_state *st)
{
	atomic_fetch_add_explicit(&st->refs, 1, memory_order_relaxed);
}

void
wc_state_release(wc_state *st)
{
	if (!st)
		return;
	/* acq_rel: the freeing thread must see every other holder's reads done. */
	if (atomic_fetch_sub_explicit(&st->refs, 1, memory_order_acq_rel) != 1)
		return;
	wc_predictor_free(st->pred);
	pthread_mutex_destroy(&st->whole_lock);
	free(st->params_body);
	free(st->params_whole_body);
	free(st);
}

/* ------------------------------------------------------------- profiles */

static const char *
state_name(const wc_state *st)
{
	return wc_predictor_params(st->pred)->name;
}

/* GET /v1/profiles: {"default", "count", "profiles": [{name,
 * params_version, source, loaded_utc, levels, model_terms, n_draws}]}. */
static int
profiles_body(wc_profiles *pf, wc_error *err)
{
	json_t *list = json_array();
	for (int i = 0; list && i < pf->n; i++) {
		const wc_state *st = pf->st[i];
		const wc_params *p = wc_predictor_params(st->pred);
		json_t *levels = json_array();
		for (int l = 0; levels && l < p->n_levels; l++)
			json_array_append_new(levels, json_string(p->levels[l].name));
		json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:o,s:i,s:i}", "name", p->name,
		                                      "params_version", st->version, "source", st->source,
		                                      "loaded_utc", st->loaded_utc, "levels", levels,
		                                      "model_terms", p->n_model_terms, "n_draws", p->n_draws));
	}
	json_t *root = list ? json_pack("{s:s,s:i,s:o}", "default", state_name(pf->st[0]), "count", pf->n,
	                                "profiles", list) : NULL;
	pf->profiles_body = root ? json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;
	json_decref(root);
	if (!pf->profiles_body)
		return wc_error_set(err, WC_ENOMEM, "profiles: cannot render GET /v1/profiles");
	pf->profiles_len = strlen(pf->profiles_body);
	return WC_OK;
}

static int
add_profile(wc_profiles *pf, const wc_params *p, const char *source, wc_error *err)
{
	for (int j = 0; j < pf->n; j++)
		if (strcmp(state_name(pf->st[j]), p->name) == 0)
			return wc_error_set(err, WC_EINVAL,
			                    "%s: profile name '%s' is also the name of %s; profiles need distinct "
			                    "names (wattcast fit/calibrate --name)", source ? source : "params",
			                    p->name, pf->st[j]->source);
	int rc = wc_state_new(p, source, &pf->st[pf->n], err);
	if (rc != WC_OK)
		return rc;
	pf->n++;
	return WC_OK;
}

int
wc_profiles_new(int n, const wc_params *const *sets, const char *const *sources, wc_profiles **out,
                wc_error *err)
{
	int rc = WC_OK;
	*out = NULL;
	if (n < 1 || n > WC_SERVER_MAX_PROFILES)
		return wc_error_set(err, WC_EINVAL, "profiles: serve 1 to %d parameter sets",
		                    WC_SERVER_MAX_PROFILES);
	wc_profiles *pf = calloc(1, sizeof *pf);
	if (!pf)
		return wc_error_set(err, WC_ENOMEM, "profiles: out of memory");
	atomic_init(&pf->refs, 1);
	for (int i = 0; i < n && rc == WC_OK; i++)
		rc = add_profile(pf, sets[i], sources ? sources[i] : NULL, err);
	/* The caveat of a law without a prefill term names a profile that
	 * models prefill only when this server serves one: the first, set
	 * before the states are published (docs/http-api.md, "Profiles"). */
	for (int i = 0; i < pf->n && rc == WC_OK; i++)
		if (wc_form_has_prefill(sets[i]->form)) {
			for (int j = 0; j < pf->n; j++)
				snprintf(pf->st[j]->prefill_profile, sizeof pf->st[j]->prefill_profile, "%s", sets[i]->name);
			break;
		}
	if (rc == WC_OK)
		rc = profiles_body(pf, err);
	if (rc == WC_OK && !(pf->answers = wc_answer_cache_new(WC_ANSWER_CACHE_SLOTS)))
		rc = wc_error_set(err, WC_ENOMEM, "profiles: out of memory");
	if (rc != WC_OK) {
		wc_profiles_release(pf);
		return rc;
	}
	*out = pf;
	return WC_OK;
}

void
wc_profiles_retain(wc_profiles *pf)
{
	atomic_fetch_add_explicit(&pf->refs, 1, memory_order_relaxed);
}

void
wc_profiles_release(wc_profiles *pf)
{
	if (!pf || atomic_fetch_sub_explicit(&pf->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (int i = 0; i < pf->n; i++)
		wc_state_release(pf->st[i]);
	free(pf->profiles_body);
	wc_answer_cache_free(pf->answers);
	free(pf);
}

const wc_state *
wc_profiles_find(const wc_profiles *pf, const char *name)
{
	if (!name)
		return pf->st[0];
	for (int i = 0; i < pf->n; i++)
		if (strcmp(state_name(pf->st[i]), name) == 0)
			return pf->st[i];
	return NULL;
}

void
wc_profiles_unknown(const wc_profiles *pf, const char *asked, wc_api_error *e)
{
	static const char fmt[] = "profile: unknown profile \"%.*s\" (serving: %s; see GET /v1/profiles)";
	char names[WC_ERROR_MSG_MAX];
	int k = (int)wc_utf8_prefix(asked, 48);
	int fixed = snprintf(NULL, 0, fmt, k, asked, "");
	wc_name_list l;
	wc_name_list_init(&l, names, fixed > 0 && fixed < WC_ERROR_MSG_MAX - 1 ? (size_t)(WC_ERROR_MSG_MAX - fixed) : 1);
	for (int i = 0; i < pf->n; i++)
		wc_name_list_add(&l, state_name(pf->st[i]), strlen(state_name(pf->st[i])));
	wc_api_error_set(e, 422, "unknown_profile", "/profile", fmt, k, asked, wc_name_list_end(&l));
}

const wc_state *
wc_profiles_select(const wc_profiles *pf, const json_t *item, wc_api_error *e)
{
	const json_t *v = json_is_object(item) ? json_object_get(item, "profile") : NULL;
	/* An empty string is a wrong value whatever the field: "model": ""
	 * was 404 unknown_model, "platform": "" unknown_platform (docs/http-api.md,
	 * "Errors": 422 invalid_value). */
	if (json_is_object(item) && wc_api_check_nonempty(item, "", e) < 0)
		return NULL;
	if (!v)
		return pf->st[0];
	if (!json_is_string(v)) {
		wc_api_error_set(e, 422, "wrong_type", "/profile", "profile: expected a string, got %s",
		                 wc_json_type_name(v));
		return NULL;
	}
	const wc_state *st = wc_profiles_find(pf, json_string_value(v));
	if (!st)
		wc_profiles_unknown(pf, json_string_value(v), e);
	return st;
}

/*
 * The parameter state handlers read: a predictor (which owns its copy of
 * the parameters), the version tag and the precomputed GET /v1/params
 * answer. Built completely before it is published, never changed after,
 * freed by whoever drops the last reference (C11 atomics), so a reload
 * never disturbs a request that is still using the previous set.
 */
#include "server_internal.h"

#include "data/data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* {"params_version", "name", "source", "loaded_utc", "n_draws", "params"}:
 * the parameter file's canonical form without the bootstrap draws (they
 * can be megabytes; their count is reported). */
static int
params_body(wc_state *st, const wc_params *p, wc_error *err)
{
	json_error_t jerr;
	char *dump = wc_params_dump(p, 0, err);
	if (!dump)
		return err->code;
	json_t *params = json_loads(dump, 0, &jerr);
	free(dump);
	json_t *root = params ? json_pack("{s:s,s:s,s:s,s:s,s:i,s:o}", "params_version", st->version,
	                                  "name", p->name, "source", st->source,
	                                  "loaded_utc", st->loaded_utc, "n_draws", p->n_draws,
	                                  "params", params)
	                      : NULL;
	st->params_body = root ? json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT |
	                                          JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	if (!st->params_body)
		return wc_error_set(err, WC_ENOMEM, "params: cannot render GET /v1/params");
	st->params_len = strlen(st->params_body);
	return WC_OK;
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
	snprintf(st->source, sizeof st->source, "%s", source ? source : "");
	clock_gettime(CLOCK_REALTIME, &now);
	st->loaded_unix = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
	wc_utc_now(st->loaded_utc);
	if ((rc = wc_predictor_new(p, &st->pred, err)) != WC_OK ||
	    (rc = wc_params_fingerprint(p, st->version, err)) != WC_OK ||
	    (rc = params_body(st, p, err)) != WC_OK) {
		wc_state_release(st);
		return rc;
	}
	for (int i = 0; i < p->n_levels; i++) {
		size_t used = strlen(st->known_platforms);
		snprintf(st->known_platforms + used, sizeof st->known_platforms - used, "%s%s",
		         i ? ", " : "", p->levels[i].name);
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
	free(st->params_body);
	free(st);
}

/*
 * An engine --selector selects on GPUs that another engine, left out by
 * it, serves too (docs/fleet.md, "Queries"): a bare-metal host running
 * two vLLM servers, one per GPU, gives every series the host alone, and
 * neither the engines' series (no GPU or device label; vLLM exports
 * none) nor DCGM's (no pod without Kubernetes) tell which GPU is whose.
 * Unselected, the two are refused as two engines; with
 * `model_name="..."` the other engine is not fetched and the selected
 * one's group holds every GPU of the host that holds memory, its TP and
 * power the two engines' together, unsaid. Nothing in the series tells
 * them apart, so the rows stay as the grouping reads them and the
 * ambiguity is said once per group, naming the other engine and the
 * GPUs, with the remedy that does tell them apart (the GPU's `gpu` label
 * on each engine's scrape, --group-by host,gpu).
 */
#include "fleet_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
wc__fleet_shared_others(const char *selector, const wc_prom_set *all, wc_prom_set *others, wc_error *err)
{
	char reduced[2048];
	int engines_only = 0;
	if (wc__fleet_selector_without_engines(selector, reduced, sizeof reduced, &engines_only) != WC_OK ||
	    !engines_only)
		return WC_OK; /* none, or a selector refused already */
	for (size_t i = 0; i < all->n; i++) {
		const wc_prom_series *s = &all->s[i];
		if (wc_fleet_metric_from_name(s->metric) != WC_FLEET_RUNNING || s->n == 0)
			continue;
		int rc = wc_prom_set_add(others, s->metric, s->n_labels, (const char *const *)s->names,
		                         (const char *const *)s->values, s->t[0], s->v[0], err);
		if (rc != WC_OK)
			return rc;
	}
	return wc__fleet_selector_apply(reduced, others, err);
}

/* The GPUs of group g on this page, `gpu 0, 1` (their `gpu` labels,
 * else UUIDs), into out. */
static void
gpus_text(const fleet_group *g, const wc_prom_set *set, char *out, size_t size)
{
	size_t len = (size_t)snprintf(out, size, "gpu ");
	for (size_t k = 0; k < g->n_gpus && len + 8 < size; k++) {
		const char *v = wc_prom_label(&set->s[g->gpus[k]], "gpu");
		if (!v || !v[0])
			v = wc_prom_label(&set->s[g->gpus[k]], "UUID");
		int w = snprintf(out + len, size - len, "%s%.12s", k ? ", " : "", v ? v : "?");
		len += w > 0 ? (size_t)w : 0;
	}
	if (len >= size - 8 && size > 4)
		snprintf(out + size - 5, 5, "...");
}

int
wc__fleet_shared_page(wc_fleet *f, const char *url, const wc_prom_set *set, double a, double b,
                      wc_prom_set *others, wc_error *err)
{
	wc_prom_set fetched = { 0 };
	wc_strmap fed = { 0 };
	int rc = WC_OK;
	if (!f->sel_engines[0] || !f->selector)
		return WC_OK;
	if (url) {
		char reduced[2048], *q = malloc(WC_FLEET_QUERY_MAX);
		rc = q ? WC_OK : wc_error_set(err, WC_ENOMEM, "out of memory");
		if (rc == WC_OK && wc__fleet_selector_without_engines(f->selector, reduced, sizeof reduced, NULL) != WC_OK)
			rc = wc_error_set(err, WC_EINVAL, "--selector: the query does not fit");
		if (rc == WC_OK)
			rc = wc_fleet_query(WC_FLEET_RUNNING, reduced, f->o.step, q, WC_FLEET_QUERY_MAX, err);
		/* printed with the others (--verbose), once */
		if (rc == WC_OK && f->o.verbose && !wc_strmap_get(&f->server_said, "shared\1query", NULL) &&
		    wc_strmap_put(&f->server_said, "shared\1query", 1) == WC_OK) {
			char line[WC_FLEET_QUERY_MAX + 64];
			snprintf(line, sizeof line, "query (the engines --selector leaves out): %s", q);
			f->o.verbose(line, f->o.warn_payload);
		}
		if (rc == WC_OK)
			rc = wc__fleet_query(f, url, q, a, b, f->o.step, wc_fleet_metric_name(WC_FLEET_RUNNING), &fetched,
			                     err);
		free(q);
		others = &fetched;
	}
	/* One engine's series under successive processes or labels are
	 * joined in the set fed; so here, or the later one would look like
	 * another engine. */
	if (rc == WC_OK)
		rc = wc__fleet_join_processes(others, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_relabelled(f, others, err);
	for (size_t i = 0; rc == WC_OK && i < set->n; i++)
		if (wc_strmap_put(&fed, set->s[i].key, 1) != WC_OK)
			rc = wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t j = 0; rc == WC_OK && j < others->n; j++) {
		const wc_prom_series *s = &others->s[j];
		char key[512], name[80];
		int gi;
		if (wc_strmap_get(&fed, s->key, NULL))
			continue; /* a selected engine's */
		wc__fleet_group_key(f->o.group_by, s, WC_FLEET_RUNNING, key, sizeof key, name, sizeof name);
		if (!wc_strmap_get(&f->group_index, key, &gi))
			continue;
		fleet_group *g = &f->g[gi];
		if (g->shared_said || !g->ever_engine || !g->ever_gpu || g->left_out[0] || g->n_gpus == 0)
			continue;
		g->shared_said = 1;
		char gpus[48], engine[WC_ERROR_MSG_MAX], head[WC_ERROR_MSG_MAX];
		static const char tail[] = ", which --selector left out and no label tells apart: TP and power count "
		                           "both engines' GPUs (give each engine's scrape its GPU's gpu label, "
		                           "--group-by host,gpu)";
		gpus_text(g, set, gpus, sizeof gpus);
		int n = snprintf(head, sizeof head, "group '%.40s': %s also serve ", g->name, gpus);
		const char *labels = strchr(s->key, '{');
		wc_error_name_cut(labels ? labels : s->key, wc_error_name_room((size_t)n + strlen(tail), 1), engine,
		                  sizeof engine);
		wc__fleet_verdict(f, "%s%s%s", head, engine, tail);
	}
	wc_strmap_free(&fed);
	wc_prom_set_clear(&fetched);
	return rc;
}

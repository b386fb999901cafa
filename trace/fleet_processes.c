/*
 * One engine's series under successive processes (docs/fleet.md,
 * "Grouping"): SGLang's metrics carry their scheduler process's `pid`
 * (prometheus_client's multiprocess mode), so a restarted scheduler
 * exports new series where vLLM's restart keeps its labels. Series of one
 * metric that differ in process labels alone (wc_engine_labels_process,
 * data/engine_log_labels.c), one after the other, are joined into the
 * first: the engine restarted, its counters counted from 0 at the restart
 * as a server restarting under the same labels is (fleet_steps.c). Such
 * series at once are left apart, and the grouping refuses them.
 */
#include "fleet_internal.h"

#include <stdlib.h>
#include <string.h>

#include "data/engine_log.h"

typedef struct {
	char *key;   /* metric and labels, process labels left out */
	size_t i;    /* the series' position */
	double t0;   /* its first sample's time */
} joined;

static int
by_key_time(const void *pa, const void *pb)
{
	const joined *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->t0 > b->t0) - (a->t0 < b->t0);
}

/* The series' metric and labels without its process labels ('\1' and
 * '\2' part them: no name holds them); NULL when it has no process label
 * or no memory (*oom). */
static char *
key_without_process(const wc_prom_series *s, int *oom)
{
	size_t len = strlen(s->metric) + 2;
	int any = 0;
	for (size_t k = 0; k < s->n_labels; k++) {
		len += strlen(s->names[k]) + strlen(s->values[k]) + 2;
		any |= wc_engine_labels_process(s->names[k]);
	}
	if (!any)
		return NULL;
	char *out = malloc(len);
	if (!out) {
		*oom = 1;
		return NULL;
	}
	strcpy(out, s->metric);
	for (size_t k = 0; k < s->n_labels; k++)
		if (!wc_engine_labels_process(s->names[k])) {
			strcat(out, "\1");
			strcat(out, s->names[k]);
			strcat(out, "\2");
			strcat(out, s->values[k]);
		}
	return out;
}

/* Join the run list[a..b) of one key when each series ends before the
 * next begins, or at the time it begins: a query_range answer holds both
 * at the step whose span (an `_over_time` of one step, trace/fleet.c)
 * holds the old process's last sample and the new one's first; the new
 * one's is read there, the later. The joined ones unkept. */
static int
join_run(wc_prom_set *set, const joined *list, size_t a, size_t b, unsigned char *keep, wc_error *err)
{
	for (size_t j = a + 1; j < b; j++) {
		const wc_prom_series *p = &set->s[list[j - 1].i];
		if (p->t[p->n - 1] > list[j].t0)
			return WC_OK; /* at once: the grouping refuses them */
	}
	for (size_t j = a + 1; j < b; j++) {
		wc_prom_series *to = &set->s[list[a].i];
		const wc_prom_series *s = &set->s[list[j].i];
		size_t q = 0;
		if (to->t[to->n - 1] == s->t[0])
			to->v[to->n - 1] = s->v[q++];
		for (; q < s->n; q++) {
			int rc = wc_prom_set_append(set, (long)list[a].i, s->t[q], s->v[q], err);
			if (rc != WC_OK)
				return rc;
		}
		keep[list[j].i] = 0;
	}
	return WC_OK;
}

int
wc__fleet_join_processes(wc_prom_set *set, wc_error *err)
{
	joined *list = malloc((set->n ? set->n : 1) * sizeof *list);
	unsigned char *keep = malloc(set->n ? set->n : 1);
	size_t n = 0;
	int oom = !list || !keep, rc = WC_OK, dropped = 0;
	for (size_t i = 0; !oom && i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		int m = wc_fleet_metric_from_name(s->metric);
		keep[i] = 1;
		if (m < 0 || wc__fleet_gpu_metric(m) || s->n == 0)
			continue;
		char *key = key_without_process(s, &oom);
		if (key)
			list[n++] = (joined){ key, i, s->t[0] };
	}
	if (oom)
		rc = wc_error_set(err, WC_ENOMEM, "out of memory");
	if (rc == WC_OK)
		qsort(list, n, sizeof *list, by_key_time);
	for (size_t a = 0, b; rc == WC_OK && a < n; a = b) {
		for (b = a + 1; b < n && strcmp(list[a].key, list[b].key) == 0; b++)
			;
		if (b - a > 1) {
			rc = join_run(set, list, a, b, keep, err);
			for (size_t j = a + 1; j < b; j++)
				dropped |= !keep[list[j].i];
		}
	}
	for (size_t j = 0; list && j < n; j++)
		free(list[j].key);
	if (rc == WC_OK && dropped)
		rc = wc_prom_set_retain(set, keep, err);
	free(list);
	free(keep);
	return rc;
}

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

#include <math.h>
#include <stdio.h>
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

/* Does series s carry the labels of `key` (a series' key, metric{a="x"})
 * that it has at all, with their values, another label present on one
 * side alone, process labels aside? Then the two are one engine's
 * series under labels added or dropped (docs/fleet.md, "Grouping"). */
int
wc__fleet_relabel_of(const char *key, const wc_prom_series *s)
{
	size_t ml = strlen(s->metric), shared = ml + 2; /* metric{} */
	int any = 0;
	if (strncmp(key, s->metric, ml) != 0 || key[ml] != '{' || strcmp(key, s->key) == 0)
		return 0;
	for (size_t k = 0; k < s->n_labels; k++) {
		if (wc_engine_labels_process(s->names[k]))
			continue;
		size_t nl = strlen(s->names[k]), vl = strlen(s->values[k]);
		const char *p = key + ml;
		while ((p = strstr(p + 1, s->names[k])) != NULL)
			if ((p[-1] == '{' || p[-1] == ',') && strncmp(p + nl, "=\"", 2) == 0)
				break;
		if (!p) {
			any = 1; /* a label s has and key lacks */
			continue;
		}
		if (strncmp(p + nl + 2, s->values[k], vl) != 0 || p[nl + 2 + vl] != '"' ||
		    (p[nl + 3 + vl] != ',' && p[nl + 3 + vl] != '}'))
			return 0;
		shared += nl + vl + 4; /* ,name="value" */
	}
	/* Labels of key that s lacks: key holds more label text than the
	 * shared ones (its first label has no comma before it). */
	return any || strlen(key) + 1 > shared;
}

typedef struct {
	char *group;  /* metric and group key: an engine's relabelled series share it */
	size_t i;
	double t0, t1;
} relabel_cand;

static int
by_group_time(const void *pa, const void *pb)
{
	const relabel_cand *a = pa, *b = pb;
	int c = strcmp(a->group, b->group);
	return c ? c : (a->t0 > b->t0) - (a->t0 < b->t0);
}

int
wc__fleet_join_relabelled(wc_fleet *f, wc_prom_set *set, wc_error *err)
{
	relabel_cand *list = malloc((set->n ? set->n : 1) * sizeof *list);
	unsigned char *keep = malloc(set->n ? set->n : 1);
	size_t n = 0;
	int rc = list && keep ? WC_OK : wc_error_set(err, WC_ENOMEM, "out of memory"), dropped = 0;
	for (size_t i = 0; rc == WC_OK && i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		int m = wc_fleet_metric_from_name(s->metric);
		keep[i] = 1;
		if (m < 0 || wc__fleet_gpu_metric(m) || s->n == 0)
			continue;
		char key[512], name[80], *g = malloc(strlen(s->metric) + sizeof key + 1);
		if (!g) {
			rc = wc_error_set(err, WC_ENOMEM, "out of memory");
			break;
		}
		wc__fleet_group_key(f->o.group_by, s, m, key, sizeof key, name, sizeof name);
		sprintf(g, "%s\1%s", s->metric, key);
		list[n++] = (relabel_cand){ g, i, s->t[0], s->t[s->n - 1] };
	}
	if (rc == WC_OK)
		qsort(list, n, sizeof *list, by_group_time);
	/* Within one metric and group: a run of series, each relabelled from
	 * the one before and beginning at or after its end, none beside
	 * another of the group at once (two engines, data-parallel ones
	 * among them, are no relabelling), joined into the first. */
	for (size_t a = 0, b; rc == WC_OK && a < n; a = b) {
		int chain = 1;
		for (b = a + 1; b < n && strcmp(list[a].group, list[b].group) == 0; b++)
			chain &= list[b].t0 >= list[b - 1].t1 &&
			         wc__fleet_relabel_of(set->s[list[b - 1].i].key, &set->s[list[b].i]);
		if (b - a < 2 || !chain)
			continue;
		joined run[FLEET_MAX_ENGINES];
		size_t len = b - a > FLEET_MAX_ENGINES ? FLEET_MAX_ENGINES : b - a;
		for (size_t j = 0; j < len; j++)
			run[j] = (joined){ NULL, list[a + j].i, list[a + j].t0 };
		char said[600];
		snprintf(said, sizeof said, "relabel\1%s", strchr(list[a].group, '\1') + 1); /* once per group */
		if (!wc_strmap_get(&f->server_said, said, NULL) && wc_strmap_put(&f->server_said, said, 1) == WC_OK) {
			char at[40], diff[160];
			wc__fleet_label_diff(&set->s[list[a].i], &set->s[list[a + 1].i], diff, sizeof diff);
			wc_prom_format_time(list[a + 1].t0, at, sizeof at);
			wc__fleet_warn(f, "%.120s: under new labels from %s (%s), never beside the old series: one engine "
			               "relabelled%s, read as one series; a counter that drops is its restart",
			               set->s[list[a].i].key, at, diff[0] ? diff : "labels dropped",
			               strncmp(diff, "engine=", 7) == 0 ? " (vLLM V1's engine label?)" : "");
		}
		rc = join_run(set, run, 0, len, keep, err);
		for (size_t j = 1; j < len; j++)
			dropped |= !keep[run[j].i];
	}
	for (size_t j = 0; list && j < n; j++)
		free(list[j].group);
	if (rc == WC_OK && dropped)
		rc = wc_prom_set_retain(set, keep, err);
	free(list);
	free(keep);
	return rc;
}

/* The slot of an engine whose series of metric m, on the pages before,
 * carried the labels of s but for one added or dropped (`engine`, vLLM
 * V1's) and has none on this page: one engine relabelled between pages,
 * its slot taken over under the new label (said once per group), -1
 * when none. Summed as a second engine, it was a gap for the rest of the
 * range (docs/fleet.md, "Grouping"; within a page, fleet_processes.c). */
int
wc__fleet_relabelled_slot(wc_fleet *f, fleet_group *g, const wc_prom_set *set, int m, const wc_prom_series *s,
                          const char *label)
{
	for (int k = 0; k < g->n_engine_slots; k++)
		if (strcmp(g->engine_label[k], label) == 0)
			return -1;
	for (int k = 0; k < g->n_engine_slots; k++) {
		const char *old = g->slot_key[m][k];
		if (!old || g->engine[m][k] >= 0 || !wc__fleet_relabel_of(old, s))
			continue;
		size_t j = 0;
		while (j < set->n && strcmp(set->s[j].key, old) != 0)
			j++;
		if (j < set->n)
			continue; /* the old series on this page too: two engines */
		char said[600];
		snprintf(said, sizeof said, "relabel\1%s", g->key);
		if (!wc_strmap_get(&f->server_said, said, NULL) && wc_strmap_put(&f->server_said, said, 1) == WC_OK) {
			char at[40];
			wc_prom_format_time(s->n ? s->t[0] : NAN, at, sizeof at);
			wc__fleet_warn(f, "%.120s: under new labels from %s (%.60s), never beside the old series: one "
			               "engine relabelled%s, read as one series; a counter that drops is its restart", old, at,
			               label[0] ? label : "labels changed",
			               strncmp(label, "engine=", 7) == 0 ? " (vLLM V1's engine label?)" : "");
		}
		snprintf(g->engine_label[k], sizeof g->engine_label[0], "%s", label);
		return k;
	}
	return -1;
}

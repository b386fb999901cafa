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

/* The value of label `name` (nl bytes) in `key` (a series' key,
 * metric{a="x"}: ml bytes of metric), just past its opening quote; NULL
 * when key lacks it. Keys hold values verbatim, so a value holding `,b="`
 * reads as a label b: the one reading of a key, for wc__fleet_relabel_of
 * and the text that names a relabelling (say_relabelled). */
static const char *
key_value(const char *key, size_t ml, const char *name, size_t nl)
{
	for (const char *p = key + ml; (p = strstr(p + 1, name)) != NULL;)
		if ((p[-1] == '{' || p[-1] == ',') && p[nl] == '=' && p[nl + 1] == '"')
			return p + nl + 2;
	return NULL;
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
		const char *v = key_value(key, ml, s->names[k], nl);
		if (!v) {
			any = 1; /* a label s has and key lacks */
			continue;
		}
		if (strncmp(v, s->values[k], vl) != 0 || v[vl] != '"' || (v[vl + 1] != ',' && v[vl + 1] != '}'))
			return 0;
		shared += nl + vl + 4; /* ,name="value" */
	}
	/* Labels of key that s lacks: key holds more label text than the
	 * shared ones (its first label has no comma before it). */
	return any || strlen(key) + 1 > shared;
}

/* What a relabelling from `key` to series s changed, process labels
 * aside: the labels s adds (or holds with another value), `n="v"`
 * comma-separated, then those it drops, followed by " dropped". */
static void
relabel_text(const char *key, const wc_prom_series *s, char *out, size_t size)
{
	size_t ml = strlen(s->metric), len = 0;
	out[0] = '\0';
	for (size_t k = 0; k < s->n_labels && len < size; k++) {
		size_t vl = strlen(s->values[k]);
		const char *v = key_value(key, ml, s->names[k], strlen(s->names[k]));
		if (wc_engine_labels_process(s->names[k]) || (v && strncmp(v, s->values[k], vl) == 0 && v[vl] == '"' &&
		                                               (v[vl + 1] == ',' || v[vl + 1] == '}')))
			continue;
		int w = snprintf(out + len, size - len, "%s%s=\"%s\"", len ? "," : "", s->names[k], s->values[k]);
		len += w > 0 ? (size_t)w : 0;
	}
	size_t added = len;
	/* key's labels in turn: name=" up to the quote that ends the key or
	 * precedes the next label */
	for (const char *p = key[ml] == '{' ? key + ml + 1 : ""; *p && *p != '}' && len < size;) {
		const char *eq = strstr(p, "=\""), *end = eq ? eq + 2 : NULL;
		while (end && (end = strchr(end, '"')) != NULL && end[1] != ',' && end[1] != '}')
			end++;
		if (!end)
			break;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
		if (!wc_engine_labels_process(name) && !wc_prom_label(s, name)) {
			int w = snprintf(out + len, size - len, "%s%.*s", len > added ? "," : len ? "; " : "", (int)(end + 1 - p), p);
			len += w > 0 ? (size_t)w : 0;
		}
		p = end[1] == ',' ? end + 2 : end + 1;
	}
	if (len > added && len < size)
		snprintf(out + len, size - len, " dropped");
}

/* One engine relabelled (from the series of `old_key` to s): said once
 * per group, in one text whether the two met within a page
 * (wc__fleet_join_relabelled) or across pages (wc__fleet_relabelled_slot),
 * naming the engine by its old labels (the metric aside: either place
 * may meet another metric first) and what changed, whole within 255
 * bytes, the labels giving way (docs/fleet.md, "Grouping"). */
#define RELABELLED ": under new labels from %s (%s), never beside the old series: one engine relabelled%s, " \
                   "read as one series; a counter that drops is its restart"
static void
say_relabelled(wc_fleet *f, const char *group_key, const char *old_key, const wc_prom_series *s)
{
	char said[600];
	snprintf(said, sizeof said, "relabel\1%s", group_key);
	if (wc_strmap_get(&f->server_said, said, NULL) || wc_strmap_put(&f->server_said, said, 1) != WC_OK)
		return;
	char at[40], all[WC_ERROR_MSG_MAX], diff[WC_ERROR_MSG_MAX], labels[WC_ERROR_MSG_MAX];
	const char *block = strchr(old_key, '{');
	relabel_text(old_key, s, all, sizeof all);
	wc_error_name_cut(all[0] ? all : "labels changed", 100, diff, sizeof diff);
	wc_prom_format_time(s->n ? s->t[0] : NAN, at, sizeof at);
	/* vLLM V1 adds `engine` (V0 has none): added or dropped */
	const char *hint = strncmp(diff, "engine=", 7) == 0 ? " (vLLM V1's engine label?)" : "";
	int fixed = snprintf(NULL, 0, RELABELLED, at, diff, hint);
	wc_error_name_cut(block ? block : old_key, wc_error_name_room(fixed > 0 ? (size_t)fixed : 0, 1), labels,
	                  sizeof labels);
	wc__fleet_warn(f, "%s" RELABELLED, labels, at, diff, hint);
}

typedef struct {
	char *group;         /* its group key: an engine's relabelled series share it */
	const char *metric;  /* ... and metric */
	int m;
	size_t i;
	double t0, t1;
} relabel_cand;

/* By group, metric in query order (the engine's load first, as a
 * server's page holds them, so that within a page as across pages the
 * same metric's relabelling is said first), name, then time. */
static int
by_group_time(const void *pa, const void *pb)
{
	const relabel_cand *a = pa, *b = pb;
	int c = strcmp(a->group, b->group);
	if (!c)
		c = a->m != b->m ? (a->m > b->m) - (a->m < b->m) : strcmp(a->metric, b->metric);
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
		char key[512], name[80], *g;
		wc__fleet_group_key(f->o.group_by, s, m, key, sizeof key, name, sizeof name);
		if (!(g = strdup(key))) {
			rc = wc_error_set(err, WC_ENOMEM, "out of memory");
			break;
		}
		list[n++] = (relabel_cand){ g, s->metric, m, i, s->t[0], s->t[s->n - 1] };
	}
	if (rc == WC_OK)
		qsort(list, n, sizeof *list, by_group_time);
	/* Within one metric and group: a run of series, each relabelled from
	 * the one before and beginning at or after its end, none beside
	 * another of the group at once (two engines, data-parallel ones
	 * among them, are no relabelling), joined into the first. */
	for (size_t a = 0, b; rc == WC_OK && a < n; a = b) {
		int chain = 1;
		for (b = a + 1; b < n && strcmp(list[a].group, list[b].group) == 0 &&
		                strcmp(list[a].metric, list[b].metric) == 0; b++)
			chain &= list[b].t0 >= list[b - 1].t1 &&
			         wc__fleet_relabel_of(set->s[list[b - 1].i].key, &set->s[list[b].i]);
		if (b - a < 2 || !chain)
			continue;
		joined run[FLEET_MAX_ENGINES];
		size_t len = b - a > FLEET_MAX_ENGINES ? FLEET_MAX_ENGINES : b - a;
		for (size_t j = 0; j < len; j++)
			run[j] = (joined){ NULL, list[a + j].i, list[a + j].t0 };
		say_relabelled(f, list[a].group, set->s[list[a].i].key, &set->s[list[a + 1].i]);
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

/* Is the series of `key` on this page? */
static int
on_page(const wc_prom_set *set, const char *key)
{
	for (size_t j = 0; j < set->n; j++)
		if (strcmp(set->s[j].key, key) == 0)
			return 1;
	return 0;
}

/* The slot of an engine whose series of metric m, on the pages before,
 * carried the labels of s but for one added or dropped (`engine`, vLLM
 * V1's) and has none on this page: one engine relabelled between pages,
 * its slot taken over under the new label (said once per group), -1
 * when none. Summed as a second engine, it was a gap for the rest of the
 * range (docs/fleet.md, "Grouping"; within a page, fleet_processes.c).
 * A label that tells no engine apart (`version`) keeps the slot, whose
 * series is then s: said as well, it passed unsaid across pages where a
 * page holding both said it. */
int
wc__fleet_relabelled_slot(wc_fleet *f, fleet_group *g, const wc_prom_set *set, int m, const wc_prom_series *s,
                          const char *label)
{
	for (int k = 0; k < g->n_engine_slots; k++)
		if (strcmp(g->engine_label[k], label) == 0) {
			const char *old = g->slot_key[m][k];
			if (old && g->engine[m][k] < 0 && wc__fleet_relabel_of(old, s) && !on_page(set, old))
				say_relabelled(f, g->key, old, s);
			return -1;
		}
	for (int k = 0; k < g->n_engine_slots; k++) {
		const char *old = g->slot_key[m][k];
		if (!old || g->engine[m][k] >= 0 || !wc__fleet_relabel_of(old, s))
			continue;
		if (on_page(set, old))
			continue; /* the old series on this page too: two engines */
		say_relabelled(f, g->key, old, s);
		snprintf(g->engine_label[k], sizeof g->engine_label[0], "%s", label);
		return k;
	}
	return -1;
}

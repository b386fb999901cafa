/*
 * Two groups' keys read label by label under --group-by (docs/fleet.md,
 * "Grouping"): whether a grouping reads `host`, and which labels keep a
 * GPU group from the engines beside it, for the refusals of trace/fleet.c
 * that name the --group-by to give. Apart from fleet_groups.c, which
 * builds the keys.
 */
#include "fleet_internal.h"

#include <stdio.h>
#include <string.h>

/* One --group-by label walked with its values in two groups' keys
 * ("|v1|v2|..." in --group-by order, fleet_groups.c): the one walk
 * label_apart and host_apart judge. */
typedef struct {
	const char *by, *kg, *ke;   /* where the walk is */
	const char *label, *vg, *ve; /* the label, its value in g and in e */
	size_t n, ng, ne;            /* ... and their lengths */
} key_walk;

static void
key_walk_start(key_walk *w, const wc_fleet *f, const fleet_group *g, const fleet_group *e)
{
	w->by = f->o.group_by ? f->o.group_by : FLEET_DEFAULT_GROUP_BY;
	w->kg = g->key;
	w->ke = e->key;
}

/* 1 with the next label in w, 0 after the last, -1 when a key was cut at
 * its size (then no label can be judged). */
static int
key_walk_next(key_walk *w)
{
	if (!*w->by)
		return 0;
	if (*w->kg != '|' || *w->ke != '|')
		return -1;
	w->label = w->by;
	w->n = strcspn(w->by, ",");
	w->by += w->n + (w->by[w->n] == ',');
	w->vg = w->kg + 1;
	w->ve = w->ke + 1;
	w->ng = strcspn(w->vg, "|");
	w->ne = strcspn(w->ve, "|");
	w->kg = w->vg + w->ng;
	w->ke = w->ve + w->ne;
	return 1;
}

static int
is_host_label(const char *label, size_t n)
{
	return n == 4 && strncmp(label, "host", 4) == 0;
}

/* 1 when the grouping reads `host`, which an engine takes from the host
 * part of its `instance` (docs/fleet.md, "Grouping"): an engine series
 * without one has no host, and its group was named 'group' as if a host
 * of that name held engines without GPUs. */
int
wc__fleet_by_host(const wc_fleet *f)
{
	const char *by = f->o.group_by ? f->o.group_by : FLEET_DEFAULT_GROUP_BY;
	for (size_t n; *by; by += n + (by[n] == ',')) {
		n = strcspn(by, ",");
		if (is_host_label(by, n))
			return 1;
	}
	return 0;
}

/* The --group-by label whose values tell GPU group g from engine group e
 * when both are on one host: the sides' values differ (`job` "dcgm" and
 * "vllm"), and no relabelling of hosts joins them (docs/fleet.md,
 * "Grouping"). 0 when the hosts differ or no label but host does; the
 * label in `label`, the values in `vg` and `ve`. */
int
wc__fleet_label_apart(const wc_fleet *f, const fleet_group *g, const fleet_group *e, char *label, char *vg, char *ve,
                      size_t size)
{
	if (!g->host[0] || strcmp(g->host, e->host) != 0)
		return 0;
	key_walk w;
	for (key_walk_start(&w, f, g, e); key_walk_next(&w) > 0;)
		if ((w.ng != w.ne || strncmp(w.vg, w.ve, w.ng) != 0) && !is_host_label(w.label, w.n)) {
			snprintf(label, size, "%.*s", (int)(w.n < size ? w.n : size - 1), w.label);
			snprintf(vg, size, "%.*s", (int)(w.ng < size ? w.ng : size - 1), w.vg);
			snprintf(ve, size, "%.*s", (int)(w.ne < size ? w.ne : size - 1), w.ve);
			return 1;
		}
	return 0;
}

/* Do GPU group `g` and engines-only group `e` differ in their host alone,
 * every other --group-by label carried by both and equal? Kubernetes: DCGM's
 * Hostname is its exporter pod, the engine's host its pod IP, and the
 * namespace and pod agree. Into `rest` the --group-by that joins them:
 * the labels without host. */
int
wc__fleet_host_apart(const wc_fleet *f, const fleet_group *g, const fleet_group *e, char *rest, size_t size)
{
	int others = 0, hosts_differ = 0, r;
	rest[0] = '\0';
	key_walk w;
	for (key_walk_start(&w, f, g, e); (r = key_walk_next(&w)) > 0;) {
		int same = w.ng == w.ne && strncmp(w.vg, w.ve, w.ng) == 0;
		if (is_host_label(w.label, w.n))
			hosts_differ = !same;
		else if (!same || w.ng == 0)
			return 0;
		else if (strlen(rest) + w.n + 2 < size) {
			snprintf(rest + strlen(rest), size - strlen(rest), "%s%.*s", others ? "," : "", (int)w.n, w.label);
			others++;
		}
	}
	return r == 0 && hosts_differ && others > 0;
}

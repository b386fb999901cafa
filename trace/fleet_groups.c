/*
 * Which series belong together (docs/fleet.md, "Grouping"): a GPU's power
 * series and an engine's series are one group when their group-by values
 * agree. The default is host, namespace and pod: DCGM's `Hostname` is the
 * host part of the engine's `instance` (`h1` and `h1:8000`); a DCGM
 * exporter scraped through Kubernetes carries the GPU's pod as
 * `exported_pod` / `exported_namespace`, which win over its own.
 */
#include "fleet_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/engine_log.h"
#include "data/telemetry.h"
#include "models/catalog.h"
#include "models/grow.h"

static void
copy_text(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void
wc__fleet_series_host(const wc_prom_series *s, int metric, char *out, size_t size)
{
	const char *h = wc__fleet_gpu_metric(metric) ? wc_prom_label(s, "Hostname") : NULL;
	if (h) {
		copy_text(out, size, h, strlen(h));
		return;
	}
	const char *inst = wc_prom_label(s, "instance");
	if (!inst)
		inst = "";
	const char *end = inst[0] == '[' ? strchr(inst, ']') : strrchr(inst, ':');
	if (inst[0] == '[')
		copy_text(out, size, inst + 1, end ? (size_t)(end - inst - 1) : strlen(inst + 1));
	else
		copy_text(out, size, inst, end ? (size_t)(end - inst) : strlen(inst));
}

/* Value of group-by label `name` (length n) for a series. */
static void
group_value(const wc_prom_series *s, int metric, const char *name, size_t n, char *out,
            size_t size)
{
	char label[FLEET_TEXT], exported[FLEET_TEXT + 16];
	copy_text(label, sizeof label, name, n);
	if (strcmp(label, "host") == 0) {
		wc__fleet_series_host(s, metric, out, size);
		return;
	}
	snprintf(exported, sizeof exported, "exported_%s", label);
	const char *v = wc__fleet_gpu_metric(metric) ? wc_prom_label(s, exported) : NULL;
	if (!v)
		v = wc_prom_label(s, label);
	copy_text(out, size, v ? v : "", v ? strlen(v) : 0);
}

/* key = values joined by '|', name = non-empty values joined by '/'. */
void
wc__fleet_group_key(const char *group_by, const wc_prom_series *s, int metric, char *key, size_t ksize,
                    char *name, size_t nsize)
{
	const char *by = group_by ? group_by : FLEET_DEFAULT_GROUP_BY;
	key[0] = name[0] = '\0';
	while (*by) {
		size_t n = strcspn(by, ",");
		char v[FLEET_TEXT];
		group_value(s, metric, by, n, v, sizeof v);
		snprintf(key + strlen(key), ksize - strlen(key), "|%s", v);
		if (v[0])
			snprintf(name + strlen(name), nsize - strlen(name), "%s%s", name[0] ? "/" : "", v);
		by += n + (by[n] == ',');
	}
	if (!name[0])
		snprintf(name, nsize, "group");
}

static long
find_group(wc_fleet *f, const char *key, const char *name, const wc_prom_series *s, int metric,
           wc_error *err)
{
	int found;
	if (wc_strmap_get(&f->group_index, key, &found))
		return found;
	fleet_group *ng = wc_grow(f->g, &f->cap_groups, f->n_groups + 1, sizeof *ng, 16);
	if (!ng)
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	f->g = ng;
	fleet_group *g = &f->g[f->n_groups];
	memset(g, 0, sizeof *g);
	snprintf(g->key, sizeof g->key, "%s", key);
	snprintf(g->name, sizeof g->name, "%s", name);
	wc__fleet_series_host(s, metric, g->host, sizeof g->host);
	group_value(s, metric, "namespace", 9, g->ns, sizeof g->ns);
	group_value(s, metric, "pod", 3, g->pod, sizeof g->pod);
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++)
		for (int k = 0; k < FLEET_MAX_ENGINES; k++)
			g->last[c][k] = -1.0;
	for (int m = 0; m < WC_FLEET_N_METRICS; m++)
		for (int k = 0; k < FLEET_MAX_ENGINES; k++)
			g->engine[m][k] = g->engine_alt[m][k] = -1;
	if (f->n_groups >= (size_t)1 << 30 || wc_strmap_put(&f->group_index, key, (int)f->n_groups) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	return (long)f->n_groups++;
}

/* The platform from a GPU's modelName, the same for every GPU of a group. */
static int
group_platform(const wc_fleet *f, fleet_group *g, const wc_prom_series *s, wc_error *err)
{
	const char *model = wc_prom_label(s, "modelName");
	const wc_platform_info *info = model ? wc_platform_lookup(model) : NULL;
	const char *p = info ? info->name : f->o.platform;
	/* The series whole, and the command that lists the catalog in place
	 * of its names: the names left the series 16 bytes ("DCGM_FI_DEV_P...")
	 * and were cut themselves ("MI325"), in 255 bytes (docs/fleet.md,
	 * "Problems in the data"). The modelName is quoted only when the
	 * series, whose label it is, must be shortened. */
	if (!p) {
		static const char hint[] = "not in the platform catalog: give --platform NAME "
		                           "(wattcast models --platforms)";
		if (strlen(s->key) + sizeof ": modelName " + sizeof hint <= WC_ERROR_MSG_MAX)
			return wc__fleet_error(err, WC_EINVAL, s->key, "modelName %s", hint);
		/* The modelName whole, the series shortened first (it was cut
		 * to 40 bytes, "...Blackwell Server Edi", beside 125 of UUID and
		 * driver labels). */
		return wc__fleet_error(err, WC_EINVAL, s->key, "modelName '%.120s' %s", model ? model : "", hint);
	}
	if (g->platform[0] && strcmp(g->platform, p) != 0)
		return wc__fleet_error(err, WC_EINVAL, s->key, "modelName '%.40s' (%s) in group '%.40s' of %s "
		                       "GPUs", model ? model : "", p, g->name, g->platform);
	snprintf(g->platform, sizeof g->platform, "%s", p);
	return WC_OK;
}

/* Same labels: one GPU's series under two names of its power, or its
 * power and its framebuffer used (fleet_in_use.c). */
int
wc__fleet_same_labels(const wc_prom_series *a, const wc_prom_series *b)
{
	if (a->n_labels != b->n_labels)
		return 0;
	for (size_t k = 0; k < a->n_labels; k++)
		if (strcmp(a->names[k], b->names[k]) != 0 || strcmp(a->values[k], b->values[k]) != 0)
			return 0;
	return 1;
}

static int
add_power(wc_fleet *f, fleet_group *g, const wc_prom_set *set, size_t i, wc_error *err)
{
	const wc_prom_series *s = &set->s[i];
	/* A GPU exporting both the averaged and the instantaneous power
	 * (DCGM 3.3) is one GPU: the preferred name is read. */
	for (size_t j = 0; j < g->n_gpus; j++) {
		const wc_prom_series *o = &set->s[g->gpus[j]];
		if (wc__fleet_same_labels(o, s)) {
			if (wc_fleet_metric_rank(WC_FLEET_POWER, s->metric) < wc_fleet_metric_rank(WC_FLEET_POWER, o->metric))
				g->gpus[j] = i;
			return WC_OK;
		}
	}
	size_t *ng = wc_grow(g->gpus, &g->cap_gpus, g->n_gpus + 1, sizeof *ng, 8);
	if (!ng)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	g->gpus = ng;
	g->gpus[g->n_gpus++] = i;
	if (!g->ever_gpu)
		snprintf(g->gpu_series, sizeof g->gpu_series, "%s", s->key);
	g->ever_gpu = 1;
	return group_platform(f, g, s, err);
}

/* A GPU's framebuffer-used series, paired with its power series once the
 * page is read (fleet_in_use.c). */
static int
add_fb(fleet_group *g, size_t i, wc_error *err)
{
	size_t *n = wc_grow(g->fbs, &g->cap_fbs, g->n_fbs + 1, sizeof *n, 8);
	if (!n)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	g->fbs = n;
	g->fbs[g->n_fbs++] = i;
	return WC_OK;
}

/* The label a metric's series must carry (SGLang's realtime_tokens_total:
 * mode="decode"; wc_engine_exported_label) is part of its name, not of
 * the engine's labels: left out, its series compare with the other
 * names' of the metric (docs/fleet.md, "Metrics"). */
static int
required_label(const wc_prom_series *s, size_t k)
{
	const char *need = wc_engine_exported_label(s->metric);
	size_t n = strlen(s->names[k]);
	return need && strncmp(need, s->names[k], n) == 0 && need[n] == '=';
}

/* Does series s carry the label its metric requires (none: yes)? */
static int
carries_required(const wc_prom_series *s)
{
	const char *need = wc_engine_exported_label(s->metric);
	if (!need)
		return 1;
	size_t kl = strcspn(need, "=");
	char key[32];
	snprintf(key, sizeof key, "%.*s", (int)kl, need);
	const char *v = wc_prom_label(s, key), *want = need + kl + (need[kl] == '=');
	size_t wl = strlen(want);
	if (wl >= 2 && want[0] == '"') {
		want++;
		wl -= 2;
	}
	return v && strlen(v) == wl && strncmp(v, want, wl) == 0;
}

/* The series' labels as an engine.csv label block (`a="x",b="y"`, values
 * escaped as a scrape writes them), for the engine label rule both
 * readers share (data/engine_log.h); NULL when out of memory. */
static char *
label_block(const wc_prom_series *s)
{
	size_t len = 1;
	for (size_t k = 0; k < s->n_labels; k++)
		len += strlen(s->names[k]) + 2 * strlen(s->values[k]) + 4;
	char *b = malloc(len), *p = b;
	if (!b)
		return NULL;
	for (size_t k = 0; k < s->n_labels; k++) {
		if (required_label(s, k))
			continue;
		p += sprintf(p, "%s%s=\"", p > b ? "," : "", s->names[k]);
		for (const char *v = s->values[k]; *v; v++) {
			if (*v == '\\' || *v == '"' || *v == '\n')
				*p++ = '\\';
			*p++ = *v == '\n' ? 'n' : *v;
		}
		*p++ = '"';
	}
	*p = '\0';
	return b;
}

/* The slot of engine `label` (its `engine`/`dp_rank` labels, "" none),
 * added when new; -1 when the group already has FLEET_MAX_ENGINES. */
static int
engine_slot(fleet_group *g, const char *label)
{
	for (int k = 0; k < g->n_engine_slots; k++)
		if (strcmp(g->engine_label[k], label) == 0)
			return k;
	if (g->n_engine_slots == FLEET_MAX_ENGINES)
		return -1;
	snprintf(g->engine_label[g->n_engine_slots], sizeof g->engine_label[0], "%s", label);
	return g->n_engine_slots++;
}

/* The first label whose values differ between a and b (absent: ""),
 * NULL when none does. */
static const char *
differing_label(const wc_prom_series *a, const wc_prom_series *b, const char **va, const char **vb)
{
	for (int side = 0; side < 2; side++) {
		const wc_prom_series *x = side ? b : a;
		for (size_t k = 0; k < x->n_labels; k++) {
			const char *p = wc_prom_label(a, x->names[k]), *q = wc_prom_label(b, x->names[k]);
			*va = p ? p : "";
			*vb = q ? q : "";
			if (strcmp(*va, *vb) != 0)
				return x->names[k];
		}
	}
	return NULL;
}

/* The span of s's samples on this page, "A..B" in whole seconds, B
 * without A's date when it shares it. */
static void
span_text(const wc_prom_series *s, char *out, size_t size)
{
	char a[40], b[40];
	if (s->n == 0) {
		snprintf(out, size, "no sample");
		return;
	}
	wc_prom_format_time(s->t[0], a, sizeof a);
	wc_prom_format_time(s->t[s->n - 1], b, sizeof b);
	if (strncmp(a, b, 11) == 0)
		snprintf(out, size, "%.19sZ..%.8sZ", a, b + 11);
	else
		snprintf(out, size, "%.19sZ..%.19sZ", a, b);
}

/* Does a GPU power series of the set carry `label` with value v? Only
 * then can --group-by that label put an engine with its GPUs. */
static int
gpu_carries(const wc_prom_set *set, const char *label, const char *v)
{
	for (size_t j = 0; v[0] && j < set->n; j++) {
		const char *w = wc_prom_label(&set->s[j], label);
		if (w && strcmp(w, v) == 0 && wc_fleet_metric_from_name(set->s[j].metric) == WC_FLEET_POWER)
			return 1;
	}
	return 0;
}

/* Two engine series of one metric in group g that --group-by does not
 * tell apart. The label that differs is named with both values and their
 * spans (docs/fleet.md, "Grouping"): the keys, cut to fit, read the same
 * where they differed at the end (a model redeployed under another
 * model_name), and one after the other --start/--end take one of them.
 * --group-by is advised only where the GPUs carry the label with an
 * engine's value: two vLLM servers on one host, told apart by their
 * `instance` port alone, were sent to --group-by, whose every choice was
 * refused again. */
static int
two_engines(const fleet_group *g, const wc_prom_set *set, const wc_prom_series *a, const wc_prom_series *b,
            int process, wc_error *err)
{
	const char *va, *vb, *label = differing_label(a, b, &va, &vb);
	if (label) {
		char sa[64], sb[64];
		span_text(a, sa, sizeof sa);
		span_text(b, sb, sizeof sb);
		int apart = a->n && b->n && (a->t[a->n - 1] < b->t[0] || b->t[b->n - 1] < a->t[0]);
		int by = gpu_carries(set, label, va) || gpu_carries(set, label, vb);
		/* The hint before the values and spans, which a long message cuts.
		 * Series differing in a process label alone are one engine's,
		 * joined when one follows the other (fleet_processes.c): at once,
		 * no --group-by parts them. */
		return wc_error_set(err, WC_EINVAL, "group '%.30s' left out: %s differ in %.30s: "
		                    "'%.40s' %s, '%.40s' %s", g->name,
		                    process ? "one engine's series under two processes at once (an old process's left "
		                              "over?)"
		                    : apart ? "two engines one after the other (--start/--end take one)"
		                    : by    ? "two engines at once (--group-by adds the label)"
		                            : "two engines at once, by a label no GPU has (give each server's scrape its "
		                              "GPU's gpu label, --group-by host,gpu; or run folders)",
		                    label, va, sa, vb, sb);
	}
	static const char hint[] = " (--group-by adds the label that tells them apart)";
	char head[WC_ERROR_MSG_MAX], ka[WC_ERROR_MSG_MAX], kb[WC_ERROR_MSG_MAX];
	int n = snprintf(head, sizeof head, "group '%.40s' left out: two engine series of %.60s: ", g->name,
	                 a->metric);
	size_t room = wc_error_name_room((size_t)n + strlen(" and ") + strlen(hint), 2);
	wc_error_name_cut(a->key, room, ka, sizeof ka);
	wc_error_name_cut(b->key, room, kb, sizeof kb);
	return wc_error_set(err, WC_EINVAL, "%s%s and %s%s", head, ka, kb, hint);
}

/* Series i of metric m (block: its labels) among the group's series of m
 * read so far, one per engine: by the one rule of engine.csv's columns
 * (wc_engine_labels_place; docs/fleet.md, "Grouping"), another engine's
 * is added up, of one engine's SGLang ranks (`tp_rank`, `pp_rank`,
 * `moe_ep_rank`: one scheduler's numbers) the lowest is read, since a
 * file's or an answer's order of series is no rule, a process label
 * (`pid`) beside them is left out, and a series that differs in another
 * label is two engines; one differing in `pid` alone was not joined as a
 * restart (fleet_processes.c), so it is at once, refused. One engine's metric under two
 * names (vLLM 0.11 and 0.12) is read from the preferred name. */
static int
add_engine(wc_fleet *f, fleet_group *g, const wc_prom_set *set, int m, size_t i, wc_error *err)
{
	const wc_prom_series *s = &set->s[i];
	char *block = label_block(s), label[sizeof g->engine_label[0]], key[64];
	char *read[FLEET_MAX_ENGINES];
	int slot_of[FLEET_MAX_ENGINES];
	size_t n = 0, which = 0;
	int rc = WC_OK, place = WC_ENGINE_PLACE_ADD;
	if (!block)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (int o = 0; o < g->n_engine_slots && rc == WC_OK; o++) {
		if (g->engine[m][o] < 0)
			continue;
		slot_of[n] = o;
		if (!(read[n++] = label_block(&set->s[g->engine[m][o]])))
			rc = wc_error_set(err, WC_ENOMEM, "out of memory");
	}
	if (rc == WC_OK)
		place = wc_engine_labels_place((const char *const *)read, n, block, &which, key, sizeof key);
	for (size_t j = 0; j < n; j++)
		free(read[j]);
	long *slot = NULL;
	if (rc == WC_OK && (place == WC_ENGINE_PLACE_REFUSE || place == WC_ENGINE_PLACE_JOIN)) {
		/* The group is left out, said at the end (wc_fleet_finish); the
		 * others keep their rows (docs/fleet.md, "Grouping"). When no
		 * other group is read, no_rows refuses with this reason
		 * (fleet_rows.c). */
		wc_error why;
		two_engines(g, set, &set->s[g->engine[m][slot_of[which]]], s, place == WC_ENGINE_PLACE_JOIN, &why);
		snprintf(g->left_out, sizeof g->left_out, "%s", why.msg);
		free(block);
		return WC_OK;
	} else if (rc == WC_OK && place == WC_ENGINE_PLACE_ADD) {
		wc_engine_labels_summed(block, label, sizeof label);
		int k = wc__fleet_relabelled_slot(f, g, set, m, s, label);
		if (k < 0)
			k = engine_slot(g, label);
		if (k < 0)
			rc = wc_error_set(err, WC_EINVAL, "group '%.40s' has more than %d engine series of %s (--group-by "
			                  "splits them)", g->name, FLEET_MAX_ENGINES, s->metric);
		else
			*(slot = &g->engine[m][k]) = (long)i;
	} else if (rc == WC_OK) {
		slot = &g->engine[m][slot_of[which]];
		const wc_prom_series *o = &set->s[*slot];
		int rank = wc_fleet_metric_rank(m, s->metric), was = wc_fleet_metric_rank(m, o->metric);
		/* Of two names, the other is read where the preferred one has
		 * no sample, per step: an engine upgraded mid-range lost its
		 * old name's steps (docs/fleet.md, "Metrics"). */
		if (rank != was)
			g->engine_alt[m][slot_of[which]] = rank < was ? *slot : (long)i;
		if (rank != was ? rank < was : place == WC_ENGINE_PLACE_REPLACE) {
			if (rank == was && m == WC_FLEET_RUNNING && strcmp(g->engine_series, o->key) == 0)
				snprintf(g->engine_series, sizeof g->engine_series, "%s", s->key);
			*slot = (long)i;
		}
	}
	free(block);
	if (rc != WC_OK || *slot != (long)i)
		return rc;
	const char *model = wc_prom_label(s, "model_name");
	if (model && !g->model[0])
		g->model_labelled = 1;
	if (!model)
		model = f->o.model;
	if (model && !g->model[0])
		snprintf(g->model, sizeof g->model, "%s", model);
	if (m == WC_FLEET_PROMPT || m == WC_FLEET_GENERATION)
		snprintf(g->at_end[m - WC_FLEET_PROMPT], sizeof g->at_end[0], "%s",
		         wc_engine_exported_at_end(s->metric) ? s->metric : "");
	if (m == WC_FLEET_RUNNING && !g->ever_engine) {
		g->ever_engine = 1;
		snprintf(g->engine_series, sizeof g->engine_series, "%s", s->key);
	}
	return WC_OK;
}

/* The labels of a --group-by given on the command line, on the first
 * page with series: none twice, and some carried by a series (labels are
 * case-sensitive; `host` always is), or every series falls into one
 * group: `--group-by hostname` made the fleet one group named 'group',
 * refused as mixed platforms or two engines. A label no series carries
 * beside others that are splits nothing, and is said (docs/fleet.md,
 * "Grouping"). */
static int
check_group_by(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	const char *by = f->o.group_by;
	if (!by || f->group_by_checked || set->n == 0)
		return WC_OK;
	f->group_by_checked = 1;
	char missing[200] = "";
	int any = 0, sides = 0;
	for (size_t i = 0; i < set->n; i++) {
		int m = wc_fleet_metric_from_name(set->s[i].metric);
		sides |= m < 0 ? 0 : wc__fleet_gpu_metric(m) ? 1 : 2;
	}
	for (const char *l = by; *l; ) {
		size_t n = strcspn(l, ",");
		char v[FLEET_TEXT];
		int carried = 0, by_side = 0;
		for (const char *o = by; o < l; o += strcspn(o, ",") + (o[strcspn(o, ",")] == ','))
			if (strcspn(o, ",") == n && strncmp(o, l, n) == 0)
				return wc_error_set(err, WC_EINVAL, "--group-by: label '%.*s' given twice", (int)(n > 100 ? 100 : n), l);
		for (size_t i = 0; by_side != 3 && i < set->n; i++) {
			int m = wc_fleet_metric_from_name(set->s[i].metric);
			if (m < 0)
				continue;
			group_value(&set->s[i], m, l, n, v, sizeof v);
			if (v[0])
				by_side |= wc__fleet_gpu_metric(m) ? 1 : 2;
		}
		carried = by_side != 0;
		/* A label only one side carries (DCGM's Hostname) puts every
		 * series of the other side in groups of its own: `--group-by
		 * Hostname` made the engines one group 'group', refused as two
		 * engines (docs/fleet.md, "Grouping"). */
		if (sides == 3 && (by_side == 1 || by_side == 2))
			return wc_error_set(err, WC_EINVAL, "--group-by: label '%.*s' is carried by %s series only, not by "
			                    "%s series, so the two never share a group; --group-by host "
			                    "joins DCGM's Hostname and the host of the engines' instance",
			                    (int)(n > 60 ? 60 : n), l, by_side == 1 ? "GPU power" : "engine",
			                    by_side == 1 ? "engine" : "GPU power");
		any |= carried;
		if (!carried && strlen(missing) + n + 4 < sizeof missing)
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s'%.*s'",
			         missing[0] ? ", " : "", (int)n, l);
		l += n + (l[n] == ',');
	}
	if (!any)
		return wc_error_set(err, WC_EINVAL, "--group-by: no series carries %s (labels are case-sensitive; "
		                    "'host' is DCGM's Hostname and the host of instance)", missing);
	if (missing[0])
		wc__fleet_warn(f, "--group-by: no series carries %s: it splits no group", missing);
	return WC_OK;
}

int
wc__fleet_assign(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	int rc0 = check_group_by(f, set, err);
	if (rc0 != WC_OK)
		return rc0;
	for (size_t i = 0; i < f->n_groups; i++) {
		f->g[i].n_gpus = f->g[i].n_fbs = 0;
		for (int m = 0; m < WC_FLEET_N_METRICS; m++)
			for (int k = 0; k < FLEET_MAX_ENGINES; k++)
				f->g[i].engine[m][k] = f->g[i].engine_alt[m][k] = -1;
	}
	for (size_t i = 0; i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		char key[512], name[80];
		int m = wc_fleet_metric_from_name(s->metric), rc;
		if (!carries_required(s))
			m = -1; /* another mode's series of realtime_tokens_total: not read */
		f->metric[i] = m;
		f->group[i] = -1;
		f->cursor[i] = 0;
		if (m < 0)
			continue;
		wc__fleet_group_key(f->o.group_by, s, m, key, sizeof key, name, sizeof name);
		long gi = find_group(f, key, name, s, m, err);
		if (gi < 0)
			return err ? err->code : WC_ENOMEM;
		fleet_group *g = &f->g[gi];
		f->group[i] = gi;
		if (g->left_out[0]) {
			g->left_gpu |= m == WC_FLEET_POWER;
			continue;
		}
		rc = m == WC_FLEET_POWER ? add_power(f, g, set, i, err)
		     : m == WC_FLEET_FB_USED ? add_fb(g, i, err) : add_engine(f, g, set, m, i, err);
		if (rc != WC_OK)
			return rc;
	}
	int rc = wc__fleet_pair_fb(f, set, err);
	if (rc != WC_OK)
		return rc;
	/* Each engine slot's series kept across pages: a slot a later page
	 * lacks is an engine without a sample there (fleet_steps.c). */
	for (size_t i = 0; i < f->n_groups; i++)
		for (int m = 0; m < WC_FLEET_N_METRICS; m++)
			for (int k = 0; k < f->g[i].n_engine_slots; k++) {
				long e = f->g[i].engine[m][k];
				char **key = &f->g[i].slot_key[m][k];
				if (e < 0 || (*key && strcmp(*key, set->s[e].key) == 0))
					continue;
				free(*key);
				if (!(*key = strdup(set->s[e].key)))
					return wc_error_set(err, WC_ENOMEM, "out of memory");
			}
	/* A group left out reads no series: neither its steps nor its
	 * interval (docs/fleet.md, "Grouping"). */
	for (size_t i = 0; i < set->n; i++)
		if (f->group[i] >= 0 && f->g[f->group[i]].left_out[0]) {
			fleet_group *g = &f->g[f->group[i]];
			f->group[i] = -1;
			f->metric[i] = -1;
			g->left_gpu |= g->ever_gpu;
			g->ever_gpu = g->ever_engine = 0;
			g->n_gpus = g->n_fbs = 0;
		}
	return WC_OK;
}

/*
 * Label blocks of engine series (`name{engine="0",model_name="m"}`): two
 * series of one metric whose labels differ are added up or not by the
 * label that tells them apart (docs/formats/telemetry.md, "engine.csv").
 * The one rule of engine.csv's columns and of Prometheus series
 * (trace/fleet_groups.c; docs/fleet.md, "Grouping").
 */
#include "engine_log_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Labels of an engine's series, in an order that puts each list skipped
 * below in one stretch. `engine` and `dp_rank`: labels whose series are
 * engines of one server, each counting its own requests and tokens:
 * vLLM's data-parallel engines (`engine`) and SGLang's data-parallel
 * ranks (`dp_rank`). `tp_rank`, `pp_rank` and `moe_ep_rank`: labels whose
 * series repeat one count: SGLang's tensor-, pipeline- and
 * expert-parallel ranks of one engine report the same scheduler's numbers
 * (current SGLang labels every scheduler series with `moe_ep_rank`, "0"
 * without expert parallelism). `pid`: a process label, no engine's:
 * prometheus_client's multiprocess mode tags each series with its
 * scheduler process's pid, so each rank has its own and a restarted
 * scheduler a new one (docs/formats/telemetry.md, "engine.csv"). */
static const char *const rank_labels[] = { "tp_rank", "pp_rank", "moe_ep_rank", "pid", "engine", "dp_rank" };
static const char *const *const repeated = rank_labels, *const *const process = rank_labels + 3,
                                *const *const summed = rank_labels + 4;
#define N_REPEATED 3
#define N_PROCESS 1
#define N_SUMMED 2
#define N_RANKS 6

static int
listed(const char *key, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(key, list[i], len) == 0)
			return 1;
	return 0;
}

/* The next `key="value"` of a label block from *s: 1 with its key and
 * value (quotes included, compared as written), 0 at the end. */
static int
next_label(const char **s, const char **k, size_t *kl, const char **v, size_t *vl)
{
	const char *b = *s;
	for (;;) {
		while (*b == ',' || isspace((unsigned char)*b))
			b++;
		if (!*b)
			return 0;
		*k = b;
		while (*b && *b != '=' && *b != ',')
			b++;
		*kl = (size_t)(b - *k);
		while (*kl > 0 && isspace((unsigned char)(*k)[*kl - 1]))
			(*kl)--;
		if (*b != '=')
			continue; /* no value: not a label */
		for (b++; isspace((unsigned char)*b); b++)
			;
		*v = b;
		if (*b == '"') {
			for (b++; *b && *b != '"'; b++)
				if (*b == '\\' && b[1])
					b++;
			if (*b == '"')
				b++;
		} else {
			while (*b && *b != ',')
				b++;
		}
		*vl = (size_t)(b - *v);
		*s = b;
		return 1;
	}
}

/* Value of label `key` (len bytes) in block `b`, *vl its length; NULL when
 * absent. */
static const char *
label_value(const char *b, const char *key, size_t len, size_t *vl)
{
	const char *k, *v;
	size_t kl;
	while (next_label(&b, &k, &kl, &v, vl))
		if (kl == len && strncmp(k, key, len) == 0)
			return v;
	return NULL;
}

/* The first label of `a` or `b` whose value differs in the other (or is
 * absent from it), skipping labels in `skip` (n of them); its key in
 * *key, *klen. */
static int
first_difference(const char *a, const char *b, const char *const *skip, size_t n, const char **key,
                 size_t *klen)
{
	const char *blocks[2] = { a, b };
	for (int side = 0; side < 2; side++) {
		const char *s = blocks[side], *k, *v, *w;
		size_t kl, vl, wl;
		while (next_label(&s, &k, &kl, &v, &vl)) {
			w = label_value(blocks[1 - side], k, kl, &wl);
			if (!listed(k, kl, skip, n) && (!w || vl != wl || strncmp(v, w, vl) != 0)) {
				*key = k;
				*klen = kl;
				return 1;
			}
		}
	}
	return 0;
}

int
wc_engine_labels_compare(const char *a, const char *b, char *key, size_t key_size)
{
	const char *k;
	size_t kl;
	const char *const none[1] = { "" };
	if (!first_difference(a, b, none, 0, &k, &kl))
		return WC_ENGINE_LABELS_SAME;
	snprintf(key, key_size, "%.*s", (int)(kl > 60 ? 60 : kl), k);
	if (!first_difference(a, b, process, N_PROCESS, &k, &kl))
		return WC_ENGINE_LABELS_PROCESS;
	/* From here a process label differing beside others says nothing:
	 * each rank of an engine is a process of its own. */
	snprintf(key, key_size, "%.*s", (int)(kl > 60 ? 60 : kl), k);
	if (!first_difference(a, b, process, N_PROCESS + N_SUMMED, &k, &kl))
		return WC_ENGINE_LABELS_SUMMED;
	if (!first_difference(a, b, repeated, N_REPEATED + N_PROCESS, &k, &kl))
		return WC_ENGINE_LABELS_REPEATED;
	snprintf(key, key_size, "%.*s", (int)(kl > 60 ? 60 : kl), k);
	if (!first_difference(a, b, rank_labels, N_RANKS, &k, &kl))
		return WC_ENGINE_LABELS_SUMMED_RANK;
	snprintf(key, key_size, "%.*s", (int)(kl > 60 ? 60 : kl), k);
	return WC_ENGINE_LABELS_OTHER;
}

int
wc_engine_labels_process(const char *name)
{
	return listed(name, strlen(name), process, N_PROCESS);
}

void
wc_engine_labels_summed(const char *block, char *out, size_t size)
{
	const char *k, *v;
	size_t kl, vl, len = 0;
	if (size)
		out[0] = '\0';
	while (size && next_label(&block, &k, &kl, &v, &vl)) {
		if (!listed(k, kl, summed, N_SUMMED))
			continue;
		int w = snprintf(out + len, size - len, "%s%.*s=%.*s", len ? "," : "", (int)kl, k, (int)vl, v);
		if (w < 0 || (size_t)w >= size - len)
			return;
		len += (size_t)w;
	}
}

/* A rank's value as written, its quotes left out. */
static void
rank_value(const char *block, const char *key, const char **v, size_t *vl)
{
	*v = label_value(block, key, strlen(key), vl);
	if (*v && *vl >= 2 && (*v)[0] == '"') {
		(*v)++;
		*vl -= 2;
	}
}

int
wc_engine_labels_rank_below(const char *a, const char *b)
{
	for (size_t i = 0; i < N_REPEATED; i++) {
		const char *va, *vb;
		size_t la, lb;
		rank_value(a, repeated[i], &va, &la);
		rank_value(b, repeated[i], &vb, &lb);
		if (!va || !vb) {
			if (va != vb)
				return !va; /* no rank before any */
			continue;
		}
		char sa[32], sb[32], *ea, *eb;
		snprintf(sa, sizeof sa, "%.*s", (int)(la < 31 ? la : 31), va);
		snprintf(sb, sizeof sb, "%.*s", (int)(lb < 31 ? lb : 31), vb);
		double x = strtod(sa, &ea), y = strtod(sb, &eb);
		if (ea != sa && !*ea && eb != sb && !*eb) {
			if (x != y)
				return x < y;
			continue;
		}
		int c = strcmp(sa, sb);
		if (c != 0)
			return c < 0;
	}
	return 0;
}

int
wc_engine_labels_place(const char *const *read, size_t n, const char *block, size_t *which, char *key,
                       size_t key_size)
{
	int place = WC_ENGINE_PLACE_ADD;
	for (size_t j = 0; j < n; j++) {
		switch (wc_engine_labels_compare(read[j], block, key, key_size)) {
		case WC_ENGINE_LABELS_OTHER:
			*which = j;
			return WC_ENGINE_PLACE_REFUSE;
		case WC_ENGINE_LABELS_PROCESS: /* the same engine's series under another process */
			*which = j;
			place = WC_ENGINE_PLACE_JOIN;
			break;
		case WC_ENGINE_LABELS_SAME: /* the same series again: the first read */
			*which = j;
			place = WC_ENGINE_PLACE_SKIP;
			break;
		case WC_ENGINE_LABELS_REPEATED: /* this engine's other rank: the lowest read */
			*which = j;
			place = wc_engine_labels_rank_below(block, read[j]) ? WC_ENGINE_PLACE_REPLACE : WC_ENGINE_PLACE_SKIP;
			break;
		default: /* another engine (perhaps at another rank): added up */
			break;
		}
	}
	if (place == WC_ENGINE_PLACE_ADD)
		*which = n;
	return place;
}

int
wc_engine_labels_have(const char *block, const char *label)
{
	const char *eq = strchr(label, '='), *v;
	size_t vl;
	if (!block || !eq)
		return 0;
	v = label_value(block, label, (size_t)(eq - label), &vl);
	return v && vl == strlen(eq + 1) && strncmp(v, eq + 1, vl) == 0;
}

/* `model_name` (vLLM's and SGLang's model) and the rank and process
 * labels above are set by the engine on its own series; a GPU exporter's
 * series (DCGM, nvidia-smi's) carry none of them (docs/fleet.md,
 * "Queries": a --selector's matcher on one selects engines, and GPUs
 * through the engines' groups). */
int
wc_engine_label_engines_only(const char *label)
{
	return label && (strcmp(label, "model_name") == 0 || listed(label, strlen(label), rank_labels, N_RANKS));
}

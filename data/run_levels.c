/*
 * A load level's label as part of its row's run id, `run_id#<label>`
 * (docs/formats/telemetry.md, "Load levels and idle windows"), and the
 * manifest check that two levels of one run give two ids.
 */
#include "run_manifest_internal.h"

#include <stdio.h>
#include <string.h>

void
wc_run_level_id(const char *label, int level, char *out, size_t cap)
{
	size_t k = 0;
	if (cap > WC_RUN_LEVEL_ID_MAX)
		cap = WC_RUN_LEVEL_ID_MAX;
	for (const char *p = label; *p && k + 1 < cap; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '.' || c == '-' || c == '_';
		out[k++] = ok ? c : '_';
	}
	out[k] = '\0';
	if (!k)
		snprintf(out, cap, "L%d", level);
}

int
wc__run_manifest_check_labels(wc__json_loader *ld, const wc_run_manifest *m, const char *at,
                              const size_t *index)
{
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX], a[WC_RUN_LEVEL_ID_MAX], b[WC_RUN_LEVEL_ID_MAX];
	for (int i = 1; i < m->n_levels; i++) {
		wc_run_level_id(m->levels[i].label, i, a, sizeof a);
		for (int j = 0; j < i; j++) {
			wc_run_level_id(m->levels[j].label, j, b, sizeof b);
			if (strcmp(a, b) != 0)
				continue;
			wc__json_join_index(q, at, index ? index[i] : (size_t)i);
			wc__json_join(p, q, "label");
			const size_t li = index ? index[i] : (size_t)i, lj = index ? index[j] : (size_t)j;
			/* An unlabelled level's id part is its default, L<n>: the
			 * collision is that default's, so name it, and point at the
			 * level (it has no label to point at), not at a label '' */
			if (!m->levels[i].label[0])
				return wc__json_fail(ld, q, "level %zu is unlabelled, so its run id ends in its default "
				                     "'#%s', as level %zu's label '%.47s' does; give either a label",
				                     li, a, lj, m->levels[j].label);
			if (!m->levels[j].label[0])
				return wc__json_fail(ld, p, "'%.47s' ends a run id in '#%s', level %zu's default (it is "
				                     "unlabelled); give either a label", m->levels[i].label, a, lj);
			if (strcmp(m->levels[i].label, m->levels[j].label) == 0)
				return wc__json_fail(ld, p, "'%.47s' is level %zu's label too: both rows' run ids "
				                     "would end in '#%s'; give each its own", m->levels[i].label, lj, a);
			return wc__json_fail(ld, p, "'%.47s' and level %zu's '%.47s' both end a run id in '#%s' (a "
			                     "label keeps A-Z a-z 0-9 . - _, the rest '_', %d bytes); give each its own",
			                     m->levels[i].label, lj, m->levels[j].label, a,
			                     WC_RUN_LEVEL_ID_MAX - 1);
		}
	}
	return WC_OK;
}

/*
 * One series per GPU in a group (docs/fleet.md, "Grouping"): a GPU (its
 * `UUID`, or its host and `gpu` index) in two power series at once, an
 * exporter scraped by two jobs,
 * is counted once, and the labels that tell the two apart are named.
 * Apart from fleet_groups.c, which places series in groups.
 */
#include "fleet_internal.h"

#include <stdio.h>
#include <string.h>

#include "data/telemetry.h"

/* The labels of b that a lacks or holds with another value, `n="v"`
 * comma-separated: what tells two series of one GPU apart. */
void
wc__fleet_label_diff(const wc_prom_series *a, const wc_prom_series *b, char *out, size_t size)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t k = 0; k < b->n_labels && len < size; k++) {
		const char *v = wc_prom_label(a, b->names[k]);
		if (v && strcmp(v, b->values[k]) == 0)
			continue;
		int w = snprintf(out + len, size - len, "%s%s=\"%s\"", len ? "," : "", b->names[k], b->values[k]);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* One GPU in two power series at once, its `UUID` the same: an exporter
 * scraped by two jobs (a static job beside a ServiceMonitor), which
 * Prometheus keeps as two series differing in `job`. TP is the group's
 * GPUs (docs/fleet.md, "Grouping"): counted twice, TP and power doubled
 * and energy per token with them, unsaid. The series present at the last
 * step is kept (a second job added mid-range cuts nothing), else the
 * first; a GPU's series one after the other (an exporter restarted
 * under a new instance) are not two jobs, even where the old one's last
 * scrape and the new one's first fall in one step. */
/* Are power series a and b one GPU? Its `UUID` names it; without one (a
 * relabelling that drops it) its host and `gpu` index do: two jobs'
 * series of 2 GPUs without UUIDs read TP 4 at 1200 W for 2 GPUs at
 * 600 W, unsaid (docs/fleet.md, "Grouping"). Into shown: the GPU as a
 * message names it. */
static int
same_gpu(const wc_prom_series *a, const wc_prom_series *b, char *shown, size_t size)
{
	const char *ua = wc_prom_label(a, "UUID"), *ub = wc_prom_label(b, "UUID");
	if (ua && ua[0] && ub && ub[0]) {
		snprintf(shown, size, "%s%.60s", wc_telemetry_gpu_word(ub), ub);
		return wc_telemetry_uuid_same(ua, ub, strlen(ub));
	}
	const char *ga = wc_prom_label(a, "gpu"), *gb = wc_prom_label(b, "gpu");
	char ha[FLEET_TEXT], hb[FLEET_TEXT];
	if (!ga || !gb || !ga[0] || strcmp(ga, gb) != 0)
		return 0;
	wc__fleet_series_host(a, WC_FLEET_POWER, ha, sizeof ha);
	wc__fleet_series_host(b, WC_FLEET_POWER, hb, sizeof hb);
	snprintf(shown, size, "GPU %.8s of host '%.40s' (no UUID label: by host and gpu)", gb, hb);
	return ha[0] && strcmp(ha, hb) == 0;
}

size_t
wc__fleet_one_per_gpu(wc_fleet *f, fleet_group *g, const wc_prom_set *set, size_t *present, double *pw,
                      size_t np, double t)
{
	size_t kept = 0;
	char gpu[128];
	for (size_t j = 0; j < np; j++) {
		size_t k = 0;
		while (k < kept && !same_gpu(&set->s[present[k]], &set->s[present[j]], gpu, sizeof gpu))
			k++;
		if (k == kept) {
			present[kept] = present[j];
			pw[kept++] = pw[j];
			continue;
		}
		size_t read = present[k], other = present[j];
		if (wc__fleet_is_member(g, set->s[other].key) && !wc__fleet_is_member(g, set->s[read].key)) {
			present[k] = other;
			pw[k] = pw[j];
			other = read;
			read = present[k];
		}
		/* The series read ends in this step as the other begins: one
		 * exporter relabelled (restarted under a new instance), whose
		 * last and first scrapes fall in one step (08:43:57 and 08:43:59
		 * in the step to 08:44:00); said at the next step, where the new
		 * series continues the GPU (fleet_steps.c), not two jobs. */
		const wc_prom_series *rs = &set->s[read], *os = &set->s[other];
		int handover = wc__fleet_is_member(g, rs->key) && !wc__fleet_is_member(g, os->key) && os->n &&
		               os->t[0] > t - f->o.step && rs->n && rs->t[rs->n - 1] <= t + 1e-9;
		if (!handover && !g->two_jobs_said) {
			char at[40], head[WC_ERROR_MSG_MAX], sa[WC_ERROR_MSG_MAX], diff[80];
			g->two_jobs_said = 1;
			wc_prom_format_time(t, at, sizeof at);
			wc__fleet_label_diff(&set->s[read], &set->s[other], diff, sizeof diff);
			int n = snprintf(head, sizeof head, "group '%.40s': %s in two power series at %s (one exporter "
			                 "in two scrape jobs?), counted once: ", g->name, gpu, at);
			/* The series gives way, so that the label telling them apart
			 * arrives whole within 255 bytes. */
			wc_error_name_cut(set->s[read].key, wc_error_name_room((size_t)n + 25 + strlen(diff), 1), sa,
			                  sizeof sa);
			wc__fleet_warn(f, "%s%s read, not the one with %s", head, sa, diff);
		}
	}
	return kept;
}

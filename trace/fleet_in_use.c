/*
 * Which of a group's GPUs its engine holds (docs/fleet.md, "Grouping"):
 * on a bare-metal host every GPU's power series carries the host alone,
 * so a TP-2 engine on a 4-GPU host was read as TP 4 with the idle GPUs'
 * power added. DCGM's framebuffer used (DCGM_FI_DEV_FB_USED) tells them
 * apart: an engine reserves its share of each GPU it runs on up front,
 * an idle GPU holds a few hundred MiB (WC_FLEET_GPU_IN_USE_SHARE,
 * models/limits.h). Where it is missing the host's GPUs are the engine's,
 * as before, said once. Apart from fleet_groups.c (which series belong
 * together) and fleet_steps.c (a group's steps), which call it.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/telemetry.h"
#include "models/catalog.h"
#include "models/limits.h"

/* The framebuffer-used series of group g paired with its GPU power
 * series p: the same labels (one exporter's scrape of one GPU), else the
 * same `UUID`; -1 none. */
static long
pair_of(const fleet_group *g, const wc_prom_set *set, size_t p)
{
	const wc_prom_series *s = &set->s[p];
	for (size_t k = 0; k < g->n_fbs; k++)
		if (wc__fleet_same_labels(s, &set->s[g->fbs[k]]))
			return (long)g->fbs[k];
	const char *u = wc_prom_label(s, "UUID");
	for (size_t k = 0; u && u[0] && k < g->n_fbs; k++) {
		const char *o = wc_prom_label(&set->s[g->fbs[k]], "UUID");
		if (o && wc_telemetry_uuid_same(o, u, strlen(u)))
			return (long)g->fbs[k];
	}
	return -1;
}

/* The framebuffer, MiB, a GPU of the group's board holds at least while
 * an engine runs on it; NaN for a board the platform catalog lacks
 * (--platform GB200), whose memory is unknown. */
static double
in_use_mib(const fleet_group *g)
{
	const wc_platform_info *p = wc_platform_lookup(g->platform);
	if (!p)
		return NAN;
	return WC_FLEET_GPU_IN_USE_SHARE * wc_platform_memory_bytes(p->name, p->memory_gb) / 1048576.0;
}

int
wc__fleet_pair_fb(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	for (size_t i = 0; i < f->n_groups; i++) {
		fleet_group *g = &f->g[i];
		if (!g->n_gpus)
			continue;
		if (g->cap_fb < g->n_gpus) {
			long *n = realloc(g->fb, g->n_gpus * sizeof *n);
			if (!n)
				return wc_error_set(err, WC_ENOMEM, "out of memory");
			g->fb = n;
			g->cap_fb = g->n_gpus;
		}
		for (size_t j = 0; j < g->n_gpus; j++)
			if ((g->fb[j] = g->n_fbs ? pair_of(g, set, g->gpus[j]) : -1) >= 0)
				g->fb_seen = 1;
		if (g->fb_seen && g->in_use_mib == 0.0)
			g->in_use_mib = in_use_mib(g); /* the group's board is its first GPU's, for good */
	}
	return WC_OK;
}

/* Said once per group: the GPUs left out, by DCGM's `gpu` index (else
 * their UUID), what the most of them holds and the bound. */
static void
say_idle(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const unsigned char *idle, size_t n_idle,
         double most, double bound, double t)
{
	char list[72] = "", at[40];
	size_t len = 0;
	for (size_t j = 0; j < g->n_gpus && len < sizeof list; j++) {
		if (!idle[j])
			continue;
		const wc_prom_series *s = &set->s[g->gpus[j]];
		const char *id = wc_prom_label(s, "gpu");
		if (!id)
			id = wc_prom_label(s, "UUID");
		int w = snprintf(list + len, sizeof list - len, "%s%.24s", len ? ", " : "", id ? id : s->key);
		len += w > 0 ? (size_t)w : 0;
	}
	if (len >= sizeof list)
		memcpy(list + sizeof list - 4, "...", 4);
	wc_prom_format_time(t, at, sizeof at);
	wc__fleet_warn(f, "group '%.40s': %zu of its %zu GPUs (gpu %s) hold at most %.0f MiB at %s "
	               "(DCGM_FI_DEV_FB_USED), under the %.0f MiB an engine holds of each %s it runs on: no engine uses "
	               "them, left out of its TP and power", g->name, n_idle, g->n_gpus, list, most, at, bound,
	               g->platform);
	g->idle_said = 1;
}

void
wc__fleet_idle_gpus(wc_fleet *f, fleet_group *g, const wc_prom_set *set, double t, unsigned char *idle)
{
	memset(idle, 0, g->n_gpus);
	double bound = g->n_fbs ? g->in_use_mib : NAN, most = 0.0;
	size_t n_read = 0, n_idle = 0;
	wc_error err;
	for (size_t j = 0; isfinite(bound) && j < g->n_gpus; j++) {
		double v = 0.0;
		/* A gauge, so never refused (only engine counts are). Without a
		 * reading at this step the GPU counts, as without the series. */
		if (g->fb[j] < 0 || wc__fleet_value_at(f, set, (size_t)g->fb[j], t, &v, &err) != FLEET_VALUE)
			continue;
		n_read++;
		if (v <= bound) {
			idle[j] = 1;
			n_idle++;
			most = fmax(most, v);
		}
	}
	/* No GPU holds an engine's share: its engine is down or restarting
	 * (its memory freed), and which GPUs it runs on is not known here.
	 * Those of the step before stay its own (all of them before its
	 * first step): counted all, the step its engine resumed within,
	 * memory still filling, added GPUs 2-3 to a TP-2 engine, cut the
	 * window and excluded the rows around it as partial power. */
	if (n_idle == n_read) {
		for (size_t j = 0; j < g->n_gpus; j++)
			idle[j] = idle[j] && g->n_members && !wc__fleet_is_member(g, set->s[g->gpus[j]].key);
		return;
	}
	/* Every GPU read holds an engine's share: none idle, nothing to
	 * say ('0 of its 1 GPUs (gpu ) hold at most 0 MiB' was). */
	if (!g->idle_said && n_idle)
		say_idle(f, g, set, idle, n_idle, most, bound, t);
}

/* A group read, of several GPUs and no pod: its GPUs are the host's
 * (under Kubernetes DCGM names the pod a GPU is given to). */
static int
host_gpus(const fleet_group *g)
{
	return g->ever_gpu && g->ever_engine && !g->left_out[0] && g->full_gpus > 1 && !g->pod[0];
}

void
wc__fleet_say_in_use(wc_fleet *f)
{
	const fleet_group *first = NULL, *board = NULL;
	size_t n = 0;
	for (size_t i = 0; i < f->n_groups; i++) {
		const fleet_group *g = &f->g[i];
		if (!host_gpus(g))
			continue;
		if (!g->fb_seen)
			first = n++ ? first : g;
		else if (!board && !isfinite(g->in_use_mib))
			board = g;
	}
	if (first)
		wc__fleet_warn(f, "%zu group%s of several GPUs and no pod ('%.40s' first, %d GPUs): TP is the host's GPU "
		               "count, each GPU's power counted: no DCGM_FI_DEV_FB_USED series (a default counter of "
		               "the DCGM exporter) tells the GPUs an engine holds from idle ones", n, n == 1 ? "" : "s",
		               first->name, first->full_gpus);
	if (board)
		wc__fleet_warn(f, "group '%.40s': TP is the host's %d GPUs, each GPU's power counted: %.40s is not in "
		               "the platform catalog, so the framebuffer an engine holds of it, which tells the GPUs it "
		               "uses from idle ones, is unknown", board->name, board->full_gpus, board->platform);
}

/*
 * A level's own overhead (t0, t1, tau) that its rows run to an edge of its
 * domain, while other levels' rows identify theirs (inside the domain, and
 * not "not identified" by their standard errors), is held at the median of
 * those levels' values and the fit is solved again without it
 * (docs/capacity.md, "What the rows cannot identify"). Why: an edge is
 * where the log coordinate stops, not a value the rows showed (H200's two
 * published periods, one running count and one output length, sent its
 * step overhead t0 to 1 us, a 0.4 ms decode step for a 0.6 B model), and
 * the other levels' fits of the same quantity, served by the same kind of
 * engine, are the nearest evidence there is. The held value is written
 * with source "assumed", as the other values the rows cannot identify
 * (t1 and tau fixed at 0) are.
 */
#include "capacity_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/stats.h"
#include "models/warnings.h"

/* The kinds the rule holds when a level has its own value of them: the
 * engine's costs (t0, t1, tau: scheduling, sampling, launches and
 * collectives, software the levels share), not the board's efficiencies
 * (eta, etac: what this board's memory and cores reach, which its own
 * rows do speak to). Holding eta too was measured and not kept: H200's
 * rows then set nothing, and the default profile's Fig. 29 latency on
 * H200 went from +6 to +39 % at 256 prompt tokens (docs/capacity.md,
 * "What the rows cannot identify"). */
static const unsigned char held_kinds[WC_CAP_KINDS] = {
	[WC_CAP_ETA] = 0, [WC_CAP_T0] = 1, [WC_CAP_T1] = 1, [WC_CAP_ETAC] = 0, [WC_CAP_TAU] = 1, [WC_CAP_TAU_EP] = 1,
};

int
wc__cap_at_edge(double u)
{
	double t = wc__cap_share(1.0, u);
	return t > 0.999 || t < 0.001;
}

/* Take parameter j out of the problem: the later slots and their starts
 * move down one place and every index above j with them, so that p_kind,
 * p_input and slots stay one numbering. */
static void
drop_slot(cap_problem *pb, int j)
{
	for (int k = j; k + 1 < pb->n_params; k++) {
		pb->slots[k] = pb->slots[k + 1];
		pb->u0[k] = pb->u0[k + 1];
	}
	pb->n_params--;
	for (int k = 0; k < WC_CAP_KINDS; k++)
		for (int L = 0; L < pb->n_levels; L++)
			if (pb->p_kind[k][L] > j)
				pb->p_kind[k][L]--;
	for (int w = 0; w < pb->n_workloads; w++)
		if (pb->p_input[w] > j)
			pb->p_input[w]--;
}

void
wc__cap_problem_hold(cap_problem *pb, int k, int L, double value)
{
	int j = pb->p_kind[k][L];
	if (!pb->per_level[k] || j < 0)
		return; /* a shared slot serves every level: never one level's to hold */
	pb->p_kind[k][L] = -1;
	pb->fixed[k][L] = value;
	drop_slot(pb, j);
}

/* "1.72 ms" for an overhead, "0.83" for an efficiency. */
static void
format_value(int k, double v, char *buf, size_t cap)
{
	if (k == WC_CAP_ETA || k == WC_CAP_ETAC)
		snprintf(buf, cap, "%.3g", v);
	else if (v >= 1e-3)
		snprintf(buf, cap, "%.3g ms", 1e3 * v);
	else
		snprintf(buf, cap, "%.3g us", 1e6 * v);
}

/* The levels whose rows identify their own parameter of kind k at u:
 * inside its domain and not unidentified by its standard error (se_u);
 * their values in v, names in `who`, and in `unid` those inside their
 * domain that are not identified: a level whose one row leaves the fit no
 * curvature along its value (standard error of its log ~1e17) shows
 * nothing another level could borrow (docs/capacity.md, "Held at the
 * other levels' median"). Returns how many identify it. */
typedef struct {
	double v[WC_CAPACITY_MAX_LEVELS];
	char who[WC_CAPACITY_MAX_LEVELS * (WC_NAME_MAX + 2)], unid[WC_CAPACITY_MAX_LEVELS * (WC_NAME_MAX + 2)];
	size_t n, n_unid;
} donors;

static void
name_level(const cap_problem *pb, int L, char *list, size_t cap, size_t *n)
{
	size_t used = strlen(list);
	snprintf(list + used, cap - used, "%s%s", (*n)++ ? ", " : "", pb->levels[L].name);
}

static size_t
find_donors(const cap_problem *pb, int k, const double *u, const double *se_u, donors *d)
{
	memset(d, 0, sizeof *d);
	for (int L = 0; L < pb->n_levels; L++) {
		int j = pb->p_kind[k][L];
		if (j < 0 || wc__cap_at_edge(u[j]))
			continue;
		if (wc__cap_se_unidentified(wc__cap_se_log(pb, j, u[j], se_u[j]))) {
			name_level(pb, L, d->unid, sizeof d->unid, &d->n_unid);
			continue;
		}
		d->v[d->n] = wc__cap_value(pb, j, u[j]);
		name_level(pb, L, d->who, sizeof d->who, &d->n);
	}
	return d->n;
}

/* Whether level L's own parameter of kind k is one the rule weighs: a slot
 * of its own, of a held kind, at an edge at u. */
static int
at_own_edge(const cap_problem *pb, int k, int L, const double *u)
{
	int j = pb->p_kind[k][L];
	return pb->per_level[k] && held_kinds[k] && j >= 0 && wc__cap_at_edge(u[j]);
}

int
wc__cap_hold_edges(cap_problem *pb, const double *u, const double *se_u)
{
	double held[WC_CAP_KINDS][WC_CAPACITY_MAX_LEVELS];
	int n_held = 0;
	donors d;
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		for (int L = 0; L < pb->n_levels; L++)
			held[k][L] = NAN;
		if (!pb->per_level[k] || !held_kinds[k] || find_donors(pb, k, u, se_u, &d) == 0)
			continue; /* no level identifies it: nothing to borrow, it stays a bound */
		double med = wc_stats_median(d.v, d.n);
		for (int L = 0; L < pb->n_levels; L++) {
			if (!at_own_edge(pb, k, L, u))
				continue;
			int j = pb->p_kind[k][L];
			char label[WC_LABEL_MAX], edge[32], hold[32];
			wc__cap_param_name(pb, j, label, sizeof label);
			format_value(k, wc__cap_value(pb, j, u[j]), edge, sizeof edge);
			format_value(k, med, hold, sizeof hold);
			WC_WARN(pb, "%s: its rows ran it to %s, the edge of its domain; held at %s, the median of %s on %s%s%s%s, "
			        "and the fit solved again without it (source \"assumed\")", label, edge, hold,
			        wc_capacity_kind_name((wc_capacity_kind)k), d.who, d.n_unid ? " (not " : "", d.unid,
			        d.n_unid > 1 ? ": their rows do not identify theirs)" : d.n_unid ? ": its rows do not identify it)" : "");
			held[k][L] = med;
			n_held++;
		}
	}
	/* every edge found at this u before any slot moves */
	for (int k = 0; k < WC_CAP_KINDS; k++)
		for (int L = 0; L < pb->n_levels; L++)
			if (!isnan(held[k][L]))
				wc__cap_problem_hold(pb, k, L, held[k][L]);
	/* The last pass (nothing more held): an edge left at its bound because
	 * the levels inside their domain do not identify theirs says so once,
	 * since a reader would take such a level for a source. */
	for (int k = 0; n_held == 0 && k < WC_CAP_KINDS; k++) {
		if (!pb->per_level[k] || !held_kinds[k] || find_donors(pb, k, u, se_u, &d) > 0 || d.n_unid == 0)
			continue;
		for (int L = 0; L < pb->n_levels; L++) {
			if (!at_own_edge(pb, k, L, u))
				continue;
			char label[WC_LABEL_MAX], edge[32];
			wc__cap_param_name(pb, pb->p_kind[k][L], label, sizeof label);
			format_value(k, wc__cap_value(pb, pb->p_kind[k][L], u[pb->p_kind[k][L]]), edge, sizeof edge);
			WC_WARN(pb, "%s: its rows ran it to %s, the edge of its domain; not held: no other level's rows "
			        "identify %s (not %s: %s), so it stays at the bound", label, edge,
			        wc_capacity_kind_name((wc_capacity_kind)k), d.unid,
			        d.n_unid > 1 ? "their rows do not identify theirs" : "its rows do not identify it");
		}
	}
	return n_held;
}

int
wc__cap_problem_hold_as(cap_problem *pb, const wc_capacity_params *point)
{
	int n = 0;
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		if (!pb->per_level[k] || point->shared[k])
			continue;
		for (int L = 0; L < pb->n_levels; L++) {
			const wc_capacity_level *l = wc_capacity_level_find(point, pb->levels[L].name);
			if (l && pb->p_kind[k][L] >= 0 && l->p[k].source == WC_SRC_ASSUMED) {
				wc__cap_problem_hold(pb, k, L, l->p[k].value);
				n++;
			}
		}
	}
	return n;
}

/*
 * A group's steps that nothing may be computed from (docs/fleet.md,
 * "Problems in the data"): a GPU's or the engine's series without a
 * sample, with a NaN one, or with no plausible power reading. Each gap is
 * said when it begins and when it ends, and when what it lacks changes
 * within it, so that each step left out is named by what it lacked; a
 * gap, or a GPU missing, still open at the range's end is said there.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a gap lacks, beside an engine metric (>= 0): one GPU's reading (a
 * NaN or implausible one), or every GPU's power. */
enum { GAP_GPU = -1, GAP_GPUS = -2 };

/* Why the step is a gap (NULL: it is not): the first series lacking, and
 * in *kind what it is. */
static const char *
gap_reason(const fleet_group *g, const wc_prom_set *set, const int *state, const char *const *bad, size_t np,
           long nan_gpu, long dropped_gpu, const char **what, int *kind, char *all, size_t cap)
{
	*what = "NaN sample";
	*kind = GAP_GPU;
	if (nan_gpu >= 0)
		return set->s[nan_gpu].key;
	/* Only the engine's load: a NaN counter is no count (its increases
	 * withdrawn) and a NaN waiting count no reading (waiting unknown),
	 * the window kept (fleet_samples.c); as gaps they cut it, and the
	 * next row counted the tokens of the steps said left out. */
	if (state[WC_FLEET_RUNNING] == FLEET_NAN) {
		*kind = WC_FLEET_RUNNING;
		return bad[WC_FLEET_RUNNING];
	}
	*what = "no plausible power reading";
	if (dropped_gpu >= 0)
		return set->s[dropped_gpu].key;
	*what = "no sample";
	/* The engine's load and every GPU's power at once (the data ends
	 * before --end, a host down): the GPUs are named too, where only the
	 * engine was blamed (docs/fleet.md, "Problems in the data"). */
	if (state[WC_FLEET_RUNNING] == FLEET_ABSENT && np == 0 && g->n_members) {
		snprintf(all, cap, "no sample, nor of the group's GPU power (%zu series),", g->n_members);
		*what = all;
	}
	*kind = WC_FLEET_RUNNING;
	if (state[WC_FLEET_RUNNING] != FLEET_VALUE)
		return bad[WC_FLEET_RUNNING] ? bad[WC_FLEET_RUNNING]
		       : g->engine_series[0] ? g->engine_series : "vllm:num_requests_running";
	/* Every GPU at once: name the others too, not only the first; the
	 * others present at the last step, not the page's series (with
	 * relabelled ones it said "other 3" of a TP-2 group). */
	*kind = GAP_GPUS;
	if (np == 0 && g->n_members > 1) {
		snprintf(all, cap, "no sample, nor of the group's other %zu GPU series (its exporter down?),",
		         g->n_members - 1);
		*what = all;
	}
	if (np == 0)
		return g->n_members ? g->members[0] : g->gpu_series;
	return NULL;
}

/* Does what the open gap lacks still lack at this step? */
static int
gap_holds(const fleet_group *g, const wc_prom_set *set, const int *state, size_t np, long nan_gpu,
          long dropped_gpu)
{
	if (g->gap_kind == WC_FLEET_RUNNING)
		return state[WC_FLEET_RUNNING] != FLEET_VALUE;
	if (g->gap_kind >= 0)
		return state[g->gap_kind] == FLEET_NAN;
	if (g->gap_kind == GAP_GPUS)
		return np == 0;
	return (nan_gpu >= 0 && strcmp(set->s[nan_gpu].key, g->gap_series) == 0) ||
	       (dropped_gpu >= 0 && strcmp(set->s[dropped_gpu].key, g->gap_series) == 0);
}

/* Report when the gap begins. Before the group's first step a series that
 * has no sample yet has not started: no gap while the group has no
 * sample at all (a range that begins before the data). While other
 * series of the group have samples (an engine's series that first
 * appears mid-range beside its GPUs' power or the other data-parallel
 * engines), their steps are left out as where the series stops, since a
 * slot without a sample cannot be told from an engine not scraped
 * (fleet_steps.c, engines_at); 150 s of them went unsaid (docs/fleet.md,
 * "Problems in the data"). A NaN or an implausible reading is in the
 * data and is reported wherever it falls: a NaN first sample went
 * unsaid. `began`: the whole gap's first step; `live`: the group has a
 * sample in the step. */
static void
begin_gap(wc_fleet *f, fleet_group *g, const char *series, const char *what, int kind, double t,
          double began, int live)
{
	char at[40];
	int first = !g->had_step && strncmp(what, "no sample", 9) == 0;
	if (g->in_gap || (first && !live) || !g->ever_engine)
		return;
	wc_prom_format_time(t, at, sizeof at);
	/* The engine's load stops while its GPUs report: its last samples
	 * cover the step before only in part (an engine stopping), and that
	 * step's power is the whole step's; the step is taken out with the
	 * gap (docs/fleet.md, "Problems in the data"). So is a step before
	 * any gap without samples whose samples end within it (part_end,
	 * fleet_steps.c): the 7 s of a run ending within it were counted as
	 * the whole step (docs/fleet.md, "Windows"). */
	g->gap_absent = kind == WC_FLEET_RUNNING && strcmp(what, "no sample") == 0;
	int before = strncmp(what, "no sample", 9) == 0 &&
	             wc__fleet_drop_last(f, g, (size_t)llround((t - f->o.start) / f->o.step), g->gap_absent);
	if (first)
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": no sample yet at %s while group '%s' has samples of other series; the steps "
		               "until its first are left out of the rows", series, at, g->name);
	else
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": %s at %s; the steps until it resumes%s are left out of the rows", series,
		               what, at, before ? ", and the one before, which its samples cover in part," : "");
	g->gap_first = first;
	g->in_gap = 1;
	g->gap_start = before ? t - f->o.step : t;
	g->gap_began = began;
	g->gap_kind = kind;
	snprintf(g->gap_series, sizeof g->gap_series, "%s", series);
}

/* The gap ends at t. A GPU series that lacked a sample may not be back:
 * its exporter restarted under new labels (a new pod's instance), and
 * other series carry the power now; said so, not "resumes" for a series
 * whose last sample was before the gap (docs/fleet.md, "Problems in the
 * data"). */
static void
end_gap(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const size_t *present, size_t np, double t,
        int part)
{
	char at[40];
	int back = strncmp(g->gap_series, "DCGM_FI_DEV_POWER", 17) != 0;
	if (!g->in_gap)
		return;
	/* The engine's load back while its GPUs reported all along: its
	 * samples cover the step only from when it resumed, and the step is
	 * left out with the gap (fleet_steps.c, part_step). So is a step the
	 * samples resume within after any gap, by the rule of a group's first
	 * step (part_first): 1 s of a 15 s step was counted as the whole step
	 * (docs/fleet.md, "Windows"). */
	if (part && ((g->gap_absent && f->lead > 0) || f->part_first)) {
		g->part_step = 1;
		wc_prom_format_time(t, at, sizeof at);
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": %s at %s, within that step, which is left out too; %.10g s left "
		               "out of group '%s'", g->gap_series, g->gap_first ? "first sample" : "resumes", at,
		               round((t - g->gap_start + f->o.step) * 1000.0) / 1000.0, g->name);
		g->in_gap = 0;
		return;
	}
	for (size_t j = 0; !back && j < np; j++)
		back = strcmp(set->s[present[j]].key, g->gap_series) == 0;
	wc_prom_format_time(t, at, sizeof at);
	/* In ms: "%.0f" said "0 s left out" of a 0.5 s gap. */
	if (g->gap_first)
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": first sample at %s; %.10g s before it left out of group '%s'", g->gap_series,
		               at, round((t - g->gap_start) * 1000.0) / 1000.0, g->name);
	else if (back)
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": resumes at %s; %.10g s left out of group '%s'", g->gap_series, at,
		               round((t - g->gap_start) * 1000.0) / 1000.0, g->name);
	else
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": not back at %s, but group '%s' has GPU power again from other series (an "
		               "exporter restarted under new labels?); %.10g s left out", g->gap_series, at, g->name,
		               round((t - g->gap_start) * 1000.0) / 1000.0);
	g->in_gap = 0;
}

int
wc__fleet_gap_step(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const int *state, const char *const *bad,
                   const size_t *present, size_t np, long nan_gpu, long dropped_gpu, double t)
{
	char all[96];
	const char *what;
	int kind, known[WC_FLEET_N_METRICS];
	/* A page without power is not fetched (fleet_source.c; docs/fleet.md,
	 * "Queries"): there the engine's series are unknown, not missing. The
	 * open gap goes on, or the step is a gap of the GPU power: said as
	 * the engine's ("no sample, nor of the group's GPU power") it blamed
	 * an engine that went on when its GPUs stopped before such a page. */
	if (f->unfetched) {
		if (g->in_gap)
			return 1;
		for (int m = 0; m < WC_FLEET_N_METRICS; m++)
			known[m] = FLEET_VALUE;
		state = known;
	}
	const char *lack = gap_reason(g, set, state, bad, np, nan_gpu, dropped_gpu, &what, &kind, all, sizeof all);
	if (!lack) {
		end_gap(f, g, set, present, np, t, 1);
		return 0;
	}
	/* What the gap lacks changed: the series it named is back and another
	 * lacks now. Said as one gap, a host's GPUs back at 02:59:56 before
	 * its restarted engine's first sample at 02:59:58 read "GPU ...:
	 * resumes at 02:59:58; 10 s left out", and the engine that kept the
	 * last step out was never named; each part is now said with its own
	 * series, time and length. */
	double began = g->in_gap ? g->gap_began : t;
	/* The same rule when the engine's load and the GPUs' power lacked
	 * together and the power is back first: the lack is the engine's
	 * series still, so the gap went on as one, and at the range's end
	 * said "nor the group's GPU power" of GPUs that had values there. */
	if (g->in_gap && g->gap_all && np > 0) {
		char at[40];
		wc_prom_format_time(t, at, sizeof at);
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": the group's GPU power resumes at %s, not this series; %.10g s left out of "
		               "group '%s'", g->gap_series, at, round((t - g->gap_start) * 1000.0) / 1000.0, g->name);
		g->in_gap = 0;
	}
	if (g->in_gap && strcmp(lack, g->gap_series) != 0 && !gap_holds(g, set, state, np, nan_gpu, dropped_gpu))
		end_gap(f, g, set, present, np, t, 0);
	if (!g->in_gap)
		g->gap_all = state[WC_FLEET_RUNNING] == FLEET_ABSENT && np == 0 && g->n_members;
	int live = np > 0;
	for (int m = WC_FLEET_RUNNING; m < WC_FLEET_N_METRICS; m++)
		live |= state[m] != FLEET_ABSENT;
	begin_gap(f, g, lack, what, kind, t, began, live);
	return 1;
}

/* At the range's end: what fleet_steps.c left open, said with the span
 * it left out. */
void
wc__fleet_partial_end(wc_fleet *f, fleet_group *g, double t)
{
	char at[40];
	wc_prom_format_time(t, at, sizeof at);
	/* A gap open at the end never resumed: said with what it left out,
	 * where the last word was "until it resumes" (docs/fleet.md,
	 * "Problems in the data"). */
	if (g->in_gap)
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": %s by the end of the range (%s)%s; %.10g s left out of group '%s'",
		               g->gap_series, g->gap_first ? "no sample" : "not resumed", at,
		               g->gap_all ? ", nor the group's GPU power" : "",
		               round((t - g->gap_start + f->o.step) * 1000.0) / 1000.0, g->name);
	g->in_gap = 0;
	if (!g->missing[0])
		return;
	wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": missing to the end of the range (%s); %.10g s of group '%s' excluded as "
	               "partial power", g->missing, at, round((t - g->missing_since + f->o.step) * 1000.0) / 1000.0,
	               g->name);
	g->missing[0] = '\0';
}

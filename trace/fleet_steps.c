/*
 * A group's grid steps (docs/fleet.md, "Windows"): each step's group
 * power, load and counter increases; steps a GPU or the engine lacks (no
 * sample, a NaN sample) are gaps, reported when they start and end; a GPU
 * that appears or vanishes, a counter that resets (an engine restart) and
 * a load change that lasts cut the window, each reported with the series,
 * the time and its labels; a GPU that vanishes leaves its group's windows
 * partial power until it returns (excluded, fleet_rows.c).
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/telemetry.h"
#include "models/grow.h"
#include "trace/idle.h"

static void
when(double t, char *buf)
{
	wc_prom_format_time(t, buf, 40);
}

void
wc__fleet_members_free(fleet_group *g)
{
	for (size_t j = 0; j < g->n_members; j++) {
		free(g->members[j]);
		free(g->member_uuid[j]);
	}
	free(g->members);
	free(g->member_uuid);
	g->members = g->member_uuid = NULL;
	g->n_members = 0;
}

static int
set_members(fleet_group *g, const wc_prom_set *set, const size_t *present, size_t np,
            wc_error *err)
{
	wc__fleet_members_free(g);
	g->members = wc_alloc_array(np ? np : 1, sizeof *g->members);
	g->member_uuid = wc_alloc_array(np ? np : 1, sizeof *g->member_uuid);
	if (!g->members || !g->member_uuid)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t j = 0; j < np; j++) {
		const char *u = wc_prom_label(&set->s[present[j]], "UUID");
		g->members[j] = strdup(set->s[present[j]].key);
		g->member_uuid[j] = strdup(u ? u : "");
		if (!g->members[j] || !g->member_uuid[j]) {
			g->n_members = j + 1; /* freed with the group */
			return wc_error_set(err, WC_ENOMEM, "out of memory");
		}
		g->n_members++;
	}
	return WC_OK;
}

int
wc__fleet_is_member(const fleet_group *g, const char *key)
{
	for (size_t j = 0; j < g->n_members; j++)
		if (strcmp(g->members[j], key) == 0)
			return 1;
	return 0;
}

/* The member that present series j continues: gone at this step, its
 * GPU's `UUID` the same; -1 none. */
static long
continued(const fleet_group *g, const wc_prom_set *set, const size_t *present, size_t np, size_t j)
{
	const char *u = wc_prom_label(&set->s[present[j]], "UUID");
	if (!u || !u[0])
		return -1;
	for (size_t m = 0; m < g->n_members; m++) {
		size_t k = 0;
		while (k < np && strcmp(set->s[present[k]].key, g->members[m]) != 0)
			k++;
		if (k == np && wc_telemetry_uuid_same(g->member_uuid[m], u, strlen(u)))
			return (long)m;
	}
	return -1;
}

/* Every GPU still there, some under a new series: one exporter
 * relabelled (restarted under a new instance, without a gap). The same
 * GPUs, so no window is cut; it was said as two scrape jobs, then as a
 * GPU that appears and one that vanishes, each cutting the window
 * (docs/fleet.md, "Grouping"). */
static int
relabelled(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const size_t *present, size_t np,
           const long *from, double t, wc_error *err)
{
	char at[40], was[160], now[160];
	when(t, at);
	for (size_t j = 0; j < np && g->had_step; j++) {
		if (from[j] < 0)
			continue;
		const wc_prom_series *s = &set->s[present[j]], *old = NULL;
		for (size_t i = 0; i < set->n && !old; i++)
			if (strcmp(set->s[i].key, g->members[from[j]]) == 0)
				old = &set->s[i];
		if (old) {
			wc__fleet_label_diff(s, old, was, sizeof was);
			wc__fleet_label_diff(old, s, now, sizeof now);
		} else {
			wc_error_name_cut(g->members[from[j]], 100, was, sizeof was);
			wc_error_name_cut(s->key, 100, now, sizeof now);
		}
		wc__fleet_warn(f, "group '%.40s': %s%.60s relabelled at %s, %.70s to %.70s (its exporter restarted "
		               "under new labels?): the same GPU%s", g->name, wc_telemetry_gpu_word(g->member_uuid[from[j]]),
		               g->member_uuid[from[j]], at, was, now,
		               g->win.open ? ", the window goes on" : ""); /* a gap closed it */
	}
	return set_members(g, set, present, np, err);
}

/* Did the GPUs present change since the last step? Reported per series. */
static int
membership(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const size_t *present, size_t np,
           double t, double gone, int *changed, wc_error *err)
{
	char at[40], gone_at[40];
	size_t same = 0, moved = 0;
	long from[WC_TELEMETRY_MAX_GPUS];
	for (size_t j = 0; j < np; j++) {
		from[j] = -1;
		if (wc__fleet_is_member(g, set->s[present[j]].key))
			same++;
		else if ((from[j] = continued(g, set, present, np, j)) >= 0)
			moved++;
	}
	*changed = same + moved != np || np != g->n_members;
	if (!*changed && moved)
		return relabelled(f, g, set, present, np, from, t, err);
	if (!*changed)
		return WC_OK;
	when(t, at);
	when(gone, gone_at);
	/* The missing GPU whose return ends the partial span is said "back"
	 * (full_tp), not also "appears" as a new GPU (docs/fleet.md,
	 * "Problems in the data"). */
	for (size_t j = 0; j < np && g->had_step; j++)
		if (!wc__fleet_is_member(g, set->s[present[j]].key) &&
		    !(g->missing[0] && (int)np >= g->full_gpus && strcmp(set->s[present[j]].key, g->missing) == 0))
			wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": appears at %s; the window is cut (group '%s' now has %zu "
			               "GPU%s)", set->s[present[j]].key, at, g->name, np, np == 1 ? "" : "s");
	for (size_t j = 0; j < g->n_members && g->had_step; j++) {
		size_t k = 0;
		while (k < np && strcmp(set->s[present[k]].key, g->members[j]) != 0)
			k++;
		if (k == np && (int)np < g->full_gpus) {
			/* An engine's GPUs do not leave it while it runs: the GPU's
			 * exporter lost it, and the group's power is partial. */
			wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": vanishes at %s; group '%s' keeps TP %d and its windows until "
			               "the GPU returns are excluded (partial power: %zu of %d GPUs)", g->members[j],
			               gone_at, g->name, g->full_gpus, np, g->full_gpus);
			if (!g->missing[0]) {
				snprintf(g->missing, sizeof g->missing, "%s", g->members[j]);
				g->missing_since = t;
			}
		} else if (k == np) {
			wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": vanishes at %s; the window is cut (group '%s' now has %zu "
			               "GPU%s)", g->members[j], gone_at, g->name, np, np == 1 ? "" : "s");
		}
	}
	return set_members(g, set, present, np, err);
}

/* The engines' values of metric m at t, summed over the group's engine
 * slots: FLEET_ABSENT when no slot has the metric or one lacks a sample
 * (the sum would be partial), FLEET_NAN when one is NaN; `per` gets each
 * slot's value (NaN where none). A slot seen with the metric on an
 * earlier page and absent from this page's answer lacks a sample: the
 * server answers no series for an engine down over the whole page, and
 * summed as absent it made rows of the other engines' load alone, which
 * changed with --page-steps (docs/fleet.md, "Grouping"). A WC_* error
 * (< 0) for a count refused. */
static int
engines_at(wc_fleet *f, fleet_group *g, const wc_prom_set *set, int m, double t, double *sum, double *per,
           double *per_t, fleet_count *cnt, double *cover, const char **bad, wc_error *err)
{
	int state = FLEET_ABSENT, any = 0;
	*sum = 0.0;
	cover[0] = -INFINITY;
	cover[1] = INFINITY;
	for (int k = 0; k < g->n_engine_slots; k++) {
		per[k] = NAN;
		long i = g->engine[m][k];
		if (i < 0 && g->slot_key[m][k]) {
			*bad = g->slot_key[m][k];
			return FLEET_ABSENT;
		}
		if (i < 0)
			continue;
		double v = 0.0;
		long a = g->engine_alt[m][k]; /* the metric's other name (fleet_groups.c) */
		int c = m - WC_FLEET_FIRST_COUNTER, s = FLEET_ABSENT, alt = 0;
		/* A counter's increase is taken between samples of one series:
		 * the other name's count is another counter (an engine exporting
		 * both, one started earlier), and a step read from it then from
		 * the preferred name took 800 -> 303 for a reset, cut the window
		 * and read the ITL +78 %. After a step read under the other
		 * name, the preferred one takes over at a step whose previous
		 * sample is the one last counted (the same scrape); until then
		 * the other name goes on where its own is (counters,
		 * docs/fleet.md "Metrics"). */
		s = wc__fleet_value_at(f, set, (size_t)i, t, &v, err);
		if (s >= 0 && a >= 0 && c >= 0 && g->last_alt[c][k] &&
		    !(s == FLEET_VALUE && fabs(f->count.prev_t - g->last_t[c][k]) <= 1e-6)) {
			double v0 = v, st[4] = { f->sample_t, f->sample_t0, f->sample_iv0, f->sample_iv1 };
			fleet_count n0 = f->count;
			int s0 = s;
			s = wc__fleet_value_at(f, set, (size_t)a, t, &v, err);
			alt = s == FLEET_VALUE && fabs(f->count.prev_t - g->last_t[c][k]) <= 1e-6;
			if (!alt && s >= 0) { /* the preferred name's reading stands */
				s = s0;
				v = v0;
				f->count = n0;
				f->sample_t = st[0];
				f->sample_t0 = st[1];
				f->sample_iv0 = st[2];
				f->sample_iv1 = st[3];
			}
		}
		if (s == FLEET_ABSENT && a >= 0 && !alt) {
			s = wc__fleet_value_at(f, set, (size_t)a, t, &v, err);
			alt = 1;
		}
		if (s < 0)
			return s;
		if (s == FLEET_NAN || s == FLEET_ABSENT || s == FLEET_DROPPED) {
			*bad = set->s[i].key;
			return s;
		}
		any = 1;
		per[k] = v;
		per_t[k] = f->sample_t;
		cnt[k] = f->count;
		cnt[k].alt = alt;
		*sum += v;
		/* What all its engines' samples cover: from a spacing before
		 * the first to one after the last (a scrape's span). */
		cover[0] = fmax(cover[0], f->sample_t0 - f->sample_iv0);
		cover[1] = fmin(cover[1], f->sample_t + f->sample_iv1);
	}
	if (any)
		state = FLEET_VALUE;
	return state;
}

/* A reset of counter series i from `from` to `to` in the step at t. */
static void
say_reset(wc_fleet *f, const wc_prom_set *set, size_t i, double t, double from, double to)
{
	char at[40];
	when(t, at);
	wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": counter reset at %s (from %.15g to %.15g), an engine restart: counted from 0 "
	               "and the window is cut", set->s[i].key, at, from, to);
}

/* Counter increases of the step, per engine, over each pair of its
 * samples from the last before the step: a reset (the value falls)
 * counts the new value from 0, as Prometheus's increase() does, and is
 * reported. From the step's last sample alone, a reset within the step
 * lost the increments before it while the step's time stayed: 149.3
 * tok/s for about 162 (docs/fleet.md, "Rows"). */
static void
counters(wc_fleet *f, fleet_group *g, const wc_prom_set *set, double per[][FLEET_MAX_ENGINES],
         double per_t[][FLEET_MAX_ENGINES], fleet_count cnt[][FLEET_MAX_ENGINES], const int *state,
         fleet_step *st, int *reset)
{
	double t = st->t;
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++) {
		int m = WC_FLEET_FIRST_COUNTER + c;
		st->inc[c] = NAN;
		if (state[m] != FLEET_VALUE)
			continue;
		double inc = 0.0, dt = 0.0;
		int known = 1;
		for (int k = 0; k < g->n_engine_slots; k++) {
			long i = g->engine[m][k];
			if (i < 0)
				continue;
			const fleet_count *n = &cnt[m][k];
			double v = per[m][k], last = g->last[c][k];
			if (n->alt)
				i = g->engine_alt[m][k];
			/* Read under the other name than the last value: the
			 * increase from this series' own sample where the last
			 * counted one was (the same scrape), else none counted, as
			 * after a step without a sample (engines_at). */
			if (last >= 0 && n->alt != g->last_alt[c][k])
				last = fabs(n->prev_t - g->last_t[c][k]) <= 1e-6 && n->prev >= 0.0 && isfinite(n->prev)
				       ? n->prev : -1.0;
			/* The engines of one server are scraped together: one span. */
			if (last >= 0)
				dt = fmax(dt, per_t[m][k] - g->last_t[c][k]);
			if (last >= 0 && n->first >= last) {
				inc += n->first - last;
			} else if (last >= 0) {
				inc += n->first;
				*reset = 1;
				say_reset(f, set, (size_t)i, t, last, n->first);
			} else {
				known = 0; /* the engine's first sample: no increase yet */
			}
			inc += n->within;
			if (n->reset) {
				*reset = 1;
				say_reset(f, set, (size_t)i, t, n->from, n->to);
			}
			g->last[c][k] = v;
			g->last_t[c][k] = per_t[m][k];
			g->last_alt[c][k] = n->alt;
			if (!g->counter_series[c][0])
				snprintf(g->counter_series[c], sizeof g->counter_series[c], "%s", set->s[i].key);
		}
		/* The increase spans the steps since the counter's last counted
		 * value: more than one when it had no sample in between. */
		if (known && g->from_k[c]) {
			st->inc[c] = inc;
			st->span[c] = st->k + 1 - g->from_k[c];
			st->dt[c] = dt;
		}
		g->seen_k[c] = g->from_k[c] = st->k + 1;
	}
}

/* A counter with no sample at a step the engine's load has one (a stale
 * series, missed scrapes): its increases up to its next sample are left
 * out of the rates (withdraw), which moved a window's rate by 4-13 %
 * without a word. Said when it starts and when it resumes (docs/fleet.md,
 * "Problems in the data"); before its first sample it has not started. */
static void
stale_counters(wc_fleet *f, fleet_group *g, const int *state, const char *const *bad, double t)
{
	char at[40];
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++) {
		int m = WC_FLEET_FIRST_COUNTER + c;
		if (state[m] == FLEET_ABSENT && g->seen_k[c] && !g->stale[c]) {
			const char *series = bad[m] ? bad[m] : g->counter_series[c];
			when(t, at);
			wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": no sample at %s while the engine's load has one; its increases "
			               "until it resumes are left out of the rates", series, at);
			g->stale[c] = 1;
			g->stale_since[c] = t;
			/* The resumption names the series that stopped: a
			 * data-parallel group's engine 1 stale was said to resume
			 * as engine 0, the counter's first series. */
			snprintf(g->stale_series[c], sizeof g->stale_series[c], "%s", series);
		} else if (state[m] == FLEET_VALUE && g->stale[c]) {
			when(t, at);
			wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": resumes at %s; %.10g s of its increases left out of the rates of "
			               "group '%s'", g->stale_series[c], at,
			               round((t - g->stale_since[c]) * 1000.0) / 1000.0, g->name);
			g->stale[c] = 0;
		}
	}
}

/* The group's full TP after step t with np GPUs: a GPU back ends the
 * partial span, reported with its length. Not reset at an engine
 * restart: the smoke test's TP-2 run restarted its engine while a GPU's
 * series was missing, and its partial rows passed as TP 1. */
static void
full_tp(wc_fleet *f, fleet_group *g, int np, double t)
{
	char at[40];
	if (g->missing[0] && np >= g->full_gpus) {
		when(t, at);
		wc__fleet_warn(f, WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ": back at %s; %.10g s of group '%s' excluded as partial power",
		               g->missing, at, round((t - g->missing_since) * 1000.0) / 1000.0, g->name);
		g->missing[0] = '\0';
	}
	if (np > g->full_gpus)
		g->full_gpus = np;
}

/* More GPUs at t than the group has had, with no engine restart since
 * engine_since: an engine's GPUs do not join it while it runs, so they
 * were there all along and their series missing (an exporter that came up
 * after the engine, a range that starts inside a dropout). The group's
 * rows since then are partial power, as for a GPU that vanishes: as TP 1
 * at one GPU's power and the whole engine's token rate they halved the
 * energy per token (docs/fleet.md, "Problems in the data"). */
static void
partial_before(wc_fleet *f, fleet_group *g, int np, double t)
{
	char at[40], since[40];
	size_t n = 0;
	for (size_t i = 0; i < f->n_rows; i++) {
		fleet_row *r = &f->rows[i];
		if (r->start < g->engine_since || r->start >= t || strcmp(r->group, g->key) != 0 ||
		    r->run.tp >= np)
			continue;
		if (strncmp(r->run.exclude, WC_IDLE_REASON, strlen(WC_IDLE_REASON)) == 0)
			f->n_idle_rows--; /* partial power comes first, as in wc__fleet_emit */
		snprintf(r->run.exclude, sizeof r->run.exclude, "partial power: %d of %d GPUs reported",
		         r->run.tp, np);
		r->run.tp = np;
		n++;
	}
	if (!n)
		return;
	when(t, at);
	when(g->engine_since, since);
	wc__fleet_warn(f, "group '%s': %d GPUs at %s with no engine restart since %s: its GPUs' series were "
	               "missing, and its %zu window%s before are excluded (partial power) with TP %d", g->name,
	               np, at, since, n, n == 1 ? "" : "s", np);
}

/* Do a step's samples cover `span` s of it, only part of it? A spacing
 * within FLEET_INTERVAL_SLACK of the step covers it: one scrape per step.
 * The one rule for a group's first step and for its last before a gap or
 * the range's end (docs/fleet.md, "Windows"). */
static int
in_part(const wc_fleet *f, double span)
{
	return span < f->o.step / FLEET_INTERVAL_SLACK;
}

/* Said under --verbose: the group's first step at t, which its samples
 * cover for `covered` s, left out of the rows. */
static void
first_part(const wc_fleet *f, const fleet_group *g, double t, double covered)
{
	char at[40], msg[WC_ERROR_MSG_MAX];
	if (!f->o.verbose)
		return;
	when(t, at);
	snprintf(msg, sizeof msg, "group '%.60s': its samples cover %.10g s of its first %.10g s step (to %s): "
	         "the step is left out of the rows, which start at the next", g->name,
	         round(covered * 1000.0) / 1000.0, f->o.step, at);
	f->o.verbose(msg, f->o.warn_payload);
}

static int
group_step(wc_fleet *f, fleet_group *g, const wc_prom_set *set, size_t k, wc_error *err)
{
	double t = f->o.start + (double)k * f->o.step;
	size_t present[WC_TELEMETRY_MAX_GPUS], np = 0;
	double pw[WC_TELEMETRY_MAX_GPUS];
	long nan_gpu = -1, dropped_gpu = -1;
	fleet_step st = { .k = k, .t = t, .waiting = NAN };
	double val[WC_FLEET_N_METRICS] = { 0 }, per[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES];
	double per_t[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES];
	fleet_count cnt[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES];
	const char *bad[WC_FLEET_N_METRICS];
	int state[WC_FLEET_N_METRICS] = { 0 }, changed, reset = 0, rc;
	/* from, to: where the samples of every GPU and engine cover the step */
	double pw_t0 = INFINITY, pw_t1 = -INFINITY, cover[2], from = -INFINITY, to = INFINITY;
	unsigned char idle[WC_TELEMETRY_MAX_GPUS];
	wc__fleet_idle_gpus(f, g, set, t, idle); /* no engine holds them: not its GPUs */
	for (size_t j = 0; j < g->n_gpus; j++) {
		double v = 0.0;
		int s = idle[j] ? FLEET_ABSENT : wc__fleet_value_at(f, set, g->gpus[j], t, &v, err);
		if (s < 0)
			return s;
		if (s == FLEET_VALUE) {
			pw_t0 = fmin(pw_t0, f->sample_t0);
			pw_t1 = fmax(pw_t1, f->sample_t);
			from = fmax(from, f->sample_t0 - f->sample_iv0);
			to = fmin(to, f->sample_t + f->sample_iv1);
		}
		if (s == FLEET_NAN && nan_gpu < 0)
			nan_gpu = (long)g->gpus[j];
		/* A GPU whose readings were all implausible is still there: a
		 * gap, not a GPU that vanishes. */
		if (s == FLEET_DROPPED && dropped_gpu < 0)
			dropped_gpu = (long)g->gpus[j];
		if (s != FLEET_ABSENT) {
			pw[np] = s == FLEET_VALUE ? v : 0.0;
			present[np++] = g->gpus[j];
		}
	}
	np = wc__fleet_one_per_gpu(f, g, set, present, pw, np, t);
	for (size_t j = 0; j < np; j++)
		st.power += pw[j];
	for (int m = WC_FLEET_RUNNING; m < WC_FLEET_N_METRICS; m++) {
		bad[m] = NULL;
		state[m] = engines_at(f, g, set, m, t, &val[m], per[m], per_t[m], cnt[m], cover, &bad[m], err);
		if (state[m] < 0)
			return state[m];
		/* Power read before the engine's load covers the step (it
		 * resumed within it), or after (it stopped): fleet_gaps.c
		 * leaves such a step out beside a gap of the load. */
		if (m == WC_FLEET_RUNNING) {
			f->lead = state[m] == FLEET_VALUE ? cover[0] - pw_t0 : 0.0;
			st.trail = state[m] == FLEET_VALUE ? pw_t1 - cover[1] : 0.0;
			if (state[m] == FLEET_VALUE) {
				from = fmax(from, cover[0]);
				to = fmin(to, cover[1]);
			}
		}
	}
	for (int c = 0; c < WC_FLEET_N_COUNTERS; c++)
		if (state[WC_FLEET_FIRST_COUNTER + c] == FLEET_ABSENT || state[WC_FLEET_FIRST_COUNTER + c] == FLEET_DROPPED)
			wc__fleet_withdraw(g, c, k);
	double gone = g->in_gap ? g->gap_began : t; /* series missing since the gap vanished then */
	/* A gap's end within the step: left out with the gap (fleet_gaps.c) */
	f->part_first = in_part(f, t - from);
	if (wc__fleet_gap_step(f, g, set, state, bad, present, np, nan_gpu, dropped_gpu, t))
		return wc__fleet_close(f, g, err);
	stale_counters(f, g, state, bad, t);
	if ((rc = membership(f, g, set, present, np, t, gone, &changed, err)) != WC_OK)
		return rc;
	counters(f, g, set, per, per_t, cnt, state, &st, &reset);
	st.running = val[WC_FLEET_RUNNING];
	st.waiting = state[WC_FLEET_WAITING] == FLEET_VALUE ? val[WC_FLEET_WAITING] : NAN;
	st.n_gpus = (int)np;
	/* Its samples ending within it: counted whole, a run ending 7 s into
	 * the range's last 15 s step made a 315 s row for 307 s of data. The
	 * step is left out once no sample follows, at a gap or the range's
	 * end (fleet_gaps.c, fleet_window.c), as a first step is below. */
	st.end_cover = to - (t - f->o.step);
	st.part_end = in_part(f, st.end_cover);
	if (((changed && g->had_step) || reset) && (rc = wc__fleet_close(f, g, err)) != WC_OK)
		return rc;
	if (!g->had_step || reset)
		g->engine_since = t;
	else if (changed && (int)np > g->full_gpus)
		partial_before(f, g, (int)np, t);
	full_tp(f, g, (int)np, t);
	int first = !g->had_step;
	g->had_step = 1;
	/* The engine's load resumes within the step after a gap of it: its
	 * power is the whole step's, its load a part's. Added, the first
	 * window after a restart at --step 15 read 222.5 W for 236.1 W, 14 s
	 * of the outage's 111 W in a loaded step (docs/fleet.md, "Problems
	 * in the data"); its counters are read above, so the next step's
	 * increase runs from its samples. */
	if (g->part_step) {
		g->part_step = 0;
		return wc__fleet_close(f, g, err);
	}
	/* The group's first step, its samples covering it in part (files
	 * start the range at their first power sample, so that step held
	 * that one sample): counted whole, a 300 s run made a 315 s row
	 * whose mean weighed one instant as 15 s. Left out, as a step the
	 * engine resumes within; its counters are read above, so the rates
	 * run from its samples (docs/fleet.md, "Windows"). */
	if (first && f->part_first) {
		first_part(f, g, t, t - from);
		return WC_OK;
	}
	return wc__fleet_add_step(f, g, &st, err);
}

int
wc__fleet_steps(wc_fleet *f, const wc_prom_set *set, size_t k0, size_t k1, wc_error *err)
{
	for (size_t i = 0; i < f->n_groups; i++)
		if (f->g[i].n_gpus > WC_TELEMETRY_MAX_GPUS)
			return wc_error_set(err, WC_EINVAL, "group '%s': %zu GPU power series, more than %d "
			                    "(--group-by splits them)", f->g[i].name, f->g[i].n_gpus,
			                    WC_TELEMETRY_MAX_GPUS);
	for (size_t k = k0; k < k1; k++) {
		f->step_live = 0;
		for (size_t i = 0; i < f->n_groups; i++) {
			if (!f->g[i].ever_gpu)
				continue;
			int rc = group_step(f, &f->g[i], set, k, err);
			if (rc != WC_OK)
				return rc;
		}
		f->n_walked++;
		/* A step without any sample is a gap of every group, said at
		 * its first; the empty steps after it change nothing, so the
		 * walk goes on at the next step a sample may fall in. Saved
		 * answers over 2000-2099 at 3.2 s holding an hour walked 1e9
		 * steps, 86 s of CPU; the work follows the data, as pages do
		 * (docs/fleet.md, "Queries"). */
		if (!f->step_live) {
			size_t next = wc__fleet_next_live(f, set, k);
			if (next > k + 1)
				k = (next < k1 ? next : k1) - 1;
		}
	}
	return WC_OK;
}

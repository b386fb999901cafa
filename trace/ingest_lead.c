/*
 * `wattcast ingest`: a load level's window (or a run's whole log, its one
 * row's window without levels) that opens before the engine's
 * first work, or closes after its last, holds an idle
 * stretch the level's row averages in (docs/formats/telemetry.md, "Load
 * levels and idle windows"). PowerTrace-Sim's Poisson levels start their
 * window 11-19 s before the benchmark's first request reaches the engine:
 * the row's mean power and throughput are then of the level and that idle
 * together. The row stays as it is -- a fit averages over its n(t), which
 * holds the idle too -- and ingest says so, once a window.
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The share of a window an idle stretch at one of its ends may take before
 * ingest warns: at 5 % the row's throughput reads 5 % under the loaded
 * part's and its mean power up to as much, the "within 5 %" the accuracy
 * tables count (docs/formats/telemetry.md, "Load levels and idle windows"). */
#define WC__IDLE_END_SHARE 0.05

/* Seconds the window [a, b] stays idle at its start (`tail` 0) or its end
 * (`tail` 1), by one signal: `v`, an engine counter counting as it goes,
 * when there is one, else the running and waiting gauges. A counter shows
 * work by a rise into sample k (done between k-1 and k), a gauge by a
 * sample k with a request running or waiting (held from k-1 to k+1): the
 * stretch known idle runs from a to the last sample before the first sign
 * of work, or from the first sample after the last one to b. NaN when
 * nothing shows work in [a, b] or neither signal is there. A log without
 * a live prompt counter (SGLang's counts at completion, TGI's has none)
 * opens its levels by the gauges, one without an output counter closes
 * them by them: a prompt counter stops rising while decoding goes on. */
static double
idle_end(const wc_engine_log *e, const double *v, double a, double b, int tail)
{
	const double *run = wc_engine_live(e, WC_ENG_RUNNING), *wait = wc_engine_live(e, WC_ENG_WAITING);
	size_t first = e->n, last = e->n, inside = 0;
	if (!v && !run)
		return NAN;
	for (size_t k = v ? 1 : 0; k < e->n; k++) {
		inside += e->t[k] >= a && e->t[k] <= b;
		const int busy = v ? e->t[k] > a && e->t[k - 1] < b && v[k] > v[k - 1]
		                   : e->t[k] >= a && e->t[k] <= b && (run[k] > 0 || (wait && wait[k] > 0));
		if (!busy)
			continue;
		if (first == e->n)
			first = k;
		last = k;
	}
	if (first == e->n) /* a window the log samples with no work in it: idle whole */
		return inside > 1 ? INFINITY : NAN;
	if (!tail)
		return first > 0 ? fmax(0.0, e->t[first - 1] - a) : 0.0;
	const size_t after = v ? last : last + 1;
	return after < e->n ? fmax(0.0, b - e->t[after]) : 0.0;
}

void
wc__ingest_warn_idle_ends(const run_ctx *rc, const wc_ingest_options *opt, int w, const wc_ingest_row *row)
{
	/* l < 0: a run without levels, whose one row is the whole log's
	 * window, as diluted by an idle start as a level's (it was said of
	 * levels only) */
	const int l = rc->windows[w].level;
	const wc_engine_log *e = rc->eng;
	if (!opt->warn || !e || e->n < 2)
		return;
	const double *prompt = wc_engine_live(e, WC_ENG_PROMPT_TOKENS);
	const double *gen = wc_engine_live(e, WC_ENG_GENERATION_TOKENS);
	const double a = rc->windows[w].a, b = rc->windows[w].b, len = b - a;
	double lead = idle_end(e, prompt, a, b, 0), tail = idle_end(e, gen, a, b, 1);
	/* no work anywhere in it: the row is the idle power, its level's load
	 * nowhere (a warm-up level ending before the first request) */
	const int whole = isinf(lead) && isinf(tail);
	lead = lead > WC__IDLE_END_SHARE * len ? lead : 0.0;
	tail = tail > WC__IDLE_END_SHARE * len ? tail : 0.0;
	if (whole)
		lead = len, tail = 0.0;
	else if (!(lead > 0 || tail > 0) || !(len > lead + tail))
		return;
	const double share = 100.0 * (lead + tail) / len;
	/* what each end was judged by */
	const char *before = prompt ? "no prompt tokens yet" : "no request running yet";
	const char *after = gen ? "no output tokens" : "engine idle";
	char span[96], whose[WC__REPLICA_WHOSE], effect[96] = "";
	if (whole)
		snprintf(span, sizeof span, "throughout (%s in it)", prompt ? "no prompt tokens" : "no request running");
	else if (lead > 0 && tail > 0)
		snprintf(span, sizeof span, "its first %.1f s (%s) and last %.1f s (%s)", lead, before, tail, after);
	else if (lead > 0)
		snprintf(span, sizeof span, "its first %.1f s (%s)", lead, before);
	else
		snprintf(span, sizeof span, "its last %.1f s (%s)", tail, after);
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	/* A row of the whole window: what the idle does to it; segments are
	 * rows of their own, the idle ones excluded, so the span alone. No
	 * throughput effect of a row without throughput. */
	if (row && whole)
		snprintf(effect, sizeof effect, ": row mean %.1f W, none of the %s load", wc__ingest_mean_power(rc, a, b),
		         l < 0 ? "run's" : "level's");
	else if (row) {
		const double row_w = wc__ingest_mean_power(rc, a, b), load_w = wc__ingest_mean_power(rc, a + lead, b - tail);
		int k = snprintf(effect, sizeof effect, ": row mean %.1f W, %.1f W without", row_w, load_w);
		if (!isnan(row->run.throughput_tok_s) && k > 0)
			snprintf(effect + k, sizeof effect - (size_t)k, "; throughput %.0f %% low", share);
	}
	char msg[WC_ERROR_MSG_MAX];
	if (l < 0) {
		wc_error_format_path(msg, sizeof msg, rc->dir, ":%s the whole log (no load levels): idle %s, %.0f %% of "
		                     "%.1f s%s", whose, span, share, len, effect);
		opt->warn(msg, opt->warn_payload);
		return;
	}
	/* The label whole when the message holds it, else cut with "..." */
	const char *label = rc->m.levels[l].label;
	const size_t fixed = (size_t)snprintf(NULL, 0, ":%s level %d (''): idle %s, %.0f %% of %.1f s%s", whose, l,
	                                      span, share, len, effect) + wc_error_path_least(rc->dir);
	char cut[WC_ERROR_MSG_MAX];
	wc_error_name_cut(label, fixed + 16 < WC_ERROR_MSG_MAX - 1 ? WC_ERROR_MSG_MAX - 1 - fixed : 16, cut, sizeof cut);
	wc_error_format_path(msg, sizeof msg, rc->dir, ":%s level %d ('%s'): idle %s, %.0f %% of %.1f s%s", whose, l,
	                     cut, span, share, len, effect);
	opt->warn(msg, opt->warn_payload);
}

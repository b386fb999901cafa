/*
 * `wattcast ingest`: a load level's window that opens before the engine's
 * first prompt tokens, or closes after its last tokens, holds an idle
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

/* Seconds from `a` until the engine's counter `c` first rises past its
 * value at `a` (the last sample before the rise: the stretch known idle),
 * or from its last rise until `b` when `tail`; NaN when it does not rise
 * inside [a, b]. */
static double
idle_stretch(const wc_engine_log *e, const double *v, double a, double b, int tail)
{
	size_t first = e->n, last = e->n;
	for (size_t k = 1; k < e->n; k++) {
		if (e->t[k] <= a || e->t[k - 1] >= b || !(v[k] > v[k - 1]))
			continue;
		if (first == e->n)
			first = k;
		last = k;
	}
	if (first == e->n)
		return NAN;
	return tail ? fmax(0.0, b - e->t[last]) : fmax(0.0, e->t[first - 1] - a);
}

/* Seconds from the last sample in [a, b] at which the engine runs or
 * queues a request (running + waiting above 0) until b, from the first
 * sample after it that shows none (the stretch known idle); NaN when no
 * sample there is busy or the running gauge is absent. A log without an
 * output-token counter ends its level's load by this, not by its prompt
 * counter, which stops rising while decoding goes on. */
static double
idle_tail_gauge(const wc_engine_log *e, double a, double b)
{
	const double *run = wc_engine_live(e, WC_ENG_RUNNING), *wait = wc_engine_live(e, WC_ENG_WAITING);
	size_t last = e->n;
	if (!run)
		return NAN;
	for (size_t k = 0; k < e->n && e->t[k] <= b; k++)
		if (e->t[k] >= a && (run[k] > 0 || (wait && wait[k] > 0)))
			last = k;
	if (last == e->n)
		return NAN;
	return last + 1 < e->n ? fmax(0.0, b - e->t[last + 1]) : 0.0;
}

void
wc__ingest_warn_idle_ends(const run_ctx *rc, const wc_ingest_options *opt, int w, const wc_ingest_row *row)
{
	const int l = rc->windows[w].level;
	const wc_engine_log *e = rc->eng;
	if (!opt->warn || l < 0 || !e || e->n < 2)
		return;
	const double *prompt = wc_engine_live(e, WC_ENG_PROMPT_TOKENS);
	const double *gen = wc_engine_live(e, WC_ENG_GENERATION_TOKENS);
	const double a = rc->windows[w].a, b = rc->windows[w].b, len = b - a;
	double lead = prompt ? idle_stretch(e, prompt, a, b, 0) : NAN;
	double tail = gen ? idle_stretch(e, gen, a, b, 1) : idle_tail_gauge(e, a, b);
	lead = lead > WC__IDLE_END_SHARE * len ? lead : 0.0;
	tail = tail > WC__IDLE_END_SHARE * len ? tail : 0.0;
	if (!(lead > 0 || tail > 0) || !(len > lead + tail))
		return;
	const double share = 100.0 * (lead + tail) / len;
	char span[96], whose[WC__REPLICA_WHOSE], effect[96] = "";
	if (lead > 0 && tail > 0)
		snprintf(span, sizeof span, "its first %.1f s (no prompt tokens yet) and last %.1f s (%s)", lead, tail,
		         gen ? "no output tokens" : "engine idle");
	else if (lead > 0)
		snprintf(span, sizeof span, "its first %.1f s (no prompt tokens yet)", lead);
	else
		snprintf(span, sizeof span, "its last %.1f s (%s)", tail, gen ? "no output tokens" : "engine idle");
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	/* A row of the whole window: what the idle does to it; segments are
	 * rows of their own, the idle ones excluded, so the span alone. No
	 * throughput effect of a row without throughput. */
	if (row) {
		const double row_w = wc__ingest_mean_power(rc, a, b), load_w = wc__ingest_mean_power(rc, a + lead, b - tail);
		int k = snprintf(effect, sizeof effect, ": row mean %.1f W, %.1f W without", row_w, load_w);
		if (!isnan(row->run.throughput_tok_s) && k > 0)
			snprintf(effect + k, sizeof effect - (size_t)k, "; throughput %.0f %% low", share);
	}
	/* The label whole when the message holds it, else cut with "..." */
	const char *label = rc->m.levels[l].label;
	const size_t fixed = (size_t)snprintf(NULL, 0, ":%s level %d (''): idle %s, %.0f %% of %.1f s%s", whose, l,
	                                      span, share, len, effect) + wc_error_path_least(rc->dir);
	char cut[WC_ERROR_MSG_MAX], msg[WC_ERROR_MSG_MAX];
	wc_error_name_cut(label, fixed + 16 < WC_ERROR_MSG_MAX - 1 ? WC_ERROR_MSG_MAX - 1 - fixed : 16, cut, sizeof cut);
	wc_error_format_path(msg, sizeof msg, rc->dir, ":%s level %d ('%s'): idle %s, %.0f %% of %.1f s%s", whose, l,
	                     cut, span, share, len, effect);
	opt->warn(msg, opt->warn_payload);
}

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

void
wc__ingest_warn_idle_ends(const run_ctx *rc, const wc_ingest_options *opt, int w)
{
	const int l = rc->windows[w].level;
	const wc_engine_log *e = rc->eng;
	if (!opt->warn || l < 0 || !e || e->n < 2)
		return;
	const double *prompt = wc_engine_live(e, WC_ENG_PROMPT_TOKENS);
	const double *gen = wc_engine_live(e, WC_ENG_GENERATION_TOKENS);
	const double a = rc->windows[w].a, b = rc->windows[w].b, len = b - a;
	double lead = prompt ? idle_stretch(e, prompt, a, b, 0) : NAN;
	double tail = gen || prompt ? idle_stretch(e, gen ? gen : prompt, a, b, 1) : NAN;
	lead = lead > WC__IDLE_END_SHARE * len ? lead : 0.0;
	tail = tail > WC__IDLE_END_SHARE * len ? tail : 0.0;
	if (!(lead > 0 || tail > 0) || !(len > lead + tail))
		return;
	const double row_w = wc__ingest_mean_power(rc, a, b), load_w = wc__ingest_mean_power(rc, a + lead, b - tail);
	char msg[WC_ERROR_MSG_MAX], span[112];
	if (lead > 0 && tail > 0)
		snprintf(span, sizeof span, "%.1f s before the engine's first prompt tokens, %.1f s after its last",
		         lead, tail);
	else
		snprintf(span, sizeof span, "%.1f s (%.3f-%.3f) %s", lead > 0 ? lead : tail, lead > 0 ? a : b - tail,
		         lead > 0 ? a + lead : b,
		         lead > 0 ? "before the engine's first prompt tokens" : "after the engine's last tokens");
	wc_error_format_path(msg, sizeof msg, rc->dir, ": level %d ('%.24s'): idle %s (%.0f %% of %.1f s): row mean "
	                     "power %.1f W, %.1f W without it; throughput %.0f %% under", l, rc->m.levels[l].label,
	                     span, 100.0 * (lead + tail) / len, len, row_w, load_w, 100.0 * (lead + tail) / len);
	opt->warn(msg, opt->warn_payload);
}

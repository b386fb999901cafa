/*
 * Trace metrics of a simulated trace, with the definitions of
 * docs/trace-metrics.md that `ingest` applies to measured traces
 * (models/stats.h holds them once): power percentiles (type 7, by
 * selection), ramp rates between exact 1-s means of the piecewise-linear
 * trace, and the normalised spectral entropy on exact bin means at the
 * sampling interval.
 */
#include "envelope_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* Ramp of p[0..n) sampled every dt; `m` holds n*dt + 2 doubles. */
static void
ramp_into(const double *p, size_t n, double dt, double *m, double *mean_out, double *p95_out)
{
	size_t nb = n > 1 ? wc_stats_bin_means_uniform(p, n, dt, 1.0, m, (size_t)((double)n * dt) + 2) : 0;
	/* The differences overwrite the means in place (models/stats.h). */
	wc_stats_ramp(m, nb, 1.0, m, mean_out, p95_out);
}

/* Entropy of the samples p[0..n) on exact means over one sampling
 * interval from the first; `buf` holds n doubles. */
static int
entropy_into(const double *p, size_t n, double *buf, wc__stats_ws *ws, double *out, wc_error *err)
{
	*out = NAN;
	if (n < 2)
		return WC_OK;
	for (size_t i = 0; i + 1 < n; i++)
		buf[i] = 0.5 * (p[i] + p[i + 1]);
	return wc_stats_spectral_entropy(buf, n - 1, &ws->fft, out, err);
}

int
wc__stats_ws_reserve(wc__stats_ws *ws, size_t len)
{
	if (ws->cap >= len)
		return WC_OK;
	double *b = wc_resize_array(ws->buf, 4 * len + 4, sizeof *b);
	if (!b)
		return WC_ENOMEM;
	ws->buf = b;
	ws->cap = len;
	return WC_OK;
}

void
wc__stats_ws_clear(wc__stats_ws *ws)
{
	free(ws->buf);
	wc_stats_fft_clear(&ws->fft);
	memset(ws, 0, sizeof *ws);
}

/* ------------------------------------------------------ one trace */

int
wc__trace_stats_compute(const double *y, size_t len, double dt, size_t stride, wc__stats_ws *ws,
                        wc__trace_stats *out, wc_error *err)
{
	if (wc__stats_ws_reserve(ws, len) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory (%zu samples)", len);
	double energy = 0.0, *samples = ws->buf, *work = ws->buf + len + 1;
	for (size_t k = 0; k < len; k++)
		energy += y[k];
	out->energy_j = energy * dt;
	out->mean_w = len ? energy / (double)len : NAN;
	size_t ns = wc__sample_count(len, stride);
	double mx = -INFINITY;
	for (size_t j = 0; j < ns; j++) {
		work[j] = samples[j] = y[j * stride];
		if (samples[j] > mx)
			mx = samples[j];
	}
	out->max_w = ns ? mx : NAN;
	out->p5_w = wc_stats_quantile_select(work, ns, 0.05);
	out->p50_w = wc_stats_quantile_select(work, ns, 0.50);
	out->p95_w = wc_stats_quantile_select(work, ns, 0.95);
	ramp_into(samples, ns, dt * (double)stride, work, &out->ramp_w_per_s, &out->ramp_p95_w_per_s);
	return entropy_into(samples, ns, work, ws, &out->spectral_entropy, err);
}

/* The mean is exact over the horizon (energy over time, every grid
 * value), while a meter sees only its samples: the quantiles and the max
 * are of those (docs/trace-metrics.md defines them so). Many samples make
 * the two agree; few can leave the max under the mean (2 samples of a
 * closed loop: max 317.32 W under a mean of 325.88 W, docs/envelopes.md). */
int
wc__envelope_samples_note(const wc_envelope_options *o, char *note, size_t cap)
{
	note[0] = '\0';
	const size_t ns = wc_envelope_samples(o->horizon_s, o->sample_s);
	if (ns >= WC_ENVELOPE_QUANTILE_SAMPLES)
		return 0;
	snprintf(note, cap, "sample_s: p5, p50, p95 and max are of %zu meter sample%s every %g s, fewer than the %d a "
	         "5 %% tail needs to hold one; so few may sit below mean_w, the exact mean over the horizon "
	         "(docs/envelopes.md, \"Outputs\")", ns, ns == 1 ? "" : "s", o->sample_s,
	         WC_ENVELOPE_QUANTILE_SAMPLES);
	return 1;
}

/* The assumed hold keeps the busy level over every idle gap shorter than
 * it; a load that empties the engine often (an n(t) alternating busy and
 * idle every 0.25 s, a sparse open loop) spends much of its horizon
 * there, and mean_w carries it, where `fit response` on the PowerTrace
 * runs finds holds under 1 ms (docs/envelopes.md, "Hold and decay",
 * records the fit; the text gives a bound, not its digits). What it adds is counted in the run itself
 * (wc_response_state_count): the run at hold 0 is mean_w less held_w,
 * as far as the board's limit leaves the held bins alone. */
int
wc__envelope_hold_note(const wc_envelope_options *o, double share, double held_w, double mean_w, const char *plan,
                       char *note, size_t cap)
{
	note[0] = '\0';
	if (!o->hold_assumed || !(o->hold_s > 0.0) || !(mean_w > 0.0) ||
	    !(held_w > WC_ENVELOPE_HOLD_NOTE_SHARE * mean_w))
		return 0;
	wc_error_format(note, cap, "hold_s: the assumed hold of %g s (not fitted) keeps the busy power over idle gaps "
	                "for %.0f %% of the horizon: at hold 0 mean_w would be about %.1f W, %.0f %% lower%s; fitted "
	                "holds are under 1 ms (docs/envelopes.md, \"Assumed response\")", o->hold_s, 100.0 * share,
	                mean_w - held_w, 100.0 * held_w / mean_w, plan ? plan : "");
	return 1;
}

int
wc__envelope_per_token_note(const wc__trace_stats *st, int replicas, const wc_envelope_summary *s,
                            const char *label, char *note, size_t cap)
{
	note[0] = '\0';
	const wc_envelope_stat *e = &s->energy_per_token_j;
	if (!isfinite(e->value) || !isfinite(e->lo) || (e->value >= e->lo && e->value <= e->hi))
		return 0;
	int idle = 0;
	for (int r = 0; r < replicas; r++)
		idle += !(st[r].output_tokens > 0.0);
	wc_error_format(note, cap, "%s%senergy_per_output_token_j: %.4g J, total energy over total tokens, is outside "
	                "the replicas' own ratios, %.4g-%.4g J (5-95 %%): %d of %d served no token, their energy "
	                "counted without a ratio (docs/envelopes.md, \"Outputs\")", label ? label : "",
	                label ? " " : "", e->value, e->lo, e->hi, idle, replicas);
	return 1;
}

/* ------------------------------------------------- the stat columns */

static const size_t trace_offsets[WC__TRACE_STAT_COUNT] = {
	offsetof(wc__trace_stats, mean_w), offsetof(wc__trace_stats, p5_w),
	offsetof(wc__trace_stats, p50_w), offsetof(wc__trace_stats, p95_w),
	offsetof(wc__trace_stats, max_w), offsetof(wc__trace_stats, ramp_w_per_s),
	offsetof(wc__trace_stats, ramp_p95_w_per_s), offsetof(wc__trace_stats, spectral_entropy),
	offsetof(wc__trace_stats, energy_j), offsetof(wc__trace_stats, energy_per_token_j),
	offsetof(wc__trace_stats, mean_running), offsetof(wc__trace_stats, output_tokens),
};

static const size_t summary_offsets[WC__TRACE_STAT_COUNT] = {
	offsetof(wc_envelope_summary, mean_w), offsetof(wc_envelope_summary, p5_w),
	offsetof(wc_envelope_summary, p50_w), offsetof(wc_envelope_summary, p95_w),
	offsetof(wc_envelope_summary, max_w), offsetof(wc_envelope_summary, ramp_w_per_s),
	offsetof(wc_envelope_summary, ramp_p95_w_per_s), offsetof(wc_envelope_summary, spectral_entropy),
	offsetof(wc_envelope_summary, energy_j), offsetof(wc_envelope_summary, energy_per_token_j),
	offsetof(wc_envelope_summary, mean_running), offsetof(wc_envelope_summary, output_tokens),
};

double
wc__trace_stat_get(const wc__trace_stats *s, int i)
{
	double v;
	memcpy(&v, (const char *)s + trace_offsets[i], sizeof v);
	return v;
}

wc_envelope_stat *
wc__summary_slot(wc_envelope_summary *s, int i)
{
	return (wc_envelope_stat *)(void *)((char *)s + summary_offsets[i]);
}

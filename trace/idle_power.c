/*
 * Measured loaded idle power P0 of one GPU (docs/trace-metrics.md, "Idle
 * power": measured, not fitted, from the idle window of the traces). Manifests often record an
 * idle window too short to hold a sample (powertrace-sim's are about 1 ms),
 * so when the window has under WC_IDLE_MIN_S of samples the idle level is
 * taken from the trace itself: the stretch of WC_IDLE_QUIET_S with no
 * request running and flat power (three quarters of its samples within
 * 5 W or 5 % of its median) whose median is lowest. The median and the
 * three-quarter rule ignore the odd spike of a request too short for the
 * engine's sampling to see; they keep out the tail of a busy period, when
 * the GPU still draws power after the last request ended.
 */
#include "trace/idle.h"
#include "models/catalog.h"
#include "models/grow.h"
#include "models/stats.h"
#include "models/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAT_ABS_W 5.0
#define FLAT_REL 0.05
#define FLAT_SHARE 0.75
#define STRETCH_MAX_SAMPLES 4096

/* Lowest median over flat, quiet stretches spanning about `span` s;
 * NaN when there is none. */
static double
lowest_stretch(const double *t, const double *p, size_t n, const unsigned char *quiet,
               const size_t *loud_before, double span, double *scratch)
{
	double best = NAN;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (j < i)
			j = i;
		while (j < n && t[j] <= t[i] + span)
			j++;
		size_t len = j - i; /* samples i .. j-1 */
		if (len < 2 || t[j - 1] - t[i] < 0.8 * span || len > STRETCH_MAX_SAMPLES)
			continue;
		if (quiet && loud_before[j] - loud_before[i] > 0)
			continue;
		double lo = p[i];
		for (size_t k = i + 1; k < j; k++)
			if (p[k] < lo)
				lo = p[k];
		if (!isnan(best) && lo >= best)
			continue; /* its median cannot beat the best */
		memcpy(scratch, p + i, len * sizeof *p);
		double med = wc_stats_median(scratch, len); /* sorts scratch */
		double tol = fmax(FLAT_ABS_W, FLAT_REL * med);
		size_t near = 0;
		for (size_t k = 0; k < len; k++)
			near += fabs(scratch[k] - med) <= tol;
		if ((double)near >= FLAT_SHARE * (double)len && (isnan(best) || med < best))
			best = med;
	}
	return best;
}

const char *
wc_trace_idle_power(const double *t, const double *p, size_t n, const unsigned char *quiet,
               double win_start, double win_end, double *out)
{
	*out = NAN;
	if (n == 0)
		return "none";
	if (isfinite(win_start) && isfinite(win_end) && win_end - win_start >= WC_IDLE_MIN_S) {
		double sum = 0.0, first = NAN, last = NAN;
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			if (t[i] >= win_start && t[i] <= win_end) {
				if (cnt == 0)
					first = t[i];
				last = t[i];
				sum += p[i];
				cnt++;
			}
		if (cnt >= 2 && last - first >= 0.5 * (win_end - win_start)) {
			*out = sum / (double)cnt;
			return "window";
		}
	}
	size_t *loud_before = quiet ? wc_alloc_array(n + 1, sizeof *loud_before) : NULL;
	double *scratch = wc_alloc_array(STRETCH_MAX_SAMPLES, sizeof *scratch);
	const char *src = "none";
	if ((quiet && !loud_before) || !scratch)
		goto done; /* out of memory: idle stays unknown */
	if (quiet) {
		loud_before[0] = 0;
		for (size_t i = 0; i < n; i++)
			loud_before[i + 1] = loud_before[i] + (quiet[i] ? 0 : 1);
	}
	double v = lowest_stretch(t, p, n, quiet, loud_before, WC_IDLE_QUIET_S, scratch);
	if (!isnan(v)) {
		*out = v;
		src = "quiet_stretch";
		goto done;
	}
	v = lowest_stretch(t, p, n, quiet, loud_before, 1.0, scratch);
	if (isnan(v))
		for (size_t i = 0; i < n; i++)
			if ((!quiet || quiet[i]) && (isnan(v) || p[i] < v))
				v = p[i];
	if (!isnan(v)) {
		*out = v;
		src = "quiet_short";
	}
done:
	free(loud_before);
	free(scratch);
	return src;
}

double
wc_trace_idle_quiet_time(const double *t, const double *p, size_t n, const unsigned char *quiet,
                         double level)
{
	double tol = fmax(FLAT_ABS_W, FLAT_REL * level), sum = 0.0;
	for (size_t i = 0; i + 1 < n; i++)
		if ((!quiet || quiet[i]) && fabs(p[i] - level) <= tol)
			sum += t[i + 1] - t[i];
	return sum;
}

const char *
wc_trace_idle_implausible(double idle_w, double p5_w, double load_mean_w, double published_w,
                          double max_power_w, char *reason, size_t cap)
{
	if (!isfinite(idle_w))
		return NULL;
	if (isfinite(p5_w) && idle_w > p5_w + fmax(5.0, 0.03 * p5_w))
		snprintf(reason, cap, "above the trace's 5th percentile %.1f W", p5_w);
	else if (isfinite(load_mean_w) && !(idle_w < load_mean_w))
		snprintf(reason, cap, "not below the load's mean %.1f W", load_mean_w);
	else if (published_w > 0 && (idle_w < WC_IDLE_PUBLISHED_MIN * published_w ||
	                             idle_w > WC_IDLE_PUBLISHED_MAX * published_w))
		snprintf(reason, cap, "outside %.1f-%.1f W (%.1f-%.1f times the platform's published %.1f W)",
		         WC_IDLE_PUBLISHED_MIN * published_w, WC_IDLE_PUBLISHED_MAX * published_w,
		         WC_IDLE_PUBLISHED_MIN, WC_IDLE_PUBLISHED_MAX, published_w);
	else if (!(published_w > 0) && max_power_w > 0 && idle_w > WC_IDLE_MAX_SHARE_OF_LIMIT * max_power_w)
		snprintf(reason, cap, "above %.0f %% of the platform's %.0f W power limit",
		         100.0 * WC_IDLE_MAX_SHARE_OF_LIMIT, max_power_w);
	else
		return NULL;
	return reason;
}

void
wc_trace_idle_reference(const char *platform, double *published, double *limit)
{
	wc_params paper = WC_PARAMS_INIT;
	const wc_platform_info *info = wc_platform_lookup(platform);
	wc_params_default(&paper);
	const wc_level *l = wc_params_level(&paper, platform);
	*published = l ? l->p0.value : 0.0;
	*limit = info ? info->max_power_w : 0.0;
	wc_params_clear(&paper);
}

int
wc_trace_idle_row(double running, double *energy_per_token_j, double *energy_per_request_j,
                  double *energy_per_iteration_j, char *exclude, size_t cap)
{
	if (!(running < WC_IDLE_RUNNING))
		return 0;
	/* Each is the same idle power over stray work, whatever the unit: a
	 * --segment row at 0.06 running wrote 17.49 J per iteration and a
	 * request's 639 J once its token's was blank (docs/formats/telemetry.md,
	 * "What ingest derives", Segments). */
	*energy_per_token_j = NAN;
	if (energy_per_request_j)
		*energy_per_request_j = NAN;
	if (energy_per_iteration_j)
		*energy_per_iteration_j = NAN;
	if (!exclude[0])
		snprintf(exclude, cap, WC_IDLE_REASON "%.2f running requests on average (< %.1f), no load to fit",
		         running, WC_IDLE_RUNNING);
	return 1;
}

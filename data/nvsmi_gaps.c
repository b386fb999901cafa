/*
 * nvidia-smi power logs, gaps in the sampling (docs/formats/telemetry.md,
 * "Time gaps"): the traces are read as piecewise-linear curves
 * (docs/trace-metrics.md), so a stretch without samples is bridged by a
 * straight line. Over a few sampling intervals that is jitter; over many,
 * the logger stopped and every metric across the stretch is made up (a
 * 30-minute outage of a 75-s log gave 29 times the energy, without a
 * word). A gap is an interval between samples over NV_GAP_FACTOR times
 * the sampling interval (the median of the last NV_CADENCE_N intervals)
 * and over NV_GAP_MIN_S; each is warned with its line and length (the
 * first NV_GAP_SHOWN, then a count) and counted in wc_nvsmi_info; a log
 * more than half of whose span lies in gaps is refused.
 */
#include "nvsmi_internal.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Median of the `n` intervals in the ring (the one median rule,
 * models/stats.h; on a copy: it sorts). */
static double
cadence_of(const nv_gaps *gp, size_t n)
{
	double v[NV_CADENCE_N];
	memcpy(v, gp->ring, n * sizeof v[0]);
	return wc_stats_median(v, n);
}

static void
judge(nv_reader *rd, double interval, size_t line, double t_end)
{
	nv_gaps *gp = &rd->gaps;
	wc_nvsmi_info *info = rd->info;
	if (!(interval > NV_GAP_FACTOR * gp->cadence && interval > NV_GAP_MIN_S))
		return;
	info->gaps++;
	info->gap_s += interval;
	if (interval > info->longest_gap_s) {
		info->longest_gap_s = interval;
		gp->longest_line = line;
	}
	if (gp->on_gap && gp->on_gap(t_end - interval, t_end, gp->gap_payload) != 0)
		gp->gap_failed = 1;
	if (info->gaps <= NV_GAP_SHOWN)
		wc__warn(rd->opt, rd->path, ":%zu: no sample for %.1f s before this line (%.0f sampling intervals of "
		         "%.3g s): the trace is a straight line across the gap", line, interval,
		         interval / gp->cadence, gp->cadence);
}

/* The cadence's own change is no gap: a long interval is judged at the
 * next, and when that is as long (over half of it) the logger now samples
 * that slowly -- a log slowed from 0.25 s to 5 s was refused as "more than
 * half interpolated" while the same samples at 5 s throughout passed. */
static void
judge_later(nv_reader *rd, double interval, size_t line, double t_end)
{
	nv_gaps *gp = &rd->gaps;
	if (gp->pending > 0) {
		if (interval > 0.5 * gp->pending) {
			for (size_t j = 0; j < NV_CADENCE_N; j++)
				gp->ring[j] = interval;
			gp->cadence = interval;
		} else {
			judge(rd, gp->pending, gp->pending_line, gp->pending_t);
		}
		gp->pending = 0;
	}
	if (interval > NV_GAP_FACTOR * gp->cadence && interval > NV_GAP_MIN_S) {
		gp->pending = interval;
		gp->pending_line = line;
		gp->pending_t = t_end;
	}
}

int
wc__nv_gap_sample(double t, const double *power_w, int n_gpus, void *payload)
{
	nv_reader *rd = payload;
	nv_gaps *gp = &rd->gaps;
	if (rd->info->samples == 1) /* the span kept, named by wc__nv_ends_finish */
		rd->first_sample_line = rd->first_line;
	rd->last_sample_line = rd->first_line;
	if (gp->have) {
		double interval = t - gp->last_t;
		size_t k = gp->n_iv % NV_CADENCE_N;
		gp->ring[k] = interval;
		gp->ring_line[k] = rd->first_line;
		gp->ring_t[k] = t;
		gp->n_iv++;
		if (gp->cadence > 0)
			judge_later(rd, interval, rd->first_line, t);
		if (gp->n_iv % NV_CADENCE_N == 0) {
			/* the first estimate judges the intervals held for it */
			int first = gp->cadence == 0;
			gp->cadence = cadence_of(gp, NV_CADENCE_N);
			for (size_t j = 0; first && j < NV_CADENCE_N; j++)
				judge(rd, gp->ring[j], gp->ring_line[j], gp->ring_t[j]);
		}
	}
	gp->have = 1;
	gp->last_t = t;
	return gp->user ? gp->user(t, power_w, n_gpus, gp->user_payload) : 0;
}

int
wc__nv_gaps_finish(nv_reader *rd)
{
	nv_gaps *gp = &rd->gaps;
	wc_nvsmi_info *info = rd->info;
	if (gp->pending > 0) /* the log's last interval: nothing after says otherwise */
		judge(rd, gp->pending, gp->pending_line, gp->pending_t);
	gp->pending = 0;
	if (gp->cadence == 0 && gp->n_iv >= 3) {
		gp->cadence = cadence_of(gp, (size_t)gp->n_iv);
		for (size_t j = 0; j < gp->n_iv; j++)
			judge(rd, gp->ring[j], gp->ring_line[j], gp->ring_t[j]);
	}
	if (gp->gap_failed)
		return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory (gaps in the sampling)");
	if (info->gaps > NV_GAP_SHOWN)
		wc__warn(rd->opt, rd->path, ": %zu gaps over %.0f sampling intervals in all, %.1f s (the longest %.1f s "
		         "before line %zu)", info->gaps, NV_GAP_FACTOR, info->gap_s, info->longest_gap_s,
		         gp->longest_line);
	double span = info->t_last - info->t_first;
	if (NV_MOSTLY_GAPS(info->gap_s, span))
		/* one side of the longest gap kept, in place: a run folder holds
		 * one power.csv (docs/formats/telemetry.md, "Time gaps") */
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": %.0f s of the log's %.0f s lie in %zu gap%s without "
		                    "samples (the longest %.1f s before line %zu): more than half the trace would be "
		                    "interpolated; keep one side of it: delete the data lines before line %zu, or from it "
		                    "on", info->gap_s, span, info->gaps, info->gaps == 1 ? "" : "s", info->longest_gap_s,
		                    gp->longest_line, gp->longest_line);
	return WC_OK;
}

double
wc_power_trace_gap_s(const wc_power_trace *pt, double a, double b)
{
	double s = 0.0;
	for (size_t k = 0; k < pt->n_gaps; k++) {
		double lo = fmax(a, pt->gaps[2 * k]), hi = fmin(b, pt->gaps[2 * k + 1]);
		if (hi > lo)
			s += hi - lo;
	}
	return s;
}

int
wc_power_trace_gaps_refuse(const wc_power_trace *pt, double a, double b)
{
	return NV_MOSTLY_GAPS(wc_power_trace_gap_s(pt, a, b), b - a);
}

/* A log whose bad lines are allowed (--max-bad) can lose its start or end
 * without a gap: the trace then spans only what is left (a 0.25-s log
 * whose loaded 62 s were bad read as its idle first 12 s, 82 W for 251 W,
 * docs/formats/telemetry.md "Timestamps"). So the time from the first data
 * line to the first sample, and from the last sample to the last data line
 * (within WC_TELEMETRY_MAX_GAP_S of it: a far-off time is a bad line, not
 * the log's end), is judged as a gap is -- over NV_GAP_FACTOR sampling
 * intervals and NV_GAP_MIN_S -- and counted with the gaps against the same
 * half of the span (NV_MOSTLY_GAPS). Times as written, before a
 * daylight-saving shift, as the lines' are. */
void
wc__nv_note_line_time(nv_reader *rd, double t)
{
	t += rd->clock_shift;
	if (!isfinite(t))
		return;
	if (rd->info->samples == 0) {
		if (!rd->have_t0 || t < rd->ends_t0 || t - rd->ends_t0 > WC_TELEMETRY_MAX_GAP_S)
			rd->ends_t0 = t;
		rd->have_t0 = 1;
	} else if (t > rd->ends_t1 && t - rd->info->t_last <= WC_TELEMETRY_MAX_GAP_S)
		rd->ends_t1 = t;
}

/* The stretch `s` s at an end of the log is a gap (judge's rule). */
static double
end_gap(const nv_reader *rd, double s)
{
	return s > NV_GAP_FACTOR * rd->gaps.cadence && s > NV_GAP_MIN_S ? s : 0.0;
}

int
wc__nv_ends_finish(nv_reader *rd)
{
	wc_nvsmi_info *info = rd->info;
	if (info->samples == 0 || !rd->have_t0)
		return WC_OK;
	double head = end_gap(rd, info->t_first - rd->ends_t0), tail = end_gap(rd, rd->ends_t1 - info->t_last);
	double kept = info->t_last - info->t_first, span = kept + head + tail;
	if ((head == 0 && tail == 0) || !NV_MOSTLY_GAPS(info->gap_s + head + tail, span))
		return WC_OK;
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": the samples kept span %.1f s (lines %zu-%zu) of the "
	                         "log's %.1f s: %.1f s before them and %.1f s after are bad lines only, %.1f s gaps; "
	                         "over half the trace would not be measured: fix the bad lines, not more --max-bad",
	                         kept, rd->first_sample_line, rd->last_sample_line, span, head, tail, info->gap_s);
}

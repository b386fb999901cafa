/*
 * Energy per optimizer step of a fine-tuning trace (docs/finetune.md,
 * "Measuring energy per step"). The training window is the step log's
 * span, or the trace from its first to its last bin at training power.
 * Inside it, what is not training is left out: saves and evaluations the
 * log states, slow leading steps (warm-up, with step times), near-idle
 * pauses of at least max(2 s, half the trace's period) -- checkpoint
 * saves -- and stretches of intermediate power of at least max(10 s, three
 * steps) -- evaluation, warm-up, long stalls. The steps are counted from
 * the log, or from a count the log or manifest gives, or, without either,
 * as the active time over the trace's step period ("trace_period"), or as
 * the bursts between regular pauses when every step ends in a save and
 * the bursts -- at most WC_FT_BURST_MAX_S long -- show no period of their
 * own ("trace_bursts").
 */
#include "finetune_trace_internal.h"
#include "models/stats.h"
#include "models/grow.h"
#include "models/limits.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

void
wc_ft_steps_info_init(wc_ft_steps_info *i)
{
	memset(i, 0, sizeof *i);
	i->start = i->steps = i->expected_saves = i->expected_eval_s = i->train_runtime_s = NAN;
	i->state_steps = i->state_run_steps = i->state_max_steps = i->log_state_steps = NAN;
}

/* Optimizer steps the row of step i ends: more than one when the log is
 * written every k steps (docs/finetune.md, "Counting steps"). */
static double
step_count(const wc_ft_steps_info *in, size_t i)
{
	return in->step_count ? in->step_count[i] : 1.0;
}

/* Start of step row i: the end of the row before it (a step, or a logged
 * pause), else `median` (per optimizer step) times its steps before its
 * end. */
double
wc__ft_step_start(const wc_ft_steps_info *in, size_t i, double median)
{
	double s = i > 0 ? in->step_end[i - 1]
	                 : (isfinite(in->start) ? in->start : in->step_end[0] - median * step_count(in, 0));
	for (size_t j = 0; j < in->n_logged; j++)
		if (in->pause_to[j] <= in->step_end[i] && in->pause_to[j] > s)
			s = in->pause_to[j];
	return s;
}

/* Median duration of one optimizer step: of the step rows after the first
 * (whose start is the row before them) and of the first when the log
 * states the start, each from its start -- the end of a logged save or
 * evaluation before it -- to its end, over the steps it ends. The raw
 * gaps between step rows would hold the logged pauses: with a save after
 * every step their median is a save, and both the warm-up rule and the
 * shortest pause (half the median) went wrong (docs/finetune.md,
 * "Measuring energy per step"). NaN with no duration. A row whose end
 * is its start (a save or eval row's steps before they are timed,
 * finetune_log.c) has none. */
double
wc__ft_median_step(const wc_ft_steps_info *in, double *scratch)
{
	size_t n = in->n_step_end, m = 0, i0 = isfinite(in->start) ? 0 : 1;
	for (size_t i = i0; i < n; i++) {
		double s = wc__ft_step_start(in, i, 0.0);
		if (in->step_end[i] > s)
			scratch[m++] = (in->step_end[i] - s) / step_count(in, i);
	}
	return m > 0 ? wc_stats_median(scratch, m) : NAN;
}

/* Step rows far longer than the median step, not warm-up: an evaluation
 * or save whose row the log lacks (a callback without on_evaluate), which
 * three 30-s evaluations among 2-s steps charged to the steps (+18 to
 * +21 % energy per step, unsaid). All of such a row but its last median
 * steps -- a Trainer evaluates and saves after a step, so the next row
 * holds the pause, then its step -- is left out, as a logged pause is
 * (docs/finetune.md, "What is not training"). */
static void
unlogged_pauses(ft_grid *g, const wc_ft_steps_info *in, const double *d, size_t first, size_t last, double md,
                wc_ft_steps_result *out)
{
	int n = 0, line = 0;
	double out_s = 0.0, longest = 0.0;
	for (size_t i = first; i <= last && md > 0; i++) {
		double k = step_count(in, i), start = in->step_end[i] - d[i], keep = md * k;
		if (!(d[i] > WC_FT_LONG_STEP_FACTOR * keep) || g->mark[wc__ft_bin(g, start)] == FT_WARMUP)
			continue;
		wc__ft_mark_interval(g, start, in->step_end[i] - keep, FT_UNLOGGED);
		if (n++ == 0)
			line = in->step_line ? in->step_line[i] : 0;
		out_s += d[i] - keep;
		longest = fmax(longest, d[i]);
	}
	if (n > 0)
		WC_WARN(out, "steps.csv:%d: log on_evaluate and on_save rows; %d step row%s far longer than the median "
		        "step (up to %.1f s against %.2f s) hold an unlogged evaluation or save; %.0f s beyond a median "
		        "step left out", line, n, n == 1 ? "" : "s", longest, md, out_s);
}

/* Does [a, b] overlap a gap of the power log? */
static int
in_gap(const wc_ft_steps_info *in, double a, double b)
{
	for (size_t j = 0; j < in->n_gaps; j++)
		if (in->gaps[2 * j + 1] > a && in->gaps[2 * j] < b)
			return 1;
	return 0;
}

/* Step times: the window spans the step rows wholly inside the trace;
 * slow leading steps are marked as warm-up. Each row counts the steps it
 * ends. Returns the steps kept. */
static double
steps_from_log(ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, double *median, double *span)
{
	size_t n = in->n_step_end, first = n, last = 0;
	double kept = 0, all = 0, gapped = 0, gapped_s = 0, *d = wc_alloc_array(n ? n : 1, sizeof *d), tn = g->t[g->n - 1];
	*median = d ? wc__ft_median_step(in, d) : NAN;
	for (size_t i = 0; d && i < n; i++) {
		double s = wc__ft_step_start(in, i, isfinite(*median) ? *median : 0.0);
		d[i] = in->step_end[i] - s;
		all += step_count(in, i);
		if (s >= g->t[0] && in->step_end[i] <= tn && d[i] > 0) {
			first = first == n ? i : first;
			last = i;
			/* A step in a gap of the power log has no measured energy:
			 * the line across the gap fell below the pause threshold
			 * and was cut out while the step was counted (-41 %
			 * energy per step over a 100-s gap). Neither its time nor
			 * its count is kept (docs/finetune.md, "Window"). */
			if (in_gap(in, s, in->step_end[i])) {
				gapped += step_count(in, i);
				gapped_s += d[i];
			} else {
				kept += step_count(in, i);
			}
		}
	}
	if (!d || kept == 0) {
		free(d);
		return 0;
	}
	if (kept + gapped < all)
		WC_WARN(out, "step log: %.0f of %.0f steps lie outside the power log and are not counted", all - kept - gapped,
		        all);
	double ws = wc__ft_step_start(in, first, isfinite(*median) ? *median : 0.0), we = in->step_end[last];
	span[0] = ws;
	span[1] = we;
	g->k0 = wc__ft_bin(g, ws);
	g->k1 = wc__ft_bin(g, we);
	wc__ft_mark_window(g);
	for (size_t j = 0; j < in->n_logged; j++)
		wc__ft_mark_interval(g, in->pause_from[j], in->pause_to[j], FT_LOGGED);
	for (size_t i = first; gapped > 0 && i <= last; i++)
		if (in_gap(in, in->step_end[i] - d[i], in->step_end[i]))
			wc__ft_mark_interval(g, in->step_end[i] - d[i], in->step_end[i], FT_LOGGED);
	if (gapped > 0)
		WC_WARN(out, "power.csv: %.0f steps (%.0f s of the %.0f-s window) fall in gaps of the power log and are "
		        "left out with their time (their energy is unknown)", gapped, gapped_s,
		        in->step_end[last] - wc__ft_step_start(in, first, isfinite(*median) ? *median : 0.0));
	/* Warm-up: leading steps over twice the median step, at most a quarter.
	 * A first step without a logged start has no known duration (its
	 * start is one median step before its end): it is warm-up when the
	 * step after it is. A row ending k steps is k slow steps or none. */
	double md = isfinite(*median) ? *median : d[first] / step_count(in, first), most = floor(kept / 4);
	int unknown_first = first == 0 && !isfinite(in->start);
	/* ... at the start of the run and of every resumed segment, which
	 * warms up again (three 6-s steps after a resume stayed in: +1.7 %
	 * energy per step, unsaid). */
	int segment_warmup = 0;
	for (size_t from = first; from <= last; from++) {
		if (from > first && !(in->resumed && in->resumed[from]))
			continue;
		int before = out->warmup_steps;
		for (size_t i = from; i <= last && out->warmup_steps + step_count(in, i) <= most; i++) {
			int slow = d[i] / step_count(in, i) > 2.0 * md ||
			           (i == first && unknown_first && i < last && d[i + 1] / step_count(in, i + 1) > 2.0 * md);
			if (!slow || (i > from && in->resumed && in->resumed[i]))
				break;
			wc__ft_mark_interval(g, in->step_end[i] - d[i], in->step_end[i], FT_WARMUP);
			out->warmup_steps += (int)step_count(in, i);
		}
		segment_warmup += from > first ? out->warmup_steps - before : 0;
	}
	if (segment_warmup > 0)
		WC_WARN(out, "warm-up: %d slow steps at the start of resumed segments are left out as warm-up, as the "
		        "run's first ones are", segment_warmup);
	unlogged_pauses(g, in, d, first, last, md, out);
	/* A first row ending several steps hides a short warm-up in its mean
	 * (two 2.5x steps in a row of ten: +6 % energy per step, unsaid). */
	if (out->warmup_steps == 0 && step_count(in, first) > 1)
		WC_WARN(out, "warm-up: a row every step would leave out slow leading steps (warm-up), counted as "
		        "training here: the step log's first row in the power log ends %.0f steps, and those inside it "
		        "cannot be told apart", step_count(in, first));
	free(d);
	return kept - out->warmup_steps;
}

/* Time and energy of the window and of what is not training in it. */
static int
energies(const ft_grid *g, wc_ft_steps_result *out, wc_error *err)
{
	double *scratch = wc_alloc_array(g->nb, sizeof *scratch);
	if (!scratch)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	out->start = g->t0 + (double)g->k0 * g->dt;
	out->end = g->t0 + (double)g->k1 * g->dt;
	out->window_s = out->end - out->start;
	out->window_energy_j = wc__ft_energy_between(g, out->start, out->end);
	size_t k = g->k0;
	while (k < g->k1) {
		if (g->mark[k] == FT_ACTIVE) {
			k++;
			continue;
		}
		/* one kind at a time: a save next to an evaluation is two stretches */
		size_t a = k;
		while (k < g->k1 && g->mark[k] == g->mark[a])
			k++;
		double s, e;
		wc__ft_stretch(g, a, k, scratch, &s, &e);
		out->pause_s += s;
		out->pause_energy_j += e;
	}
	free(scratch);
	out->active_s = out->window_s - out->pause_s;
	out->active_energy_j = out->window_energy_j - out->pause_energy_j;
	return WC_OK;
}

/* Said wherever steps are counted without step times and the bursts do
 * not time them: the warm-up is in the count and in the energy. */
static void
warn_warmup_included(wc_ft_steps_result *out, const char *how)
{
	/* the remedy first: ingest cuts the line at 255 bytes after the
	 * run's folder (docs/finetune.md, "A stated count against the trace") */
	WC_WARN(out, "warm-up: a steps.csv with step times would leave out slow leading steps (warm-up), counted as "
	        "training here: %s without step times", how);
}

/* Steps without step times: a stated count (less the warm-up bursts when
 * a save follows every step and the bursts match the count), the bursts,
 * or the period -- when it is clear (a strong autocorrelation peak, at
 * least three samples long) and timed inside the bursts; a period found
 * in a trace that does not resolve the steps is worse than none. */
static int
count_steps(const ft_grid *g, const wc_ft_steps_info *in, const ft_bursts *b, int per_step, double gap_steps,
            wc_ft_steps_result *out, wc_error *err)
{
	int clear = out->period_clear;
	/* A mean over the last w s stretches a burst by w: 1-s averages read
	 * every second smeared 1.3-s steps into 3-s bursts, which passed as
	 * three windows long (32 steps for 40, +34 % energy per step). */
	double step = per_step ? b->median_s - in->averaged_s : clear ? out->period_s : NAN;
	if (!isfinite(in->steps) && in->averaged_s > 0 && step < WC_FT_AVERAGE_MIN_WINDOWS * in->averaged_s) {
		/* Averaged power smears each short step into the pauses beside
		 * it: a synthetic run of 1.3-s steps with a save after each was
		 * counted as 77 steps, not 40 (-39 % energy per step), and as
		 * bursts +8 %. Refused rather than warned: a row's warning does
		 * not stop a fit from using it. The bursts are said as
		 * measured, not less the mean: instantaneous readings in a
		 * column named as averaged have ~1-s bursts of 1-s steps, and
		 * it said "steps of -0.00 s". */
		char what[96];
		if (per_step)
			snprintf(what, sizeof what, "into bursts of %.2f s, under the %.0f s of %.0f windows and the mean",
			         b->median_s, (WC_FT_AVERAGE_MIN_WINDOWS + 1.0) * in->averaged_s,
			         WC_FT_AVERAGE_MIN_WINDOWS);
		else
			snprintf(what, sizeof what, "of %.2f s, under %.0f windows", step, WC_FT_AVERAGE_MIN_WINDOWS);
		return wc_error_set(err, WC_EINVAL, "%s (a %.0f-s mean) smears steps %s: not resolved; log "
		                    "power.draw.instant every 100 ms, or %s", wc__ft_averaged_what(in), in->averaged_s, what,
		                    wc__ft_step_times_remedy(in));
	}
	if (!isfinite(in->steps) && per_step && !wc__ft_resolved(g, b->median_s))
		/* 1-s readings of 1.3-s steps with a save after each: bursts of
		 * one or two samples, whose edges fall anywhere between two
		 * readings (-10 to +13 % energy per step with a stated count). */
		return wc_error_set(err, WC_EINVAL,
		                    "%zu bursts between saves of %.2f s (median), under %.0f samples of %.3f s: the "
		                    "trace does not resolve the steps; log every 100 ms, or %s", b->n - b->warm,
		                    b->median_s, WC_FT_MIN_SAMPLES_PER_STEP, g->dt, wc__ft_step_times_remedy(in));
	if (isfinite(in->steps)) {
		const char *src = in->steps_source ? in->steps_source : "manifest";
		/* less the steps run in gaps of the power log (finetune_gaps.c) */
		wc_ft_steps_info left = *in;
		left.steps -= gap_steps;
		out->steps = left.steps - out->warmup_steps;
		snprintf(out->step_source, sizeof out->step_source, "%s", src);
		/* A count whose steps would be shorter than any optimizer step is
		 * not this run's: global_step 1000000000 over a 400-step log was
		 * kept with a -100 % warning, 0.00125 J and 1.07e-6 s per step,
		 * and fit refused the table as degenerate (docs/finetune.md, "A
		 * stated count against the trace") */
		char what[64];
		const int state = strcmp(src, "trainer_state") == 0;
		snprintf(what, sizeof what, "%s %.15g gives", state ? ": /global_step" : "", state ? in->state_steps : in->steps);
		if (wc__ft_steps_too_short(out, in->steps_file ? in->steps_file : src, what,
		                           "not this run's count; give --steps, finetune.steps or a steps.csv", err) != WC_OK)
			return WC_EINVAL;
		if (!per_step && clear && wc__ft_stated_vs_period(g, &left, out, err) != WC_OK)
			return WC_EINVAL;
		/* no one period to check it against (wc__ft_period_drift) */
		if (!per_step && isfinite(out->period_halves_s[0]))
			WC_WARN(out, "steps: the trace's step period changes during the run (%.3f s in one quarter of "
			        "training, %.3f s in a later one): %s's %.0f steps are used unchecked", out->period_halves_s[0],
			        out->period_halves_s[1], in->steps_file ? in->steps_file : src, in->steps);
		/* a stated count by who stated it: the manifest or --steps */
		char how[64];
		snprintf(how, sizeof how, "%s gives a step count", strcmp(src, "manifest") != 0 ? "trainer_state.json"
		         : in->steps_file ? in->steps_file : "finetune.steps in wattcast-run.json");
		if (!per_step)
			warn_warmup_included(out, how);
		else if (fabs(in->steps - (double)b->n) >= 0.5)
			/* Not blamed on warm-up alone: 40 stated against 5 bursts
			 * was a trace that did not resolve the steps. */
			WC_WARN(out, "steps: %s gives %.0f steps, the trace %zu bursts between saves; the stated count "
			        "is used, and no warm-up burst is left out (it is counted as training)", src,
			        in->steps, b->n);
	} else if (per_step) {
		out->steps = (double)(b->n - b->warm);
		snprintf(out->step_source, sizeof out->step_source, "trace_bursts");
	} else if (clear && b->n >= 3 && out->n_saves >= 2 && b->median_s < WC_FT_BURST_MIN_PERIODS * out->period_s) {
		/* Falling back to the period here counted 1-s averaged 1.3-s steps
		 * with a save after each as 77 steps, not 40 (-39 % energy per step). */
		return wc_error_set(err, WC_EINVAL,
		                    "%zu training bursts between pauses (median %.2f s, spread %.0f %%), too short to "
		                    "time steps in (%.3f s means nothing) and not clearly a step each (needs spread "
		                    "under 25 %%, at most %.0f s, 1.5 periods): give a step log or finetune.steps",
		                    b->n - b->warm, b->median_s, 100.0 * b->spread, out->period_s, WC_FT_BURST_MAX_S);
	} else if (clear) {
		out->steps = out->active_s / out->period_s;
		if (isfinite(out->period_alt_s))
			WC_WARN(out, "period: ambiguous; a step log (steps.csv or trainer_state.json) or finetune.steps "
			        "would tell: the samples fit %.4f s (%.1f steps, counted) and %.4f s (%.1f steps) alike",
			        out->period_s, out->steps, out->period_alt_s,
			        out->active_s / out->period_alt_s);
		/* 1.3-s steps sampled every 0.5 s were counted as 6.5-s ones
		 * (+400 % energy per step), silently: a step under three
		 * samples is never counted, and the trace cannot tell it from
		 * the longer one here. */
		if (isfinite(out->period_under_s))
			WC_WARN(out, "period: not told apart; a step log, finetune.steps or samples every 100 ms would tell: "
			        "steps of %.3f s, under %.0f samples and never counted, fit the samples as well as steps "
			        "of %.4f s (counted, %.1f steps)", out->period_under_s,
			        WC_FT_MIN_SAMPLES_PER_STEP, out->period_s, out->steps);
		/* 1-s steps sampled every 0.3 s repeat every 10 samples, 3
		 * steps, and were counted as 3-s steps (+215 % energy per
		 * step) silently; four 1.55-s steps at 0.2 s as one (+300 %). */
		if (isfinite(out->period_aliases_s[0])) {
			char list[64] = "";
			/* Not the one the ambiguity warning names already. */
			for (int i = 0; i < WC_FT_ALIASES && isfinite(out->period_aliases_s[i]); i++)
				if (!(fabs(out->period_aliases_s[i] - out->period_alt_s) < 0.5 * g->dt))
					snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.4f",
					         list[0] ? ", " : "", out->period_aliases_s[i]);
			if (list[0])
				WC_WARN(out, "period: aliased; a step log, finetune.steps or faster samples would tell: the "
				        "samples repeat every %.3f s and fold more simply at steps of %s s than at %.4f s "
				        "(counted, %.1f steps)", out->period_repeat_s, list, out->period_s,
				        out->steps);
		}
		snprintf(out->step_source, sizeof out->step_source, "trace_period");
		warn_warmup_included(out, "steps are counted from the trace's step period");
		if (out->period_acf < 0.6)
			WC_WARN(out, "period: the step period %.3f s is only weakly periodic (autocorrelation %.2f); a step "
			        "log would be exact", out->period_s, out->period_acf);
		/* A period seen only a few times over the run may be a longer
		 * cycle (saves at near-training power every k steps read as one
		 * step of k: 10 x the energy per step), which no check here can
		 * tell from a long step. */
		/* With gradient accumulation and no distinct optimizer phase the
		 * period can be a multiple of micro-steps, neither micro-step nor
		 * step (0.375-s micro-steps of 3-s steps read as 1.12 s: 2.7x the
		 * steps, -63 % energy per step); no trace tells that apart. */
		if (in->grad_accum > 1)
			WC_WARN(out, "period: grad_accum is %d and the steps are counted from the trace's period (%.3f s, "
			        "%.1f steps); without a distinct optimizer phase it may span only some micro-steps, "
			        "counting too many steps: a step log (steps.csv) would be exact", in->grad_accum,
			        out->period_s, out->steps);
		if (out->steps < WC_FT_PERIOD_MIN_REPEATS)
			WC_WARN(out, "period: maybe a longer cycle (checkpoint saves every few steps), not one step; a step log "
			        "(steps.csv or trainer_state.json) would tell: the step period %.3f s repeats only %.1f "
			        "times over %.0f s of training", out->period_s, out->steps, out->active_s);
	} else if (isfinite(out->period_halves_s[0])) {
		/* steps of two lengths: no one period counts them */
		return wc_error_set(err, WC_EINVAL,
		                    "the trace's step period changes during the run (%.3f s in one quarter of training, "
		                    "%.3f s in a later one): no one period counts its steps; %s", out->period_halves_s[0],
		                    out->period_halves_s[1], wc__ft_step_times_remedy(in));
	} else if (isfinite(out->period_s) && out->period_acf >= WC_FT_PERIOD_MIN_ACF) {
		char advice[96];
		return wc_error_set(err, WC_EINVAL,
		                    "the trace's step period %.3f s is under %.0f samples of %.3f s (autocorrelation "
		                    "%.2f): not resolved; %s%s", out->period_s, WC_FT_MIN_SAMPLES_PER_STEP, g->dt,
		                    out->period_acf, wc__ft_faster_advice(in, g->dt, advice, sizeof advice),
		                    wc__ft_step_times_remedy(in));
	} else if (isfinite(out->period_s)) {
		/* At 100 ms, logging faster is no cure (docs/finetune.md, "Averaged power"). */
		char advice[96];
		return wc_error_set(err, WC_EINVAL,
		                    "the trace's step period is not clear (autocorrelation %.2f at %.3f s, samples "
		                    "every %.3f s): %s%s", out->period_acf, out->period_s, g->dt,
		                    wc__ft_faster_advice(in, g->dt, advice, sizeof advice), wc__ft_step_times_remedy(in));
	} else {
		return wc_error_set(err, WC_EINVAL,
		                    "no step period in the trace (no autocorrelation peak in 0.5-120 s over %.0f s of "
		                    "training); give a step log (steps.csv or trainer_state.json) or finetune.steps "
		                    "in wattcast-run.json", out->active_s);
	}
	return WC_OK;
}


int
wc_ft_steps_analyse(const double *t, const double *p, size_t n, const wc_ft_steps_info *in,
                    wc_ft_steps_result *out, wc_error *err)
{
	ft_grid g;
	double median = NAN, logged_steps = 0, span[2] = { 0, 0 };
	int rc;
	memset(out, 0, sizeof *out);
	out->period_s = out->steps = out->runtime_steps = out->period_alt_s = out->period_under_s = NAN;
	out->period_unsearched_s = NAN;
	out->period_halves_s[0] = out->period_halves_s[1] = NAN;
	for (int i = 0; i < WC_FT_ALIASES; i++)
		out->period_aliases_s[i] = NAN;
	if ((rc = wc__ft_grid_build(&g, t, p, n, in->gaps, in->n_gaps, err)) != WC_OK)
		goto done;
	out->idle_w = g.idle_w;
	out->train_w = g.train_w;
	if (in->n_step_end > 0) {
		if ((logged_steps = steps_from_log(&g, in, out, &median, span)) <= 0) {
			rc = wc_error_set(err, WC_EINVAL, "step log: no step lies inside the power log (check the clocks)");
			goto done;
		}
		/* Against the log's own span, not the grid's: a save right after
		 * the last step overlapped the bin holding that step's end in
		 * some runs and not in others of the same structure. A resume's
		 * restart is left out like them but is neither a save nor an
		 * evaluation: it was counted as one (8 for a run's 5 saves and
		 * 2 evaluations); its warning says it (docs/formats/finetune-runs.md). */
		for (size_t j = 0; j < in->n_logged; j++)
			out->n_logged += in->pause_to[j] > span[0] && in->pause_from[j] < span[1] &&
			                 !(in->pause_restart && in->pause_restart[j]);
	} else {
		wc__ft_window_from_trace(&g);
		wc__ft_window_post_evals(&g, in);
	}
	if (g.k1 <= g.k0) {
		rc = wc_error_set(err, WC_EINVAL, "trace: no training in it (power never clearly above %.0f W)", g.theta);
		goto done;
	}
	double note[3] = { NAN, NAN, NAN };
	size_t repeat = 0;
	ft_recur rec;
	if ((rc = wc__ft_mark_pauses(&g, median, in, out, &rec, err)) != WC_OK ||
	    (rc = wc__ft_period(&g, 1, &out->period_s, &out->period_acf, note, &repeat, err)) != WC_OK)
		goto done;
	out->period_repeat_s = (double)repeat * g.dt;
	if (wc__ft_period_aliases(&g, out->period_s, repeat, out->period_aliases_s) < 0) {
		rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		goto done;
	}
	out->period_clear = wc__ft_period_clear(&g, out->period_s, out->period_acf, repeat);
	if (out->period_clear && logged_steps <= 0 && wc__ft_eval_cycle(&g, in, out->period_s)) {
		/* what is used first: the line is cut at 255 bytes */
		out->period_clear = 0;
		WC_WARN(out, "period: not a step; %s's %.0f steps are used unchecked, a steps.csv would check them: the "
		        "trace's period %.3f s is the cycle of its %zu evaluations (one every %.0f steps)",
		        in->steps_file ? in->steps_file : "trainer_state.json", in->steps, out->period_s, in->n_evals,
		        in->eval_at[1] - in->eval_at[0]);
	}
	if (out->period_clear) {
		int drift = wc__ft_period_drift(&g, out->period_halves_s, err);
		if (drift < 0) {
			rc = err && err->code ? err->code : WC_ENOMEM;
			goto done;
		}
		out->period_clear = !drift;
	}
	out->period_alt_s = note[0];
	out->period_under_s = note[1];
	/* An 80-s evaluation cycle sampled every 0.5 s searched all its 160
	 * divisors, for hours; the search stops at a bound and says so
	 * (docs/finetune.md, "Counting steps"). The remedy first: ingest cuts
	 * the line at 255 bytes after the run's folder. */
	if (isfinite((out->period_unsearched_s = note[2])))
		WC_WARN(out, "period: searched in part; a steps.csv or a stated count does without it: steps of %.3f s "
		        "or shorter, the trace's first period over more than %d, were not looked for (a bound on work)",
		        out->period_unsearched_s, WC_FT_PERIOD_DIVISORS_MAX);
	out->period_steps = wc__ft_period_steps(&g, in, out);
	if (logged_steps <= 0 && (rc = wc__ft_trainer_evals(&g, in, out, err)) != WC_OK)
		goto done;
	/* Without step times: with a save after every step the bursts are the
	 * steps, and their leading long ones the warm-up -- left out when the
	 * bursts are the count (a stated count must match them). */
	ft_bursts b;
	int per_step = 0;
	if (logged_steps <= 0) {
		if ((rc = wc__ft_bursts(&g, out->period_s, &b, err)) != WC_OK)
			goto done;
		per_step = b.regular && out->n_saves >= 2;
		if (per_step && (!isfinite(in->steps) || fabs(in->steps - (double)b.n) < 0.5)) {
			wc__ft_bursts_mark_warmup(&g, &b);
			out->warmup_steps = (int)b.warm;
		}
	}
	if ((rc = energies(&g, out, err)) != WC_OK)
		goto done;
	if (logged_steps > 0) {
		out->steps = logged_steps;
		snprintf(out->step_source, sizeof out->step_source, "step_log");
		/* The stated count's rules hold for a step log's too: 10^6 rows
		 * 0.6 ms apart were 2.3 J per step, a log of micro-steps -75 %,
		 * without a word (docs/finetune.md, "A step log against the
		 * trace"). */
		char what[64];
		snprintf(what, sizeof what, ": its step numbers count %.0f steps, which give", logged_steps);
		if ((rc = wc__ft_steps_too_short(out, "steps.csv", what, "its step column counts no optimizer steps; write "
		                                 "state.global_step there", err)) != WC_OK)
			goto done;
		wc__ft_log_vs_period(&g, in, out);
	} else if ((rc = count_steps(&g, in, &b, per_step, wc__ft_gap_steps(&g, in, out), out, err)) != WC_OK) {
		goto done;
	}
	out->energy_per_step_j = out->active_energy_j / out->steps;
	out->step_s = out->active_s / out->steps;
	wc__ft_recur_warn(&rec, in, out);
	if (in->averaged_s > 0 && out->step_s < WC_FT_AVERAGE_MIN_WINDOWS * in->averaged_s)
		wc__ft_averaged_warn(&g, in, rec.n > 0 && !rec.cut ? rec.n : 0, out);
	else if (per_step && !wc__ft_resolved(&g, out->step_s))
		/* The bursts' length, not the steps': a pause's edge lies half-way
		 * between the readings either side, and where between them the
		 * level changed no reading shows. 1-s readings of 1.3- and 1.5-s
		 * steps measured -10 to +13 % (1.20-1.70 s), their mean +1 %
		 * (docs/finetune.md, "Steps under three samples"). The remedy
		 * first: ingest cuts the line at 255 bytes after the run's folder. */
		WC_WARN(out, "power: log every 100 ms or give steps.csv; samples every %.3f s and %.2f s of burst per step "
		        "(under %.0f samples): a step's edges fall between samples, so energy per step (-10 to +13 %% on "
		        "synthetic 1.3-1.5-s steps) and step_s are uncertain", g.dt, out->step_s, WC_FT_MIN_SAMPLES_PER_STEP);
	else if (per_step && out->step_s < WC_FT_EDGE_SAMPLES_PER_STEP * g.dt)
		WC_WARN(out, "power: log every 100 ms or give steps.csv; samples every %.3f s and %.2f s of burst per step "
		        "(under %.1f samples): a step's edges fall between samples, so energy per step (-4 to +3 %% on "
		        "synthetic 3-4-s steps) and step_s are uncertain", g.dt, out->step_s, WC_FT_EDGE_SAMPLES_PER_STEP);
	else if (!per_step)
		wc__ft_sampled_warn(&g, in, logged_steps > 0 && isfinite(median) ? median : out->step_s, out);
	wc__ft_cross_checks(&g, in, out);
done:
	wc__ft_grid_free(&g);
	return rc;
}

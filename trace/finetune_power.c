/*
 * Whether a fine-tuning trace's power readings are means over a window
 * (docs/finetune.md, "Averaged power"), and what the messages advise when
 * a trace does not resolve the steps: power.draw.average is a 1-s mean on
 * every GPU, and so is power.draw on the boards whose driver averages it
 * (models/catalog.h, wc_platform_power_draw_averaged). Reading such a
 * power.draw as instantaneous counted an 8 x H100 LoRA run's energy per
 * step 10 % high without a word.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/nvsmi.h"
#include "models/warnings.h"
#include "models/catalog.h"

double
wc__ft_power_averaged(const char *column, const char *dir, const char *platform, char *what, size_t cap)
{
	char power_path[1024];
	what[0] = '\0';
	if (strcmp(column, "power.draw.average") == 0) {
		snprintf(what, cap, "%s", column);
		return WC_FT_AVERAGE_WINDOW_S;
	}
	if (strcmp(column, "power.draw") != 0)
		return 0.0;
	/* The board the driver names in the log, else the run's platform: the
	 * log is what was measured (a manifest may be copied from another run). */
	char name[64];
	snprintf(power_path, sizeof power_path, "%s/power.csv", dir);
	const wc_platform_info *pi = wc_nvsmi_product_name(power_path, name, sizeof name) == WC_OK
	                             ? wc_platform_lookup(name) : NULL;
	if (!pi)
		pi = wc_platform_board(platform, NULL);
	if (!wc_platform_power_draw_averaged(pi))
		return 0.0;
	snprintf(what, cap, "%s's power.draw", pi->name);
	return WC_FT_AVERAGE_WINDOW_S;
}

const char *
wc__ft_averaged_what(const wc_ft_steps_info *in)
{
	return in->averaged_what[0] ? in->averaged_what : "power.draw.average";
}

const char *
wc__ft_faster_advice(const wc_ft_steps_info *in, double dt, char *buf, size_t cap)
{
	/* Averaged readings smear short steps at any cadence: logging faster
	 * does not resolve them, the instantaneous column does. */
	if (in->averaged_s > 0)
		snprintf(buf, cap, "log power.draw.instant every 100 ms, not a %.0f-s mean, or ", in->averaged_s);
	/* A count at this cadence is no equal remedy: its samples may fall
	 * at one phase of every step (wc__ft_sampled_warn). */
	else if (dt > WC_FT_FAST_LOG_TOL * WC_FT_FAST_LOG_S)
		snprintf(buf, cap, "log power every 100 ms (nvidia-smi -lms 100), or, less exactly, ");
	else
		buf[0] = '\0';
	return buf;
}

const char *
wc__ft_step_times_remedy(const wc_ft_steps_info *in)
{
	/* A steps.csv that holds only its header is no step log; asking for
	 * one as if none were given left the reader to find why (telemetry
	 * docs: "the row says so", and so does a refusal). */
	return in->log_no_steps ? "give step rows (the steps.csv holds none), trainer_state.json or finetune.steps"
	                        : "give steps.csv, trainer_state.json or finetune.steps";
}

/* A bin left out of the steps as a pause: found (near-idle or
 * intermediate), logged, or a step row's unlogged excess. */
static int
pause_bin(unsigned char m)
{
	return m == FT_SAVE || m == FT_MIDLEVEL || m == FT_LOGGED || m == FT_UNLOGGED;
}

/* The smear's error in the row's energy per step, in percent: *lo,
 * *hi over the run, *all_lo, *all_hi were every step beside a pause.
 * With step times from a step log the steps' ends are true times, and a
 * mean over the last w s weighs the power at u by the share of [u, u + w]
 * inside a step: the steps before a pause lose at most w/2 s of training
 * power past it, those after it take in at most w/2 s of the pause's (a
 * pause draws no more than training), the run's two ends alike. So the
 * run is within +-(pauses + 1) w / (2 N L) of N steps of L s, and a step
 * between two pauses within +-w/(2L), or +-(1 - L/(2w)) when L < w (it
 * keeps L^2/(2w) of its L). The bound holds for steps of steady power; it
 * said -17 to +37 % where 1-s means of 1.0-s steps with a save after each
 * read -26.5 % (docs/finetune.md, "Averaged power"). Where the trace
 * places the pauses (a stated count) their ends are found on the ramp,
 * and the bound is the one measured on such runs with a save after every
 * step, in proportion to the steps beside a pause (`share`). */
static void
smear_bounds(const wc_ft_steps_info *in, const wc_ft_steps_result *out, double pauses, double share, double *lo,
             double *hi, double *all_lo, double *all_hi)
{
	if (strcmp(out->step_source, "step_log") != 0) {
		*all_lo = -17.0;
		*all_hi = 37.0;
		*lo = *all_lo * share;
		*hi = *all_hi * share;
		return;
	}
	double w = in->averaged_s, L = out->step_s;
	*all_hi = 100.0 * (L >= w ? w / (2.0 * L) : 1.0 - L / (2.0 * w));
	*hi = out->steps > 0 ? fmin(*all_hi, 100.0 * (pauses + 1.0) * w / (2.0 * out->steps * L)) : *all_hi;
	*all_lo = -*all_hi;
	*lo = -*hi;
}

/* A mean over the last w s carries a step's power w s into the pause
 * after it and the pause's w s into the step after: only the steps next
 * to a pause read wrong. A run whose pauses are rare reads the bound
 * (smear_bounds) in proportion to its steps next to one (8xH100 runs
 * saving every 100 steps: -0.09 %, +0.03 %, -0.06 %), and the warning
 * said the worst case on all of them (docs/finetune.md, "Averaged power"). */
void
wc__ft_averaged_warn(const ft_grid *g, const wc_ft_steps_info *in, int recurring, wc_ft_steps_result *out)
{
	if (!(in->averaged_s > 0 && out->step_s < WC_FT_AVERAGE_MIN_WINDOWS * in->averaged_s))
		return;
	double pauses = recurring;
	for (size_t k = g->k0; k < g->k1; k++)
		pauses += pause_bin(g->mark[k]) && !(k > g->k0 && pause_bin(g->mark[k - 1]));
	/* a step on each side of each pause, more when steps are shorter
	 * than the window */
	double near = fmin(out->steps, 2.0 * pauses * ceil(in->averaged_s / out->step_s));
	/* no step beside a pause: nothing smeared, nothing to say (it said
	 * "smears the 0 of 130 steps ... -0.0 to +0.0 %") */
	if (near <= 0.0 && out->steps > 0)
		return;
	double share = out->steps > 0 ? near / out->steps : 1.0, lo, hi, all_lo, all_hi;
	smear_bounds(in, out, pauses, share, &lo, &hi, &all_lo, &all_hi);
	/* the step the row uses, and the trace's period when it differs
	 * beyond what the period is known to (a stated count off); a step
	 * log's times are the steps, whatever the trace's period */
	char by[64] = "", all[48] = "";
	if (strcmp(out->step_source, "step_log") != 0 && out->period_clear && isfinite(out->period_s) &&
	    fabs(out->period_s / out->step_s - 1.0) > g->dt / out->period_s)
		snprintf(by, sizeof by, " (by the count; %.2f s by the period)", out->period_s);
	if (share < 1.0)
		snprintf(all, sizeof all, " (%+.0f to %+.0f %% if all are)", all_lo, all_hi);
	/* the remedy first: ingest cuts the line at 255 bytes after the
	 * run's folder, and "l..." was left of it */
	WC_WARN(out, "power: log power.draw.instant every 100 ms; %s (a %.0f-s mean) smears the %.0f of %.0f steps (%.1f %%) beside "
	        "a pause, of %.2f s%s: %+.1f to %+.1f %% per step%s", wc__ft_averaged_what(in), in->averaged_s, near,
	        out->steps, 100.0 * share, out->step_s, by, lo, hi, all);
}

/* Instantaneous readings are point samples: a step of two power levels
 * dP apart is charged dP (d - d') of energy by the trapezoid, d and d' its
 * two level changes' offsets past the sample before them, each under the
 * spacing dt. When every step falls at the same offset (steps a whole
 * number of samples long, steady to well under a sample) the error is the
 * same in every step and does not average out: 1-s samples of 2-s steps
 * (1.6 s at 650 W, 0.4 s at 420 W) read -11 to +8 % energy per step by
 * the phase they fell at, with a step count and with a steps.csv alike,
 * where 1-s averaged power read +0.3 %. The trace cannot show that phase:
 * samples that always fall in a step's high part see no low part. So the
 * bound takes the widest swing a step can have, from the trace's low level
 * to its training level: the row is within +-(train - low) / P dt / L of
 * steps L s long at mean power P (docs/finetune.md, "Instantaneous
 * samples"), said when it passes WC_FT_SAMPLED_MAX_ERR. At 100 ms steps
 * are not steady to well under a sample, and logging faster is no remedy
 * (WC_FT_FAST_LOG_S). */
void
wc__ft_sampled_warn(const ft_grid *g, const wc_ft_steps_info *in, double step_s, wc_ft_steps_result *out)
{
	if (in->averaged_s > 0 || !(step_s > 0) || !(out->active_s > 0) || g->dt <= WC_FT_FAST_LOG_TOL * WC_FT_FAST_LOG_S)
		return;
	const double mean = out->active_energy_j / out->active_s, swing = g->train_w - g->idle_w;
	const double bound = swing / mean * g->dt / step_s;
	if (!(bound > WC_FT_SAMPLED_MAX_ERR))
		return;
	/* the remedy first: ingest cuts the line at 255 bytes after the
	 * run's folder */
	WC_WARN(out, "power: log every 100 ms (nvidia-smi -lms 100); instantaneous samples every %.3f s of %.2f-s steps "
	        "may fall at the same phase of every step: energy per step within +-%.1f %% (%.0f to %.0f W, mean "
	        "%.0f W)", g->dt, step_s, 100.0 * bound, g->idle_w, g->train_w, mean);
}

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
		snprintf(buf, cap, "log power.draw.instant (%s is a %.0f-s mean) or ", wc__ft_averaged_what(in),
		         in->averaged_s);
	else if (dt > WC_FT_FAST_LOG_TOL * WC_FT_FAST_LOG_S)
		snprintf(buf, cap, "log power faster (nvidia-smi -lms 100) or ");
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

/* A mean over the last w s carries a step's power w s into the pause
 * after it and the pause's w s into the step after: only the steps next
 * to a pause read wrong. With a pause after every step that was -17 to
 * +37 % per step on synthetic runs; a run whose pauses are rare reads
 * that in proportion to its steps next to one (8xH100 runs saving every
 * 100 steps: -0.09 %, +0.03 %, -0.06 %), and the warning said the worst
 * case on all of them (docs/finetune.md, "Averaged power"). */
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
	double share = out->steps > 0 ? near / out->steps : 1.0;
	/* the step the row uses, and the trace's period when it differs
	 * beyond what the period is known to (a stated count off) */
	char by[64] = "";
	if (out->period_clear && isfinite(out->period_s) && fabs(out->period_s / out->step_s - 1.0) > g->dt / out->period_s)
		snprintf(by, sizeof by, " (by the count; %.2f s by the period)", out->period_s);
	/* the remedy first: ingest cuts the line at 255 bytes after the
	 * run's folder, and "l..." was left of it */
	WC_WARN(out, "power: log power.draw.instant; %s (a %.0f-s mean) smears the %.0f of %.0f steps (%.1f %%) beside "
	        "a pause, of %.2f s%s: %+.1f to %+.1f %% per step%s", wc__ft_averaged_what(in), in->averaged_s, near,
	        out->steps, 100.0 * share, out->step_s, by, -17.0 * share, 37.0 * share,
	        share < 1.0 ? " (-17 to +37 % if all are)" : "");
}

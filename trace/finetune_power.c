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

#include <stdio.h>
#include <string.h>

#include "data/nvsmi.h"
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

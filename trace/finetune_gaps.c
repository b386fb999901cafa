/*
 * Gaps of the power log inside a fine-tuning trace's window, without step
 * times (docs/finetune.md, "Window"). The gap rule is the reader's
 * (data/nvsmi_gaps.c, docs/formats/telemetry.md "Time gaps"); the grid
 * marks their bins FT_GAP (finetune_grid.c), so the straight line across
 * a gap is neither training energy nor a pause found in the trace. With
 * step times the steps overlapping a gap are left out by their times
 * (finetune_steps.c); here only a stated count (trainer_state, manifest)
 * may hold steps run in a gap, and only a gap between training power on
 * both sides -- the logger stopped while the job ran -- is taken to hold
 * any: a requeued job's restart (training power before, the next
 * session's model loading after) ran none.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/warnings.h"

int
wc__ft_gap_trained(const ft_grid *g, size_t a, size_t b)
{
	/* the bins beside it hold the last reading before it and the first
	 * after */
	int before = a > g->k0 && (g->flat || g->x[a - 1] > g->theta);
	int after = b < g->k1 && (g->flat || g->x[b] > g->theta);
	return before && after;
}

double
wc__ft_gap_steps(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out)
{
	int n = 0;
	double gap_s = 0.0, train_s = 0.0;
	size_t k = g->k0, a;
	while (wc__ft_next_run(g, FT_GAP, &k, &a)) {
		double len = (double)(k - a) * g->dt;
		n++;
		gap_s += len;
		train_s += wc__ft_gap_trained(g, a, k) ? len : 0.0;
	}
	if (n == 0)
		return 0.0;
	/* each under WC_WARNING_LEN, numbers whole */
	char head[96];
	snprintf(head, sizeof head, "power.csv: %d gap%s (%.0f s of the %.0f-s window) left out: no measured power", n,
	         n == 1 ? "" : "s", gap_s, out->window_s);
	const char *src = in->steps_source ? in->steps_source : "manifest", *it = n == 1 ? "it" : "them";
	double steps = 0.0;
	if (!isfinite(in->steps))
		WC_WARN(out, "%s; the steps are counted from the trace around %s", head, it);
	else if (train_s == 0.0)
		WC_WARN(out, "%s; none between training power on both sides (a stop or restart): no step of the %s count "
		        "is taken to have run in %s", head, src, it);
	else if (out->period_clear && out->period_s > 0) {
		steps = fmin(floor(train_s / out->period_s + 0.5), in->steps - 1.0);
		WC_WARN(out, "%s; give steps.csv: %.0f s between training power held %.0f steps at the %.3f-s period "
		        "(fewer if saves or evaluations fell there), taken out of the %s count of %.0f", head,
		        train_s, steps, out->period_s, src, in->steps);
	} else
		WC_WARN(out, "%s; give steps.csv: steps run in %.0f s of %s between training power are in the %s count, "
		        "not their energy (energy per step low by up to %.0f %%)", head, train_s, it, src,
		        100.0 * train_s / (out->active_s + train_s));
	return steps > 0.0 ? steps : 0.0;
}

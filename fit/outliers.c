/*
 * Runs far off the fitted law, named (docs/fitting.md, "Runs far off the
 * law"). One row with a unit slip (0.01 running for 16, a node's power for
 * a GPU's) moves every parameter of a least-squares fit and raises its RMS
 * tenfold, and nothing said which row. The rule is scale-free: a run whose
 * log residual lies more than WC_FIT_OUTLIER_SDS robust standard deviations
 * (1.4826 x the median absolute deviation) from the median, and more than
 * WC_FIT_OUTLIER_MIN_LOG off in log power, is named; the fit is not
 * changed (mark the run `exclude` to leave it out).
 */
#include "fit_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/stats.h"
#include "models/warnings.h"

/* 6 SDs: a normal sample of 10 000 runs reaches it with probability 2e-5. */
#define WC_FIT_OUTLIER_SDS 6.0
/* Never below 20 % in power, whatever the scatter of a near-exact table. */
#define WC_FIT_OUTLIER_MIN_LOG 0.2
#define WC_FIT_OUTLIER_NAMED 3

void
wc__fit_warn_outliers(const wc_runs_table *t, wc_fit_result *out)
{
	size_t n = 0;
	double *v = malloc((t->n_runs + 1) * sizeof *v);
	if (!v)
		return;
	for (size_t i = 0; i < t->n_runs; i++)
		if (isfinite(out->residuals[i]))
			v[n++] = out->residuals[i];
	if (n < 8) { /* too few for a scale */
		free(v);
		return;
	}
	double med = wc_stats_median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	double s = WC_STATS_MAD_TO_SD * wc_stats_median(v, n);
	free(v);
	double cut = fmax(WC_FIT_OUTLIER_SDS * s, WC_FIT_OUTLIER_MIN_LOG);
	size_t worst[WC_FIT_OUTLIER_NAMED], k = 0, over = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		double d = fabs(out->residuals[i] - med);
		if (!(d > cut))
			continue;
		over++;
		/* keep the WC_FIT_OUTLIER_NAMED largest, largest first */
		size_t j;
		if (k < WC_FIT_OUTLIER_NAMED)
			j = k++;
		else if (d > fabs(out->residuals[worst[k - 1]] - med))
			j = k - 1;
		else
			continue;
		for (; j > 0 && fabs(out->residuals[worst[j - 1]] - med) < d; j--)
			worst[j] = worst[j - 1];
		worst[j] = i;
	}
	if (over == 0)
		return;
	/* Each run named whole, or not at all: the list was cut to half a
	 * warning, mid-name ("... (a factor"), and the warning cut at 255
	 * bytes again (docs/fitting.md, "Runs far off the law"). The runs
	 * that do not fit are counted ("and 2 more"). */
	char head[WC_WARNING_LEN], list[WC_WARNING_LEN] = "", more[32] = "";
	int n_head = snprintf(head, sizeof head, "%zu run%s far off the fitted law (beyond %.0f robust SDs, s = %.3g "
	                      "in log power; check running, idle and power, or mark exclude; docs/fitting.md): ",
	                      over, over == 1 ? "" : "s", WC_FIT_OUTLIER_SDS, s);
	size_t used = 0, named = 0, room = WC_WARNING_LEN - 1 - (size_t)(n_head > 0 ? n_head : 0);
	for (size_t j = 0; j < k; j++) {
		/* %.3g: the factor is bounded in width (a row at 1e-300 running
		 * was off by exp(690), 300 digits in %.2f, and no run was named) */
		char one[160];
		int w = snprintf(one, sizeof one, "%s%.100s (a factor %.3g)", j ? ", " : "", t->runs[worst[j]].run_id,
		                 exp(fabs(out->residuals[worst[j]] - med)));
		/* room kept for ", and N more" unless this is the last one */
		size_t tail = j + 1 < over ? sizeof ", and 99999 more" - 1 : 0;
		if (w < 0 || (size_t)w >= sizeof one || used + (size_t)w + tail > room)
			break;
		memcpy(list + used, one, (size_t)w + 1);
		used += (size_t)w;
		named++;
	}
	if (named < over)
		snprintf(more, sizeof more, "%sand %zu more", named ? ", " : "", over - named);
	WC_WARN(out, "%s%s%s", head, list, more);
}

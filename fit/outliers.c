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
	char list[WC_WARNING_LEN / 2] = "";
	size_t used = 0;
	for (size_t j = 0; j < k && used < sizeof list; j++) {
		double r = out->residuals[worst[j]];
		int w = snprintf(list + used, sizeof list - used, "%s%.100s (a factor %.2f)", j ? ", " : "",
		                 t->runs[worst[j]].run_id, exp(fabs(r - med)));
		if (w < 0)
			break;
		used += (size_t)w;
	}
	WC_WARN(out, "%zu run%s far off the fitted law (beyond %.0f robust SDs, s = %.3g in log power; check "
	        "the running count, idle and power, or mark exclude; docs/fitting.md): %s%s", over,
	        over == 1 ? "" : "s", WC_FIT_OUTLIER_SDS, s, list, over > k ? ", ..." : "");
}

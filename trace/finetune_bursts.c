/*
 * The bursts of a fine-tuning trace without step times (docs/finetune.md,
 * "Counting steps"): the active stretches between pauses. With a save
 * after every step each burst is one step, and the leading ones -- the
 * warm-up, several times as long -- are left out by the rule a step log's
 * steps get: longer than twice the median, at most a quarter of them.
 * Judged on all bursts, three warm-up bursts of 3.8 s among 1.3-s steps
 * made the lengths vary by more than 25 % and the run was refused ("no
 * step period in the trace").
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Walk the bursts of the window: their lengths into `len` (may be NULL),
 * and the first `mark` of them marked as warm-up. Returns how many. */
static size_t
walk(ft_grid *g, double *len, size_t mark)
{
	size_t n = 0, k = g->k0, a;
	while (wc__ft_next_run(g, FT_ACTIVE, &k, &a)) {
		if (len)
			len[n] = (double)(k - a) * g->dt;
		if (n < mark)
			memset(g->mark + a, FT_WARMUP, k - a);
		n++;
	}
	return n;
}

int
wc__ft_bursts(ft_grid *g, double period, ft_bursts *b, wc_error *err)
{
	double *len = wc_alloc_array(g->k1 > g->k0 ? g->k1 - g->k0 : 1, sizeof *len);
	memset(b, 0, sizeof *b);
	b->median_s = b->spread = NAN;
	if (!len)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	b->n = walk(g, len, 0);
	if (b->n >= 3) {
		double *sorted = wc_alloc_array(b->n, sizeof *sorted);
		if (!sorted) {
			free(len);
			return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		}
		memcpy(sorted, len, b->n * sizeof *sorted);
		double all = wc_stats_median(sorted, b->n);
		free(sorted);
		while (b->warm < b->n / 4 && len[b->warm] > 2.0 * all)
			b->warm++;
		size_t m = b->n - b->warm;
		const double *rest = len + b->warm;
		if (m >= 3) {
			double mean = gsl_stats_mean(rest, 1, m), sd = gsl_stats_sd(rest, 1, m);
			memmove(len, rest, m * sizeof *len);
			b->median_s = wc_stats_median(len, m);
			b->spread = sd / mean;
			b->regular = b->spread < 0.25 && b->median_s <= WC_FT_BURST_MAX_S &&
			             (!isfinite(period) || b->median_s < 1.5 * period);
		}
	}
	free(len);
	return WC_OK;
}

void
wc__ft_bursts_mark_warmup(ft_grid *g, const ft_bursts *b)
{
	if (b->warm > 0)
		walk(g, NULL, b->warm);
}

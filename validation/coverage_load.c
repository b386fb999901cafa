/*
 * Coverage of held-out 95 % intervals by load (docs/intervals.md, "Coverage
 * by load"). The quantile is one number for every load, so its 95 % holds
 * pooled over the loads of the runs it was taken from; where the misses
 * are larger at some loads (light ones: a law fitted mostly on busy runs),
 * the interval covers fewer there and more elsewhere. The report shows it
 * rather than let the pooled share stand for every load.
 */
#include "validation_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double running, rel_width;
	int in;
} banded;

static int
by_running(const void *a, const void *b)
{
	double x = ((const banded *)a)->running, y = ((const banded *)b)->running;
	return (x > y) - (x < y);
}

/* The row's running count: a number, else NaN (fine-tuning rows have none). */
static double
row_running(const wc_per_run_row *r)
{
	const char *s = wc_per_run_row_get(r, "running");
	char *end;
	double v = strtod(s, &end);
	return s[0] && !*end && isfinite(v) && v > 0.0 ? v : NAN;
}

int
wc__coverage_by_load(const wc_per_run *rows, const char *quantity, wc_heldout_report *out, wc_error *err)
{
	out->n_load_bands = 0;
	banded *b = wc_alloc_array(rows->n ? rows->n : 1, sizeof *b);
	double *w = wc_alloc_array(rows->n ? rows->n : 1, sizeof *w);
	if (!b || !w) {
		free(b);
		free(w);
		return wc_error_set(err, WC_ENOMEM, "coverage by load: out of memory");
	}
	size_t m = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const wc_per_run_row *r = &rows->rows[i];
		double n = row_running(r);
		if (isnan(n) || !wc__coverage_row(r, quantity, &b[m].rel_width, &b[m].in))
			continue;
		b[m++].running = n;
	}
	size_t k = m / WC_LOAD_BAND_MIN_ROWS;
	if (k > WC_LOAD_BANDS)
		k = WC_LOAD_BANDS;
	qsort(b, m, sizeof *b, by_running);
	/* Band j ends at the (j + 1)/k quantile's row while the rows left hold
	 * the bands left at WC_LOAD_BAND_MIN_ROWS each; else the rows left are
	 * shared equally by as many bands as they can fill. A load is never
	 * split between two bands: a cut inside rows of one load moves before
	 * them when the band keeps its minimum, else after them, and a band
	 * that would leave fewer than the minimum behind takes the rest. So no
	 * band holds fewer than the minimum (a cut that moved past a tied load
	 * once left the next band 19 rows; docs/intervals.md, "Coverage by
	 * load"). */
	for (size_t j = 0, lo = 0; k >= 2 && j < k && lo < m; j++) {
		size_t left = k - j, fill = (m - lo) / WC_LOAD_BAND_MIN_ROWS;
		if (fill < left)
			left = fill;
		if (left == 0) /* fewer than the minimum left: the band before took them */
			break;
		size_t hi = left == 1 ? m : (j + 1) * m / k;
		if (left < k - j || hi < lo + WC_LOAD_BAND_MIN_ROWS || m - hi < (left - 1) * WC_LOAD_BAND_MIN_ROWS)
			hi = lo + (m - lo) / left;
		if (left == 1)
			hi = m;
		if (hi < m && b[hi - 1].running == b[hi].running) {
			size_t s = hi - 1; /* the first row of the load the cut falls in */
			while (s > lo && b[s - 1].running == b[s].running)
				s--;
			if (s >= lo + WC_LOAD_BAND_MIN_ROWS)
				hi = s;
			else
				while (hi < m && b[hi].running == b[hi - 1].running)
					hi++;
		}
		if (m - hi < WC_LOAD_BAND_MIN_ROWS)
			hi = m;
		wc_load_band *x = &out->load_bands[out->n_load_bands++];
		int in = 0;
		for (size_t i = lo; i < hi; i++) {
			in += b[i].in;
			w[i - lo] = b[i].rel_width;
		}
		x->running_lo = b[lo].running;
		x->running_hi = b[hi - 1].running;
		x->n_interval = (int)(hi - lo);
		x->coverage_95 = (double)in / (double)(hi - lo);
		x->median_rel_width = wc_stats_median(w, hi - lo);
		lo = hi;
	}
	if (out->n_load_bands < 2)
		out->n_load_bands = 0;
	free(b);
	free(w);
	return WC_OK;
}

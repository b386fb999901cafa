/*
 * The step period of a fine-tuning trace and its stretches of
 * intermediate power (docs/finetune.md, "Measuring energy per step").
 *
 * The period is the dominant autocorrelation period (the `period_s`
 * machinery of docs/trace-metrics.md) of the active bins, pauses cut out.
 * With gradient accumulation a trace can repeat at every micro-step and
 * exactly only at every optimizer step: a multiple of the period whose
 * autocorrelation peak is clearly higher (by PERIOD_MULTIPLE_GAIN) is
 * taken instead -- a plain periodic trace never has one, its peaks only
 * decay with the lag. The peaks are compared at the same distance from
 * their tops, so that where the integer lags happen to fall does not
 * decide. Where the step is narrower than a lag at its top the samples
 * themselves decide, folded at the period's divisors (fundamental()).
 */
#include "finetune_trace_internal.h"
#include "models/grow.h"
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/metrics.h"

#define PERIOD_MULTIPLE_GAIN 0.05
#define PERIOD_MULTIPLE_MAX 8
/* Cycles of the period per fold window: enough for steps out of step to
 * show, few enough to bound the search's work. */
#define FOLD_CYCLES 16.0

/* The lag of the highest autocorrelation within 10 % of lag `k` (0 when
 * none is finite). */
static size_t
peak_lag_near(const double *acf, size_t max_lag, double k)
{
	size_t a = (size_t)floor(0.9 * k), b = (size_t)ceil(1.1 * k), best = 0;
	for (size_t j = a < 1 ? 1 : a; j <= b && j <= max_lag; j++)
		if (isfinite(acf[j]) && (best == 0 || acf[j] > acf[best]))
			best = j;
	return best;
}

/* Is bin k within `margin` bins of one that is not active? */
static int
near_pause(const ft_grid *g, size_t k, size_t margin)
{
	size_t a = k > g->k0 + margin ? k - margin : g->k0, b = k + margin + 1 < g->k1 ? k + margin + 1 : g->k1;
	for (size_t j = a; j < b; j++)
		if (g->mark[j] != FT_ACTIVE)
			return 1;
	return 0;
}

/* The values of the bins to analyse, packed. With `active_only`, the
 * half second next to every pause is left out too: its bins are partly
 * pause, and at every junction of the concatenated stretches they would
 * make a period of their own -- the saves' spacing. */
static double *
gather(const ft_grid *g, int active_only, size_t *len)
{
	double *v = wc_alloc_array(g->k1 > g->k0 ? g->k1 - g->k0 : 1, sizeof *v);
	size_t margin = (size_t)ceil(0.5 / g->dt);
	*len = 0;
	for (size_t k = g->k0; v && k < g->k1; k++)
		if (!active_only || (g->mark[k] == FT_ACTIVE && !near_pause(g, k, margin)))
			v[(*len)++] = g->x[k];
	return v;
}

/* A sample's phase in the fold and its value, for sorting. */
typedef struct {
	double phase, x;
} folded;

static int
by_phase(const void *a, const void *b)
{
	double p = ((const folded *)a)->phase, q = ((const folded *)b)->phase;
	return (p > q) - (p < q);
}

/* Is bin k one the period is measured on (gather's choice)? */
static int
included(const ft_grid *g, int active_only, size_t k, size_t margin)
{
	return !active_only || (g->mark[k] == FT_ACTIVE && !near_pause(g, k, margin));
}

/* The string length of the `n` samples of `buf` folded at `p` bins:
 * sorted by phase, the sizes of the steps between neighbours summed (a
 * rise costs its height however many samples it is drawn over). */
static double
string_length(folded *buf, size_t n, double p)
{
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		double ph = (double)i / p;
		buf[i].phase = ph - floor(ph);
	}
	qsort(buf, n, sizeof *buf, by_phase);
	for (size_t i = 1; i < n; i++)
		sum += fabs(buf[i].x - buf[i - 1].x);
	return sum;
}

/* The string length of the trace folded at `p` bins, summed over windows
 * of at most FOLD_CYCLES cycles of `q` bins and at least two (every phase
 * seen twice). Windows never cross a pause, which resets the steps'
 * phase. */
static double
fold_length(const ft_grid *g, int active_only, double p, double q, folded *buf)
{
	size_t margin = (size_t)ceil(0.5 / g->dt), w = (size_t)ceil(FOLD_CYCLES * q), n = 0;
	double sum = 0.0;
	for (size_t k = g->k0; k <= g->k1; k++) {
		int in = k < g->k1 && included(g, active_only, k, margin);
		if (in)
			buf[n++].x = g->x[k];
		if ((!in || n == w) && n > 0) {
			if ((double)n >= 2.0 * q)
				sum += string_length(buf, n, p);
			n = 0;
		}
	}
	return sum;
}

/* The shortest string of the trace folded at a j-th of a period within
 * half a bin of `q0` bins (the autocorrelation's parabola places it that
 * well), and in *at the period that gives it. The fold at a j-th is j
 * times as sensitive to the period as the fold at it, so it is searched in
 * steps of 1 / (4 FOLD_CYCLES j) bin: over a window a sample moves by a
 * quarter of a bin of its phase at most from one step to the next. */
static double
sharpest(const ft_grid *g, int active_only, double q0, int j, folded *buf, double *at)
{
	double best = INFINITY, h = 1.0 / (4.0 * FOLD_CYCLES * j);
	*at = q0;
	for (double x = q0 - 0.5; x <= q0 + 0.5 + 0.5 * h; x += h) {
		double s = fold_length(g, active_only, x / j, x, buf);
		if (s < best) {
			best = s;
			*at = x;
		}
	}
	return best;
}

/* How far `x` lags lie from a whole lag. */
static double
off_lag(double x)
{
	return fabs(x - round(x));
}

/* Does the autocorrelation peak at a lag beside `p`: does the trace repeat
 * there at all? */
static int
peak_beside(const double *acf, size_t max_lag, double p)
{
	for (size_t k = (size_t)floor(p); k <= (size_t)ceil(p) && k + 1 <= max_lag; k++)
		if (k >= 1 && acf[k] > acf[k - 1] && acf[k] >= acf[k + 1])
			return 1;
	return 0;
}

/* The fundamental period of a trace that repeats every `*q` bins
 * (docs/finetune.md, "Counting steps"): returns the divisor j, and *q
 * placed where the fold is sharpest. Point samples of steps that are not
 * a whole number of samples long repeat exactly only every few steps (6.2
 * samples: every 31), and that multiple's whole lag out-reads the step's
 * own, whose peak falls between lags. Folded at the step, the samples
 * trace one step's shape, one rise and one fall; folded at the multiple,
 * several; folded at any other divisor they are shuffled, or mixed --
 * micro-steps with the optimizer phase among them, out of step with one
 * another a little more every cycle. The fold that traces the shortest
 * string is the period. 0 when out of memory. */
static int
fundamental(const ft_grid *g, int active_only, const double *acf, size_t max_lag, double *q, int only)
{
	folded *buf = wc_alloc_array((size_t)ceil(FOLD_CYCLES * (*q + 0.5)) + 1, sizeof *buf);
	if (!buf)
		return 0;
	double q0 = *q, best = NAN;
	int pick = 1;
	for (int j = 2; !(best <= 0); j++) {
		double p = q0 / j, at;
		if (p * g->dt < WC_TRACE_PERIOD_MIN_S || p < WC_FT_MIN_SAMPLES_PER_STEP)
			break;
		if (only && j > only)
			break;
		if ((only && j != only) || !peak_beside(acf, max_lag, p) || off_lag(p) <= off_lag(q0))
			continue;
		if (isnan(best))
			best = sharpest(g, active_only, q0, 1, buf, q);
		double s = sharpest(g, active_only, q0, j, buf, &at);
		if (s < best) {
			best = s;
			pick = j;
			*q = at;
		}
	}
	free(buf);
	return pick;
}

int
wc__ft_period(const ft_grid *g, int active_only, double *out, double *strength, wc_error *err)
{
	size_t len;
	double *v = gather(g, active_only, &len);
	int rc;
	*out = NAN;
	if (strength)
		*strength = NAN;
	if (!v)
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	if ((rc = wc_trace_dominant_period(v, len, g->dt, WC_TRACE_PERIOD_MIN_S, WC_TRACE_PERIOD_MAX_S, out,
	                                   err)) != WC_OK || !isfinite(*out)) {
		free(v);
		return rc;
	}
	double k = *out / g->dt;
	size_t max_lag = (size_t)fmin(ceil(1.1 * PERIOD_MULTIPLE_MAX * k), fmin(WC_TRACE_PERIOD_MAX_S / g->dt, len / 2));
	double *acf = wc_alloc_array(max_lag + 1, sizeof *acf);
	if (!acf) {
		free(v);
		return wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	}
	if ((rc = wc_trace_autocorrelation(v, len, max_lag, acf, err)) == WC_OK) {
		/* A multiple is read at the same distance from its top as the
		 * period's own reading is from the period's top: a period of
		 * 15.5 samples is read half a lag off its top, its double of 31
		 * on it, and that alone made the double higher (by 0.09, 80
		 * steps counted for 160). docs/finetune.md, "Counting steps". */
		size_t m = peak_lag_near(acf, max_lag, k);
		double base = m ? acf[m] : NAN, off = -wc_trace_peak_shift(acf, max_lag, m);
		double best = base + PERIOD_MULTIPLE_GAIN, top = base, q = k;
		int pick = 1, div = fundamental(g, active_only, acf, max_lag, &q, 0);
		for (int j = 2; div == 1 && m && j <= PERIOD_MULTIPLE_MAX && 1.1 * j * k <= (double)max_lag; j++) {
			size_t mj = peak_lag_near(acf, max_lag, j * k);
			double r = mj ? wc_trace_peak_read(acf, max_lag, mj, off) : NAN;
			if (r > best) {
				best = r;
				top = acf[mj];
				pick = j;
			}
		}
		/* The multiple against the period itself, when the sampling
		 * could explain its lead: it lies nearer a whole lag. */
		if (pick > 1) {
			q = pick * k;
			if ((div = fundamental(g, active_only, acf, max_lag, &q, pick)) == pick) {
				pick = 1;
				top = base;
			}
		}
		if (div == 0)
			rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		*out = div > 1 ? q * g->dt / div : *out * pick;
		if (strength)
			*strength = top;
	}
	free(acf);
	free(v);
	return rc;
}

/* Mean of the active bins within `h` bins of each bin (NaN with fewer
 * than h active bins around it). */
static void
rolling_mean(const ft_grid *g, size_t h, double *m, double *sum, size_t *cnt)
{
	sum[0] = 0.0;
	cnt[0] = 0;
	for (size_t k = 0; k < g->nb; k++) {
		int on = g->mark[k] == FT_ACTIVE;
		sum[k + 1] = sum[k] + (on ? g->x[k] : 0.0);
		cnt[k + 1] = cnt[k] + (size_t)on;
	}
	for (size_t k = 0; k < g->nb; k++) {
		size_t a = k > h ? k - h : 0, b = k + h + 1 < g->nb ? k + h + 1 : g->nb;
		size_t c = cnt[b] - cnt[a];
		m[k] = c >= h ? (sum[b] - sum[a]) / (double)c : NAN;
	}
}

/* The typical smoothed training level: the median over the active bins. */
static double
reference_level(const ft_grid *g, const double *m, double *scratch)
{
	size_t len = 0;
	for (size_t k = g->k0; k < g->k1; k++)
		if (g->mark[k] == FT_ACTIVE && isfinite(m[k]))
			scratch[len++] = m[k];
	return wc_stats_median(scratch, len);
}

int
wc__ft_mark_midlevel(ft_grid *g, double width_s, double min_s, wc_error *err, int *rc)
{
	size_t h = (size_t)ceil(0.5 * width_s / g->dt), need = (size_t)ceil(min_s / g->dt - 1e-9), count = 0;
	double *m = wc_alloc_array(g->nb, sizeof *m), *sum = wc_alloc_array(g->nb + 1, sizeof *sum);
	double *scratch = wc_alloc_array(g->nb, sizeof *scratch);
	size_t *cnt = wc_alloc_array(g->nb + 1, sizeof *cnt);
	*rc = WC_OK;
	if (!m || !sum || !cnt || !scratch) {
		*rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory");
	} else if (!g->flat) {
		rolling_mean(g, h, m, sum, cnt);
		double ref = reference_level(g, m, scratch);
		/* A quarter of the way from the smoothed training level down to
		 * the low level: clearly not training. */
		double thr = ref - 0.25 * (ref - g->idle_w);
		size_t k = g->k0;
		while (k < g->k1) {
			size_t a = k;
			while (k < g->k1 && g->mark[k] == FT_ACTIVE && m[k] < thr)
				k++;
			if (k - a >= need && k > a) {
				memset(g->mark + a, FT_MIDLEVEL, k - a);
				count++;
			}
			if (k == a)
				k++;
		}
	}
	free(m);
	free(sum);
	free(cnt);
	free(scratch);
	return (int)count;
}

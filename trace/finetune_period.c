/*
 * The step period of a fine-tuning trace (docs/finetune.md, "Measuring
 * energy per step"); its stretches of intermediate power are
 * finetune_midlevel.c's.
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
#include <stdio.h>

#include "models/limits.h"
#include "trace/metrics.h"

#define PERIOD_MULTIPLE_GAIN 0.05

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
 * of at most WC_FT_FOLD_CYCLES cycles of `q` bins and at least two (every phase
 * seen twice). Windows never cross a pause, which resets the steps'
 * phase. */
static double
fold_length(const ft_grid *g, int active_only, double p, double q, folded *buf, double *floor_out)
{
	size_t margin = (size_t)ceil(0.5 / g->dt), w = (size_t)ceil(WC_FT_FOLD_CYCLES * q), n = 0, r = (size_t)llround(q);
	double sum = 0.0;
	for (size_t k = g->k0; k <= g->k1; k++) {
		int in = k < g->k1 && included(g, active_only, k, margin);
		if (in)
			buf[n++].x = g->x[k];
		if ((!in || n == w) && n > 0) {
			if ((double)n >= 2.0 * q && floor_out && n > r && r > 0) {
				/* Samples a whole period apart, where it is a
				 * whole lag, differ by the noise only: their mean
				 * jump, over the window's neighbours, is the
				 * string any fold draws however it is ordered. */
				double d = 0.0;
				for (size_t i = r; i < n; i++)
					d += fabs(buf[i].x - buf[i - r].x);
				*floor_out += d * (double)(n - 1) / (double)(n - r);
			}
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
 * steps of 1 / (4 WC_FT_FOLD_CYCLES j) bin: over a window a sample moves by a
 * quarter of a bin of its phase at most from one step to the next. */
static double
sharpest(const ft_grid *g, int active_only, double q0, int j, folded *buf, double *at)
{
	double best = INFINITY, h = 1.0 / (4.0 * WC_FT_FOLD_CYCLES * j);
	*at = q0;
	for (double x = q0 - 0.5; x <= q0 + 0.5 + 0.5 * h; x += h) {
		double s = fold_length(g, active_only, x / j, x, buf, NULL);
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
 * string is the period. 0 when out of memory.
 *
 * The string cannot tell every divisor apart: mixing a few samples can
 * cost less than the shapes it saves (two micro-steps with the optimizer
 * phase scattered among them drew a shorter string than the step's four
 * and its phase). So when a second divisor also draws a shorter string
 * than the period's own fold, the trace does not decide between the two:
 * note[0] gets the other one's length in bins. A divisor under
 * WC_FT_MIN_SAMPLES_PER_STEP samples is never picked; when it draws the
 * shortest string of all, note[1] gets its length (the steps may be that
 * short, and are then not resolved). Both NaN otherwise. The divisors
 * are searched up to WC_FT_PERIOD_DIVISORS_MAX (a bound on work): note[2]
 * gets the length of the longest one past it that would have been
 * folded, NaN when none was left. */
static int
fundamental(const ft_grid *g, int active_only, const double *acf, size_t max_lag, double *q, int only,
            double note[3])
{
	size_t top = (size_t)floor(*q) + 1;
	folded *buf = wc_alloc_array((size_t)ceil(WC_FT_FOLD_CYCLES * (*q + 0.5)) + 1, sizeof *buf);
	double *str = wc_alloc_array(top + 1, sizeof *str), *ats = wc_alloc_array(top + 1, sizeof *ats);
	note[0] = note[1] = note[2] = NAN;
	if (!buf || !str || !ats) {
		free(buf);
		free(str);
		free(ats);
		return 0;
	}
	double q0 = *q, full = NAN, under = NAN;
	int pick = 1;
	for (size_t j = 0; j <= top; j++)
		str[j] = NAN;
	for (int j = 2; (size_t)j <= top && !(isfinite(str[pick]) && str[pick] <= 0); j++) {
		double p = q0 / j;
		if (p * g->dt < WC_TRACE_PERIOD_MIN_S || p < 1.0 || (only && j > only))
			break;
		/* A step under three samples is too short for the
		 * autocorrelation to peak beside it. */
		if ((only && j != only) || (p >= WC_FT_MIN_SAMPLES_PER_STEP && !peak_beside(acf, max_lag, p)) ||
		    off_lag(p) <= off_lag(q0))
			continue;
		if (j > WC_FT_PERIOD_DIVISORS_MAX) {
			note[2] = p;
			break;
		}
		if (isnan(full))
			str[1] = full = sharpest(g, active_only, q0, 1, buf, &ats[1]);
		double s = sharpest(g, active_only, q0, j, buf, &ats[j]);
		if (p < WC_FT_MIN_SAMPLES_PER_STEP) {
			/* Never counted; said when it draws the shortest
			 * string yet. */
			if (!(s > str[pick]) && isnan(note[1])) {
				note[1] = ats[j] / j;
				under = s;
			}
			continue;
		}
		str[j] = s;
		if (s < str[pick])
			pick = j;
	}
	/* The string at a multiple m of the period draws m of its shapes
	 * over the noise every fold draws: where a multiple's fold that
	 * also beats the full one draws nearer one shape than m, the
	 * divisor's short string came from mixing, not from repeating
	 * (docs/finetune.md, "Counting steps"). */
	double noise = 0.0;
	if (pick > 1)
		fold_length(g, active_only, q0, q0, buf, &noise);
	for (int j = 2; pick > 1 && j < pick; j++) {
		if (!isfinite(str[j]) || (pick % j != 0 && !(str[j] < full)))
			continue;
		double shapes = (str[j] - noise) / (str[pick] - noise), m = (double)(pick / j);
		if (pick % j != 0 || !(str[pick] > noise)) {
			/* Two divisors beat the full fold, and the
			 * samples do not say which repeats. */
			note[0] = ats[j] / j;
		} else if (shapes < 0.5 * (m + 1.0)) {
			note[0] = ats[pick] / pick;
			pick = j;
			break;
		}
	}
	for (int j = pick + 1; pick > 1 && isnan(note[0]) && (size_t)j <= top; j++)
		if (str[j] < full && j % pick != 0)
			note[0] = ats[j] / j;
	if (under > str[pick])
		note[1] = NAN;
	*q = ats[pick];
	free(buf);
	free(str);
	free(ats);
	return pick;
}

/* The whole lag, among the first multiples of a period of `k` lags, where
 * the autocorrelation is highest: where point samples repeat (0 none). */
static size_t
whole_repeat(const double *acf, size_t max_lag, double k)
{
	size_t whole = 0;
	for (int i = 1; i <= WC_FT_PERIOD_MULTIPLE_MAX && i * k <= (double)max_lag; i++) {
		size_t l = (size_t)llround(i * k);
		if (l >= 1 && l <= max_lag && (whole == 0 || acf[l] > acf[whole]))
			whole = l;
	}
	return whole;
}

/* Where the state changes (either side of the middle of the range) going
 * round `r` class means in the order c j mod r. */
static size_t
changes(const double *m, size_t r, size_t j, double mid)
{
	size_t count = 0;
	for (size_t c = 0; c < r; c++)
		count += (m[c * j % r] < mid) != (m[(c + 1) * j % r] < mid);
	return count;
}

size_t
wc__ft_gcd(size_t a, size_t b)
{
	return b ? wc__ft_gcd(b, a % b) : a;
}

/* A step under three samples that draws the same point samples as the
 * trace, in samples (NaN none). The samples of the training window repeat
 * every whole `r`; folded at r / j (j prime to r) they are the same
 * samples in another order, and where that order is as simple as time's
 * -- no more changes between high and low -- steps of r / j draw them as
 * well: 1.3-s steps every 0.5 s catch their low phase once in 13, just as
 * 6.5-s steps with one low sample do. The step under three samples is
 * never counted, and the trace does not tell them apart
 * (docs/finetune.md, "Counting steps"). The raw samples, not the bins: a
 * bin mean spreads a sample over two bins. */
static double
aliased_step(const ft_grid *g, size_t r)
{
	double *m = wc_alloc_array(r, sizeof *m), lo = INFINITY, hi = -INFINITY, found = NAN;
	size_t *n = wc_alloc_array(r, sizeof *n), i0 = 0, len = 0;
	if (!m || !n || r < 3) {
		free(m);
		free(n);
		return NAN;
	}
	for (size_t c = 0; c < r; c++)
		m[c] = 0.0, n[c] = 0;
	double a = g->t0 + (double)g->k0 * g->dt, b = g->t0 + (double)g->k1 * g->dt;
	for (size_t i = 0; i < g->n; i++) {
		if (g->t[i] < a || g->t[i] >= b)
			continue;
		if (len++ == 0)
			i0 = i;
		m[(i - i0) % r] += g->p[i];
		n[(i - i0) % r]++;
	}
	for (size_t c = 0; len >= 2 * r && c < r; c++) {
		m[c] /= (double)n[c];
		lo = fmin(lo, m[c]);
		hi = fmax(hi, m[c]);
	}
	double mid = 0.5 * (lo + hi);
	size_t own = len >= 2 * r && hi > lo ? changes(m, r, 1, mid) : 0;
	for (size_t j = 2; own > 0 && isnan(found); j++) {
		double p = (double)r / (double)j;
		if (p < 1.0 || p * g->dt < WC_TRACE_PERIOD_MIN_S)
			break;
		if (p >= WC_FT_MIN_SAMPLES_PER_STEP || wc__ft_gcd(r, j) != 1)
			continue;
		/* Phase order steps through the classes by j's inverse. */
		size_t inv = 1;
		while (inv * j % r != 1)
			inv++;
		if (changes(m, r, inv, mid) <= own)
			found = p;
	}
	free(m);
	free(n);
	return found;
}

int
wc__ft_period(const ft_grid *g, int active_only, double *out, double *strength, double note[3], size_t *repeat,
              wc_error *err)
{
	size_t len;
	double *v = gather(g, active_only, &len), first[3] = { NAN, NAN, NAN }, again[3] = { NAN, NAN, NAN };
	int rc;
	*out = NAN;
	if (note)
		note[0] = note[1] = note[2] = NAN;
	if (repeat)
		*repeat = 0;
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
	size_t max_lag = (size_t)fmin(ceil(1.1 * WC_FT_PERIOD_MULTIPLE_MAX * k), fmin(WC_TRACE_PERIOD_MAX_S / g->dt, len / 2));
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
		int pick = 1, div = fundamental(g, active_only, acf, max_lag, &q, 0, first);
		for (int j = 2; div == 1 && m && j <= WC_FT_PERIOD_MULTIPLE_MAX && 1.1 * j * k <= (double)max_lag; j++) {
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
			if ((div = fundamental(g, active_only, acf, max_lag, &q, pick, again)) == pick) {
				pick = 1;
				top = base;
			}
		}
		if (div == 0)
			rc = wc_error_set(err, WC_ENOMEM, "trace: out of memory");
		*out = div > 1 ? q * g->dt / div : *out * pick;
		if (strength)
			*strength = top;
		if (note) {
			size_t r = whole_repeat(acf, max_lag, *out / g->dt);
			if (repeat)
				*repeat = r;
			if (div > 1)
				r = 0;
			note[0] = first[0] * g->dt;
			note[1] = (div > 1 ? first[1] : r > 0 ? aliased_step(g, r) : NAN) * g->dt;
			note[2] = first[2] * g->dt;
		}
	}
	free(acf);
	free(v);
	return rc;
}

/* Parts of the active time read apart (wc__ft_period_drift): a change
 * late in the run leaves a half mostly one step and the other a mix. */
#define DRIFT_PARTS 4
/* The least change of the step time read as one (a choice): the quarters
 * of jittered steps differ by a few % (11-s steps of +-5 % read 11.00 and
 * 10.80 s, 2-s steps of +-20 % 2.10 and 1.98 s); a change smaller than
 * this is within what the stated-count checks allow. */
#define DRIFT_MIN 0.15

/* The step time can change during a run (a longer sequence bucket, a
 * GPU clocking down): the autocorrelation of the whole window then peaks
 * at the faster part's step or at a common multiple of both (2.0- and
 * 2.4-s steps repeat together every 12 s), and a stated count was
 * checked against it -- 210 steps read as 39 and refused, or taken for a
 * resumed run. Quarters of the active time are read apart: two clear
 * periods that differ by more than their lags' width and DRIFT_MIN, and
 * not by a whole multiple (a mix of both repeats at one), are two step
 * times
 * (docs/finetune.md, "Counting steps"). Halves missed steps 50 % slower
 * after step 150 of 210: the second half's mix repeated every 6 s,
 * three of the first half's steps. */
int
wc__ft_period_drift(const ft_grid *g, double parts[2], wc_error *err)
{
	size_t active = 0, seen = 0, edge[DRIFT_PARTS + 1];
	double p[DRIFT_PARTS];
	parts[0] = parts[1] = NAN;
	for (size_t k = g->k0; k < g->k1; k++)
		active += g->mark[k] == FT_ACTIVE;
	edge[0] = g->k0;
	edge[DRIFT_PARTS] = g->k1;
	for (size_t k = g->k0, j = 1; k < g->k1 && j < DRIFT_PARTS; k++) {
		seen += g->mark[k] == FT_ACTIVE;
		if (DRIFT_PARTS * seen >= j * active)
			edge[j++] = k + 1;
	}
	for (int h = 0; h < DRIFT_PARTS; h++) {
		ft_grid part = *g;
		size_t repeat = 0;
		double acf;
		p[h] = NAN;
		part.k0 = edge[h];
		part.k1 = edge[h + 1];
		if (part.k1 <= part.k0)
			continue;
		if (wc__ft_period(&part, 1, &p[h], &acf, NULL, &repeat, err) != WC_OK)
			return -1;
		if (!wc__ft_period_clear(&part, p[h], acf, repeat))
			p[h] = NAN;
	}
	for (int a = 0; a < DRIFT_PARTS; a++)
		for (int b = a + 1; b < DRIFT_PARTS; b++) {
			double lo = fmin(p[a], p[b]), hi = fmax(p[a], p[b]), ratio = hi / lo, known = g->dt / lo + g->dt / hi;
			double whole = round(ratio);
			if (!(ratio - 1.0 > fmax(known, DRIFT_MIN)) || (whole >= 2.0 && fabs(ratio - whole) <= whole * known))
				continue;
			parts[0] = p[a];
			parts[1] = p[b];
			return 1;
		}
	return 0;
}

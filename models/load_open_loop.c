/*
 * An open loop's running count (docs/capacity.md, "Closed loop, open
 * loop, energy"): the number in service of an M/M/c queue of offered load
 * m, as a histogram (wc_load_histogram_open_loop) and as the one statistic
 * of it the open loop's root solve reads at every evaluation, the count a
 * request meets, in closed form (wc_load_open_loop_met). Both take the
 * same window and the same one-point cases, so they agree to rounding.
 * Declared in models/law.h.
 */
#include "models/law.h"

#include "models/grow.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

/* The counts the histogram holds: c whole slots (INFINITY: no limit),
 * offered load rho = m / c of them, counts lo..hi (12 standard deviations
 * of m each side, hi at most c). `point` when the count is one point
 * min(m, n_max): idle, saturated (an offered load at or over c is no
 * steady queue), or a window of over WC_POISSON_MAX_COUNTS counts. */
typedef struct {
	double c, rho, lo, hi;
	int point;
} open_window;

static open_window
window_of(double m, double n_max)
{
	open_window w;
	w.c = isfinite(n_max) ? fmax(1.0, floor(n_max)) : INFINITY;
	w.rho = m / w.c;
	const double sd = sqrt(m);
	w.lo = fmax(0.0, floor(m - 12.0 * sd));
	w.hi = fmin(ceil(m + 12.0 * sd + 6.0), w.c);
	w.point = w.hi - w.lo + 1.0 > WC_POISSON_MAX_COUNTS || m == 0.0 || !(w.rho < 1.0);
	return w;
}

int
wc_load_histogram_open_loop(double m, double n_max, wc_load_histogram *out)
{
	memset(out, 0, sizeof *out);
	if (!isfinite(m) || m < 0.0 || !(n_max > 0.0))
		return WC_EINVAL;
	const open_window win = window_of(m, n_max);
	const size_t len = win.point ? 1 : (size_t)(win.hi - win.lo + 1.0);
	out->running = wc_alloc_array(len, sizeof *out->running);
	out->weight = wc_alloc_array(len, sizeof *out->weight);
	if (!out->running || !out->weight) {
		wc_load_histogram_free(out);
		return WC_ENOMEM;
	}
	if (win.point) { /* idle, saturated, or a spread the law's curvature cannot see */
		out->running[0] = out->mean = fmin(m, n_max);
		out->weight[0] = 1.0;
		out->len = 1;
		return WC_OK;
	}
	/* M/M/c: P(k) proportional to Pois(k; m) below c, and every count
	 * from c on (the queue) runs c, with Pois(c; m) / (1 - m / c) in all;
	 * GSL's probabilities, renormalised over the window. */
	double sum_w = 0.0, sum_n = 0.0;
	for (double k = win.lo; k <= win.hi; k++) {
		const double w = gsl_ran_poisson_pdf((unsigned)k, m) / (k == win.c ? 1.0 - win.rho : 1.0);
		out->running[out->len] = k;
		out->weight[out->len++] = w;
		sum_w += w;
		sum_n += w * k;
	}
	for (size_t i = 0; i < out->len; i++)
		out->weight[i] /= sum_w;
	out->mean = sum_n / sum_w;
	return WC_OK;
}

/* Pois(N <= j; m), 0 below 0. */
static double
poisson_cdf(double j, double m)
{
	return j < 0.0 ? 0.0 : gsl_cdf_poisson_P((unsigned)j, m);
}

double
wc_load_open_loop_met(double m, double n_max)
{
	if (!isfinite(m) || m < 0.0 || !(n_max > 0.0))
		return NAN;
	const open_window win = window_of(m, n_max);
	if (win.point) /* wc_load_histogram_met of the one point */
		return fmin(m, n_max);
	/* The limit beyond the window: the Poisson count, E[N^2] / E[N] =
	 * (m^2 + m) / m (the window leaves out under 1e-30 of it). */
	if (win.hi < win.c)
		return 1.0 + m;
	/* With p_k = Pois(k; m), q = 1 / (1 - rho) and k p_k = m p_{k-1}:
	 * sum_{k<c} k p_k = m F(c-2), sum_{k<c} k^2 p_k = m^2 F(c-3) + m F(c-2),
	 * and the queue's c p_c q = m p_{c-1} q, c^2 p_c q = m c p_{c-1} q; the
	 * ratio, divided through by m (docs/capacity.md, "Closed loop, open
	 * loop, energy"). */
	const double c = win.c, q = 1.0 / (1.0 - win.rho), p = gsl_ran_poisson_pdf((unsigned)(c - 1.0), m);
	const double f2 = poisson_cdf(c - 2.0, m), f3 = poisson_cdf(c - 3.0, m);
	return (m * f3 + f2 + c * p * q) / (f2 + p * q);
}

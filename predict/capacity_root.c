/*
 * The capacity answers' one-dimensional roots (docs/capacity.md, "Closed
 * loop, open loop, energy" and "Clocks and power caps"), solved by GSL's
 * Brent solver: one bracket rule, so the answer is always on the side that
 * meets (an open loop's count not above rate x latency, a clock whose power
 * is not above the cap).
 */
#include "capacity_root_internal.h"

#include "models/law.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <float.h>
#include <math.h>

/* Every value f was evaluated at, so the bracket's ends (points Brent
 * evaluated) are read back rather than computed again: f may be a whole
 * capacity answer. 2 ends + 100 iterations. */
#define ROOT_MAX_IT 100

typedef struct {
	wc__root_fn f;
	void *arg;
	double x[ROOT_MAX_IT + 4], v[ROOT_MAX_IT + 4];
	int n;
	double fhi; /* a value that does not meet: what a non-finite f counts as */
} root_rec;

static double
look_up(const root_rec *r, double x, int *found)
{
	for (int i = r->n - 1; i >= 0; i--)
		if (r->x[i] == x) {
			*found = 1;
			return r->v[i];
		}
	*found = 0;
	return NAN;
}

/* f <= 0 meets, and GSL's solvers read a 0 as the root found and stop
 * there: a point that meets is held strictly below 0 (by the least normal
 * double, which moves no interpolation), so the search goes on to the
 * highest point that meets. GSL refuses a non-finite value; such a point
 * does not meet. */
static double
meets_below(double v, double not_meeting)
{
	if (!isfinite(v))
		return not_meeting;
	return v <= 0.0 ? fmin(v, -DBL_MIN) : v;
}

static double
recorded(double x, void *arg)
{
	root_rec *r = arg;
	int found;
	double v = look_up(r, x, &found);
	if (found)
		return v;
	v = meets_below(r->f(x, r->arg), r->fhi);
	if (r->n < (int)(sizeof r->x / sizeof r->x[0])) {
		r->x[r->n] = x;
		r->v[r->n++] = v;
	}
	return v;
}

void
wc__root_bracket(const gsl_root_fsolver_type *type, wc__root_fn f, void *arg, double *lo, double *flo,
                 double *hi, double *fhi, double epsabs, double epsrel, const int *stop)
{
	root_rec r = { .f = f, .arg = arg, .n = 2, .fhi = *fhi };
	r.x[0] = *lo;
	r.v[0] = meets_below(*flo, *fhi);
	r.x[1] = *hi;
	r.v[1] = *fhi;
	/* GSL needs a sign change between finite ends. */
	if (!(*flo <= 0.0 && *fhi > 0.0 && isfinite(*flo) && isfinite(*fhi) && *hi > *lo) ||
	    gsl_root_test_interval(*lo, *hi, epsabs, epsrel) == GSL_SUCCESS)
		return;
	gsl_function fn = { recorded, &r };
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(type);
	if (s && gsl_root_fsolver_set(s, &fn, *lo, *hi) == GSL_SUCCESS) {
		for (int it = 0; it < ROOT_MAX_IT; it++) {
			if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS || (stop && *stop))
				break;
			if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), epsabs,
			                           epsrel) == GSL_SUCCESS)
				break;
		}
		/* The bracket's ends are evaluated points, one each side of
		 * the crossing (f never 0: meets_below). */
		int fa_found, fb_found;
		double a = gsl_root_fsolver_x_lower(s), b = gsl_root_fsolver_x_upper(s);
		double fa = look_up(&r, a, &fa_found), fb = look_up(&r, b, &fb_found);
		if (fa_found && fb_found && fa < 0.0 && fb > 0.0) {
			*lo = a;
			*flo = fa;
			*hi = b;
			*fhi = fb;
		}
	}
	gsl_root_fsolver_free(s);
}

/* ------------------------------------------------------- open loop */
typedef struct {
	const wc_capacity_point *pt;
	const wc_capacity_arch *a;
	const wc_capacity_hw *hw;
	int tp;
	double n_cap, rate, in, out;
} open_loop;

void
wc__capacity_open_times(const wc_capacity_point *pt, const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp,
                        double n_cap, double m, double in_tokens, double out_tokens, wc_capacity_times *t)
{
	/* A lifetime's steps run at the count the request meets, and its
	 * prefills are its own and those of the m admitted meanwhile: the
	 * closed loop's times at that count, whose own throughput (that
	 * count's) is replaced by m's (docs/capacity.md, "Closed loop, open
	 * loop, energy"). */
	wc_capacity_times_eval(pt, a, hw, tp, wc_load_open_loop_met(m, n_cap), in_tokens, out_tokens, t);
	t->throughput_tok_s = wc_capacity_little_throughput(m, out_tokens, t->latency_s);
}

/* n - rate x latency(n): <= 0 while n is not above what arrives during a
 * lifetime (Little's law). */
static double
open_gap(double n, void *arg)
{
	const open_loop *o = arg;
	wc_capacity_times t;
	wc__capacity_open_times(o->pt, o->a, o->hw, o->tp, o->n_cap, n, o->in, o->out, &t);
	return n - wc_capacity_little_running(o->rate, t.latency_s);
}

double
wc__capacity_open_running(const wc_capacity_point *pt, const wc_capacity_arch *a, const wc_capacity_hw *hw,
                          int tp, double n_cap, double rate, double in_tokens, double out_tokens, int *over)
{
	open_loop o = { pt, a, hw, tp, n_cap, rate, in_tokens, out_tokens };
	double g_cap = open_gap(n_cap, &o);
	wc_capacity_times t;
	wc_capacity_times_eval(pt, a, hw, tp, n_cap, in_tokens, out_tokens, &t);
	*over = g_cap < 0.0 || wc_capacity_rate_at(rate, wc_capacity_little_rate(n_cap, t.latency_s));
	if (*over)
		return n_cap;
	/* latency rises with n, and each of its terms is concave in n up to
	 * the compute-bound slope, which only grows: n - rate x latency(n)
	 * crosses 0 once below n_cap, so the root is the least solution
	 * (docs/capacity.md, "Closed loop, open loop, energy"). 1e-12, not
	 * 0: a count of none runs no step. */
	const double lo = 1e-12;
	double g_lo = open_gap(lo, &o);
	if (!(g_lo < 0.0))
		return lo;
	double n = lo, hi = n_cap;
	wc__root_bracket(gsl_root_fsolver_brent, open_gap, &o, &n, &g_lo, &hi, &g_cap, 0.0, 1e-12, NULL);
	return n;
}

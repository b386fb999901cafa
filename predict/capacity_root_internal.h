/*
 * Private to predict/: the one-dimensional roots the capacity answers
 * solve -- an open loop's running count and the clock a power cap settles
 * at (docs/capacity.md, "Closed loop, open loop, energy" and "Clocks and
 * power caps") -- both by GSL's Brent solver through one bracket rule.
 */
#ifndef WC_PREDICT_CAPACITY_ROOT_INTERNAL_H
#define WC_PREDICT_CAPACITY_ROOT_INTERNAL_H

#include "models/capacity_model.h"

#include <gsl/gsl_roots.h>

/** f(x, arg): <= 0 where x "meets" (the root's low side), > 0 where it
 *  does not. */
typedef double (*wc__root_fn)(double x, void *arg);

/** Narrows [*lo, *hi] around the crossing of `f`, given f(*lo) = *flo
 *  <= 0 < f(*hi) = *fhi (both already evaluated and finite): GSL's
 *  solver `type` (gsl_root_fsolver_bisection or _brent) until the bracket
 *  is within epsabs + epsrel |x| (gsl_root_test_interval, tested first)
 *  or 100 iterations. The bracket's ends stay evaluated points with their
 *  values, *lo the higher end that meets (f <= 0): the answer always
 *  meets. Unchanged when the ends do not straddle 0. `*stop` (may be
 *  NULL), set non-zero by `f`, ends the search at once (an error in f). */
void wc__root_bracket(const gsl_root_fsolver_type *type, wc__root_fn f, void *arg, double *lo, double *flo,
                      double *hi, double *fhi, double epsabs, double epsrel, const int *stop);

/** An open loop's step times at mean count `m` (at most n_cap run): the
 *  closed loop's times (wc_capacity_times_eval) at the count a request
 *  meets (wc_load_open_loop_met(m, n_cap): 1 + m for the Poisson count,
 *  n_cap where the limit runs steadily), with the throughput of m,
 *  m L_out / latency. */
void wc__capacity_open_times(const wc_capacity_point *pt, const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp,
                             double n_cap, double m, double in_tokens, double out_tokens, wc_capacity_times *t);

/** An open loop's mean running count (docs/capacity.md, "Closed loop,
 *  open loop, energy"): the n in (0, n_cap] with n = rate x latency(n),
 *  latency of the open loop's step times at `pt` on `tp` GPUs
 *  (wc__capacity_open_times); `*over` set (and n_cap
 *  returned) when the rate is beyond what n_cap serves. */
double wc__capacity_open_running(const wc_capacity_point *pt, const wc_capacity_arch *a, const wc_capacity_hw *hw,
                                 int tp, double n_cap, double rate, double in_tokens, double out_tokens, int *over);

#endif

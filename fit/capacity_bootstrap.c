/*
 * Bootstrap intervals of the capacity fit (docs/capacity.md, "Intervals"):
 * resample rows (sets of twins) with replacement, refit from the point
 * estimate, keep the draws in natural units and take 2.5 / 97.5
 * percentiles. Resampling,
 * threads and the acceptance rule are the one driver's
 * (fit/boot_internal.h): a refit that ran out of iterations is left out.
 */
#include "capacity_internal.h"
#include "boot_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"


typedef struct {
	const cap_problem *pb;
	const double *u_point;
	const double *obs_w;   /* a robust fit's weights at the point; NULL plain */
	int max_iter;
} cap_ctx;

/* A replicate's multiplicity per row in the fit (the thread's). */
static void *
row_mult_new(const void *ctx)
{
	const cap_ctx *c = ctx;
	return wc_alloc_array(c->pb->n_rows ? c->pb->n_rows : 1, sizeof(double));
}

/* One replicate: refit from the point estimate on the resample; a robust
 * fit's replicate keeps each observation's Huber weight at the point
 * estimate (one weighted pass, not a reweighted fit: docs/capacity.md,
 * "Robust fit"). The resample is of sets of twins (a period given twice
 * is drawn, or not, as one: docs/capacity.md, "Twins count once"); each
 * row takes its set's count. */
static wc__boot_outcome
cap_fit(const void *ctx, void *state, const double *mult, double *u)
{
	const cap_ctx *c = ctx;
	const size_t p = (size_t)c->pb->n_params;
	double *row_mult = state;
	wc_error err;
	int status = 0, niter = 0;
	for (size_t i = 0; i < c->pb->n_rows; i++)
		row_mult[i] = mult[c->pb->set[i]];
	if (wc__cap_solve(c->pb, c->u_point, row_mult, c->obs_w, c->max_iter, u, &status, &niter, NULL, NULL, &err) !=
	    WC_OK)
		return WC__BOOT_FAILED;
	for (size_t k = 0; k < p; k++)
		if (!isfinite(u[k]))
			return WC__BOOT_FAILED;
	return wc__boot_outcome_of_gsl(status);
}

/* Converged replicates in natural units, packed at the front; count. */
static int
natural_draws(const cap_problem *pb, int B, const double *draws, const unsigned char *ok, double *natural)
{
	const size_t p = (size_t)pb->n_params;
	int n_ok = 0;
	for (int r = 0; r < B; r++) {
		if (!ok[r])
			continue;
		for (size_t k = 0; k < p; k++)
			natural[(size_t)n_ok * p + k] = wc__cap_value(pb, (int)k, draws[(size_t)r * p + k]);
		n_ok++;
	}
	return n_ok;
}

static void
set_intervals(const cap_problem *pb, const double *natural, int n_ok, double *col,
              wc_capacity_fit_result *point)
{
	const size_t p = (size_t)pb->n_params;
	char msg[WC_ERROR_MSG_MAX];
	for (size_t k = 0; k < p; k++) {
		for (int r = 0; r < n_ok; r++)
			col[r] = natural[(size_t)r * p + k];
		double lo, hi;
		wc_param *prm = wc_capacity_param_named(&point->params, point->names[k]);
		if (wc_capacity_fit_unidentified(point, (int)k))
			continue; /* not identified: no interval, however narrow the resamples */
		if (!wc_interval_from_draws(col, (size_t)n_ok, prm ? prm->value : NAN, &lo, &hi))
			continue; /* every draw the same: no interval rather than a zero-width one */
		if (prm) {
			prm->lo = lo;
			prm->hi = hi;
		}
		/* Wider than a factor e^4 ~ 55: the rows do not pin it down. */
		if (!(log(hi / lo) <= 4.0)) {
			wc_error_format(msg, sizeof msg, "%s: 95 %% interval [%.4g, %.4g] is very wide; the rows do not "
			         "identify it well", point->names[k], lo, hi);
			WC_WARN(point, "%s", msg);
		}
	}
}

int
wc_fit_capacity_bootstrap(const wc_capacity_data *d, const wc_capacity_fit_options *o,
                          const wc_bootstrap_options *bo, wc_capacity_fit_result *point, wc_error *err)
{
	cap_problem *pb = NULL;
	int rc, B = bo->replicates, T = bo->threads > 0 ? bo->threads : 1;
	if (B < 2)
		return wc_error_set(err, WC_EINVAL, "bootstrap: need at least 2 replicates");
	if (o->weight)
		return wc_error_set(err, WC_EINVAL, "bootstrap: options must not carry resample weights");
	if ((rc = wc__cap_problem_build(d, o, &pb, err)) != WC_OK)
		return rc;
	/* the point fit's held parameters stay held in every replicate: the
	 * draws refit the problem the point estimate solved, and a held value
	 * has no draws (docs/capacity.md, "What the rows cannot identify") */
	wc__cap_problem_hold_as(pb, &point->params);
	const size_t p = (size_t)pb->n_params;
	if ((int)p != point->n_params) {
		wc__cap_problem_free(pb);
		return wc_error_set(err, WC_EINVAL, "bootstrap: point estimate does not match the problem");
	}
	double *draws = wc_alloc_array((size_t)B * p, sizeof *draws), *natural = wc_alloc_array((size_t)B * p, sizeof *natural);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	unsigned char *ok = wc_alloc_zeroed((size_t)B, 1);
	double *obs_w = NULL;
	if (!draws || !natural || !col || !ok) {
		rc = wc_error_set(err, WC_ENOMEM, "capacity bootstrap: out of memory");
		goto done;
	}
	if (pb->robust) {
		if (!(obs_w = wc_alloc_array(pb->n_obs, sizeof *obs_w)) || wc__cap_huber_weights(pb, point->u, obs_w) != WC_OK) {
			rc = wc_error_set(err, WC_ENOMEM, "capacity bootstrap: out of memory");
			goto done;
		}
	}
	cap_ctx ctx = { pb, point->u, obs_w, o->max_iter > 0 ? o->max_iter : 500 };
	wc__boot_spec spec = {
		.what = "capacity bootstrap", .progress = "capacity bootstrap draws", .replicates = B,
		.threads = T, .seed = bo->seed, .n_rows = pb->n_sets, .slot = p, .ctx = &ctx,
		.state_new = row_mult_new, .state_free = free, .fit = cap_fit,
	};
	if ((rc = wc__boot_run(&spec, draws, ok, err)) != WC_OK)
		goto done;
	int n_ok = natural_draws(pb, B, draws, ok, natural);
	char msg[WC_ERROR_MSG_MAX];
	if ((rc = wc__boot_check_kept("capacity bootstrap", "failed", n_ok, B, msg, sizeof msg, err)) != WC_OK)
		goto done;
	if (msg[0])
		WC_WARN(point, "%s", msg);
	set_intervals(pb, natural, n_ok, col, point);
	rc = wc_draws_set(&point->params.draws, n_ok, (int)p, (const char (*)[WC_LABEL_MAX])point->names, natural, err);
	point->params.seed = bo->seed;
	point->params.bootstrap = B;
done:
	free(obs_w);
	free(draws);
	free(natural);
	free(col);
	free(ok);
	wc__cap_problem_free(pb);
	return rc;
}

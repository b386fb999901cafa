/*
 * One calibration group as a small weighted least-squares problem
 * (docs/calibration.md): residuals (log modelled − log measured dynamic
 * power) / run scatter for each row, times the square root of its weight
 * (1/k for one of a run's k segments, so a run weighs one), then one prior pseudo-residual
 * (x − mean) / sd per unknown. The unknowns enter the law point of each
 * run -- a shift or theta adds to z0, log S scales the point's scale --
 * exactly as the binding would put them there, so the same kernel
 * evaluates the calibration and every later prediction. GSL's
 * Levenberg-Marquardt with a finite-difference Jacobian: two unknowns at
 * most, a handful of runs.
 */
#include "calibrate_internal.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <string.h>

typedef struct {
	const cal_group *g;
	const double *draw, *noise;
} cal_eval;

/* Group dynamic power of run i with unknowns x (and the measured one). */
static int
run_dynamic(const cal_group *g, int i, const double *draw, const double *x, double *model,
            double *measured)
{
	const cal_run *cr = g->runs[i];
	wc_law_point lp;
	wc_power pw;
	wc_law_bound_point(&cr->bind, draw, &lp);
	if (g->scope == WC_CALIBRATE_MODEL) {
		lp.z0 += x[0];
	} else if (g->p == 2) {
		lp.scale *= exp(x[0]);
		lp.z0 += x[1];
	} else {
		if (g->s_fixed)
			lp.scale *= exp(g->log_s_fixed);
		lp.z0 += x[0];
	}
	if (wc_law_point_power(&lp, cr->run->tp, &cr->h, &pw, NULL) != WC_OK)
		return -1;
	*model = pw.dynamic_w;
	*measured = cr->run->mean_power_w - cr->run->tp * lp.p0;
	return *model > 0 && *measured > 0 && isfinite(*model) ? 0 : -1;
}

static int
residuals(const gsl_vector *xv, void *params, gsl_vector *f)
{
	const cal_eval *ev = params;
	const cal_group *g = ev->g;
	double x[CAL_MAX_UNKNOWNS], model, measured;
	for (int j = 0; j < g->p; j++)
		x[j] = gsl_vector_get(xv, (size_t)j);
	for (int i = 0; i < g->n_runs; i++) {
		if (run_dynamic(g, i, ev->draw, x, &model, &measured) != 0)
			return GSL_EDOM;
		double y = log(measured) + (ev->noise ? ev->noise[i] : 0.0);
		/* a row of a run cut into k weighs 1/k: each run weighs one
		 * (docs/calibration.md, "Segments") */
		gsl_vector_set(f, (size_t)i, sqrt(g->runs[i]->weight) * (log(model) - y) / g->sigma);
	}
	for (int j = 0; j < g->p; j++)
		gsl_vector_set(f, (size_t)(g->n_runs + j), (x[j] - g->prior_mean[j]) / g->prior_sd[j]);
	return GSL_SUCCESS;
}

int
wc__cal_solve(const cal_group *g, const double *draw, const double *noise, const double *x0,
              double *x, wc_error *err)
{
	const size_t n = (size_t)(g->n_runs + g->p), p = (size_t)g->p;
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	cal_eval ev = { g, draw, noise };
	gsl_multifit_nlinear_fdf fdf = { residuals, NULL, NULL, n, p, &ev, 0, 0, 0 };
	fp.trs = gsl_multifit_nlinear_trs_lm;
	gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
	if (!w)
		return wc_error_set(err, WC_ENOMEM, "calibrate: out of memory");
	gsl_vector_const_view x0v = gsl_vector_const_view_array(x0, p);
	int info = 0, rc = gsl_multifit_nlinear_init(&x0v.vector, &fdf, w);
	if (rc == GSL_SUCCESS)
		rc = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 0.0, NULL, NULL, &info, w);
	for (size_t j = 0; j < p; j++)
		x[j] = rc == GSL_SUCCESS || rc == GSL_ENOPROG ? gsl_vector_get(w->x, j) : NAN;
	gsl_multifit_nlinear_free(w);
	for (size_t j = 0; j < p; j++)
		if (!isfinite(x[j]))
			return wc_error_set(err, WC_ENOCONV, "%s on %s: the calibration did not converge (%s)",
			                    g->scope == WC_CALIBRATE_MODEL ? g->model : "level", g->level,
			                    gsl_strerror(rc));
	return WC_OK;
}

double
wc__cal_rms(const cal_group *g, const double *x)
{
	double sum = 0, runs = 0, model, measured;
	for (int i = 0; i < g->n_runs; i++) {
		if (run_dynamic(g, i, NULL, x, &model, &measured) != 0)
			return NAN;
		sum += g->runs[i]->weight * pow(log(model) - log(measured), 2);
		runs += g->runs[i]->weight;
	}
	return sqrt(sum / runs);
}

int
wc__cal_run_power(const cal_group *g, int i, const double *x, double *model, double *measured)
{
	return run_dynamic(g, i, NULL, x, model, measured) == 0 ? WC_OK : WC_ENOCONV;
}

int
wc__cal_hold_ceiling(const cal_group *g, double *x)
{
	if (g->scope != WC_CALIBRATE_PLATFORM || g->p != 2 || !(g->s_max > 0.0) || !(x[0] > log(g->s_max)))
		return 0;
	x[0] = log(g->s_max);
	return 1;
}

int
wc__cal_solve_at_bound(const cal_group *g, const double *draw, const double *noise, double *x, wc_error *err)
{
	cal_group th = *g;
	double x0 = x[1], got = x[1];
	th.p = 1;
	th.s_fixed = 1;
	th.log_s_fixed = x[0];
	th.prior_mean[0] = g->prior_mean[1];
	th.prior_sd[0] = g->prior_sd[1];
	int rc = wc__cal_solve(&th, draw, noise, &x0, &got, err);
	if (rc == WC_OK)
		x[1] = got;
	return rc;
}

/*
 * The joint fit itself: Levenberg-Marquardt (GSL multifit_nlinear, trust
 * region, Moré scaling, QR) on the prepared problem, then the diagnosis a
 * user needs to trust it — convergence status, the Jacobian's conditioning,
 * standard errors, and which parameter the data cannot pin down — and the
 * conversion of the solution into a frozen parameter set.
 */
/* GSL's element accessors inline (with their range checks): called for
 * every parameter of every row of every evaluation, as functions they
 * cost 7 % of a bootstrap refit (docs/results.md, fit speed). */
#define HAVE_INLINE 1
#include "fit_internal.h"
#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

/* A parameter whose standard error exceeds this (in fit units: logs and
 * z-units, all O(1)) moves the prediction by more than e-fold within its
 * uncertainty: the data do not identify it. */
#define WEAK_SE 1.0
/* Columns of the Jacobian whose QR diagonal falls below this share of the
 * largest are linear combinations of the others (rounding leaves ~1e-16
 * where the runs cannot tell them apart; weak but real ones stay far above). */
#define DEPENDENT_REL 1e-12

int
wc__fit_param_is_log(const fit_problem *pb, int k)
{
	param_kind kind = pb->slots[k].kind;
	return kind == PK_LOG_S || kind == PK_LOG_P0 || kind == PK_TERM_LOG_FACTOR || kind == PK_LOG_PHI;
}

void
wc__fit_param_name(const fit_problem *pb, int k, char *buf, size_t cap)
{
	const param_slot *s = &pb->slots[k];
	const char *lvl = s->index >= 0 && s->index < pb->n_levels ? pb->levels[s->index].name : "";
	switch (s->kind) {
	case PK_LOG_S: wc_level_param_label(WC_LEVEL_S, lvl, buf, cap); break;
	case PK_THETA: wc_level_param_label(WC_LEVEL_THETA, lvl, buf, cap); break;
	case PK_FLOOR: wc_level_param_label(WC_LEVEL_FLOOR, lvl, buf, cap); break;
	case PK_LOG_P0: wc_level_param_label(WC_LEVEL_P0, lvl, buf, cap); break;
	case PK_DELTA: snprintf(buf, cap, "delta"); break;
	case PK_GAMMA1: snprintf(buf, cap, "gamma1"); break;
	case PK_GAMMA2: snprintf(buf, cap, "gamma2"); break;
	case PK_KAPPA: snprintf(buf, cap, "kappa"); break;
	case PK_LOG_PHI: snprintf(buf, cap, "phi"); break;
	case PK_LAW_TERM: snprintf(buf, cap, "%s", wc_law_term_name((wc_law_term)s->index)); break;
	case PK_TERM_SHIFT:
	case PK_TERM_LOG_FACTOR: wc_precision_term_label(&pb->terms[s->index], buf, cap); break;
	}
}

static wc_param
fitted(double v)
{
	wc_param p = { v, NAN, NAN, WC_SRC_FITTED };
	return p;
}

void
wc__fit_problem_to_params(const fit_problem *pb, const double *x, wc_params *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "fit");
	out->form = pb->form;
	out->clock_ref_mhz = pb->clock_ref_mhz;
	out->n_levels = pb->n_levels;
	for (int L = 0; L < pb->n_levels; L++) {
		wc_level *lv = &out->levels[L];
		*lv = pb->levels[L];
		lv->s = pb->p_s[L] >= 0 && !lv->s_shared_with[0] ? fitted(exp(x[pb->p_s[L]])) : fitted(NAN);
		if (!wc_form_has_scale(pb->form) || lv->s_shared_with[0])
			lv->s.source = WC_SRC_ASSUMED;
		lv->theta = fitted(x[pb->p_theta[L]]);
		lv->floor_logit = pb->p_floor[L] >= 0 ? fitted(x[pb->p_floor[L]]) : fitted(NAN);
		if (pb->p_floor[L] < 0)
			lv->floor_logit.source = WC_SRC_ASSUMED;
		if (pb->p_p0[L] >= 0)
			lv->p0 = fitted(exp(x[pb->p_p0[L]]));
	}
	out->delta = fitted(x[pb->p_delta]);
	out->gamma1 = fitted(x[pb->p_gamma1]);
	if (pb->p_gamma2 >= 0) {
		out->gamma2 = fitted(x[pb->p_gamma2]);
	} else {
		wc_param none = { 0.0, NAN, NAN, WC_SRC_ASSUMED };
		out->gamma2 = none;
	}
	out->kappa = pb->p_kappa >= 0 ? fitted(x[pb->p_kappa]) : pb->kappa_fixed;
	out->phi = pb->p_phi >= 0 ? fitted(exp(x[pb->p_phi])) : pb->phi_fixed;
	out->n_terms = pb->n_terms;
	for (int k = 0; k < pb->n_terms; k++) {
		out->terms[k] = pb->terms[k];
		int i = pb->p_term[k];
		if (i >= 0)
			out->terms[k].value = fitted(pb->slots[i].kind == PK_TERM_LOG_FACTOR ? exp(x[i]) : x[i]);
	}
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (pb->p_lt[k] >= 0) {
			out->law_terms |= WC_LT_BIT(k);
			out->law_term[k] = fitted(x[pb->p_lt[k]]);
		}
	snprintf(out->tool_version, sizeof out->tool_version, "%s", WC_VERSION);
	/* Held parameters say why (bounds.c): at a bound, or not identified. */
	for (int k = 0; k < pb->n_params; k++) {
		char name[WC_LABEL_MAX];
		if (!pb->held[k])
			continue;
		wc__fit_param_name(pb, k, name, sizeof name);
		wc_param *q = (wc_param *)wc_params_param_named(out, name); /* points into `out` */
		if (q)
			q->source = pb->unidentified[k] ? WC_SRC_ASSUMED : WC_SRC_BOUND;
	}
}

/* Standard errors (unit-free fit coordinates) and the weakest direction. */
static void
diagnose(fit_problem *pb, gsl_multifit_nlinear_workspace *w, const double *mult, fit_solution *sol,
         double *se)
{
	const size_t n = pb->n_rows, p = (size_t)pb->n_params;
	gsl_matrix *J = gsl_multifit_nlinear_jac(w);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	double chi2 = 0, n_eff = 0;
	gsl_vector *f = gsl_multifit_nlinear_residual(w);
	for (size_t i = 0; i < n; i++) {
		double m = mult ? mult[i] : 1.0;
		/* GSL's residual vector is already scaled by sqrt(weight). */
		chi2 += gsl_vector_get(f, i) * gsl_vector_get(f, i);
		n_eff += m;
	}
	sol->rms = n_eff > 0 ? sqrt(chi2 / n_eff) : NAN;
	/* The scatter's degrees of freedom: the runs less the parameters the
	 * fit moves; a held one takes none (docs/fitting.md, "Diagnosis:
	 * weakly identified parameters"). */
	size_t p_free = 0;
	for (size_t k = 0; k < p; k++)
		p_free += !pb->held[k];
	double s2 = n_eff > (double)p_free ? chi2 / (n_eff - (double)p_free) : NAN;
	for (size_t k = 0; k < p; k++)
		se[k] = NAN;
	if (cov && gsl_multifit_nlinear_covar(J, DEPENDENT_REL, cov) == GSL_SUCCESS)
		for (size_t k = 0; k < p; k++) {
			double c = gsl_matrix_get(cov, k, k);
			se[k] = c > 0 && isfinite(s2) ? sqrt(s2 * c) : INFINITY;
			/* GSL zeroes the rows of dependent columns (a held one is zero). */
			sol->dependent[k] = !(c > 0) && !pb->held[k];
			/* Held at a bound: pinned, no spread; held because the runs
			 * cannot identify it: not identified (callers such as the
			 * held-out tests skip what rests on it). */
			if (pb->held[k])
				se[k] = pb->unidentified[k] ? INFINITY : 0.0;
		}
	gsl_matrix_free(cov);
	/* The direction the data constrain least: SVD of the column-normalised
	 * Jacobian (LAPACKE) over the parameters the fit moves (a held one's
	 * column is zero and would be that direction). Its largest component
	 * names the parameter. */
	size_t *col = wc_alloc_array(p, sizeof *col), q = 0;
	for (size_t k = 0; col && k < p; k++)
		if (!pb->held[k])
			col[q++] = k;
	double *a = wc_alloc_array(n * (q ? q : 1), sizeof *a), *sv = wc_alloc_array(q ? q : 1, sizeof *sv);
	double *v = wc_alloc_array(q ? q : 1, sizeof *v);
	sol->weakest = -1;
	if (col && a && sv && v && q > 0) {
		for (size_t j = 0; j < q; j++) {
			double norm = 0;
			for (size_t i = 0; i < n; i++)
				norm += gsl_matrix_get(J, i, col[j]) * gsl_matrix_get(J, i, col[j]);
			norm = norm > 0 ? sqrt(norm) : 1.0;
			for (size_t i = 0; i < n; i++)
				a[i * q + j] = gsl_matrix_get(J, i, col[j]) / norm;
		}
		if (wc__fit_linalg_svd_weakest(a, (int)n, (int)q, sv, v) == 0) {
			size_t best = 0;
			for (size_t j = 1; j < q; j++)
				if (fabs(v[j]) > fabs(v[best]))
					best = j;
			sol->weakest = (int)col[best];
			/* GSL's condition number counts the held columns, which make
			 * any Jacobian with one singular: with some held, the free
			 * columns' own (column-normalised) condition says whether the
			 * runs pin the fitted parameters. */
			if (q < p)
				sol->rcond = sv[0] > 0 ? sv[q - 1] / sv[0] : NAN;
		}
	}
	free(col);
	free(a);
	free(sv);
	free(v);
}

struct fit_solver {
	fit_problem *pb;
	fit_eval *ev;
	gsl_multifit_nlinear_workspace *w;
	gsl_multifit_nlinear_fdf fdf;
	double *sw;  /* square roots of the current run's weights */
};

fit_solver *
wc__fit_solver_new(fit_problem *pb, int robust)
{
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	fit_solver *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	fp.trs = gsl_multifit_nlinear_trs_lm;
	fp.scale = gsl_multifit_nlinear_scale_more;
	/* Pivoted QR is the robust choice for the one point estimate; refits
	 * from that estimate (bootstrap) use Cholesky on J'J + mu*D^2, which LM
	 * keeps positive definite and which is several times cheaper for many
	 * runs and few parameters. */
	fp.solver = robust ? gsl_multifit_nlinear_solver_qr : gsl_multifit_nlinear_solver_cholesky;
	s->pb = pb;
	s->ev = wc__fit_eval_new(pb);
	s->w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, pb->n_rows, (size_t)pb->n_params);
	s->sw = wc_alloc_array(pb->n_rows ? pb->n_rows : 1, sizeof *s->sw);
	if (!s->ev || !s->w || !s->sw) {
		wc__fit_solver_free(s);
		return NULL;
	}
	s->fdf.f = wc__fit_residuals;
	s->fdf.df = wc__fit_jacobian;
	s->fdf.fvv = NULL;
	s->fdf.n = pb->n_rows;
	s->fdf.p = (size_t)pb->n_params;
	s->fdf.params = s->ev;
	return s;
}

void
wc__fit_solver_free(fit_solver *s)
{
	if (!s)
		return;
	if (s->w)
		gsl_multifit_nlinear_free(s->w);
	wc__fit_eval_free(s->ev);
	free(s->sw);
	free(s);
}

int
wc__fit_solver_run(fit_solver *s, const double *x0, const double *mult, int max_iter, double xtol,
               int want_diagnosis, double *x, fit_solution *sol, wc_error *err)
{
	fit_problem *pb = s->pb;
	const size_t n = pb->n_rows, p = (size_t)pb->n_params;
	gsl_multifit_nlinear_workspace *w = s->w;
	gsl_vector_const_view x0v = gsl_vector_const_view_array(x0, p);
	const double *wt = mult ? mult : pb->mult;
	memset(sol, 0, sizeof *sol);
	sol->weakest = -1;
	/* The weights are applied by the callbacks (wc__fit_eval_weigh), with the
	 * same square roots and products GSL's winit would use. */
	for (size_t i = 0; i < n; i++)
		s->sw[i] = sqrt(wt[i]);
	wc__fit_eval_weigh(s->ev, s->sw);
	int rc = gsl_multifit_nlinear_init(&x0v.vector, &s->fdf, w);
	if (rc != GSL_SUCCESS)
		return wc_error_set(err, WC_ERANGE, "fit: the law cannot be evaluated at the starting point (%s)",
		                    gsl_strerror(rc));
	if (want_diagnosis) {
		/* The point estimate: GSL's own driver, step and gradient tests
		 * only (GSL 2.7 ignores ftol). */
		sol->gsl_status = gsl_multifit_nlinear_driver((size_t)max_iter, xtol, 1e-10, 0.0, NULL, NULL,
		                                              &sol->info, w);
	} else {
		/* Refits add MINPACK's relative-reduction test (ftol = 1e-10, as
		 * SciPy's least_squares): along a flat direction (a saturated
		 * level's theta) the step test alone keeps iterating for nothing. */
		double chi2 = INFINITY;
		sol->gsl_status = GSL_EMAXITER;
		for (int it = 0; it < max_iter; it++) {
			int st = gsl_multifit_nlinear_iterate(w);
			if (st == GSL_ENOPROG && it > 0) {
				sol->gsl_status = GSL_ENOPROG;
				break;
			}
			if (st != GSL_SUCCESS && st != GSL_ENOPROG) {
				sol->gsl_status = st;
				break;
			}
			gsl_vector *f = gsl_multifit_nlinear_residual(w);
			double now = 0;
			for (size_t i = 0; i < n; i++)
				now += gsl_vector_get(f, i) * gsl_vector_get(f, i);
			int status = gsl_multifit_nlinear_test(xtol, 1e-10, 0.0, &sol->info, w);
			if (status == GSL_SUCCESS || (isfinite(chi2) && chi2 - now >= 0 && chi2 - now <= 1e-10 * now)) {
				sol->gsl_status = GSL_SUCCESS;
				break;
			}
			chi2 = now;
		}
	}
	sol->niter = (int)gsl_multifit_nlinear_niter(w);
	memcpy(x, gsl_multifit_nlinear_position(w)->data, p * sizeof *x);
	if (want_diagnosis) {
		gsl_multifit_nlinear_rcond(&sol->rcond, w);
		diagnose(pb, w, mult, sol, sol->se);
		/* Weak = the largest standard error, when it exceeds WEAK_SE; the
		 * SVD's pick stands only for a rank-deficient Jacobian, where
		 * standard errors are infinite and cannot tell which one. */
		int worst = -1, rank_deficient = 0;
		for (size_t k = 0; k < p; k++) {
			if (pb->held[k])
				continue; /* named by its own warning */
			rank_deficient |= !isfinite(sol->se[k]);
			if (sol->se[k] > WEAK_SE && (worst < 0 || sol->se[k] > sol->se[worst]))
				worst = (int)k;
		}
		if (!rank_deficient)
			sol->weakest = worst;
	}
	return WC_OK;
}

int
wc__fit_solve(fit_problem *pb, const double *x0, const double *mult, int max_iter, int want_diagnosis,
          double *x, fit_solution *sol, wc_error *err)
{
	fit_solver *s = wc__fit_solver_new(pb, want_diagnosis);
	if (!s)
		return wc_error_set(err, WC_ENOMEM, "fit: cannot allocate the solver for %zu runs x %d parameters",
		                    pb->n_rows, pb->n_params);
	int rc = wc__fit_solver_run(s, x0, mult, max_iter, 1e-10, want_diagnosis, x, sol, err);
	wc__fit_solver_free(s);
	return rc;
}

/* Calibrated span of each level (for extrapolation warnings). */
static void
fill_ranges(const fit_problem *pb, const wc_runs_table *t, wc_params *p)
{
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_run *r = &t->runs[pb->row[i]];
		wc_range *g = &p->levels[pb->lvl[i]].range;
		double lo, hi;
		wc_run_running_span(r, &lo, &hi);
		if (g->runs == 0) {
			g->active_b_min = g->active_b_max = r->active_params_b;
			g->running_min = lo;
			g->running_max = hi;
			g->tp_min = g->tp_max = r->tp;
		}
		g->active_b_min = fmin(g->active_b_min, r->active_params_b);
		g->active_b_max = fmax(g->active_b_max, r->active_params_b);
		g->running_min = fmin(g->running_min, lo);
		g->running_max = fmax(g->running_max, hi);
		g->tp_min = r->tp < g->tp_min ? r->tp : g->tp_min;
		g->tp_max = r->tp > g->tp_max ? r->tp : g->tp_max;
		if (r->sm_clock_mhz > 0) {
			g->clock_min = g->clock_max > 0 ? fmin(g->clock_min, r->sm_clock_mhz) : r->sm_clock_mhz;
			g->clock_max = fmax(g->clock_max, r->sm_clock_mhz);
		}
		g->runs++;
	}
}

void
wc_fit_result_clear(wc_fit_result *r)
{
	if (!r)
		return;
	wc_params_clear(&r->params);
	free(r->names);
	free(r->x);
	free(r->se);
	free(r->weak);
	free(r->residuals);
	memset(r, 0, sizeof *r);
}

/* The point estimate and its summary: parameters in natural units, the
 * solver's status, standard errors and the runs used. */
static void
fill_estimate(const fit_problem *pb, const wc_runs_table *t, const double *x, const double *mult,
              const fit_solution *sol, wc_fit_result *out)
{
	const size_t p = (size_t)pb->n_params;
	wc__fit_problem_to_params(pb, x, &out->params);
	fill_ranges(pb, t, &out->params);
	snprintf(out->params.input_sha256, sizeof out->params.input_sha256, "%s", t->sha256);
	out->converged = sol->gsl_status == GSL_SUCCESS;
	out->gsl_status = sol->gsl_status;
	out->info = sol->info;
	out->niter = sol->niter;
	out->rcond = sol->rcond;
	out->rms = sol->rms;
	/* Recorded so that a calibration from one run knows the scatter of a
	 * single run around the law (docs/calibration.md). */
	out->params.residual_rms = isfinite(sol->rms) ? sol->rms : 0.0;
	out->n_excluded = pb->n_excluded;
	out->n_free = (int)p;
	out->max_se = 0;
	for (size_t k = 0; k < p; k++) {
		out->se[k] = sol->se[k];
		out->max_se = isfinite(sol->se[k]) ? fmax(out->max_se, sol->se[k]) : INFINITY;
	}
	for (size_t i = 0; i < pb->n_rows; i++)
		out->n_used += (int)mult[i];
	out->params.runs = out->n_used;
	for (size_t k = 0; k < p; k++) {
		wc__fit_param_name(pb, (int)k, out->names[k], WC_LABEL_MAX);
		out->x[k] = wc__fit_param_is_log(pb, (int)k) ? exp(x[k]) : x[k];
	}
}

/* Residual of each fitted run at the estimate; NaN for runs not in the
 * fit (and for all when the evaluation cannot be allocated). */
static void
fill_residuals(const fit_problem *pb, const wc_runs_table *t, double *x, wc_fit_result *out)
{
	for (size_t i = 0; i < t->n_runs; i++)
		out->residuals[i] = NAN;
	gsl_vector_view xv = gsl_vector_view_array(x, (size_t)pb->n_params);
	gsl_vector *f = gsl_vector_alloc(pb->n_rows);
	fit_eval *ev = wc__fit_eval_new(pb);
	if (f && ev && wc__fit_residuals(&xv.vector, ev, f) == GSL_SUCCESS)
		for (size_t i = 0; i < pb->n_rows; i++)
			out->residuals[pb->row[i]] = gsl_vector_get(f, i);
	gsl_vector_free(f);
	wc__fit_eval_free(ev);
}

/* The problem's warnings, then non-convergence and weakly identified
 * parameters. */
static void
fill_warnings(const fit_problem *pb, const fit_solution *sol, wc_fit_result *out)
{
	for (int i = 0; i < pb->n_warnings; i++)
		WC_WARN(out, "%s", pb->warnings[i]);
	if (!out->converged) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format(msg, sizeof msg, "fit did not converge: %s after %d iterations (estimate reported as is)",
		         gsl_strerror(sol->gsl_status), sol->niter);
		WC_WARN(out, "%s", msg);
	}
	for (int L = 0; L < pb->n_levels; L++) {
		char msg[WC_ERROR_MSG_MAX];
		if (wc__fit_bounds_level_support(pb, L, msg, sizeof msg))
			WC_WARN(out, "%s", msg);
	}
	char slope[WC_ERROR_MSG_MAX];
	if (wc__fit_bounds_load_slope(pb, out->x, slope, sizeof slope))
		WC_WARN(out, "%s", slope);
	for (size_t k = 0; k < (size_t)pb->n_params; k++) {
		char msg[WC_ERROR_MSG_MAX];
		if (pb->held[k]) {
			wc__fit_bounds_describe(pb, (int)k, out->names[k], msg, sizeof msg);
			WC_WARN(out, "%s", msg);
			out->weak[k] = 1;
			continue;
		}
		int weak = (int)k == sol->weakest || (sol->se[k] > WEAK_SE && !pb->held[k]);
		if (!weak)
			continue;
		/* a singular Jacobian has no reciprocal condition number: say so, not "nan" */
		char rc[48];
		if (isfinite(sol->rcond))
			snprintf(rc, sizeof rc, "Jacobian rcond %.2g", sol->rcond);
		else
			snprintf(rc, sizeof rc, "the Jacobian is singular");
		wc_error_format(msg, sizeof msg, "%s is weakly identified by these runs (standard error %.3g in fit "
		         "units, %s); expect a wide interval", out->names[k], sol->se[k], rc);
		WC_WARN(out, "%s", msg);
		out->weak[k] = 1;
	}
}

/* The fit, then again with every parameter that left its physical bound
 * held at it, and every one the runs cannot identify at all held at its
 * starting value (bounds.c), until none is left (docs/fitting.md). */
static int
solve_within_bounds(fit_problem *pb, const double *mult, int max_iter, double *x, fit_solution *sol,
                    wc_error *err)
{
	int rc = wc__fit_solve(pb, pb->x0, mult, max_iter, 1, x, sol, err);
	double *x_alt = wc_alloc_array((size_t)pb->n_params, sizeof *x_alt);
	if (!x_alt)
		return wc_error_set(err, WC_ENOMEM, "fit: out of memory");
	for (int pass = 0; rc == WC_OK && pass < 4 * WC_MAX_LEVELS + 8; pass++) {
		if (wc__fit_bounds_apply(pb, x) == 0 && wc__fit_bounds_hold_dependent(pb, sol->dependent, x) == 0)
			break;
		/* Held where the estimate left it, the rest may be stranded where
		 * the law is flat (a logistic saturated at every run once S moved
		 * to its bound): the refit also starts from the starting values,
		 * and the lower residuals win -- by a clear margin, so a refit that
		 * was right keeps its bits (docs/fitting.md, "Physical bounds"). */
		for (int k = 0; k < pb->n_params; k++)
			x_alt[k] = pb->held[k] ? x[k] : pb->x0[k];
		fit_solution alt;
		rc = wc__fit_solve(pb, x, mult, max_iter, 1, x, sol, err);
		if (rc == WC_OK && wc__fit_solve(pb, x_alt, mult, max_iter, 1, x_alt, &alt, err) == WC_OK &&
		    isfinite(alt.rms) && !(alt.rms >= sol->rms * (1.0 - 1e-6))) {
			memcpy(x, x_alt, (size_t)pb->n_params * sizeof *x);
			*sol = alt;
		}
	}
	free(x_alt);
	if (rc != WC_OK)
		return rc;
	return WC_OK;
}

int
wc_fit_inference_law(const wc_runs_table *t, const wc_fit_options *opt, wc_fit_result *out,
                     wc_error *err)
{
	fit_problem *pb = NULL;
	double *mult = NULL, *x = NULL;
	fit_solution sol;
	wc_fit_options o = *opt;
	wc_capacity_params cap;
	char note[WC_ERROR_MSG_MAX];
	int rc;
	memset(out, 0, sizeof *out);
	/* The prefill shares' capacity model is settled once, so the estimate,
	 * its bootstrap and its predictions all use the same one. */
	if ((rc = wc__fit_prefill_capacity(t, opt, &cap, note, sizeof note, err)) != WC_OK) {
		wc_capacity_params_clear(&cap);
		return rc;
	}
	if (cap.present)
		o.capacity = &cap;
	if ((rc = wc__fit_problem_build(t, &o, &pb, err)) != WC_OK) {
		wc_capacity_params_clear(&cap);
		return rc;
	}
	opt = &o;
	const size_t p = (size_t)pb->n_params;
	mult = wc_alloc_array(pb->n_rows, sizeof *mult);
	x = wc_alloc_array(p, sizeof *x);
	out->names = wc_alloc_array(p, sizeof *out->names);
	out->x = wc_alloc_array(p, sizeof *out->x);
	out->se = wc_alloc_array(p, sizeof *out->se);
	out->weak = wc_alloc_zeroed(p, sizeof *out->weak);
	out->residuals = wc_alloc_array(t->n_runs ? t->n_runs : 1, sizeof *out->residuals);
	if (!mult || !x || !out->names || !out->x || !out->se || !out->weak || !out->residuals) {
		rc = wc_error_set(err, WC_ENOMEM, "fit: out of memory");
		goto done;
	}
	for (size_t i = 0; i < pb->n_rows; i++)
		mult[i] = opt->weight ? (double)opt->weight[pb->row[i]] : 1.0;
	if ((rc = solve_within_bounds(pb, mult, opt->max_iter > 0 ? opt->max_iter : 200, x, &sol, err)) != WC_OK)
		goto done;
	fill_estimate(pb, t, x, mult, &sol, out);
	if ((rc = wc__fit_record_rows(pb, t, mult, out, err)) != WC_OK)
		goto done;
	out->params.precision_mode = wc_fit_precision_mode(opt);
	if (cap.present) {
		wc_capacity_params_clear(&out->params.capacity);
		out->params.capacity = cap; /* moved */
		wc_capacity_params_init(&cap);
	}
	fill_residuals(pb, t, x, out);
	wc__fit_warn_outliers(t, out);
	snprintf(out->prefill_source, sizeof out->prefill_source, "%s", note);
	fill_warnings(pb, &sol, out);
	rc = WC_OK;
done:
	free(mult);
	free(x);
	wc__fit_problem_free(pb);
	wc_capacity_params_clear(&cap);
	if (rc != WC_OK)
		wc_fit_result_clear(out);
	return rc;
}

int
wc_fit_predict_run(const wc_params *p, const wc_run *run, wc_power *out, wc_error *err)
{
	wc_config c;
	/* The run's own measured idle replaces the level's P0 (in the config). */
	wc_run_config(run, &c);
	if (run->series.len)
		return wc_law_power_series(p, &c, run->series.running, run->series.weight, run->series.len,
		                           out, err);
	return wc_law_power(p, &c, out, err);
}

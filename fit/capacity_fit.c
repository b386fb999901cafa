/*
 * The capacity fit (docs/capacity.md, "Observations and fitting"): Levenberg-Marquardt
 * (GSL multifit_nlinear, trust region, finite-difference Jacobian) on the
 * bounded log coordinates, then the section it describes, the calibrated
 * ranges, residuals and the warnings a user needs (non-convergence,
 * parameters fixed or weakly identified, rows skipped).
 */
#include "capacity_internal.h"

#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>

#include "models/stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

/* A standard error of log(value) above this: the value is uncertain by
 * more than a factor e; say so. */
#define WEAK_SE_LOG 1.0

/* Standard errors of the fit coordinates: s^2 (J'WJ)^-1 with s^2 the
 * weighted residual sum of squares over n_eff - p, n_eff the effective
 * count of the observations (Kish's, (sum w)^2 / sum w^2, which is the
 * count itself when every weight is 1: docs/capacity.md, "Each model
 * counts once"). */
static void
standard_errors(gsl_multifit_nlinear_workspace *w, double n_eff, size_t p, double *se_u)
{
	gsl_matrix *J = gsl_multifit_nlinear_jac(w);
	gsl_vector *f = gsl_multifit_nlinear_residual(w);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	double chi2 = 0;
	for (size_t i = 0; i < f->size; i++)
		chi2 += gsl_vector_get(f, i) * gsl_vector_get(f, i);
	double s2 = n_eff > (double)p ? chi2 / (n_eff - (double)p) : NAN;
	for (size_t k = 0; k < p; k++)
		se_u[k] = INFINITY;
	if (cov && gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS)
		for (size_t k = 0; k < p; k++) {
			double c = gsl_matrix_get(cov, k, k);
			se_u[k] = c > 0 && isfinite(s2) ? sqrt(s2 * c) : INFINITY;
		}
	gsl_matrix_free(cov);
}

/* Huber's tuning constant: 95 % efficiency at normal errors (Huber 1981),
 * a textbook value, not one tuned to a dataset. */
#define HUBER_C 1.345
#define ROBUST_PASSES 30

/* Huber's cut, HUBER_C x 1.4826 x the median |residual| (a robust
 * standard deviation) over the observations in the fit (multiplicity >
 * 0). With design weights or twins the median is the weighted one, so
 * that each model, and each period given twice, counts once in the scale
 * too; it is the plain median when the weights are equal
 * (wc_stats_weighted_median). */
static double
huber_cut(const cap_problem *pb, const gsl_vector *f, const double *mult, wc_stats_weighted *buf)
{
	size_t m = 0;
	for (size_t o = 0; o < f->size; o++) {
		double w = pb->row_w || pb->row_share ? wc__cap_row_weight(pb, mult, pb->obs_row[o]) : 1.0;
		if (mult && !(mult[pb->obs_row[o]] > 0))
			continue;
		buf[m++] = (wc_stats_weighted){ fabs(gsl_vector_get(f, o)), w };
	}
	if (m == 0)
		return NAN;
	return HUBER_C * WC_STATS_MAD_TO_SD * wc_stats_weighted_median(buf, m);
}

static double
huber_weight(double r, double cut)
{
	r = fabs(r);
	return r > cut && cut > 0 ? cut / r : 1.0;
}

/* Iteratively reweighted least squares (docs/capacity.md, "Robust fit"):
 * every pass reweights each observation by Huber's weight of its residual
 * times its row's weight (multiplicity x design weight). 1 when the
 * weights settled. */
static int
robust_weights(const cap_problem *pb, const gsl_vector *f, const double *mult, wc_stats_weighted *buf, gsl_vector *wt)
{
	double cut = huber_cut(pb, f, mult, buf), change = 0;
	if (isnan(cut))
		return 1; /* no observation in the fit */
	for (size_t o = 0; o < f->size; o++) {
		double w = huber_weight(gsl_vector_get(f, o), cut) * wc__cap_row_weight(pb, mult, pb->obs_row[o]);
		change = fmax(change, fabs(w - gsl_vector_get(wt, o)));
		gsl_vector_set(wt, o, w);
	}
	return change < 1e-6;
}

/* LM from u (updated in place), then, for a robust fit, reweighted passes
 * until the weights settle. */
static int
solve_passes(const cap_problem *pb, gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace *w,
             gsl_vector *wt, const double *mult, int reweight, int max_iter, double *u, int *status, int *niter)
{
	const size_t p = (size_t)pb->n_params;
	wc_stats_weighted *abs_r = reweight ? wc_alloc_array(pb->n_obs, sizeof *abs_r) : NULL;
	int info = 0, passes = reweight ? ROBUST_PASSES : 1;
	/* the log residuals themselves: GSL's residual vector is sqrt(w) r,
	 * and Huber's weights are of r (docs/capacity.md, "Robust fit") */
	gsl_vector *r = reweight ? gsl_vector_alloc(pb->n_obs) : NULL;
	double *u0 = reweight ? wc_alloc_array(p, sizeof *u0) : NULL;
	if (reweight && (!abs_r || !r || !u0)) {
		free(abs_r);
		gsl_vector_free(r);
		free(u0);
		return WC_ENOMEM;
	}
	if (u0)
		memcpy(u0, u, p * sizeof *u0);
	*niter = 0;
	for (int pass = 0; pass < passes; pass++) {
		/* every pass from the same start: a parameter the last pass left
		 * at an edge of its domain (where its coordinate's gradient
		 * vanishes) could not come back */
		gsl_vector_const_view uv = gsl_vector_const_view_array(u0 ? u0 : u, p);
		if (gsl_multifit_nlinear_winit(&uv.vector, wt, fdf, w) != GSL_SUCCESS) {
			free(abs_r);
			gsl_vector_free(r);
			free(u0);
			return WC_ERANGE;
		}
		*status = gsl_multifit_nlinear_driver((size_t)max_iter, 1e-9, 1e-9, 0.0, NULL, NULL, &info, w);
		*niter += (int)gsl_multifit_nlinear_niter(w);
		memcpy(u, gsl_multifit_nlinear_position(w)->data, p * sizeof *u);
		if (reweight && (wc__cap_residuals(gsl_multifit_nlinear_position(w), (void *)pb, r) != GSL_SUCCESS ||
		                 robust_weights(pb, r, mult, abs_r, wt)))
			break;
	}
	free(abs_r);
	gsl_vector_free(r);
	free(u0);
	return WC_OK;
}

int
wc__cap_huber_weights(const cap_problem *pb, const double *u, double *w)
{
	gsl_vector *f = gsl_vector_alloc(pb->n_obs);
	wc_stats_weighted *buf = wc_alloc_array(pb->n_obs, sizeof *buf);
	gsl_vector_const_view uv = gsl_vector_const_view_array(u, (size_t)pb->n_params);
	int rc = WC_ENOMEM;
	if (f && buf) {
		wc__cap_residuals(&uv.vector, (void *)pb, f);
		double cut = huber_cut(pb, f, NULL, buf);
		for (size_t o = 0; o < pb->n_obs; o++)
			w[o] = isnan(cut) ? 1.0 : huber_weight(gsl_vector_get(f, o), cut);
		rc = WC_OK;
	}
	gsl_vector_free(f);
	free(buf);
	return rc;
}

double
wc__cap_effective_count(const cap_problem *pb, const double *mult)
{
	/* a multiplicity m counts as m copies of the row's design weight d,
	 * a twin's share s as s of one */
	double sw = 0, sw2 = 0;
	for (size_t o = 0; o < pb->n_obs; o++) {
		const size_t i = pb->obs_row[o];
		double m = (mult ? mult[i] : 1.0) * (pb->row_share ? pb->row_share[i] : 1.0);
		double d = pb->row_w ? pb->row_w[i] : 1.0;
		sw += m * d;
		sw2 += m * d * d;
	}
	return sw2 > 0 ? sw * sw / sw2 : 0.0;
}

int
wc__cap_solve(const cap_problem *pb, const double *u0, const double *mult, const double *obs_w, int max_iter, double *u,
          int *status, int *niter, double *rms, double *se_u, wc_error *err)
{
	const size_t n = pb->n_obs, p = (size_t)pb->n_params;
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	fp.trs = gsl_multifit_nlinear_trs_lm;
	fp.scale = gsl_multifit_nlinear_scale_more;
	fp.solver = gsl_multifit_nlinear_solver_qr;
	gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
	gsl_vector *wt = gsl_vector_alloc(n);
	int rc = WC_OK;
	if (!w || !wt) {
		rc = wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory for %zu observations", n);
		goto done;
	}
	double sw = 0;
	for (size_t o = 0; o < n; o++) {
		double rw = wc__cap_row_weight(pb, mult, pb->obs_row[o]);
		gsl_vector_set(wt, o, obs_w ? rw * obs_w[o] : rw);
		sw += rw;
	}
	double n_eff = wc__cap_effective_count(pb, mult);
	/* No analytic Jacobian: GSL's forward differences are enough for a
	 * few dozen parameters. */
	gsl_multifit_nlinear_fdf fdf = { wc__cap_residuals, NULL, NULL, n, p, (void *)pb, 0, 0, 0 };
	memcpy(u, u0, p * sizeof *u);
	if ((rc = solve_passes(pb, &fdf, w, wt, mult, pb->robust && !obs_w, max_iter, u, status, niter)) != WC_OK) {
		rc = rc == WC_ENOMEM ? wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory")
		                     : wc_error_set(err, WC_ERANGE, "capacity fit: the model cannot be evaluated at the start");
		goto done;
	}
	if (rms || se_u) {
		gsl_vector *f = gsl_multifit_nlinear_residual(w);
		double chi2 = 0;
		for (size_t o = 0; o < n; o++)
			chi2 += gsl_vector_get(f, o) * gsl_vector_get(f, o);
		if (rms)
			*rms = sw > 0 ? sqrt(chi2 / sw) : NAN;
		if (se_u)
			standard_errors(w, n_eff, p, se_u);
	}
done:
	if (w)
		gsl_multifit_nlinear_free(w);
	gsl_vector_free(wt);
	return rc;
}

/* A coordinate at an edge of its domain (wc__cap_at_edge: the log
 * coordinate's gradient vanishes there) is not a value the rows showed:
 * written with source "bound" (docs/capacity.md, "What the rows cannot
 * identify"). */
static wc_param
fitted(double v, double u)
{
	return (wc_param){ v, NAN, NAN, wc__cap_at_edge(u) ? WC_SRC_BOUND : WC_SRC_FITTED };
}

/* A collective the rows could not identify takes the other's value
 * (cap_problem.tied): tau_ep tied on every level is written absent (a
 * file without tau_ep reads it as tau), one tied on some levels, or tau
 * tied to tau_ep, as that value with source "assumed". */
static void
tie_collectives(const cap_problem *pb, wc_capacity_params *out)
{
	int all_ep = pb->n_levels > 0;
	for (int L = 0; L < pb->n_levels; L++)
		all_ep &= pb->tied[WC_CAP_TAU_EP][L];
	if (all_ep) {
		wc_capacity_tie_tau_ep(out);
		return;
	}
	for (int k = WC_CAP_TAU; k <= WC_CAP_TAU_EP; k++) {
		int other = k == WC_CAP_TAU ? WC_CAP_TAU_EP : WC_CAP_TAU;
		for (int L = 0; L < pb->n_levels; L++) {
			if (!pb->tied[k][L])
				continue;
			wc_param v = out->shared[other] ? out->shared_p[other] : out->levels[L].p[other];
			v = (wc_param){ v.value, NAN, NAN, WC_SRC_ASSUMED };
			if (out->shared[k])
				out->shared_p[k] = v;
			else
				out->levels[L].p[k] = v;
		}
	}
}

void
wc__cap_to_params(const cap_problem *pb, const double *u, wc_capacity_params *out)
{
	wc_capacity_params_clear(out);
	wc_capacity_params_init(out);
	out->present = 1;
	out->n_levels = pb->n_levels;
	for (int L = 0; L < pb->n_levels; L++)
		out->levels[L] = pb->levels[L];
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		out->shared[k] = !pb->per_level[k];
		for (int L = 0; L < pb->n_levels; L++) {
			int j = pb->p_kind[k][L];
			wc_param v = j >= 0 ? fitted(wc__cap_value(pb, j, u[j]), u[j])
			                    : (wc_param){ pb->fixed[k][L], NAN, NAN, WC_SRC_ASSUMED };
			if (out->shared[k])
				out->shared_p[k] = v;
			else
				out->levels[L].p[k] = v;
		}
	}
	tie_collectives(pb, out);
	out->n_workloads = pb->n_workloads;
	for (int w = 0; w < pb->n_workloads; w++) {
		snprintf(out->workloads[w].set, sizeof out->workloads[w].set, "%s", pb->workloads[w]);
		int j = pb->p_input[w];
		out->workloads[w].input_tokens = fitted(wc__cap_value(pb, j, u[j]), u[j]);
	}
	snprintf(out->tool_version, sizeof out->tool_version, "%s", WC_VERSION);
}

static void
widen(double *lo, double *hi, double v, int first)
{
	if (!(v > 0) || !isfinite(v))
		return;
	*lo = first || !(*hi > 0) ? v : fmin(*lo, v);
	*hi = first || !(*hi > 0) ? v : fmax(*hi, v);
}

/* Calibrated span of each level (extrapolation warnings). A workload's
 * fitted input length at a bound of its domain is not a length the rows
 * showed: it stays out of the span (none when no other row states one). */
static void
fill_ranges(const cap_problem *pb, wc_capacity_params *c)
{
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_capacity_row *r = &pb->data->rows[pb->row[i]];
		wc_capacity_range *g = &c->levels[pb->lvl[i]].range;
		int first = g->rows == 0;
		const wc_param *w = pb->wl[i] >= 0 ? &c->workloads[pb->wl[i]].input_tokens : NULL;
		double input = !w ? r->input_tokens : w->source == WC_SRC_BOUND ? NAN : w->value;
		widen(&g->running_min, &g->running_max, r->running, first);
		widen(&g->input_min, &g->input_max, input, first);
		widen(&g->output_min, &g->output_max, r->output_tokens, first);
		widen(&g->active_b_min, &g->active_b_max, r->active_params_b, first);
		g->tp_min = first || r->tp < g->tp_min ? r->tp : g->tp_min;
		g->tp_max = first || r->tp > g->tp_max ? r->tp : g->tp_max;
		g->rows++;
	}
}

double
wc__cap_se_log(const cap_problem *pb, int k, double u, double se_u)
{
	const cap_slot *s = &pb->slots[k];
	double t = wc__cap_share(1.0, u);
	return se_u * (s->log_hi - s->log_lo) * t * (1.0 - t);
}

int
wc__cap_se_unidentified(double se_log)
{
	return !(se_log <= WC_CAPACITY_UNIDENTIFIED_SE_LOG);
}

int
wc_capacity_fit_unidentified(const wc_capacity_fit_result *r, int k)
{
	return k >= 0 && k < r->n_params && r->se_log && wc__cap_se_unidentified(r->se_log[k]);
}

int
wc_capacity_fit_named_unidentified(const wc_capacity_fit_result *r, const char *name)
{
	for (int k = 0; k < r->n_params; k++)
		if (strcmp(r->names[k], name) == 0)
			return wc_capacity_fit_unidentified(r, k);
	return 0;
}

/* A level whose own parameters rest on one row: the bootstrap resamples
 * that row alone, so their intervals describe it, not the level, as fit
 * inference and fit response say of a level on one run
 * (docs/capacity.md, "What the rows cannot identify"). */
static void
one_row_levels(const cap_problem *pb, wc_capacity_fit_result *out)
{
	for (int L = 0; L < pb->n_levels; L++) {
		char own[WC_WARNING_LEN / 2] = "";
		size_t used = 0;
		int n = 0;
		for (int k = 0; k < WC_CAP_KINDS; k++) {
			int j = pb->p_kind[k][L];
			if (j < 0 || !pb->per_level[k] || used >= sizeof own)
				continue;
			used += (size_t)snprintf(own + used, sizeof own - used, "%s%s", n++ ? ", " : "", out->names[j]);
		}
		if (n && out->params.levels[L].range.rows == 1)
			WC_WARN(out, "level %s: 1 row for its own %s: a bootstrap resamples that row alone, so %s "
			        "intervals, and the answers' on %s, describe that row, not the level; give rows at more "
			        "loads (docs/capacity.md)", pb->levels[L].name, own, n > 1 ? "their" : "its",
			        pb->levels[L].name);
	}
}

static void
fill_warnings(const cap_problem *pb, const wc_capacity_data *d, wc_capacity_fit_result *out)
{
	char msg[WC_ERROR_MSG_MAX];
	for (int i = 0; i < d->n_notes; i++)
		WC_WARN(out, "%s", d->notes[i]);
	for (int i = 0; i < pb->n_warnings; i++)
		WC_WARN(out, "%s", pb->warnings[i]);
	if (!out->converged) {
		wc_error_format(msg, sizeof msg, "capacity fit did not converge: %s after %d iterations (estimate reported as is)",
		         gsl_strerror(out->gsl_status), out->niter);
		WC_WARN(out, "%s", msg);
	}
	one_row_levels(pb, out);
	for (int k = 0; k < pb->n_params; k++) {
		if (wc__cap_at_edge(out->u[k]))
			wc_error_format(msg, sizeof msg, "%s = %.4g sits at the edge of its domain: the rows do not pin it down "
			         "(written with source \"bound\"; answers that use it say so)", out->names[k], out->x[k]);
		else if (wc_capacity_fit_unidentified(out, (int)k)) {
			/* a singular curvature: the rows move the fit not at all along it */
			char se[48] = "no standard error";
			if (isfinite(out->se_log[k]))
				snprintf(se, sizeof se, "standard error of its log %.3g", out->se_log[k]);
			wc_error_format(msg, sizeof msg, "%s is not identified by these rows (the fit's curvature along it is "
			         "zero: %s); it has no interval, since resampling these rows, however narrow, does not "
			         "say what it could be", out->names[k], se);
		}
		else if (out->se_log[k] > WEAK_SE_LOG)
			wc_error_format(msg, sizeof msg, "%s is weakly identified by these rows (standard error of its log %.3g); "
			         "expect a wide interval", out->names[k], out->se_log[k]);
		/* An efficiency is a share of the datasheet: above 1 the rows are
		 * faster than the board can be, i.e. their engine is faster than
		 * the one the other levels were fitted on (docs/capacity.md). */
		else if (strncmp(out->names[k], "eta", 3) == 0 && out->x[k] > 1.0)
			wc_error_format(msg, sizeof msg, "%s = %.3g is above 1: these rows run faster than the board's datasheet "
			         "allows, so its answers carry their engine's speed, not the board's (docs/capacity.md)",
			         out->names[k], out->x[k]);
		else
			continue;
		WC_WARN(out, "%s", msg);
	}
}

static int
alloc_result(wc_capacity_fit_result *out, size_t p, size_t rows)
{
	out->names = wc_alloc_array(p ? p : 1, sizeof *out->names);
	out->x = wc_alloc_array(p ? p : 1, sizeof *out->x);
	out->u = wc_alloc_array(p ? p : 1, sizeof *out->u);
	out->se_log = wc_alloc_array(p ? p : 1, sizeof *out->se_log);
	out->row_residual = wc_alloc_array(rows ? rows : 1, sizeof *out->row_residual);
	return out->names && out->x && out->u && out->se_log && out->row_residual ? WC_OK : WC_ENOMEM;
}

/* log(model / measured) of each fitted row's first observation. */
static void
fill_residuals(const cap_problem *pb, const wc_capacity_data *d, wc_capacity_fit_result *out)
{
	gsl_vector *f = gsl_vector_alloc(pb->n_obs);
	gsl_vector_view uv = gsl_vector_view_array(out->u, (size_t)pb->n_params);
	for (size_t i = 0; i < d->n_rows; i++)
		out->row_residual[i] = NAN;
	if (!f || wc__cap_residuals(&uv.vector, (void *)pb, f) != GSL_SUCCESS) {
		gsl_vector_free(f);
		return;
	}
	for (size_t o = pb->n_obs; o-- > 0;)
		out->row_residual[pb->row[pb->obs_row[o]]] = gsl_vector_get(f, o);
	for (size_t m = 0; m < pb->n_merged; m++) /* a twin: its stand-in's */
		out->row_residual[pb->merged[m][0]] = out->row_residual[pb->row[pb->merged[m][1]]];
	gsl_vector_free(f);
}

/* The runs-table rows the fit used, by platform and run id: a replay of
 * one of them takes service times this section fitted on it, which
 * `validate envelope` and `validate heldout` say (docs/validation.md,
 * "Envelopes"). One input's bytes are its input_sha256 too; several
 * inputs fold into a hash no one table has. */
static int
record_runs(const cap_problem *pb, const wc_capacity_data *d, wc_capacity_params *c, wc_error *err)
{
	uint64_t *h = wc_alloc_array(pb->n_rows + 1, sizeof *h);
	int n = 0;
	if (!h)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_capacity_row *r = &d->rows[pb->row[i]];
		if (r->from_periods)
			continue;
		uint64_t x = wc_run_id_hash(r->platform, r->id);
		int seen = 0;
		for (int j = 0; j < n && !seen; j++)
			seen = h[j] == x;
		if (!seen)
			h[n++] = x;
	}
	int rc = wc_capacity_params_set_runs(c, h, n, err);
	free(h);
	return rc;
}

int
wc_fit_capacity(const wc_capacity_data *d, const wc_capacity_fit_options *o,
                wc_capacity_fit_result *out, wc_error *err)
{
	cap_problem *pb = NULL;
	double se_u[CAP_MAX_PARAMS];
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = wc__cap_problem_build(d, o, &pb, err)) != WC_OK)
		return rc;
	double *mult = NULL;
	if (o->weight && !(mult = wc_alloc_array(pb->n_rows, sizeof *mult))) {
		rc = wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
		goto done;
	}
	for (size_t i = 0; mult && i < pb->n_rows; i++)
		mult[i] = o->weight[pb->row[i]];
	if (alloc_result(out, (size_t)pb->n_params, d->n_rows) != WC_OK) {
		rc = wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
		goto done;
	}
	/* A level's own parameter at an edge, where other levels identify
	 * theirs, is held at their median and the fit solved again from the
	 * same start without it, until no new one is (each pass removes a
	 * slot, so at most one pass per parameter; docs/capacity.md, "What
	 * the rows cannot identify"). */
	do {
		if ((rc = wc__cap_solve(pb, pb->u0, mult, NULL, o->max_iter > 0 ? o->max_iter : 500, out->u,
		                    &out->gsl_status, &out->niter, &out->rms, se_u, err)) != WC_OK)
			goto done;
	} while (wc__cap_hold_edges(pb, out->u, se_u) > 0);
	const size_t p = (size_t)pb->n_params;
	out->converged = out->gsl_status == GSL_SUCCESS;
	out->n_rows = (int)pb->n_rows;
	out->n_obs = (int)pb->n_obs;
	out->n_params = (int)p;
	out->n_eff = wc__cap_effective_count(pb, mult);
	for (size_t k = 0; k < p; k++) {
		wc__cap_param_name(pb, (int)k, out->names[k], WC_LABEL_MAX);
		out->x[k] = wc__cap_value(pb, (int)k, out->u[k]);
		out->se_log[k] = wc__cap_se_log(pb, (int)k, out->u[k], se_u[k]);
	}
	wc__cap_to_params(pb, out->u, &out->params);
	fill_ranges(pb, &out->params);
	snprintf(out->params.input_sha256, sizeof out->params.input_sha256, "%s", d->sha256);
	out->params.rows = out->n_rows;
	if ((rc = record_runs(pb, d, &out->params, err)) != WC_OK)
		goto done;
	fill_residuals(pb, d, out);
	fill_warnings(pb, d, out);
done:
	free(mult);
	wc__cap_problem_free(pb);
	if (rc != WC_OK)
		wc_capacity_fit_result_clear(out);
	return rc;
}

void
wc_capacity_fit_result_clear(wc_capacity_fit_result *r)
{
	if (!r)
		return;
	wc_capacity_params_clear(&r->params);
	free(r->names);
	free(r->x);
	free(r->u);
	free(r->se_log);
	free(r->row_residual);
	memset(r, 0, sizeof *r);
}

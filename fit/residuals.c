/*
 * Residuals and analytic Jacobian of the joint fit (SPEC §1):
 *   r_i = log D_i − log(P̄_i − G·P0_i)                   (P0 known)
 *   r_i = log(G·P0 + D_i) − log P̄_i                      (P0 fitted)
 *   D_i = G · scale_i · Σ_j w_ij g(z0_i + γ1 ℓn_ij + γ2 ℓn_ij²)
 *   scale_i = S_L · m_KV · exp(κ ℓf_i),  z0_i = θ_L + δ ℓN_i + b_w
 * with the run's loaded points j (a closed-loop run has one). Derivatives
 * follow by the chain rule through g (models/form.c gives g' in z and in
 * the floor logit); S, P0 and m are fitted as logs.
 */
#include "fit/fit_internal.h"

#include <gsl/gsl_errno.h>
#include <math.h>

/* Per-row pieces shared by f and J. */
typedef struct {
	double scale, z0, D;           /* D per the row's G */
	double dD_dz, dD_dfloor;       /* ∂D/∂z0 (= ∂/∂θ, ∂/∂b), ∂D/∂φ */
	double dD_dg1, dD_dg2;         /* ∂D/∂γ1, ∂D/∂γ2 */
	double p0, denom;              /* fitted P0 (or NaN) and log argument */
} row_eval;

static double
get(const gsl_vector *x, int k, double fallback)
{
	return k >= 0 ? gsl_vector_get(x, (size_t)k) : fallback;
}

static void
eval_row(const fit_problem *pb, const gsl_vector *x, size_t i, int want_derivs, row_eval *e)
{
	const int L = pb->lvl[i];
	const double g1 = get(x, pb->p_gamma1, 0.0), g2 = get(x, pb->p_gamma2, 0.0);
	const double fl = get(x, pb->p_floor[L], 0.0);
	double scale = pb->p_s[L] >= 0 ? exp(gsl_vector_get(x, (size_t)pb->p_s[L])) : 1.0;
	double z0 = gsl_vector_get(x, (size_t)pb->p_theta[L]) + get(x, pb->p_delta, 0.0) * pb->l_n[i];
	const int terms[2] = { pb->term_w[i], pb->term_kv[i] };
	for (int t = 0; t < 2; t++) {
		int k = terms[t] >= 0 ? pb->p_term[terms[t]] : -1;
		if (k < 0)
			continue;
		if (pb->slots[k].kind == PK_TERM_SHIFT)
			z0 += gsl_vector_get(x, (size_t)k);
		else
			scale *= exp(gsl_vector_get(x, (size_t)k));
	}
	if (pb->p_kappa >= 0 && pb->l_f[i] != 0.0)
		scale *= exp(gsl_vector_get(x, (size_t)pb->p_kappa) * pb->l_f[i]);
	double sum = 0, sz = 0, sf = 0, s1 = 0, s2 = 0;
	for (size_t j = pb->off[i]; j < pb->off[i + 1]; j++) {
		const double ln = pb->ln_pt[j], w = pb->w_pt[j];
		double gz, gf;
		double g = wc_form_link(pb->form, z0 + g1 * ln + g2 * ln * ln, fl, &gz, &gf);
		sum += w * g;
		if (want_derivs) {
			sz += w * gz;
			sf += w * gf;
			s1 += w * gz * ln;
			s2 += w * gz * ln * ln;
		}
	}
	const double G = pb->G[i];
	e->scale = scale;
	e->z0 = z0;
	e->D = G * scale * sum;
	if (!(e->D > 1e-300))
		e->D = 1e-300; /* a saturated-low logistic: keep log finite */
	e->dD_dz = G * scale * sz;
	e->dD_dfloor = G * scale * sf;
	e->dD_dg1 = G * scale * s1;
	e->dD_dg2 = G * scale * s2;
	e->p0 = pb->p_p0[L] >= 0 ? exp(gsl_vector_get(x, (size_t)pb->p_p0[L])) : NAN;
	e->denom = isfinite(e->p0) ? G * e->p0 + e->D : e->D;
}

int
fit_residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
	const fit_problem *pb = params;
	for (size_t i = 0; i < pb->n_rows; i++) {
		row_eval e;
		eval_row(pb, x, i, 0, &e);
		double r = log(e.denom) - pb->y[i];
		if (!isfinite(r))
			return GSL_EDOM;
		gsl_vector_set(f, i, r);
	}
	return GSL_SUCCESS;
}

int
fit_jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
	const fit_problem *pb = params;
	gsl_matrix_set_zero(J);
	for (size_t i = 0; i < pb->n_rows; i++) {
		row_eval e;
		eval_row(pb, x, i, 1, &e);
		const int L = pb->lvl[i];
		const double inv = 1.0 / e.denom;
		/* ∂ log(denom) / ∂(log scale) = D / denom for S, m, κ·ℓf. */
		const double d_logscale = e.D * inv;
		if (pb->p_s[L] >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_s[L], d_logscale);
		gsl_matrix_set(J, i, (size_t)pb->p_theta[L], e.dD_dz * inv);
		if (pb->p_floor[L] >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_floor[L], e.dD_dfloor * inv);
		if (pb->p_p0[L] >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_p0[L], pb->G[i] * e.p0 * inv);
		if (pb->p_delta >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_delta, e.dD_dz * pb->l_n[i] * inv);
		if (pb->p_gamma1 >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_gamma1, e.dD_dg1 * inv);
		if (pb->p_gamma2 >= 0)
			gsl_matrix_set(J, i, (size_t)pb->p_gamma2, e.dD_dg2 * inv);
		if (pb->p_kappa >= 0 && pb->l_f[i] != 0.0)
			gsl_matrix_set(J, i, (size_t)pb->p_kappa, d_logscale * pb->l_f[i]);
		const int terms[2] = { pb->term_w[i], pb->term_kv[i] };
		for (int t = 0; t < 2; t++) {
			int k = terms[t] >= 0 ? pb->p_term[terms[t]] : -1;
			if (k < 0)
				continue;
			gsl_matrix_set(J, i, (size_t)k, pb->slots[k].kind == PK_TERM_SHIFT
			               ? e.dD_dz * inv : d_logscale);
		}
	}
	return GSL_SUCCESS;
}

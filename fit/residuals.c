/*
 * Residuals and analytic Jacobian of the joint fit (docs/fitting.md):
 *   r_i = log D_i − log(P̄_i − G·P0_i)                   (P0 known)
 *   r_i = log(G·P0 + D_i) − log P̄_i                      (P0 fitted)
 *   D_i = G · scale_i · Σ_j w_ij g(z0_i + γ1 a_ij + γ2 a_ij²)
 *   scale_i = S_L · m_KV · exp(κ ℓf_i),  z0_i = θ_L + δ ℓN_i + b_w
 * over the run's loaded points j (a closed-loop run has one), where a_ij is
 * ℓn_ij or, where the load term would turn around, the argument of its
 * running maximum (wc_law_load_argument; its derivatives in γ1, γ2 are a
 * and a²). Everything is
 * evaluated in log space — log D = log G + log S + log m + κ·ℓf + log Σ wg —
 * so a run costs one exp and one log, and the derivatives of a run
 * (∂r/∂log-scale = D/denom, ∂r/∂z0 = D/denom · Σwg'/Σwg, ...) are kept from
 * the residual call: GSL asks for the Jacobian at the point whose residuals
 * it has just evaluated.
 *
 * The prefill-aware form mixes in the run's prefill share ρ_i (fixed data,
 * docs/inference-law.md): per GPU, with u = duty cycle and d the decode
 * dynamic above, D/G = d + ρ·max(0, u·A − d) = u·(d/u + ρ·max(0, A − d/u)),
 * A = φ·(P_max − P0)·(f/f_ref)^κ: one request's mix for a share u of the
 * time (a locked clock scales the prefill's power as the decode's). Where the prefill term is
 * active, ∂log D/∂log d = (1 − ρ)·d/(D/G) and ∂log D/∂log φ = u·ρ·A/(D/G).
 * A series mixes each loaded point j on its own, D/G = Σ_j w_ij·(d_j +
 * ρ·max(0, A − d_j)) with d_j = scale·g_j, so its idle time draws no
 * prefill, as the prediction's average (wc_law_point_power).
 */
/* GSL's element accessors inline (with their range checks): called for
 * every parameter of every row of every evaluation, as functions they
 * cost 7 % of a bootstrap refit (docs/results.md, fit speed). */
#define HAVE_INLINE 1
#include "fit_internal.h"
#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Derivatives of one residual with respect to the law's pieces. */
typedef struct {
	double d_logscale; /* wrt log S, log m, and (times ℓf) κ */
	double d_z0;       /* wrt θ, δ (times ℓN), a shift b */
	double d_floor, d_g1, d_g2;
	double d_logp0;    /* wrt log P0 (fitted P0 only) */
	double d_logphi;   /* wrt log phi (prefill-aware form) */
} row_derivs;

struct fit_eval {
	const fit_problem *pb;
	double *x;          /* point of the cached derivatives */
	double *xs;         /* the point with held parameters at their bound */
	int valid;
	row_derivs *d;      /* n_rows */
	const double *sw;   /* square roots of the row weights; NULL = 1 */
};

fit_eval *
wc__fit_eval_new(const fit_problem *pb)
{
	fit_eval *ev = calloc(1, sizeof *ev);
	if (!ev)
		return NULL;
	ev->pb = pb;
	ev->x = wc_alloc_array((size_t)pb->n_params, sizeof *ev->x);
	ev->xs = wc_alloc_array((size_t)pb->n_params, sizeof *ev->xs);
	ev->d = wc_alloc_array(pb->n_rows, sizeof *ev->d);
	if (!ev->x || !ev->xs || !ev->d) {
		wc__fit_eval_free(ev);
		return NULL;
	}
	return ev;
}

void
wc__fit_eval_weigh(fit_eval *ev, const double *sqrt_w)
{
	ev->sw = sqrt_w;
}

void
wc__fit_eval_free(fit_eval *ev)
{
	if (!ev)
		return;
	free(ev->x);
	free(ev->xs);
	free(ev->d);
	free(ev);
}

static double
get(const gsl_vector *x, int k, double fallback)
{
	return k >= 0 ? gsl_vector_get(x, (size_t)k) : fallback;
}

/* A, the prefill's dynamic power per GPU for row i (docs/inference-law.md,
 * "Prefill-aware form"), and in `dp0` its derivative in log P0 (0 unless
 * P0 is fitted and below the board's limit). */
static double
prefill_power(const fit_problem *pb, const gsl_vector *x, size_t i, double *dp0)
{
	const int L = pb->lvl[i];
	const double phi = pb->p_phi >= 0 ? exp(gsl_vector_get(x, (size_t)pb->p_phi)) : pb->phi_fixed.value;
	const double p0 = pb->p_p0[L] >= 0 ? exp(gsl_vector_get(x, (size_t)pb->p_p0[L])) : pb->levels[L].p0.value;
	const double clock = pb->p_kappa >= 0 ? exp(gsl_vector_get(x, (size_t)pb->p_kappa) * pb->l_f[i])
	                     : pb->l_f[i] != 0.0 ? exp(pb->kappa_fixed.value * pb->l_f[i]) : 1.0;
	*dp0 = pb->p_p0[L] >= 0 && p0 < pb->p_max[L] ? -phi * clock * p0 : 0.0;
	return phi * fmax(0.0, pb->p_max[L] - p0) * clock;
}

/* The prefill-aware form's mix for row i (docs/inference-law.md): log of
 * the mixed dynamic power per GPU from log d, the decode's; `c` scales
 * every derivative through d, `dphi` and `dp0` are those through A (in log
 * phi and, when fitted, log P0). */
static double
prefill_mix(const fit_problem *pb, const gsl_vector *x, size_t i, double log_d, double *c, double *dphi,
            double *dp0)
{
	const double rho = pb->rho[i], u = pb->duty[i], dec = exp(log_d);
	double a_dp0;
	const double a = prefill_power(pb, x, i, &a_dp0);
	if (!(a > dec / u))
		return log_d; /* the prefill draws no more than decoding */
	const double mix = (1.0 - rho) * dec + u * rho * a;
	*c = (1.0 - rho) * dec / mix;
	*dphi = u * rho * a / mix;
	*dp0 = u * rho * a_dp0 / mix;
	return log(mix);
}

/* Residual of row i and, in `d`, its derivatives. */
static double
eval_row(const fit_problem *pb, const gsl_vector *x, size_t i, row_derivs *d)
{
	const int L = pb->lvl[i];
	const double g1 = get(x, pb->p_gamma1, 0.0), g2 = get(x, pb->p_gamma2, 0.0);
	const double fl = get(x, pb->p_floor[L], 0.0);
	double log_scale = pb->p_s[L] >= 0 ? gsl_vector_get(x, (size_t)pb->p_s[L]) : 0.0;
	double z0 = gsl_vector_get(x, (size_t)pb->p_theta[L]) + get(x, pb->p_delta, 0.0) * pb->l_n[i];
	const int terms[2] = { pb->term_w[i], pb->term_kv[i] };
	for (int t = 0; t < 2; t++) {
		int k = terms[t] >= 0 ? pb->p_term[terms[t]] : -1;
		if (k < 0)
			continue;
		if (pb->slots[k].kind == PK_TERM_SHIFT)
			z0 += gsl_vector_get(x, (size_t)k);
		else
			log_scale += gsl_vector_get(x, (size_t)k);
	}
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (pb->p_lt[k] >= 0)
			z0 += gsl_vector_get(x, (size_t)pb->p_lt[k]) * pb->lt_x[i * WC_LT_COUNT + (size_t)k];
	if (pb->p_kappa >= 0)
		log_scale += gsl_vector_get(x, (size_t)pb->p_kappa) * pb->l_f[i];
	/* log Σ w g and the ratios Σ w g' / Σ w g the derivatives need */
	double log_g, rz, rf, r1, r2;
	double c = 1.0, dphi = 0.0, dp0 = 0.0, log_mix = NAN;
	const size_t j0 = pb->off[i], j1 = pb->off[i + 1];
	const int closed = j1 - j0 == 1 && pb->w_pt[j0] == 1.0 && pb->form != WC_FORM_FLOOR_PLUS_RISE;
	if (closed) {
		/* One load point (closed loop): log g and g'/g in closed form. */
		double ln;
		const double z = wc_law_z(z0, g1, g2, pb->ln_pt[j0], &ln);
		log_g = wc_form_link_log(pb->form, z, fl, &rz, NULL);
		rf = 0.0;
		r1 = rz * ln;
		r2 = rz * ln * ln;
	} else {
		/* The prefill-aware form mixes each point on its own, as
		 * wc_law_point_power does (docs/inference-law.md, "Averaging over
		 * a load series"): Σ w (d + ρ·max(0, A − d)) over the loaded
		 * points, so the idle time, in the total only, draws no prefill.
		 * k = 1 − ρ weighs the decode where the prefill draws more. */
		const double rho = pb->rho[i], scale = exp(log_scale);
		double a_dp0 = 0.0, si = 0.0;
		const double a = rho > 0.0 ? prefill_power(pb, x, i, &a_dp0) : 0.0;
		double sg = 0, sz = 0, sf = 0, s1 = 0, s2 = 0;
		for (size_t j = j0; j < j1; j++) {
			double ln, gz, gf;
			const double z = wc_law_z(z0, g1, g2, pb->ln_pt[j], &ln);
			double g = wc_form_link(pb->form, z, fl, &gz, &gf), w = pb->w_pt[j];
			if (rho > 0.0 && a > scale * g) {
				si += w;
				w *= 1.0 - rho;
			}
			sg += w * g;
			sz += w * gz;
			sf += w * gf;
			s1 += w * gz * ln;
			s2 += w * gz * ln * ln;
		}
		if (!(sg > 1e-300))
			sg = 1e-300; /* a saturated-low logistic: keep log finite */
		log_g = log(sg);
		rz = sz / sg;
		rf = sf / sg;
		r1 = s1 / sg;
		r2 = s2 / sg;
		if (si > 0.0) {
			const double mix = scale * sg + rho * a * si;
			log_mix = log(mix);
			c = scale * sg / mix;
			dphi = rho * a * si / mix;
			dp0 = rho * a_dp0 * si / mix;
		}
	}
	double log_dyn = log(pb->G[i]) + (isfinite(log_mix) ? log_mix : log_scale + log_g);
	if (pb->rho[i] > 0.0 && closed)
		log_dyn = log(pb->G[i]) + prefill_mix(pb, x, i, log_scale + log_g, &c, &dphi, &dp0);
	double frac = 1.0, r;
	if (pb->p_p0[L] >= 0) {
		/* log(G·P0 + D): the share D/denom weighs the dynamic part. */
		const double log_idle = log(pb->G[i]) + gsl_vector_get(x, (size_t)pb->p_p0[L]);
		const double m = fmax(log_idle, log_dyn);
		const double log_denom = m + log(exp(log_idle - m) + exp(log_dyn - m));
		frac = exp(log_dyn - log_denom);
		r = log_denom - pb->y[i];
	} else {
		r = log_dyn - pb->y[i];
	}
	d->d_logscale = frac * c;
	d->d_z0 = frac * c * rz;
	d->d_floor = frac * c * rf;
	d->d_g1 = frac * c * r1;
	d->d_g2 = frac * c * r2;
	d->d_logp0 = 1.0 - frac + frac * dp0;
	d->d_logphi = frac * dphi;
	return r;
}

/* x with held parameters at their bound (bounds.c): LM's step in a zero
 * Jacobian column is zero up to rounding, which must not move them. */
static const gsl_vector *
held_point(fit_eval *ev, const gsl_vector *x, gsl_vector_view *view)
{
	const fit_problem *pb = ev->pb;
	if (!pb->n_held)
		return x;
	for (int k = 0; k < pb->n_params; k++)
		ev->xs[k] = pb->held[k] ? pb->hold_value[k] : gsl_vector_get(x, (size_t)k);
	*view = gsl_vector_view_array(ev->xs, (size_t)pb->n_params);
	return &view->vector;
}

int
wc__fit_residuals(const gsl_vector *x_in, void *params, gsl_vector *f)
{
	fit_eval *ev = params;
	const fit_problem *pb = ev->pb;
	gsl_vector_view view;
	const gsl_vector *x = held_point(ev, x_in, &view);
	for (size_t i = 0; i < pb->n_rows; i++) {
		double r = eval_row(pb, x, i, &ev->d[i]);
		if (!isfinite(r)) {
			ev->valid = 0;
			return GSL_EDOM;
		}
		gsl_vector_set(f, i, ev->sw ? r * ev->sw[i] : r);
	}
	memcpy(ev->x, x_in->data, (size_t)pb->n_params * sizeof *ev->x);
	ev->valid = x_in->stride == 1;
	return GSL_SUCCESS;
}

/* Row i of J times sqrt(w_i), as GSL's own weighting did it (its dscal
 * writes zeros for a zero weight; a product would keep -0 and NaN). */
static void
weigh_row(double *row, int p, double sw)
{
	for (int k = 0; k < p; k++)
		row[k] = sw == 0.0 ? 0.0 : sw * row[k];
}

int
wc__fit_jacobian(const gsl_vector *x_in, void *params, gsl_matrix *J)
{
	fit_eval *ev = params;
	const fit_problem *pb = ev->pb;
	const gsl_vector *x = x_in;
	int cached = ev->valid && x_in->stride == 1 &&
	             memcmp(ev->x, x_in->data, (size_t)pb->n_params * sizeof *ev->x) == 0;
	gsl_vector_view view;
	if (!cached)
		x = held_point(ev, x_in, &view);
	gsl_matrix_set_zero(J);
	for (size_t i = 0; i < pb->n_rows; i++) {
		row_derivs tmp;
		const row_derivs *d = &ev->d[i];
		if (!cached) {
			eval_row(pb, x, i, &tmp);
			d = &tmp;
		}
		const int L = pb->lvl[i];
		double *row = gsl_matrix_ptr(J, i, 0);
		if (pb->p_s[L] >= 0)
			row[pb->p_s[L]] = d->d_logscale;
		row[pb->p_theta[L]] = d->d_z0;
		if (pb->p_floor[L] >= 0)
			row[pb->p_floor[L]] = d->d_floor;
		if (pb->p_p0[L] >= 0)
			row[pb->p_p0[L]] = d->d_logp0;
		if (pb->p_delta >= 0)
			row[pb->p_delta] = d->d_z0 * pb->l_n[i];
		if (pb->p_gamma1 >= 0)
			row[pb->p_gamma1] = d->d_g1;
		if (pb->p_gamma2 >= 0)
			row[pb->p_gamma2] = d->d_g2;
		if (pb->p_kappa >= 0) /* through D and, for the prefill form, A */
			row[pb->p_kappa] = (d->d_logscale + d->d_logphi) * pb->l_f[i];
		if (pb->p_phi >= 0)
			row[pb->p_phi] = d->d_logphi;
		for (int k = 0; k < WC_LT_COUNT; k++)
			if (pb->p_lt[k] >= 0)
				row[pb->p_lt[k]] = d->d_z0 * pb->lt_x[i * WC_LT_COUNT + (size_t)k];
		const int terms[2] = { pb->term_w[i], pb->term_kv[i] };
		for (int t = 0; t < 2; t++) {
			int k = terms[t] >= 0 ? pb->p_term[terms[t]] : -1;
			if (k >= 0)
				row[k] = pb->slots[k].kind == PK_TERM_SHIFT ? d->d_z0 : d->d_logscale;
		}
		for (int k = 0; pb->n_held && k < pb->n_params; k++)
			if (pb->held[k])
				row[k] = 0.0;
		if (ev->sw)
			weigh_row(row, pb->n_params, ev->sw[i]);
	}
	return GSL_SUCCESS;
}

/*
 * The fine-tuning law's least-squares fits (docs/finetune.md, "Fitting"):
 * E_step = e0 + kappa F_step and the per-factor relations of e_tok, each
 * minimising relative residuals through LAPACK's dgels, with standard
 * errors from (A^T A)^-1 and R^2 on the natural scale (comparable to the
 * published R^2).
 */
#include "finetune_fit_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
wc_ft_run_facts_of(const wc_ft_run *run, wc_ft_run_facts *out, wc_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = wc_ft_flops_compute(&run->config, &out->flops, err);
	if (rc != WC_OK)
		return rc;
	out->ok = 1;
	out->energy_per_token_j = run->energy_per_step_j / out->flops.tokens_per_step;
	return WC_OK;
}

/* Below this determinant of the design's Gram matrix, columns scaled to
 * unit length, the rows kept do not determine p coefficients: it is 1 -
 * cos^2 of the columns' angle when p = 2, and a resample of runs of one
 * configuration, whose columns are proportional, gave rounding (e0 -7e16
 * J, kappa 1e14 J/TFLOP) as a "fitted" replicate. 1e-10 is F varying by
 * about 1e-5 of itself over runs of one G; a choice of wattcast
 * (docs/finetune.md, "Fitting"). */
#define GRAM_DET_MIN 1e-10

/* Whether the m x p row-major `a` (p <= 3) is rank deficient to rounding:
 * the Gram determinant of its unit-length columns is the product of their
 * squared singular values (LAPACK's SVD, fit/linalg.h). */
static int
rank_deficient(const double *a, int m, int p)
{
	double norm[3] = { 0.0, 0.0, 0.0 }, sing[3], v[3], det = 1.0;
	for (int k = 0; k < m; k++)
		for (int j = 0; j < p; j++)
			norm[j] += a[(size_t)k * p + j] * a[(size_t)k * p + j];
	for (int j = 0; j < p; j++)
		if (!(norm[j] > 0))
			return 1;
	double *u = wc_alloc_array((size_t)m * (size_t)p, sizeof *u);
	if (!u)
		return 1;
	for (int k = 0; k < m; k++)
		for (int j = 0; j < p; j++)
			u[(size_t)k * p + j] = a[(size_t)k * p + j] / sqrt(norm[j]);
	int info = wc__fit_linalg_svd_weakest(u, m, p, sing, v);
	free(u);
	for (int j = 0; j < p; j++)
		det *= sing[j] * sing[j];
	return info != 0 || !(det > GRAM_DET_MIN);
}

int
wc__ft_lstsq(const double *X, const double *y, const double *mult, int n, int p, double *scratch,
             double *coef)
{
	double *a = scratch, *b = scratch + (size_t)n * p;
	int m = 0;
	for (int i = 0; i < n; i++) {
		double w = mult ? mult[i] : 1.0;
		if (!(w > 0))
			continue;
		double s = sqrt(w) / y[i];
		for (int j = 0; j < p; j++)
			a[(size_t)m * p + j] = X[(size_t)i * p + j] * s;
		b[m++] = sqrt(w);
	}
	if (m < p || rank_deficient(a, m, p))
		return -1;
	int info = wc__fit_linalg_lstsq(a, b, m, p);
	if (info != 0)
		return info;
	for (int j = 0; j < p; j++) {
		coef[j] = b[j];
		if (!isfinite(coef[j]))
			return -1;
	}
	return 0;
}

/* R^2 of y against X c, and the standard errors of c from the weighted
 * residuals. */
static int
fit_quality(const double *X, const double *y, int n, int p, const double *coef,
            wc_ft_linear_fit *out)
{
	double mean = 0.0, ss_tot = 0.0, ss_res = 0.0, ss_rel = 0.0;
	double *a = wc_alloc_array((size_t)n * p, sizeof *a), inv[9];
	if (!a)
		return WC_ENOMEM;
	for (int i = 0; i < n; i++)
		mean += y[i] / n;
	for (int i = 0; i < n; i++) {
		double fitted = 0.0;
		for (int j = 0; j < p; j++) {
			fitted += coef[j] * X[(size_t)i * p + j];
			a[(size_t)i * p + j] = X[(size_t)i * p + j] / y[i];
		}
		ss_res += (y[i] - fitted) * (y[i] - fitted);
		ss_rel += (y[i] - fitted) * (y[i] - fitted) / (y[i] * y[i]);
		ss_tot += (y[i] - mean) * (y[i] - mean);
	}
	out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : NAN;
	out->rms_rel = n > p ? sqrt(ss_rel / (n - p)) : NAN;
	int ok = n > p && wc__fit_linalg_normal_inverse(a, n, p, inv) == 0;
	for (int j = 0; j < p; j++)
		out->se[j] = ok ? sqrt(ss_rel / (n - p) * inv[j * p + j]) : NAN;
	free(a);
	return WC_OK;
}

/* Fit X (n x p) against y, fill `out` (coefficients, SE, R^2, counts).
 * Too few distinct x are refused naming x's column and the remedy: a
 * table of repeats of one job said only "needs at least 3 runs at 2
 * distinct values, got 4 at 1" (docs/finetune.md, "Fitting"). */
static int
fit_rows(const double *X, const double *y, const double *x, int n, int p, const char *what,
         const char *x_name, const char *remedy, wc_ft_linear_fit *out, wc_error *err)
{
	double *scratch = wc_alloc_array((size_t)n * (p + 1), sizeof *scratch);
	memset(out, 0, sizeof *out);
	out->terms = p;
	out->n = n;
	out->x_lo = INFINITY;
	out->x_hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int k = 0; k < i && !seen; k++)
			seen = x[k] == x[i];
		out->levels += !seen;
		out->x_lo = fmin(out->x_lo, x[i]);
		out->x_hi = fmax(out->x_hi, x[i]);
	}
	if (!scratch)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", what);
	int rc = WC_OK;
	if (n <= p || out->levels < p)
		rc = wc_error_set(err, WC_EINVAL, "%s: needs at least %d runs at %d distinct %s, got %d at %d; %s",
		                  what, p + 1, p, x_name, n, out->levels, remedy);
	else if (wc__ft_lstsq(X, y, NULL, n, p, scratch, out->coef) != 0)
		rc = wc_error_set(err, WC_ENOCONV, "%s: the runs do not determine the coefficients", what);
	else if (fit_quality(X, y, n, p, out->coef, out) != WC_OK)
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", what);
	free(scratch);
	return rc;
}

/* ------------------------------------------------------- compute law */

void
wc__ft_design_free(wc__ft_design *d)
{
	free(d->X);
	free(d->y);
	free(d->row);
	memset(d, 0, sizeof *d);
}

int
wc__ft_compute_design(const wc_ft_table *t, const unsigned char *use, wc__ft_design *d,
                      wc_error *err)
{
	size_t n = t->n_runs;
	memset(d, 0, sizeof *d);
	d->table = t;
	d->X = wc_alloc_array((n ? n : 1) * 2, sizeof *d->X);
	d->y = wc_alloc_array(n ? n : 1, sizeof *d->y);
	d->row = wc_alloc_array(n ? n : 1, sizeof *d->row);
	if (!d->X || !d->y || !d->row) {
		wc__ft_design_free(d);
		return wc_error_set(err, WC_ENOMEM, "compute law: out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const wc_ft_run *r = &t->runs[i];
		wc_ft_run_facts f;
		if (use ? !use[i] : r->exclude[0] != '\0')
			continue;
		if (wc_ft_run_facts_of(r, &f, NULL) != WC_OK)
			continue; /* the reader refuses such rows; built tables may not */
		d->X[2 * d->n] = wc_ft_e0_multiplier(WC_FT_E0_PER_GPU, r->config.gpus);
		d->X[2 * d->n + 1] = f.flops.flops_per_step_tflop;
		d->y[d->n] = r->energy_per_step_j;
		d->row[d->n] = i;
		d->n++;
	}
	return WC_OK;
}

/* Why the compute law's design is rank deficient, into `err`: G and F
 * themselves proportional, or one run outweighing the rest. Each row is
 * divided by its run's energy (relative residuals), so a run whose energy
 * is far below what its G and F would draw fills both scaled columns
 * alone and they point the same way, though the runs' FLOPs per GPU
 * differ: 0.001 J for 947 J on a table of five FLOPs per GPU was refused
 * as "proportional" (docs/finetune.md, "Fitting"). */
static int
degenerate_why(const wc__ft_design *d, wc_error *err)
{
	if (rank_deficient(d->X, d->n, 2))
		return wc_error_set(err, WC_ENOCONV,
		                    "compute law: the runs do not determine e0 and kappa: their G and F are "
		                    "proportional (the same FLOPs per GPU in every run); add runs with another FLOPs "
		                    "per GPU (micro-batch, sequence length or model), or use `wattcast calibrate "
		                    "finetune`");
	double norm[2] = { 0.0, 0.0 }, best = -1.0;
	int k = 0;
	for (int i = 0; i < d->n; i++)
		for (int j = 0; j < 2; j++)
			norm[j] += (d->X[2 * i + j] / d->y[i]) * (d->X[2 * i + j] / d->y[i]);
	for (int i = 0; i < d->n; i++) {
		double s = 0.0;
		for (int j = 0; j < 2; j++)
			s += (d->X[2 * i + j] / d->y[i]) * (d->X[2 * i + j] / d->y[i]) / norm[j] / 2.0;
		if (s > best)
			best = s, k = i;
	}
	double share = 100.0 * best;
	const wc_ft_run *r = &d->table->runs[d->row[k]];
	return wc_error_set(err, WC_ENOCONV,
	                    "compute law: the runs do not determine e0 and kappa: residuals are relative, and "
	                    "run '%s' at %s J per step on %d GPU%s holds %.4g %% of the fit's weight, so G and F "
	                    "act as one column; check its energy_per_step_j",
	                    r->run_id, WC_NUM_TEXT(r->energy_per_step_j), r->config.gpus,
	                    r->config.gpus == 1 ? "" : "s", share);
}

int
wc__ft_fit_design(const wc__ft_design *d, int p, wc_ft_linear_fit *out, wc_error *err)
{
	double *x = wc_alloc_array(d->n ? (size_t)d->n : 1, sizeof *x);
	if (!x)
		return wc_error_set(err, WC_ENOMEM, "compute law: out of memory");
	for (int i = 0; i < d->n; i++)
		x[i] = d->X[2 * i + 1];
	/* the remedy of the proportional case (degenerate_why): another F
	 * at the same FLOPs per GPU is that case again */
	int rc = fit_rows(d->X, d->y, x, d->n, p, "compute law", "flops_per_step_tflop",
	                  "add runs with another FLOPs per GPU (micro-batch, sequence length or model), or use "
	                  "`wattcast calibrate finetune`", out, err);
	if (rc == WC_ENOCONV && p == 2)
		rc = degenerate_why(d, err);
	free(x);
	return rc;
}

int
wc_ft_fit_compute(const wc_ft_table *t, const unsigned char *use, wc_ft_linear_fit *out,
                  wc_error *err)
{
	wc__ft_design d;
	int rc = wc__ft_compute_design(t, use, &d, err);
	if (rc == WC_OK)
		rc = wc__ft_fit_design(&d, 2, out, err);
	wc__ft_design_free(&d);
	return rc;
}

/* ------------------------------------------------------------ relations */

int
wc_ft_fit_relation(const wc_ft_table *t, wc_ft_relation_kind kind, const size_t *rows,
                   size_t n_rows, wc_ft_linear_fit *out, wc_error *err)
{
	int p = wc_ft_relation_terms(kind), n = 0, rc;
	double *X = wc_alloc_array((n_rows ? n_rows : 1) * 3, sizeof *X);
	double *y = wc_alloc_array(n_rows ? n_rows : 1, sizeof *y);
	double *x = wc_alloc_array(n_rows ? n_rows : 1, sizeof *x);
	if (!X || !y || !x) {
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", wc_ft_relation_name(kind));
		goto done;
	}
	for (size_t i = 0; i < n_rows; i++) {
		const wc_ft_run *r = &t->runs[rows[i]];
		wc_ft_run_facts f;
		if (wc_ft_run_facts_of(r, &f, NULL) != WC_OK)
			continue;
		x[n] = wc_ft_relation_x(kind, &r->config);
		for (int j = 0; j < p; j++)
			X[(size_t)n * p + j] = wc_ft_relation_basis(kind, j, x[n]);
		y[n++] = f.energy_per_token_j;
	}
	char remedy[64];
	snprintf(remedy, sizeof remedy, "add runs with another %s", wc_ft_relation_factor(kind));
	rc = fit_rows(X, y, x, n, p, wc_ft_relation_name(kind), wc_ft_relation_factor(kind), remedy, out, err);
done:
	free(X);
	free(y);
	free(x);
	return rc;
}

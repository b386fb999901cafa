/*
 * Private to fit/: the linear least-squares core the fine-tuning fits
 * share (finetune_fit.c), and the compute law's design prepared once for
 * the bootstrap (finetune_boot.c).
 */
#ifndef WC_FIT_FINETUNE_INTERNAL_H
#define WC_FIT_FINETUNE_INTERNAL_H

#include "fit/finetune_fit.h"
#include "linalg.h"

/** Minimise sum_i m_i ((y_i - X_i c) / y_i)^2 -- relative residuals, the
 *  noise of energy being multiplicative -- for an n x p row-major design X
 *  (p <= 3) and multiplicities `mult` (NULL = 1; 0 leaves a row out).
 *  `scratch` holds n * (p + 1) doubles. Returns 0, or non-zero when the
 *  rows kept do not determine c (fewer than p, or rank deficient). */
int wc__ft_lstsq(const double *X, const double *y, const double *mult, int n, int p,
                 double *scratch, double *coef);

/** The compute law's rows: x = {G, F} (e0 per GPU) and y = E_step of
 *  each run used. */
typedef struct {
	const wc_ft_table *table; /* the runs, for names in messages */
	int n;
	double *X;     /* n x 2 */
	double *y;     /* n */
	size_t *row;   /* table row of each */
} wc__ft_design;

int wc__ft_compute_design(const wc_ft_table *t, const unsigned char *use, wc__ft_design *d,
                          wc_error *err);
void wc__ft_design_free(wc__ft_design *d);
/** A full fit of the design: coefficients, standard errors, R^2. */
int wc__ft_fit_design(const wc__ft_design *d, int p, wc_ft_linear_fit *out, wc_error *err);

/** The section's calibration facts from the design's runs: platforms
 *  ('+'-joined, each once), methods and ranges (finetune_result.c). */
void wc__ft_section_facts(const wc_ft_table *t, const wc__ft_design *d, wc_finetune_params *s);
/** The span of the fixed term's share of the step (wc_ft_fixed_share)
 *  over n runs of e0 multipliers m[i * stride] and FLOPs F[i * stride],
 *  under the law (e0, kappa) the section carries (finetune_result.c). */
void wc__ft_fixed_share_span(const double *m, const double *F, size_t stride, int n, double e0,
                             double kappa, wc_ft_span *out);

/** Bootstrap (e0, kappa) into the section's draws and intervals
 *  (finetune_boot.c). */
int wc__ft_bootstrap(const wc__ft_design *d, const wc_ft_linear_fit *point,
                     const wc_bootstrap_options *bo, wc_finetune_params *section, int *failed,
                     wc_error *err);

#endif

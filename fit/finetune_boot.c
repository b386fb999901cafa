/*
 * Bootstrap of the compute law E_step = e0 + kappa F (docs/finetune.md,
 * "Fitting"): resample runs with replacement, refit, take the 2.5 / 97.5
 * percentiles, with the one driver (fit/boot_internal.h).
 * Deviations from the point estimate are scaled by sqrt(n / (n - p)), the
 * degrees-of-freedom correction the inference bootstrap uses too
 * (docs/fitting.md).
 */
#include "finetune_fit_internal.h"
#include "boot_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

static void *
ft_state_new(const void *ctx)
{
	const wc__ft_design *d = ctx;
	return wc_alloc_array((size_t)d->n, 3 * sizeof(double));
}

/* One replicate: weighted least squares on the resample. A linear fit has
 * no iterations: it converged or failed. */
static wc__boot_outcome
ft_fit(const void *ctx, void *scratch, const double *mult, double *coef)
{
	const wc__ft_design *d = ctx;
	return wc__ft_lstsq(d->X, d->y, mult, d->n, 2, scratch, coef) == 0 ? WC__BOOT_CONVERGED
	                                                                    : WC__BOOT_FAILED;
}

/* Inflate the good replicates around the point estimate, pack them into
 * `natural` (n_ok x 2) and set the intervals. Returns n_ok. */
static int
to_intervals(const wc__ft_design *d, const wc_ft_linear_fit *point, int B, const double *draws,
             const unsigned char *ok, double *natural, double *col, wc_finetune_params *section)
{
	double inflate = d->n > 2 ? sqrt((double)d->n / (d->n - 2)) : 1.0;
	int n_ok = 0;
	for (int r = 0; r < B; r++) {
		if (!ok[r])
			continue;
		for (int j = 0; j < 2; j++)
			natural[2 * n_ok + j] = point->coef[j] + inflate * (draws[2 * r + j] - point->coef[j]);
		n_ok++;
	}
	wc_param *par[2] = { &section->e0, &section->kappa };
	for (int j = 0; j < 2 && n_ok >= 2; j++) {
		for (int r = 0; r < n_ok; r++)
			col[r] = natural[2 * r + j];
		wc_interval_from_draws(col, (size_t)n_ok, point->coef[j], &par[j]->lo, &par[j]->hi);
	}
	return n_ok;
}

int
wc__ft_bootstrap(const wc__ft_design *d, const wc_ft_linear_fit *point,
                 const wc_bootstrap_options *bo, wc_finetune_params *section, int *failed,
                 wc_error *err)
{
	int B = bo->replicates, T = bo->threads > 0 ? bo->threads : 1, rc;
	static const char names[WC_FT_DRAW_COUNT][WC_LABEL_MAX] = { WC_FT_DRAW_E0, WC_FT_DRAW_KAPPA };
	if (B < 2)
		return wc_error_set(err, WC_EINVAL, "bootstrap: need at least 2 replicates");
	if (T > B)
		T = B;
	double *draws = wc_alloc_array((size_t)B * 2, sizeof *draws);
	double *natural = wc_alloc_array((size_t)B * 2, sizeof *natural);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	unsigned char *ok = wc_alloc_zeroed((size_t)B, 1);
	if (!draws || !natural || !col || !ok) {
		rc = wc_error_set(err, WC_ENOMEM, "bootstrap: out of memory");
		goto done;
	}
	wc__boot_spec spec = {
		.what = "bootstrap", .progress = "fine-tuning bootstrap draws", .replicates = B,
		.threads = T, .seed = bo->seed, .n_rows = (size_t)d->n, .slot = 2, .ctx = d,
		.state_new = ft_state_new, .state_free = free, .fit = ft_fit,
	};
	if ((rc = wc__boot_run(&spec, draws, ok, err)) != WC_OK)
		goto done;
	int n_ok = to_intervals(d, point, B, draws, ok, natural, col, section);
	*failed = B - n_ok;
	if (n_ok < 2) {
		rc = wc_error_set(err, WC_ENOCONV, "bootstrap: only %d of %d replicates could be fitted",
		                  n_ok, B);
		goto done;
	}
	rc = wc_draws_set(&section->draws, n_ok, WC_FT_DRAW_COUNT, names, natural, err);
done:
	free(draws);
	free(natural);
	free(col);
	free(ok);
	return rc;
}

/*
 * The request-energy decomposition (docs/capacity.md, "Request energy"):
 * for one model, batch B and context C, the energy of a batched window is
 * affine in the output length N, E(N) = E_fixed + N E_step; fitted by
 * ordinary least squares (GSL) on the runs that sweep N.
 */
#include "fit/capacity_fit.h"
#include "data/data.h"
#include "models/grow.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
wc_fit_request_energy(wc_request_energy_group *g, wc_error *err)
{
	double c0, c1, cov00, cov01, cov11, ss, lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < g->n; i++) {
		lo = fmin(lo, g->N[i]);
		hi = fmax(hi, g->N[i]);
	}
	/* A line through lengths a few tokens apart extrapolates its intercept
	 * over the whole length: no sweep, no fixed energy (docs/capacity.md). */
	if (g->n < 2 || !(hi >= WC_REQUEST_ENERGY_SPREAD * lo))
		return wc_error_set(err, WC_EINVAL, "request energy: %s (batch %g, context %g) needs output lengths "
		                    "that differ by a factor of %g at least", g->model, g->batch, g->context,
		                    WC_REQUEST_ENERGY_SPREAD);
	if (gsl_fit_linear(g->N, 1, g->E, 1, (size_t)g->n, &c0, &c1, &cov00, &cov01, &cov11, &ss) != 0)
		return wc_error_set(err, WC_ERANGE, "request energy: %s: the fit failed", g->model);
	g->e_fixed_j = c0;
	g->e_step_j = c1;
	g->e_step_per_request_mj = g->batch > 0 ? 1000.0 * c1 / g->batch : NAN;
	for (int i = 0; i < g->n; i++)
		g->residual_pct[i] = 100.0 * (c0 + c1 * g->N[i] - g->E[i]) / g->E[i];
	return WC_OK;
}

/* E(N) of a row: one batch of `running` requests of `output_tokens` each,
 * at the row's measured energy per token, the token energy E(N) / (B N)
 * of docs/capacity.md ("Request energy"). Not the energy_j extra: that is
 * the whole measured window's energy, over as many batches as it ran
 * (docs/formats/runs-table.md), and read as one batch's it gave 1250 x the
 * energy per token of a 1250-s row. */
static double
batch_energy(const wc_run *r)
{
	return r->energy_per_token_j * r->running * r->output_tokens;
}

static int
same_group(const wc_request_energy_group *g, const wc_run *r)
{
	return strcmp(g->model, r->model) == 0 && strcmp(g->platform, r->platform) == 0 && g->tp == r->tp &&
	       g->batch == r->running && g->context == r->input_tokens;
}

/* The group of `r` in `groups` (added when new); NULL when full. */
static wc_request_energy_group *
group_of(wc_request_energy_group *groups, size_t *n, size_t cap, const wc_run *r)
{
	for (size_t k = 0; k < *n; k++)
		if (same_group(&groups[k], r))
			return &groups[k];
	if (*n >= cap)
		return NULL;
	wc_request_energy_group *g = &groups[(*n)++];
	memset(g, 0, sizeof *g);
	snprintf(g->model, sizeof g->model, "%s", r->model);
	snprintf(g->platform, sizeof g->platform, "%s", r->platform);
	g->tp = r->tp;
	g->batch = r->running;
	g->context = r->input_tokens;
	return g;
}

int
wc_fit_request_energy_runs(const wc_runs_table *t, wc_request_energy_group **out, size_t *n_out,
                           wc_error *err)
{
	size_t cap = t->n_runs ? t->n_runs : 1, n = 0, kept = 0, no_context = 0, window_only = 0;
	wc_request_energy_group *groups = wc_alloc_zeroed(cap, sizeof *groups);
	*out = NULL;
	*n_out = 0;
	if (!groups)
		return wc_error_set(err, WC_ENOMEM, "request energy: out of memory");
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		double e = batch_energy(r);
		const char *w = wc_runs_get_extra(t, i, "energy_j");
		if (r->exclude[0] || !(r->output_tokens > 0) || !(e > 0) || !isfinite(e)) {
			window_only += !r->exclude[0] && isnan(r->energy_per_token_j) && w && *w;
			continue;
		}
		if (!isfinite(r->input_tokens)) {
			no_context++;
			continue;
		}
		wc_request_energy_group *g = group_of(groups, &n, cap, r);
		if (g && g->n < WC_REQUEST_ENERGY_POINTS) {
			g->N[g->n] = r->output_tokens;
			g->E[g->n++] = e;
		}
	}
	for (size_t k = 0; k < n; k++) {
		wc_error gerr;
		if (wc_fit_request_energy(&groups[k], &gerr) == WC_OK)
			groups[kept++] = groups[k];
	}
	if (kept == 0) {
		free(groups);
		return wc_error_set(err, WC_EINVAL, "request energy: no (model, platform, tp, running, input_tokens) "
		                    "group sweeps output_tokens with a measured energy_per_token_j%s%s",
		                    no_context ? "; rows without input_tokens have no context and are left out" : "",
		                    window_only ? "; energy_j, a whole window's, is not one batch's" : "");
	}
	*out = groups;
	*n_out = kept;
	return WC_OK;
}

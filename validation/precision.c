/*
 * Precision terms from paired runs (docs/validation.md, Table 12 of the appendix).
 * A pair is two runs identical but for one precision setting. The base
 * law is fitted on bf16 runs and frozen; for each group of pairs (weights
 * per precision and level; fp8 KV cache over all levels) three placements
 * are compared: no term, a shift b inside z, a factor m on S. Each is
 * scored by leave-one-pair-out RMS of the pair error — the error of the
 * predicted change between the pair's two runs, in log(P̄ − G·P0), which
 * cancels the base law's own error at that configuration. The better
 * placement is kept only if a paired t-test of its per-pair absolute
 * errors against those of "no term" gives p < 0.05.
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PAIRS 4096

typedef struct {
	size_t q, r; /* quantized run, its bf16 partner */
} run_pair;

typedef struct {
	wc_params *work;    /* a copy of the frozen base law whose term list
	                     * pair_error extends in place, never copied again */
	int base_terms;
	const wc_runs_table *t;
	const run_pair *pairs;
	const int *members; /* pair indices of the group */
	int n_members;
	int skip;           /* member left out, -1 = none */
	wc_precision_term term;
} group_eval;

static int
same_config(const wc_run *a, const wc_run *b)
{
	return strcmp(a->platform, b->platform) == 0 && a->tp == b->tp &&
	       strcmp(a->model, b->model) == 0 && a->active_params_b == b->active_params_b &&
	       a->sm_clock_mhz == b->sm_clock_mhz && strcmp(a->n_series, b->n_series) == 0 &&
	       (a->running == b->running || (isnan(a->running) && isnan(b->running)));
}

/* Pair error with the candidate term (value ignored for NONE). */
static double
pair_error(const group_eval *g, int member, wc_placement place, double value)
{
	wc_params *p = g->work;
	const run_pair *pr = &g->pairs[g->members[member]];
	p->n_terms = g->base_terms;
	if (place != WC_PLACE_NONE && p->n_terms < WC_MAX_TERMS) {
		wc_precision_term *t = &p->terms[p->n_terms++];
		*t = g->term;
		t->placement = place;
		t->kept = 1;
		t->value.value = value;
	}
	return wc__log_residual(p, &g->t->runs[pr->q]) - wc__log_residual(p, &g->t->runs[pr->r]);
}

static double
sum_sq(double b, void *payload)
{
	const group_eval *g = payload;
	double s = 0;
	for (int k = 0; k < g->n_members; k++) {
		if (k == g->skip)
			continue;
		double e = pair_error(g, k, WC_PLACE_INSIDE_Z, b);
		s += isfinite(e) ? e * e : 1e6;
	}
	return s;
}

/* Least-squares value of a placement from the group's pairs but `skip`. */
static double
estimate(group_eval *g, wc_placement place, int skip)
{
	g->skip = skip;
	if (place == WC_PLACE_ON_S) {
		/* Closed form: a factor m adds log m to every quantized residual. */
		double s = 0;
		int n = 0;
		for (int k = 0; k < g->n_members; k++) {
			double e = k == skip ? NAN : pair_error(g, k, WC_PLACE_NONE, 0);
			if (isfinite(e)) {
				s += e;
				n++;
			}
		}
		return n ? exp(-s / n) : 1.0;
	}
	/* Shift inside z: a coarse grid brackets the minimum, Brent refines. */
	const double lo = -6, hi = 6;
	const int steps = 48;
	int best = 0;
	double fbest = INFINITY;
	for (int i = 0; i <= steps; i++) {
		double f = sum_sq(lo + (hi - lo) * i / steps, g);
		if (f < fbest) {
			fbest = f;
			best = i;
		}
	}
	double xm = lo + (hi - lo) * best / steps;
	if (best == 0 || best == steps)
		return xm;
	gsl_function F = { sum_sq, g };
	gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
	if (!m)
		return xm;
	double a = lo + (hi - lo) * (best - 1) / steps, b = lo + (hi - lo) * (best + 1) / steps;
	if (gsl_min_fminimizer_set(m, &F, xm, a, b) == GSL_SUCCESS) {
		for (int it = 0; it < 100; it++) {
			if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
				break;
			if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(m), gsl_min_fminimizer_x_upper(m),
			                          1e-8, 0.0) == GSL_SUCCESS)
				break;
		}
		xm = gsl_min_fminimizer_x_minimum(m);
	}
	gsl_min_fminimizer_free(m);
	return xm;
}

static void
analyse_group(group_eval *g, wc_precision_group *out)
{
	const int K = g->n_members;
	const wc_placement places[3] = { WC_PLACE_NONE, WC_PLACE_INSIDE_Z, WC_PLACE_ON_S };
	out->pairs = K;
	out->p_value = NAN;
	out->kept = 0;
	out->better = WC_PLACE_NONE;
	out->value = NAN;
	for (int c = 0; c < 3; c++)
		out->rms[c] = NAN;
	if (K < 2)
		return; /* leave-one-pair-out needs at least two pairs */
	double *err = wc_alloc_array(3 * (size_t)K, sizeof *err), *d = wc_alloc_array((size_t)K, sizeof *d);
	if (!err || !d)
		goto done;
	for (int c = 0; c < 3; c++) {
		double ss = 0;
		int m = 0;
		for (int k = 0; k < K; k++) {
			double v = c == 0 ? 0 : estimate(g, places[c], k);
			double e = err[c * K + k] = pair_error(g, k, places[c], v);
			if (isfinite(e)) {
				ss += e * e;
				m++;
			}
		}
		out->rms[c] = m ? sqrt(ss / m) : NAN;
	}
	int b = out->rms[1] <= out->rms[2] ? 1 : 2;
	out->better = places[b];
	/* Paired t-test of per-pair absolute errors, better placement against
	 * no term: does the term make held-out pairs better predicted? (Signed
	 * errors would not do: for a factor on S each difference is just the
	 * leave-one-out estimate, whose jackknife spread is far too small.) */
	double mean = 0, var = 0;
	int m = 0;
	for (int k = 0; k < K; k++)
		if (isfinite(err[k]) && isfinite(err[b * K + k]))
			d[m++] = fabs(err[k]) - fabs(err[b * K + k]);
	if (m >= 2) {
		for (int k = 0; k < m; k++)
			mean += d[k] / m;
		for (int k = 0; k < m; k++)
			var += (d[k] - mean) * (d[k] - mean) / (m - 1);
		if (var > 0)
			out->p_value = 2.0 * gsl_cdf_tdist_Q(fabs(mean / sqrt(var / m)), m - 1);
		else
			out->p_value = mean > 0 ? 0.0 : 1.0;
	}
	out->kept = out->p_value < 0.05 && out->rms[b] < out->rms[0];
	out->value = estimate(g, places[b], -1);
done:
	free(err);
	free(d);
}

static int
group_of(wc_precision_report *out, wc_setting s, wc_precision prec, const char *level)
{
	for (int i = 0; i < out->n_groups; i++) {
		wc_precision_group *g = &out->groups[i];
		if (g->setting == s && g->precision == prec && strcasecmp(g->level, level) == 0)
			return i;
	}
	if (out->n_groups >= WC_PRECISION_GROUPS_MAX)
		return -1;
	wc_precision_group *g = &out->groups[out->n_groups];
	memset(g, 0, sizeof *g);
	g->setting = s;
	g->precision = prec;
	snprintf(g->level, sizeof g->level, "%s", level);
	return out->n_groups++;
}

int
wc_validate_precision(const wc_runs_table *t, const wc_fit_options *base, wc_precision_report *out,
                      wc_error *err)
{
	wc_fit_options o = *base;
	wc_fit_result fit;
	wc_params work = WC_PARAMS_INIT;
	run_pair *pairs = NULL;
	int *group_id = NULL, *members = NULL, n_pairs = 0, rc;
	memset(out, 0, sizeof *out);
	o.precision_terms = 0; /* bf16 runs only: quantized ones are left out */
	o.term_specs = NULL;
	o.n_term_specs = 0;
	pairs = wc_alloc_array(MAX_PAIRS, sizeof *pairs);
	group_id = wc_alloc_array(MAX_PAIRS, sizeof *group_id);
	members = wc_alloc_array(MAX_PAIRS, sizeof *members);
	if (!pairs || !group_id || !members) {
		free(pairs);
		free(group_id);
		free(members);
		return wc_error_set(err, WC_ENOMEM, "precision: out of memory");
	}
	/* Pairs first: with none there is nothing to fit. */
	for (size_t i = 0; i < t->n_runs && n_pairs < MAX_PAIRS; i++) {
		const wc_run *q = &t->runs[i];
		if (q->exclude[0] || (base->use && !base->use[i]))
			continue;
		int w = q->weights != WC_PREC_BF16, k = q->kv != WC_PREC_BF16;
		if (w == k) /* bf16 itself, or two settings changed at once */
			continue;
		for (size_t j = 0; j < t->n_runs; j++) {
			const wc_run *r = &t->runs[j];
			if (r->exclude[0] || (base->use && !base->use[j]) || r->weights != WC_PREC_BF16 ||
			    r->kv != WC_PREC_BF16 || !same_config(q, r))
				continue;
			int gi = w ? group_of(out, WC_SETTING_WEIGHTS, q->weights, q->platform)
			           : group_of(out, WC_SETTING_KV, q->kv, "");
			if (gi < 0)
				break;
			pairs[n_pairs].q = i;
			pairs[n_pairs].r = j;
			group_id[n_pairs++] = gi;
			break;
		}
	}
	if (out->n_groups == 0) {
		rc = WC_OK;
		goto done;
	}
	if ((rc = wc_fit_inference_law(t, &o, &fit, err)) != WC_OK)
		goto done;
	out->base_runs = fit.n_used;
	rc = wc_params_copy(&work, &fit.params, err);
	for (int gi = 0; rc == WC_OK && gi < out->n_groups; gi++) {
		group_eval g;
		memset(&g, 0, sizeof g);
		g.work = &work;
		g.base_terms = fit.params.n_terms;
		g.t = t;
		g.pairs = pairs;
		g.members = members;
		for (int k = 0; k < n_pairs; k++)
			if (group_id[k] == gi)
				members[g.n_members++] = k;
		g.term.setting = out->groups[gi].setting;
		g.term.precision = out->groups[gi].precision;
		snprintf(g.term.level, sizeof g.term.level, "%s", out->groups[gi].level);
		g.term.value.source = WC_SRC_FITTED;
		analyse_group(&g, &out->groups[gi]);
	}
	wc_fit_result_clear(&fit);
done:
	wc_params_clear(&work);
	free(pairs);
	free(group_id);
	free(members);
	return rc;
}

int
wc_precision_terms_from_report(const wc_precision_report *r, wc_precision_term *terms, int cap)
{
	int n = 0;
	for (int i = 0; i < r->n_groups && n < cap; i++) {
		const wc_precision_group *g = &r->groups[i];
		wc_precision_term *t = &terms[n++];
		memset(t, 0, sizeof *t);
		t->setting = g->setting;
		t->precision = g->precision;
		snprintf(t->level, sizeof t->level, "%s", g->level);
		t->kept = g->kept;
		t->placement = g->kept ? g->better : WC_PLACE_NONE;
		t->value.value = g->kept ? g->value : NAN;
		t->value.lo = t->value.hi = NAN;
		t->value.source = g->kept ? WC_SRC_FITTED : WC_SRC_ASSUMED;
		t->p_value = g->p_value;
		t->pairs = g->pairs;
	}
	return n;
}

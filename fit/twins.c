/*
 * Measurement rows repeated under another model's name (docs/validation.md,
 * "Leave-one-model-out"): a row whose platform, TP, size, load, tokens,
 * clock, precisions, workload, mean power and idle all equal another
 * model's row is almost surely one run filed twice. Leave one model out
 * would then keep the held-out model's twin in training, and its score
 * and quantile would be optimistic; the catalog groups the variants it
 * knows, so only unknown names get here. A periods row has no id of its
 * own to catch a copy by: one equal to another in every measured field
 * (a table given twice, a row repeated) is the same period, and leave
 * one out would train each on its twin (wc_fit_period_twins); in a fit
 * the k rows of one period count once, 1/k each (wc__cap_twin_sets).
 */
#include "capacity_internal.h"
#include "fit/fit.h"
#include "models/catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
model_group(const wc_run *r)
{
	const wc_model_info *m = wc_model_lookup(r->model);
	return m ? m->name : r->model;
}

/* NaN equals NaN and sorts last. */
static int
cmp_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

int
wc_fit_period_twins(const wc_capacity_row *a, const wc_capacity_row *b)
{
	return a->from_periods && b->from_periods && !strcmp(a->platform, b->platform) && a->tp == b->tp &&
	       !cmp_num(a->running, b->running) && !cmp_num(a->input_tokens, b->input_tokens) &&
	       !cmp_num(a->output_tokens, b->output_tokens) && !cmp_num(a->latency_s, b->latency_s) &&
	       a->weights == b->weights && a->kv == b->kv && !strcmp(a->set, b->set);
}

size_t
wc__cap_twin_sets(const wc_capacity_data *d, const size_t *row, size_t n, size_t *set)
{
	size_t n_sets = 0;
	for (size_t i = 0; i < n; i++) {
		const wc_capacity_row *r = &d->rows[row[i]];
		size_t j = r->from_periods ? 0 : i;
		while (j < i && !wc_fit_period_twins(&d->rows[row[j]], r))
			j++;
		set[i] = j < i ? set[j] : n_sets++;
	}
	return n_sets;
}

static int
cmp_rows(const wc_run *a, const wc_run *b)
{
	int c;
	if ((c = strcmp(a->platform, b->platform)) || (c = a->tp - b->tp) ||
	    (c = cmp_num(a->mean_power_w, b->mean_power_w)) || (c = cmp_num(a->idle_power_w, b->idle_power_w)) ||
	    (c = cmp_num(a->active_params_b, b->active_params_b)) || (c = cmp_num(a->running, b->running)) ||
	    (c = cmp_num(a->series.len ? a->series.mean : NAN, b->series.len ? b->series.mean : NAN)) ||
	    (c = cmp_num(a->sm_clock_mhz, b->sm_clock_mhz)) || (c = cmp_num(a->input_tokens, b->input_tokens)) ||
	    (c = cmp_num(a->output_tokens, b->output_tokens)) || (c = (int)a->weights - (int)b->weights) ||
	    (c = (int)a->kv - (int)b->kv) || (c = (int)a->workload - (int)b->workload))
		return c;
	return strcmp(a->set, b->set);
}

/* Rows of one table, by content, then by their place in it. */
static int
cmp_ptr(const void *x, const void *y)
{
	const wc_run *a = *(const wc_run *const *)x, *b = *(const wc_run *const *)y;
	int c = cmp_rows(a, b);
	return c ? c : (a > b) - (a < b);
}

int
wc_fit_twin_models(const wc_runs_table *t, char *msg, size_t cap)
{
	const wc_run **ix = malloc((t->n_runs ? t->n_runs : 1) * sizeof *ix);
	size_t m = 0;
	int twins = 0;
	msg[0] = '\0';
	if (!ix)
		return 0;
	for (size_t i = 0; i < t->n_runs; i++)
		if (!t->runs[i].exclude[0] && isfinite(t->runs[i].mean_power_w))
			ix[m++] = &t->runs[i];
	qsort(ix, m, sizeof *ix, cmp_ptr);
	const wc_run *fa = NULL, *fb = NULL;
	for (size_t k = 1; k < m; k++) {
		const wc_run *a = ix[k - 1], *b = ix[k];
		if (cmp_rows(a, b) || !strcmp(model_group(a), model_group(b)))
			continue;
		if (!twins++) {
			fa = a;
			fb = b;
		}
	}
	/* Whole run ids, so the example can be found (a prefix of one
	 * matched five rows); when both do not fit the message, one of them. */
	if (twins && (size_t)snprintf(msg, cap, "%d row(s) equal another model's row in every measured field, e.g. "
	                              "run '%s' (%s) and '%s' (%s): one run under two names? leave-one-model-out "
	                              "keeps such a twin in training",
	                              twins, fb->run_id, fb->model, fa->run_id, fa->model) >= cap)
		snprintf(msg, cap, "%d row(s) equal another model's row in every measured field, e.g. run '%s' (%s) is "
		         "one of another model's: one run under two names? leave-one-model-out keeps such a twin in training",
		         twins, fb->run_id, fb->model);
	free(ix);
	return twins;
}

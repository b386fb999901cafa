/*
 * The capacity fit's problem (docs/capacity.md, "Observations and fitting"): which rows and
 * observations enter, which parameters are free (per level or shared, and
 * those the rows cannot identify fixed), their bounded log coordinates,
 * and the residuals log(model / measured).
 */
#include "capacity_internal.h"
#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"
#include "data/runs_table.h"

static const double start_value[WC_CAP_KINDS] = { 0.6, 3e-3, 2e-5, 0.4, 2e-5, 2e-5 };
#define START_INPUT 500.0

double
wc__cap_share(double span, double u)
{
	/* exp(-u) overflows below u = -709.78, where 1 + e^u rounds to 1. The
	 * link's form e^u / (1 + e^u) is not taken for u < 0: it rounds
	 * otherwise, and the finite-difference Jacobian carries one ulp to
	 * 1e-6 in a parameter held at a bound (docs/capacity.md, "What the
	 * rows cannot identify"). */
	return u > -700.0 ? span / (1.0 + exp(-u)) : span * exp(u);
}

double
wc__cap_value(const cap_problem *pb, int k, double u)
{
	const cap_slot *s = &pb->slots[k];
	return exp(s->log_lo + wc__cap_share(s->log_hi - s->log_lo, u));
}

/* Fit coordinate of a natural value (clamped inside the domain). */
static double
cap_coordinate(const cap_slot *s, double v)
{
	double t = (log(v) - s->log_lo) / (s->log_hi - s->log_lo);
	t = fmin(fmax(t, 1e-6), 1.0 - 1e-6);
	return log(t / (1.0 - t));
}

void
wc__cap_param_name(const cap_problem *pb, int k, char *buf, size_t cap)
{
	const cap_slot *s = &pb->slots[k];
	if (s->kind == WC_CAP_KINDS)
		wc_capacity_workload_label(pb->workloads[s->workload], buf, cap);
	else
		wc_capacity_label((wc_capacity_kind)s->kind, s->level >= 0 ? pb->levels[s->level].name : NULL,
		                  buf, cap);
}

static int
find_or_add(char (*names)[WC_NAME_MAX], int *n, int max, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	if (*n >= max)
		return -1;
	snprintf(names[*n], WC_NAME_MAX, "%s", name);
	return (*n)++;
}

/* Levels (with datasheet facts) and workloads of the rows in the fit. */
static int
collect_levels(cap_problem *pb, const wc_capacity_data *d, wc_error *err)
{
	char names[WC_CAPACITY_MAX_LEVELS][WC_NAME_MAX];
	int n = pb->n_levels;
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_capacity_row *r = &d->rows[pb->row[i]];
		int L = find_or_add(names, &n, WC_CAPACITY_MAX_LEVELS, r->platform);
		if (L < 0)
			return wc_error_set(err, WC_EINVAL, "capacity fit: more than %d platforms", WC_CAPACITY_MAX_LEVELS);
		if (L == pb->n_levels) {
			const wc_platform_info *hw = wc_platform_lookup(r->platform);
			wc_capacity_level *l = &pb->levels[L];
			snprintf(l->name, sizeof l->name, "%s", r->platform);
			l->bandwidth_tb_s = hw->bandwidth_tb_s;
			l->bf16_tflops = hw->bf16_tflops;
			l->memory_gb = hw->memory_gb;
			pb->hw[L] = wc_capacity_hw_datasheet(l->name, l->bandwidth_tb_s, l->bf16_tflops, l->memory_gb);
			pb->n_levels++;
		}
		pb->lvl[i] = L;
		pb->wl[i] = -1;
		if (!isfinite(r->input_tokens)) {
			const char *set = r->set[0] ? r->set : "unlabelled";
			pb->wl[i] = find_or_add(pb->workloads, &pb->n_workloads, WC_CAPACITY_MAX_WORKLOADS, set);
			if (pb->wl[i] < 0)
				return wc_error_set(err, WC_EINVAL, "capacity fit: more than %d workloads without input lengths",
				                    WC_CAPACITY_MAX_WORKLOADS);
		}
	}
	return WC_OK;
}

/* Can the rows of level L (all levels when L < 0) identify kind k? t1
 * needs two running counts, tau a group of more than one GPU. */
static int
identified(const cap_problem *pb, int k, int L)
{
	double n0 = NAN;
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_capacity_row *r = &pb->data->rows[pb->row[i]];
		if (L >= 0 && pb->lvl[i] != L)
			continue;
		if (k == WC_CAP_TAU && r->tp > 1 && !r->arch.expert_parallel)
			return 1;
		if (k == WC_CAP_TAU_EP && r->tp > 1 && r->arch.expert_parallel)
			return 1;
		if (k == WC_CAP_T1) {
			if (isfinite(n0) && fabs(r->running - n0) > 1e-9 * n0)
				return 1;
			n0 = r->running;
		}
	}
	return k != WC_CAP_TAU && k != WC_CAP_TAU_EP && k != WC_CAP_T1;
}

/* Tie an unidentified collective of level L (every level when L < 0) to
 * the other one (docs/capacity.md, "Step time"): tau_ep always (a fit with no
 * expert-parallel group charges such groups tau, as every fit did before
 * the two were told apart, and as a file without tau_ep does), tau only
 * when the rows identify tau_ep. Returns 1 when tied. */
static int
tie_collective(cap_problem *pb, int k, int L)
{
	if (k != WC_CAP_TAU_EP && k != WC_CAP_TAU)
		return 0;
	int other = k == WC_CAP_TAU ? WC_CAP_TAU_EP : WC_CAP_TAU;
	if (k == WC_CAP_TAU && !identified(pb, other, pb->per_level[other] ? L : -1))
		return 0;
	for (int l = 0; l < pb->n_levels; l++)
		if (L < 0 || l == L)
			pb->tied[k][l] = 1;
	return 1;
}

static void
add_slot(cap_problem *pb, int kind, int level, int workload, double start)
{
	cap_slot *s = &pb->slots[pb->n_params];
	double lo = WC_CAPACITY_INPUT_MIN, hi = WC_CAPACITY_INPUT_MAX;
	if (kind < WC_CAP_KINDS)
		wc_capacity_kind_bounds((wc_capacity_kind)kind, &lo, &hi);
	*s = (cap_slot){ kind, level, workload, log(lo), log(hi) };
	pb->u0[pb->n_params] = cap_coordinate(s, start);
	pb->n_params++;
}

static void
layout(cap_problem *pb, const wc_capacity_fit_options *o)
{
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		pb->per_level[k] = o->per_level[k] != 0;
		int shared_slot = -1;
		for (int L = 0; L < pb->n_levels; L++) {
			pb->p_kind[k][L] = -1;
			pb->fixed[k][L] = 0.0;
			int own = pb->per_level[k];
			if (!identified(pb, k, own ? L : -1)) {
				if (!own && L > 0)
					continue;
				char label[WC_LABEL_MAX];
				wc_capacity_label((wc_capacity_kind)k, own ? pb->levels[L].name : NULL, label, sizeof label);
				int tie = tie_collective(pb, k, own ? L : -1);
				WC_WARN(pb, "%s: %s; %s", label,
				        k == WC_CAP_T1       ? "every row has the same running count"
				        : k == WC_CAP_TAU && tie ? "no row without expert parallelism has a group of more than one GPU"
				        : k == WC_CAP_TAU_EP ? "no expert-parallel row has a group of more than one GPU"
				                             : "no row has a group of more than one GPU",
				        tie ? (k == WC_CAP_TAU ? "held at tau_ep" : "held at tau") : "fixed at 0");
				continue;
			}
			if (!own && shared_slot >= 0) {
				pb->p_kind[k][L] = shared_slot;
				continue;
			}
			pb->p_kind[k][L] = pb->n_params;
			if (!own)
				shared_slot = pb->n_params;
			add_slot(pb, k, own ? L : -1, -1, start_value[k]);
		}
		/* a shared kind that was not identified stays fixed everywhere */
	}
	for (int w = 0; w < pb->n_workloads; w++) {
		pb->p_input[w] = pb->n_params;
		add_slot(pb, WC_CAP_KINDS, -1, w, START_INPUT);
	}
}

static int
observations(cap_problem *pb, wc_error *err)
{
	size_t cap = 3 * pb->n_rows;
	pb->obs_row = wc_alloc_array(cap, sizeof *pb->obs_row);
	pb->obs_kind = wc_alloc_array(cap, sizeof *pb->obs_kind);
	pb->obs_log = wc_alloc_array(cap, sizeof *pb->obs_log);
	if (!pb->obs_row || !pb->obs_kind || !pb->obs_log)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	for (size_t i = 0; i < pb->n_rows; i++) {
		const wc_capacity_row *r = &pb->data->rows[pb->row[i]];
		double v[3] = { r->latency_s, r->itl_s, r->ttft_s };
		for (int k = 0; k < 3; k++)
			if (v[k] > 0 && isfinite(v[k])) {
				pb->obs_row[pb->n_obs] = i;
				pb->obs_kind[pb->n_obs] = k;
				pb->obs_log[pb->n_obs++] = log(v[k]);
			}
	}
	return WC_OK;
}

static int
select_rows(cap_problem *pb, const wc_capacity_data *d, const wc_capacity_fit_options *o, wc_error *err)
{
	size_t n = d->n_rows ? d->n_rows : 1;
	pb->row = wc_alloc_array(n, sizeof *pb->row);
	pb->lvl = wc_alloc_array(n, sizeof *pb->lvl);
	pb->wl = wc_alloc_array(n, sizeof *pb->wl);
	if (!pb->row || !pb->lvl || !pb->wl)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	for (size_t i = 0; i < d->n_rows; i++)
		if (o->use ? o->use[i] != 0 : d->rows[i].exclude[0] == '\0')
			pb->row[pb->n_rows++] = i;
	size_t excluded = 0;
	char why[160];
	for (size_t i = 0; i < d->n_rows; i++)
		excluded += d->rows[i].exclude[0] != '\0';
	if (pb->n_rows == 0 && wc_runs_excluded_note(d->n_rows, excluded, why, sizeof why))
		return wc_error_set(err, WC_EINVAL, "capacity fit: no usable rows: %s", why);
	/* A caller's selection (a validation fold) that keeps none: said
	 * short, for the fold's reason to fit in its report's line. */
	if (pb->n_rows == 0 && o->use)
		return wc_error_set(err, WC_EINVAL, "capacity fit: no usable rows: all %zu left out of this fit",
		                    d->n_rows);
	if (pb->n_rows == 0)
		return wc_error_set(err, WC_EINVAL, "capacity fit: no usable rows (need running, output tokens and a "
		                    "throughput, ITL, TTFT or period, on a catalog model and platform)");
	return WC_OK;
}

/* A period given k times is one observation (docs/capacity.md, "Twins
 * count once"): each of its k rows counts 1/k of a row. Its rows of one
 * model have one residual, so the first of them stands for them all with
 * their shares summed -- the fit of a table given twice is then, bit for
 * bit, that of the table given once -- and the rest leave row[] (`merged`
 * keeps them for their residuals); rows of different models (a period
 * filed under two names) weigh 1/k each. No twins: no shares, and every
 * number is as before. */
static int
twin_rows(cap_problem *pb, wc_error *err)
{
	const size_t n = pb->n_rows;
	size_t *k = wc_alloc_zeroed(n, sizeof *k), *cnt = wc_alloc_array(n, sizeof *cnt);
	pb->set = wc_alloc_array(n, sizeof *pb->set);
	pb->merged = wc_alloc_array(n, sizeof *pb->merged);
	if (!k || !cnt || !pb->set || !pb->merged) {
		free(k);
		free(cnt);
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	}
	pb->n_sets = wc__cap_twin_sets(pb->data, pb->row, n, pb->set);
	for (size_t i = 0; i < n; i++)
		k[pb->set[i]]++;
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		const size_t s = pb->set[i], r = pb->row[i];
		size_t j = k[s] > 1 ? 0 : kept;
		while (j < kept && !(pb->set[j] == s &&
		                     !strcmp(pb->data->rows[pb->row[j]].model_key, pb->data->rows[r].model_key)))
			j++;
		if (j < kept) {
			cnt[j]++;
			pb->merged[pb->n_merged][0] = r;
			pb->merged[pb->n_merged++][1] = j;
			continue;
		}
		pb->row[kept] = r;
		pb->set[kept] = s;
		cnt[kept++] = 1;
	}
	pb->n_rows = kept;
	if (kept > pb->n_sets && (pb->row_share = wc_alloc_array(kept, sizeof *pb->row_share)))
		for (size_t i = 0; i < kept; i++)
			pb->row_share[i] = (double)cnt[i] / (double)k[pb->set[i]];
	free(k);
	free(cnt);
	if (kept > pb->n_sets && !pb->row_share)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	if (n > pb->n_sets)
		WC_WARN(pb, "capacity fit: %zu periods row(s) equal an earlier one in every measured field (one period "
		        "given twice?): each period counts once", n - pb->n_sets);
	return WC_OK;
}

static double
share(const cap_problem *pb, size_t i)
{
	return pb->row_share ? pb->row_share[i] : 1.0;
}

size_t
wc__cap_obs_count(const cap_problem *pb)
{
	if (!pb->row_share)
		return pb->n_obs;
	double n = 0.0;
	for (size_t o = 0; o < pb->n_obs; o++)
		n += pb->row_share[pb->obs_row[o]];
	return (size_t)llround(n);
}

/* Each model counts once (docs/capacity.md, "Each model counts once"):
 * a row of a model with m rows in the fit weighs 1 / m, scaled so that
 * the weights' mean over the fit's rows is 1 (their sum stays the row
 * count). A model is its catalog base name, the unit leave-one-model-out
 * holds out; its rows, and the weights' mean, count each set of twins
 * once (their shares). */
static int
model_weights(cap_problem *pb, wc_error *err)
{
	pb->row_w = wc_alloc_array(pb->n_rows, sizeof *pb->row_w);
	if (!pb->row_w)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	double sum = 0.0, rows = 0.0;
	for (size_t i = 0; i < pb->n_rows; i++) {
		const char *key = pb->data->rows[pb->row[i]].model_key;
		double m = 0.0;
		for (size_t j = 0; j < pb->n_rows; j++)
			if (strcmp(pb->data->rows[pb->row[j]].model_key, key) == 0)
				m += share(pb, j);
		pb->row_w[i] = 1.0 / m;
		sum += share(pb, i) * pb->row_w[i];
		rows += share(pb, i);
	}
	for (size_t i = 0; i < pb->n_rows; i++)
		pb->row_w[i] *= rows / sum;
	return WC_OK;
}

double
wc__cap_row_weight(const cap_problem *pb, const double *mult, size_t i)
{
	return (mult ? mult[i] : 1.0) * share(pb, i) * (pb->row_w ? pb->row_w[i] : 1.0);
}

int
wc__cap_problem_build(const wc_capacity_data *d, const wc_capacity_fit_options *o, cap_problem **out,
                  wc_error *err)
{
	cap_problem *pb = calloc(1, sizeof *pb);
	int rc;
	*out = NULL;
	if (!pb)
		return wc_error_set(err, WC_ENOMEM, "capacity fit: out of memory");
	pb->data = d;
	pb->robust = o->robust != 0;
	if ((rc = select_rows(pb, d, o, err)) || (rc = twin_rows(pb, err)) || (rc = collect_levels(pb, d, err)) ||
	    (rc = observations(pb, err)) || (o->model_weights && (rc = model_weights(pb, err)))) {
		wc__cap_problem_free(pb);
		return rc;
	}
	layout(pb, o);
	const size_t n_obs = wc__cap_obs_count(pb);
	if (n_obs < (size_t)pb->n_params) {
		rc = wc_error_set(err, WC_EINVAL, "capacity fit: %zu observations for %d parameters; add rows or share "
		                  "more parameters across levels", n_obs, pb->n_params);
		wc__cap_problem_free(pb);
		return rc;
	}
	/* Huber's cut is a multiple of the residuals' median |value|; with
	 * about as many parameters as observations the residuals are all
	 * near zero and that scale says nothing (the 11 published periods,
	 * 9 parameters: the robust fit loses identification and 3 of 50
	 * bootstrap refits fail), so a fit with fewer than
	 * ROBUST_MIN_OBS_PER_PARAM observations per parameter is plain; a
	 * period given twice is one observation here too. */
	if (pb->robust && n_obs < (size_t)(ROBUST_MIN_OBS_PER_PARAM * pb->n_params)) {
		pb->robust = 0;
		WC_WARN(pb, "capacity fit: %zu observations for %d parameters are too few for Huber's weights "
		        "(fewer than %d per parameter); fitted by plain least squares", n_obs, pb->n_params,
		        ROBUST_MIN_OBS_PER_PARAM);
	}
	if (o->start && o->start_len == (size_t)pb->n_params)
		memcpy(pb->u0, o->start, (size_t)pb->n_params * sizeof *pb->u0);
	*out = pb;
	return WC_OK;
}

void
wc__cap_problem_free(cap_problem *pb)
{
	if (!pb)
		return;
	free(pb->row);
	free(pb->lvl);
	free(pb->wl);
	free(pb->row_w);
	free(pb->set);
	free(pb->merged);
	free(pb->row_share);
	free(pb->obs_row);
	free(pb->obs_kind);
	free(pb->obs_log);
	free(pb);
}

/* The level's point and the row's input length at coordinates u. */
static void
row_point(const cap_problem *pb, const double *u, size_t i, wc_capacity_point *pt, double *input)
{
	double v[WC_CAP_KINDS];
	int L = pb->lvl[i];
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		int j = pb->p_kind[k][L];
		v[k] = j >= 0 ? wc__cap_value(pb, j, u[j]) : pb->fixed[k][L];
	}
	*pt = (wc_capacity_point){ v[WC_CAP_ETA], v[WC_CAP_T0], v[WC_CAP_T1], v[WC_CAP_ETAC], v[WC_CAP_TAU], v[WC_CAP_TAU_EP] };
	const wc_capacity_row *r = &pb->data->rows[pb->row[i]];
	*input = pb->wl[i] >= 0 ? wc__cap_value(pb, pb->p_input[pb->wl[i]], u[pb->p_input[pb->wl[i]]])
	                        : r->input_tokens;
}

int
wc__cap_residuals(const gsl_vector *uv, void *params, gsl_vector *f)
{
	const cap_problem *pb = params;
	const double *u = uv->data;
	size_t last = (size_t)-1;
	wc_capacity_times t = { 0 };
	for (size_t o = 0; o < pb->n_obs; o++) {
		size_t i = pb->obs_row[o];
		if (i != last) {
			const wc_capacity_row *r = &pb->data->rows[pb->row[i]];
			wc_capacity_point pt;
			double input;
			row_point(pb, u, i, &pt, &input);
			wc_capacity_times_eval(&pt, &r->arch, &pb->hw[pb->lvl[i]], r->tp, r->running, input,
			                       r->output_tokens, &t);
			last = i;
		}
		double model = pb->obs_kind[o] == CAP_OBS_LATENCY ? t.latency_s
		             : pb->obs_kind[o] == CAP_OBS_ITL ? t.t_dec : t.ttft_s;
		gsl_vector_set(f, o, log(model) - pb->obs_log[o]);
	}
	return GSL_SUCCESS;
}

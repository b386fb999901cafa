/*
 * Leave-one-group-out cross-validation of mean power -- one model, or one
 * workload, at a time -- reported per platform as the frozen-law accuracy
 * is (median |error| %, share within 5 %, bias): the tests a comparison on
 * real tables such as ML.ENERGY needs (docs/validation.md).
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model a run belongs to for holding out: its catalog base model. */
static const char *
model_key(const wc_run *r)
{
	const wc_model_info *m = wc_model_lookup(r->model);
	return m ? m->name : r->model;
}

/* The workload a run belongs to: its `set` (ML.ENERGY's task), else its
 * `workload` column (ingest writes how requests arrived there and no
 * set); neither: "", one group (docs/validation.md, "Forms on real
 * runs"). */
static const char *
workload_key(const wc_run *r)
{
	return r->set[0] ? r->set : wc_workload_name(r->workload);
}

typedef const char *(*group_key_fn)(const wc_run *r);

/* Runs a fold's law put beyond twice their boards' ceiling: power no board
 * draws, so not scored (wc_power_beyond_boards; docs/validation.md,
 * "Candidate terms"), counted and the first named. */
typedef struct {
	int n;
	char first[160];
} beyond_runs;

/* Predict the held-out group's runs from a fold's fit. */
static int
predict_fold(const wc_runs_table *t, const wc_fit_options *base, const unsigned char *train,
             group_key_fn key_of, const char *key, const char *fold_prefix, const wc_params *fit,
             double *pred, wc_per_run *per_run, beyond_runs *beyond, wc_error *err)
{
	wc_predictor *pr = NULL;
	int rc = wc_predictor_new(fit, &pr, err);
	for (size_t j = 0; rc == WC_OK && j < t->n_runs; j++) {
		const wc_run *q = &t->runs[j];
		wc_per_run_row row;
		if (train[j] || q->exclude[0] || (base->use && !base->use[j]) ||
		    strcmp(key_of(q), key) != 0)
			continue;
		wc_per_run_row_init(&row);
		/* the interval comes from the other folds' residuals (intervals.c) */
		wc_error perr = { .code = WC_OK };
		if (wc__predict_run(pr, q, &pred[j], &row, 0, &perr) != WC_OK) {
			pred[j] = NAN; /* its level has no training run, or power no board draws: skipped */
			if (perr.code == WC_ERANGE && !beyond->n++)
				snprintf(beyond->first, sizeof beyond->first, "the first, '%.40s' without '%.32s'", q->run_id,
				         key);
			continue;
		}
		snprintf(row.set, sizeof row.set, "%s", q->platform);
		snprintf(row.fold, sizeof row.fold, "%s%s", fold_prefix, key);
		rc = wc_per_run_add(per_run, &row, err);
	}
	wc_predictor_free(pr);
	return rc;
}

static int
leave_groups_out(const wc_runs_table *t, const wc_fit_options *base, group_key_fn key_of,
                 const char *fold_prefix, wc_heldout_report *out, int *groups, wc_per_run *per_run,
                 wc_error *err)
{
	const size_t n = t->n_runs ? t->n_runs : 1;
	unsigned char *train = wc_alloc_array(n, 1), *done = wc_alloc_zeroed(n, 1);
	double *pred = wc_alloc_array(n, sizeof *pred), *e = wc_alloc_zeroed(n, sizeof *e);
	char (*sets)[48] = wc_alloc_zeroed(n, sizeof *sets);
	wc_per_run rows = WC_PER_RUN_INIT;
	int rc = WC_OK, skipped = 0, failed = 0, unfit = 0;
	beyond_runs beyond = { 0, "" };
	size_t m = 0;
	char why[WC_ERROR_MSG_MAX] = "";
	memset(out, 0, sizeof *out);
	if (!train || !done || !pred || !e || !sets) {
		rc = wc_error_set(err, WC_ENOMEM, "held-out validation: out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < t->n_runs; i++)
		pred[i] = NAN;
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		if (done[i] || r->exclude[0] || (base->use && !base->use[i]))
			continue;
		const char *key = key_of(r);
		if (groups)
			(*groups)++;
		int members = 0;
		for (size_t j = 0; j < t->n_runs; j++) {
			const wc_run *q = &t->runs[j];
			int usable = !q->exclude[0] && (!base->use || base->use[j]);
			int same = usable && strcmp(key_of(q), key) == 0;
			train[j] = (unsigned char)(usable && !same);
			done[j] |= (unsigned char)same;
			members += same;
		}
		wc_fit_options o = *base;
		wc_fit_result fit;
		wc_error ferr;
		o.use = train;
		if (wc_fit_inference_law(t, &o, &fit, &ferr) != WC_OK) {
			if (ferr.code == WC_ENOMEM) {
				rc = wc_error_set(err, WC_ENOMEM, "%s", ferr.msg);
				goto cleanup;
			}
			/* the group's runs stay unpredicted (skipped); the first
			 * reason is kept, for a report that must say why */
			if (!failed++)
				wc_error_format(why, sizeof why, "without '%.32s': %.64s", key, ferr.msg);
			unfit += members;
			continue;
		}
		rc = predict_fold(t, base, train, key_of, key, fold_prefix, &fit.params, pred, &rows, &beyond, err);
		wc_fit_result_clear(&fit);
		if (rc != WC_OK)
			goto cleanup;
	}
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		if (r->exclude[0] || (base->use && !base->use[i]))
			continue;
		if (!isfinite(pred[i])) {
			skipped++;
			continue;
		}
		e[m] = 100.0 * (pred[i] - r->mean_power_w) / r->mean_power_w;
		snprintf(sets[m++], sizeof sets[0], "%s", r->platform);
	}
	rc = wc__accuracy_summary(e, (const char (*)[48])sets, m, skipped, out, err);
	/* Why runs went unpredicted, for reports that must say it (docs/cli.md,
	 * "fit intervals"): refits that failed, and runs whose level had no
	 * training run in their fold. */
	if (rc == WC_OK && skipped) {
		int nolevel = skipped - unfit - beyond.n;
		char rest[WC_ERROR_MSG_MAX];
		if (beyond.n)
			snprintf(rest, sizeof rest, "%d predicted over twice their boards' ceiling, power no board draws "
			         "(%s)%s", beyond.n, beyond.first,
			         nolevel > 0 ? "; the rest's level had no training run" : "");
		else
			snprintf(rest, sizeof rest, "%s", !failed       ? "their level had no training run in their fold"
			                                  : nolevel > 0 ? "the rest's level had no training run"
			                                                : "");
		wc__skip_reason(out->skip_reason, sizeof out->skip_reason, failed, unfit, why, rest);
	}
	if (rc == WC_OK)
		rc = wc__pe_cross_intervals(&rows, 1, err);
	if (rc == WC_OK)
		rc = wc__coverage_summary(&rows, NULL, out, err);
	for (size_t i = 0; rc == WC_OK && per_run && i < rows.n; i++)
		rc = wc_per_run_add(per_run, &rows.rows[i], err);
cleanup:
	wc_per_run_clear(&rows);
	free(train);
	free(done);
	free(pred);
	free(e);
	free(sets);
	return rc;
}

void
wc__skip_reason(char *buf, size_t cap, int failed, int unfit, const char *why, const char *rest)
{
	if (!failed)
		snprintf(buf, cap, "%s", rest);
	else
		snprintf(buf, cap, "%d refit(s) failed (%d runs; %.160s)%s%.60s", failed, unfit, why,
		         rest[0] ? ", " : "", rest);
}

int
wc_validate_lomo(const wc_runs_table *t, const wc_fit_options *base, wc_heldout_report *out,
                 wc_per_run *per_run, wc_error *err)
{
	return leave_groups_out(t, base, model_key, "", out, NULL, per_run, err);
}

int
wc__validate_lomo_groups(const wc_runs_table *t, const wc_fit_options *base, const char *fold_prefix,
                         wc_heldout_report *out, int *groups, wc_per_run *per_run, wc_error *err)
{
	return leave_groups_out(t, base, model_key, fold_prefix, out, groups, per_run, err);
}

int
wc__validate_lowo_groups(const wc_runs_table *t, const wc_fit_options *base, const char *fold_prefix,
                         wc_heldout_report *out, int *groups, wc_per_run *per_run, wc_error *err)
{
	return leave_groups_out(t, base, workload_key, fold_prefix, out, groups, per_run, err);
}

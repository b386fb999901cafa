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
 * "Candidate terms"), counted and the first named: its id and its fold's
 * key, whole. */
typedef struct {
	int n;
	char id[96], key[WC_MODEL_NAME_MAX];
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
			if (perr.code == WC_ERANGE && !beyond->n++) {
				snprintf(beyond->id, sizeof beyond->id, "%s", q->run_id);
				snprintf(beyond->key, sizeof beyond->key, "%s", key);
			}
			continue;
		}
		snprintf(row.set, sizeof row.set, "%s", q->platform);
		snprintf(row.fold, sizeof row.fold, "%s%s", fold_prefix, key);
		rc = wc_per_run_add(per_run, &row, err);
	}
	wc_predictor_free(pr);
	return rc;
}

/* The runs beyond their boards in wordings from the longest, each whole
 * (wc__skip_reason takes the first that fits): with "power no board
 * draws", without it, then the first run's id cut to 24 bytes and marked
 * "...", then the count alone. `alt` gets them, NULL-ended. */
static void
beyond_reasons(char (*rest)[WC_ERROR_MSG_MAX], const char **alt, const beyond_runs *b, const char *tail)
{
	static const char *const lead[] = { ", power no board draws", "" };
	int k = 0;
	for (int i = 0; i < 2; i++)
		if (snprintf(rest[k], sizeof rest[k], "%d predicted over twice their boards' ceiling%s (the first, '%s' "
		             "without '%s')%s", b->n, lead[i], b->id, b->key, tail) < (int)sizeof rest[k])
			alt[k] = rest[k], k++;
	size_t keep = wc_utf8_keep(b->id, 24);
	if (b->id[keep] &&
	    snprintf(rest[k], sizeof rest[k], "%d predicted over twice their boards' ceiling (the first, '%.*s...' "
	             "without '%s')%s", b->n, (int)keep, b->id, b->key, tail) < (int)sizeof rest[k])
		alt[k] = rest[k], k++;
	snprintf(rest[k], sizeof rest[k], "%d predicted over twice their boards' ceiling%s", b->n, tail);
	alt[k] = rest[k];
	alt[k + 1] = NULL;
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
	beyond_runs beyond = { 0, "", "" };
	wc_law_terms_notes notes;
	memset(&notes, 0, sizeof notes);
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
			if (!failed++) /* whole, or left out whole by wc__skip_reason */
				wc_error_format(why, sizeof why, "without '%s': %s", key, ferr.msg);
			unfit += members;
			continue;
		}
		wc_fit_law_terms_note(&notes, o.law_terms, &fit);
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
	out->law_terms = notes; /* the summary starts the report afresh */
	/* Why runs went unpredicted, for reports that must say it (docs/cli.md,
	 * "fit intervals"): refits that failed, and runs whose level had no
	 * training run in their fold. */
	if (rc == WC_OK && skipped) {
		int nolevel = skipped - unfit - beyond.n;
		char rest[4][WC_ERROR_MSG_MAX];
		const char *alt[5] = { rest[0], NULL, NULL, NULL, NULL };
		if (beyond.n)
			beyond_reasons(rest, alt, &beyond, nolevel > 0 ? "; the rest's level had no training run" : "");
		else
			snprintf(rest[0], sizeof rest[0], "%s", !failed       ? "their level had no training run in their fold"
			                                        : nolevel > 0 ? "the rest's level had no training run"
			                                                      : "");
		wc__skip_reason(out->skip_reason, sizeof out->skip_reason, failed, unfit, why, alt);
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

/* The line holds WC_ERROR_MSG_MAX - 1 bytes and each reason in it stays
 * whole (docs/validation.md, "Forms on real runs"): the first wording of
 * `rest` that fits after the refits' count and their first reason, else
 * after the count alone; the last (shortest) cut, marked "...", only when
 * no wording fits even so. */
void
wc__skip_reason(char *buf, size_t cap, int failed, int unfit, const char *why, const char *const *rest)
{
	static const char *const none[] = { "", NULL };
	if (!rest || !rest[0])
		rest = none;
	for (int with_why = 1; with_why >= 0; with_why--)
		for (size_t k = 0; rest[k]; k++) {
			const char *r = rest[k];
			int n = !failed  ? snprintf(buf, cap, "%s", r)
			        : with_why ? snprintf(buf, cap, "%d refit(s) failed (%d runs; %s)%s%s", failed, unfit, why,
			                              r[0] ? ", " : "", r)
			                   : snprintf(buf, cap, "%d refit(s) failed (%d runs)%s%s", failed, unfit,
			                              r[0] ? ", " : "", r);
			if (n >= 0 && (size_t)n < cap)
				return;
		}
	size_t last = 0;
	while (rest[last + 1])
		last++;
	const char *r = rest[last]; /* the shortest */
	if (!failed)
		wc_error_format(buf, cap, "%s", r);
	else
		wc_error_format(buf, cap, "%d refit(s) failed (%d runs)%s%s", failed, unfit, r[0] ? ", " : "", r);
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

/*
 * Held-out accuracy of the capacity model (validation/capacity_validate.h): each
 * fold refits the capacity model (and, for energy, the power law) without
 * what it predicts, then predicts through the same arithmetic as
 * `wattcast predict` (wc_capacity_times_eval at the row's running count,
 * input length and output length).
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Latency of row i from a fitted section; NaN when the fold cannot
 * predict it (its level or its workload's input length was not fitted),
 * and then `note` says which. */
static double
predict_latency(const wc_capacity_params *c, const wc_capacity_row *r, int transfer, char *note, size_t note_cap)
{
	wc_capacity_binding b;
	wc_capacity_point pt;
	wc_capacity_times t;
	double input = r->input_tokens;
	/* What this prediction leans on that the fold's fit left at a bound
	 * (docs/capacity.md, "What the rows cannot identify"). */
	char bound[200], held[120];
	note[0] = '\0';
	int n_held = wc_capacity_held_names(c, r->platform, held, sizeof held);
	if (wc_capacity_bound_names(c, r->platform, isfinite(input) ? NULL : r->set[0] ? r->set : "unlabelled", bound,
	                            sizeof bound) > 0)
		wc_error_format(note, note_cap,
		                "capacity: %s at a bound of the fit's domain, not identified by its rows%s%s%s", bound,
		                n_held ? "; " : "", held, n_held ? " held at the other levels' median" : "");
	else if (n_held > 0)
		wc_error_format(note, note_cap,
		                "capacity: %s held at the other levels' median: its rows do not identify %s", held,
		                n_held > 1 ? "them" : "it");
	if (!isfinite(input)) {
		const wc_capacity_workload *w = wc_capacity_workload_find(c, r->set[0] ? r->set : "unlabelled");
		if (!w) {
			snprintf(note, note_cap, "the fold's fit has no input length for its workload '%s'",
			         r->set[0] ? r->set : "unlabelled");
			return NAN;
		}
		input = w->input_tokens.value;
	}
	if ((transfer ? wc_capacity_bind_any(c, r->platform, &b, NULL) : wc_capacity_bind(c, r->platform, &b, NULL)) !=
	    WC_OK) {
		snprintf(note, note_cap, "the fold's fit has no level for platform %s%s", r->platform,
		         transfer ? " and its datasheet gives none" : "");
		return NAN;
	}
	if (transfer && !note[0])
		wc_capacity_transfer_note(&b, note, note_cap);
	wc_capacity_bound_point(&b, NULL, &pt);
	wc_capacity_times_eval(&pt, &r->arch, &b.hw, r->tp, r->running, input, r->output_tokens, &t);
	if (!isfinite(t.latency_s))
		snprintf(note, note_cap, "the fold's fit predicts no finite latency for it");
	return t.latency_s;
}

static void
per_run_row(wc_per_run *pr, const wc_capacity_row *r, const char *fold, const char *quantity, double pred,
            double meas, const char *note, wc_error *err, int *rc)
{
	wc_per_run_row row;
	if (*rc != WC_OK)
		return;
	wc_per_run_row_init(&row);
	snprintf(row.run_id, sizeof row.run_id, "%s", r->id);
	snprintf(row.set, sizeof row.set, "%s", r->platform);
	snprintf(row.fold, sizeof row.fold, "%s", fold);
	snprintf(row.quantity, sizeof row.quantity, "%s", quantity);
	wc_per_run_row_input(&row, "platform", r->platform);
	wc_per_run_row_input_number(&row, "tp", r->tp);
	wc_per_run_row_input(&row, "model", r->model);
	wc_per_run_row_input_number(&row, "running", r->running);
	wc_per_run_row_input_number(&row, "input_tokens", r->input_tokens);
	wc_per_run_row_input_number(&row, "output_tokens", r->output_tokens);
	wc_per_run_row_input(&row, "workload", r->set);
	row.predicted = pred;
	row.measured = meas;
	row.error_pct = 100.0 * (pred - meas) / meas;
	if (note[0])
		wc_per_run_row_warn(&row, note);
	*rc = wc_per_run_add(pr, &row, err);
}

/* The three scored quantities, each its errors (%), their platforms and
 * the rows it could not predict. */
enum { Q_TP, Q_E, Q_P, Q_COUNT };
static const char *const quantity_names[Q_COUNT] = { "throughput_tok_s", "energy_per_token_j", "period_s" };

typedef struct {
	double *err;
	char (*set)[48];
	size_t n;
	int skip;
	int *n_named;            /* the report's list of skipped rows */
	wc_capacity_skip *named;
	/* for the report's one-line reason (wc__skip_reason): folds whose
	 * capacity refit failed, their rows, the first's reason; and the first
	 * reason of a row skipped otherwise */
	int failed, unfit;
	char why[WC_ERROR_MSG_MAX], other[160]; /* why whole, or left out whole */
} cap_series;

typedef struct {
	cap_series q[Q_COUNT];
	wc_law_terms_notes law_terms; /* of the power-law refits */
	int refit_failed; /* the rows being skipped are a failed refit's */
} cap_errors;

/* A row of quantity k its fold could not predict: counted, and named
 * with the reason while the report has room (docs/validation.md,
 * "Capacity"). */
static void
skip(cap_errors *x, int k, const wc_capacity_row *r, const char *fmt, const char *why)
{
	cap_series *s = &x->q[k];
	s->skip++;
	if (!x->refit_failed && !s->other[0])
		snprintf(s->other, sizeof s->other, fmt, why);
	if (*s->n_named >= WC_CAPACITY_SKIPS_NAMED)
		return;
	wc_capacity_skip *o = &s->named[(*s->n_named)++];
	snprintf(o->run_id, sizeof o->run_id, "%s", r->id);
	snprintf(o->reason, sizeof o->reason, fmt, why);
}

/* One predicted value of quantity k: its error and its per-run row. */
static void
record(cap_errors *x, int k, wc_per_run *pr, const wc_capacity_row *r, const char *fold, double pred, double meas,
       const char *note, wc_error *err, int *rc)
{
	cap_series *s = &x->q[k];
	s->err[s->n] = 100.0 * (pred - meas) / meas;
	snprintf(s->set[s->n++], 48, "%s", r->platform);
	per_run_row(pr, r, fold, quantity_names[k], pred, meas, note, err, rc);
}

/* A runs-table row none of whose quantities its fold predicts: its
 * throughput, and its energy per output token when measured. */
static void
skip_run(cap_errors *x, const wc_capacity_row *r, const char *fmt, const char *why)
{
	skip(x, Q_TP, r, fmt, why);
	if (r->energy_per_token_j > 0)
		skip(x, Q_E, r, fmt, why);
}

/* Score one runs-table row from its predicted latency: throughput, then
 * energy per output token with `power` (NULL: none to pair with, and
 * `no_power` says why). */
static void
score_run(cap_errors *x, wc_per_run *pr, const wc_runs_table *runs, const wc_capacity_row *r, const char *fold,
          double lat, const wc_params *power, const char *no_power, const char *note, wc_error *err, int *rc)
{
	double tput = wc_capacity_little_throughput(r->running, r->output_tokens, lat);
	wc_power pw;
	wc_error perr = { 0 };
	if (!isfinite(tput)) {
		skip_run(x, r, "%s", isfinite(lat) ? "its predicted throughput is not finite" : note);
		return;
	}
	record(x, Q_TP, pr, r, fold, tput, r->throughput_tok_s, note, err, rc);
	if (!(r->energy_per_token_j > 0))
		return;
	if (!power) {
		skip(x, Q_E, r, "%s", no_power);
		return;
	}
	if (wc_fit_predict_run(power, &runs->runs[r->source_index], &pw, &perr) != WC_OK) {
		skip(x, Q_E, r, "the fold's power law cannot predict it: %s", perr.msg);
		return;
	}
	record(x, Q_E, pr, r, fold, pw.node_power_w / tput, r->energy_per_token_j, note, err, rc);
}

/* Score one period from its predicted latency (NaN: unpredicted). */
static void
score_period(cap_errors *x, wc_per_run *pr, const wc_capacity_row *r, const char *fold, double lat, const char *note,
             wc_error *err, int *rc)
{
	if (!isfinite(lat)) {
		skip(x, Q_P, r, "%s", note);
		return;
	}
	record(x, Q_P, pr, r, fold, lat, r->latency_s, note, err, rc);
}

/* A runs-table row of model `key` that its fold scores: measured, with a
 * throughput, not excluded. */
static int
held_out_run(const wc_capacity_row *r, const char *key)
{
	return !r->from_periods && !r->exclude[0] && strcmp(r->model_key, key) == 0 && r->throughput_tok_s > 0;
}

/* One model held out: refit both laws, predict its runs-table rows. */
static int
lomo_fold(const wc_runs_table *runs, const wc_capacity_data *d, const wc_capacity_fit_options *co,
          const wc_fit_options *po, const char *key, unsigned char *use, unsigned char *use_runs,
          cap_errors *x, wc_per_run *pr, wc_error *err)
{
	wc_capacity_fit_options o = *co;
	wc_capacity_fit_result cf;
	wc_fit_result pf;
	wc_error ferr = { 0 }, perr = { 0 };
	int rc = WC_OK, have_power = 0;
	for (size_t i = 0; i < d->n_rows; i++)
		use[i] = !d->rows[i].exclude[0] && strcmp(d->rows[i].model_key, key) != 0;
	o.use = use;
	if (wc_fit_capacity(d, &o, &cf, &ferr) != WC_OK) {
		/* nothing left to fit: the model's rows stay unpredicted, and the
		 * report counts and names them with the refit's own reason (a table
		 * of 8 runs scored 1 without a word), and the summary says it
		 * as lomo's does (one table of one model: 31 of 31 skipped) */
		int before[Q_COUNT];
		for (int k = 0; k < Q_COUNT; k++)
			before[k] = x->q[k].skip;
		x->refit_failed = 1;
		for (size_t i = 0; i < d->n_rows; i++)
			if (held_out_run(&d->rows[i], key))
				skip_run(x, &d->rows[i], "no capacity fit without its model: %s", ferr.msg);
		x->refit_failed = 0;
		for (int k = 0; k < Q_COUNT; k++) {
			cap_series *s = &x->q[k];
			if (s->skip == before[k])
				continue;
			if (!s->failed++)
				wc_error_format(s->why, sizeof s->why, "without '%s': %s", key, ferr.msg);
			s->unfit += s->skip - before[k];
		}
		return WC_OK;
	}
	if (runs) {
		wc_fit_options p = *po;
		for (size_t j = 0; j < runs->n_runs; j++) {
			const wc_model_info *m = wc_model_lookup(runs->runs[j].model);
			use_runs[j] = !runs->runs[j].exclude[0] && strcmp(m ? m->name : runs->runs[j].model, key) != 0;
		}
		p.use = use_runs;
		have_power = wc_fit_inference_law(runs, &p, &pf, &perr) == WC_OK;
		if (have_power)
			wc_fit_law_terms_note(&x->law_terms, p.law_terms, &pf);
	}
	char no_power[WC_ERROR_MSG_MAX + 48];
	wc_error_format(no_power, sizeof no_power, "no power-law fit without its model: %s",
	         runs ? perr.msg : "no runs table");
	for (size_t i = 0; i < d->n_rows && rc == WC_OK; i++) {
		const wc_capacity_row *r = &d->rows[i];
		if (!held_out_run(r, key))
			continue;
		char note[256];
		double lat = predict_latency(&cf.params, r, 0, note, sizeof note);
		score_run(x, pr, runs, r, key, lat, have_power ? &pf.params : NULL, no_power, note, err, &rc);
	}
	if (have_power)
		wc_fit_result_clear(&pf);
	wc_capacity_fit_result_clear(&cf);
	return rc;
}

/* Each period predicted from a fit on the other periods, its twins (equal
 * in every measured field: a table given twice, a row repeated) held out
 * with it and its fold named by the first of them, so that neither its fit
 * nor its interval's quantile holds its own value again: a copy of the
 * published table scored 0.51 % against 6.78 % (docs/validation.md,
 * "Capacity"). Counted, and the first pair named, in `out`. */
static int
periods_loo(const wc_capacity_data *d, const wc_capacity_fit_options *co, unsigned char *use, cap_errors *x,
            wc_per_run *pr, wc_capacity_report *out, wc_error *err)
{
	int rc = WC_OK;
	for (size_t i = 0; i < d->n_rows && rc == WC_OK; i++) {
		const wc_capacity_row *r = &d->rows[i];
		wc_capacity_fit_options o = *co;
		wc_capacity_fit_result cf;
		if (!r->from_periods || r->exclude[0])
			continue;
		size_t first = i;
		for (size_t j = 0; j < d->n_rows; j++) {
			const int twin = wc_fit_period_twins(&d->rows[j], r);
			use[j] = d->rows[j].from_periods && !d->rows[j].exclude[0] && !twin;
			if (twin && !d->rows[j].exclude[0] && j < first)
				first = j;
		}
		if (first != i && !out->period_twins++) {
			snprintf(out->period_twin[0], sizeof out->period_twin[0], "%s", d->rows[first].id);
			snprintf(out->period_twin[1], sizeof out->period_twin[1], "%s", r->id);
		}
		o.use = use;
		double lat = NAN;
		char note[256] = "";
		wc_error ferr = { 0 };
		if (wc_fit_capacity(d, &o, &cf, &ferr) == WC_OK) {
			lat = predict_latency(&cf.params, r, 0, note, sizeof note);
			wc_capacity_fit_result_clear(&cf);
		} else {
			wc_error_format(note, sizeof note, "no capacity fit without it: %s", ferr.msg);
		}
		const size_t scored = pr ? pr->n : 0;
		score_period(x, pr, r, d->rows[first].id, lat, note, err, &rc);
		for (size_t k = scored; pr && k < pr->n; k++)
			pr->rows[k].twin = first != i; /* counts once in the quantile, as in the fit */
	}
	return rc;
}

/* One platform held out: refit the capacity model on the other platforms'
 * rows (runs tables and periods alike) and predict its rows through the
 * datasheet transfer a predict answer on an unfitted board takes. */
static int
platform_fold(const wc_runs_table *runs, const wc_capacity_data *d, const wc_capacity_fit_options *co,
              const wc_fit_options *po, const char *platform, unsigned char *use, cap_errors *x, wc_per_run *pr,
              wc_error *err)
{
	wc_capacity_fit_options o = *co;
	wc_capacity_fit_result cf;
	int rc = WC_OK;
	/* Power as a board the set never saw gets it: the prior's level for the
	 * platform replaced by its datasheet transfer (the power law's own
	 * leave-one-platform-out, docs/intervals.md). */
	wc_params *power = NULL;
	if (runs && po && po->prior && (rc = wc_params_datasheet_copy(po->prior, platform, &power, err)) != WC_OK) {
		if (rc != WC_ENOTFOUND)
			return rc;
		rc = WC_OK; /* no datasheet: its energy goes unpredicted */
	}
	for (size_t i = 0; i < d->n_rows; i++)
		use[i] = !d->rows[i].exclude[0] && strcmp(d->rows[i].platform, platform) != 0;
	o.use = use;
	wc_error ferr = { 0 };
	int fitted = wc_fit_capacity(d, &o, &cf, &ferr) == WC_OK;
	char no_fit[256], no_power[96];
	wc_error_format(no_fit, sizeof no_fit, "no capacity fit without its platform: %s", fitted ? "" : ferr.msg);
	wc_error_format(no_power, sizeof no_power, "no power law for %s: %s", platform,
	         runs && po && po->prior ? "its datasheet is not in the catalog" : "no prior set to transfer");
	for (size_t i = 0; i < d->n_rows && rc == WC_OK; i++) {
		const wc_capacity_row *r = &d->rows[i];
		if (r->exclude[0] || strcmp(r->platform, platform) != 0 || (!r->from_periods && !(r->throughput_tok_s > 0)))
			continue;
		char note[256] = "";
		double lat = NAN;
		if (fitted)
			lat = predict_latency(&cf.params, r, 1, note, sizeof note);
		else
			snprintf(note, sizeof note, "%s", no_fit);
		if (r->from_periods)
			score_period(x, pr, r, platform, lat, note, err, &rc);
		else
			score_run(x, pr, runs, r, platform, lat, power, no_power, note, err, &rc);
	}
	if (fitted)
		wc_capacity_fit_result_clear(&cf);
	free(power);
	return rc;
}

int
wc_validate_capacity(const wc_runs_table *runs, const wc_capacity_data *d, const wc_capacity_fit_options *co,
                     const wc_fit_options *power, wc_capacity_report *out, wc_per_run *per_run, wc_error *err)
{
	return wc_validate_capacity_folds(runs, d, co, power, WC_CAPACITY_FOLDS_MODEL, out, per_run, err);
}

int
wc_validate_capacity_folds(const wc_runs_table *runs, const wc_capacity_data *d, const wc_capacity_fit_options *co,
                           const wc_fit_options *power, wc_capacity_folds folds, wc_capacity_report *out,
                           wc_per_run *per_run, wc_error *err)
{
	size_t n = d->n_rows ? d->n_rows : 1, nr = runs && runs->n_runs ? runs->n_runs : 1;
	cap_errors x = { 0 };
	wc_per_run rows = WC_PER_RUN_INIT;
	unsigned char *use = wc_alloc_array(n, 1), *use_runs = wc_alloc_array(nr, 1), *done = wc_alloc_zeroed(n, 1);
	int rc = WC_OK;
	wc_heldout_report *const summary[Q_COUNT] = { &out->throughput, &out->energy, &out->periods };
	memset(out, 0, sizeof *out);
	int ok = use && use_runs && done;
	for (int k = 0; k < Q_COUNT; k++) {
		x.q[k].n_named = &out->n_named[k];
		x.q[k].named = out->named[k];
		x.q[k].err = wc_alloc_array(n, sizeof *x.q[k].err);
		x.q[k].set = wc_alloc_array(n, sizeof *x.q[k].set);
		ok = ok && x.q[k].err && x.q[k].set;
	}
	if (!ok) {
		rc = wc_error_set(err, WC_ENOMEM, "validate capacity: out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < d->n_rows && rc == WC_OK; i++) {
		const wc_capacity_row *r = &d->rows[i];
		int by_platform = folds == WC_CAPACITY_FOLDS_PLATFORM;
		if (done[i] || (r->from_periods && !by_platform) || r->exclude[0])
			continue;
		for (size_t j = 0; j < d->n_rows; j++)
			done[j] |= by_platform ? strcmp(d->rows[j].platform, r->platform) == 0
			                       : strcmp(d->rows[j].model_key, r->model_key) == 0;
		rc = by_platform ? platform_fold(runs, d, co, power, r->platform, use, &x, &rows, err)
		                 : lomo_fold(runs, d, co, power, r->model_key, use, use_runs, &x, &rows, err);
	}
	if (rc == WC_OK && folds == WC_CAPACITY_FOLDS_MODEL)
		rc = periods_loo(d, co, use, &x, &rows, out, err);
	/* Cross-conformal 95 % intervals per quantity: a held-out model's (or
	 * period's) from the other folds' errors (docs/intervals.md). */
	if (rc == WC_OK)
		rc = wc__pe_cross_intervals(&rows, 1, err);
	for (int k = 0; k < Q_COUNT && rc == WC_OK; k++) {
		const cap_series *s = &x.q[k];
		rc = wc__accuracy_summary(s->err, (const char (*)[48])s->set, s->n, s->skip, summary[k], err);
		if (s->skip) {
			const char *rest[] = { s->skip > s->unfit ? s->other : "", NULL };
			wc__skip_reason(summary[k]->skip_reason, sizeof summary[k]->skip_reason, s->failed, s->unfit,
			                s->why, rest);
		}
	}
	out->energy.law_terms = x.law_terms;
	for (int k = 0; k < Q_COUNT && rc == WC_OK; k++)
		rc = wc__coverage_summary(&rows, quantity_names[k], summary[k], err);
	for (size_t i = 0; rc == WC_OK && per_run && i < rows.n; i++)
		rc = wc_per_run_add(per_run, &rows.rows[i], err);
cleanup:
	wc_per_run_clear(&rows);
	free(use);
	free(use_runs);
	free(done);
	for (int k = 0; k < Q_COUNT; k++) {
		free(x.q[k].err);
		free(x.q[k].set);
	}
	return rc;
}

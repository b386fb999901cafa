/*
 * Held-out error of mean power and the coverage of 95 % intervals
 * (docs/intervals.md): residuals of runs each predicted by a law that did
 * not see them, their split-conformal quantiles per stratum
 * (models/interval.h), and cross-conformal intervals for validation --
 * each held-out group's runs get the quantiles of the other groups'
 * residuals, so no run calibrates its own interval.
 */
#include "validation_internal.h"
#include "models/grow.h"
#include "models/interval.h"
#include "models/limits.h"
#include "models/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
row_group(const wc_per_run_row *row, int by_fold)
{
	if (by_fold)
		return row->fold;
	const wc_model_info *m = wc_model_lookup(wc_per_run_row_get(row, "model"));
	return m ? m->name : wc_per_run_row_get(row, "model");
}

static double
row_residual(const wc_per_run_row *row)
{
	if (!(row->predicted > 0.0) || !(row->measured > 0.0))
		return NAN;
	return log(row->measured / row->predicted);
}

/* Mark in `idle` the mean-power rows idle throughout (running 0, or a
 * load series all 0), by predict's own test (wc_interval_applies): their
 * answer is G x P0 with no interval, and the held-out error is of loaded
 * runs (docs/intervals.md, "Where it applies"). Counted in, their near-0
 * residuals shrank the quantile: 14 loaded rows and 5 idle ones passed the
 * 19-residual floor with q 0.083, which covered 21 of 48 loaded runs.
 * Returns how many. */
static size_t
mark_idle(const wc_per_run *rows, unsigned char *idle)
{
	size_t n = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const wc_per_run_row *r = &rows->rows[i];
		const char *running = wc_per_run_row_get(r, "running");
		char *end;
		double v = strtod(running, &end);
		idle[i] = !strcmp(r->quantity, "mean_power_w") && running[0] && !*end && !wc_interval_applies(v);
		n += idle[i];
	}
	return n;
}

/* Rows of another quantity take no part in a quantity's quantile. */
static int
other_quantity(const wc_per_run_row *r, const char *quantity)
{
	return quantity && strcmp(r->quantity, quantity) != 0;
}

/* Distinct groups among the rows of `platform` ("" = all) and `quantity`,
 * leaving out the rows `skip` marks (may be NULL). */
static int
count_groups(const wc_per_run *rows, int by_fold, const char *platform, const unsigned char *skip,
             const char *quantity)
{
	int n = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const wc_per_run_row *r = &rows->rows[i];
		const char *g = row_group(r, by_fold);
		if ((platform[0] && strcmp(wc_per_run_row_get(r, "platform"), platform)) || (skip && skip[i]) ||
		    other_quantity(r, quantity))
			continue;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++) {
			const wc_per_run_row *q = &rows->rows[j];
			seen = !(skip && skip[j]) && !strcmp(row_group(q, by_fold), g) && !other_quantity(q, quantity) &&
			       (!platform[0] || !strcmp(wc_per_run_row_get(q, "platform"), platform));
		}
		n += !seen;
	}
	return n;
}

/* One stratum from the residuals of `platform` ("" = pooled), without
 * the rows `skip` marks; 0 when too few. `r` is scratch for rows->n values. */
static int
stratum(const wc_per_run *rows, const char *platform, const unsigned char *skip, const char *quantity,
        double *r, wc_pe_stratum *s)
{
	size_t m = 0;
	memset(s, 0, sizeof *s);
	snprintf(s->platform, sizeof s->platform, "%s", platform);
	for (size_t i = 0; i < rows->n; i++) {
		const wc_per_run_row *x = &rows->rows[i];
		if ((platform[0] && strcmp(wc_per_run_row_get(x, "platform"), platform)) || (skip && skip[i]) ||
		    other_quantity(x, quantity) || x->twin)
			continue;
		double v = row_residual(x);
		if (isfinite(v))
			r[m++] = v;
	}
	s->n = (int)m;
	return wc_pe_quantiles(r, m, WC_INTERVAL_LEVEL, &s->q_lo, &s->q_hi);
}

/* The strata from `rows` without the rows `skip` marks: pooled, and each
 * platform with enough groups of its own. */
static void
build(const wc_per_run *rows, int by_fold, const unsigned char *skip, const char *quantity, double *scratch,
      wc_pred_error *pe)
{
	wc_pe_stratum s;
	memset(pe, 0, sizeof *pe);
	pe->level = WC_INTERVAL_LEVEL;
	if (stratum(rows, "", skip, quantity, scratch, &s))
		wc_pe_add(pe, &s);
	for (size_t i = 0; i < rows->n; i++) {
		if (other_quantity(&rows->rows[i], quantity))
			continue;
		const char *plat = wc_per_run_row_get(&rows->rows[i], "platform");
		int seen = 0;
		for (int k = 0; k < pe->n_strata && !seen; k++)
			seen = !strcmp(pe->strata[k].platform, plat);
		if (seen || !plat[0] || count_groups(rows, by_fold, plat, skip, quantity) < WC_PE_MIN_GROUPS)
			continue;
		if (stratum(rows, plat, skip, quantity, scratch, &s))
			wc_pe_add(pe, &s);
	}
	pe->present = pe->n_strata > 0;
}

/* Mark in `skip` the rows of quantity `quantity` that held-out group `g`
 * must not be calibrated by: the group's own rows, and every row of a run
 * the group holds out, whichever fold predicted it (a base point shared by
 * two sweeps, docs/intervals.md: no run calibrates its own interval). */
static void
mark_own(const wc_per_run *rows, int by_fold, const char *g, const char *quantity, unsigned char *skip)
{
	for (size_t j = 0; j < rows->n; j++)
		skip[j] = !other_quantity(&rows->rows[j], quantity) && !strcmp(row_group(&rows->rows[j], by_fold), g)
		          ? 2 : 0;
	for (size_t j = 0; j < rows->n; j++) {
		const wc_per_run_row *r = &rows->rows[j];
		if (skip[j] || other_quantity(r, quantity) || !r->run_id[0])
			continue;
		for (size_t k = 0; k < rows->n && !skip[j]; k++)
			skip[j] = skip[k] == 2 && !strcmp(rows->rows[k].run_id, r->run_id);
	}
}

int
wc__pe_cross_intervals(wc_per_run *rows, int by_fold, wc_error *err)
{
	double *scratch = wc_alloc_array(rows->n ? rows->n : 1, sizeof *scratch);
	unsigned char *done = wc_alloc_zeroed(rows->n ? rows->n : 1, 1);
	unsigned char *skip = wc_alloc_zeroed(rows->n ? rows->n : 1, 1);
	unsigned char *idle = wc_alloc_zeroed(rows->n ? rows->n : 1, 1);
	if (!scratch || !done || !skip || !idle) {
		free(scratch);
		free(done);
		free(skip);
		free(idle);
		return wc_error_set(err, WC_ENOMEM, "intervals: out of memory");
	}
	/* Idle rows, as predict's and `fit intervals`' (mark_idle): no
	 * interval, and no part in another's quantile (lomo gave a row at 0
	 * running 434.8-1171.9 W, which heldout's rule refuses). */
	mark_idle(rows, idle);
	for (size_t i = 0; i < rows->n; i++) {
		if (done[i])
			continue;
		char g[96], quantity[40];
		wc_pred_error pe;
		snprintf(g, sizeof g, "%s", row_group(&rows->rows[i], by_fold));
		snprintf(quantity, sizeof quantity, "%s", rows->rows[i].quantity);
		mark_own(rows, by_fold, g, quantity, skip);
		for (size_t j = 0; j < rows->n; j++)
			skip[j] |= idle[j];
		build(rows, by_fold, skip, quantity, scratch, &pe);
		for (size_t j = i; j < rows->n; j++) {
			wc_per_run_row *r = &rows->rows[j];
			if (done[j] || strcmp(row_group(r, by_fold), g) || other_quantity(r, quantity))
				continue;
			done[j] = 1;
			const wc_pe_stratum *s = wc_pe_find(&pe, wc_per_run_row_get(r, "platform"), "");
			r->lo = r->hi = NAN;
			if (idle[j]) {
				char why[160];
				snprintf(why, sizeof why, "interval_95: none: the run is idle (running below %g); "
				         WC_INTERVAL_LOADED_ONLY, WC_CAPACITY_MIN_CONCURRENCY);
				wc_per_run_row_warn(r, why);
				continue;
			}
			/* held as the answer's own interval is (docs/intervals.md,
			 * "Physical ceiling"): the interval scored is the one users get */
			if (wc_pe_widen(s, r->predicted, &r->lo, &r->hi)) {
				if (r->ceiling > 0.0) /* NaN or unset: none */
					wc_interval_hold_ceiling(r->predicted, r->ceiling, &r->hi);
				wc_interval_hold_floor(r->predicted, r->floor, &r->lo);
			}
		}
	}
	free(scratch);
	free(done);
	free(skip);
	free(idle);
	return WC_OK;
}

int
wc__coverage_row(const wc_per_run_row *r, const char *quantity, double *rel_width, int *covers)
{
	if (!isfinite(r->lo) || !isfinite(r->hi) || other_quantity(r, quantity))
		return 0;
	*rel_width = (r->hi - r->lo) / r->predicted;
	*covers = wc_interval_includes(r->lo, r->hi, r->measured);
	return 1;
}

/* Coverage and median relative width of the rows whose set is `set`
 * ("" = all) into `a`. `w` is scratch. */
static void
cover(const wc_per_run *rows, const char *set, const char *quantity, double *w, wc_accuracy *a)
{
	size_t m = 0;
	int in = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const wc_per_run_row *r = &rows->rows[i];
		int covers;
		if ((set[0] && strcmp(r->set, set)) || !wc__coverage_row(r, quantity, &w[m], &covers))
			continue;
		in += covers;
		m++;
	}
	a->n_interval = (int)m;
	a->coverage_95 = a->median_rel_width = NAN;
	if (!m)
		return;
	a->coverage_95 = (double)in / (double)m;
	a->median_rel_width = wc_stats_median(w, m);
}

int
wc__coverage_summary(const wc_per_run *rows, const char *quantity, wc_heldout_report *out, wc_error *err)
{
	double *w = wc_alloc_array(rows->n ? rows->n : 1, sizeof *w);
	if (!w)
		return wc_error_set(err, WC_ENOMEM, "coverage: out of memory");
	cover(rows, "", quantity, w, &out->overall);
	for (int s = 0; s < out->n_sets; s++)
		cover(rows, out->sets[s].set, quantity, w, &out->sets[s]);
	free(w);
	return wc__coverage_by_load(rows, quantity, out, err);
}

/* Has `rows` a row of platform `name` among its first `n`? */
static int
seen_platform(const wc_runs_table *t, size_t n, const char *name)
{
	for (size_t j = 0; j < n; j++)
		if (!t->runs[j].exclude[0] && strcmp(t->runs[j].platform, name) == 0)
			return 1;
	return 0;
}

/* Leave one platform out for datasheet levels (docs/intervals.md,
 * "Strata"): each platform's runs predicted by `frozen` with that
 * platform's level replaced by the datasheet transfer from the others
 * (models/transfer.c), or transferred as `predict` does when the set has
 * none, and without that platform's model terms. Rows' folds name the
 * platform. */
static int
platform_rows(const wc_runs_table *t, const wc_params *frozen, wc_per_run *rows, wc_error *err)
{
	int rc = WC_OK;
	for (size_t i = 0; i < t->n_runs && rc == WC_OK; i++) {
		const char *name = t->runs[i].platform;
		if (t->runs[i].exclude[0] || seen_platform(t, i, name))
			continue;
		wc_per_run mine = WC_PER_RUN_INIT;
		wc_heldout_report rep;
		wc_params *copy;
		if ((rc = wc_params_datasheet_copy(frozen, name, &copy, err)) == WC_ENOTFOUND) {
			rc = WC_OK; /* its runs go unpredicted */
			continue;
		}
		if (rc != WC_OK)
			break;
		rc = wc_validate_heldout(copy, t, &rep, &mine, err);
		for (size_t j = 0; rc == WC_OK && j < mine.n; j++) {
			wc_per_run_row *r = &mine.rows[j];
			if (strcmp(wc_per_run_row_get(r, "platform"), name) != 0)
				continue;
			snprintf(r->fold, sizeof r->fold, "%s", name);
			rc = wc_per_run_add(rows, r, err);
		}
		wc_per_run_clear(&mine);
		free(copy);
	}
	return rc;
}

int
wc_validate_pred_error(const wc_runs_table *t, const wc_fit_options *base, const wc_params *frozen,
                       const char *folds, const char *data, wc_pred_error *out, wc_error *err)
{
	return wc_validate_pred_error_why(t, base, frozen, folds, data, out, NULL, 0, err);
}

int
wc_validate_pred_error_why(const wc_runs_table *t, const wc_fit_options *base, const wc_params *frozen,
                           const char *folds, const char *data, wc_pred_error *out, char *skip_why, size_t cap,
                           wc_error *err)
{
	wc_per_run rows = WC_PER_RUN_INIT;
	wc_heldout_report rep;
	int rc, by_fold = strcmp(folds, "frozen") != 0;
	memset(out, 0, sizeof *out);
	memset(&rep, 0, sizeof rep);
	if (!strcmp(folds, "frozen") && !frozen)
		return wc_error_set(err, WC_EINVAL, "folds: frozen needs a parameter set");
	if (!strcmp(folds, "model"))
		rc = wc__validate_lomo_groups(t, base, "", &rep, NULL, &rows, err);
	else if (!strcmp(folds, "workload"))
		rc = wc__validate_lowo_groups(t, base, "", &rep, NULL, &rows, err);
	else if (!strcmp(folds, "frozen"))
		rc = wc_validate_heldout(frozen, t, &rep, &rows, err);
	else if (!strcmp(folds, "platform") && frozen)
		rc = platform_rows(t, frozen, &rows, err);
	else
		return wc_error_set(err, WC_EINVAL, "folds: expected model, workload, platform or frozen, got '%s'%s",
		                    folds, frozen ? "" : " (platform and frozen need a parameter set)");
	double *scratch = rc == WC_OK ? wc_alloc_array(rows.n ? rows.n : 1, sizeof *scratch) : NULL;
	unsigned char *idle = rc == WC_OK ? wc_alloc_zeroed(rows.n ? rows.n : 1, 1) : NULL;
	size_t n_idle = 0;
	if (rc == WC_OK && (!scratch || !idle))
		rc = wc_error_set(err, WC_ENOMEM, "intervals: out of memory");
	if (rc == WC_OK) {
		n_idle = mark_idle(&rows, idle);
		build(&rows, by_fold, idle, NULL, scratch, out);
		out->n_idle = (int)n_idle;
		/* how many groups the pooled quantile is exchangeable over: a
		 * few make it noisy (docs/intervals.md, "Strata") */
		out->n_groups = out->present ? count_groups(&rows, by_fold, "", idle, NULL) : 0;
		/* Platform folds answer for datasheet levels only: one pooled
		 * stratum of that source (per platform needs 20 platforms). */
		for (int k = 0; !strcmp(folds, "platform") && k < out->n_strata; k++)
			snprintf(out->strata[k].source, sizeof out->strata[k].source, "datasheet");
		snprintf(out->folds, sizeof out->folds, "%s", folds);
		/* the file's record of where the residuals came from says what
		 * of the input they leave out */
		snprintf(out->data, sizeof out->data, "%s", data ? data : "");
		if (n_idle && data && strlen(out->data) + 40 < sizeof out->data)
			snprintf(out->data + strlen(out->data), sizeof out->data - strlen(out->data),
			         "; %zu idle row(s) left out", n_idle);
		/* the failure says what left the runs out, as a success's
		 * report does (docs/cli.md, "fit intervals") */
		if (!out->present) {
			char why[WC_ERROR_MSG_MAX] = "";
			if (n_idle)
				snprintf(why, sizeof why, "; %zu idle (running 0) left out: the error is of loaded runs",
				         n_idle);
			size_t excluded = 0;
			for (size_t i = 0; i < t->n_runs; i++)
				excluded += t->runs[i].exclude[0] != '\0';
			char head[WC_ERROR_MSG_MAX], excl[48] = "";
			int nh = snprintf(head, sizeof head, "runs: %zu held-out prediction(s) are too few for a 95 %% "
			                  "quantile (at least %d)", rows.n - n_idle, WC_PE_MIN_RESIDUALS);
			if (excluded && by_fold)
				snprintf(excl, sizeof excl, "; %zu excluded", excluded);
			if (rep.skipped) {
				/* the reason gets the room the count, the idle and the
				 * excluded leave, so they stay whole */
				const char *reason = rep.skip_reason[0] ? rep.skip_reason : "no positive prediction";
				int room = (int)WC_ERROR_MSG_MAX - 1 - nh - (int)strlen(why) - (int)strlen(excl) -
				           (int)strlen("; 0000000000 run(s) not predicted: ");
				int whole = room >= 0 && strlen(reason) <= (size_t)room;
				snprintf(why + strlen(why), sizeof why - strlen(why), "; %d run(s) not predicted: %.*s%s",
				         rep.skipped, whole ? (int)strlen(reason) : (room > 3 ? room - 3 : 0), reason,
				         whole ? "" : "...");
			}
			snprintf(why + strlen(why), sizeof why - strlen(why), "%s", excl);
			rc = wc_error_set(err, WC_EINVAL, "%s%s", head, why);
		}
	}
	if (skip_why && cap)
		snprintf(skip_why, cap, "%s", rc == WC_OK ? rep.skip_reason : "");
	free(scratch);
	free(idle);
	wc_per_run_clear(&rows);
	return rc;
}

int
wc__pe_from_rows(const wc_per_run *rows, int by_fold, const char *quantity, const char *folds, const char *data,
                 const wc_heldout_report *rep, wc_pred_error *out, wc_error *err)
{
	double *scratch = wc_alloc_array(rows->n ? rows->n : 1, sizeof *scratch);
	memset(out, 0, sizeof *out);
	if (!scratch)
		return wc_error_set(err, WC_ENOMEM, "intervals: out of memory");
	build(rows, by_fold, NULL, quantity, scratch, out);
	free(scratch);
	out->n_groups = out->present ? count_groups(rows, by_fold, "", NULL, quantity) : 0;
	snprintf(out->folds, sizeof out->folds, "%s", folds);
	snprintf(out->data, sizeof out->data, "%s", data ? data : "");
	if (!out->present) {
		/* how many, and what left the rest out, as the power quantile's
		 * failure says (wc_validate_pred_error) */
		size_t n = 0;
		char why[WC_ERROR_MSG_MAX] = "";
		for (size_t i = 0; i < rows->n; i++)
			n += !quantity || strcmp(rows->rows[i].quantity, quantity) == 0;
		if (rep && rep->skipped)
			snprintf(why, sizeof why, "; %d run(s) not predicted: %.140s", rep->skipped,
			         rep->skip_reason[0] ? rep->skip_reason : "no reason recorded");
		return wc_error_set(err, WC_EINVAL, "runs: %zu held-out prediction(s)%s%.20s are too few for a 95 %% "
		                    "quantile (at least %d)%s", n, quantity ? " of " : "", quantity ? quantity : "",
		                    WC_PE_MIN_RESIDUALS, why);
	}
	return WC_OK;
}

/* A board transferred from a datasheet misses by more than a held-out
 * model on a fitted level: one pooled stratum of source "datasheet" per
 * quantity from leaving each platform out (docs/intervals.md), latency's
 * from throughput, energy per output token's from its own residuals (power
 * and capacity both transferred); added where the rows hold at least two
 * platforms. `out` as wc_validate_capacity_pred_error's. */
static int
capacity_datasheet_strata(const wc_runs_table *runs, const wc_capacity_data *d, const wc_capacity_fit_options *co,
                          const wc_fit_options *power, wc_pred_error *out, wc_error *err)
{
	static const struct { int q; const char *rows; } which[] = {
		{ WC_PEQ_LATENCY, "throughput_tok_s" }, { WC_PEQ_ENERGY_TOKEN, "energy_per_token_j" },
	};
	wc_per_run rows = WC_PER_RUN_INIT;
	wc_capacity_report rep;
	wc_pe_stratum s;
	int rc = wc_validate_capacity_folds(runs, d, co, power, WC_CAPACITY_FOLDS_PLATFORM, &rep, &rows, err);
	double *scratch = rc == WC_OK ? wc_alloc_array(rows.n ? rows.n : 1, sizeof *scratch) : NULL;
	if (rc == WC_OK && !scratch)
		rc = wc_error_set(err, WC_ENOMEM, "intervals: out of memory");
	for (size_t i = 0; rc == WC_OK && i < sizeof which / sizeof which[0]; i++) {
		/* the platforms it rests on, warned below WC_PE_MIN_GROUPS as
		 * the pooled stratum's models are (docs/intervals.md, "Strata") */
		int groups = out[which[i].q].present ? count_groups(&rows, 1, "", NULL, which[i].rows) : 0;
		if (groups >= 2 && stratum(&rows, "", NULL, which[i].rows, scratch, &s)) {
			snprintf(s.source, sizeof s.source, "datasheet");
			wc_pe_add(&out[which[i].q], &s);
			out[which[i].q].n_groups_datasheet = groups;
		}
	}
	free(scratch);
	wc_per_run_clear(&rows);
	return rc;
}

int
wc_validate_capacity_pred_error(const wc_runs_table *runs, const wc_capacity_data *d,
                                const wc_capacity_fit_options *co, const wc_fit_options *power, const char *data,
                                wc_pred_error *out, wc_error *err)
{
	wc_per_run rows = WC_PER_RUN_INIT;
	wc_capacity_report rep;
	int rc = wc_validate_capacity(runs, d, co, power, &rep, &rows, err);
	/* Throughput's |log residual| is latency's (docs/intervals.md). */
	if (rc == WC_OK)
		rc = wc__pe_from_rows(&rows, 1, "throughput_tok_s", "model", data, &rep.throughput, &out[WC_PEQ_LATENCY],
		                      err);
	if (rc == WC_OK && !runs)
		out[WC_PEQ_ENERGY_TOKEN].present = 0; /* no power law to pair with: none */
	else if (rc == WC_OK)
		rc = wc__pe_from_rows(&rows, 1, "energy_per_token_j", "model", data, &rep.energy,
		                      &out[WC_PEQ_ENERGY_TOKEN], err);
	if (rc == WC_OK)
		rc = capacity_datasheet_strata(runs, d, co, power, out, err);
	for (int q = 0; q < WC_PEQ_COUNT; q++)
		if (out[q].present)
			snprintf(out[q].quantity, sizeof out[q].quantity, "%s", wc_pe_quantity_name(q));
	wc_per_run_clear(&rows);
	return rc;
}

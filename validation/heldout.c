/*
 * Frozen-law accuracy (docs/validation.md, Table 14): for runs a law did not see,
 * median |error| %, share within 5 %, and bias (mean signed error %,
 * positive = overprediction) of predicted vs measured mean power.
 */
#include "validation_internal.h"
#include "models/grow.h"
#include "models/stats.h"
#include "fit/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
summarise(const char *name, const double *err_pct, size_t n, double *scratch, wc_accuracy *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->set, sizeof out->set, "%s", name);
	out->n = (int)n;
	out->median_abs_err_pct = out->share_within_5pct = out->bias_pct = NAN;
	out->coverage_95 = out->median_rel_width = NAN;
	if (n == 0)
		return;
	double bias = 0;
	int within = 0;
	for (size_t i = 0; i < n; i++) {
		scratch[i] = fabs(err_pct[i]);
		bias += err_pct[i] / (double)n;
		within += scratch[i] <= 5.0;
	}
	out->median_abs_err_pct = wc_stats_median(scratch, n);
	out->share_within_5pct = (double)within / (double)n;
	out->bias_pct = bias;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
wc__accuracy_summary(const double *e, const char (*sets)[48], size_t m, int skipped,
                     wc_heldout_report *out, wc_error *err)
{
	double *sub = wc_alloc_zeroed(m ? m : 1, sizeof *sub), *scratch = wc_alloc_zeroed(m ? m : 1, sizeof *scratch);
	const char **unlisted = wc_alloc_zeroed(m ? m : 1, sizeof *unlisted);
	memset(out, 0, sizeof *out);
	out->skipped = skipped;
	if (!sub || !scratch || !unlisted) {
		free(unlisted);
		free(sub);
		free(scratch);
		return wc_error_set(err, WC_ENOMEM, "accuracy: out of memory");
	}
	summarise("", e, m, scratch, &out->overall);
	for (size_t i = 0; i < m; i++) {
		int seen = 0;
		for (int s = 0; s < out->n_sets && !seen; s++)
			seen = strcmp(out->sets[s].set, sets[i]) == 0;
		if (seen)
			continue;
		if (out->n_sets >= WC_HELDOUT_SETS_MAX) { /* counted below, once each */
			unlisted[out->runs_not_shown++] = sets[i];
			continue;
		}
		size_t k = 0;
		for (size_t j = i; j < m; j++)
			if (strcmp(sets[j], sets[i]) == 0)
				sub[k++] = e[j];
		summarise(sets[i], sub, k, scratch, &out->sets[out->n_sets++]);
	}
	qsort(unlisted, (size_t)out->runs_not_shown, sizeof *unlisted, by_name);
	for (int i = 0; i < out->runs_not_shown; i++)
		out->sets_not_shown += i == 0 || strcmp(unlisted[i], unlisted[i - 1]) != 0;
	free(unlisted);
	free(sub);
	free(scratch);
	return WC_OK;
}

static int
heldout(const wc_params *p, const wc_runs_table *t, int flags, wc_heldout_report *out, wc_per_run *per_run,
        wc_heldout_skip_fn each, void *payload, wc_error *err)
{
	size_t n = t->n_runs ? t->n_runs : 1, m = 0;
	double *e = wc_alloc_zeroed(n, sizeof *e);
	char (*sets)[48] = wc_alloc_zeroed(n, sizeof *sets);
	wc_predictor *pr = NULL;
	wc_per_run local = WC_PER_RUN_INIT, *rows = per_run ? per_run : &local;
	size_t first = rows->n;
	int rc, skipped = 0;
	char reason[sizeof out->skip_reason] = ""; /* the first skipped run's, for the report to say */
	memset(out, 0, sizeof *out);
	if (!e || !sets) {
		rc = wc_error_set(err, WC_ENOMEM, "heldout: out of memory");
		goto done;
	}
	if ((rc = wc_predictor_new(p, &pr, err)) != WC_OK)
		goto done;
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		wc_per_run_row row;
		double pred;
		wc_per_run_row_init(&row);
		wc_error why;
		if (wc__predict_run(pr, r, &pred, &row, flags, &why) != WC_OK) {
			if (!skipped++)
				wc_error_format(reason, sizeof reason, "run '%.64s': %s", r->run_id, why.msg);
			if (each) /* whole: the report's one line cuts it */
				each(r->run_id, why.msg, payload);
			continue;
		}
		e[m] = 100.0 * (pred - r->mean_power_w) / r->mean_power_w;
		snprintf(sets[m], sizeof sets[m], "%s", r->set[0] ? r->set : "unlabelled");
		snprintf(row.set, sizeof row.set, "%s", sets[m]);
		if ((rc = wc_per_run_add(rows, &row, err)) != WC_OK)
			goto done;
		m++;
	}
	rc = wc__accuracy_summary(e, (const char (*)[48])sets, m, skipped, out, err);
	memcpy(out->skip_reason, reason, sizeof reason); /* the summary starts the report afresh */
	if (rc == WC_OK) {
		/* the rows this call added: a caller's per_run may hold others */
		wc_per_run mine = { rows->rows + first, rows->n - first, 0 };
		rc = wc__coverage_summary(&mine, NULL, out, err);
	}
done:
	wc_per_run_clear(&local);
	wc_predictor_free(pr);
	free(e);
	free(sets);
	return rc;
}

int
wc_validate_heldout(const wc_params *p, const wc_runs_table *t, wc_heldout_report *out,
                    wc_per_run *per_run, wc_error *err)
{
	return heldout(p, t, WC__RUN_INTERVAL, out, per_run, NULL, NULL, err);
}

int
wc_validate_heldout_datasheet(const wc_params *p, const wc_runs_table *t, wc_heldout_report *out,
                              wc_per_run *per_run, wc_error *err)
{
	return heldout(p, t, WC__RUN_INTERVAL | WC__RUN_DATASHEET, out, per_run, NULL, NULL, err);
}

int
wc_validate_heldout_each(const wc_params *p, const wc_runs_table *t, int datasheet, wc_heldout_report *out,
                         wc_per_run *per_run, wc_heldout_skip_fn each, void *payload, wc_error *err)
{
	return heldout(p, t, WC__RUN_INTERVAL | (datasheet ? WC__RUN_DATASHEET : 0), out, per_run, each, payload,
	               err);
}

int
wc__near(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-6 * fmax(1.0, fabs(b));
}

/* Refit `t` as `p` was built (its form, terms, precision mode, and `p`
 * itself as the prior for any idle the rows lack): 1 when it gives `p`'s
 * own parameters from as many rows as `p` records -- then its rows are
 * those `p` was fitted on, whatever the file's bytes: comments, order or
 * an import of the same measurements leave the fit unchanged. In `used`
 * (t->n_runs, may be NULL) the rows the refit used, by the fit's own row
 * selection (a finite residual; docs/fitting.md); 0 and `used` untouched
 * when the refit fails. */
static int
refit_matches(const wc_params *p, const wc_runs_table *t, unsigned char *used)
{
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	int same, levels = 0;
	if (p->runs <= 0 || p->n_levels == 0)
		return 0;
	fo.prior = p;
	wc_fit_options_like(&fo, p, -1);
	if (wc_fit_inference_law(t, &fo, &r, NULL) != WC_OK)
		return 0;
	const wc_params *q = &r.params;
	for (size_t i = 0; used && i < t->n_runs; i++)
		used[i] = r.residuals && isfinite(r.residuals[i]);
	same = q->runs == p->runs && q->form == p->form && wc__near(q->delta.value, p->delta.value) &&
	       wc__near(q->gamma1.value, p->gamma1.value) && wc__near(q->gamma2.value, p->gamma2.value);
	for (int i = 0; same && i < q->n_levels; i++) {
		const wc_level *a = &q->levels[i], *b = wc_params_level(p, a->name);
		if (!b)
			continue;
		levels++;
		same = wc__near(a->theta.value, b->theta.value) && wc__near(a->s.value, b->s.value) &&
		       wc__near(a->p0.value, b->p0.value);
	}
	wc_fit_result_clear(&r);
	return same && levels > 0;
}

/* Rows marked `exclude` after the set was fitted (a cell filled in the
 * fitted table) leave the refit short of them, and its other rows read
 * as held out: ML.ENERGY with one row marked scored the `measured`
 * profile's 325 rows as held out (law_in_sample 0). A mark is no reason
 * to call the rest out of sample, so a table that does not refit to the
 * set as marked is refitted with its marks ignored (docs/validation.md,
 * "Frozen-law accuracy"): 2 when that gives the set, its marked rows
 * then among those it was fitted on; else as refit_matches. */
static int
refit_matches_unmarked(const wc_params *p, const wc_runs_table *t, unsigned char *used)
{
	if (refit_matches(p, t, used))
		return 1;
	if (wc_runs_excluded(t) == 0)
		return 0;
	wc_runs_table unmarked = *t; /* borrows all but the rows */
	wc_run *runs = wc_alloc_array(t->n_runs, sizeof *runs);
	if (!runs)
		return 0;
	memcpy(runs, t->runs, t->n_runs * sizeof *runs);
	for (size_t i = 0; i < t->n_runs; i++)
		runs[i].exclude[0] = '\0';
	unmarked.runs = runs;
	int same = refit_matches(p, &unmarked, used);
	free(runs);
	return same ? 2 : 0;
}

/* Is `name` one of the ", "-separated names of `list`? */
static int
listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *at = strstr(list, name); at; at = strstr(at + 1, name))
		if ((at == list || at[-1] == ' ') && (at[n] == ',' || at[n] == '\0'))
			return 1;
	return 0;
}

/* The rows the fit did not use -- an `exclude` mark, or left out by the
 * fit's own rule -- are held out even in the fitted table: their count,
 * and into `sets` (NULL: not) their sets, as many as fit `cap`: those of
 * the rows marked held out first (the set a table holds out, which a
 * list in table order pushed past the room), then those the fit's rule
 * left out. */
static int
unused_rows(const wc_runs_table *t, const unsigned char *used, char *sets, size_t cap)
{
	int n = 0, full = 0;
	if (sets)
		sets[0] = '\0';
	for (size_t i = 0; i < t->n_runs; i++)
		n += !used[i];
	for (int marked = 1; sets && marked >= 0 && !full; marked--)
		for (size_t i = 0; i < t->n_runs && !full; i++) {
			if (used[i] || (t->runs[i].exclude[0] != '\0') != marked)
				continue;
			const char *s = t->runs[i].set[0] ? t->runs[i].set : "unlabelled";
			size_t len = strlen(sets);
			if (listed(sets, s))
				continue;
			if (len + strlen(s) + 8 < cap) {
				snprintf(sets + len, cap - len, "%s%s", len ? ", " : "", s);
			} else {
				snprintf(sets + len, cap - len, "%s...", len ? ", " : "");
				full = 1;
			}
		}
	return n;
}

/* A row on what a calibration estimated: a level it calibrated (S or
 * theta of source "calibrated"), or a model with a shift on its level;
 * `any_mark` takes an excluded row too. */
static int
calibrated_scope(const wc_params *p, const wc_run *r, int any_mark)
{
	const wc_level *l = wc_params_level(p, r->platform);
	if (!l || (r->exclude[0] && !any_mark))
		return 0;
	if (l->s.source == WC_SRC_CALIBRATED || l->theta.source == WC_SRC_CALIBRATED)
		return 1;
	return wc_params_find_model_term(p, r->model, l->name) != NULL;
}

static int
calibrated_row(const wc_params *p, const wc_run *r)
{
	return calibrated_scope(p, r, 0);
}

/* Recalibrate `t` as `p`'s model terms were calibrated (model scope, on
 * the rows of the models and levels with a term, `p` itself the base: a
 * term's runs are measured against the law without it; point estimates):
 * 1 when it gives every term of `p` from as many runs as `p`'s
 * calibration records -- then its rows are those the terms were
 * calibrated on, whatever the file's bytes, as refit_matches tells a
 * fit's. A new level (platform scope) is not recalibrated: the set no
 * longer holds the base it was calibrated from. */
static int
recalibrate_matches(const wc_params *p, const wc_runs_table *t)
{
	int n = 0, same = 0;
	if (p->calibration.runs <= 0 || p->n_model_terms == 0)
		return 0;
	unsigned char *use = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, 1);
	wc_calibrate_result *r = wc_alloc_zeroed(1, sizeof *r); /* large: small handler stacks */
	for (size_t i = 0; use && i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		const wc_level *l = wc_params_level(p, run->platform);
		n += use[i] = l && !run->exclude[0] && wc_params_find_model_term(p, run->model, l->name);
	}
	if (use && r && n == p->calibration.runs) {
		wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
		wc_error err;
		o.scope = WC_CALIBRATE_MODEL;
		o.use = use;
		o.replicates = -1;
		same = wc_calibrate(p, t, &o, r, &err) == WC_OK && r->n_runs == p->calibration.runs;
		for (int k = 0; same && k < p->n_model_terms; k++) {
			const wc_model_term *a = &p->model_terms[k];
			const wc_model_term *b = wc_params_find_model_term(&r->params, a->model, a->level);
			same = b && wc__near(b->shift.value, a->shift.value);
		}
		wc_calibrate_result_clear(r);
	}
	free(r);
	free(use);
	return same;
}

/* The rows of `t` the set's calibration recorded using (by content) and
 * the other pieces of their runs: their count, an exclude mark or not
 * (they were used where the set was calibrated), and in `cal` those of
 * them on what it estimated -- the reference level's runs of a
 * calibration relative to a level are predicted by the base's level,
 * which they did not move (docs/validation.md); into *found those found
 * by hash. */
static size_t
calibration_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *cal, size_t *found)
{
	size_t n = 0;
	unsigned char *mark = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, 1);
	*found = 0;
	if (!mark)
		return 0;
	*found = wc__calibration_rows_in(p, t, mark, &n);
	for (size_t i = 0; i < t->n_runs; i++)
		if (mark[i])
			cal[i] = (unsigned char)calibrated_scope(p, &t->runs[i], 1);
	free(mark);
	return n;
}

/* The bytes `input` takes at least where wc_error_format_path shortens
 * it: "..." and its file name, at most half the room. */
static size_t
path_room(const char *input, size_t cap)
{
	const char *slash = strrchr(input, '/');
	size_t name = strlen(slash ? slash : input), half = (cap - 1) / 2;
	return 3 + (name < half ? name : half);
}

/* `input` then `text` into buf[0..cap), by the one rule of a message that
 * quotes a path (docs/architecture.md, "Errors"): the path gives way in
 * its middle, down to its file name, so the text -- written into the room
 * path_room leaves it -- arrives whole. */
void
wc__path_then(char *buf, size_t cap, const char *input, const char *text)
{
	size_t size = cap < WC_ERROR_MSG_MAX ? cap : WC_ERROR_MSG_MAX;
	if (size < 16) { /* no room for a path */
		if (size >= 4)
			wc_error_format(buf, size, "%s", text);
		else if (size)
			buf[0] = '\0';
	} else
		wc_error_format_path(buf, size, input, "%s", text);
}

/* A frozen score of the fitted table itself reads as held-out accuracy
 * and, stored by `fit intervals --folds frozen`, narrows every interval
 * (ML.ENERGY scored on its own fit: q 0.357 against 0.381 from model
 * folds). The set records its input's hash and row count: the same
 * bytes, or rows that refit to the set's own parameters, are its input
 * (docs/validation.md, "Frozen-law accuracy"). Only the rows the fit
 * used are in-sample: the warning says how many, and names the sets of
 * the others, which are held out. A calibration (schema 10
 * `provenance.calibration`) re-estimates a level or model shifts on its
 * own runs: the rows on what it estimated are in-sample as a fit's are;
 * the others (a --model or --platform it left out) are not. Both are
 * looked for: a calibrated set keeps its base fit's record, and a few
 * calibrated rows found first once called the fit's other rows held out
 * (a `measured` set calibrated on 12 ML.ENERGY rows: "its 313 others are
 * held out", all 325 being its law's own). */
int
wc_heldout_in_sample(const wc_params *p, const wc_runs_table *t, const char *input, char *buf, size_t cap,
                     wc_in_sample_rows *rows)
{
	/* The text is written first, in the room the path leaves at its
	 * shortest: under a long folder the path pushed the sets, the held-out
	 * one among them, out of the 255-byte message. */
	size_t size = cap < WC_ERROR_MSG_MAX ? cap : WC_ERROR_MSG_MAX, n = t->n_runs;
	size_t room = size > path_room(input, size) + 16 ? size - path_room(input, size) : 16;
	char text[WC_ERROR_MSG_MAX], fit_why[176] = "", cal_why[128] = "", cap_why[160] = "";
	wc_in_sample_rows got = { 0 };
	unsigned char *cal = wc_alloc_zeroed(n ? n : 1, 2), *used = wc_alloc_zeroed(n ? n : 1, 1);
	unsigned char *capm = cal ? cal + (n ? n : 1) : NULL; /* the capacity section's rows */
	if (rows)
		*rows = got;
	if (!cal || !used) {
		free(cal);
		free(used);
		return 0;
	}
	/* A set that names its calibration's rows (schema 12) is in-sample
	 * for exactly those, found by content among any others -- other
	 * workloads of the same model and level included, which moved the
	 * recalibration below off the set's terms. Older sets fall back on
	 * the hash and the recalibration. */
	size_t n_held = 0, n_found = 0;
	const int cal_bytes = p->calibration.input_sha256[0] && strcmp(p->calibration.input_sha256, t->sha256) == 0;
	const int by_rows = p->n_calibration_rows > 0;
	if (by_rows)
		n_held = calibration_rows_in(p, t, cal, &n_found);
	else if (cal_bytes || recalibrate_matches(p, t))
		for (size_t i = 0; i < n; i++)
			cal[i] = (unsigned char)calibrated_row(p, &t->runs[i]);
	const int same_bytes = p->input_sha256[0] && strcmp(p->input_sha256, t->sha256) == 0;
	/* A set that names its fit's rows (schema 19) is in-sample for
	 * exactly those, and the pieces of their runs, found by content among
	 * any others: a subset (ML.ENERGY's B200 rows of the `measured`
	 * profile) refits to other parameters and was called held out. Older
	 * sets: the very bytes (fitted with their marks as they are), or a
	 * refit to the set's own parameters. */
	const int by_fit_rows = p->n_fit_rows > 0;
	const int refit = by_fit_rows ? wc__fit_rows_in(p, t, used) > 0
	                : same_bytes ? refit_matches(p, t, used) : refit_matches_unmarked(p, t, used);
	const int fit = refit || (same_bytes && !by_fit_rows);
	char marked[64] = "";
	if (refit == 2)
		snprintf(marked, sizeof marked, ", its %zu row(s) marked exclude among them", wc_runs_excluded(t));
	if (!fit) /* a refit that gave other parameters marked its rows */
		memset(used, 0, n);
	else if (!by_fit_rows && !memchr(used, 1, n)) /* the very table, not refitted: every row */
		memset(used, 1, n);
	/* A capacity section fitted on this table sets the prefill share (or
	 * the input length) of the rows it moves: their scores are its own too
	 * (docs/validation.md, "Frozen-law accuracy"). */
	got.capacity = wc__capacity_rows_in(p, t, capm);
	for (size_t i = 0; i < n; i++) {
		got.law += used[i];
		got.calibration += cal[i];
		used[i] |= cal[i] | capm[i];
		got.rows += used[i];
	}
	if (got.rows == 0) {
		free(cal);
		free(used);
		return 0;
	}
	if (rows)
		*rows = got;
	/* both in one sentence, in the room of one: each said shorter */
	const int both = got.law && got.calibration;
	const int multi = (got.law > 0) + (got.calibration > 0) + (got.capacity > 0) >= 2;
	const char *sets = wc__capacity_sets(p);
	if (got.capacity && (got.law || got.calibration))
		snprintf(cap_why, sizeof cap_why, "; its capacity section was fitted on it too");
	else if (got.capacity && p->capacity.input_sha256[0] && !strcmp(p->capacity.input_sha256, t->sha256))
		snprintf(cap_why, sizeof cap_why, "is the very table the set's capacity section was fitted on (its "
		         "provenance capacity input_sha256 %.16s)", t->sha256);
	else if (got.capacity)
		snprintf(cap_why, sizeof cap_why, "holds runs the set's capacity section was fitted on (its "
		         "provenance capacity run_hashes)");
	if (same_bytes)
		snprintf(fit_why, sizeof fit_why, "is the very table the set was fitted on (%sinput_sha256 %.16s)",
		         both ? "" : "its provenance ", t->sha256);
	else if (by_fit_rows)
		snprintf(fit_why, sizeof fit_why, "holds %zu row(s) of the %d runs the set was fitted on (its "
		         "provenance row_hashes%s)", got.law, p->runs, p->n_fit_runs > 0 && p->n_fit_runs < p->n_fit_rows ? ", run_hashes" : "");
	else if (both)
		snprintf(fit_why, sizeof fit_why, "holds the rows the set was fitted on (its %d runs refit to its "
		         "parameters%s)", p->runs, marked);
	else
		snprintf(fit_why, sizeof fit_why, "holds the rows the set was fitted on (refitted as the set was, its %d "
		         "runs give the set's parameters%s)", p->runs, marked);
	if (both && cal_bytes && same_bytes)
		snprintf(cal_why, sizeof cal_why, " and calibrated on");
	else if (both && cal_bytes)
		snprintf(cal_why, sizeof cal_why, " and the very table it was calibrated on (%.16s)", t->sha256);
	else if (both && by_rows)
		snprintf(cal_why, sizeof cal_why, " and %zu of the %d it was calibrated on", n_found,
		         p->n_calibration_rows);
	else if (both)
		snprintf(cal_why, sizeof cal_why, " and the rows it was calibrated on (its %d runs recalibrate to its "
		         "terms)", p->calibration.runs);
	else if (cal_bytes)
		snprintf(cal_why, sizeof cal_why, "is the very table the set was calibrated on (its provenance "
		         "calibration input_sha256 %.16s)", t->sha256);
	else if (by_rows)
		snprintf(cal_why, sizeof cal_why, "holds %zu of the %d rows the set was calibrated on (its provenance "
		         "calibration row_hashes)", n_found, p->n_calibration_rows);
	else
		snprintf(cal_why, sizeof cal_why, "holds the rows the set was calibrated on (recalibrated as the set was, "
		         "its %d runs give the set's model terms)", p->calibration.runs);
	int len = snprintf(text, room, " %s%s%s: ", got.law ? fit_why : "", got.calibration ? cal_why : "", cap_why);
	if (len < 0 || (size_t)len >= room)
		len = (int)room - 1;
	size_t at = (size_t)len;
	if (multi) {
		const size_t count[3] = { got.law, got.calibration, got.capacity };
		static const char *const by[3] = { "the law", "its calibration", "its capacity section" };
		for (int k = 0, said = 0; k < 3; k++) {
			int more = !count[k] ? 0 : snprintf(text + at, room - at, "%s%zu for %s", said++ ? ", " : "in-sample: ",
			                                    count[k], by[k]);
			at += more > 0 ? (size_t)more : 0;
			at = at < room ? at : room - 1;
		}
		int more = snprintf(text + at, room - at, "; ");
		at += more > 0 ? (size_t)more : 0;
		at = at < room ? at : room - 1;
	}
	if (got.rows == n && multi)
		snprintf(text + at, room - at, "none held out");
	else if (got.rows == n && got.capacity && !got.law && !got.calibration)
		snprintf(text + at, room - at, "it sets every row's %s: these errors are in-sample, not held out", sets);
	else if (got.rows == n)
		snprintf(text + at, room - at, "these errors are in-sample, not held out");
	else if (!multi && got.capacity) /* by the capacity section alone */
		snprintf(text + at, room - at, "in-sample for the %zu row(s) whose %s it sets; its %zu others are held "
		         "out", got.capacity, sets, n - got.capacity);
	else if (!multi && !got.law) /* by the calibration alone: no sets named, as before */
		snprintf(text + at, room - at, "in-sample for the %zu row(s) %son the levels and models it calibrated; "
		         "its %zu others are held out", got.calibration,
		         n_held > n_found ? "it used or of their runs " : by_rows ? "it used " : "", n - got.calibration);
	else {
		int more = multi ? snprintf(text + at, room - at, "its %zu others are held out (sets: ", n - got.rows)
		                : snprintf(text + at, room - at, "in-sample for the %zu row(s) the fit used; its %zu "
		                           "others are held out (sets: ", got.rows, n - got.rows);
		at += more > 0 ? (size_t)more : 0;
		if (at + 2 < room) {
			unused_rows(t, used, text + at, room - at - 1);
			snprintf(text + strlen(text), room - strlen(text), ")");
		}
	}
	wc__path_then(buf, cap, input, text);
	free(cal);
	free(used);
	return 1;
}

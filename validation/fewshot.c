/*
 * Few-shot calibration validated on held-out runs (docs/validation.md,
 * "Few-shot calibration"): per model (or platform) and level, order the
 * runs by closeness to the reference load, calibrate on the first k,
 * predict the runs after the largest k with every k's parameter set; a
 * run's `#seg<k>` pieces are one run.
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
	const wc_runs_table *t;
	const wc_fewshot_options *o;
	size_t n;                 /* table rows */
	double *e;                /* n_k x n errors, % */
	char (*sets)[48];         /* n_k x n set names */
	size_t m[WC_FEWSHOT_K_MAX];
	int skipped[WC_FEWSHOT_K_MAX];
	struct fs_cand *cand;     /* scratch: the runs of one subgroup */
	size_t *rows;             /* scratch: rows to predict */
	wc_per_run *per_run;
	wc_per_run scored[WC_FEWSHOT_K_MAX]; /* every scored row per k, for coverage */
	wc_fewshot_report *out;
} fs_state;

static void
group_key(const fs_state *s, size_t i, char *buf, size_t cap)
{
	const wc_run *r = &s->t->runs[i];
	if (s->o->scope == WC_CALIBRATE_PLATFORM)
		snprintf(buf, cap, "%s", r->platform);
	else
		wc_model_key(r->model, buf, cap);
}

struct fs_cand {
	double dist;
	size_t row;
	const char *run_id;
};

static int
by_distance(const void *a, const void *b)
{
	const struct fs_cand *x = a, *y = b;
	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return strcmp(x->run_id, y->run_id);
}

/* Distance of a run from the reference load, |log(n/32)|; runs the base
 * cannot calibrate on (power not above idle, unknown level) go last. */
static double
distance(const wc_params *base, const wc_run *r)
{
	double n = r->series.len ? r->series.mean : r->running;
	const wc_level *l = wc_params_level(base, r->platform);
	double p0 = isfinite(r->idle_power_w) ? r->idle_power_w : l ? l->p0.value : NAN;
	if (!(n > 0) || (l && !(r->mean_power_w > r->tp * p0)))
		return INFINITY;
	return fabs(log(n / WC_LAW_REF_RUNNING));
}

/* `count` runs not predicted at k index `ki` for `why`, counted under
 * that reason: each distinct reason is said with its count, never the
 * first one for all (docs/validation.md, "Few-shot calibration"). Past
 * WC_FEWSHOT_WHY_MAX reasons, counted in `skipped` alone (the caller says
 * the rest as other reasons). */
/* `why` without what names one run: the table's "path:line:column: ",
 * "column 'NAME': " (said "NAME: ") and "run 'ID'" (said "a run"), and the
 * remedy after the cause, so that the runs refused for one cause
 * count under one reason, whatever table (raw or imported) they are in. */
static void
reason_key(const char *why, char *buf, size_t cap)
{
	const char *p = why, *c;
	for (c = strstr(why, ": "); c; c = strstr(c + 1, ": ")) {
		const char *d = c;
		int colons = 0;
		while (d > why && (d[-1] == ':' || (d[-1] >= '0' && d[-1] <= '9')))
			colons += *--d == ':';
		if (colons >= 1 && d < c) {
			p = c + 2;
			break;
		}
	}
	size_t n = 0;
	/* the imported table names the column ("column 'platform': "), the
	 * raw one its field ("platform: "): one reason */
	const char *q = strncmp(p, "column '", 8) == 0 ? strchr(p + 8, '\'') : NULL;
	if (q && strncmp(q, "': ", 3) == 0) {
		n = (size_t)snprintf(buf, cap, "%.*s: ", (int)(q - p - 8), p + 8);
		n = n < cap ? n : cap - 1;
		p = q + 3;
	}
	while (*p && n + 1 < cap) {
		if (strncmp(p, "run '", 5) == 0 && strchr(p + 5, '\'')) {
			n += (size_t)snprintf(buf + n, cap - n, "a run");
			n = n < cap ? n : cap - 1;
			p = strchr(p + 5, '\'') + 1;
			continue;
		}
		buf[n++] = *p++;
	}
	buf[n] = '\0';
	/* the cause, not its remedy after "; ": an error message cut to its
	 * 255 bytes (docs/architecture.md, "Errors") cuts the remedy at a
	 * place that moves with the path's and the run id's length */
	char *semi = strstr(buf, "; "), *dots = strstr(buf, "...");
	if (semi)
		*semi = '\0';
	else if (dots && dots[3] == '\0')
		*dots = '\0';
}

static void
skip(fs_state *s, int ki, int count, const char *text)
{
	wc_fewshot_report *out = s->out;
	char why[WC_FEWSHOT_WHY_LEN];
	reason_key(text, why, sizeof why);
	s->skipped[ki] += count;
	if (count <= 0)
		return;
	int i = 0;
	while (i < out->n_skips && !(out->skips[i].k_index == ki && strcmp(out->skips[i].why, why) == 0))
		i++;
	if (i == WC_FEWSHOT_WHY_MAX)
		return;
	if (i == out->n_skips) {
		out->n_skips++;
		out->skips[i].k_index = ki;
		out->skips[i].count = 0;
		snprintf(out->skips[i].why, sizeof out->skips[i].why, "%s", why);
	}
	out->skips[i].count += count;
}

/* Predict the held-out rows `rows[0..m)` with `p` (NULL: not possible at
 * this k) and record them under k index `ki`. */
static int
score(fs_state *s, int ki, const wc_params *p, const char *why, const size_t *rows, size_t m, const char *fold,
      wc_error *err)
{
	wc_predictor *pr = NULL;
	wc_error perr = { 0, "" };
	int rc = WC_OK;
	if (!p || wc_predictor_new(p, &pr, &perr) != WC_OK) {
		skip(s, ki, (int)m, p ? perr.msg : why);
		return WC_OK;
	}
	for (size_t j = 0; j < m && rc == WC_OK; j++) {
		const wc_run *r = &s->t->runs[rows[j]];
		wc_per_run_row row;
		double pred;
		wc_per_run_row_init(&row);
		if (wc__predict_run(pr, r, &pred, &row, WC__RUN_INTERVAL, &perr) != WC_OK) {
			skip(s, ki, 1, perr.msg[0] ? perr.msg : "the prediction failed");
			continue;
		}
		size_t at = (size_t)ki * s->n + s->m[ki]++;
		s->e[at] = 100.0 * (pred - r->mean_power_w) / r->mean_power_w;
		snprintf(s->sets[at], sizeof s->sets[0], "%s", r->platform);
		snprintf(row.set, sizeof row.set, "%s", r->platform);
		snprintf(row.fold, sizeof row.fold, "%s k=%d", fold, s->o->k[ki]);
		rc = wc_per_run_add(&s->scored[ki], &row, err);
		if (rc == WC_OK && s->per_run)
			rc = wc_per_run_add(s->per_run, &row, err);
	}
	wc_predictor_free(pr);
	return rc;
}

/* One subgroup (a model on one level, or one platform): order its runs,
 * calibrate on the first k for every k, predict the runs after the
 * largest k. `member[i]` marks its rows. */
static int
run_subgroup(fs_state *s, const wc_params *base, const unsigned char *member, const char *key,
             wc_error *err)
{
	const wc_fewshot_options *o = s->o;
	size_t c = 0;
	int kmax = o->k[o->n_k - 1], rc = WC_OK;
	for (size_t i = 0; i < s->n; i++)
		if (member[i])
			s->cand[c++] = (struct fs_cand){ distance(base, &s->t->runs[i]), i, s->t->runs[i].run_id };
	qsort(s->cand, c, sizeof *s->cand, by_distance);
	/* Runs, not rows: a run's `#seg<k>` pieces (wc_run_same_run) are
	 * calibrated on together or scored together, the run ranked by its
	 * closest piece -- calibrated on some pieces of a run, the scores of
	 * its others were in-sample (k = 1: 2.39 % against 11.85 %). */
	size_t *rank = wc_alloc_array(c ? c : 1, sizeof *rank), runs = 0, n_scored = 0;
	unsigned char *use = wc_alloc_zeroed(s->n, 1);
	if (!rank || !use) {
		free(rank);
		free(use);
		return wc_error_set(err, WC_ENOMEM, "fewshot: out of memory");
	}
	for (size_t j = 0; j < c; j++) {
		size_t u = 0;
		while (u < j && !wc_run_same_run(&s->t->runs[s->cand[u].row], &s->t->runs[s->cand[j].row]))
			u++;
		rank[j] = u == j ? runs++ : rank[u];
	}
	if (runs <= (size_t)kmax) {
		s->out->groups_too_small++;
		if ((int)runs > s->out->largest_too_small)
			s->out->largest_too_small = (int)runs;
		free(rank);
		free(use);
		return WC_OK;
	}
	s->out->groups++;
	for (size_t j = 0; j < c; j++)
		if (rank[j] >= (size_t)kmax)
			s->rows[n_scored++] = s->cand[j].row;
	for (int ki = 0; ki < o->n_k && rc == WC_OK; ki++) {
		wc_calibrate_result cal;
		wc_calibrate_options co = WC_CALIBRATE_OPTIONS_INIT;
		wc_error cerr = { 0, "" };
		const char *why = "";
		int ok = 1;
		memset(&cal, 0, sizeof cal);
		memset(use, 0, s->n);
		for (size_t j = 0; j < c; j++)
			if (rank[j] < (size_t)o->k[ki]) {
				use[s->cand[j].row] = 1;
				ok &= isfinite(s->cand[j].dist);
			}
		if (!ok)
			why = "a calibration run has no load or no power above idle";
		co.scope = o->scope;
		co.use = use;
		/* The calibration `wattcast calibrate` makes: same draws, same
		 * interval (docs/intervals.md). */
		co.replicates = o->replicates;
		co.seed = o->seed;
		co.threads = o->threads > 0 ? o->threads : 1;
		co.idle_power_w = o->idle_power_w;
		co.run_scatter = o->run_scatter;
		/* A run calibrate refuses leaves its group unpredicted at this
		 * k; the idle given out of its board's bound is the option's
		 * fault, refused as calibrate refuses it (docs/cli.md,
		 * "calibrate"), never a row left out without a word. */
		if (o->k[ki] > 0 && ok && wc_calibrate(base, s->t, &co, &cal, &cerr) != WC_OK) {
			ok = 0;
			why = cerr.msg;
		}
		if (cal.idle_refused)
			rc = wc_error_set(err, WC_EINVAL, "%s", cerr.msg);
		else
			rc = score(s, ki, !ok ? NULL : o->k[ki] > 0 ? &cal.params : base, why, s->rows, n_scored, key,
			           err);
		wc_calibrate_result_clear(&cal);
	}
	free(rank);
	free(use);
	return rc;
}

/* The base for a held-out group: the frozen one, or a fit on the rows
 * outside the group. NULL in `*base` when that fit fails, its reason in
 * `why` (as validate lomo says it: "without 'Qwen3-8B': fit: ..."). */
static int
group_base(fs_state *s, const unsigned char *member, const char *key, wc_fit_result *fit,
           const wc_params **base, char *why, size_t cap, wc_error *err)
{
	wc_error ferr = { 0, "" };
	if (!s->o->refit) {
		*base = s->o->base;
		return WC_OK;
	}
	unsigned char *train = wc_alloc_zeroed(s->n, 1);
	if (!train)
		return wc_error_set(err, WC_ENOMEM, "fewshot: out of memory");
	for (size_t i = 0; i < s->n; i++)
		train[i] = !member[i] && !s->t->runs[i].exclude[0] && (!s->o->refit->use || s->o->refit->use[i]);
	wc_fit_options fo = *s->o->refit;
	fo.use = train;
	int rc = wc_fit_inference_law(s->t, &fo, fit, &ferr);
	free(train);
	*base = rc == WC_OK ? &fit->params : NULL;
	if (rc != WC_OK)
		wc_error_format(why, cap, "the base fitted without '%s' failed: %s", key, ferr.msg);
	if (rc == WC_ENOMEM)
		return wc_error_set(err, rc, "%s", ferr.msg);
	return WC_OK;
}

/* One held-out group: its base, then each of its levels (model scope) or
 * itself (platform scope) as a subgroup. */
static int
run_group(fs_state *s, const unsigned char *member, const char *key, wc_error *err)
{
	wc_fit_result fit;
	const wc_params *base = NULL;
	unsigned char *sub = wc_alloc_zeroed(s->n, 1), *seen = wc_alloc_zeroed(s->n, 1);
	memset(&fit, 0, sizeof fit);
	char why[WC_FEWSHOT_WHY_LEN] = "";
	int rc = sub && seen ? group_base(s, member, key, &fit, &base, why, sizeof why, err)
	                     : wc_error_set(err, WC_ENOMEM, "fewshot: out of memory");
	for (size_t i = 0; rc == WC_OK && !base && i < s->n; i++)
		for (int ki = 0; ki < s->o->n_k; ki++) /* the fold's fit failed: counted, not scored */
			skip(s, ki, member[i], why);
	for (size_t i = 0; rc == WC_OK && i < s->n; i++) {
		if (!member[i] || seen[i])
			continue;
		for (size_t j = 0; j < s->n; j++) {
			sub[j] = member[j] && strcmp(s->t->runs[j].platform, s->t->runs[i].platform) == 0 &&
			         (!s->o->per_set || strcmp(s->t->runs[j].set, s->t->runs[i].set) == 0);
			seen[j] |= sub[j];
		}
		/* its subgroups counted still, so the header's totals hold
		 * every group (docs/validation.md, "Few-shot calibration") */
		if (base)
			rc = run_subgroup(s, base, sub, key, err);
		else
			s->out->groups_without_base++;
	}
	if (s->o->refit)
		wc_fit_result_clear(&fit);
	free(sub);
	free(seen);
	return rc;
}

static int
check_options(const wc_fewshot_options *o, wc_error *err)
{
	if (o->n_k < 1 || o->n_k > WC_FEWSHOT_K_MAX)
		return wc_error_set(err, WC_EINVAL, "k: give 1 to %d values", WC_FEWSHOT_K_MAX);
	for (int i = 0; i < o->n_k; i++)
		if (o->k[i] < 0 || o->k[i] > 1000 || (i > 0 && o->k[i] <= o->k[i - 1]))
			return wc_error_set(err, WC_EINVAL, "k: expected increasing values between 0 and 1000");
	if (!o->refit && !o->base)
		return wc_error_set(err, WC_EINVAL, "base: a frozen base or refit options are needed");
	return WC_OK;
}

int
wc_validate_fewshot(const wc_runs_table *t, const wc_fewshot_options *o, wc_fewshot_report *out,
                    wc_per_run *per_run, wc_error *err)
{
	fs_state s = { .t = t, .o = o, .n = t->n_runs, .per_run = per_run, .out = out };
	size_t n = t->n_runs ? t->n_runs : 1;
	unsigned char *member = wc_alloc_zeroed(n, 1), *done = wc_alloc_zeroed(n, 1);
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = check_options(o, err)) != WC_OK)
		goto cleanup;
	s.e = wc_alloc_zeroed((size_t)o->n_k * n, sizeof *s.e);
	s.sets = wc_alloc_zeroed((size_t)o->n_k * n, sizeof *s.sets);
	s.cand = wc_alloc_zeroed(n, sizeof *s.cand);
	s.rows = wc_alloc_zeroed(n, sizeof *s.rows);
	if (!member || !done || !s.e || !s.sets || !s.cand || !s.rows) {
		rc = wc_error_set(err, WC_ENOMEM, "fewshot: out of memory");
		goto cleanup;
	}
	for (size_t i = 0; rc == WC_OK && i < t->n_runs; i++) {
		char key[WC_MODEL_NAME_MAX], other[WC_MODEL_NAME_MAX];
		if (done[i] || t->runs[i].exclude[0])
			continue;
		group_key(&s, i, key, sizeof key);
		for (size_t j = 0; j < t->n_runs; j++) {
			group_key(&s, j, other, sizeof other);
			member[j] = !t->runs[j].exclude[0] && strcasecmp(key, other) == 0;
			done[j] |= member[j];
		}
		rc = run_group(&s, member, key, err);
	}
	out->n_k = o->n_k;
	memcpy(out->k, o->k, sizeof out->k);
	for (int ki = 0; rc == WC_OK && ki < o->n_k; ki++)
		rc = wc__accuracy_summary(s.e + (size_t)ki * n, (const char (*)[48])(s.sets + (size_t)ki * n),
		                          s.m[ki], s.skipped[ki], &out->by_k[ki], err);
	for (int ki = 0; rc == WC_OK && ki < o->n_k; ki++)
		rc = wc__coverage_summary(&s.scored[ki], NULL, &out->by_k[ki], err);
cleanup:
	for (int ki = 0; ki < WC_FEWSHOT_K_MAX; ki++)
		wc_per_run_clear(&s.scored[ki]);
	free(member);
	free(done);
	free(s.e);
	free(s.sets);
	free(s.cand);
	free(s.rows);
	return rc;
}
